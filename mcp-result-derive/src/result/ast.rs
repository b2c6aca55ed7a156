//! The typed view of a `#[derive(ToolResult)]` input.

use proc_macro2::Span;
use syn::{Attribute, Data, DeriveInput, Fields, Generics, Ident, Type};

use super::attr::{self, ResultAttrs};
use crate::{
    ctxt::Ctxt,
    serde_attr::{self, SerdeContainer, SerdeField},
};

pub struct Input<'a> {
    pub ident: &'a Ident,
    pub generics: &'a Generics,
    pub attrs: ResultAttrs,
    pub serde: SerdeContainer,
    /// The generated summary's title: the doc comment's first line, or the name in words.
    pub title: String,
    pub fields: Vec<Field<'a>>,
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

impl<'a> Input<'a> {
    pub fn from_syn(input: &'a DeriveInput) -> syn::Result<Self> {
        let mut cx = Ctxt::default();
        let named = match &input.data {
            Data::Struct(data) => match &data.fields {
                Fields::Named(fields) => Some(fields),
                Fields::Unnamed(_) | Fields::Unit => None,
            },
            Data::Enum(_) | Data::Union(_) => None,
        };
        let Some(named) = named else {
            return Err(syn::Error::new(
                shape_span(input),
                "`ToolResult` can be derived only for a struct with named fields, because \
                 `structuredContent` must be a JSON object; wrap the value in one, e.g. \
                 `struct Output { items: Vec<Item> }`",
            ));
        };
        let attrs = attr::parse(&mut cx, &input.attrs);
        let container = serde_attr::container(&input.attrs);
        let fields = named
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
                    secret: field.attrs.iter().find(|a| a.path().is_ident("secret")),
                }
            })
            .collect();
        cx.check()?;
        Ok(Input {
            ident: &input.ident,
            generics: &input.generics,
            attrs,
            title: title(input),
            serde: container,
            fields,
        })
    }

    /// The field named `name` (its Rust name).
    pub fn field(&self, name: &str) -> Option<&Field<'a>> {
        self.fields.iter().find(|f| f.ident == name)
    }
}

fn shape_span(input: &DeriveInput) -> Span {
    match &input.data {
        Data::Struct(data) => data.struct_token.span,
        Data::Enum(data) => data.enum_token.span,
        Data::Union(data) => data.union_token.span,
    }
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
