//! `#[derive(Redact)]`: parse (`ast`) → validate (`valid`) → expand (`expand`). The
//! `#[secret]` rules (`valid::secrets`) and the generated `withholds_secrets` body
//! (`expand::withholds`, `expand::secret_bounds`) are the ones `#[derive(ToolResult)]` uses
//! for its own fields.

mod ast;
pub mod expand;
pub mod valid;

use proc_macro2::TokenStream;

pub fn derive(input: &syn::DeriveInput) -> TokenStream {
    crate::ctxt::derive(
        |cx| ast::Input::from_syn(cx, input),
        valid::validate,
        expand::expand,
        expand::stub,
    )
}
