//! Extractors: what a `#[mcp_tool]` method's parameters receive.
//!
//! Every parameter after `&self` is produced by [`FromToolCall`], the one mechanism the
//! generated call glue uses (as axum's `FromRequestParts` and rmcp's `FromContextPart` do):
//! for each parameter of type `P` it calls `<P as FromToolCall<_>>::from_tool_call`.
//!
//! - The tool's **arguments**: any `T: DeserializeOwned + JsonSchema` (a struct with named
//!   fields; MCP requires an object). Its schema is the tool's `inputSchema`; at most one
//!   parameter of a tool may be arguments (a compile error otherwise).
//! - [`RequestContext<RoleServer>`]: rmcp's request context (peer, `_meta`, extensions).
//! - [`CancellationToken`]: cancelled when the client sends `notifications/cancelled` for
//!   this call (MCP "Cancellation").
//! - [`Identity`]: the caller, as the transport established it.
//! - [`Pager`](crate::pagination::Pager): where a paged call stands (its `cursor` and
//!   `pageSize`, which it adds to the `inputSchema`: [`ToolExtension`]).
//!
//! Implement `FromToolCall<via::Extractor>` for your own type to make it a parameter.

use std::{borrow::Cow, sync::Arc};

use rmcp::{model::JsonObject, service::RequestContext, RoleServer};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;
pub use tokio_util::sync::CancellationToken;

use crate::{
    call::progress::{Progress, ProgressPolicy},
    result::build::{error_result, ResultScope},
    schema::{arguments::ArgumentSchema, empty_input_schema, input_schema},
    state::State,
    store::artifact::ArtifactAccess,
    tool::panics,
    wire::{envelope::ToolError, identity::Identity},
    write::{approval::Round, idempotency::fingerprints},
};

pub use crate::write::context::WriteContext;

/// Marker types that keep the two families of [`FromToolCall`] impls apart (so that a
/// blanket impl for argument types and impls for extractor types never overlap).
pub mod via {
    /// The parameter is the tool's arguments object.
    #[derive(Debug)]
    pub enum Arguments {}
    /// The parameter is taken from the call's context (an extractor).
    #[derive(Debug)]
    pub enum Extractor {}
}

/// One `tools/call` in flight: what parameters are extracted from.
#[derive(Debug)]
pub struct ToolCall {
    arguments: Option<Value>,
    schema: Arc<ArgumentSchema>,
    context: RequestContext<RoleServer>,
    /// Borrowed when it is the process identity (stdio), which lives as long as the process.
    identity: Cow<'static, Identity>,
    /// The served instance's state.
    state: State,
    write: Option<WriteContext>,
    tool: &'static str,
    /// The arguments that parameters read themselves ([`ToolExtension::arguments`]), taken
    /// out of `arguments`.
    extension_arguments: JsonObject,
    /// The fingerprints of the other arguments (one per server key), for a tool with
    /// extension arguments or a parameter that binds to them.
    binding: Option<Vec<String>>,
    /// The answers and sealed state the call came back with (an input-required round).
    round: Round,
}

impl FromToolCall<via::Extractor> for WriteContext {
    /// # Errors
    /// An `internal` error in a read-only tool, which has no write context.
    fn from_tool_call(call: &mut ToolCall) -> Result<Self, ToolError> {
        call.write.clone().ok_or_else(|| {
            ToolError::internal_logged("a read-only tool took a `WriteContext` parameter")
        })
    }
}

impl ToolCall {
    /// A call with `arguments` (the `arguments` object of `tools/call`, validated against
    /// `schema`), rmcp's `context` and the caller's verified `identity`.
    pub fn new(
        arguments: Value,
        schema: Arc<ArgumentSchema>,
        context: RequestContext<RoleServer>,
        identity: Identity,
        state: State,
    ) -> Self {
        Self::of(arguments, schema, context, Cow::Owned(identity), state)
    }

    /// [`Self::new`], the identity owned or borrowed.
    pub(crate) fn of(
        arguments: Value,
        schema: Arc<ArgumentSchema>,
        context: RequestContext<RoleServer>,
        identity: Cow<'static, Identity>,
        state: State,
    ) -> Self {
        Self {
            arguments: Some(arguments),
            schema,
            context,
            identity,
            state,
            write: None,
            tool: "",
            extension_arguments: JsonObject::new(),
            binding: None,
            round: Round::default(),
        }
    }

    /// The same call, with the answers and sealed state of the round it came back with.
    pub(crate) fn with_round(mut self, round: Round) -> Self {
        self.round = round;
        self
    }

    /// The answers and sealed state this call came back with (MCP 2026-07-28 input-required
    /// rounds; empty on a first call).
    #[cfg_attr(not(feature = "elicitation"), allow(dead_code))]
    pub(crate) fn round(&self) -> &Round {
        &self.round
    }

