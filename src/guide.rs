// The guide's table of contents is `docs/guide/README.md`, its chapters `docs/guide/NN-*.md`
// (`00-tutorial.md` first: its pieces of a file are `rust,ignore`, compiled in place by
// `tests/guide_tutorial.rs`),
// each included below as the docs of a module, so every code block in them is a doctest.
//
// Links between chapters are written for GitHub, as reference links to files
// (`[Retries][04-retries]` with `[04-retries]: 04-retries.md` at the chapter's end); in
// rustdoc the same labels resolve to the modules through `guide_links.md`, put before every
// chapter: of two definitions of one label the first wins (CommonMark), so a chapter's own
// definition is overridden. A new label (a chapter, an item, an anchor) goes in both;
// `tests/links.rs` checks that they agree.
#![doc = include_str!("guide_links.md")]
#![doc = include_str!("../docs/guide/README.md")]

#[doc = include_str!("guide_links.md")]
#[doc = include_str!("../docs/guide/00-tutorial.md")]
pub mod tutorial {}

#[doc = include_str!("guide_links.md")]
#[doc = include_str!("../docs/guide/01-contract.md")]
pub mod contract {}

#[doc = include_str!("guide_links.md")]
#[doc = include_str!("../docs/guide/02-errors.md")]
pub mod errors {}

#[doc = include_str!("guide_links.md")]
#[doc = include_str!("../docs/guide/03-writes.md")]
pub mod writes {}

#[doc = include_str!("guide_links.md")]
#[doc = include_str!("../docs/guide/04-retries.md")]
pub mod retries {}

#[doc = include_str!("guide_links.md")]
#[doc = include_str!("../docs/guide/05-audit-approval.md")]
pub mod audit_approval {}

#[doc = include_str!("guide_links.md")]
#[cfg_attr(all(feature = "http", any(feature = "sqlite", feature = "postgres")), doc = include_str!("../docs/guide/06-identity-state.md"))]
#[cfg_attr(
    not(all(feature = "http", any(feature = "sqlite", feature = "postgres"))),
    doc = "# Identity and state\n\nThis chapter's examples compile with the features `http` and `sqlite` or `postgres`, which this build of the \
           docs does not have: read it in [`docs/guide/06-identity-state.md`](https://github.com/mcp-result/mcp-result/blob/main/docs/guide/06-identity-state.md) \
           (the repository), or build the docs with `--all-features` (as docs.rs does)."
)]
#[cfg_attr(
    docsrs,
    doc(cfg(all(feature = "http", any(feature = "sqlite", feature = "postgres"))))
)]
pub mod identity_state {}

#[doc = include_str!("guide_links.md")]
#[doc = include_str!("../docs/guide/07-return-types.md")]
pub mod return_types {}

#[doc = include_str!("guide_links.md")]
#[doc = include_str!("../docs/guide/08-secrets.md")]
pub mod secrets {}

#[doc = include_str!("guide_links.md")]
#[doc = include_str!("../docs/guide/09-artifacts.md")]
pub mod artifacts {}

#[doc = include_str!("guide_links.md")]
#[doc = include_str!("../docs/guide/10-paging.md")]
pub mod paging {}

#[doc = include_str!("guide_links.md")]
#[doc = include_str!("../docs/guide/11-long-tools.md")]
pub mod long_tools {}

#[doc = include_str!("guide_links.md")]
#[doc = include_str!("../docs/guide/12-clients.md")]
pub mod clients {}

#[doc = include_str!("guide_links.md")]
#[doc = include_str!("../docs/guide/13-hosts-lint.md")]
pub mod hosts_lint {}

#[doc = include_str!("guide_links.md")]
#[doc = include_str!("../docs/guide/14-check.md")]
pub mod check {}

#[doc = include_str!("guide_links.md")]
#[cfg_attr(docsrs, doc(cfg(feature = "docs")))]
#[doc = include_str!("../docs/guide/15-docs.md")]
pub mod tool_docs {}

