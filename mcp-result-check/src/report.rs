//! What the check found: a table for people, JSON for CI, and a progress line on a
//! terminal.

use std::io::{IsTerminal, Write};

use mcp_result::{
    lint::Host,
    serde_json::{json, Value},
};

use crate::checks::{Finding, Severity};

pub struct Report {
    /// The command or URL checked.
    pub target: String,
    pub server_name: String,
    pub server_version: String,
    pub protocol: String,
    pub hosts: Vec<Host>,
    pub tools: Vec<ToolRow>,
    pub findings: Vec<Finding>,
    /// Findings of the checks `--allow` names: they do not fail the run.
    pub allowed: Vec<Finding>,
}

pub struct ToolRow {
    pub name: String,
    pub write: bool,
    pub calls: Calls,
}

/// What came of calling a tool: its `status` in the JSON report (`called`, `blocked`,
/// `not-called`), and in the table an `ok` row (called, no findings), a `blocked` row or a
/// `skipped` one.
pub enum Calls {
    /// Called with sample (`true`) or generated arguments, and with bad arguments if any
    /// could be made.
    Called { sample: bool, bad_arguments: bool },
    /// Called as [`Calls::Called`], and the call with sample or generated arguments was
    /// answered `blocked`: an `isError` result whose `structuredContent.status` is
    /// `"blocked"` (mcp-result's `Status::Blocked`: a policy, or a human approval it waits
    /// for, refused it and nothing ran). Its answers were checked; no result of a run was.
    /// Not a finding (a gated write is correct), and never `ok`.
    Blocked {
        sample: bool,
        bad_arguments: bool,
        refusal: Refusal,
    },
    /// Not called, and why.
    NotCalled(String),
}

/// What a `blocked` answer says (mcp-result's error envelope: `reason`, and for a write
/// waiting for a human approval `approvalRequestId`, with `requiresHumanReview: true`).
pub struct Refusal {
    pub approval_request_id: Option<String>,
    pub reason: Option<String>,
}

impl Calls {
    /// The `status` of the tool's row in the JSON report.
    pub fn status(&self) -> &'static str {
        match self {
            Calls::Called { .. } => "called",
            Calls::Blocked { .. } => "blocked",
            Calls::NotCalled(_) => "not-called",
        }
    }

    /// A `tools/call` with sample or generated arguments was sent and answered (a blocked
    /// call too: the server answered it, and the answer was checked).
    pub fn called(&self) -> bool {
        !matches!(self, Calls::NotCalled(_))
    }

    /// Why a blocked call ran nothing, e.g. ``the call with sample arguments was answered
    /// `blocked` (reason: requires human approval), approvalRequestId `0193…`: nothing ran,
    /// so no result of a run was checked``; `None` unless [`Calls::Blocked`].
    pub fn not_run(&self) -> Option<String> {
        let Calls::Blocked {
            sample, refusal, ..
        } = self
        else {
            return None;
        };
        let with = if *sample { "sample" } else { "generated" };
        let mut why = format!("the call with {with} arguments was answered `blocked`");
        if let Some(reason) = &refusal.reason {
            why.push_str(&format!(" (reason: {reason})"));
        }
        if let Some(id) = &refusal.approval_request_id {
            why.push_str(&format!(", approvalRequestId `{id}`"));
        }
        why.push_str(": nothing ran, so no result of a run was checked");
        Some(why)
    }
}

impl Report {
    /// Findings about the server first, then each tool's in listed order, duplicates
    /// (same tool, check and place) dropped.
    pub fn settle(&mut self) {
        let order = |tool: &str| {
            if tool.is_empty() {
                0
            } else {
                self.tools
                    .iter()
                    .position(|t| t.name == tool)
                    .map_or(usize::MAX, |i| i + 1)
            }
        };
        let mut keyed: Vec<(usize, Finding)> = self
            .findings
            .drain(..)
            .map(|f| (order(&f.tool), f))
            .collect();
        keyed.sort_by_key(|(i, _)| *i);
        let mut kept: Vec<Finding> = Vec::new();
        for (_, finding) in keyed {
            let duplicate = kept.iter().any(|k| {
                k.tool == finding.tool && k.check == finding.check && k.pointer == finding.pointer
            });
            if !duplicate {
                kept.push(finding);
            }
        }
        self.findings = kept;
    }

    /// The tools called (blocked ones included).
    fn called(&self) -> usize {
        self.tools.iter().filter(|t| t.calls.called()).count()
    }

    /// The tools whose call was answered `blocked`.
    fn blocked(&self) -> usize {
        self.tools
            .iter()
            .filter(|t| matches!(t.calls, Calls::Blocked { .. }))
            .count()
    }

    fn count(&self, severity: Severity) -> usize {
        self.findings
            .iter()
            .filter(|f| f.severity == severity)
            .count()
    }

