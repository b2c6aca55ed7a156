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

pub enum Calls {
    /// Called with sample (`true`) or generated arguments, and with bad arguments if any
    /// could be made.
    Called { sample: bool, bad_arguments: bool },
    /// Not called, and why.
    NotCalled(String),
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
                let mut row = json!({"name": t.name, "readOnly": !t.write});
                match &t.calls {
                    Calls::Called {
                        sample,
                        bad_arguments,
                    } => {
                        row["called"] = json!(true);
                        row["arguments"] = json!(if *sample { "sample" } else { "generated" });
                        row["badArguments"] = json!(bad_arguments);
                    }
                    Calls::NotCalled(why) => {
                        row["called"] = json!(false);
                        row["notCalled"] = json!(why);
                    }
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
                "called": self.tools.iter().filter(|t| matches!(t.calls, Calls::Called { .. })).count(),
                "errors": self.count(Severity::Error),
                "warnings": self.count(Severity::Warning),
                "allowed": self.allowed.len(),
            },
            "allowed": self.allowed.iter().map(Finding::to_json).collect::<Vec<_>>()
        })
    }

    /// One row per finding (with its fix below), per tool without findings an `ok` row,
    /// per tool not called a `skipped` row; a summary line last.
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
        let called = self
            .tools
            .iter()
            .filter(|t| matches!(t.calls, Calls::Called { .. }))
            .count();
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
            "\n{} {} (protocol {}): {} tools, {} called; hosts: {}\n{} errors, {} warnings\n",
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
