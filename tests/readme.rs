//! README.md's quickstart is true: its `Cargo.toml` and `src/main.rs`, copied into a fresh
//! crate, build offline from this workspace's lockfile (with `mcp-result` pointed at this
//! checkout) and serve over stdio: rmcp's client sees the `tools` capability, the server
//! named after the crate, the tool, and both of its outcomes. (Every other `rust` block of
//! the README is compiled as a doctest of the `mcp-result` crate, which includes README.md.)

use std::{path::PathBuf, process::Command};

use mcp_result::rmcp::{model::CallToolRequestParams, transport::TokioChildProcess, ServiceExt};
use serde_json::json;

/// The first fenced block with `info` after `heading`.
fn block<'a>(readme: &'a str, heading: &str, info: &str) -> &'a str {
    let from = readme.find(heading).expect("heading in README.md");
    let fence = format!("```{info}\n");
    let start = readme[from..].find(&fence).expect("block in README.md") + from + fence.len();
    let end = readme[start..].find("\n```").expect("closed block") + start;
    &readme[start..=end]
}

#[tokio::test]
async fn the_quickstart_builds_from_a_fresh_crate_and_serves_over_stdio() {
    let workspace = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(workspace.join("README.md")).unwrap();
    let manifest = block(&readme, "## Quickstart", "toml");
    let main = block(&readme, "## Quickstart", "rust,no_run");
    assert!(manifest.contains("mcp-result = \"0.1\""), "{manifest}");

    // Shares trybuild's target directory: built crates are reused, and the build does not
    // wait on the lock of the target directory this test runs from.
    let target = workspace.join("target/tests/trybuild");
    let dir = workspace.join("target/tests/readme-quickstart");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let manifest = manifest.replace(
        "mcp-result = \"0.1\"",
        &format!(
            "mcp-result = {{ path = {:?} }}",
            workspace.display().to_string()
        ),
    );
    // Its own workspace root: it lives under this workspace's directory.
    std::fs::write(dir.join("Cargo.toml"), format!("{manifest}\n[workspace]\n")).unwrap();
    std::fs::write(dir.join("src/main.rs"), main).unwrap();
    std::fs::copy(workspace.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    let build = Command::new(env!("CARGO"))
        .args(["build", "--offline", "--quiet"])
        .current_dir(&dir)
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .expect("cargo runs");
    assert!(
        build.status.success(),
        "the quickstart does not build:\n{}",
        String::from_utf8_lossy(&build.stderr)
    );

    let binary = target.join("debug/desk");
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
    assert_eq!(
        found.structured_content.unwrap(),
        json!({"total": 0, "highestSeverity": null, "ids": []})
    );
    let empty = client.call_tool(call("")).await.unwrap();
    assert_eq!(empty.is_error, Some(true));
    assert_eq!(empty.structured_content.unwrap()["errorKind"], "not_found");
    client.cancel().await.unwrap();
}
