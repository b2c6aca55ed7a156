//! Code generation for `#[derive(ToolResult)]`. No error paths: `valid` ran first.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::{
    ast::Input,
    attr::{Audience, Content},
    valid::{Part, Template},
};

pub fn expand(input: &Input, template: &Template) -> TokenStream {
    let ident = input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let summary = match template {
        Some(parts) => {
            let parts = parts.iter().map(|part| match part {
                Part::Text(text) => quote!(::mcp_result::SummaryPart::Text(#text)),
                Part::Field(key) => quote!(::mcp_result::SummaryPart::Field(#key)),
            });
            quote!(::mcp_result::Summary::Template(&[#(#parts),*]))
        }
        None => {
            let title = &input.title;
            quote!(::mcp_result::Summary::Generated { title: #title })
        }
    };
    let content = input.attrs.content.map(|content| {
        let variant = match content {
            Content::SummaryThenJson => quote!(SummaryThenJson),
            Content::JsonThenSummary => quote!(JsonThenSummary),
            Content::Summary => quote!(Summary),
            Content::Json => quote!(Json),
        };
        quote!(const CONTENT: ::mcp_result::ContentMode = ::mcp_result::ContentMode::#variant;)
    });
    let styles = [
        ("SUMMARY_STYLE", &input.attrs.summary_style, quote!(SUMMARY)),
        ("JSON_STYLE", &input.attrs.json_style, quote!(JSON)),
    ]
    .into_iter()
    .filter(|(_, style, _)| style.audience.is_some() || style.priority.is_some())
    .map(|(name, style, default)| {
        let name = syn::Ident::new(name, proc_macro2::Span::call_site());
        let audience = match style.audience {
            Some(Audience::User) => quote!(::mcp_result::Audience::USER),
            Some(Audience::Assistant) => quote!(::mcp_result::Audience::ASSISTANT),
            Some(Audience::Both) => quote!(::mcp_result::Audience::BOTH),
            None => quote!(::mcp_result::content::BlockStyle::#default.audience),
        };
        let priority = match style.priority {
            Some(priority) => quote!(#priority),
            None => quote!(::mcp_result::content::BlockStyle::#default.priority),
        };
        quote! {
            const #name: ::mcp_result::content::BlockStyle =
                ::mcp_result::content::BlockStyle { audience: #audience, priority: #priority };
        }
    });
    // Top-level fields that serialize may add content blocks (artifacts, media).
    let blocks = input
        .fields
        .iter()
        .filter(|f| f.serde.skip.is_none() && f.secret.is_none())
        .map(|f| {
            let ident = f.ident;
            quote!((&::mcp_result::__private::Collect(&self.#ident)).content_blocks(out);)
        });
    let spills = input
        .fields
        .iter()
        .filter(|f| f.serde.skip.is_none() && f.secret.is_none())
        .map(|f| {
            let ident = f.ident;
            quote!((&::mcp_result::__private::SpillField(&self.#ident)).spill(scope);)
        });
    let content_blocks = (!input.fields.is_empty()).then(|| {
        quote! {
            fn content_blocks(
                &self,
                out: &mut ::std::vec::Vec<::mcp_result::__private::rmcp::model::ContentBlock>,
            ) {
                #[allow(unused_imports)]
                use ::mcp_result::__private::{CollectBlocks as _, CollectNothing as _};
                #(#blocks)*
            }

            fn spill(&self, scope: &::mcp_result::store::SpillScope<'_>) {
                #[allow(unused_imports)]
                use ::mcp_result::__private::{SpillNothing as _, SpillPayloads as _};
                #(#spills)*
            }
        }
    });
    let secrets: Vec<_> = input
        .all_fields
        .iter()
        .filter(|f| f.secret.is_some())
        .collect();
    let redacts = (!secrets.is_empty()).then(|| {
        quote!(
            const REDACTS: bool = true;
        )
    });
    // Each `#[secret]` field's type must be `Secret<_>`: a where-clause predicate spanned at
    // the type, checked where the impl is defined (or, for a type generic in that field,
    // where it is used).
    let secret_bounds = secrets.iter().map(|field| {
        let ty = field.ty;
        quote_spanned!(ty.span()=> #ty: ::mcp_result::SecretField)
    });
    let existing = where_clause.into_iter().flat_map(|w| w.predicates.iter());
    let where_clause = quote!(where #(#existing,)* #(#secret_bounds,)*);
    quote! {
        #[automatically_derived]
        impl #impl_generics ::mcp_result::ToolResult for #ident #ty_generics #where_clause {
            const SUMMARY: ::mcp_result::Summary = #summary;
            #content
            #redacts
            #(#styles)*
            #content_blocks
        }
    }
}

/// What is emitted beside a compile error: the trait impls with no checks, so uses of the
/// type elsewhere (a tool returning it) add no "not implemented" errors to the real one.
pub fn stub(input: &syn::DeriveInput) -> TokenStream {
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let contract = [
        quote!(::mcp_result::contract::HasStatus),
        quote!(::mcp_result::contract::HasRetrySafe),
        quote!(::mcp_result::contract::HasAuditEventId),
        quote!(::mcp_result::contract::WriteCompanions),
    ];
    quote! {
        #[automatically_derived]
        impl #impl_generics ::mcp_result::ToolResult for #ident #ty_generics #where_clause {
            const SUMMARY: ::mcp_result::Summary =
                ::mcp_result::Summary::Generated { title: "" };
        }
        #(
            #[automatically_derived]
            impl #impl_generics #contract for #ident #ty_generics #where_clause {}
        )*
    }
}
