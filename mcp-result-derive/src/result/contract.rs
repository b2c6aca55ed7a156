//! The write-contract impls (`HasStatus`, `HasRetrySafe`, `HasAuditEventId`,
//! `WriteCompanions`): which fields serialize under the contract names, with the bounds that
//! make a wrong type, a skip or a rename a compile error wherever a write tool returns the
//! type. The bounds are higher-ranked (`for<'__c>`) so they are checked where the trait is
//! required, not on the impl itself: a read-only tool may return any shape.

use proc_macro2::TokenStream;
use quote::quote;

use super::ast::{Field, Input};
use crate::case::RenameRule;

/// A contract key, the trait that says a type has it, and the trait its type must meet.
struct Key {
    key: &'static str,
    field_trait: TokenStream,
}

fn required() -> [(Key, TokenStream); 3] {
    [
        (
            Key {
                key: "status",
                field_trait: quote!(::mcp_result::contract::StatusField),
            },
            quote!(::mcp_result::contract::HasStatus),
        ),
        (
            Key {
                key: "retrySafe",
                field_trait: quote!(::mcp_result::contract::RetrySafeField),
            },
            quote!(::mcp_result::contract::HasRetrySafe),
        ),
        (
            Key {
                key: "auditEventId",
                field_trait: quote!(::mcp_result::contract::AuditEventIdField),
            },
            quote!(::mcp_result::contract::HasAuditEventId),
        ),
    ]
}

fn companions() -> [Key; 3] {
    [
        Key {
            key: "externalId",
            field_trait: quote!(::mcp_result::contract::ExternalIdField),
        },
        Key {
            key: "requiresHumanReview",
            field_trait: quote!(::mcp_result::contract::FlagField),
        },
        Key {
            key: "redactionApplied",
            field_trait: quote!(::mcp_result::contract::FlagField),
        },
    ]
}

/// The contract key names, for the derive's own checks.
pub const KEYS: [&str; 6] = [
    "status",
    "retrySafe",
    "auditEventId",
    "externalId",
    "requiresHumanReview",
    "redactionApplied",
];

/// The field meant as contract field `key`: serialized as `key`, or named so in Rust
/// (in snake_case or camelCase) but renamed or skipped away.
pub fn field_for<'i, 'a>(input: &'i Input<'a>, key: &str) -> Option<&'i Field<'a>> {
    input
        .fields
        .iter()
        .find(|f| f.key == key && f.serde.flatten.is_none())
        .or_else(|| {
            input.fields.iter().find(|f| {
                let rust = f.ident.to_string();
                RenameRule::Camel.apply_to_field(&rust) == key && f.serde.flatten.is_none()
            })
        })
}

/// The bounds that hold exactly when `field` serializes as contract field `key`.
fn bounds(field: &Field, key: &Key) -> Vec<TokenStream> {
    let markers = quote!(::mcp_result::__private::markers);
    let mut bounds = Vec::new();
    if field.serde.skip.is_some() {
        bounds.push(quote!(for<'__c> #markers::SkippedBySerde: #markers::Serialized));
        return bounds;
    }
    if field.key != key.key {
        bounds.push(quote!(for<'__c> #markers::RenamedAway: #markers::ContractName));
        return bounds;
    }
    if field.serde.skip_if.is_some() {
        bounds.push(quote!(for<'__c> #markers::ConditionallySkipped: #markers::AlwaysSerialized));
    }
    let ty = field.ty;
    let field_trait = &key.field_trait;
    bounds.push(quote!(for<'__c> #ty: #field_trait));
    bounds
}

pub fn expand(input: &Input) -> TokenStream {
    let ident = input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let existing: Vec<TokenStream> = where_clause
        .map(|w| w.predicates.iter().map(|p| quote!(#p)).collect())
        .unwrap_or_default();
    let impl_with = |trait_path: &TokenStream, bounds: Vec<TokenStream>| {
        let predicates = existing.iter().chain(bounds.iter());
        quote! {
            #[automatically_derived]
            impl #impl_generics #trait_path for #ident #ty_generics where #(#predicates,)* {}
        }
    };
    let mut out = TokenStream::new();
    for (key, has_trait) in required() {
        if let Some(field) = field_for(input, key.key) {
            out.extend(impl_with(&has_trait, bounds(field, &key)));
        }
    }
    let companion_bounds = companions()
        .iter()
        .filter_map(|key| field_for(input, key.key).map(|field| bounds(field, key)))
        .flatten()
        .collect();
    out.extend(impl_with(
        &quote!(::mcp_result::contract::WriteCompanions),
        companion_bounds,
    ));
    out
}
