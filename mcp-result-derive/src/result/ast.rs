//! The typed view of a `#[derive(ToolResult)]` input, with every fact the derive needs
//! resolved: serde's attributes read by serde's own parser (`serde_derive_internals`, as
//! schemars_derive does), so a key, a skip or a flatten means exactly what serde means;
//! the write-contract fields; the summary template's placeholders.

use proc_macro2::Span;
use serde_derive_internals::{
    ast::{Container, Data, Style},
    attr::RenameRule,
    Derive,
};
use syn::{Attribute, DeriveInput, Generics, Ident, Member, Type};

use super::{
    attr::{self, ResultAttrs},
    template::{self, Template},
};
use crate::{ctxt::Ctxt, keys::ContractKey};

pub struct Input<'a> {
    pub ident: &'a Ident,
    pub generics: &'a Generics,
    pub attrs: ResultAttrs,
    /// The generated summary's title: the doc comment's first line, or the name in words.
    pub title: String,
    pub shape: Shape,
    /// Every field of the struct, or of every variant of the enum, in order.
    pub fields: Vec<Field<'a>>,
    /// `summary = "..."`, its placeholders resolved to [`Input::fields`].
    pub summary: Option<Template>,
    /// The fields meant as write-contract fields ([`Shape::Named`] only), in
    /// [`ContractKey::ALL`] order.
    pub contract: Vec<ContractField>,
}

/// What the derive input is, as serde serializes it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A struct with named fields: a JSON object whose keys the derive knows.
    Named,
    /// `#[serde(transparent)]`: serializes as its one field.
    Transparent,
    /// `#[serde(into = "...")]`: serializes as another type.
    Into,
    /// A tuple or newtype struct.
    Tuple,
    /// A unit struct (`null`).
    Unit,
    /// An enum, in any serde representation.
    Enum,
}

impl Shape {
    pub fn describe(self) -> &'static str {
        match self {
            Shape::Named => "a struct with named fields",
            Shape::Transparent => "a `#[serde(transparent)]` struct",
            Shape::Into => "a `#[serde(into = \"...\")]` type",
            Shape::Tuple => "a tuple struct",
            Shape::Unit => "a unit struct",
            Shape::Enum => "an enum",
        }
    }
}

pub struct Field<'a> {
    /// The Rust name (without `r#`), or the index of a tuple field.
    pub name: String,
    pub ty: &'a Type,
    /// The key serde writes for this field (after `rename` and `rename_all`).
    pub key: String,
    pub serde: Serialization,
    /// `#[secret]`, if present.
    pub secret: Option<&'a Attribute>,
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
    /// a custom serializer writes.
    pub schemars_with: bool,
}

/// A field meant as a write-contract field.
pub struct ContractField {
    pub key: ContractKey,
    /// The index into [`Input::fields`].
    pub field: usize,
    pub presence: Presence,
}

/// Whether a contract field serializes under its contract key, always.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Presence {
    /// Always, under the contract key.
    Always,
    /// Under the contract key, unless `skip_serializing_if` holds.
    Conditional,
    /// Never: serde skips it.
    Skipped,
    /// Named so in Rust, but serialized under another key.
    RenamedAway,
}

impl<'a> Input<'a> {
    /// The typed model; errors are recorded in `cx`. `None` where no stub could compile:
    /// for a union, or when serde's attributes are malformed (serde then derives nothing).
    pub fn from_syn(cx: &Ctxt, input: &'a DeriveInput) -> Option<Self> {
        if let syn::Data::Union(data) = &input.data {
            cx.error_at(
                data.union_token.span,
                "`ToolResult` cannot be derived for a union: serde cannot serialize one; use \
                 an enum",
            );
            return None;
        }
        let attrs = attr::parse(cx, &input.attrs);
        let serde_cx = serde_derive_internals::Ctxt::new();
        let private = Ident::new("__private", Span::call_site());
        let container = Container::from_ast(&serde_cx, input, Derive::Serialize, &private);
        // serde's own derive reports the same errors at the same spans (rustc shows each
        // once) and emits no `Serialize` impl, so there is nothing to stub.
        if let Err(error) = serde_cx.check() {
            cx.syn_error(error);
            return None;
        }
        let container = container?;
        let (shape, fields) = shape_and_fields(&container);
        let mut input = Input {
            ident: &input.ident,
            generics: &input.generics,
            title: title(input),
            shape,
            fields,
            summary: None,
            contract: Vec::new(),
            attrs,
        };
        input.contract = contract(&input);
        input.summary = input.attrs.summary.as_ref().map(|lit| {
            template::parse(cx, lit, |name| {
                input.top_level().iter().position(|f| f.name == name)
            })
        });
        Some(input)
    }

