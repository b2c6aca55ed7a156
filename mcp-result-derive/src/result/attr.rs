//! `#[tool_result(...)]` on the container.

use syn::{Attribute, LitStr};

use crate::ctxt::Ctxt;

/// Which text blocks `content` holds (`mcp_result::ContentMode`).
#[derive(Clone, Copy)]
pub enum Content {
    SummaryThenJson,
    JsonThenSummary,
    Summary,
    Json,
}

/// `annotations.audience` of a text block.
#[derive(Clone, Copy)]
pub enum Audience {
    User,
    Assistant,
    Both,
}

/// The annotations of one of the two text blocks; `None` keeps the core default.
#[derive(Default, Clone, Copy)]
pub struct Style {
    pub audience: Option<Audience>,
    /// 0..=1, checked at parse time.
    pub priority: Option<f32>,
}

#[derive(Default)]
pub struct ResultAttrs {
    /// `summary = "..."`: the template.
    pub summary: Option<LitStr>,
    /// `content = "..."`.
    pub content: Option<Content>,
    /// `summary_audience`, `summary_priority`.
    pub summary_style: Style,
    /// `json_audience`, `json_priority`.
    pub json_style: Style,
}

const KEYS: &str = "`summary = \"...\"`, `content = \"summary_then_json\" | \"json_then_summary\" | \"summary\" | \"json\"`, `summary_audience`, `summary_priority`, `json_audience` or `json_priority`";

fn audience(value: &LitStr) -> syn::Result<Audience> {
    match value.value().as_str() {
        "user" => Ok(Audience::User),
        "assistant" => Ok(Audience::Assistant),
        "user,assistant" | "assistant,user" | "both" => Ok(Audience::Both),
        other => Err(syn::Error::new(
            value.span(),
            format!(
                "unknown audience `{other}`: expected \"user\", \"assistant\" or \
                 \"user,assistant\" (MCP annotations.audience)"
            ),
        )),
    }
}

fn priority(value: &syn::LitFloat) -> syn::Result<f32> {
    let parsed: f32 = value.base10_parse()?;
    if !(0.0..=1.0).contains(&parsed) {
        return Err(syn::Error::new(
            value.span(),
            format!(
                "priority {parsed} is outside 0..=1: MCP annotations.priority runs from 0 \
                 (least important) to 1 (effectively required)"
            ),
        ));
    }
    Ok(parsed)
}

pub fn parse(cx: &mut Ctxt, attrs: &[Attribute]) -> ResultAttrs {
    let mut out = ResultAttrs::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("tool_result")) {
        let parsed = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("summary") {
                let value: LitStr = meta.value()?.parse()?;
                if out.summary.replace(value).is_some() {
                    return Err(meta.error("duplicate `summary`: give the template once"));
                }
            } else if meta.path.is_ident("content") {
                let value: LitStr = meta.value()?.parse()?;
                let content = match value.value().as_str() {
                    "summary_then_json" => Content::SummaryThenJson,
                    "json_then_summary" => Content::JsonThenSummary,
                    "summary" => Content::Summary,
                    "json" => Content::Json,
                    other => {
                        return Err(syn::Error::new(
                            value.span(),
                            format!(
                                "unknown content mode `{other}`: expected \"summary_then_json\" \
                                 (the default), \"json_then_summary\", \"summary\" or \"json\""
                            ),
                        ))
                    }
                };
                if out.content.replace(content).is_some() {
                    return Err(meta.error("duplicate `content`: choose one content mode"));
                }
            } else if let Some((block, field)) = ["summary", "json"].iter().find_map(|block| {
                let key = meta.path.get_ident()?.to_string();
                let field = key.strip_prefix(block)?.strip_prefix('_')?.to_owned();
                Some((*block, field))
            }) {
                let style = if block == "summary" {
                    &mut out.summary_style
                } else {
                    &mut out.json_style
                };
                let duplicate = match field.as_str() {
                    "audience" => style
                        .audience
                        .replace(audience(&meta.value()?.parse()?)?)
                        .is_some(),
                    "priority" => style
                        .priority
                        .replace(priority(&meta.value()?.parse()?)?)
                        .is_some(),
                    _ => {
                        return Err(meta.error(format!(
                            "unknown `tool_result` key `{block}_{field}`: expected {KEYS}"
                        )))
                    }
                };
                if duplicate {
                    return Err(meta.error(format!("duplicate `{block}_{field}`: give it once")));
                }
            } else {
                let key = meta
                    .path
                    .get_ident()
                    .map(ToString::to_string)
                    .unwrap_or_default();
                return Err(meta.error(format!(
                    "unknown `tool_result` key `{key}`: expected {KEYS}"
                )));
            }
            Ok(())
        });
        if let Err(error) = parsed {
            cx.syn_error(error);
        }
    }
    out
}
