//! The subset of serde's attributes that decides a field's serialized key and whether it
//! is serialized. Everything else serde accepts is skipped over untouched: serde itself
//! reports malformed serde attributes, so this parser never adds a second error.

use syn::{meta::ParseNestedMeta, Attribute, LitStr, Token};

use crate::case::RenameRule;

/// Container-level serde facts.
#[derive(Default)]
pub struct SerdeContainer {
    /// `rename_all` or `rename_all(serialize = "...")`.
    pub rename_all: Option<RenameRule>,
    /// `#[serde(transparent)]`: the struct serializes as its one field.
    pub transparent: Option<proc_macro2::Span>,
}

/// Field-level serde facts.
#[derive(Default)]
pub struct SerdeField {
    /// `rename = "..."` or `rename(serialize = "...")`.
    pub rename: Option<LitStr>,
    /// `skip` or `skip_serializing`: the field is never serialized (the attribute's path).
    pub skip: Option<syn::Path>,
    /// `skip_serializing_if = "..."`: the field may be absent.
    pub skip_if: Option<syn::Path>,
    /// `flatten`: the field's own keys are merged into the parent object.
    pub flatten: Option<syn::Path>,
    /// `serialize_with = "..."`: a custom serializer the schema cannot see.
    pub serialize_with: Option<syn::Path>,
    /// `#[schemars(with = "...")]` or `#[schemars(schema_with = "...")]`: the schema of what
    /// a custom serializer writes.
    pub schemars_with: bool,
}

fn serde_attrs(attrs: &[Attribute]) -> impl Iterator<Item = &Attribute> {
    attrs.iter().filter(|attr| attr.path().is_ident("serde"))
}

/// Skips the value of a key this parser does not model: `= expr` or `(...)`.
fn skip_value(meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        meta.value()?.parse::<syn::Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|inner| skip_value(&inner))?;
    }
    Ok(())
}

/// `= "name"` or `(serialize = "name", deserialize = "...")`: the serialize-side name.
fn serialize_name(meta: &ParseNestedMeta) -> syn::Result<Option<LitStr>> {
    if meta.input.peek(Token![=]) {
        return Ok(Some(meta.value()?.parse()?));
    }
    let mut name = None;
    meta.parse_nested_meta(|inner| {
        if inner.path.is_ident("serialize") {
            name = Some(inner.value()?.parse()?);
            Ok(())
        } else {
            skip_value(&inner)
        }
    })?;
    Ok(name)
}

pub fn container(attrs: &[Attribute]) -> SerdeContainer {
    let mut out = SerdeContainer::default();
    for attr in serde_attrs(attrs) {
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename_all") {
                if let Some(name) = serialize_name(&meta)? {
                    out.rename_all = RenameRule::from_str(&name.value());
                }
            } else if meta.path.is_ident("transparent") {
                out.transparent = Some(syn::spanned::Spanned::span(&meta.path));
            } else {
                skip_value(&meta)?;
            }
            Ok(())
        });
    }
    out
}

pub fn field(attrs: &[Attribute]) -> SerdeField {
    let mut out = SerdeField::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("schemars")) {
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("with") || meta.path.is_ident("schema_with") {
                out.schemars_with = true;
            }
            skip_value(&meta)
        });
    }
    for attr in serde_attrs(attrs) {
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename") {
                out.rename = serialize_name(&meta)?;
            } else if meta.path.is_ident("skip") || meta.path.is_ident("skip_serializing") {
                out.skip = Some(meta.path.clone());
            } else if meta.path.is_ident("skip_serializing_if") {
                out.skip_if = Some(meta.path.clone());
                skip_value(&meta)?;
            } else if meta.path.is_ident("flatten") {
                out.flatten = Some(meta.path.clone());
            } else if meta.path.is_ident("serialize_with") {
                out.serialize_with = Some(meta.path.clone());
                skip_value(&meta)?;
            } else {
                skip_value(&meta)?;
            }
            Ok(())
        });
    }
    out
}
