//! Code generation for `#[derive(Redact)]`, and the parts `#[derive(ToolResult)]` shares.
//! No error paths: `valid` ran first. Every path into the runtime crate goes through the
//! crate path (`::mcp_result` unless `#[mcp_result(crate = "...")]`).

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::ast::Input;
use crate::fields::Field;

pub fn expand(input: &Input) -> TokenStream {
    let krate = &input.krate;
    // Strict: every field's type says whether it withheld a secret, so a secret at any
    // depth below reaches the flag (a field type without `Redacts` is an error at it).
    let mut bounds = secret_bounds(krate, &input.fields);
    bounds.extend(redacts_bounds(krate, input.ident, &input.fields));
    redacts_impl(krate, input.ident, input.generics, &input.fields, bounds)
}

/// The strict `Redacts` impl of a type with `fields`, under `bounds` (beside the type's own
/// where clause): what `#[derive(Redact)]` emits, and `#[derive(ToolResult)]` for a result
/// nested in another.
pub fn redacts_impl(
    krate: &syn::Path,
    ident: &syn::Ident,
    generics: &syn::Generics,
    fields: &[Field],
    bounds: Vec<TokenStream>,
) -> TokenStream {
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let existing = where_clause.into_iter().flat_map(|w| w.predicates.iter());
    let body = withholds(krate, fields, true);
    quote! {
        #[automatically_derived]
        impl #impl_generics #krate::Redacts for #ident #ty_generics
        where
            #(#existing,)*
            #(#bounds,)*
        {
            fn withholds_secrets(&self) -> bool {
                #body
            }
        }
    }
}

/// What is emitted beside a compile error: the impl with no checks, so a result holding the
/// type adds no errors to the real one; beside it, the `#[secret]` field types are still
/// checked ([`secret_check`]).
pub fn stub(input: &Input) -> TokenStream {
    let krate = &input.krate;
    let ident = input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let secret_check = secret_check(krate, ident, input.generics, &input.fields);
    quote! {
        #secret_check
        #[automatically_derived]
        impl #impl_generics #krate::Redacts for #ident #ty_generics #where_clause {
            fn withholds_secrets(&self) -> bool {
                false
            }
        }
    }
}

/// Whether `ty` names the type `ident` (a recursive field: `Option<Box<Self>>`). Such a field
/// gets no `Redacts` bound (the bound would ask for the impl being defined, and the trait
/// solver overflows); the impl itself answers for it.
pub fn mentions(ty: &syn::Type, ident: &syn::Ident) -> bool {
    fn walk(tokens: TokenStream, ident: &syn::Ident) -> bool {
        tokens.into_iter().any(|tree| match tree {
            proc_macro2::TokenTree::Ident(found) => found == *ident || found == "Self",
            proc_macro2::TokenTree::Group(group) => walk(group.stream(), ident),
            _ => false,
        })
    }
    walk(quote::ToTokens::to_token_stream(ty), ident)
}

/// `field type: Redacts` for every field but recursive ones ([`mentions`]), spanned at the
/// type and worded by `Redacts`'s `on_unimplemented`: what a strict [`withholds`] needs.
pub fn redacts_bounds<'a: 'f, 'f>(
    krate: &syn::Path,
    ident: &syn::Ident,
    fields: impl IntoIterator<Item = &'f Field<'a>>,
) -> Vec<TokenStream> {
    fields
        .into_iter()
        .filter(|field| !mentions(field.ty, ident))
        .map(|field| {
            let ty = field.ty;
            let krate = crate::attr::respanned(krate, ty.span());
            quote_spanned!(ty.span()=> #ty: #krate::Redacts)
        })
        .collect()
}

/// Each `#[secret]` field's type must be `Secret<_>`: a where-clause predicate spanned at the
/// type, checked where the impl is defined (or, for a type generic in that field, where it
/// is used), worded by `SecretField`'s `on_unimplemented`.
pub fn secret_bounds<'a: 'f, 'f>(
    krate: &syn::Path,
    fields: impl IntoIterator<Item = &'f Field<'a>>,
) -> Vec<TokenStream> {
    fields
        .into_iter()
        .filter(|field| field.secret.is_some())
        .map(|field| {
            let ty = field.ty;
            let krate = crate::attr::respanned(krate, ty.span());
            quote_spanned!(ty.span()=> #ty: #krate::contract::SecretField)
        })
        .collect()
}

/// The `#[secret]` field types of `fields` ([`secret_bounds`]) checked on an empty inherent
/// impl: what a stub keeps, so an attribute error on a secret field (a missing
/// `#[serde(skip)]`) and its type (not `Secret<_>`) are reported in the same pass. Not on the
/// stub's trait impl, so a use of the type adds no error.
pub fn secret_check<'a: 'f, 'f>(
    krate: &syn::Path,
    ident: &syn::Ident,
    generics: &syn::Generics,
    fields: impl IntoIterator<Item = &'f Field<'a>>,
) -> TokenStream {
    let bounds = secret_bounds(krate, fields);
    if bounds.is_empty() {
        return TokenStream::new();
    }
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let existing = where_clause.into_iter().flat_map(|w| w.predicates.iter());
    quote! {
        #[automatically_derived]
        impl #impl_generics #ident #ty_generics
        where
            #(#existing,)*
            #(#bounds,)*
        {
        }
    }
}

/// The body of `withholds_secrets(&self) -> bool`, decided per value: `true` when the value
/// (for an enum: the variant it is) has a `#[secret]` field, else when any field withholds
/// through `Redacts`. Reached by autoref (a field type without an impl withholds nothing),
/// or, `strict`, through `Redacts` itself: then every field's type must implement it
/// ([`redacts_bounds`]).
pub fn withholds(krate: &syn::Path, fields: &[Field], strict: bool) -> TokenStream {
    let private = quote!(#krate::__private);
    let probed = std::cell::Cell::new(false);
    let probe = |value: TokenStream| {
        if strict {
            return quote!(#krate::Redacts::withholds_secrets(#value));
        }
        probed.set(true);
        quote!((&#private::RedactsProbe(#value)).withholds_secrets())
    };
    let any = |probes: Vec<TokenStream>| {
        if probes.is_empty() {
            quote!(false)
        } else {
            quote!(#(#probes)||*)
        }
    };
    let check = if fields.iter().all(|field| field.variant.is_none()) {
        if fields.iter().any(|field| field.secret.is_some()) {
            return quote!(true);
        }
        any(fields
            .iter()
            .map(|field| {
                let member = &field.member;
                probe(quote!(&self.#member))
            })
            .collect())
    } else {
        let arms = fields
            .chunk_by(|a, b| a.variant == b.variant)
            .map(|variant| {
                let ident = &variant[0].variant;
                if variant.iter().any(|field| field.secret.is_some()) {
                    return quote!(Self::#ident { .. } => true);
                }
                let members = variant.iter().map(|field| &field.member);
                let bindings: Vec<_> = (0..variant.len())
                    .map(|i| format_ident!("__field{}", i))
                    .collect();
                let check = any(bindings.iter().map(|b| probe(quote!(#b))).collect());
                quote!(Self::#ident { #(#members: #bindings,)* .. } => #check)
            });
        quote! {
            match self {
                #(#arms,)*
                #[allow(unreachable_patterns)]
                _ => false,
            }
        }
    };
    if !probed.get() {
        return check;
    }
    quote!({
        use #private::{ViaNoRedacts as _, ViaRedacts as _};
        #check
    })
}
