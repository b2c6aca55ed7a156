//! Compile-time rules, proven by trybuild: each `tests/ui/<area>/<failure>.rs` must fail to
//! compile with exactly the reviewed `.stderr` beside it; `tests/ui/pass/*.rs` must compile.
//!
//! The `.stderr` files were produced by rustc 1.95 (the toolchain of this project's
//! machines and CI); rustc's wording changes between releases. So the test runs them only
//! on rustc 1.95 (any patch release, checked by `rustversion` when this file is compiled);
//! on any other major.minor it prints one line saying the UI tests were not run, with the
//! version they were recorded with and this one, and passes. Regenerate with
//! `TRYBUILD=overwrite cargo test -p mcp-result-ui` and review the diff.

use std::io::Write as _;

/// The rustc major.minor that recorded the `.stderr` files.
const RECORDED_WITH: &str = "1.95";

#[test]
fn ui() {
    if !rustversion::cfg!(all(since(1.95), before(1.96))) {
        // Past the test harness's capture of `eprintln!`, so it shows though the test passes.
        let _ = writeln!(
            std::io::stderr(),
            "tests/ui.rs: the UI tests were not run: their .stderr files were recorded with \
             rustc {RECORDED_WITH}, and this is rustc {}; rustc's wording changes between \
             releases (run them with rustc {RECORDED_WITH})",
            this_rustc()
        );
        return;
    }
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/result/*.rs");
    t.compile_fail("tests/ui/tool/*.rs");
    t.compile_fail("tests/ui/write/*.rs");
    t.compile_fail("tests/ui/secret/*.rs");
    t.compile_fail("tests/ui/surface/*.rs");
    t.compile_fail("tests/ui/pagination/*.rs");
    t.pass("tests/ui/pass/*.rs");
}

/// The major.minor of the `rustc` of this toolchain (`rustc --version`: `rustc 1.96.0
/// (...)`), or what says it could not be read.
fn this_rustc() -> String {
    let version = std::process::Command::new(std::env::var_os("RUSTC").unwrap_or("rustc".into()))
        .arg("--version")
        .output()
        .ok()
        .and_then(|out| String::from_utf8(out.stdout).ok());
    let major_minor = version.as_deref().and_then(|v| {
        let number = v.split_whitespace().nth(1)?;
        let mut parts = number.split(['.', '-']);
        Some(format!("{}.{}", parts.next()?, parts.next()?))
    });
    major_minor.unwrap_or_else(|| "another version (`rustc --version` could not be read)".into())
}
