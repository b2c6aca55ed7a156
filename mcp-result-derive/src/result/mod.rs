//! `#[derive(ToolResult)]`: parse (`ast`, `attr`) → validate (`valid`) → expand (`expand`).

mod ast;
mod attr;
mod contract;
mod expand;
mod valid;

use proc_macro2::TokenStream;

pub fn derive(input: &syn::DeriveInput) -> TokenStream {
    match ast::Input::from_syn(input).and_then(|input| {
        let summary = valid::validate(&input)?;
        let mut tokens = expand::expand(&input, &summary);
        tokens.extend(contract::expand(&input));
        Ok(tokens)
    }) {
        Ok(tokens) => tokens,
        Err(error) => crate::ctxt::with_stub(error, expand::stub(input)),
    }
}
