//! Host compatibility of a `tools/list` payload: what each MCP host rejects or degrades,
//! checked against the tools a server lists.
//!
//! MCP's SDK clients are lenient; the hosts people run are not, and one bad tool often takes
//! the whole tool list or session down with it: Claude Desktop withholds every tool of a
//! server when one name has a `.`, the Claude API answers 400 to a root `oneOf`, Gemini to a
//! `type` list, Codex shows a `$ref` parameter as a string. Each [`Host`] has a rule set,
//! kept as data in [`RULES`]: one row per rule with its id, the hosts it applies to, what the
//! host requires, the fix, and the documentation page or public thread it comes from.
//!
//! - [`lint`] checks the tools of a server (what [`crate::ToolRegistry::tools`] serves, or
//!   what rmcp's client listed), [`lint_json`] a raw payload from any MCP server.
//! - Each [`Finding`] names the tool, a JSON Pointer into the tool object, the rule, the
//!   host, what is wrong, the fix and the source.
//! - [`assert_portable`] is the test helper: it panics with a table of the findings.
//! - [`Host::Claude`] stands for the three Claude hosts; [`Host::ALL`] lists every host,
//!   [`Host::PORTABLE`] every host but OpenAI's strict mode (the hosts one `tools/list` can
//!   satisfy together: see there).
//!
//! An mcp-result server is portable by construction where a rule allows it: tool names are
//! checked at compile time (`^[a-zA-Z0-9_-]{1,64}$` unless a tool opts into the spec's wider
//! rule), and `tools/list` advertises the portable profile of each input schema
//! ([`crate::schema::portable_input`]). What is left for the lint: names longer than the
//! host prefixes leave room for ([`PREFIXED_NAME_BUDGET`]), shapes with no portable form
//! (a recursive argument type keeps its `$ref`; an enum with data keeps an `anyOf`), and
//! OpenAI's strict mode, whose "every property required" no single-type schema of an
//! optional argument can meet.
//!
//! ```
//! use mcp_result_core::lint::{lint_json, Host};
//! use mcp_result_core::serde_json::json;
//!
//! let listed = json!({"tools": [{
//!     "name": "tickets.search",
//!     "description": "Search tickets.",
//!     "inputSchema": {"type": "object", "properties": {
//!         "limit": {"type": ["integer", "null"]}
//!     }}
//! }]});
//! let findings = lint_json(&listed, &[Host::ClaudeDesktop, Host::Gemini]);
//! let found: Vec<(&str, &str, &str)> = findings
//!     .iter()
//!     .map(|f| (f.rule, f.host.name(), f.pointer.as_str()))
//!     .collect();
//! assert_eq!(found, [
//!     ("claude-name", "claude-desktop", "/name"),
//!     ("gemini-type-list", "gemini", "/inputSchema/properties/limit/type"),
//! ]);
//! ```

mod check;
mod rules;

use std::{fmt, str::FromStr};

use rmcp::model::Tool;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

pub use rules::{Rule, PREFIXED_NAME_BUDGET, RULES, SERVER_NAME_ALLOWANCE};

use rules::Check;

/// An MCP host (or the spec itself) with a rule set in [`RULES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Host {
    /// The MCP specification (2025-11-25): the rules every host starts from.
    Mcp,
    /// The three Claude hosts at once: [`Host::ClaudeApi`], [`Host::ClaudeDesktop`],
    /// [`Host::ClaudeCode`]. A group for [`lint`]'s `hosts`; findings name the member.
    Claude,
    /// The Claude API (Messages API tool use; also on Amazon Bedrock and Google Vertex).
    ClaudeApi,
    /// Claude Desktop and claude.ai connectors.
    ClaudeDesktop,
    /// Claude Code (the CLI and its SDK).
    ClaudeCode,
    /// OpenAI function calling (Chat Completions, Responses), as MCP hosts on it send tools.
    OpenAi,
    /// OpenAI function calling with `strict: true` (Structured Outputs).
    OpenAiStrict,
    /// Google Gemini function calling (Gemini API, Vertex AI, hosts built on them).
    Gemini,
    /// OpenAI Codex (CLI, IDE extension).
    Codex,
    /// VS Code's Copilot chat and the Copilot CLI.
    VsCodeCopilot,
}

