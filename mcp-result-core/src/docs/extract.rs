//! Extraction: a [`ToolRegistry`] or a `tools/list` payload into the docs model. The output
//! schema is taken apart by [`ToolOutputSchema::read`] (the schema module's one reader), the
//! write-contract keys come from [`crate::wire::keys`], and the framework's own error kinds
//! from [`ToolRegistry::framework_error_kinds`].

use std::time::Duration;

use rmcp::model::Tool;
use serde_json::Value;

use super::{
    model::{ErrorKindDoc, FieldDoc, Hints, ServerDocs, ToolDoc, Wrap},
    walk::{collapse, Walker},
};
use crate::{
    lint::{lint, Host},
    router::{def::RegistryError, registry::ToolRegistry, set::ToolSet},
    schema::{union, Resolver, ToolOutputSchema},
    wire::{
        envelope::ErrorKind,
        keys::{COMPANION_KEYS, CONTRACT_KEYS, WRAP_META_KEY},
    },
};

impl ServerDocs {
    /// The docs of a [`ToolSet`]'s tools, from its registry (see
    /// [`ServerDocs::from_registry`]).
    ///
    /// # Errors
    /// The [`RegistryError`] of a broken tool definition.
    pub fn for_tool_set<S: ToolSet>(
        server: impl Into<String>,
    ) -> Result<Self, &'static RegistryError> {
        Ok(Self::from_registry(server, S::tool_registry()?))
    }

    /// The docs of a registry's tools, with what the registry knows beyond `tools/list`:
    /// each tool's time limit ([`ToolRegistry::timeout`]) and the error kinds the
    /// framework itself answers its calls with ([`ToolRegistry::framework_error_kinds`]).
    pub fn from_registry<S>(server: impl Into<String>, registry: &ToolRegistry<S>) -> Self {
        Self::build(server.into(), registry.tools(), |name| {
            (
                registry.timeout(name),
                Some(registry.framework_error_kinds(name)),
            )
        })
    }

    /// The docs of any `tools/list` payload. Time limits are not in it, so none is
    /// documented; the framework's own error kinds are derived from what a listed tool
    /// shows (see [`ToolDoc::from_tool`]).
    pub fn from_tools(server: impl Into<String>, tools: &[Tool]) -> Self {
        Self::build(server.into(), tools, |_| (None, None))
    }

    /// `known(name)`: the tool's time limit, and the framework's own error kinds when known.
    fn build(
        server: String,
        tools: &[Tool],
        known: impl Fn(&str) -> (Option<Duration>, Option<Vec<ErrorKind>>),
    ) -> Self {
        let mut sorted: Vec<&Tool> = tools.iter().collect();
        sorted.sort_by(|a, b| a.name.cmp(&b.name));
        let mut error_envelope = Vec::new();
        let tools = sorted
            .into_iter()
            .map(|tool| {
                let (time_limit, framework) = known(&tool.name);
                let (doc, envelope) = ToolDoc::build(tool, time_limit, framework);
                if error_envelope.is_empty() {
                    error_envelope = envelope;
                }
                doc
            })
            .collect();
        Self {
            server,
            tools,
            hosts: Vec::new(),
            error_envelope,
        }
        .with_hosts(Host::PORTABLE)
    }

    /// The same docs with each tool's [`ToolDoc::host_findings`] for `hosts` (groups such as
    /// [`Host::Claude`] expanded): `with_hosts(Host::ALL)` adds OpenAI's strict mode to the
    /// default [`Host::PORTABLE`].
    pub fn with_hosts(mut self, hosts: &[Host]) -> Self {
        let tools: Vec<Tool> = self.tools.iter().map(|doc| doc.tool.clone()).collect();
        let findings = lint(&tools, hosts);
        for doc in &mut self.tools {
            doc.host_findings = findings
                .iter()
                .filter(|f| f.tool == doc.name)
                .cloned()
                .collect();
        }
        self.hosts = Host::ALL
            .iter()
            .copied()
            .filter(|h| hosts.iter().any(|g| g.members().contains(h)))
            .collect();
        self
    }
}

