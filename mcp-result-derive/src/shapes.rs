//! Field types that compile and then fail in front of a client, refused where the derive
//! sees them (the field's type as written), for `#[derive(ToolResult)]` and
//! `#[derive(Redact)]` alike:
//!
//! - `u128`/`i128` (also inside `Option`, lists, maps, boxes, tuples): serde_json writes
//!   them as bare numbers, and no JSON client reads an integer past 2^53 − 1 exactly (RFC
//!   7493 §2.2); the way out is a decimal string (`mcp_result::DecimalString`). The 64-bit
//!   types compile: their values are checked as the result is built.
//! - bytes (`Vec<u8>`, `[u8; N]`, `[u8]`, `Box<[u8]>`, `Cow<[u8]>`, `bytes::Bytes`,
//!   `BytesMut`, `serde_bytes::ByteBuf`, and containers of them): serde_json writes an array
//!   of numbers, sent twice (`structuredContent` and the JSON text), so a 2 KB image costs
//!   ~8 KB of the model's context; the ways out are media blocks, artifacts, an explicit
//!   encoding, or `#[mcp_result(bytes_as_numbers)]`.
//!
//! A field with its own serializer (`#[serde(with)]`, `serialize_with`) or skipped by serde
//! is not refused: it says itself what it writes.

use syn::{GenericArgument, PathArguments, Type};

use crate::{ctxt::Ctxt, fields::Field};

