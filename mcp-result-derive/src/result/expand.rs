//! Code generation for `#[derive(ToolResult)]`. No error paths: `valid` ran first. Every
//! path into the runtime crate goes through `input.attrs.krate` (`::mcp_result` unless
//! `#[mcp_result(crate = "...")]`).

use proc_macro2::TokenStream;
use quote::quote;

use super::{
    ast::{Input, Presence, Shape},
    attr::{Audience, Content},
    template::Part,
};
use crate::keys::ContractKey;

pub fn expand(input: &Input) -> TokenStream {
    let mut tokens = tool_result(input);
    if input.shape == Shape::Named {
        tokens.extend(contract(input));
    }
    tokens
}

fn tool_result(input: &Input) -> TokenStream {
    let krate = &input.attrs.krate;
    let ident = input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let summary = match &input.summary {
        Some(template) => {
            let parts = template.parts.iter().filter_map(|part| match part {
                Part::Text(text) => Some(quote!(#krate::SummaryPart::Text(#text))),
                Part::Field { field, .. } => {
                    let key = &input.fields[(*field)?].key;
                    Some(quote!(#krate::SummaryPart::Field(#key)))
                }
            });
            quote!(#krate::Summary::Template(&[#(#parts),*]))
        }
        None => {
            let title = &input.title;
            quote!(#krate::Summary::Generated { title: #title })
        }
    };
    // `text = "field"`: the field's serialized key.
    let text = input.attrs.text.as_ref().and_then(|text| {
        let name = text.value();
        let field = input.top_level().iter().find(|f| f.name == name)?;
        let key = &field.key;
        Some(quote!(const CONTENT: #krate::ContentMode = #krate::ContentMode::Text(#key);))
    });
    let content = input.attrs.content.map(|content| {
        let variant = match content {
            Content::SummaryThenJson => quote!(SummaryThenJson),
            Content::JsonThenSummary => quote!(JsonThenSummary),
            Content::Summary => quote!(Summary),
            Content::Json => quote!(Json),
        };
        quote!(const CONTENT: #krate::ContentMode = #krate::ContentMode::#variant;)
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
            Some(Audience::User) => quote!(#krate::Audience::USER),
            Some(Audience::Assistant) => quote!(#krate::Audience::ASSISTANT),
            Some(Audience::Both) => quote!(#krate::Audience::BOTH),
            None => quote!(#krate::content::BlockStyle::#default.audience),
        };
        let priority = match style.priority {
            Some(priority) => quote!(#priority),
            None => quote!(#krate::content::BlockStyle::#default.priority),
        };
        quote! {
            const #name: #krate::content::BlockStyle =
                #krate::content::BlockStyle { audience: #audience, priority: #priority };
        }
    });
    let redacts = input.fields.iter().any(|f| f.secret.is_some()).then(|| {
        quote!(
            const REDACTS: bool = true;
        )
    });
    // The keys whose bytes are meant as numbers: the server lets them through.
    let numbers: Vec<&str> = input
        .fields
        .iter()
        .filter(|f| f.bytes_as_numbers)
        .map(|f| f.key.as_str())
        .collect();
    let bytes_as_numbers = (!numbers.is_empty()).then(|| {
        quote!(
            const BYTES_AS_NUMBERS: &'static [&'static str] = &[#(#numbers),*];
        )
    });
    let secret_bounds = crate::redact::expand::secret_bounds(krate, &input.fields);
    // A result that declares `redactionApplied` with no `#[secret]` of its own answers it from
    // its fields alone: every field's type must say whether it withheld a secret.
    let strict = input.fields.iter().any(|f| f.key == "redactionApplied")
        && !input.fields.iter().any(|f| f.secret.is_some());
    let redacts_bounds = if strict {
        crate::redact::expand::redacts_bounds(krate, input.ident, &input.fields)
    } else {
        Vec::new()
    };
    let withholds = crate::redact::expand::withholds(krate, &input.fields, strict);
    let nested = nested_redacts(input);
    let existing = where_clause.into_iter().flat_map(|w| w.predicates.iter());
    let where_clause = quote!(where #(#existing,)* #(#secret_bounds,)* #(#redacts_bounds,)*);
    quote! {
        #nested

        #[automatically_derived]
        impl #impl_generics #krate::ToolResult for #ident #ty_generics #where_clause {
            const SUMMARY: #krate::Summary = #summary;
            #content
            #text
            #redacts
            #bytes_as_numbers
            #(#styles)*

            fn withholds_secrets(&self) -> bool {
                #withholds
            }
        }
    }
}

/// `Redacts` for the result type itself, so it can stand inside another result (a field, a
/// list element, a variant) and its secrets still reach the outer `redactionApplied`:
/// strict, every field's type must say whether it withheld one. The bounds are
/// higher-ranked (`for<'__c>`), so they are checked only where the type is nested, not on
/// every result.
fn nested_redacts(input: &Input) -> TokenStream {
    let krate = &input.attrs.krate;
    let bounds = input
        .fields
        .iter()
        .filter(|field| !crate::redact::expand::mentions(field.ty, input.ident))
        .map(|field| {
            let ty = field.ty;
            quote!(for<'__c> #ty: #krate::Redacts)
        })
        .collect();
    crate::redact::expand::redacts_impl(krate, input.ident, input.generics, &input.fields, bounds)
}

/// The write-contract impls (`HasStatus`, `HasRetrySafe`, `HasAuditEventId`,
/// `WriteCompanions`), with the bounds that make a wrong type, a skip or a rename a compile
/// error wherever a write tool returns the type. The bounds are higher-ranked (`for<'__c>`)
/// so they are checked where the trait is required, not on the impl itself: a read-only
/// tool may return any shape.
fn contract(input: &Input) -> TokenStream {
    let krate = &input.attrs.krate;
    let contract = quote!(#krate::contract);
    let markers = quote!(#krate::__private::markers);
    let ident = input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let existing: Vec<TokenStream> = where_clause
        .map(|w| w.predicates.iter().map(|p| quote!(#p)).collect())
        .unwrap_or_default();
    let impl_with = |trait_path: TokenStream, bounds: Vec<TokenStream>| {
        let predicates = existing.iter().chain(bounds.iter());
        quote! {
            #[automatically_derived]
            impl #impl_generics #trait_path for #ident #ty_generics where #(#predicates,)* {}
        }
    };
    let bounds = |field: &super::ast::ContractField| {
        let ty = input.fields[field.field].ty;
        let field_trait = match field.key {
            ContractKey::Status => quote!(#contract::StatusField),
            ContractKey::RetrySafe => quote!(#contract::RetrySafeField),
            ContractKey::AuditEventId => quote!(#contract::AuditEventIdField),
            ContractKey::ExternalId | ContractKey::ApprovalId => quote!(#contract::ExternalIdField),
            ContractKey::RequiresHumanReview | ContractKey::RedactionApplied => {
                quote!(#contract::FlagField)
            }
        };
        let typed = quote!(for<'__c> #ty: #field_trait);
        match field.presence {
            Presence::Skipped => {
                vec![quote!(for<'__c> #markers::SkippedBySerde: #markers::Serialized)]
            }
            Presence::RenamedAway => {
                vec![quote!(for<'__c> #markers::RenamedAway: #markers::ContractName)]
            }
            Presence::Conditional => vec![
                quote!(for<'__c> #markers::ConditionallySkipped: #markers::AlwaysSerialized),
                typed,
            ],
            Presence::Always => vec![typed],
        }
    };
    let mut out = TokenStream::new();
    let mut companion_bounds = Vec::new();
    for field in &input.contract {
        let has_trait = match field.key {
            ContractKey::Status => quote!(#contract::HasStatus),
            ContractKey::RetrySafe => quote!(#contract::HasRetrySafe),
            ContractKey::AuditEventId => quote!(#contract::HasAuditEventId),
            _ => {
                companion_bounds.extend(bounds(field));
                continue;
            }
        };
        out.extend(impl_with(has_trait, bounds(field)));
    }
    out.extend(impl_with(
        quote!(#contract::WriteCompanions),
        companion_bounds,
    ));
    // A required key the type does not serialize itself may come from a flattened field:
    // one source per flattened field, each requiring its type to provide the keys.
    // `#[mcp_tools]` infers the source, so exactly one must hold.
    for (key, has_trait) in [
        (ContractKey::Status, quote!(#contract::HasStatus)),
        (ContractKey::RetrySafe, quote!(#contract::HasRetrySafe)),
        (
            ContractKey::AuditEventId,
            quote!(#contract::HasAuditEventId),
        ),
    ] {
        if input.contract.iter().any(|field| field.key == key) {
            continue;
        }
        for (n, index) in input.flattened.iter().enumerate() {
            let ty = input.fields[*index].ty;
            let n = proc_macro2::Literal::usize_unsuffixed(n);
            out.extend(impl_with(
                quote!(#has_trait<#contract::via::Flattened<#n>>),
                vec![quote!(for<'__c> #ty: #contract::ProvidesContractKeys)],
            ));
        }
    }
    out
}

/// What is emitted beside a compile error: the trait impls with no checks, so uses of the
/// type elsewhere (a tool returning it) add no "not implemented" errors to the real one.
pub fn stub(input: &Input) -> TokenStream {
    let krate = &input.attrs.krate;
    let ident = input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    // The one check kept: a `#[secret]` field's type, so an attribute error on the field
    // (a missing `#[serde(skip)]`) and its type (not `Secret<_>`) show in the same pass.
    // Not for a write-contract field, whose fix is to drop `#[secret]`.
    let secrets = input
        .fields
        .iter()
        .enumerate()
        .filter(|(index, _)| !input.contract.iter().any(|c| c.field == *index))
        .map(|(_, field)| field);
    let secret_check = crate::redact::expand::secret_check(krate, ident, input.generics, secrets);
    let contract = [
        quote!(#krate::contract::HasStatus),
        quote!(#krate::contract::HasRetrySafe),
        quote!(#krate::contract::HasAuditEventId),
        quote!(#krate::contract::WriteCompanions),
    ];
    quote! {
        #secret_check
        #[automatically_derived]
        impl #impl_generics #krate::ToolResult for #ident #ty_generics #where_clause {
            const SUMMARY: #krate::Summary = #krate::Summary::Generated { title: "" };
        }
        #[automatically_derived]
        impl #impl_generics #krate::Redacts for #ident #ty_generics #where_clause {
            fn withholds_secrets(&self) -> bool {
                false
            }
        }
        #(
            #[automatically_derived]
            impl #impl_generics #contract for #ident #ty_generics #where_clause {}
        )*
    }
}
