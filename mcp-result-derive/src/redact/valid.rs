//! The `#[secret]` rules, for `#[derive(Redact)]` and `#[derive(ToolResult)]` alike. Every
//! violation is collected and reported at the `#[secret]` the user must change.

use super::ast::Input;
use crate::{ctxt::Ctxt, fields::Field};

pub fn validate(input: &Input) -> syn::Result<()> {
    let cx = Ctxt::default();
    secrets(&cx, &input.fields);
    crate::shapes::check(&cx, &input.fields);
    cx.check()
}

/// Each `#[secret]` field takes no arguments, is not flattened and is skipped by serde. (Its
/// type, `Secret<_>`, is checked by the generated code: [`super::expand::secret_bounds`].)
pub fn secrets(cx: &Ctxt, fields: &[Field]) {
    for field in fields {
        let Some(secret) = field.secret else { continue };
        if !matches!(secret.meta, syn::Meta::Path(_)) {
            cx.error_spanned_by(secret, "`#[secret]` takes no arguments");
        }
        if field.serde.flatten {
            cx.error_spanned_by(
                secret,
                format!(
                    "`{}` is `#[serde(flatten)]` and `#[secret]`: a flattened field serializes \
                     its contents; mark the secret fields inside it instead",
                    field.name
                ),
            );
        } else if !field.serde.skip {
            cx.error_spanned_by(
                secret,
                format!(
                    "`#[secret]` field `{}` would be serialized into `structuredContent`: add \
                     `#[serde(skip_serializing)]` (or `#[serde(skip)]`) so no client ever sees \
                     it{}",
                    field.name,
                    if field.serde.skip_if {
                        "; `skip_serializing_if` still serializes it when the condition is false"
                    } else {
                        ""
                    }
                ),
            );
        }
    }
}
