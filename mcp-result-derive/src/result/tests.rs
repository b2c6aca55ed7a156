//! The typed model reads serde's attributes as serde does (through
//! `serde_derive_internals`) and resolves the write-contract fields while parsing.

use syn::parse_quote;

use super::ast::{Input, Presence, Shape};
use crate::{ctxt::Ctxt, keys::ContractKey};

fn with_model(input: syn::DeriveInput, check: impl FnOnce(&Input)) {
    let cx = Ctxt::default();
    let model = Input::from_syn(&cx, &input).expect("not a union");
    if let Err(error) = cx.check() {
        panic!("unexpected error: {error}");
    }
    check(&model);
}

fn keys<'m>(model: &'m Input) -> Vec<&'m str> {
    model.fields.iter().map(|f| f.key.as_str()).collect()
}

#[test]
fn keys_follow_rename_all_and_rename() {
    with_model(
        parse_quote! {
            #[serde(rename_all(serialize = "camelCase", deserialize = "snake_case"))]
            struct Saved {
                note_id: String,
                #[serde(rename = "TYPE")]
                r#type: String,
                #[serde(rename(serialize = "out", deserialize = "in"))]
                value: u8,
            }
        },
        |model| {
            assert!(model.shape == Shape::Named);
            assert_eq!(keys(model), ["noteId", "TYPE", "out"]);
            assert_eq!(model.fields[1].name, "type");
        },
    );
}

#[test]
fn serialization_facts_are_serdes() {
    with_model(
        parse_quote! {
            struct Facts {
                #[serde(skip)]
                a: u8,
                #[serde(skip_serializing)]
                b: u8,
                #[serde(skip_deserializing)]
                c: u8,
                #[serde(skip_serializing_if = "Option::is_none")]
                d: Option<u8>,
                #[serde(flatten)]
                e: Inner,
                #[serde(with = "as_string")]
                f: u64,
                #[serde(serialize_with = "as_string")]
                #[schemars(with = "String")]
                g: u64,
            }
        },
        |model| {
            let skip: Vec<bool> = model.fields.iter().map(|f| f.serde.skip).collect();
            assert_eq!(skip, [true, true, false, false, false, false, false]);
            assert!(model.fields[3].serde.skip_if);
            assert!(model.fields[4].serde.flatten);
            let with = model.fields[5].serde.serialize_with.as_ref().expect("with");
            assert_eq!(quote::quote!(#with).to_string(), "as_string :: serialize");
            // schemars reads `#[serde(with = "T")]` as the type whose schema to use.
            assert!(model.fields[5].serde.schemars_with);
            assert!(model.fields[6].serde.schemars_with);
        },
    );
}

#[test]
fn shapes_are_serdes() {
    let shape = |input: syn::DeriveInput| {
        let mut shape = None;
        with_model(input, |model| shape = Some(model.shape));
        shape.expect("checked")
    };
    assert!(
        shape(parse_quote!(
            #[serde(transparent)]
            struct A {
                v: u8,
            }
        )) == Shape::Transparent
    );
    assert!(
        shape(parse_quote!(
            #[serde(into = "u8")]
            struct B {
                v: u8,
            }
        )) == Shape::Into
    );
    assert!(
        shape(parse_quote!(
            struct C(u8);
        )) == Shape::Tuple
    );
    assert!(
        shape(parse_quote!(
            struct D;
        )) == Shape::Unit
    );
    assert!(
        shape(parse_quote!(
            #[serde(tag = "kind")]
            enum E {
                X { v: u8 },
            }
        )) == Shape::Enum
    );
    assert!(
        shape(parse_quote!(
            #[serde(untagged)]
            enum F {
                X(u8),
            }
        )) == Shape::Enum
    );
}

#[test]
fn variant_fields_follow_the_variant() {
    with_model(
        parse_quote! {
            #[serde(tag = "t", content = "c", rename_all_fields = "camelCase")]
            enum Outcome {
                Done { note_id: String },
                #[serde(skip_serializing)]
                Hidden { token: String },
            }
        },
        |model| {
            assert_eq!(keys(model), ["noteId", "token"]);
            assert!(!model.fields[0].serde.skip);
            assert!(model.fields[1].serde.skip);
            assert!(model.top_level().is_empty());
            assert!(model.contract.is_empty());
        },
    );
}

#[test]
fn contract_fields_are_resolved_while_parsing() {
    with_model(
        parse_quote! {
            struct Written {
                status: Status,
                retry_safe: bool,
                #[serde(skip)]
                #[serde(rename = "auditEventId")]
                audit: AuditEventId,
                #[serde(rename = "externalId", skip_serializing_if = "Option::is_none")]
                external: Option<String>,
                #[serde(flatten)]
                redaction_applied: Extra,
            }
        },
        |model| {
            let resolved: Vec<(ContractKey, &str, Presence)> = model
                .contract
                .iter()
                .map(|c| (c.key, model.fields[c.field].name.as_str(), c.presence))
                .collect();
            assert!(
                resolved
                    == [
                        (ContractKey::Status, "status", Presence::Always),
                        (ContractKey::RetrySafe, "retry_safe", Presence::RenamedAway),
                        (ContractKey::AuditEventId, "audit", Presence::Skipped),
                        (ContractKey::ExternalId, "external", Presence::Conditional),
                    ]
            );
        },
    );
}

#[test]
fn serde_errors_are_reported() {
    let input: syn::DeriveInput = parse_quote! {
        #[serde(rename_all = "camel")]
        struct Bad { a: u8 }
    };
    let cx = Ctxt::default();
    let _ = Input::from_syn(&cx, &input);
    let error = cx.check().expect_err("an unknown rename rule");
    assert!(error.to_string().contains("unknown rename rule"), "{error}");
}