/// What is wrong with a field's type on the wire.
enum Concern {
    /// `u128` or `i128`, named.
    WideInteger(&'static str),
    /// A byte buffer, as written.
    Bytes(String),
}

/// The containers whose type arguments serialize as elements or values (a map's key is a
/// string in JSON, so only its last argument is looked at).
const CONTAINERS: &[&str] = &[
    "Option",
    "Vec",
    "VecDeque",
    "LinkedList",
    "BTreeSet",
    "HashSet",
    "IndexSet",
    "Box",
    "Rc",
    "Arc",
    "Cow",
    "BTreeMap",
    "HashMap",
    "IndexMap",
    "NoSecrets",
];

/// Types that are byte buffers whatever their arguments.
const BYTE_TYPES: &[&str] = &["Bytes", "BytesMut", "ByteBuf", "ByteArray"];

fn is_u8(ty: &Type) -> bool {
    matches!(ty, Type::Path(path) if path.qself.is_none() && path.path.is_ident("u8"))
}

/// The first concern inside `ty`, looking through containers, references, arrays, slices,
/// tuples and groups.
fn concern(ty: &Type) -> Option<Concern> {
    let written = || {
        quote::ToTokens::to_token_stream(ty)
            .to_string()
            .replace(' ', "")
            .replace(';', "; ")
    };
    match ty {
        Type::Group(group) => concern(&group.elem),
        Type::Paren(paren) => concern(&paren.elem),
        Type::Reference(reference) => concern(&reference.elem),
        Type::Array(array) if is_u8(&array.elem) => Some(Concern::Bytes(written())),
        Type::Slice(slice) if is_u8(&slice.elem) => Some(Concern::Bytes(written())),
        Type::Array(array) => concern(&array.elem),
        Type::Slice(slice) => concern(&slice.elem),
        Type::Tuple(tuple) => tuple.elems.iter().find_map(concern),
        Type::Path(path) if path.qself.is_none() => {
            let last = path.path.segments.last()?;
            let name = last.ident.to_string();
            match name.as_str() {
                "u128" => return Some(Concern::WideInteger("u128")),
                "i128" => return Some(Concern::WideInteger("i128")),
                _ if BYTE_TYPES.contains(&name.as_str()) => return Some(Concern::Bytes(written())),
                _ => {}
            }
            let PathArguments::AngleBracketed(arguments) = &last.arguments else {
                return None;
            };
            if !CONTAINERS.contains(&name.as_str()) {
                return None;
            }
            let types: Vec<&Type> = arguments
                .args
                .iter()
                .filter_map(|argument| match argument {
                    GenericArgument::Type(ty) => Some(ty),
                    _ => None,
                })
                .collect();
            let element = match name.as_str() {
                "BTreeMap" | "HashMap" | "IndexMap" => types.get(1).copied(),
                _ => types.first().copied(),
            }?;
            if matches!(
                name.as_str(),
                "Vec" | "VecDeque" | "Box" | "Cow" | "Rc" | "Arc"
            ) && (is_u8(element) || matches!(element, Type::Slice(slice) if is_u8(&slice.elem)))
            {
                return Some(Concern::Bytes(written()));
            }
            concern(element)
        }
        _ => None,
    }
}

/// What is wrong with tool `tool`'s return type on the wire (its success type: `T` of
/// `Result<T, E>`), with the ways out; `None` when the type as written shows nothing (a
/// named type's fields are its derive's, or the server's check when it starts).
pub fn return_type_problem(output: &Type, tool: &str) -> Option<String> {
    let success = match output {
        Type::Path(path) if path.qself.is_none() => {
            let last = path.path.segments.last()?;
            match (&*last.ident.to_string(), &last.arguments) {
                ("Result", PathArguments::AngleBracketed(arguments)) => {
                    match arguments.args.first()? {
                        GenericArgument::Type(ty) => ty,
                        _ => return None,
                    }
                }
                _ => output,
            }
        }
        _ => output,
    };
    match concern(success)? {
        Concern::WideInteger(ty) => Some(format!(
            "tool `{tool}` returns `{ty}` values, which serde_json writes as bare JSON numbers, \
             and no JSON client reads an integer beyond 2^53 - 1 exactly (RFC 7493 §2.2): \
             return a result type whose field is a decimal string \
             (`#[serde(with = \"mcp_result::DecimalString\")]`), or a narrower integer type"
        )),
        Concern::Bytes(written) => Some(format!(
            "tool `{tool}` returns `{written}`, which serde_json writes as an array of numbers, \
             sent twice (in `structuredContent` and in the JSON text), and whose summary only \
             counts them: say what the bytes are: return `mcp_result::content::Image` or \
             `Audio` in a result type (a media block the client keeps out of the model's \
             context), `mcp_result::content::Payload::blob` (an artifact behind a \
             `resource_link`), or text (`String::from_utf8`, or a base64 string); if the bytes \
             are small numbers meant as numbers, a result type with the field marked \
             `#[mcp_result(bytes_as_numbers)]`"
        )),
    }
}

/// Reports every field whose type would serialize to what JSON clients cannot take, at the
/// field's type, with the ways out.
pub fn check(cx: &Ctxt, fields: &[Field]) {
    for field in fields {
        if field.serde.skip || field.serde.serialize_with.is_some() || field.secret.is_some() {
            continue;
        }
        match concern(field.ty) {
            Some(Concern::WideInteger(ty)) => cx.error_spanned_by(
                field.ty,
                format!(
                    "field `{}` holds `{ty}` values, which serde_json writes as bare JSON \
                     numbers, and no JSON client reads an integer beyond 2^53 - 1 exactly (RFC \
                     7493 §2.2; the TypeScript SDK and MCP Inspector round it silently): send \
                     it as a decimal string with `#[serde(with = \"mcp_result::DecimalString\")]` \
                     on the field (for an `Option` or a list, on the field of a newtype of your \
                     own), or use a narrower integer type",
                    field.name
                ),
            ),
            Some(Concern::Bytes(written)) if !field.bytes_as_numbers => cx.error_spanned_by(
                field.ty,
                format!(
                    "field `{}` {} `{written}`, which serde_json writes as an array of numbers, \
                     sent twice (in `structuredContent` and in the JSON text): a 2 KB image \
                     costs ~8 KB of the model's context. Say what the bytes are: binary data \
                     as `mcp_result::content::Image` or `Audio` (a media block the client keeps \
                     out of the model's context), or `mcp_result::content::Payload::blob` (an \
                     artifact behind a `resource_link`); an explicit encoding, \
                     `#[serde(with = \"...\")]` to a base64 string with \
                     `#[schemars(with = \"String\")]`; or, if the bytes are small numbers meant \
                     as numbers, `#[mcp_result(bytes_as_numbers)]` on the field",
                    field.name,
                    if written
                        == quote::ToTokens::to_token_stream(field.ty)
                            .to_string()
                            .replace(' ', "")
                            .replace(';', "; ")
                    {
                        "is"
                    } else {
                        "holds"
                    }
                ),
            ),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(ty: &str) -> Option<String> {
        let ty: Type = syn::parse_str(ty).unwrap();
        concern(&ty).map(|concern| match concern {
            Concern::WideInteger(ty) => ty.to_owned(),
            Concern::Bytes(written) => format!("bytes {written}"),
        })
    }

    #[test]
    fn wide_integers_and_bytes_are_found_through_containers() {
        assert_eq!(of("u128").as_deref(), Some("u128"));
        assert_eq!(of("Option<Vec<i128>>").as_deref(), Some("i128"));
        assert_eq!(of("BTreeMap<u128, String>"), None);
        assert_eq!(of("HashMap<String, (u8, u128)>").as_deref(), Some("u128"));
        assert_eq!(of("Vec<u8>").as_deref(), Some("bytes Vec<u8>"));
        assert_eq!(of("Option<Vec<u8>>").as_deref(), Some("bytes Vec<u8>"));
        assert_eq!(of("[u8; 32]").as_deref(), Some("bytes [u8; 32]"));
        assert_eq!(of("Box<[u8]>").as_deref(), Some("bytes Box<[u8]>"));
        assert_eq!(of("&'a [u8]").as_deref(), Some("bytes [u8]"));
        assert_eq!(of("bytes::Bytes").as_deref(), Some("bytes bytes::Bytes"));
        assert_eq!(of("Vec<Vec<u8>>").as_deref(), Some("bytes Vec<u8>"));
        assert_eq!(of("u8"), None);
        assert_eq!(of("u64"), None);
        assert_eq!(of("Vec<u16>"), None);
        assert_eq!(of("MyVec<u8>"), None);
    }
}
