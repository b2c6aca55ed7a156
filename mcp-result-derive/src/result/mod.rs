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
        if input.shape == ast::Shape::Named {
            tokens.extend(contract::expand(&input));
        }
        Ok(tokens)
    }) {
        Ok(tokens) => tokens,
        // A union can implement none of the traits, so a stub would only add errors.
        Err(error) if matches!(input.data, syn::Data::Union(_)) => error.to_compile_error(),
        Err(error) => crate::ctxt::with_stub(error, expand::stub(input)),
    }
}