    /// The state of the instance that serves this call: its stores, its server key and the
    /// values handed in with [`State::with`], for extractors of your own.
    pub fn state(&self) -> &State {
        &self.state
    }

    /// The call of tool `tool`. The arguments its parameters read themselves (`names`, from
    /// their [`ToolExtension`]s) are taken out of the arguments object, so the arguments
    /// type never sees them, and the rest is fingerprinted ([`fingerprints`]: RFC 8785,
    /// secrets keyed), which is what a page cursor is bound to.
    pub(crate) fn for_tool(mut self, tool: &'static str, names: &[String], binds: bool) -> Self {
        self.tool = tool;
        if names.is_empty() && !binds {
            return self;
        }
        if let Some(Value::Object(arguments)) = &mut self.arguments {
            for name in names {
                if let Some(value) = arguments.remove(name) {
                    self.extension_arguments.insert(name.clone(), value);
                }
            }
        }
        let rest = self.arguments.as_ref().unwrap_or(&Value::Null);
        self.binding = Some(fingerprints(
            tool,
            rest,
            &self.schema,
            self.state.server_key(),
        ));
        self
    }

    /// The same call as a write, with what the framework knows about it.
    pub fn for_write(mut self, write: WriteContext) -> Self {
        self.write = Some(write);
        self
    }

    /// What the call's result is built with: the server's artifact store (`access`, from
    /// [`ToolSet::artifact_access`](crate::ToolSet::artifact_access)), the caller as the
    /// owner of the artifacts, and the framework's facts about the call.
    pub fn scope<'s>(&self, access: Option<&'s dyn ArtifactAccess>) -> ResultScope<'s> {
        ResultScope {
            store: access.map(|access| access.artifact_store()),
            // What artifacts are recorded under: only a server with a store records any.
            owner: access.map(|_| self.identity.key()),
            retry_safe: self.write.as_ref().map(|w| w.retry_safe),
            read_only: self.write.is_none(),
            audit_event_id: self.write.as_ref().map(|w| w.audit_event_id.clone()),
            // Approved before it ran (a gated tool), or from its body (`Approval`).
            approval_id: self.write.as_ref().and_then(|w| {
                w.approval
                    .as_ref()
                    .map(|(id, _)| id.clone())
                    .or_else(|| w.note.as_ref().and_then(|note| note.approval_id()))
            }),
            staged: Default::default(),
        }
    }

    /// The caller's verified identity (from the transport; see
    /// [`Identity`](crate::wire::identity::Identity)).
    pub fn identity(&self) -> &Identity {
        &self.identity
    }

    /// rmcp's request context of the call.
    pub fn context(&self) -> &RequestContext<RoleServer> {
        &self.context
    }

    /// The name of the tool called.
    pub fn tool(&self) -> &'static str {
        self.tool
    }

    /// An argument a parameter declared in its [`ToolExtension::arguments`] (validated
    /// against the schema given there), as the call sent it; `None` when the call left it
    /// out.
    pub fn extension_argument(&self, name: &str) -> Option<&Value> {
        self.extension_arguments.get(name)
    }

    /// The fingerprints of the arguments other than the extension arguments (one per
    /// server key, the signing key's first), for a tool that has extension arguments.
    pub(crate) fn binding(&self) -> Option<&[String]> {
        self.binding.as_deref()
    }

    /// What the framework knows of the call when it is a write.
    pub(crate) fn write_context(&self) -> Option<&WriteContext> {
        self.write.as_ref()
    }

    /// Takes the arguments object (the first taker gets it; later takers get `{}`).
    pub fn take_arguments(&mut self) -> Value {
        self.arguments
            .take()
            .unwrap_or_else(|| Value::Object(JsonObject::new()))
    }
}

/// A type a `#[mcp_tool]` method can take as a parameter. `M` is [`via::Arguments`] for the
/// arguments object and [`via::Extractor`] for everything taken from the call's context.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a parameter of a `#[mcp_tool]` method",
    label = "not an arguments type and not an extractor",
    note = "the arguments type derives `serde::Deserialize` and `schemars::JsonSchema` (a struct with named fields); extractors are `RequestContext<RoleServer>`, `CancellationToken`, or a type implementing `mcp_result::extract::FromToolCall<via::Extractor>`"
)]
pub trait FromToolCall<M>: Sized {
    /// `true` for the arguments object: its schema is the tool's `inputSchema`.
    const ARGUMENTS: bool = false;

    /// A check of the parameter's own configuration, evaluated at compile time where a tool
    /// takes it (`#[mcp_tools]` names it in a `const`): panic in it to refuse a
    /// configuration, with a message that says what to change.
    const CHECK: () = ();

