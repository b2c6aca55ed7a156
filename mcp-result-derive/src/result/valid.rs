//! Cross-field rules of `#[derive(ToolResult)]`. Every violation is collected and reported
//! at the span the user must change.

use super::{
    ast::{Input, Shape},
    template::Template,
};
use crate::ctxt::Ctxt;

pub fn validate(input: &Input) -> syn::Result<()> {
    let cx = Ctxt::default();
    for field in &input.fields {
        if let (Some(path), false) = (&field.serde.serialize_with, field.serde.schemars_with) {
            cx.error_spanned_by(
                path,
                format!(
                    "field `{}` has a custom serializer, which the generated `outputSchema` \
                     cannot see, so the schema would describe `{}` instead of what is written; \
                     add `#[schemars(with = \"T\")]` naming a type whose schema matches the \
                     serializer's output (or `#[schemars(schema_with = \"path\")]`)",
                    field.name,
                    quote::ToTokens::to_token_stream(field.ty)
                ),
            );
        }
    }
    crate::redact::valid::secrets(&cx, &input.fields);
    crate::shapes::check(&cx, &input.fields);
    for contract in &input.contract {
        let field = &input.fields[contract.field];
        if let Some(secret) = field.secret {
            cx.error_spanned_by(
                secret,
                format!(
                    "`{}` is the write-contract field `{}`, which every client sees; it cannot \
                     be `#[secret]`: remove `#[secret]`, or rename the field",
                    field.name,
                    contract.key.name()
                ),
            );
        }
    }
    if let Some(template) = &input.summary {
        placeholders(&cx, input, template);
    }
    cx.check()
}

/// Each placeholder of the summary template names a top-level field that serializes under
/// a key of its own and is no secret.
fn placeholders(cx: &Ctxt, input: &Input, template: &Template) {
    let lit = &template.lit;
    if input.shape != Shape::Named && template.placeholders().next().is_some() {
        cx.error_spanned_by(
            lit,
            format!(
                "summary placeholders name fields, and `{}` is {} whose fields have no keys of \
                 their own in `structuredContent`; use literal text only, or leave out \
                 `summary` for the generated one",
                input.ident,
                input.shape.describe()
            ),
        );
        return;
    }
    for (name, field) in template.placeholders() {
        let Some(field) = field.map(|index| &input.fields[index]) else {
            let known: Vec<&str> = input
                .top_level()
                .iter()
                .filter(|f| f.secret.is_none())
                .map(|f| f.name.as_str())
                .collect();
            cx.error_spanned_by(
                lit,
                format!(
                    "unknown field `{name}` in summary template: `{}` has the fields {}",
                    input.ident,
                    if known.is_empty() {
                        "(none)".to_owned()
                    } else {
                        known.join(", ")
                    }
                ),
            );
            continue;
        };
        if field.secret.is_some() {
            cx.error_spanned_by(
                lit,
                format!(
                    "summary template names `#[secret]` field `{name}`: a secret never reaches \
                     the model; remove `{{{name}}}` from the template"
                ),
            );
        } else if field.serde.skip {
            cx.error_spanned_by(
                lit,
                format!(
                    "summary template names `{name}`, which serde never serializes \
                     (`#[serde(skip)]`); the summary is rendered from `structuredContent`, so \
                     name a serialized field"
                ),
            );
        } else if field.serde.flatten {
            cx.error_spanned_by(
                lit,
                format!(
                    "summary template names `{name}`, a `#[serde(flatten)]` field with no key \
                     of its own; name a top-level field instead"
                ),
            );
        }
    }
}
