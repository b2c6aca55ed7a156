//! The `summary = "..."` template: `{field}` names a field, `{{` and `}}` are literal
//! braces. Parsed and resolved against the input's fields while parsing; `valid` reports
//! placeholders that name no usable field.

use syn::LitStr;

use crate::ctxt::Ctxt;

pub struct Template {
    /// The template as written, where its errors are reported.
    pub lit: LitStr,
    pub parts: Vec<Part>,
}

pub enum Part {
    Text(String),
    /// `{name}`: the index of the top-level field it names, if any.
    Field {
        name: String,
        field: Option<usize>,
    },
}

impl Template {
    /// The placeholders, with the field each resolved to.
    pub fn placeholders(&self) -> impl Iterator<Item = (&str, Option<usize>)> {
        self.parts.iter().filter_map(|part| match part {
            Part::Field { name, field } => Some((name.as_str(), *field)),
            Part::Text(_) => None,
        })
    }
}

/// Parses `lit`, resolving each placeholder with `resolve` (a Rust field name to a field
/// index). A syntax error is recorded in `cx`.
pub fn parse(cx: &Ctxt, lit: &LitStr, resolve: impl Fn(&str) -> Option<usize>) -> Template {
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
                    break;
                }
                if !text.is_empty() {
                    parts.push(Part::Text(std::mem::take(&mut text)));
                }
                let name = name.trim().to_owned();
                let field = resolve(&name);
                parts.push(Part::Field { name, field });
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
    Template {
        lit: lit.clone(),
        parts,
    }
}