    /// The `inputSchema` this parameter contributes (the arguments object's schema).
    fn input_schema() -> Option<Arc<JsonObject>> {
        None
    }

    /// What this parameter adds to its tool's `tools/list` entry: arguments it reads itself
    /// and `_meta` entries ([`ToolExtension`]; [`crate::pagination::Pager`] adds `cursor`
    /// and `pageSize`).
    fn tool_extension() -> Option<ToolExtension> {
        None
    }

    /// Extracts the parameter.
    ///
    /// # Errors
    /// A [`ToolError`] sent as the call's result (`isError: true`); the tool does not run.
    fn from_tool_call(call: &mut ToolCall) -> Result<Self, ToolError>;
}

impl<T: DeserializeOwned + JsonSchema + 'static> FromToolCall<via::Arguments> for T {
    const ARGUMENTS: bool = true;

    fn input_schema() -> Option<Arc<JsonObject>> {
        Some(input_schema::<T>())
    }

    /// Deserializes the validated arguments (integral numbers such as `100000.0` read as
    /// the integers they are).
    ///
    /// # Errors
    /// A `validation_error` at the JSON Pointer of the field serde rejected, for values the
    /// `inputSchema` accepted but the type did not.
    fn from_tool_call(call: &mut ToolCall) -> Result<Self, ToolError> {
        let arguments = call.take_arguments();
        call.schema.deserialize(arguments)
    }
}

impl FromToolCall<via::Extractor> for RequestContext<RoleServer> {
    fn from_tool_call(call: &mut ToolCall) -> Result<Self, ToolError> {
        Ok(call.context.clone())
    }
}

impl FromToolCall<via::Extractor> for CancellationToken {
    fn from_tool_call(call: &mut ToolCall) -> Result<Self, ToolError> {
        Ok(call.context.ct.clone())
    }
}

/// The call's progress reporter ([`Progress`]): enabled when the `tools/call` carried
/// `_meta.progressToken`; the one the router made for the call (closed when the call ends),
/// else a new one at the instance's [`ProgressPolicy`].
impl FromToolCall<via::Extractor> for Progress {
    fn from_tool_call(call: &mut ToolCall) -> Result<Self, ToolError> {
        if let Some(progress) = call.context.extensions.get::<Progress>() {
            return Ok(progress.clone());
        }
        let policy = call
            .state()
            .get::<ProgressPolicy>()
            .copied()
            .unwrap_or_default();
        Ok(Progress::of_call(&call.context, policy))
    }
}

/// The caller's verified [`Identity`]: take it as a parameter to scope a tool's own data by
/// tenant or to check a scope (`identity.has_scope("tickets:write")`).
impl FromToolCall<via::Extractor> for Identity {
    fn from_tool_call(call: &mut ToolCall) -> Result<Self, ToolError> {
        Ok(call.identity.clone().into_owned())
    }
}

/// The instance's resource change notifications ([`Subscriptions`](crate::Subscriptions)):
/// take it as a parameter to tell the clients following a resource that the call changed
/// it (`subscriptions.resource_updated(uri)`).
impl FromToolCall<via::Extractor> for crate::subscriptions::Subscriptions {
    fn from_tool_call(call: &mut ToolCall) -> Result<Self, ToolError> {
        Ok(call.state.subscriptions().clone())
    }
}

/// What a parameter adds to its tool's `tools/list` entry ([`FromToolCall::tool_extension`]).
///
/// The registry merges it into the tool when the server starts: a name that the arguments
/// type, the framework or another parameter already uses is a [`RegistryError`](crate::RegistryError)
/// (`crate::RegistryError`) naming the tool.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolExtension {
    /// Top-level arguments the parameter reads itself: property name → JSON Schema. They are
    /// added to the `inputSchema` (never `required`), validated with every other argument,
    /// and taken out of the arguments object before the arguments type deserializes (so a
    /// type with `#[serde(deny_unknown_fields)]` accepts the call); the parameter reads them
    /// with [`ToolCall::extension_argument`].
    pub arguments: JsonObject,
    /// Entries of the tool's `_meta` in `tools/list` (keys under the parameter's own prefix,
    /// MCP "General fields: `_meta`").
    pub meta: JsonObject,
    /// The parameter reads the fingerprint of the call's arguments (what
    /// [`Ask`](crate::Ask) binds its sealed round state to), so every call computes it.
    pub binds_arguments: bool,
    /// The parameter takes the write's database transaction (`sql::Tx`): the tool's
    /// statements commit with the framework's records of the call.
    pub transactional: bool,
    /// The parameter asks for a human approval from the tool's body
    /// ([`Approval`](crate::approval::Approval)): the write keeps what its approver is shown,
    /// refuses undeclared arguments, and gives its key back when the answer is `blocked`.
    pub approval: bool,
}

