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
    if let Some(text) = &input.attrs.text {
        text_field(&cx, input, text);
    }
    cx.check()
}

/// `text = "field"` names a top-level field that always serializes as a string, and stands
/// alone: the field's text is the result's one text block, so no summary and no other
/// content mode.
fn text_field(cx: &Ctxt, input: &Input, text: &syn::LitStr) {
    let name = text.value();
    if input.attrs.summary.is_some() || input.attrs.content.is_some() {
        cx.error_spanned_by(
            text,
            "`text = \"...\"` sends the field's text as the result's one text block, so a \
             `summary` or a `content` mode would never be sent: remove them, or remove `text`",
        );
    }
    let Some(field) = input.top_level().iter().find(|f| f.name == name) else {
        cx.error_spanned_by(text, unknown_field(input, &name, "`text`"));
        return;
    };
    let problem = if field.secret.is_some() {
        Some("is `#[secret]`: a secret never reaches the model")
    } else if field.serde.skip || field.serde.skip_if || field.serde.flatten {
        Some("is not always serialized under its own key (`skip`, `skip_serializing_if` or `flatten`)")
    } else if !is_text(field.ty) {
        Some("is not a `String` (nor `&str`, `Box<str>`, `Arc<str>`, `Cow<str>`)")
    } else {
        None
    };
    if let Some(problem) = problem {
        cx.error_spanned_by(
            text,
            format!(
                "`text = \"{name}\"`: field `{name}` {problem}; the result's text block is that \
                 field's text, so name a field that always holds it"
            ),
        );
    }
}

/// Whether `ty` always serializes as a JSON string: `String`, `str`, and `Box`, `Arc`, `Rc`,
/// `Cow` or a reference of `str`.
fn is_text(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Reference(reference) => is_text(&reference.elem),
        syn::Type::Group(group) => is_text(&group.elem),
        syn::Type::Path(path) if path.qself.is_none() => {
            let Some(last) = path.path.segments.last() else {
                return false;
            };
            match last.ident.to_string().as_str() {
                "String" | "str" => true,
                "Box" | "Arc" | "Rc" | "Cow" => match &last.arguments {
                    syn::PathArguments::AngleBracketed(arguments) => {
                        arguments.args.iter().any(|argument| {
                            matches!(argument, syn::GenericArgument::Type(ty) if is_text(ty))
                        })
                    }
                    _ => false,
                },
                _ => false,
            }
        }
        _ => false,
    }
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
            cx.error_spanned_by(lit, unknown_field(input, name, "summary template"));
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

/// The error for a field name that `place` (the summary template, `text`) gives that the type
/// does not have: the fields it has, secrets left out.
fn unknown_field(input: &Input, name: &str, place: &str) -> String {
    let known: Vec<&str> = input
        .top_level()
        .iter()
        .filter(|f| f.secret.is_none())
        .map(|f| f.name.as_str())
        .collect();
    format!(
        "unknown field `{name}` in {place}: `{}` has the fields {}",
        input.ident,
        if known.is_empty() {
            "(none)".to_owned()
        } else {
            known.join(", ")
        }
    )
}
