//! Compile-time rules, proven by trybuild: each `tests/ui/<area>/<failure>.rs` must fail to
//! compile with exactly the reviewed `.stderr` beside it; `tests/ui/pass/*.rs` must compile.
//!
//! The `.stderr` files are pinned to the toolchain in `rust-toolchain.toml`'s absence: the
//! machine's stable rustc (1.95). Regenerate with `TRYBUILD=overwrite cargo test --test ui`
//! and review the diff.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/result/*.rs");
    t.compile_fail("tests/ui/tool/*.rs");
    t.compile_fail("tests/ui/write/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
