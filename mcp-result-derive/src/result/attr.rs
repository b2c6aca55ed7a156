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

#[derive(Default)]
pub struct ResultAttrs {
    /// `summary = "..."`: the template.
    pub summary: Option<LitStr>,
    /// `content = "..."`.
    pub content: Option<Content>,
}

const KEYS: &str = "`summary = \"...\"` or `content = \"summary_then_json\" | \"json_then_summary\" | \"summary\" | \"json\"`";

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
