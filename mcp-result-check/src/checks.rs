//! The checks, as data (one row each: id, severity, what it requires, the fix), and the
//! finding every check reports in.

use mcp_result::{
    lint::{self, Host},
    serde_json::{json, Value},
};

/// How bad a finding is. Either kind makes the exit status 1; the severity orders the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// A MUST of the spec, what makes a host refuse the tool (or the whole list), or a
    /// server fault (`internal-error`).
    Error,
    /// A SHOULD of the spec, or a point of the tool-result review.
    Warning,
}

impl Severity {
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// One check (besides the host lint, whose rules are `mcp_result::lint::RULES`).
pub struct Check {
    pub id: &'static str,
    pub severity: Severity,
    /// What a clean server does.
    pub requires: &'static str,
    pub fix: &'static str,
}

pub const CHECKS: &[Check] = &[
    // The spec's tool rules.
    Check {
        id: "tools-capability",
        severity: Severity::Error,
        requires: "the initialize result declares the `tools` capability",
        fix: "declare `capabilities.tools` (`{}` will do) in the initialize result",
    },
    Check {
        id: "tools-list",
        severity: Severity::Error,
        requires: "`tools/list` answers with a list of tools",
        fix: "answer `tools/list` with `{\"tools\": [...]}`",
    },
    Check {
        id: "tools-list-cursor",
        severity: Severity::Error,
        requires: "the `tools/list` walk ends: every `nextCursor` is new and leads to new \
                   tools, within 500 pages",
        fix: "answer the last page without `nextCursor`, and give each page a cursor that \
              moves past what it showed",
    },
    Check {
        id: "tools-list-empty-cursor",
        severity: Severity::Warning,
        requires: "no `tools/list` page answers an empty `nextCursor` (`\"\"`): an absent \
                   `nextCursor` ends the walk (MCP \"Pagination\"), an empty one leaves each \
                   client to guess (some stop, some ask again with `\"\"` and loop)",
        fix: "leave `nextCursor` out of the last page instead of sending it empty",
    },
    Check {
        id: "schema-dialect",
        severity: Severity::Error,
        requires: "`inputSchema` and `outputSchema` are valid in their dialect (`$schema`, \
                   JSON Schema 2020-12 without one)",
        fix: "correct the schema so that it validates against its meta-schema",
    },
    Check {
        id: "schema-ref",
        severity: Severity::Error,
        requires: "every `$ref` of a schema resolves inside that schema",
        fix: "put every referenced definition in the schema's own `$defs`",
    },
    Check {
        id: "output-object-root",
        severity: Severity::Error,
        requires: "before protocol 2026-07-28 the root of `outputSchema` is `type: \"object\"` \
                   (older clients reject the whole tool list over one other root)",
        fix: "wrap the result in an object (mcp-result wraps it as `{\"result\": ...}`)",
    },
    Check {
        id: "structured-content",
        severity: Severity::Error,
        requires: "a tool that advertises an `outputSchema` returns `structuredContent` in \
                   its results",
        fix: "return the result as `structuredContent` (and its JSON as a text block)",
    },
    Check {
        id: "output-schema",
        severity: Severity::Error,
        requires: "`structuredContent` conforms to the tool's `outputSchema`, in error results \
                   too (clients validate both)",
        fix: "make the result match the schema, or widen the schema (an `anyOf` with the \
              error envelope, as mcp-result advertises)",
    },
    Check {
        id: "json-compat-text",
        severity: Severity::Warning,
        requires: "a result with `structuredContent` also has a text block with that JSON \
                   (spec SHOULD, for clients that read only `content`: Claude Desktop and \
                   claude.ai connectors, Claude Code, clients older than 2025-06-18); the \
                   finding names the fields the text leaves out",
        fix: "add a text block with the serialized `structuredContent` (with mcp-result: drop \
              `#[tool_result(content = \"summary\")]`, or name every field in the summary \
              template)",
    },
    Check {
        id: "unknown-tool",
        severity: Severity::Error,
        requires: "a call of a tool the server does not have is a JSON-RPC error (-32602), not \
                   a result",
        fix: "answer an unknown tool name with a JSON-RPC error -32602",
    },
    Check {
        id: "bad-arguments",
        severity: Severity::Error,
        requires: "arguments the `inputSchema` rejects are refused with an `isError: true` \
                   result (from protocol 2025-11-25 on, not a JSON-RPC error), so the model can \
                   correct them",
        fix: "validate the arguments against the inputSchema and answer a violation with an \
              `isError` result naming the field",
    },
    Check {
        id: "call-error",
        severity: Severity::Error,
        requires: "a call with arguments the `inputSchema` accepts gets a result (`isError` for \
                   a failure), not a JSON-RPC error or no answer",
        fix: "report tool failures as `isError` results; keep JSON-RPC errors for protocol \
              errors",
    },
    // The tool-result review.
    Check {
        id: "output-schema-missing",
        severity: Severity::Warning,
        requires: "the tool advertises an `outputSchema`: business state (ids, status, counts) \
                   in `structuredContent`, not only in `content` text",
        fix: "advertise an `outputSchema` and return `structuredContent` (mcp-result derives \
              both from the return type)",
    },
    Check {
        id: "write-contract",
        severity: Severity::Warning,
        requires: "a write tool (`readOnlyHint` not true) declares and returns `status`, \
                   `retrySafe` and `auditEventId` in `structuredContent`",
        fix: "add `status`, `retrySafe` and `auditEventId` to the result (or mark the tool \
              `readOnlyHint: true` if it changes nothing)",
    },
    Check {
        id: "error-status",
        severity: Severity::Warning,
        requires: "an `isError` result carries a structured error envelope with `status`",
        fix: "return `structuredContent` with `status` (e.g. `failed`, `blocked`), `errorKind` \
              and `message` on errors",
    },
    Check {
        id: "error-retry-safe",
        severity: Severity::Warning,
        requires: "an `isError` result says whether a retry is safe (`retrySafe`, a boolean)",
        fix: "add `retrySafe` to the error's `structuredContent`",
    },
    Check {
        id: "error-field-errors",
        severity: Severity::Warning,
        requires: "an `isError` result for bad arguments names the failing field in \
                   `structuredContent` (e.g. `fieldErrors: [{\"pointer\": \"/ticketId\"}]`)",
        fix: "list each failing argument with its JSON Pointer in the error's \
              `structuredContent`",
    },
    Check {
        id: "internal-error",
        severity: Severity::Error,
        requires: "a call with sample or generated arguments (generated ones valid against \
                   the `inputSchema`) is not answered `errorKind: \"internal\"`: that is a \
                   server fault, the tool broken on a call it should serve",
        fix: "find what broke in the server's log under the result's `correlationId` and fix \
              it; answer arguments the tool cannot serve with `validation_error` or \
              `not_found`, and an upstream's failure with `upstream_unavailable` or \
              `upstream_timeout`",
    },
    Check {
        id: "large-output",
        severity: Severity::Warning,
        requires: "a large output (over --max-output bytes of text or `structuredContent`) \
                   goes behind a `resource_link`",
        fix: "store the artifact and return a `resource_link` (and its URI in \
              `structuredContent`), with counts in the result",
    },
    Check {
        id: "meta-business-data",
        severity: Severity::Warning,
        requires: "`_meta` is the control plane (trace ids, cache keys, hints): no business \
                   value lives only there",
        fix: "move the value into `structuredContent` (and keep `_meta` for control data)",
    },
    Check {
        id: "secret",
        severity: Severity::Error,
        requires: "no secret-looking string (private key, API key, token, bearer credential) \
                   in a result",
        fix: "never return credentials; keep them server-side (mcp-result's `Secret<T>` cannot \
              serialize)",
    },
];

pub fn check(id: &str) -> &'static Check {
    CHECKS
        .iter()
        .find(|c| c.id == id)
        .unwrap_or_else(|| unreachable!("no check `{id}`"))
}

