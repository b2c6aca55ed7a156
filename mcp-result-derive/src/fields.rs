//! The fields of a derive input as serde serializes them, read by serde's own attribute
//! parser (`serde_derive_internals`, as schemars_derive does), so a key, a skip or a flatten
//! means exactly what serde means. Shared by `#[derive(ToolResult)]` and `#[derive(Redact)]`.

use proc_macro2::Span;
use serde_derive_internals::{ast::Container, Derive};
use syn::{Attribute, DeriveInput, Ident, Member, Type};

use crate::ctxt::Ctxt;

pub struct Field<'a> {
    /// The Rust name (without `r#`), or the index of a tuple field.
    pub name: String,
    /// How the field is reached: `self.member`, or `Self::Variant { member: .. }`.
    pub member: Member,
    /// The enum variant the field belongs to; `None` for a struct's field.
    pub variant: Option<Ident>,
    pub ty: &'a Type,
    /// The key serde writes for this field (after `rename` and `rename_all`).
    pub key: String,
    pub serde: Serialization,
    /// `#[secret]`, if present.
    pub secret: Option<&'a Attribute>,
    /// `#[mcp_result(bytes_as_numbers)]`: the field's bytes are small numbers meant as
    /// numbers, sent as a JSON array ([`crate::shapes`]).
    pub bytes_as_numbers: bool,
}

/// How serde serializes a field.
pub struct Serialization {
    /// `skip` or `skip_serializing` (on the field or its variant): never serialized.
    pub skip: bool,
    /// `skip_serializing_if = "..."`: sometimes absent.
    pub skip_if: bool,
    /// `flatten`: its own keys are merged into the parent object.
    pub flatten: bool,
    /// `serialize_with` or `with`: a custom serializer the schema cannot see.
    pub serialize_with: Option<syn::ExprPath>,
    /// `#[schemars(with = "...")]` or `#[schemars(schema_with = "...")]`: the schema of what
    /// a custom serializer writes; also `#[serde(with = "Type")]`, which schemars reads as
    /// the type whose schema to use (so the path must be a type: `mcp_result::DecimalString`).
    pub schemars_with: bool,
}

/// serde's view of `input` (for `Serialize`), or `None` with the error recorded in `cx`: for
/// a union, or when serde's attributes are malformed. serde's own derive then reports the
/// same errors at the same spans (rustc shows each once) and emits no `Serialize` impl, so
/// there is nothing to stub.
pub fn serde_container<'a>(
    cx: &Ctxt,
    input: &'a DeriveInput,
    derive: &str,
) -> Option<Container<'a>> {
    if let syn::Data::Union(data) = &input.data {
        cx.error_at(
            data.union_token.span,
            format!(
                "`{derive}` cannot be derived for a union: serde cannot serialize one; use an \
                 enum"
            ),
        );
        return None;
    }
    let serde_cx = serde_derive_internals::Ctxt::new();
    let private = Ident::new("__private", Span::call_site());
    let container = Container::from_ast(&serde_cx, input, Derive::Serialize, &private);
    if let Err(error) = serde_cx.check() {
        cx.syn_error(error);
        return None;
    }
    container
}

/// Every field of the struct, or of every variant of the enum, in order; errors in the
/// fields' own `#[mcp_result(...)]` attributes are recorded in `cx`.
pub fn all<'a>(cx: &Ctxt, container: &Container<'a>) -> Vec<Field<'a>> {
    match &container.data {
        serde_derive_internals::ast::Data::Enum(variants) => variants
            .iter()
            .flat_map(|variant| {
                let skip = variant.attrs.skip_serializing();
                variant.fields.iter().map(move |field| {
                    Field::from_serde(cx, field, Some(variant.ident.clone()), skip)
                })
            })
            .collect(),
        serde_derive_internals::ast::Data::Struct(_, fields) => fields
            .iter()
            .map(|field| Field::from_serde(cx, field, None, false))
            .collect(),
    }
}

impl<'a> Field<'a> {
    fn from_serde(
        cx: &Ctxt,
        field: &serde_derive_internals::ast::Field<'a>,
        variant: Option<Ident>,
        variant_skip: bool,
    ) -> Self {
        let serde = &field.attrs;
        Field {
            name: match &field.member {
                Member::Named(ident) => ident.to_string().trim_start_matches("r#").to_owned(),
                Member::Unnamed(index) => index.index.to_string(),
            },
            member: field.member.clone(),
            variant,
            ty: field.ty,
            key: serde.name().serialize_name().value.clone(),
            serde: Serialization {
                skip: serde.skip_serializing() || variant_skip,
                skip_if: serde.skip_serializing_if().is_some(),
                flatten: serde.flatten(),
                serialize_with: serde.serialize_with().cloned(),
                schemars_with: schemars_with(&field.original.attrs),
            },
            secret: field
                .original
                .attrs
                .iter()
                .find(|a| a.path().is_ident("secret")),
            bytes_as_numbers: field_attrs(cx, &field.original.attrs),
        }
    }
}

/// `#[mcp_result(bytes_as_numbers)]` on a field; any other key is an error at the key.
fn field_attrs(cx: &Ctxt, attrs: &[Attribute]) -> bool {
    let mut bytes_as_numbers = false;
    for attr in attrs.iter().filter(|a| a.path().is_ident("mcp_result")) {
        crate::attr::parse_attr(cx, attr, |meta| {
            if meta.path.is_ident("bytes_as_numbers") {
                bytes_as_numbers = true;
                Ok(())
            } else {
                Err(crate::attr::key_error(
                    meta,
                    format!(
                        "unknown `mcp_result` key `{}` on a field: expected `bytes_as_numbers` \
                         (the field's bytes are small numbers meant as numbers)",
                        crate::attr::key_name(meta)
                    ),
                ))
            }
        });
    }
    bytes_as_numbers
}

/// `#[schemars(with = "...")]`, `#[schemars(schema_with = "...")]` (schemars's own
/// attribute, which serde's parser does not read), or `#[serde(with = "...")]`, which
/// schemars reads as `with`. Anything malformed is schemars's (or serde's) to report.
fn schemars_with(attrs: &[Attribute]) -> bool {
    let mut found = false;
    for attr in attrs
        .iter()
        .filter(|a| a.path().is_ident("schemars") || a.path().is_ident("serde"))
    {
        let schemars = attr.path().is_ident("schemars");
        let _ = attr.parse_nested_meta(|meta| {
            found |= meta.path.is_ident("with") || (schemars && meta.path.is_ident("schema_with"));
            if meta.input.peek(syn::Token![=]) {
                meta.value()?.parse::<syn::Expr>()?;
            } else if meta.input.peek(syn::token::Paren) {
                meta.input.parse::<proc_macro2::Group>()?;
            }
            Ok(())
        });
    }
    found
}
