//! The memory example against the server it ports (issue 50 item 2): the MCP reference
//! memory server, npm `@modelcontextprotocol/server-memory` 2026.8.31, pinned in
//! `tests/clients/package.json` and installed with the other clients.
//!
//! `tests/clients/memory-parity.mjs` drives both over stdio with the TypeScript SDK client,
//! each on a file of its own, with one script of calls (duplicates, cascades, deletes of
//! what is not there, wrong types, missing and extra fields, an unknown tool, idempotency
//! keys, a declined delete, files written by hand and broken ones): after every write it
//! compares both graphs, at the end both files byte for byte, then starts each server on
//! the other's file. Each answer of the port must be the reference's but for the named
//! differences of `examples/memory/DIFFERENCES.md`, each checked to be exactly what it
//! says. Here: no mismatch, and the differences seen are exactly the names that file lists,
//! so a difference that goes away, or a new one, fails with the call and both answers.
//! And the port's `tools/list` is at most 1.4x the reference's bytes (both printed).

use std::{collections::BTreeSet, fs, path::Path, time::Duration};

use serde_json::Value;

use crate::common::{
    self,
    pinned::{command, install_npm, run_ok, CLIENTS_DIR},
};

/// The whole script: six pairs of servers, some 80 calls to each.
const SCRIPT_TIMEOUT: Duration = Duration::from_secs(300);
/// The reference, as pinned in `tests/clients/package.json`.
const REFERENCE: &str = "@modelcontextprotocol/server-memory 2026.8.31";
const DIFFERENCES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/examples/memory/DIFFERENCES.md"
);

/// The names of the differences the document lists: its `## `name`` headings.
fn documented() -> BTreeSet<String> {
    let text = fs::read_to_string(DIFFERENCES).expect("examples/memory/DIFFERENCES.md");
    let mut names = BTreeSet::new();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("## `") else {
            continue;
        };
        let name = rest
            .strip_suffix('`')
            .unwrap_or_else(|| panic!("DIFFERENCES.md: a heading that is no name: {line}"));
        assert!(
            !name.is_empty() && name.chars().all(|c| c.is_ascii_lowercase() || c == '-'),
            "DIFFERENCES.md: `{name}` is no short name (lower case and `-`)"
        );
        assert!(
            names.insert(name.to_owned()),
            "DIFFERENCES.md: `{name}` twice"
        );
    }
    names
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap()
}

/// One call as the report has it: where, and both answers.
fn shown(example: &Value) -> String {
    let mut out = format!("at {}", example["where"].as_str().unwrap_or("?"));
    if let Some(why) = example["why"].as_str() {
        out += &format!(": {why}");
    }
    if let Some(note) = example["note"].as_str() {
        out += &format!(" ({note})");
    }
    out += &format!(
        "\n--- the reference answered\n{}\n--- the port answered\n{}",
        pretty(&example["reference"]),
        pretty(&example["port"])
    );
    out
}

#[test]
fn the_port_answers_as_the_reference_does_but_for_its_documented_differences() {
    install_npm().unwrap_or_else(|e| panic!("{e}"));
    let reference = Path::new(CLIENTS_DIR)
        .join("node_modules/@modelcontextprotocol/server-memory/dist/index.js");
    assert!(
        reference.exists(),
        "{} is missing: the reference is pinned in tests/clients/package.json",
        reference.display()
    );
    let port = common::example_path("memory");
    let report_path = std::env::temp_dir().join(format!(
        "mcp-result-memory-parity-{}.json",
        std::process::id()
    ));
    let mut node = command(
        "node",
        &[
            "memory-parity.mjs",
            &port.to_string_lossy(),
            &report_path.to_string_lossy(),
        ],
        Path::new(CLIENTS_DIR),
    );
    // The port's audit records stay out of the output; its warnings and errors stay in.
    node.env("RUST_LOG", "warn");
    run_ok("node memory-parity.mjs", node, SCRIPT_TIMEOUT).unwrap_or_else(|e| panic!("{e}"));
    let report: Value = serde_json::from_str(&fs::read_to_string(&report_path).unwrap())
        .expect("the script's report");
    let _ = fs::remove_file(&report_path);

    assert_eq!(report["reference"], REFERENCE, "not the pinned reference");
    let bytes = &report["toolsListBytes"];
    let (theirs, ours) = (bytes["reference"].as_u64(), bytes["port"].as_u64());
    let (theirs, ours) = (theirs.unwrap(), ours.unwrap());
    let calls = |side: &str| report["calls"][side].as_u64().unwrap();
    eprintln!(
        "memory parity: tools/list result, compact JSON: reference {theirs} bytes, port {ours} \
         bytes ({:.2}x); tools/call: {} to the reference, {} to the port",
        ours as f64 / theirs as f64,
        calls("reference"),
        calls("port"),
    );
    // The contract's wire weight (issue 50 item 3): every guarantee kept (the envelope in
    // each outputSchema, the write fields, the idempotency key advertised) in at most 1.4x
    // the reference's bytes.
    assert!(
        ours * 10 <= theirs * 14,
        "the port's tools/list is {ours} bytes, {:.3}x the reference's {theirs}: over 1.4x",
        ours as f64 / theirs as f64
    );

    let mismatches = report["mismatches"].as_array().unwrap();
    assert!(
        mismatches.is_empty(),
        "{} answers of the port differ from the reference's in no documented way:\n\n{}",
        mismatches.len(),
        mismatches
            .iter()
            .map(shown)
            .collect::<Vec<_>>()
            .join("\n\n")
    );

    let observed = report["observed"].as_object().unwrap();
    let seen: BTreeSet<String> = observed.keys().cloned().collect();
    let listed = documented();
    let mut wrong: Vec<String> = (seen.difference(&listed))
        .map(|name| {
            let example = shown(&observed[name]);
            format!("seen, but examples/memory/DIFFERENCES.md does not list it: `{name}` {example}")
        })
        .collect();
    wrong.extend(listed.difference(&seen).map(|name| {
        format!(
            "listed in examples/memory/DIFFERENCES.md, but no call showed it: `{name}` (the port \
             now answers as the reference does there, or the script no longer tries it)"
        )
    }));
    assert!(
        wrong.is_empty(),
        "the differences seen are not the ones documented:\n\n{}",
        wrong.join("\n\n")
    );

    let fewest = calls("reference").min(calls("port"));
    assert!(fewest >= 30, "only {fewest} calls to a server");
}
