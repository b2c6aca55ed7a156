//! The tools of one server type, built once: the `tools/list` payload, a name index and
//! each tool's compiled argument validator.

use std::{
    borrow::Cow,
    collections::HashMap,
    sync::{atomic::Ordering, Arc},
    time::Duration,
};

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::Value;

use crate::{
    router::{
        def::{CallFn, RegistryError, ToolBlock, ToolDef},
        in_flight::InFlight,
    },
    schema::{arguments::ArgumentSchema, byte_sequences, portable_input, ToolOutputSchema},
    state::State,
    tool::{extract::extend_input, panics},
    wire::envelope::ErrorKind,
    wire::keys::SCOPES_META,
    write::{approval::gated_input_schema, idempotency::Advertised},
};

pub(crate) struct Route<S> {
    pub(crate) name: &'static str,
    /// Its method and block, as [`ToolBlock::origin`] names them.
    pub(crate) origin: String,
    pub(crate) arguments: Arc<ArgumentSchema>,
    pub(crate) timeout: Option<Duration>,
    pub(crate) read_only: bool,
    pub(crate) idempotent: bool,
    pub(crate) takes_arguments: bool,
    pub(crate) key_field: Option<&'static str>,
    pub(crate) approval: Option<&'static str>,
    /// The OAuth scopes a caller needs ([`ToolDef::scopes`]).
    pub(crate) scopes: &'static [&'static str],
    /// The arguments the tool's parameters read themselves ([`ToolExtension`]).
    pub(crate) extension_arguments: Vec<String>,
    /// A parameter reads the arguments' fingerprint ([`ToolExtension::binds_arguments`]).
    pub(crate) binds: bool,
    /// A parameter takes the write's database transaction
    /// ([`ToolExtension::transactional`]).
    pub(crate) transactional: bool,
    /// A parameter asks for a human approval from the tool's body
    /// ([`ToolExtension::approval`]).
    pub(crate) asks_approval: bool,
    /// How a call may run as a task ([`ToolDef::task`]).
    pub(crate) task: Option<crate::task::TaskSupport>,
    pub(crate) call: CallFn<S>,
}

/// The routes by tool name. Hashed with FNV-1a, not SipHash: the keys are the server's own
/// tool names, fixed at startup, so a caller's name can only be looked up, never inserted
/// to collide; a name of a dozen bytes hashes in a few dozen instructions, and every call
/// looks its tool up.
pub(crate) type Routes<S> = HashMap<&'static str, Route<S>, std::hash::BuildHasherDefault<Fnv>>;

