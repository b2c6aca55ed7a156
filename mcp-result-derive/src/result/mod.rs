//! `#[derive(ToolResult)]`: parse (`ast`, `attr`, `template`) → validate (`valid`) →
//! expand (`expand`).

mod ast;
mod attr;
mod expand;
mod template;
#[cfg(test)]
mod tests;
mod valid;

use proc_macro2::TokenStream;

pub fn derive(input: &syn::DeriveInput) -> TokenStream {
    crate::ctxt::derive(
        |cx| ast::Input::from_syn(cx, input),
        valid::validate,
        expand::expand,
        expand::stub,
    )
}
