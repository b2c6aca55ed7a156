use std::fmt::Write as _;

use serde_json::{Map, Value};

use crate::wire::text::{escaped, json_one_line, push_escaped};

/// How a result type's summary `TextContent` (the text for the model) is produced.
///
/// The summary is rendered from the serialized `structuredContent` object, never from the
/// Rust value, so it can only show what the machine contract shows (a `#[secret]` or
/// skipped field cannot reach it) and it agrees with `structuredContent` by construction.
#[derive(Debug, Clone, Copy)]
pub enum Summary {
    /// `#[tool_result(summary = "Found {total} findings")]`: literal text and placeholders,
    /// each placeholder already resolved (at compile time) to the field's serialized key.
    Template(&'static [SummaryPart]),
    /// No template: `title` (the type's doc comment's first line, or its name in words)
    /// followed by the counts of the top-level arrays and the `status`, e.g.
    /// `"Ticket search results (findings: 3)"`.
    Generated {
        /// The leading text.
        title: &'static str,
    },
    /// A summary a type renders itself from its serialized object: an open hook for result
    /// types the framework ships above this module (a [`Page`](crate::pagination::Page) says
    /// which slice of the walk it is and how to go on) and for hand-written
    /// [`ToolResult`](crate::ToolResult) impls.
    Custom(fn(&Map<String, Value>) -> String),
}

/// One piece of a summary template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SummaryPart {
    /// Literal text, copied as is.
    Text(&'static str),
    /// A placeholder: the serialized key of a top-level field of `structuredContent`.
    Field(&'static str),
}

impl Summary {
    /// Renders the summary from the serialized result object.
    ///
    /// Placeholder values render as: strings without quotes, numbers and booleans as JSON,
    /// `null` or an absent key (a field skipped by `skip_serializing_if`) as `none`, arrays
    /// as their element count, objects as compact JSON.
    pub fn render(&self, object: &Map<String, Value>) -> String {
        match self {
            Summary::Template(parts) => {
                let mut out = String::with_capacity(template_capacity(parts));
                for part in *parts {
                    match part {
                        SummaryPart::Text(text) => out.push_str(text),
                        SummaryPart::Field(key) => render_value(&mut out, field(object, key)),
                    }
                }
                out
            }
            Summary::Generated { title } => {
                if let (1, Some(value)) =
                    (object.len(), object.get(crate::wire::keys::WRAP_PROPERTY))
                {
                    return wrapped_summary(title, value);
                }
                let mut out = String::from(*title);
                let mut details = Vec::new();
                if let Some(Value::String(status)) = object.get("status") {
                    details.push(format!("status: {}", escaped(status)));
                }
                for (key, value) in object {
                    if let Value::Array(items) = value {
                        details.push(format!("{}: {}", escaped(key), items.len()));
                    }
                }
                if !details.is_empty() {
                    let _ = write!(out, " ({})", details.join(", "));
                }
                out
            }
            Summary::Custom(render) => render(object),
        }
    }
}

/// The generated summary of a wrapped value: `Result: 3 items`, `Result: 42`, `Result: none`.
/// Long scalars are cut at 200 characters.
fn wrapped_summary(title: &str, value: &Value) -> String {
    match value {
        Value::Array(items) => format!("{title}: {} item{}", items.len(), plural(items.len())),
        Value::Object(map) => format!("{title}: {} field{}", map.len(), plural(map.len())),
        other => {
            let mut rendered = String::new();
            render_value(&mut rendered, Some(other));
            if let Some((cut, _)) = rendered.char_indices().nth(200) {
                rendered.truncate(cut);
                rendered.push('…');
            }
            format!("{title}: {rendered}")
        }
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Bytes a placeholder is assumed to take when a template's summary is allocated: the
/// string is allocated once for most summaries instead of growing two or three times.
const PLACEHOLDER_BYTES: usize = 16;

/// Objects up to this many keys are searched by a scan: comparing a few short keys costs
/// less than hashing the one looked for (with the `preserve-order` feature a [`Map`] is an
/// `IndexMap`, which hashes every lookup) or walking a `BTreeMap`'s nodes (without it).
const SCAN_UP_TO: usize = 16;

/// The capacity a template's summary starts with: its literal text, and
/// [`PLACEHOLDER_BYTES`] per placeholder.
fn template_capacity(parts: &[SummaryPart]) -> usize {
    parts
        .iter()
        .map(|part| match part {
            SummaryPart::Text(text) => text.len(),
            SummaryPart::Field(_) => PLACEHOLDER_BYTES,
        })
        .sum()
}

/// `object[key]`: found by a scan in a small object ([`SCAN_UP_TO`]), by the map's lookup
/// otherwise. The same value either way: keys are unique.
fn field<'a>(object: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    if object.len() <= SCAN_UP_TO {
        object
            .iter()
            .find_map(|(name, value)| (name == key).then_some(value))
    } else {
        object.get(key)
    }
}

/// One placeholder's text. Integers and counts go through `itoa`, the formatter serde_json
/// itself writes integers with (and integer text has one form), without `core::fmt`;
/// floats keep serde_json's own `Display`, objects its compact text with every line break
/// escaped ([`json_one_line`]), so they read exactly as in the JSON and on one line.
fn render_value(out: &mut String, value: Option<&Value>) {
    match value {
        None | Some(Value::Null) => out.push_str("none"),
        Some(Value::String(s)) => push_escaped(out, s),
        Some(Value::Bool(b)) => out.push_str(if *b { "true" } else { "false" }),
        Some(Value::Array(items)) => out.push_str(itoa::Buffer::new().format(items.len())),
        Some(Value::Number(n)) => {
            if let Some(u) = n.as_u64() {
                out.push_str(itoa::Buffer::new().format(u));
            } else if let Some(i) = n.as_i64() {
                out.push_str(itoa::Buffer::new().format(i));
            } else {
                let _ = write!(out, "{n}");
            }
        }
        Some(object @ Value::Object(_)) => out.push_str(&json_one_line(object)),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn object(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => unreachable!(),
        }
    }

    #[test]
    fn template_renders_each_json_kind() {
        static PARTS: &[SummaryPart] = &[
            SummaryPart::Text("s="),
            SummaryPart::Field("s"),
            SummaryPart::Text(" n="),
            SummaryPart::Field("n"),
            SummaryPart::Text(" a="),
            SummaryPart::Field("a"),
            SummaryPart::Text(" missing="),
            SummaryPart::Field("missing"),
            SummaryPart::Text(" o="),
            SummaryPart::Field("o"),
        ];
        let rendered = Summary::Template(PARTS).render(&object(
            json!({"s": "high", "n": 3, "a": [1, 2], "o": {"k": true}}),
        ));
        assert_eq!(rendered, r#"s=high n=3 a=2 missing=none o={"k":true}"#);
    }

    #[test]
    fn placeholders_read_as_the_json_does() {
        static PARTS: &[SummaryPart] = &[SummaryPart::Field("v")];
        let template = Summary::Template(PARTS);
        for value in [
            json!(0),
            json!(u64::MAX),
            json!(i64::MIN),
            json!(-1),
            json!(1.5),
            json!(-0.0),
            json!(1e20),
            json!(1e-7),
            json!(f64::MAX),
            json!(true),
            json!(false),
            json!({"k": [1, "x"]}),
        ] {
            assert_eq!(
                template.render(&object(json!({"v": value}))),
                value.to_string()
            );
        }
        // A large object is searched by the map's lookup: the same answer.
        let mut large = Map::new();
        for i in 0..40 {
            large.insert(format!("k{i}"), json!(i));
        }
        large.insert("v".into(), json!(7));
        assert_eq!(template.render(&large), "7");
        large.remove("v");
        assert_eq!(template.render(&large), "none");
    }

    #[test]
    fn generated_summary_of_a_wrapped_value() {
        let generated = Summary::Generated { title: "Result" };
        assert_eq!(
            generated.render(&object(json!({"result": [1, 2]}))),
            "Result: 2 items"
        );
        assert_eq!(
            generated.render(&object(json!({"result": [1]}))),
            "Result: 1 item"
        );
        assert_eq!(
            generated.render(&object(json!({"result": "ok"}))),
            "Result: ok"
        );
        assert_eq!(
            generated.render(&object(json!({"result": null}))),
            "Result: none"
        );
        let long = "x".repeat(300);
        assert_eq!(
            generated
                .render(&object(json!({"result": long})))
                .chars()
                .count(),
            "Result: ".len() + 201
        );
    }

    #[test]
    fn generated_summary_counts_arrays_and_names_status() {
        let rendered = Summary::Generated {
            title: "Note created",
        }
        .render(&object(
            json!({"status": "blocked", "items": [1, 2, 3], "x": 1}),
        ));
        assert_eq!(rendered, "Note created (status: blocked, items: 3)");
    }
}
