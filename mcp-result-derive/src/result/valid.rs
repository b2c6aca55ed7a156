//! Cross-field rules of `#[derive(ToolResult)]`. Every violation is collected and reported
//! at the span the user must change.

use syn::LitStr;

use super::ast::Input;
use crate::ctxt::Ctxt;

/// A resolved summary template part.
pub enum Part {
    Text(String),
    /// The serialized key of the field a placeholder names.
    Field(String),
}

/// The resolved summary template (`None`: use the generated summary).
pub type Template = Option<Vec<Part>>;

pub fn validate(input: &Input) -> syn::Result<Template> {
    let mut cx = Ctxt::default();
    for field in &input.all_fields {
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
    for field in &input.all_fields {
        let Some(secret) = field.secret else { continue };
        if !matches!(secret.meta, syn::Meta::Path(_)) {
            cx.error_spanned_by(secret, "`#[secret]` takes no arguments");
        }
        if field.serde.flatten.is_some() {
            cx.error_spanned_by(
                secret,
                format!(
                    "`{}` is `#[serde(flatten)]` and `#[secret]`: a flattened field serializes \
                     its contents; mark the secret fields inside it instead",
                    field.name
                ),
            );
        } else if field.serde.skip.is_none() {
            cx.error_spanned_by(
                secret,
                format!(
                    "`#[secret]` field `{}` would be serialized into `structuredContent`: add \
                     `#[serde(skip_serializing)]` (or `#[serde(skip)]`) so no client ever sees \
                     it{}",
                    field.name,
                    if field.serde.skip_if.is_some() {
                        "; `skip_serializing_if` still serializes it when the condition is false"
                    } else {
                        ""
                    }
                ),
            );
        }
    }
    for key in super::contract::KEYS {
        if let Some(field) = super::contract::field_for(input, key) {
            if let Some(secret) = field.secret {
                cx.error_spanned_by(
                    secret,
                    format!(
                        "`{}` is the write-contract field `{key}`, which every client sees; it \
                         cannot be `#[secret]`: remove `#[secret]`, or rename the field",
                        field.ident
                    ),
                );
            }
        }
    }
    let template = input
        .attrs
        .summary
        .as_ref()
        .map(|lit| template(&mut cx, input, lit));
    cx.check()?;
    Ok(template)
}

/// Parses `"Found {total} findings"`: `{field}` names a field, `{{` and `}}` are literal
/// braces.
fn template(cx: &mut Ctxt, input: &Input, lit: &LitStr) -> Vec<Part> {
    if input.shape != super::ast::Shape::Named && lit.value().replace("{{", "").contains('{') {
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
        return Vec::new();
    }
    let source = lit.value();
    let mut parts = Vec::new();
    let mut text = String::new();
    let mut chars = source.chars().peekable();
    while let Some(ch) = chars.next() {
        match ch {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                text.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                text.push('}');
            }
            '{' => {
                let mut name = String::new();
                let mut closed = false;
                for ch in chars.by_ref() {
                    if ch == '}' {
                        closed = true;
                        break;
                    }
                    name.push(ch);
                }
                if !closed {
                    cx.error_spanned_by(
                        lit,
                        "unclosed `{` in summary template: close the placeholder with `}`, \
                         or write `{{` for a literal brace",
                    );
                    return parts;
                }
                let name = name.trim();
                if let Some(key) = placeholder(cx, input, lit, name) {
                    if !text.is_empty() {
                        parts.push(Part::Text(std::mem::take(&mut text)));
                    }
                    parts.push(Part::Field(key));
                }
            }
            '}' => cx.error_spanned_by(
                lit,
                "unmatched `}` in summary template: write `}}` for a literal brace",
            ),
            other => text.push(other),
        }
    }
    if !text.is_empty() {
        parts.push(Part::Text(text));
    }
    parts
}

/// Resolves a placeholder to the serialized key of the field it names.
fn placeholder(cx: &mut Ctxt, input: &Input, lit: &LitStr, name: &str) -> Option<String> {
    let Some(field) = input.field(name) else {
        let known: Vec<String> = input
            .fields
            .iter()
            .filter(|f| f.secret.is_none())
            .map(|f| f.ident.to_string())
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
        return None;
    };
    if field.secret.is_some() {
        cx.error_spanned_by(
            lit,
            format!(
                "summary template names `#[secret]` field `{name}`: a secret never reaches \
                 the model; remove `{{{name}}}` from the template"
            ),
        );
        return None;
    }
    if field.serde.skip.is_some() {
        cx.error_spanned_by(
            lit,
            format!(
                "summary template names `{name}`, which serde never serializes \
                 (`#[serde(skip)]`); the summary is rendered from `structuredContent`, so name \
                 a serialized field"
            ),
        );
        return None;
    }
    if field.serde.flatten.is_some() {
        cx.error_spanned_by(
            lit,
            format!(
                "summary template names `{name}`, a `#[serde(flatten)]` field with no key of \
                 its own; name a top-level field instead"
            ),
        );
        return None;
    }
    Some(field.key.clone())
}