/// `--list-checks`: every check, then the lint rules of `hosts`, one per line with its
/// severity and what it requires.
pub fn list(hosts: &[Host]) -> String {
    let rules: Vec<&lint::Rule> = lint::RULES
        .iter()
        .filter(|rule| {
            rule.hosts
                .iter()
                .any(|h| hosts.iter().any(|chosen| chosen.members().contains(h)))
        })
        .collect();
    let width = CHECKS
        .iter()
        .map(|c| c.id.len())
        .chain(rules.iter().map(|r| r.id.len() + "lint/".len()))
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for check in CHECKS {
        out.push_str(&format!(
            "{:<width$}  {:<8} {}\n",
            check.id,
            check.severity.name(),
            check.requires
        ));
    }
    for rule in rules {
        let applies: Vec<&str> = rule
            .hosts
            .iter()
            .filter(|h| hosts.iter().any(|chosen| chosen.members().contains(h)))
            .map(|h| h.name())
            .collect();
        out.push_str(&format!(
            "{:<width$}  {:<8} {} [hosts: {}]\n",
            format!("lint/{}", rule.id),
            Severity::Error.name(),
            rule.requires,
            applies.join(", ")
        ));
    }
    out
}

/// Which request a result finding comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Call {
    /// The tool called with its sample or generated arguments.
    Arguments,
    /// The tool called with arguments its inputSchema rejects.
    BadArguments,
    /// A call of a tool name the server does not list.
    UnknownTool,
}

