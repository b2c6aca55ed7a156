//! The guide: what mcp-result promises and how to use each part, one chapter a topic.
//!
//! The crate's front page is the quickstart; the keys of each macro are on the macro
//! ([`mcp_tool`](crate::mcp_tool), [`mcp_tools`](crate::mcp_tools),
//! [`mcp_handler`](crate::mcp_handler), [`ToolResult`](derive@crate::ToolResult),
//! [`Redact`](derive@crate::Redact)). The chapters are Markdown files under `docs/guide/`,
//! included here as module docs, so every code block in them is compiled (and run, unless
//! marked `no_run`) as a doctest of this crate by `cargo test --workspace --all-features`.
//!
//! | chapter | what it covers |
//! |---|---|
//! | [The contract](contract) | what every tool answers, piece by piece; the error envelope every `outputSchema` accepts |
//! | [Errors with `?`](errors) | `ToolError` and its kinds; `ResultExt` names the kind of another crate's error where it happens |
//! | [Write tools](writes) | `status`, `retrySafe` and `auditEventId` checked at compile time; `WriteReceipt` |
//! | [Retries](retries) | a write never runs twice: its own task, time limits, idempotency keys |
//! | [Audit and approval](audit_approval) | an audit record per write attempt; human approval by elicitation or out of band |
//! | [Identity and state](identity_state) | the caller from the transport, artifacts, SQLite and PostgreSQL stores, several instances (features `http`, `sqlite`/`postgres`) |
//! | [Return types](return_types) | every shape serde writes, wrapping, portable schemas, key order |
//! | [Secrets](secrets) | `Secret<T>` and `#[secret]`: no path to any output |
//! | [Artifacts and media](artifacts) | resource links, stored payloads, images, annotations, `_meta` |
//! | [Paging](paging) | `Pager` and `Page<T>`: sealed cursors, bound to the caller and the arguments |
//! | [Long tools](long_tools) | progress, cancellation, a tracing span per call |
//! | [Real clients](clients) | the released MCP clients the example is tested with |
//! | [Hosts and the lint](hosts_lint) | portable names and input schemas; what each host rejects, as data |
//! | [`mcp-result-check`](check) | the same checks for any MCP server, in any language |
//! | [Tool docs](tool_docs) | Markdown and JSON docs of every tool (feature `docs`) |
//! | [The client side](client_side) | what the model sees, what the user sees (feature `client`) |
//! | [Testing your server](testing) | `TestServer` and snapshots (feature `testing`) |
//! | [Moving an rmcp server over](migration) | tool by tool, both routers served at once |
//! | [Several blocks, generic servers](blocks) | tools in several impl blocks; generic server types |
//! | [Cost and dependencies](cost) | what the framework costs per call, per tool and at compile time |
//! | [State and extractors](state_extractors) | the state one served instance hands its calls; extractors of your own |
//! | [Beside the framework](beside) | your own prompts, resources and capabilities next to the framework's (`mcp_result::handler`) |
//! | [Asking, logging, plain content](asking) | a tool's own questions (`Ask`: input-required rounds, elicitation, sampling, roots), `Log`, `Unstructured`, `ToolError::protocol`; the official conformance suite |
//! | [The life of a call](lifecycle) | answered, timed out, cancelled, disconnected: what stops and what is recorded; the wait for a human; every bad input's answer |
//! | [Durable tasks](tasks) | `#[mcp_tool(task = ...)]`: the MCP tasks extension, tasks bound to their caller, bounded, taken over from a killed instance, fed with `tasks/update`, cancelled honestly |
//! | [Serving behind an authorization server](oauth) | OAuth 2.1: protected resource metadata, JWT and introspected tokens, scopes per tool, CORS and `Origin` (feature `oauth`) |

#[doc = include_str!("../docs/guide/01-contract.md")]
pub mod contract {}

#[doc = include_str!("../docs/guide/02-errors.md")]
pub mod errors {}

