//! README.md's quickstart is true: its `Cargo.toml` and `src/main.rs`, copied into a fresh
//! crate, build offline from this workspace's lockfile (with `mcp-result` pointed at this
//! checkout) and serve over stdio: rmcp's client sees the `tools` capability, the server
//! named after the crate, the tool, and both of its outcomes. So is the middle step of the
//! guide's migration chapter (`docs/guide/18-migration.md`), with the `rmcp-macros` feature
//! and no `rmcp` dependency of its own. (Every other `rust` block of README.md and of the
//! guide's chapters is compiled as a doctest of the `mcp-result` crate, which includes them
//! as its crate docs and the modules of `mcp_result::guide`.)

use std::{path::PathBuf, process::Command};

use mcp_result::rmcp::{model::CallToolRequestParams, transport::TokioChildProcess, ServiceExt};
use serde_json::json;

/// The first fenced block with `info` after `heading` in `doc` (Markdown).
fn block<'a>(doc: &'a str, heading: &str, info: &str) -> &'a str {
    let from = doc.find(heading).expect("heading in the document");
    let fence = format!("```{info}\n");
    let start = doc[from..].find(&fence).expect("block after the heading") + from + fence.len();
    let end = doc[start..].find("\n```").expect("closed block") + start;
    &doc[start..=end]
}

/// The host triple of this toolchain (`rustc -vV`'s `host:`), which trybuild passes as
/// `--target` (its builds go to `target/tests/trybuild/<triple>/`) and names in
/// `target.<triple>.rustflags`.
fn host_triple() -> String {
    let rustc = std::env::var_os("RUSTC").unwrap_or("rustc".into());
    let out = Command::new(rustc).arg("-vV").output().expect("rustc runs");
    let text = String::from_utf8(out.stdout).expect("rustc -vV is UTF-8");
    text.lines()
        .find_map(|line| line.strip_prefix("host: "))
        .expect("rustc -vV names its host")
        .to_owned()
}

/// Builds `main` as `src/main.rs` of a fresh crate with `manifest` (its `mcp-result = "0.1"`
/// or `version = "0.1"` pointed at this checkout) under `target/tests/<dir>`, offline from
/// this workspace's lockfile, and returns the binary.
pub(crate) fn build_fresh_crate(dir: &str, manifest: &str, main: &str, binary: &str) -> PathBuf {
    let workspace = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    // Shares trybuild's target directory: built crates are reused, and the build does not
    // wait on the lock of the target directory this test runs from.
    let target = workspace.join("target/tests/trybuild");
    let dir = workspace.join("target/tests").join(dir);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let path = format!("path = {:?}", workspace.display().to_string());
    let manifest = manifest
        .replace(
            "mcp-result = \"0.1\"",
            &format!("mcp-result = {{ {path} }}"),
        )
        .replace(
            "mcp-result = { version = \"0.1\"",
            &format!("mcp-result = {{ {path}"),
        );
    // Its own workspace root: it lives under this workspace's directory.
    std::fs::write(dir.join("Cargo.toml"), format!("{manifest}\n[workspace]\n")).unwrap();
    std::fs::write(dir.join("src/main.rs"), main).unwrap();
    std::fs::copy(workspace.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    // trybuild's own flags (`--cfg trybuild`, ...), its `--target`, and no incremental state,
    // so the crates the compile-fail suite (`ui/`: default features and `client`) built there
    // are reused, not built a second time.
    let triple = host_triple();
    let rustflags = r#"["--cfg", "trybuild", "--verbose", "-A", "dead_code"]"#;
    let build = Command::new(env!("CARGO"))
        .args(["build", "--offline", "--quiet", "--target", &triple])
        .arg(format!("--config=build.rustflags={rustflags}"))
        .arg(format!("--config=target.{triple}.rustflags={rustflags}"))
        .current_dir(&dir)
        .env("CARGO_TARGET_DIR", &target)
        .env("CARGO_INCREMENTAL", "0")
        .env_remove("RUSTFLAGS")
        .output()
        .expect("cargo runs");
    assert!(
        build.status.success(),
        "{} does not build:\n{}",
        dir.display(),
        String::from_utf8_lossy(&build.stderr)
    );
    target.join(&triple).join("debug").join(binary)
}

#[tokio::test]
async fn the_quickstart_builds_from_a_fresh_crate_and_serves_over_stdio() {
    let workspace = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(workspace.join("README.md")).unwrap();
    let manifest = block(&readme, "## Quickstart", "toml");
    let main = block(&readme, "## Quickstart", "rust,no_run");
    assert!(manifest.contains("mcp-result = \"0.1\""), "{manifest}");
    let binary = build_fresh_crate("readme-quickstart", manifest, main, "desk");
    let client =
        ().serve(TokioChildProcess::new(tokio::process::Command::new(binary)).unwrap())
            .await
            .expect("initialize over stdio");
    let info = client.peer_info().expect("initialize result");
    assert!(info.capabilities.tools.is_some(), "{info:?}");
    let server = info.server_info.as_ref().expect("serverInfo");
    assert_eq!(
        (server.name.as_str(), server.version.as_str()),
        ("desk", "0.1.0")
    );
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0].name, "search_tickets");
    let call = |query: &str| {
        CallToolRequestParams::new("search_tickets")
            .with_arguments(json!({"query": query}).as_object().unwrap().clone())
    };
    let found = client.call_tool(call("printer")).await.unwrap();
    assert_eq!(found.is_error, Some(false));
    // The two text blocks as the README shows them: with the default features, the compat
    // text's keys are sorted.
    let texts: Vec<&str> = found
        .content
        .iter()
        .filter_map(|block| Some(block.as_text()?.text.as_str()))
        .collect();
    assert_eq!(
        texts,
        [
            "Found 0 findings; highest severity none",
            r#"{"highestSeverity":null,"ids":[],"total":0}"#
        ]
    );
    assert_eq!(
        found.structured_content.unwrap(),
        json!({"total": 0, "highestSeverity": null, "ids": []})
    );
    let empty = client.call_tool(call("")).await.unwrap();
    assert_eq!(empty.is_error, Some(true));
    let envelope = empty.structured_content.unwrap();
    assert_eq!(envelope["errorKind"], "validation_error", "{envelope}");
    assert_eq!(
        envelope["fieldErrors"],
        json!([{"pointer": "/query", "message": "give at least one word"}])
    );
    client.cancel().await.unwrap();
}

