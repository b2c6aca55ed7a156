//! The typed view of a `#[derive(ToolResult)]` input, with every fact the derive needs
//! resolved: serde's attributes read by serde's own parser (`serde_derive_internals`, as
//! schemars_derive does), so a key, a skip or a flatten means exactly what serde means;
//! the write-contract fields; the summary template's placeholders.

use serde_derive_internals::{
    ast::{Container, Data, Style},
    attr::RenameRule,
};
use syn::{DeriveInput, Generics, Ident};

use super::{
    attr::{self, ResultAttrs},
    template::{self, Template},
};
use crate::{
    ctxt::Ctxt,
    fields::{self, Field},
    keys::ContractKey,
};

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
    /// The `#[serde(flatten)]` fields that serialize ([`Shape::Named`] only), as indices
    /// into [`Input::fields`] in declaration order: their keys are merged into the result,
    /// so one of them may provide the write contract (`WriteReceipt`).
    pub flattened: Vec<usize>,
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
        let attrs = attr::parse(cx, &input.attrs);
        let container = fields::serde_container(cx, input, "ToolResult")?;
        let (shape, fields) = shape_and_fields(cx, &container);
        let mut input = Input {
            ident: &input.ident,
            generics: &input.generics,
            title: title(input),
            shape,
            fields,
            summary: None,
            contract: Vec::new(),
            flattened: Vec::new(),
            attrs,
        };
        input.contract = contract(&input);
        input.flattened = input
            .top_level()
            .iter()
            .enumerate()
            .filter(|(_, f)| f.serde.flatten && !f.serde.skip)
            .map(|(index, _)| index)
            .collect();
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

fn shape_and_fields<'a>(cx: &Ctxt, container: &Container<'a>) -> (Shape, Vec<Field<'a>>) {
    let shape = match &container.data {
        Data::Enum(_) => Shape::Enum,
        _ if container.attrs.type_into().is_some() => Shape::Into,
        Data::Struct(Style::Struct, _) if container.attrs.transparent() => Shape::Transparent,
        Data::Struct(Style::Struct, _) => Shape::Named,
        Data::Struct(Style::Tuple | Style::Newtype, _) => Shape::Tuple,
        Data::Struct(Style::Unit, _) => Shape::Unit,
    };
    (shape, fields::all(cx, container))
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
