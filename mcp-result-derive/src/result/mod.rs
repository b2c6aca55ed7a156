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

use crate::ctxt::{self, Ctxt};

pub fn derive(input: &syn::DeriveInput) -> TokenStream {
    let cx = Ctxt::default();
    let Some(input) = ast::Input::from_syn(&cx, input) else {
        // A union, or malformed serde attributes: no `Serialize` impl, so a stub would
        // only add errors.
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