impl Host {
    /// Every host with a rule set, in the order findings and tables list them (the
    /// [`Host::Claude`] group is not one of them: its members are).
    pub const ALL: &'static [Host] = &[
        Host::Mcp,
        Host::ClaudeApi,
        Host::ClaudeDesktop,
        Host::ClaudeCode,
        Host::OpenAi,
        Host::OpenAiStrict,
        Host::Gemini,
        Host::Codex,
        Host::VsCodeCopilot,
    ];

    /// Every host one `tools/list` can satisfy at once: [`Host::ALL`] but
    /// [`Host::OpenAiStrict`]. Strict mode wants every property `required` (an optional one
    /// nullable through a `type` list or an `anyOf` with `null`), Gemini one `type` per
    /// schema and Codex no `anyOf`: a tool with an optional argument can meet strict mode
    /// or those hosts, never both. mcp-result serves the portable profile (an optional
    /// argument is simply not `required`); lint strict mode by naming it.
    pub const PORTABLE: &'static [Host] = &[
        Host::Mcp,
        Host::ClaudeApi,
        Host::ClaudeDesktop,
        Host::ClaudeCode,
        Host::OpenAi,
        Host::Gemini,
        Host::Codex,
        Host::VsCodeCopilot,
    ];

    /// The host's short name, as findings serialize it and [`Host::from_str`] reads it:
    /// `mcp`, `claude`, `claude-api`, `claude-desktop`, `claude-code`, `openai`,
    /// `openai-strict`, `gemini`, `codex`, `vscode-copilot`.
    pub fn name(self) -> &'static str {
        match self {
            Host::Mcp => "mcp",
            Host::Claude => "claude",
            Host::ClaudeApi => "claude-api",
            Host::ClaudeDesktop => "claude-desktop",
            Host::ClaudeCode => "claude-code",
            Host::OpenAi => "openai",
            Host::OpenAiStrict => "openai-strict",
            Host::Gemini => "gemini",
            Host::Codex => "codex",
            Host::VsCodeCopilot => "vscode-copilot",
        }
    }

    /// The host's name for people: `MCP spec`, `Claude Desktop`, `VS Code / Copilot`, ...
    pub fn title(self) -> &'static str {
        match self {
            Host::Mcp => "MCP spec",
            Host::Claude => "Claude",
            Host::ClaudeApi => "Claude API",
            Host::ClaudeDesktop => "Claude Desktop",
            Host::ClaudeCode => "Claude Code",
            Host::OpenAi => "OpenAI",
            Host::OpenAiStrict => "OpenAI strict mode",
            Host::Gemini => "Gemini",
            Host::Codex => "Codex",
            Host::VsCodeCopilot => "VS Code / Copilot",
        }
    }

    /// The hosts this one stands for: the three Claude hosts for [`Host::Claude`], else
    /// itself.
    pub fn members(self) -> &'static [Host] {
        match self {
            Host::Claude => &[Host::ClaudeApi, Host::ClaudeDesktop, Host::ClaudeCode],
            host => Host::ALL
                .iter()
                .position(|h| *h == host)
                .map_or(&[], |i| &Host::ALL[i..=i]),
        }
    }

    /// The rules that apply to this host (to its members, for a group).
    pub fn rules(self) -> impl Iterator<Item = &'static Rule> {
        RULES
            .iter()
            .filter(move |rule| self.members().iter().any(|m| rule.hosts.contains(m)))
    }
}

impl fmt::Display for Host {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown host name (see [`Host::name`] for the known ones).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownHost(pub String);

impl fmt::Display for UnknownHost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = std::iter::once(Host::Claude)
            .chain(Host::ALL.iter().copied())
            .map(Host::name)
            .collect();
        write!(
            f,
            "unknown host `{}`: expected one of {}",
            self.0,
            names.join(", ")
        )
    }
}

impl std::error::Error for UnknownHost {}

impl FromStr for Host {
    type Err = UnknownHost;

    /// Reads a [`Host::name`] (ASCII case-insensitive).
    fn from_str(name: &str) -> Result<Self, Self::Err> {
        std::iter::once(Host::Claude)
            .chain(Host::ALL.iter().copied())
            .find(|host| host.name().eq_ignore_ascii_case(name))
            .ok_or_else(|| UnknownHost(name.to_owned()))
    }
}

