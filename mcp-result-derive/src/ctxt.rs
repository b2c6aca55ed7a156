use std::fmt::Display;

use proc_macro2::TokenStream;
use quote::ToTokens;

/// Collects every error of one macro invocation so they are reported together, each at
/// its own span (the serde_derive habit).
#[derive(Default)]
pub struct Ctxt {
    errors: Option<syn::Error>,
}

impl Ctxt {
    /// Records an error spanned on `tokens`.
    pub fn error_spanned_by<T: ToTokens, M: Display>(&mut self, tokens: T, message: M) {
        self.syn_error(syn::Error::new_spanned(tokens.into_token_stream(), message));
    }

    /// Records an error from syn.
    pub fn syn_error(&mut self, error: syn::Error) {
        match &mut self.errors {
            Some(errors) => errors.combine(error),
            None => self.errors = Some(error),
        }
    }

    /// The collected errors, if any.
    pub fn check(self) -> Result<(), syn::Error> {
        match self.errors {
            Some(errors) => Err(errors),
            None => Ok(()),
        }
    }
}

/// The compile errors of `error`, emitted beside `stub` so the user sees the real error,
/// not a cascade of "trait not implemented" errors (the thiserror `fallback` habit).
pub fn with_stub(error: syn::Error, stub: TokenStream) -> TokenStream {
    let errors = error.to_compile_error();
    quote::quote! { #errors #stub }
}