/// FNV-1a, 64 bits ([`Routes`]).
pub(crate) struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl std::hash::Hasher for Fnv {
    fn write(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.0 = (self.0 ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// The tools of one server type: the `tools/list` payload and a name index, built once.
///
/// `tools/list` clones the stored list (schemas are `Arc`s); `tools/call` is one hash
/// lookup, independent of the number of tools.
pub struct ToolRegistry<S> {
    pub(crate) tools: Vec<Tool>,
    pub(crate) routes: Routes<S>,
    pub(crate) in_flight: Arc<InFlight>,
    /// The state of calls served without one (rmcp's own `serve`): one per server type.
    pub(crate) fallback: State,
    /// The server's `initialize` answer, built once for the name, version and resources it
    /// was asked with ([`crate::serve::handler::server_info_of`]): served without sessions,
    /// rmcp asks for it on every request.
    pub(crate) info: std::sync::OnceLock<(
        (&'static str, &'static str, bool),
        rmcp::model::ServerConfig,
    )>,
}

impl<S> ToolRegistry<S> {
    /// Builds the registry: generates each schema once, serves each success schema with
    /// the [`ToolError`] envelope ([`ToolOutputSchema`]), and compiles each `inputSchema`
    /// into a validator.
    ///
    /// Each tool lists the portable profile of its input schema
    /// ([`crate::schema::portable_input`]) and validates calls against the full one.
    ///
    /// # Errors
    /// A [`RegistryError`] naming the tool when an `inputSchema` root is not
    /// `type: "object"` (MCP requires it) or is a composition with no portable form (a
    /// `#[serde(flatten)]` enum: [`crate::schema::RootComposition`] names the type and the
    /// fix), or a schema does not compile.
    pub fn new(defs: Vec<ToolDef<S>>) -> Result<Self, RegistryError> {
        Self::from_blocks(vec![ToolBlock {
            server: std::any::type_name::<S>(),
            block: None,
            tools: defs,
        }])
    }

    /// Builds one registry of every block of a server (its main `#[mcp_tools]` block and
    /// the named blocks it includes), each tool as [`Self::new`] does; `tools/list` lists
    /// them block by block, in declaration order.
    ///
    /// # Errors
    /// As [`Self::new`]; and a [`RegistryError`] naming both tools and both blocks when two
    /// blocks define a tool of the same name (tool names are unique within a server; within
    /// one block that is a compile error already).
    pub fn from_blocks(blocks: Vec<ToolBlock<S>>) -> Result<Self, RegistryError> {
        let count = blocks.iter().map(|block| block.tools.len()).sum();
        let mut tools = Vec::with_capacity(count);
        let mut routes: Routes<S> = HashMap::with_capacity_and_hasher(count, Default::default());
        for (block, def) in blocks
            .iter()
            .flat_map(|block| block.tools.iter().map(move |def| (block, def)))
        {
            let error = |message: String| RegistryError {
                tool: def.name,
                message,
            };
            let origin = block.origin(def.method);
            if let Some(first) = routes.get(def.name) {
                return Err(error(format!(
                    "defined twice, by {} and by {origin}: tool names are unique within a \
                     server; rename one with `#[mcp_tool(name = \"...\")]`",
                    first.origin
                )));
            }
            let input = (def.input_schema)();
            if input.get("type") != Some(&Value::String("object".into())) {
                return Err(error(not_an_object(&input)));
            }
            if let Some(field) = def.idempotency_key {
                let property = input
                    .get("properties")
                    .and_then(|p| p.get(field))
                    .and_then(|p| p.get("type"));
                let string = match property {
                    Some(Value::String(t)) => t == "string",
                    Some(Value::Array(types)) => types.iter().any(|t| t == "string"),
                    _ => false,
                };
                if !string {
                    return Err(error(format!(
                        "`idempotency_key = \"{field}\"` names no string argument: add \
                         `{field}: Option<String>` (serialized as `{field}`) to the arguments \
                         type, or remove the key"
                    )));
                }
            }
            if let Some(pointer) = byte_sequences(&input).first() {
                return Err(error(format!(
                    "its arguments hold a byte sequence at `{pointer}` (`*`: any item or key), \
                     which the model would be asked to write as an array of numbers: take a \
                     base64 string instead (`#[serde(with = \"...\")]` with \
                     `#[schemars(with = \"String\")]` on the field), or, if small numbers are \
                     meant, a wider integer type (`Vec<u16>`)"
                )));
            }
            let output = (def.output)();
            if let Some(shape) = &output {
                let opted = |pointer: &str| {
                    def.bytes_as_numbers.iter().any(|key| {
                        let key = format!("/{}", key.replace('~', "~0").replace('/', "~1"));
                        pointer == key || pointer.starts_with(&format!("{key}/"))
                    })
                };
                let refused = byte_sequences(&shape.schema);
                if let Some(pointer) = refused.iter().find(|pointer| !opted(pointer)) {
                    return Err(error(format!(
                        "its result holds a byte sequence at `{pointer}` (`*`: any item or \
                         key), which serde_json writes as an array of numbers, sent twice (in \
                         `structuredContent` and in the JSON text): say what the bytes are: \
                         `mcp_result::content::Image` or `Audio` (a media block), \
                         `mcp_result::content::Payload::blob` (an artifact behind a \
                         `resource_link`), or a base64 string (`#[serde(with = \"...\")]` with \
                         `#[schemars(with = \"String\")]` on the field); if the bytes are small \
                         numbers meant as numbers, hold them in a field of the result type \
                         marked `#[mcp_result(bytes_as_numbers)]`"
                    )));
                }
            }
            let extensions = (def.extensions)();
            if extensions.iter().any(|e| e.approval) && def.approval.is_some() {
                return Err(error(
                    "it asks for a human approval twice: before it runs (`approval = ...` or \
                     `requires_approval`) and from its body (an `Approval` parameter): keep \
                     one"
                    .into(),
                ));
            }
            let input = match def.approval {
                Some(template) => gated_input_schema(input, template).map_err(error)?,
                None => input,
            };
            let (input, extension_arguments, extension_meta, uses) =
                extend_input(input, extensions).map_err(error)?;
            let binds = uses.binds;
            if uses.approval && def.annotations.read_only_hint == Some(true) {
                return Err(error(
                    "a read-only tool takes no `Approval`: it changes nothing a person would \
                     approve"
                        .into(),
                ));
            }
            if uses.approval && uses.transactional {
                return Err(error(
                    "a tool that asks for a human approval from its body (`Approval`) cannot \
                     take `Tx` yet: a `blocked` answer would commit with the transaction"
                        .into(),
                ));
            }
            if binds && def.approval.is_some() {
                return Err(error(
                    "a tool gated by a human approval (`requires_approval`) cannot also ask the \
                     client itself (an `Ask` parameter): both would need the same round; ask in \
                     a read-only tool first, or let the approval be the question"
                        .into(),
                ));
            }
            let read_only_hint = def.annotations.read_only_hint == Some(true);
            if uses.transactional && read_only_hint {
                return Err(error(
                    "a read-only tool takes no `Tx`: it changes nothing to commit; read through \
                     the stores' pool (`SqlStores::pool`) instead"
                        .into(),
                ));
            }
            if uses.transactional && def.approval.is_some() {
                return Err(error(
                    "a tool gated by a human approval (`requires_approval`) cannot take `Tx` \
                     yet: its claim comes before the question, outside the transaction"
                        .into(),
                ));
            }
            let takes_arguments = input.contains_key("required")
                || input
                    .get("properties")
                    .and_then(Value::as_object)
                    .is_some_and(|p| !p.is_empty());
            let advertised = if def.full_input_schema {
                (*input).clone()
            } else {
                portable_input(&input).map_err(|e| error(e.to_string()))?
            };
            crate::schema::headers::check(&advertised).map_err(error)?;
            let arguments = ArgumentSchema::new(Value::Object((*input).clone())).map_err(error)?;
            // An approval text shows its approver what a placeholder holds: a secret would
            // show only `[secret]`, so it is no question a person can answer.
            if let Some(secret) = def.approval.and_then(|template| {
                crate::write::approval::placeholders(template)
                    .into_iter()
                    .find(|name| arguments.is_secret(&format!("/{name}")))
            }) {
                return Err(error(format!(
                    "the approval text names `{{{secret}}}`, a secret argument (`Secret<T>`): \
                     its approver would read only `[secret]`; name what the write does with \
                     arguments a person may read"
                )));
            }
            let hints = explicit_hints(def.annotations.clone());
            let read_only = hints.read_only_hint == Some(true);
            let idempotent = hints.is_idempotent();
            let mut tool = Tool::new(
                Cow::Borrowed(def.name),
                Cow::Borrowed(def.description),
                Arc::new(advertised),
            )
            .with_annotations(hints);
            if let Some(title) = def.title {
                tool = tool.with_title(title);
            }
            let mut tool = match output {
                Some(shape) => ToolOutputSchema::new(&shape).write(tool),
                None => tool,
            };
            if !read_only {
                Advertised::new(def.idempotency_key).write(&mut tool);
            }
            if !extension_meta.is_empty() || !def.scopes.is_empty() {
                let mut meta = tool.meta.take().unwrap_or_default();
                meta.0.extend(extension_meta);
                if !def.scopes.is_empty() {
                    meta.0
                        .insert(SCOPES_META.to_owned(), Value::from(def.scopes.to_vec()));
                }
                tool.meta = Some(meta);
            }
            tools.push(tool);
            routes.insert(
                def.name,
                Route {
                    name: def.name,
                    origin,
                    arguments: Arc::new(arguments),
                    timeout: def.timeout,
                    read_only,
                    idempotent,
                    takes_arguments,
                    key_field: def.idempotency_key,
                    approval: def.approval,
                    scopes: def.scopes,
                    extension_arguments,
                    binds,
                    transactional: uses.transactional,
                    asks_approval: uses.approval,
                    task: def.task,
                    call: def.call,
                },
            );
        }
        panics::install_hook();
        Ok(Self {
            tools,
            routes,
            in_flight: Arc::default(),
            fallback: State::new(),
            info: std::sync::OnceLock::new(),
        })
    }

    /// Whether a tool may answer with a task (the server then declares the tasks
    /// extension).
    pub fn has_tasks(&self) -> bool {
        self.task_tool().is_some()
    }

    /// A tool that may answer with a task, if any (the first in `tools/list` order).
    pub(crate) fn task_tool(&self) -> Option<&'static str> {
        self.first_tool(|route| route.task.is_some())
    }

    /// A tool that needs human approval, if any (the first in `tools/list` order).
    pub(crate) fn gated_tool(&self) -> Option<&'static str> {
        self.first_tool(|route| route.approval.is_some() || route.asks_approval)
    }

    /// The name of the first tool, in `tools/list` order, whose route `matches`.
    fn first_tool(&self, matches: impl Fn(&Route<S>) -> bool) -> Option<&'static str> {
        self.tools
            .iter()
            .filter_map(|tool| self.routes.get(tool.name.as_ref()))
            .find(|route| matches(route))
            .map(|route| route.name)
    }

    /// Whether a tool needs human approval (the server then serves approval requests
    /// through `resources/read`).
    pub fn has_approvals(&self) -> bool {
        self.routes.values().any(|route| route.approval.is_some())
    }

    /// The OAuth scopes a call of tool `name` needs (`#[mcp_tool(scopes = "...")]`), all of
    /// them; empty for a tool that declares none or an unknown name.
    pub fn required_scopes(&self, name: &str) -> &'static [&'static str] {
        self.routes.get(name).map_or(&[], |route| route.scopes)
    }

    /// Every scope some tool declares, sorted, each once: the protected resource
    /// metadata's `scopes_supported` (RFC 9728 §2).
    pub fn scopes(&self) -> Vec<&'static str> {
        let mut scopes: Vec<&'static str> = self
            .routes
            .values()
            .flat_map(|route| route.scopes.iter().copied())
            .collect();
        scopes.sort_unstable();
        scopes.dedup();
        scopes
    }

    /// Every tool, in declaration order (the `tools` of a `tools/list` result).
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// Looks a tool up by name.
    pub fn tool(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().find(|tool| tool.name == name)
    }

    /// Whether the server has a tool named `name` (one hash lookup).
    pub fn contains(&self, name: &str) -> bool {
        self.routes.contains_key(name)
    }

    /// Tool `name` as the registry keeps it, and where it is defined, as messages name it:
    /// `` `Desk::refund` (`#[mcp_tools(block = billing)]`) ``.
    pub(crate) fn origin(&self, name: &str) -> Option<(&'static str, &str)> {
        self.routes
            .get(name)
            .map(|route| (route.name, route.origin.as_str()))
    }

    /// The time limit of tool `name` (`#[mcp_tool(timeout_ms = N)]`), if it has one. Not part
    /// of the `tools/list` payload; the docs document it.
    pub fn timeout(&self, name: &str) -> Option<Duration> {
        self.routes.get(name)?.timeout
    }

    /// The error kinds the framework itself may answer a call of tool `name` with, whatever
    /// the tool's own code does: `validation_error` (it takes arguments, checked against
    /// its `inputSchema`), `upstream_timeout` (it has a time limit) and `internal` (a panic
    /// or a result that does not serialize). Empty for an unknown tool.
    pub fn framework_error_kinds(&self, name: &str) -> Vec<ErrorKind> {
        let Some(route) = self.routes.get(name) else {
            return Vec::new();
        };
        let mut kinds = Vec::with_capacity(3);
        if route.takes_arguments {
            kinds.push(ErrorKind::ValidationError);
        }
        if route.timeout.is_some() {
            kinds.push(ErrorKind::UpstreamTimeout);
        }
        kinds.push(ErrorKind::Internal);
        kinds
    }

    /// Waits until no write runs on its own task any more, at most `grace`; the number of
    /// writes still running then (used by [`crate::serve::handler::serve`] at shutdown).
    pub async fn drain(&self, grace: Duration) -> usize {
        let deadline = tokio::time::Instant::now() + grace;
        loop {
            let idle = self.in_flight.idle.notified();
            tokio::pin!(idle);
            idle.as_mut().enable();
            let running = self.in_flight.count.load(Ordering::SeqCst);
            if running == 0 {
                return 0;
            }
            if tokio::time::timeout_at(deadline, idle).await.is_err() {
                return self.in_flight.count.load(Ordering::SeqCst);
            }
        }
    }
}