#[doc = include_str!("../docs/guide/03-writes.md")]
pub mod writes {}

#[doc = include_str!("../docs/guide/04-retries.md")]
pub mod retries {}

#[doc = include_str!("../docs/guide/05-audit-approval.md")]
pub mod audit_approval {}

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

#[doc = include_str!("../docs/guide/07-return-types.md")]
pub mod return_types {}

#[doc = include_str!("../docs/guide/08-secrets.md")]
pub mod secrets {}

#[doc = include_str!("../docs/guide/09-artifacts.md")]
pub mod artifacts {}

#[doc = include_str!("../docs/guide/10-paging.md")]
pub mod paging {}

#[doc = include_str!("../docs/guide/11-long-tools.md")]
pub mod long_tools {}

#[doc = include_str!("../docs/guide/12-clients.md")]
pub mod clients {}

#[doc = include_str!("../docs/guide/13-hosts-lint.md")]
pub mod hosts_lint {}

#[doc = include_str!("../docs/guide/14-check.md")]
pub mod check {}

#[cfg_attr(docsrs, doc(cfg(feature = "docs")))]
#[doc = include_str!("../docs/guide/15-docs.md")]
pub mod tool_docs {}

#[cfg_attr(docsrs, doc(cfg(feature = "client")))]
#[doc = include_str!("../docs/guide/16-client-side.md")]
pub mod client_side {}

#[cfg_attr(feature = "testing", doc = include_str!("../docs/guide/17-testing.md"))]
#[cfg_attr(
    not(feature = "testing"),
    doc = "# Testing your server\n\nThis chapter's examples compile with the feature `testing`, which this build of the \
           docs does not have: read it in [`docs/guide/17-testing.md`](https://github.com/mcp-result/mcp-result/blob/main/docs/guide/17-testing.md) \
           (the repository), or build the docs with `--all-features` (as docs.rs does)."
)]
#[cfg_attr(docsrs, doc(cfg(feature = "testing")))]
pub mod testing {}

#[doc = include_str!("../docs/guide/18-migration.md")]
pub mod migration {}

#[doc = include_str!("../docs/guide/19-blocks.md")]
pub mod blocks {}

#[doc = include_str!("../docs/guide/20-cost.md")]
pub mod cost {}

#[doc = include_str!("../docs/guide/21-state-extractors.md")]
pub mod state_extractors {}

#[cfg_attr(feature = "oauth", doc = include_str!("../docs/guide/22-oauth.md"))]
#[cfg_attr(
    not(feature = "oauth"),
    doc = "# Serving behind an authorization server\n\nThis chapter's examples compile with the feature `oauth`, which this build of the \
           docs does not have: read it in [`docs/guide/22-oauth.md`](https://github.com/mcp-result/mcp-result/blob/main/docs/guide/22-oauth.md) \
           (the repository), or build the docs with `--all-features` (as docs.rs does)."
)]
#[cfg_attr(docsrs, doc(cfg(feature = "oauth")))]
pub mod oauth {}

#[doc = include_str!("../docs/guide/23-beside.md")]
pub mod beside {}

#[cfg_attr(feature = "elicitation", doc = include_str!("../docs/guide/24-asking.md"))]
#[cfg_attr(
    not(feature = "elicitation"),
    doc = "# Asking, logging, plain content\n\nThis chapter's examples compile with the feature `elicitation` (a default), which this build of the \
           docs does not have: read it in [`docs/guide/24-asking.md`](https://github.com/mcp-result/mcp-result/blob/main/docs/guide/24-asking.md) \
           (the repository), or build the docs with `--all-features` (as docs.rs does)."
)]
#[cfg_attr(docsrs, doc(cfg(feature = "elicitation")))]
pub mod asking {}

#[doc = include_str!("../docs/guide/25-lifecycle.md")]
pub mod lifecycle {}

#[doc = include_str!("../docs/guide/26-tasks.md")]
pub mod tasks {}
