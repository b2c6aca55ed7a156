//! The JSON renderer: [`ServerDocs::to_json`].

use serde::Serialize;
use serde_json::{Map, Value};

use super::model::ServerDocs;

impl ServerDocs {
    /// The JSON rendering: the `tools/list` payload plus the derived metadata, every object's
    /// keys in name order (whatever serde_json's map order, so the rendering is the same in
    /// every build).
    ///
    /// ```json
    /// {"server": "helpdesk",
    ///  "hosts": ["mcp", "claude-api", ...],
    ///  "tools": [<each Tool exactly as tools/list serves it, sorted by name>],
    ///  "docs": {"<tool name>": <ToolDoc: hints, writeTool, inputs, outputs, errorKinds,
    ///           hostFindings (crate::lint::Finding), ...>},
    ///  "errorEnvelope": [<FieldDoc>, ...]}
    /// ```
    pub fn to_json(&self) -> Value {
        let mut docs = Map::new();
        for doc in &self.tools {
            docs.insert(doc.name.clone(), to_value(doc));
        }
        let mut root = Map::new();
        root.insert("server".into(), Value::String(self.server.clone()));
        root.insert("hosts".into(), to_value(&self.hosts));
        root.insert(
            "tools".into(),
            Value::Array(self.tools.iter().map(|doc| to_value(&doc.tool)).collect()),
        );
        root.insert("docs".into(), Value::Object(docs));
        root.insert("errorEnvelope".into(), to_value(&self.error_envelope));
        let mut root = Value::Object(root);
        root.sort_all_objects();
        root
    }

    /// [`ServerDocs::to_json`] pretty-printed (two-space indent) with a final newline.
    pub fn to_json_pretty(&self) -> String {
        let mut text = serde_json::to_string_pretty(&self.to_json()).unwrap_or_default();
        text.push('\n');
        text
    }
}

fn to_value<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}