impl Call {
    pub fn name(self) -> &'static str {
        match self {
            Call::Arguments => "arguments",
            Call::BadArguments => "bad-arguments",
            Call::UnknownTool => "unknown-tool",
        }
    }
}

/// One thing a server does wrong.
#[derive(Debug, Clone)]
pub struct Finding {
    /// The tool's name; empty for the server as a whole.
    pub tool: String,
    /// A check id of [`CHECKS`], or `lint/<rule id>` for the host lint.
    pub check: String,
    pub severity: Severity,
    /// A JSON Pointer: into the tool object (`/outputSchema/...`) for what the tool list
    /// says, into the result (`/structuredContent/status`) for what a call returned.
    pub pointer: String,
    /// The call whose result this is about, for result findings.
    pub call: Option<Call>,
    /// The hosts whose rule this is (lint findings).
    pub hosts: Vec<Host>,
    pub message: String,
    pub fix: String,
    /// Where a lint rule is documented.
    pub source: Option<&'static str>,
}

impl Finding {
    /// A finding of check `id` (one of [`CHECKS`]).
    pub fn new(
        tool: &str,
        id: &str,
        pointer: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        let check = check(id);
        Finding {
            tool: tool.to_owned(),
            check: check.id.to_owned(),
            severity: check.severity,
            pointer: pointer.into(),
            call: None,
            hosts: Vec::new(),
            message: message.into(),
            fix: check.fix.to_owned(),
            source: None,
        }
    }

    pub fn in_call(mut self, call: Call) -> Self {
        self.call = Some(call);
        self
    }

    pub fn to_json(&self) -> Value {
        let mut value = json!({
            "tool": self.tool,
            "check": self.check,
            "severity": self.severity.name(),
            "pointer": self.pointer,
            "message": self.message,
            "fix": self.fix,
        });
        if let Some(call) = self.call {
            value["call"] = json!(call.name());
        }
        if !self.hosts.is_empty() {
            value["hosts"] = json!(self.hosts.iter().map(|h| h.name()).collect::<Vec<_>>());
        }
        if let Some(source) = self.source {
            value["source"] = json!(source);
        }
        value
    }
}

/// The lint's findings, one per tool, rule and place, with the hosts of that rule merged.
pub fn from_lint(findings: Vec<lint::Finding>) -> Vec<Finding> {
    let mut merged: Vec<Finding> = Vec::new();
    for f in findings {
        let check = format!("lint/{}", f.rule);
        match merged
            .iter_mut()
            .find(|m| m.tool == f.tool && m.check == check && m.pointer == f.pointer)
        {
            Some(m) => m.hosts.push(f.host),
            None => merged.push(Finding {
                tool: f.tool,
                check,
                severity: Severity::Error,
                pointer: f.pointer,
                call: None,
                hosts: vec![f.host],
                message: f.message,
                fix: f.fix.to_owned(),
                source: Some(f.source),
            }),
        }
    }
    merged
}