impl ToolDoc {
    /// The docs of one listed tool; `time_limit` is its `timeout_ms`, when known.
    ///
    /// Without the tool's registry, the error kinds the framework itself returns are
    /// derived from the listing: only a tool served with mcp-result's error envelope has
    /// them; `internal` always, `validation_error` when its `inputSchema` names a property,
    /// `upstream_timeout` when `time_limit` is given. [`ServerDocs::from_registry`] asks
    /// the registry instead.
    pub fn from_tool(tool: &Tool, time_limit: Option<Duration>) -> Self {
        Self::build(tool, time_limit, None).0
    }

    /// The docs of `tool` and the rows of its error envelope; `framework` is the error
    /// kinds the framework returns for it, when known.
    fn build(
        tool: &Tool,
        time_limit: Option<Duration>,
        framework: Option<Vec<ErrorKind>>,
    ) -> (Self, Vec<FieldDoc>) {
        let hints = Hints::of(tool.annotations.as_ref());
        let title = tool
            .title
            .clone()
            .or_else(|| tool.annotations.as_ref().and_then(|a| a.title.clone()));
        let input_root = Value::Object((*tool.input_schema).clone());
        let inputs = Walker::new(&input_root, false).rows_of(&input_root);
        let mut doc = Self {
            tool: tool.clone(),
            name: tool.name.to_string(),
            title,
            description: tool.description.as_deref().unwrap_or_default().to_owned(),
            hints,
            write_tool: !hints.read_only.value,
            write_contract_fields: Vec::new(),
            time_limit_ms: time_limit.map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
            idempotency: crate::write::idempotency::Advertised::read(tool),
            requires_approval: crate::write::approval::is_gated(tool),
            scopes: tool
                .meta
                .as_ref()
                .and_then(|meta| meta.0.get(crate::wire::keys::SCOPES_META))
                .and_then(Value::as_array)
                .map(|scopes| {
                    scopes
                        .iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default(),
            paging: crate::pagination::Advertised::read(tool),
            wrap: None,
            result_type: None,
            result_description: None,
            inputs,
            outputs: Vec::new(),
            error_kinds: Vec::new(),
            artifacts: Vec::new(),
            host_findings: Vec::new(),
        };
        let Some(output) = ToolOutputSchema::read(tool) else {
            return (doc, Vec::new());
        };
        doc.wrap = output.wrapped.map(|property| Wrap {
            meta_key: WRAP_META_KEY.to_owned(),
            value: property,
        });
        let success = Value::Object((*output.success).clone());
        let mut walker = Walker::new(&success, true);
        doc.outputs = walker.rows_of(&success);
        doc.artifacts = std::mem::take(&mut walker.artifacts);
        let (core, name) = walker.resolver().deref(&success);
        doc.result_type = core
            .get("title")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or(name);
        doc.result_description = core
            .get("description")
            .and_then(Value::as_str)
            .map(collapse);
        let top: Vec<&str> = doc
            .outputs
            .iter()
            .filter(|f| !f.path.contains(['.', '[']))
            .map(|f| f.path.as_str())
            .collect();
        doc.write_contract_fields = CONTRACT_KEYS
            .iter()
            .chain(&COMPANION_KEYS)
            .filter(|key| top.contains(key))
            .map(|key| (*key).to_owned())
            .collect();
        let Some(envelope) = output.envelope else {
            return (doc, Vec::new());
        };
        let envelope = Value::Object((*envelope).clone());
        let framework = framework.unwrap_or_else(|| listed_framework_kinds(tool, time_limit));
        doc.error_kinds = error_kinds(&envelope, &framework, time_limit, hints.idempotent.value);
        if doc.paging.is_some() {
            let cursor = ErrorKind::ValidationError.as_str();
            if let Some(text) = doc
                .error_kinds
                .iter_mut()
                .find(|k| k.kind == cursor)
                .and_then(|k| k.framework.as_mut())
            {
                text.push_str(
                    "; also a `cursor` that is too long, altered, expired, or issued for another \
                     tool, caller or arguments: one field error at `/cursor` (call again \
                     without it)",
                );
            }
        }
        let envelope_rows = Walker::new(&envelope, true).rows_of(&envelope);
        (doc, envelope_rows)
    }
}

/// The framework's own error kinds for a tool served with the error envelope, as far as its
/// `tools/list` entry shows them (see [`ToolDoc::from_tool`]).
fn listed_framework_kinds(tool: &Tool, time_limit: Option<Duration>) -> Vec<ErrorKind> {
    let input = &tool.input_schema;
    let takes_arguments = input.contains_key("required")
        || input
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|p| !p.is_empty());
    let mut kinds = Vec::with_capacity(3);
    if takes_arguments {
        kinds.push(ErrorKind::ValidationError);
    }
    if time_limit.is_some() {
        kinds.push(ErrorKind::UpstreamTimeout);
    }
    kinds.push(ErrorKind::Internal);
    kinds
}

/// The `errorKind` values of the envelope (with the envelope schema's description of each),
/// and for those in `framework`, when the framework returns them.
fn error_kinds(
    envelope: &Value,
    framework: &[ErrorKind],
    time_limit: Option<Duration>,
    idempotent: bool,
) -> Vec<ErrorKindDoc> {
    let resolver = Resolver::new(envelope);
    let Some(kind) = resolver.deref(envelope).0.pointer("/properties/errorKind") else {
        return Vec::new();
    };
    let (kind, _) = resolver.non_null(kind);
    let values: Vec<(String, Option<String>)> = match union(kind) {
        Some(branches) => branches
            .iter()
            .filter_map(|b| {
                let value = b.get("const")?.as_str()?.to_owned();
                let description = b.get("description").and_then(Value::as_str).map(collapse);
                Some((value, description))
            })
            .collect(),
        None => kind
            .get("enum")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|v| Some((v.as_str()?.to_owned(), None)))
            .collect(),
    };
    values
        .into_iter()
        .map(|(kind, description)| ErrorKindDoc {
            framework: framework
                .iter()
                .find(|k| k.as_str() == kind)
                .map(|k| framework_returns(*k, time_limit, idempotent)),
            kind,
            description,
        })
        .collect()
}

