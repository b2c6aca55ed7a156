//! The typed view of a `#[derive(Redact)]` input: its fields as serde serializes them
//! (`crate::fields`) and the crate path (`#[mcp_result(crate = "...")]`).

use syn::{DeriveInput, Generics, Ident};

use crate::{
    attr::{self, Attr, CRATE},
    ctxt::Ctxt,
    fields::{self, Field},
};

pub struct Input<'a> {
    pub ident: &'a Ident,
    pub generics: &'a Generics,
    /// `#[mcp_result(crate = "...")]`, else `::mcp_result`.
    pub krate: syn::Path,
    /// Every field of the struct, or of every variant of the enum, in order.
    pub fields: Vec<Field<'a>>,
}

impl<'a> Input<'a> {
    /// The typed model; errors are recorded in `cx`. `None` for a union, or when serde's
    /// attributes are malformed.
    pub fn from_syn(cx: &Ctxt, input: &'a DeriveInput) -> Option<Self> {
        let mut krate = Attr::none(cx, CRATE);
        for attribute in &input.attrs {
            attr::mcp_result_attr(cx, attribute, &mut krate);
        }
        let container = fields::serde_container(cx, input, "Redact")?;
        Some(Input {
            ident: &input.ident,
            generics: &input.generics,
            krate: krate.get().unwrap_or_else(attr::default_crate),
            fields: fields::all(cx, &container),
        })
    }
}
