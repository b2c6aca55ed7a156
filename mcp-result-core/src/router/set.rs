//! The server's own traits: [`ToolSet`] (what `#[mcp_tools]` implements), its
//! [`ServerServices`] (where its write-safety state lives, who calls it), and the
//! compile-time links between a server's `#[mcp_tools]` blocks.

use std::sync::Arc;

use rmcp::{service::RequestContext, RoleServer};

use crate::{
    router::{
        def::{RegistryError, ToolBlock},
        registry::ToolRegistry,
    },
    state::State,
    store::artifact::ArtifactAccess,
    wire::identity::Identity,
    write::{approval::ApprovalStore, audit::AuditSink, idempotency::IdempotencyStore},
};

/// A server type whose tools were declared with `#[mcp_tools]`; implemented by that macro,
/// on the server's main block (the one without `block = ...`), with the tools of that block
/// and of every block it names in `#[mcp_tools(include(...))]`. A generic server type
/// (`impl<Db: Store> Server<Db>`) gets one registry per concrete type.
///
/// The server is `Clone`: every call runs on a clone of it (keep shared state behind an
/// `Arc`), so that a synchronous tool runs on a blocking thread, and a write outlives a
/// request that was cancelled or passed its time limit and still records its outcome.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no tools",
    label = "no `#[mcp_tools]` impl block for this type",
    note = "annotate an `impl {Self} {{ ... }}` block holding `#[mcp_tool]` methods with `#[mcp_tools]`"
)]
pub trait ToolSet: Sized + Send + Sync + 'static {
    /// A clone of the server for one call (`#[mcp_tools]` implements it with `Clone`).
    fn clone_for_call(&self) -> Self;

    /// The registry, built on first use and stored for the life of the process.
    ///
    /// # Errors
    /// The [`RegistryError`] of a broken tool definition, every time it is asked for.
    fn tool_registry() -> Result<&'static ToolRegistry<Self>, &'static RegistryError>;

    /// The server's artifact store and access rules, when it spills payloads
    /// (`#[mcp_tools(artifacts)]` returns `Some(self)`, requiring `Self: ArtifactAccess`).
    fn artifact_access(&self) -> Option<&dyn ArtifactAccess> {
        None
    }

    /// `true` when the server serves stored artifacts through `resources/read`
    /// (`#[mcp_tools(artifacts)]`): it then declares the `resources` capability.
    const ARTIFACTS: bool = false;

    /// The server's own services (`#[mcp_tools(services)]` returns `Some(self)`, requiring
    /// `Self: ServerServices`); `None`: the defaults of [`ServerServices`].
    fn services(&self) -> Option<&dyn ServerServices> {
        None
    }
}

/// The tools of `Self`'s block `#[mcp_tools(block = name)]`, for the main block that
/// includes it. `BLOCK` is a hash of the block's name (FNV-1a, 64 bits), computed by
/// `#[mcp_tools]` on both sides.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no `#[mcp_tools(block = ...)]` impl block of this name",
    label = "no block of this name",
    note = "a block is an `impl {Self} {{ ... }}` of `#[mcp_tool]` methods under `#[mcp_tools(block = name)]`; `include(...)` lists the names of such blocks"
)]
pub trait ToolBlockOf<const BLOCK: u64>: Sized {
    /// The block's tool definitions.
    fn tool_block() -> ToolBlock<Self>;
}

/// Implemented by the main `#[mcp_tools]` block of `Self` for each block it includes, so that
/// a block nobody includes is a compile error, not tools silently never served.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "this `#[mcp_tools(block = ...)]` block of `{Self}` is never served",
    label = "not listed in `include(...)` of the main `#[mcp_tools]` block",
    note = "list it on the server's main block: `#[mcp_tools(include(name))] impl {Self} {{ ... }}` (the one `#[mcp_tools]` block without `block = ...`)"
)]
pub trait IncludesBlock<const BLOCK: u64> {}

/// Compile-time check that the main block of `S` includes block `BLOCK`.
#[doc(hidden)]
pub const fn assert_included<S: IncludesBlock<BLOCK>, const BLOCK: u64>() {}

/// Per-server choices of where a call's write-safety records go and who calls: implement it
/// (every method has a default) and declare `#[mcp_tools(services)]` to replace a default.
/// The defaults are the served instance's [`State`]; a method here sees that state, so it
/// can pick a store per server value (a tenant's database, say) or wrap the state's.
pub trait ServerServices: Send + Sync {
    /// Where idempotency records live. Default: the instance's
    /// ([`State::idempotency_store`]).
    fn idempotency_store(&self, state: &State) -> Arc<dyn IdempotencyStore> {
        state.idempotency_store().clone()
    }

    /// Where approval requests live. Default: the instance's ([`State::approval_store`]).
    fn approval_store(&self, state: &State) -> Arc<dyn ApprovalStore> {
        state.approval_store().clone()
    }

    /// Where the audit records of write attempts go. Default: the instance's
    /// ([`State::audit_sink`]; unless handed another, [`TracingSink`](crate::audit::TracingSink),
    /// the log, target `mcp_result::audit`).
    fn audit_sink(&self, state: &State) -> Arc<dyn AuditSink> {
        state.audit_sink().clone()
    }

    /// Where tasks live (MCP tasks extension; [`crate::task`]). Default: the instance's
    /// ([`State::task_store`]).
    fn task_store(&self, state: &State) -> Arc<dyn crate::task::TaskStore> {
        state.task_store().clone()
    }

    /// The caller's identity, which artifacts, idempotency keys, audit records, approval
    /// requests and page cursors are scoped to. It comes from the transport, never from
    /// what a client writes in `_meta` (mcp-result rule 14). `None` refuses the call
    /// (`permission_denied`) and every `resources/read`: no identity, no access.
    ///
    /// Default: [`Identity::of`]: the verified bearer token's identity over streamable
    /// HTTP, the process identity (`MCP_RESULT_IDENTITY`, else `local`) over stdio.
    fn caller_identity(&self, context: &RequestContext<RoleServer>) -> Option<Identity> {
        Identity::of(context)
    }
}

/// The services of a server that declares none.
struct Defaults;
impl ServerServices for Defaults {}

/// A [`ToolSet`]'s services: its own, or the defaults.
pub(crate) fn services_of<S: ToolSet>(server: &S) -> &dyn ServerServices {
    server.services().unwrap_or(&Defaults)
}

/// How `#[mcp_tools]` clones the server for a call: `Clone`, with a message that says why
/// when the server type is not.
#[diagnostic::on_unimplemented(
    message = "`{Self}` serves tools, so it must be `Clone`",
    label = "add `#[derive(Clone)]` to this type",
    note = "every tool call runs on a clone of the server (a synchronous tool on a blocking thread, a write past its time limit to its end): keep shared state behind an `Arc`"
)]
pub trait ServerClone: Sized {
    /// `Clone::clone`.
    fn clone_server(&self) -> Self;
}

impl<T: Clone> ServerClone for T {
    fn clone_server(&self) -> Self {
        self.clone()
    }
}
