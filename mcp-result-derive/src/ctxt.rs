use std::{cell::RefCell, fmt::Display};

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;

/// Collects every error of one macro invocation so they are reported together, each at
/// its own span (the serde_derive habit). Shared by reference: the attribute toolkit's
/// [`Attr`](crate::attr::Attr)s each hold one.
#[derive(Default)]
pub struct Ctxt {
    errors: RefCell<Vec<syn::Error>>,
}

impl Ctxt {
    /// Records an error spanned on `tokens`.
    pub fn error_spanned_by<T: ToTokens, M: Display>(&self, tokens: T, message: M) {
        self.syn_error(syn::Error::new_spanned(tokens.into_token_stream(), message));
    }

    /// Records an error at `span`.
    pub fn error_at<M: Display>(&self, span: Span, message: M) {
        self.syn_error(syn::Error::new(span, message));
    }

    /// Records an error from syn.
    pub fn syn_error(&self, error: syn::Error) {
        self.errors.borrow_mut().push(error);
    }

    /// The collected errors, if any, as one error.
    pub fn check(self) -> syn::Result<()> {
        let mut errors = self.errors.into_inner().into_iter();
        let Some(mut combined) = errors.next() else {
            return Ok(());
        };
        for error in errors {
            combined.combine(error);
        }
        Err(combined)
    }
}

/// The compile errors of `error`, emitted beside `stub` so the user sees the real error,
/// not a cascade of "trait not implemented" errors (the thiserror `fallback` habit).
pub fn with_stub(error: syn::Error, stub: TokenStream) -> TokenStream {
    let errors = error.to_compile_error();
    quote::quote! { #errors #stub }
}