impl Serialize for Host {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Host {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

/// One way a listed tool breaks one rule of one host.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The tool's name (`tools[i]` for a tool without a string name; empty for a finding
    /// about the whole payload).
    pub tool: String,
    /// A JSON Pointer into the tool object (`/name`, `/inputSchema/properties/limit/type`);
    /// empty for a finding about the whole payload.
    pub pointer: String,
    /// The rule's id ([`Rule::id`]).
    pub rule: &'static str,
    /// The host whose rule it is.
    pub host: Host,
    /// What is wrong there, and what the host requires.
    pub message: String,
    /// How to fix it ([`Rule::fix`]).
    pub fix: &'static str,
    /// Where the rule is documented or was observed ([`Rule::source`]).
    pub source: &'static str,
}

/// The findings of `hosts` (groups expanded) for the tools of one server, in order: by
/// tool, then rule ([`RULES`] order), then place, then host ([`Host::ALL`] order).
pub fn lint(tools: &[Tool], hosts: &[Host]) -> Vec<Finding> {
    let values: Vec<Value> = tools
        .iter()
        .map(|tool| serde_json::to_value(tool).unwrap_or(Value::Null))
        .collect();
    lint_tools(&values, &expand(hosts))
}

/// [`lint`] for a raw payload from any MCP server: a `tools/list` result
/// (`{"tools": [...]}`), a JSON-RPC response carrying one (`{"result": {"tools": [...]}}`),
/// or the array of tools itself. Anything else is one `tools-list` finding per host.
pub fn lint_json(tools: &Value, hosts: &[Host]) -> Vec<Finding> {
    let hosts = expand(hosts);
    let list = match tools {
        Value::Array(list) => Some(list),
        Value::Object(object) => object
            .get("tools")
            .or_else(|| object.get("result").and_then(|r| r.get("tools")))
            .and_then(Value::as_array),
        _ => None,
    };
    match list {
        Some(list) => lint_tools(list, &hosts),
        None => {
            let rule = rule_of(Check::ToolsList);
            findings_for(rule, &hosts, String::new(), String::new(), || {
                "the payload has no `tools` array".to_owned()
            })
        }
    }
}

/// Panics with a table of every finding of `hosts` for `tools`; returns when there is none.
/// For a server's own tests:
///
/// ```
/// # use std::sync::Arc;
/// use mcp_result_core::lint::{assert_portable, Host};
/// # use mcp_result_core::{rmcp::model::Tool, schema::empty_input_schema};
/// # let tools = vec![Tool::new("search_tickets", "Search tickets.", empty_input_schema())];
/// assert_portable(&tools, &[Host::Claude, Host::Gemini]);
/// ```
///
/// # Panics
/// When a tool breaks a rule of one of `hosts`.
#[track_caller]
pub fn assert_portable(tools: &[Tool], hosts: &[Host]) {
    let findings = lint(tools, hosts);
    if !findings.is_empty() {
        let names: Vec<&str> = expand(hosts).iter().map(|h| h.title()).collect();
        panic!(
            "{} host finding(s) for {}:\n\n{}",
            findings.len(),
            names.join(", "),
            table(&findings)
        );
    }
}

/// The findings as a plain-text table for people: one row per finding (tool, host, rule,
/// place), each followed by what is wrong, the fix and the source.
pub fn table(findings: &[Finding]) -> String {
    let header = ["tool", "host", "rule", "at"];
    let rows: Vec<[&str; 4]> = findings
        .iter()
        .map(|f| [f.tool.as_str(), f.host.name(), f.rule, f.pointer.as_str()])
        .collect();
    let mut widths = header.map(str::len);
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let line = |cells: [&str; 4]| {
        let mut text = String::new();
        for (i, (cell, width)) in cells.iter().zip(widths).enumerate() {
            if i + 1 == cells.len() {
                text.push_str(cell);
            } else {
                text.push_str(&format!("{cell:width$}  "));
            }
        }
        text.trim_end().to_owned()
    };
    let mut out = line(header);
    out.push('\n');
    for (row, finding) in rows.iter().zip(findings) {
        out.push_str(&line(*row));
        out.push('\n');
        out.push_str(&format!(
            "    {}\n    fix: {}\n    source: {}\n",
            finding.message, finding.fix, finding.source
        ));
    }
    out
}

/// `hosts` with groups replaced by their members, deduplicated, in [`Host::ALL`] order.
fn expand(hosts: &[Host]) -> Vec<Host> {
    Host::ALL
        .iter()
        .copied()
        .filter(|host| hosts.iter().any(|h| h.members().contains(host)))
        .collect()
}

fn rule_of(check: Check) -> &'static Rule {
    RULES
        .iter()
        .find(|rule| rule.check == check)
        .unwrap_or(&RULES[0])
}

