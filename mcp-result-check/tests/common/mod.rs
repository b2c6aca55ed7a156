//! What this crate's tests share with the workspace's: the pinned clients of
//! `tests/clients/` and the child-process runner (`tests/common/pinned.rs` of the workspace,
//! used by the `mcp-result` crate's real-client suite too), and the examples of the
//! `mcp-result` crate, built.

#![allow(dead_code)]

use std::{path::PathBuf, process::Command, sync::Mutex};

/// The workspace root (this crate's folder is one below it).
pub const WORKSPACE_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

// `pinned.rs` names `tests/clients/` as `CARGO_MANIFEST_DIR/tests/clients`: written for the
// `mcp-result` crate, whose folder is the workspace root. Within it, `CARGO_MANIFEST_DIR`
// is the workspace root here too, so both crates install the clients in one place.
macro_rules! env {
    ("CARGO_MANIFEST_DIR") => {
        concat!(::core::env!("CARGO_MANIFEST_DIR"), "/..")
    };
}

#[path = "../../../tests/common/pinned.rs"]
pub mod pinned;

/// The examples of the `mcp-result` crate these tests run.
const EXAMPLES: [&str; 3] = ["helpdesk", "broken_server", "conformance"];

/// `examples/<name>` of the `mcp-result` crate, built.
///
/// `cargo test --workspace` builds the examples into `target/<profile>/examples/` before any
/// test runs, with the features of that run (`--all-features`: the example serves streamable
/// HTTP too). When this crate's tests run alone (`cargo test -p mcp-result-check`) and no
/// build left them there, they are built here, with the `http` feature, in the same target
/// directory. (An example built earlier is used as it is: after changing one, run the tests
/// with `--workspace` or `cargo build --example <name>` first.)
pub fn example_path(name: &str) -> PathBuf {
    assert!(EXAMPLES.contains(&name), "add `{name}` to EXAMPLES");
    static BUILD: Mutex<()> = Mutex::new(());
    let exe = std::env::current_exe().expect("test executable path");
    let profile_dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target dir");
    let path = profile_dir.join("examples").join(name);
    let _one_build_at_a_time = BUILD.lock().unwrap_or_else(|e| e.into_inner());
    if !path.exists() {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut build = Command::new(cargo);
        build
            .args(["build", "-p", "mcp-result", "--features", "http"])
            .args(EXAMPLES.iter().flat_map(|example| ["--example", example]))
            .current_dir(WORKSPACE_DIR);
        if profile_dir.file_name().is_some_and(|p| p == "release") {
            build.arg("--release");
        }
        let status = build.status().expect("run cargo build");
        assert!(
            status.success(),
            "cargo build of the examples {EXAMPLES:?}: {status}"
        );
    }
    assert!(
        path.exists(),
        "example `{name}` not built at {}",
        path.display()
    );
    path
}