    pub fn to_json(&self) -> Value {
        let tools: Vec<Value> = self
            .tools
            .iter()
            .map(|t| {
                let mut row = json!({
                    "name": t.name,
                    "readOnly": !t.write,
                    "status": t.calls.status(),
                    "called": t.calls.called(),
                });
                match &t.calls {
                    Calls::Called {
                        sample,
                        bad_arguments,
                    }
                    | Calls::Blocked {
                        sample,
                        bad_arguments,
                        ..
                    } => {
                        row["arguments"] = json!(if *sample { "sample" } else { "generated" });
                        row["badArguments"] = json!(bad_arguments);
                    }
                    Calls::NotCalled(why) => row["notCalled"] = json!(why),
                }
                if let Calls::Blocked { refusal, .. } = &t.calls {
                    if let Some(id) = &refusal.approval_request_id {
                        row["approvalRequestId"] = json!(id);
                    }
                }
                if let Some(why) = t.calls.not_run() {
                    row["notRun"] = json!(why);
                }
                row
            })
            .collect();
        json!({
            "target": self.target,
            "server": {"name": self.server_name, "version": self.server_version,
                       "protocolVersion": self.protocol},
            "hosts": self.hosts.iter().map(|h| h.name()).collect::<Vec<_>>(),
            "tools": tools,
            "findings": self.findings.iter().map(Finding::to_json).collect::<Vec<_>>(),
            "summary": {
                "tools": self.tools.len(),
                "called": self.called(),
                "blocked": self.blocked(),
                "errors": self.count(Severity::Error),
                "warnings": self.count(Severity::Warning),
                "allowed": self.allowed.len(),
            },
            "allowed": self.allowed.iter().map(Finding::to_json).collect::<Vec<_>>()
        })
    }

    /// One row per finding (with its fix below), per tool called without findings an `ok`
    /// row, per tool whose call was answered `blocked` a `blocked` row (`not run: ...`, with
    /// its approvalRequestId; never `ok`), per tool not called a `skipped` row; a summary
    /// line last.
    pub fn table(&self) -> String {
        let mut rows: Vec<[String; 4]> = Vec::new();
        let finding_rows = |tool: &str, shown: &str, rows: &mut Vec<[String; 4]>| {
            let mut any = false;
            for f in self.findings.iter().filter(|f| f.tool == tool) {
                any = true;
                let result = match f.severity {
                    Severity::Error => "FAIL",
                    Severity::Warning => "WARN",
                };
                let mut detail = f.message.clone();
                if !f.pointer.is_empty() {
                    detail.push_str(&format!(" [at {}]", f.pointer));
                }
                if let Some(call) = f.call {
                    detail.push_str(&format!(" [call: {}]", call.name()));
                }
                if !f.hosts.is_empty() {
                    let hosts: Vec<&str> = f.hosts.iter().map(|h| h.name()).collect();
                    detail.push_str(&format!(" [hosts: {}]", hosts.join(", ")));
                }
                rows.push([shown.into(), f.check.clone(), result.into(), detail]);
                rows.push([
                    String::new(),
                    String::new(),
                    String::new(),
                    format!("fix: {}", f.fix),
                ]);
            }
            any
        };
        finding_rows("", "(server)", &mut rows);
        for tool in &self.tools {
            let any = finding_rows(&tool.name, &tool.name, &mut rows);
            match &tool.calls {
                Calls::NotCalled(why) => rows.push([
                    tool.name.clone(),
                    "calls".into(),
                    "skipped".into(),
                    format!("not called: {why}"),
                ]),
                Calls::Called {
                    sample,
                    bad_arguments,
                } if !any => {
                    let with = if *sample { "sample" } else { "generated" };
                    let bad = if *bad_arguments {
                        " and with bad arguments"
                    } else {
                        ""
                    };
                    rows.push([
                        tool.name.clone(),
                        "all".into(),
                        "ok".into(),
                        format!("listed and called with {with} arguments{bad}: no findings"),
                    ]);
                }
                Calls::Called { .. } => {}
                Calls::Blocked { .. } => rows.push([
                    tool.name.clone(),
                    "calls".into(),
                    "blocked".into(),
                    format!("not run: {}", tool.calls.not_run().unwrap_or_default()),
                ]),
            }
        }
        let header = ["tool", "check", "result", "detail"].map(String::from);
        let mut widths = [0usize; 3];
        for row in std::iter::once(&header).chain(&rows) {
            for (width, cell) in widths.iter_mut().zip(row) {
                *width = (*width).max(cell.chars().count());
            }
        }
        let mut out = String::new();
        for row in std::iter::once(&header).chain(&rows) {
            let line = format!(
                "{:w0$}  {:w1$}  {:w2$}  {}",
                row[0],
                row[1],
                row[2],
                row[3],
                w0 = widths[0],
                w1 = widths[1],
                w2 = widths[2]
            );
            out.push_str(line.trim_end());
            out.push('\n');
        }
        let called = match self.blocked() {
            0 => format!("{} called", self.called()),
            blocked => format!("{} called ({blocked} blocked: not run)", self.called()),
        };
        let hosts: Vec<&str> = self.hosts.iter().map(|h| h.name()).collect();
        if !self.allowed.is_empty() {
            let mut checks: Vec<&str> = self.allowed.iter().map(|f| f.check.as_str()).collect();
            checks.dedup();
            out.push_str(&format!(
                "\nallowed (--allow): {} findings of {}\n",
                self.allowed.len(),
                checks.join(", ")
            ));
        }
        out.push_str(&format!(
            "\n{} {} (protocol {}): {} tools, {}; hosts: {}\n{} errors, {} warnings\n",
            self.server_name,
            self.server_version,
            self.protocol,
            self.tools.len(),
            called,
            hosts.join(", "),
            self.count(Severity::Error),
            self.count(Severity::Warning),
        ));
        out
    }
}

/// A one-line progress display on stderr, only when stderr is a terminal.
pub struct Progress {
    enabled: bool,
}

impl Progress {
    pub fn new() -> Self {
        Progress {
            enabled: std::io::stderr().is_terminal(),
        }
    }

    pub fn say(&self, text: &str) {
        if self.enabled {
            let mut stderr = std::io::stderr().lock();
            let _ = write!(stderr, "\r\x1b[2K{text}");
            let _ = stderr.flush();
        }
    }

    pub fn clear(&self) {
        self.say("");
    }
}