/// The extensions of a tool's parameters, in parameter order (for the generated
/// `ToolDef`).
#[doc(hidden)]
pub fn tool_extensions(extensions: &[fn() -> Option<ToolExtension>]) -> Vec<ToolExtension> {
    extensions
        .iter()
        .filter_map(|extension| extension())
        .collect()
}

/// Merges `extensions` into a tool's `input` schema: the merged schema, the names of the
/// extension arguments and the `_meta` entries.
///
/// # Errors
/// What collides, for a [`RegistryError`](crate::RegistryError)(crate::RegistryError).
pub(crate) fn extend_input(
    input: Arc<JsonObject>,
    extensions: Vec<ToolExtension>,
) -> Result<(Arc<JsonObject>, Vec<String>, JsonObject, Uses), String> {
    let uses = Uses {
        binds: extensions.iter().any(|extension| extension.binds_arguments),
        transactional: extensions.iter().any(|extension| extension.transactional),
        approval: extensions.iter().any(|extension| extension.approval),
    };
    if extensions.is_empty() {
        return Ok((input, Vec::new(), JsonObject::new(), uses));
    }
    let mut input = (*input).clone();
    let mut names = Vec::new();
    let mut meta = JsonObject::new();
    let properties = input
        .entry("properties")
        .or_insert_with(|| Value::Object(JsonObject::new()));
    let Value::Object(properties) = properties else {
        return Err("the inputSchema's `properties` is not an object".into());
    };
    for extension in extensions {
        for (name, schema) in extension.arguments {
            if properties.contains_key(&name) {
                return Err(format!(
                    "the arguments already have `{name}`, which a parameter of the tool (a \
                     `Pager` adds `cursor` and `pageSize`) reads itself: rename that field of \
                     the arguments type"
                ));
            }
            properties.insert(name.clone(), schema);
            names.push(name);
        }
        for (key, value) in extension.meta {
            if meta.insert(key.clone(), value).is_some() {
                return Err(format!(
                    "two parameters of the tool write `_meta` key `{key}`"
                ));
            }
        }
    }
    Ok((Arc::new(input), names, meta, uses))
}

/// What a tool's parameters need of each call beyond their arguments.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Uses {
    /// The arguments' fingerprint ([`ToolExtension::binds_arguments`]).
    pub(crate) binds: bool,
    /// The write's database transaction ([`ToolExtension::transactional`]).
    pub(crate) transactional: bool,
    /// A human approval asked from the tool's body ([`ToolExtension::approval`]).
    pub(crate) approval: bool,
}

/// The `inputSchema` of a tool whose parameters contribute `schemas` (at most one
/// contributes: the compile-time check [`assert_one_arguments`] saw to it).
#[doc(hidden)]
pub fn tool_input_schema(schemas: &[fn() -> Option<Arc<JsonObject>>]) -> Arc<JsonObject> {
    schemas
        .iter()
        .find_map(|schema| schema())
        .unwrap_or_else(empty_input_schema)
}

/// Compile-time check the glue emits: at most one parameter is the arguments object.
///
/// # Panics
/// At compile time (in a `const`), when two parameters are arguments types.
#[doc(hidden)]
pub const fn assert_one_arguments(arguments: &[bool]) {
    let mut count = 0;
    let mut i = 0;
    while i < arguments.len() {
        if arguments[i] {
            count += 1;
        }
        i += 1;
    }
    if count > 1 {
        panic!(
            "a tool takes one arguments type: put every argument in one struct that derives \
             `Deserialize` and `JsonSchema`"
        );
    }
}

/// Runs a synchronous tool method on tokio's blocking thread pool, so it never stalls the
/// async worker threads (and its time limit holds: the caller stops waiting at the limit).
///
/// # Errors
/// The `internal` error result of a method that panicked (the message logged, not returned).
#[doc(hidden)]
pub async fn run_blocking<R: Send + 'static>(
    tool: &'static str,
    method: impl FnOnce() -> R + Send + 'static,
) -> Result<R, rmcp::model::CallToolResult> {
    // The call's span (the registry's `tools/call` span), so the method's own log lines on
    // the blocking thread belong to the call.
    let span = tracing::Span::current();
    let run = move || {
        let _call = span.enter();
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| panics::as_tool(method)))
            .map_err(|panic| (panics::message(&*panic), panics::take_location()))
    };
    let outcome = tokio::task::spawn_blocking(run)
        .await
        .unwrap_or_else(|error| Err((error.to_string(), None)));
    outcome.map_err(|(detail, at)| {
        let at = at.unwrap_or_else(|| "an unknown place".to_owned());
        error_result(&ToolError::internal_logged(format_args!(
            "tool `{tool}` panicked at {at}: {detail}"
        )))
    })
}
