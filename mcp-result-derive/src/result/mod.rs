//! `#[derive(ToolResult)]`: parse (`ast`, `attr`) → validate (`valid`) → expand (`expand`).

mod ast;
mod attr;
mod expand;
mod valid;

use proc_macro2::TokenStream;

pub fn derive(input: &syn::DeriveInput) -> TokenStream {
    match ast::Input::from_syn(input).and_then(|input| {
        let summary = valid::validate(&input)?;
        Ok(expand::expand(&input, &summary))
    }) {
        Ok(tokens) => tokens,
        Err(error) => crate::ctxt::with_stub(error, expand::stub(input)),
    }
}