    /// The fields with keys of their own in `structuredContent`: those of a
    /// [`Shape::Named`] struct, none otherwise.
    pub fn top_level(&self) -> &[Field<'a>] {
        if self.shape == Shape::Named {
            &self.fields
        } else {
            &[]
        }
    }
}

fn shape_and_fields<'a>(container: &Container<'a>) -> (Shape, Vec<Field<'a>>) {
    let serialize = |fields: &[serde_derive_internals::ast::Field<'a>], variant_skip: bool| {
        fields
            .iter()
            .map(|field| Field::from_serde(field, variant_skip))
            .collect::<Vec<_>>()
    };
    match &container.data {
        Data::Enum(variants) => (
            Shape::Enum,
            variants
                .iter()
                .flat_map(|v| serialize(&v.fields, v.attrs.skip_serializing()))
                .collect(),
        ),
        Data::Struct(style, fields) => {
            let shape = match style {
                _ if container.attrs.type_into().is_some() => Shape::Into,
                Style::Struct if container.attrs.transparent() => Shape::Transparent,
                Style::Struct => Shape::Named,
                Style::Tuple | Style::Newtype => Shape::Tuple,
                Style::Unit => Shape::Unit,
            };
            (shape, serialize(fields, false))
        }
    }
}

impl<'a> Field<'a> {
    fn from_serde(field: &serde_derive_internals::ast::Field<'a>, variant_skip: bool) -> Self {
        let serde = &field.attrs;
        Field {
            name: match &field.member {
                Member::Named(ident) => ident.to_string().trim_start_matches("r#").to_owned(),
                Member::Unnamed(index) => index.index.to_string(),
            },
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
        }
    }
}

/// `#[schemars(with = "...")]` or `#[schemars(schema_with = "...")]`: schemars's own
/// attribute, which serde's parser does not read. Anything malformed is schemars's to
/// report.
fn schemars_with(attrs: &[Attribute]) -> bool {
    let mut found = false;
    for attr in attrs.iter().filter(|a| a.path().is_ident("schemars")) {
        let _ = attr.parse_nested_meta(|meta| {
            found |= meta.path.is_ident("with") || meta.path.is_ident("schema_with");
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

/// The field meant as each contract key: serialized as the key, else named so in Rust (in
/// snake_case or camelCase) but renamed or skipped away. Flattened fields have no key.
fn contract(input: &Input) -> Vec<ContractField> {
    let fields = input.top_level();
    ContractKey::ALL
        .into_iter()
        .filter_map(|key| {
            let candidates = || fields.iter().enumerate().filter(|(_, f)| !f.serde.flatten);
            let (index, field) = candidates()
                .find(|(_, f)| f.key == key.name())
                .or_else(|| {
                    candidates()
                        .find(|(_, f)| RenameRule::CamelCase.apply_to_field(&f.name) == key.name())
                })?;
            let presence = if field.serde.skip {
                Presence::Skipped
            } else if field.key != key.name() {
                Presence::RenamedAway
            } else if field.serde.skip_if {
                Presence::Conditional
            } else {
                Presence::Always
            };
            Some(ContractField {
                key,
                field: index,
                presence,
            })
        })
        .collect()
}

/// The first line of the doc comment, without a trailing period; else the type name in
/// words (`TicketSearch` → `Ticket search`).
fn title(input: &DeriveInput) -> String {
    for attr in &input.attrs {
        if let syn::Meta::NameValue(nv) = &attr.meta {
            if nv.path.is_ident("doc") {
                if let syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) = &nv.value
                {
                    let line = s.value().trim().trim_end_matches('.').to_owned();
                    if !line.is_empty() {
                        return line;
                    }
                }
            }
        }
    }
    let mut words = String::new();
    for (i, ch) in input.ident.to_string().chars().enumerate() {
        if ch.is_uppercase() && i > 0 {
            words.push(' ');
            words.extend(ch.to_lowercase());
        } else {
            words.push(ch);
        }
    }
    words
}