/// The registry of a generic server type (`impl<Db: Store> ToolSet for Server<Db>`), built
/// by `build` on first use and kept for the life of the process, one per concrete type.
///
/// A `static` cannot name a type parameter, so the registries of generic servers live in
/// one map keyed by [`TypeId`](std::any::TypeId); a non-generic server keeps its registry
/// in a `static` of its own (what `#[mcp_tools]` generates for it).
///
/// # Errors
/// The [`RegistryError`] of a broken tool definition, every time.
pub fn registry_per_type<S: Send + Sync + 'static>(
    build: impl FnOnce() -> Result<ToolRegistry<S>, RegistryError>,
) -> Result<&'static ToolRegistry<S>, &'static RegistryError> {
    per_type::<Result<ToolRegistry<S>, RegistryError>>(build).as_ref()
}

/// One value of type `T` for the life of the process, built by `init` on first use.
fn per_type<T: Send + Sync + 'static>(init: impl FnOnce() -> T) -> &'static T {
    use std::{
        any::{Any, TypeId},
        sync::{OnceLock, PoisonError, RwLock},
    };
    type Cells = HashMap<TypeId, &'static (dyn Any + Send + Sync)>;
    static CELLS: std::sync::LazyLock<RwLock<Cells>> = std::sync::LazyLock::new(Default::default);
    let id = TypeId::of::<T>();
    let found = CELLS
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .get(&id)
        .copied();
    let cell = found.unwrap_or_else(|| {
        *CELLS
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(id)
            .or_insert_with(|| Box::leak(Box::new(OnceLock::<T>::new())))
    });
    // The lock is not held while `init` runs: building one registry may need another cell.
    cell.downcast_ref::<OnceLock<T>>()
        .expect("the cell of a TypeId holds that type")
        .get_or_init(init)
}

