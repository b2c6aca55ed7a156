//! `#[derive(Redact)]`: parse (`ast`) → validate (`valid`) → expand (`expand`). The
//! `#[secret]` rules (`valid::secrets`) and the generated `withholds_secrets` body
//! (`expand::withholds`, `expand::secret_bounds`) are the ones `#[derive(ToolResult)]` uses
//! for its own fields.

mod ast;
pub mod expand;
pub mod valid;

use proc_macro2::TokenStream;

use crate::ctxt::{self, Ctxt};

pub fn derive(input: &syn::DeriveInput) -> TokenStream {
    let cx = Ctxt::default();
    let Some(input) = ast::Input::from_syn(&cx, input) else {
        // A union, or malformed serde attributes: serde derives nothing either.
        return cx
            .check()
            .err()
            .map(|e| e.to_compile_error())
            .unwrap_or_default();
    };
    match cx.check().and_then(|()| valid::validate(&input)) {
        Ok(()) => expand::expand(&input),
        Err(error) => ctxt::with_stub(error, expand::stub(&input)),
    }
}