/// The migration guide's middle step (two tools moved, one still rmcp's) builds with
/// mcp-result's `rmcp-macros` feature and no `rmcp` dependency of its own, and serves the
/// three tools from both routers over stdio.
#[tokio::test]
async fn the_migration_guide_halfway_builds_with_rmcp_macros_alone_and_serves_all_three() {
    let workspace = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let chapter = std::fs::read_to_string(workspace.join("docs/guide/18-migration.md")).unwrap();
    let dependencies = block(&chapter, "## Two tools moved", "toml");
    let main = block(&chapter, "## Two tools moved", "rust,no_run");
    assert!(
        dependencies.contains("features = [\"rmcp-macros\"]"),
        "{dependencies}"
    );
    assert!(!dependencies.contains("rmcp ="), "{dependencies}");
    assert!(main.contains("#[mcp_handler(rmcp_router)]"), "{main}");
    let manifest = format!(
        "[package]\nname = \"desk-halfway\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
         {dependencies}"
    );
    let binary = build_fresh_crate("readme-migration", &manifest, main, "desk-halfway");

    let client =
        ().serve(TokioChildProcess::new(tokio::process::Command::new(binary)).unwrap())
            .await
            .expect("initialize over stdio");
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    assert_eq!(names, ["search_tickets", "get_ticket", "add_note"]);
    let call = |name: &str, arguments: serde_json::Value| {
        CallToolRequestParams::new(name.to_owned())
            .with_arguments(arguments.as_object().unwrap().clone())
    };
    let found = client
        .call_tool(call("search_tickets", json!({"query": "printer"})))
        .await
        .unwrap();
    assert_eq!(
        found.structured_content.unwrap(),
        json!({"total": 0, "ids": []})
    );
    let missing = client
        .call_tool(call("get_ticket", json!({"id": "T-9"})))
        .await
        .unwrap();
    assert_eq!(
        missing.structured_content.unwrap()["errorKind"],
        "not_found"
    );
    // Still rmcp's: a plain text result, no structuredContent.
    let note = client
        .call_tool(call(
            "add_note",
            json!({"ticket_id": "T-1", "body": "Tried"}),
        ))
        .await
        .unwrap();
    assert_eq!(note.structured_content, None);
    assert_eq!(
        note.content[0].as_text().unwrap().text,
        "Added a note to T-1."
    );
    client.cancel().await.unwrap();
}