fn lint_tools(list: &[Value], hosts: &[Host]) -> Vec<Finding> {
    let mut findings = Vec::new();
    let mut earlier: Vec<&str> = Vec::new();
    for (index, tool) in list.iter().enumerate() {
        let name = match tool.get("name").and_then(Value::as_str) {
            Some(name) => name.to_owned(),
            None => format!("tools[{index}]"),
        };
        if !tool.is_object() {
            let rule = rule_of(Check::ToolsList);
            findings.extend(findings_for(rule, hosts, name, String::new(), || {
                format!("`tools[{index}]` is not a tool object")
            }));
            continue;
        }
        for rule in RULES {
            if !hosts.iter().any(|h| rule.hosts.contains(h)) {
                continue;
            }
            for hit in check::hits(rule.check, tool, &earlier) {
                let message = format!("{}: {}", hit.problem, rule.requires);
                findings.extend(findings_for(rule, hosts, name.clone(), hit.pointer, || {
                    message.clone()
                }));
            }
        }
        if let Some(name) = tool.get("name").and_then(Value::as_str) {
            earlier.push(name);
        }
    }
    findings
}

fn findings_for(
    rule: &'static Rule,
    hosts: &[Host],
    tool: String,
    pointer: String,
    message: impl Fn() -> String,
) -> Vec<Finding> {
    hosts
        .iter()
        .filter(|host| rule.hosts.contains(host))
        .map(|&host| Finding {
            tool: tool.clone(),
            pointer: pointer.clone(),
            rule: rule.id,
            host,
            message: message(),
            fix: rule.fix,
            source: rule.source,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn every_rule_has_hosts_a_source_and_a_unique_id() {
        for (i, rule) in RULES.iter().enumerate() {
            assert!(!rule.hosts.is_empty(), "{}", rule.id);
            assert!(!rule.hosts.contains(&Host::Claude), "{}", rule.id);
            assert!(rule.source.starts_with("https://"), "{}", rule.id);
            assert!(RULES[..i].iter().all(|r| r.id != rule.id), "{}", rule.id);
        }
        assert!(Host::PORTABLE
            .iter()
            .all(|h| Host::ALL.contains(h) && *h != Host::OpenAiStrict));
        assert_eq!(Host::PORTABLE.len() + 1, Host::ALL.len());
        for host in Host::ALL {
            assert!(host.rules().count() > 0, "{host}");
            assert_eq!(host.name().parse::<Host>().unwrap(), *host);
        }
        assert_eq!("claude".parse::<Host>().unwrap().members().len(), 3);
        assert!("claud".parse::<Host>().is_err());
    }

    #[test]
    fn the_claude_group_reports_its_members() {
        let tools = json!([{"name": "a.b", "description": "x", "inputSchema": {"type": "object"}}]);
        let hosts: Vec<Host> = lint_json(&tools, &[Host::Claude, Host::ClaudeCode])
            .iter()
            .map(|f| f.host)
            .collect();
        assert_eq!(
            hosts,
            [Host::ClaudeApi, Host::ClaudeDesktop, Host::ClaudeCode]
        );
    }

    #[test]
    fn a_payload_without_tools_is_one_finding_per_host() {
        let findings = lint_json(&json!({"result": {}}), &[Host::Mcp, Host::Gemini]);
        assert_eq!(findings.len(), 2);
        assert!(findings.iter().all(|f| f.rule == "tools-list"));
    }

    #[test]
    fn booleans_are_schemas_except_as_additional_properties() {
        let tools = json!([{"name": "t", "description": "x", "inputSchema": {
            "type": "object", "additionalProperties": false,
            "properties": {"any": true, "list": {"type": "array", "items": true}}}}]);
        let pointers: Vec<String> = lint_json(&tools, &[Host::Gemini])
            .into_iter()
            .map(|f| f.pointer)
            .collect();
        assert_eq!(
            pointers,
            [
                "/inputSchema/properties/any",
                "/inputSchema/properties/list/items"
            ]
        );
    }
}
