//! Compile-time rules, proven by trybuild: each `tests/ui/<area>/<failure>.rs` must fail to
//! compile with exactly the reviewed `.stderr` beside it; `tests/ui/pass/*.rs` must compile.
//!
//! The `.stderr` files were produced by rustc 1.95 (the toolchain of this project's
//! machines and CI); rustc's wording changes between releases. Regenerate with
//! `TRYBUILD=overwrite cargo test --test ui` and review the diff.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/result/*.rs");
    t.compile_fail("tests/ui/tool/*.rs");
    t.compile_fail("tests/ui/write/*.rs");
    t.compile_fail("tests/ui/secret/*.rs");
    t.compile_fail("tests/ui/surface/*.rs");
    t.compile_fail("tests/ui/pagination/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