#[doc = include_str!("guide_links.md")]
#[cfg_attr(feature = "client", doc = include_str!("../docs/guide/16-client-side.md"))]
#[cfg_attr(
    not(feature = "client"),
    doc = "# The client side\n\nThis chapter's examples compile with the feature `client`, which this build of the \
           docs does not have: read it in [`docs/guide/16-client-side.md`](https://github.com/mcp-result/mcp-result/blob/main/docs/guide/16-client-side.md) \
           (the repository), or build the docs with `--all-features` (as docs.rs does)."
)]
#[cfg_attr(docsrs, doc(cfg(feature = "client")))]
pub mod client_side {}

#[doc = include_str!("guide_links.md")]
#[cfg_attr(feature = "testing", doc = include_str!("../docs/guide/17-testing.md"))]
#[cfg_attr(
    not(feature = "testing"),
    doc = "# Testing your server\n\nThis chapter's examples compile with the feature `testing`, which this build of the \
           docs does not have: read it in [`docs/guide/17-testing.md`](https://github.com/mcp-result/mcp-result/blob/main/docs/guide/17-testing.md) \
           (the repository), or build the docs with `--all-features` (as docs.rs does)."
)]
#[cfg_attr(docsrs, doc(cfg(feature = "testing")))]
pub mod testing {}

#[doc = include_str!("guide_links.md")]
#[doc = include_str!("../docs/guide/18-migration.md")]
pub mod migration {}

#[doc = include_str!("guide_links.md")]
#[doc = include_str!("../docs/guide/19-blocks.md")]
pub mod blocks {}

#[doc = include_str!("guide_links.md")]
#[doc = include_str!("../docs/guide/20-cost.md")]
pub mod cost {}

#[doc = include_str!("guide_links.md")]
#[doc = include_str!("../docs/guide/21-state-extractors.md")]
pub mod state_extractors {}

#[doc = include_str!("guide_links.md")]
#[cfg_attr(feature = "oauth", doc = include_str!("../docs/guide/22-oauth.md"))]
#[cfg_attr(
    not(feature = "oauth"),
    doc = "# Serving behind an authorization server\n\nThis chapter's examples compile with the feature `oauth`, which this build of the \
           docs does not have: read it in [`docs/guide/22-oauth.md`](https://github.com/mcp-result/mcp-result/blob/main/docs/guide/22-oauth.md) \
           (the repository), or build the docs with `--all-features` (as docs.rs does)."
)]
#[cfg_attr(docsrs, doc(cfg(feature = "oauth")))]
pub mod oauth {}

#[doc = include_str!("guide_links.md")]
#[doc = include_str!("../docs/guide/23-beside.md")]
pub mod beside {}

#[doc = include_str!("guide_links.md")]
#[cfg_attr(feature = "elicitation", doc = include_str!("../docs/guide/24-asking.md"))]
#[cfg_attr(
    not(feature = "elicitation"),
    doc = "# Asking, logging, plain content\n\nThis chapter's examples compile with the feature `elicitation` (a default), which this build of the \
           docs does not have: read it in [`docs/guide/24-asking.md`](https://github.com/mcp-result/mcp-result/blob/main/docs/guide/24-asking.md) \
           (the repository), or build the docs with `--all-features` (as docs.rs does)."
)]
#[cfg_attr(docsrs, doc(cfg(feature = "elicitation")))]
pub mod asking {}

#[doc = include_str!("guide_links.md")]
#[doc = include_str!("../docs/guide/25-lifecycle.md")]
pub mod lifecycle {}

#[doc = include_str!("guide_links.md")]
#[doc = include_str!("../docs/guide/26-tasks.md")]
pub mod tasks {}

#[doc = include_str!("guide_links.md")]
#[doc = include_str!("../docs/guide/27-subscriptions.md")]
pub mod subscriptions {}