/// Every hint written out: some host directories reject a tool without an explicit
/// `destructiveHint`. Where the tool said nothing, the spec's defaults (MCP 2025-11-25
/// "ToolAnnotations": `readOnlyHint` false, `destructiveHint` true, `idempotentHint` false,
/// `openWorldHint` true), except that a read-only tool is neither destructive nor anything
/// but idempotent (`destructiveHint: false`, `idempotentHint: true`).
fn explicit_hints(mut hints: ToolAnnotations) -> ToolAnnotations {
    let read_only = *hints.read_only_hint.get_or_insert(false);
    hints.destructive_hint.get_or_insert(!read_only);
    hints.idempotent_hint.get_or_insert(read_only);
    hints.open_world_hint.get_or_insert(true);
    hints
}

impl<S> std::fmt::Debug for ToolRegistry<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolRegistry")
            .field(
                "tools",
                &self.tools.iter().map(|t| &t.name).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

impl<S> ToolRegistry<S> {
    /// The state a request was served with ([`State::of`]), else this server type's
    /// fallback (served through rmcp's own `serve`).
    pub(crate) fn state_for(
        &self,
        context: &rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> State {
        State::of(context)
            .cloned()
            .unwrap_or_else(|| self.fallback.clone())
    }
}

/// The refusal of an arguments type whose schema root is not an object: what it is, and
/// the fix (MCP "Tools": a tool's `inputSchema` is an object schema; clients send the
/// arguments as a JSON object).
fn not_an_object(input: &JsonObject) -> String {
    let type_name = match input.get("title") {
        Some(Value::String(name)) => format!("the arguments type `{name}`"),
        _ => "the arguments type".to_owned(),
    };
    let root = match input.get("type") {
        Some(Value::String(kind)) => format!("`type: \"{kind}\"`"),
        Some(other) => format!("`type: {other}`"),
        None if ["oneOf", "anyOf"].iter().any(|k| input.contains_key(*k)) => {
            "a union with a branch that is not an object (an untagged enum with a scalar \
             variant)"
                .to_owned()
        }
        None => "no `type`".to_owned(),
    };
    format!(
        "{type_name} has a schema root of {root}, not an object; MCP sends a tool's arguments \
         as a JSON object: put the value in a named field of a struct that derives \
         `Deserialize` and `JsonSchema` (`struct Args {{ value: ... }}`), or tag the enum \
         (`#[serde(tag = \"kind\")]`); any JSON object is `serde_json::Value`"
    )
}
