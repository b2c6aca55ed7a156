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

/// The pipeline of a derive: `parse` into the typed model (errors collected in the
/// [`Ctxt`]), `validate`, then `expand`. An error goes out beside the model's `stub` (no
/// cascade); without a model at all (a union, malformed serde attributes: serde derives
/// nothing, so a stub would only add errors), the errors go out alone.
pub fn derive<I>(
    parse: impl FnOnce(&Ctxt) -> Option<I>,
    validate: impl FnOnce(&I) -> syn::Result<()>,
    expand: impl FnOnce(&I) -> TokenStream,
    stub: impl FnOnce(&I) -> TokenStream,
) -> TokenStream {
    let cx = Ctxt::default();
    let Some(input) = parse(&cx) else {
        return cx
            .check()
            .err()
            .map(|e| e.to_compile_error())
            .unwrap_or_default();
    };
    match cx.check().and_then(|()| validate(&input)) {
        Ok(()) => expand(&input),
        Err(error) => with_stub(error, stub(&input)),
    }
}
