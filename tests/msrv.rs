//! `rust-version` is true: it equals the highest `rust-version` that any normal (non-dev)
//! dependency of the workspace declares under all features, read from the lockfile's
//! resolution by `cargo metadata`. No other toolchain can be installed on this project's
//! machines, so the MSRV is derived, not tried; `clippy::incompatible_msrv` (run by
//! `.ci/run`) checks our own code against it.

use std::{collections::HashSet, process::Command};

use serde_json::Value;

fn version(text: &str) -> Vec<u64> {
    let mut parts: Vec<u64> = text.split('.').map(|p| p.parse().unwrap_or(0)).collect();
    parts.resize(3, 0);
    parts
}

#[test]
fn rust_version_is_the_highest_of_the_normal_dependencies() {
    let output = Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--all-features",
            "--locked",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo metadata runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: Value = serde_json::from_slice(&output.stdout).unwrap();
    let packages = metadata["packages"].as_array().unwrap();
    let package = |id: &str| packages.iter().find(|p| p["id"] == id).unwrap();
    let members: HashSet<&str> = metadata["workspace_members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    let nodes = metadata["resolve"]["nodes"].as_array().unwrap();
    let node = |id: &str| nodes.iter().find(|n| n["id"] == id).unwrap();
    let mut seen = HashSet::new();
    let mut stack: Vec<&str> = members.iter().copied().collect();
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        for dep in node(id)["deps"].as_array().unwrap() {
            let normal = dep["dep_kinds"]
                .as_array()
                .unwrap()
                .iter()
                .any(|kind| kind["kind"].is_null() || kind["kind"] == "build");
            if normal {
                stack.push(dep["pkg"].as_str().unwrap());
            }
        }
    }
    let (highest, by) = seen
        .iter()
        .filter(|id| !members.contains(*id))
        .filter_map(|id| {
            let package = package(id);
            let rust_version = package["rust_version"].as_str()?;
            Some((version(rust_version), package["name"].as_str().unwrap()))
        })
        .max()
        .unwrap();
    let ours: Vec<&str> = members
        .iter()
        .map(|id| package(id)["rust_version"].as_str().unwrap())
        .collect();
    for declared in ours {
        assert_eq!(
            version(declared),
            highest,
            "workspace rust-version {declared} must be {highest:?}, the highest of the normal \
             dependencies (set by `{by}`)"
        );
    }
}