/// When the framework returns `kind` (see [`ToolRegistry::call`]).
fn framework_returns(kind: ErrorKind, time_limit: Option<Duration>, idempotent: bool) -> String {
    match kind {
        ErrorKind::ValidationError => "the arguments fail the `inputSchema`: every failing \
                                       field is in `fieldErrors`; `retrySafe: false`"
            .to_owned(),
        ErrorKind::UpstreamTimeout => {
            let limit = match time_limit {
                Some(limit) => format!("its time limit of {} ms", limit.as_millis()),
                None => "its time limit".to_owned(),
            };
            format!(
                "the call runs past {limit}; `retrySafe: {idempotent}` (the tool is {}idempotent)",
                if idempotent { "" } else { "not " }
            )
        }
        ErrorKind::Internal => "the tool panics or its result does not serialize: the cause \
                                is logged and only a `correlationId` is returned; \
                                `retrySafe: false`"
            .to_owned(),
        ErrorKind::InProgress => "a call with the same idempotency key is still running: call \
                                  again with that key after `retryAfterMs`; `retrySafe: true`"
            .to_owned(),
        ErrorKind::OutcomeUnknown => "a write under the same idempotency key was interrupted: \
                                      whether it took effect is unknown, and it is never run \
                                      again under that key"
            .to_owned(),
        other => format!("the framework answers with `{}`", other.as_str()),
    }
}
