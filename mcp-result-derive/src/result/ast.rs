//! The typed view of a `#[derive(ToolResult)]` input.

use syn::{Attribute, Data, DeriveInput, Fields, Generics, Ident, Type};

use super::attr::{self, ResultAttrs};
use crate::{
    ctxt::Ctxt,
    serde_attr::{self, SerdeField},
};

pub struct Input<'a> {
    pub ident: &'a Ident,
    pub generics: &'a Generics,
    pub attrs: ResultAttrs,
    /// The generated summary's title: the doc comment's first line, or the name in words.
    pub title: String,
    pub shape: Shape,
    /// The top-level named fields, for a [`Shape::Named`] struct (empty otherwise).
    pub fields: Vec<Field<'a>>,
    /// Every field of every variant, for the rules that hold in any position.
    pub all_fields: Vec<AnyField<'a>>,
}

/// What the derive input is, as serde serializes it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A struct with named fields: a JSON object whose keys the derive knows.
    Named,
    /// `#[serde(transparent)]`: serializes as its one field.
    Transparent,
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
            Shape::Tuple => "a tuple struct",
            Shape::Unit => "a unit struct",
            Shape::Enum => "an enum",
        }
    }
}

pub struct Field<'a> {
    pub ident: &'a Ident,
    pub ty: &'a Type,
    /// The key serde writes for this field (after `rename` / `rename_all`).
    pub key: String,
    pub serde: SerdeField,
    /// `#[secret]`, if present.
    pub secret: Option<&'a Attribute>,
}

/// A field anywhere in the input (a struct field or an enum variant's field).
pub struct AnyField<'a> {
    pub name: String,
    pub ty: &'a Type,
    pub serde: SerdeField,
    pub secret: Option<&'a Attribute>,
}

impl<'a> Input<'a> {
    pub fn from_syn(input: &'a DeriveInput) -> syn::Result<Self> {
        let mut cx = Ctxt::default();
        let attrs = attr::parse(&mut cx, &input.attrs);
        let container = serde_attr::container(&input.attrs);
        let (shape, named) = match &input.data {
            Data::Struct(data) => match &data.fields {
                Fields::Named(fields) if container.transparent.is_some() => {
                    (Shape::Transparent, Some(fields))
                }
                Fields::Named(fields) => (Shape::Named, Some(fields)),
                Fields::Unnamed(_) => (Shape::Tuple, None),
                Fields::Unit => (Shape::Unit, None),
            },
            Data::Enum(_) => (Shape::Enum, None),
            Data::Union(data) => {
                return Err(syn::Error::new(
                    data.union_token.span,
                    "`ToolResult` cannot be derived for a union: serde cannot serialize one; \
                     use an enum",
                ))
            }
        };
        let fields = match (shape, named) {
            (Shape::Named, Some(named)) => named
                .named
                .iter()
                .map(|field| {
                    let ident = field.ident.as_ref().expect("named field");
                    let serde = serde_attr::field(&field.attrs);
                    let name = ident.to_string();
                    let name = name.strip_prefix("r#").unwrap_or(&name);
                    let key = match (&serde.rename, container.rename_all) {
                        (Some(rename), _) => rename.value(),
                        (None, Some(rule)) => rule.apply_to_field(name),
                        (None, None) => name.to_owned(),
                    };
                    Field {
                        ident,
                        ty: &field.ty,
                        key,
                        serde,
                        secret: secret_attr(&field.attrs),
                    }
                })
                .collect(),
            _ => Vec::new(),
        };
        let syn_fields: Vec<&syn::Field> = match &input.data {
            Data::Struct(data) => data.fields.iter().collect(),
            Data::Enum(data) => data.variants.iter().flat_map(|v| v.fields.iter()).collect(),
            Data::Union(_) => Vec::new(),
        };
        let all_fields = syn_fields
            .into_iter()
            .enumerate()
            .map(|(i, field)| AnyField {
                name: field
                    .ident
                    .as_ref()
                    .map_or_else(|| i.to_string(), ToString::to_string),
                ty: &field.ty,
                serde: serde_attr::field(&field.attrs),
                secret: secret_attr(&field.attrs),
            })
            .collect();
        cx.check()?;
        Ok(Input {
            ident: &input.ident,
            generics: &input.generics,
            attrs,
            title: title(input),
            shape,
            fields,
            all_fields,
        })
    }

    /// The field named `name` (its Rust name).
    pub fn field(&self, name: &str) -> Option<&Field<'a>> {
        self.fields.iter().find(|f| f.ident == name)
    }
}

fn secret_attr(attrs: &[Attribute]) -> Option<&Attribute> {
    attrs.iter().find(|a| a.path().is_ident("secret"))
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
