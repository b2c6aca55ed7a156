//! `#[tool_result(...)]` and `#[mcp_result(...)]` on the container, read with the
//! attribute toolkit (`crate::attr`).

use syn::{Attribute, LitStr};

use crate::{
    attr::{self, Attr, Symbol, CRATE},
    ctxt::Ctxt,
};

const TOOL_RESULT: Symbol = Symbol("tool_result");
const SUMMARY: Symbol = Symbol("summary");
const CONTENT: Symbol = Symbol("content");
const TEXT: Symbol = Symbol("text");
const SUMMARY_AUDIENCE: Symbol = Symbol("summary_audience");
const SUMMARY_PRIORITY: Symbol = Symbol("summary_priority");
const JSON_AUDIENCE: Symbol = Symbol("json_audience");
const JSON_PRIORITY: Symbol = Symbol("json_priority");

const KEYS: &str = "`summary = \"...\"`, `content = \"summary_then_json\" | \"json_then_summary\" | \"summary\" | \"json\"`, `text = \"field\"`, `summary_audience`, `summary_priority`, `json_audience` or `json_priority`";

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

pub struct ResultAttrs {
    /// `summary = "..."`: the template, as written.
    pub summary: Option<LitStr>,
    /// `content = "..."`.
    pub content: Option<Content>,
    /// `text = "field"`: the field whose text is the result's one text block.
    pub text: Option<LitStr>,
    /// `summary_audience`, `summary_priority`.
    pub summary_style: Style,
    /// `json_audience`, `json_priority`.
    pub json_style: Style,
    /// `#[mcp_result(crate = "...")]`, else `::mcp_result`.
    pub krate: syn::Path,
}

fn content(value: &LitStr) -> syn::Result<Content> {
    match value.value().as_str() {
        "summary_then_json" => Ok(Content::SummaryThenJson),
        "json_then_summary" => Ok(Content::JsonThenSummary),
        "summary" => Ok(Content::Summary),
        "json" => Ok(Content::Json),
        other => Err(syn::Error::new(
            value.span(),
            format!(
                "unknown content mode `{other}`: expected \"summary_then_json\" (the default), \
                 \"json_then_summary\", \"summary\" or \"json\""
            ),
        )),
    }
}

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

pub fn parse(cx: &Ctxt, attrs: &[Attribute]) -> ResultAttrs {
    let mut summary = Attr::none(cx, SUMMARY);
    let mut content_mode = Attr::none(cx, CONTENT);
    let mut text = Attr::none(cx, TEXT);
    let mut summary_audience = Attr::none(cx, SUMMARY_AUDIENCE);
    let mut summary_priority = Attr::none(cx, SUMMARY_PRIORITY);
    let mut json_audience = Attr::none(cx, JSON_AUDIENCE);
    let mut json_priority = Attr::none(cx, JSON_PRIORITY);
    let mut krate = Attr::none(cx, CRATE);
    for attribute in attrs {
        if *attribute.path() == TOOL_RESULT {
            attr::parse_attr(cx, attribute, |meta| {
                let span = attr::key_span(meta);
                if meta.path == SUMMARY {
                    summary.set(span, attr::string(meta)?);
                } else if meta.path == CONTENT {
                    content_mode.set(span, content(&attr::string(meta)?)?);
                } else if meta.path == TEXT {
                    text.set(span, attr::string(meta)?);
                } else if meta.path == SUMMARY_AUDIENCE {
                    summary_audience.set(span, audience(&attr::string(meta)?)?);
                } else if meta.path == SUMMARY_PRIORITY {
                    summary_priority.set(span, priority(&meta.value()?.parse()?)?);
                } else if meta.path == JSON_AUDIENCE {
                    json_audience.set(span, audience(&attr::string(meta)?)?);
                } else if meta.path == JSON_PRIORITY {
                    json_priority.set(span, priority(&meta.value()?.parse()?)?);
                } else {
                    return Err(attr::key_error(
                        meta,
                        format!(
                            "unknown `tool_result` key `{}`: expected {KEYS}",
                            attr::key_name(meta)
                        ),
                    ));
                }
                Ok(())
            });
        } else {
            attr::mcp_result_attr(cx, attribute, &mut krate);
        }
    }
    ResultAttrs {
        summary: summary.get(),
        content: content_mode.get(),
        text: text.get(),
        summary_style: Style {
            audience: summary_audience.get(),
            priority: summary_priority.get(),
        },
        json_style: Style {
            audience: json_audience.get(),
            priority: json_priority.get(),
        },
        krate: krate.get().unwrap_or_else(attr::default_crate),
    }
}
