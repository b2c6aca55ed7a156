//! `#[mcp_tools(...)]` arguments and `#[mcp_tool(...)]` keys, read with the attribute
//! toolkit (`crate::attr`).

use proc_macro2::TokenStream;
use syn::{Attribute, LitInt, LitStr};

use crate::{
    attr::{self, Attr, Symbol, CRATE},
    ctxt::Ctxt,
};

const ARTIFACTS: Symbol = Symbol("artifacts");
const SERVICES: Symbol = Symbol("services");
const SPEC_NAMES: Symbol = Symbol("spec_names");
const BLOCK: Symbol = Symbol("block");
const INCLUDE: Symbol = Symbol("include");

const NAME: Symbol = Symbol("name");
const TITLE: Symbol = Symbol("title");
const DESCRIPTION: Symbol = Symbol("description");
const READ_ONLY: Symbol = Symbol("read_only");
const DESTRUCTIVE: Symbol = Symbol("destructive");
const IDEMPOTENT: Symbol = Symbol("idempotent");
const OPEN_WORLD: Symbol = Symbol("open_world");
const TIMEOUT_MS: Symbol = Symbol("timeout_ms");
const IDEMPOTENCY_KEY: Symbol = Symbol("idempotency_key");
const REQUIRES_APPROVAL: Symbol = Symbol("requires_approval");
const APPROVAL: Symbol = Symbol("approval");
const SPEC_NAME: Symbol = Symbol("spec_name");
const SCOPES: Symbol = Symbol("scopes");
const FULL_INPUT_SCHEMA: Symbol = Symbol("full_input_schema");
const TASK: Symbol = Symbol("task");
const TASK_AFTER_MS: Symbol = Symbol("task_after_ms");

/// Every `#[mcp_tool]` key, in the order the unknown-key message lists them.
const TOOL_KEYS: [Symbol; 16] = [
    NAME,
    SPEC_NAME,
    TITLE,
    DESCRIPTION,
    READ_ONLY,
    DESTRUCTIVE,
    IDEMPOTENT,
    OPEN_WORLD,
    TIMEOUT_MS,
    IDEMPOTENCY_KEY,
    REQUIRES_APPROVAL,
    APPROVAL,
    SCOPES,
    FULL_INPUT_SCHEMA,
    TASK,
    TASK_AFTER_MS,
];

/// `#[mcp_tools(...)]`.
pub struct ServerAttrs {
    /// `artifacts`: the server implements `ArtifactAccess`.
    pub artifacts: bool,
    /// `services`: the server implements `ServerServices` (audit sink, idempotency store,
    /// caller identity).
    pub services: bool,
    /// `spec_names`: every tool name may use the MCP spec's wider rule (1 to 128 of
    /// `A-Z a-z 0-9 _ - .`) instead of the portable `^[a-zA-Z0-9_-]{1,64}$`.
    pub spec_names: bool,
    /// `crate = "..."`, else `::mcp_result`.
    pub krate: syn::Path,
    /// `block = name`: this impl block is one named part of the server's tools, served by
    /// the main block that includes it. `None`: this is the main block.
    pub block: Option<BlockName>,
    /// `include(name, ...)`: the named blocks the main block serves too, in order.
    pub include: Vec<BlockName>,
    /// Where each server-wide key was set, to report it on a named block.
    pub server_wide: Vec<(Symbol, proc_macro2::Span)>,
}

/// A block's name as written (`billing`), and its hash: both sides of an inclusion (the
/// block's `block = billing`, the main block's `include(billing)`) compute the same one, and
/// the generated code matches them through it (`ToolBlockOf<HASH>`).
pub struct BlockName {
    pub ident: syn::Ident,
    pub hash: u64,
}

impl BlockName {
    fn new(ident: syn::Ident) -> Self {
        let name = ident.to_string();
        let name = name.strip_prefix("r#").unwrap_or(&name);
        // FNV-1a, 64 bits: stable across compilers and runs, unlike `DefaultHasher`.
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for byte in name.bytes() {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
        BlockName { ident, hash }
    }

    /// The name as messages and the registry give it.
    pub fn name(&self) -> String {
        let name = self.ident.to_string();
        name.strip_prefix("r#").unwrap_or(&name).to_owned()
    }
}

/// `key = name`: one identifier.
fn block_name(meta: &syn::meta::ParseNestedMeta) -> syn::Result<BlockName> {
    let expected = "`block` takes the block's name, an identifier: `block = billing`";
    if !meta.input.peek(syn::Token![=]) {
        return Err(attr::key_error(meta, expected));
    }
    let value = meta.value()?;
    let ident: syn::Ident = value
        .parse()
        .map_err(|error| syn::Error::new(error.span(), expected))?;
    Ok(BlockName::new(ident))
}

/// `include(name, ...)`: identifiers, each reported at itself when it is something else.
fn included(meta: &syn::meta::ParseNestedMeta) -> syn::Result<Vec<BlockName>> {
    let expected = "`include` lists the names of the `#[mcp_tools(block = name)]` blocks this \
                    main block serves too: `include(billing, tickets)`";
    if !meta.input.peek(syn::token::Paren) {
        return Err(attr::key_error(meta, expected));
    }
    let mut names = Vec::new();
    meta.parse_nested_meta(|inner| match inner.path.get_ident() {
        Some(ident) if inner.input.is_empty() || inner.input.peek(syn::Token![,]) => {
            names.push(BlockName::new(ident.clone()));
            Ok(())
        }
        _ => Err(syn::Error::new(attr::key_span(&inner), expected)),
    })?;
    Ok(names)
}

/// `#[mcp_tool(...)]`.
#[derive(Default)]
pub struct ToolAttrs {
    pub name: Option<LitStr>,
    /// `spec_name`: this tool's name may use the MCP spec's wider rule (see
    /// [`ServerAttrs::spec_names`]).
    pub spec_name: Option<bool>,
    pub title: Option<LitStr>,
    pub description: Option<LitStr>,
    pub read_only: Option<bool>,
    pub destructive: Option<bool>,
    pub idempotent: Option<bool>,
    pub open_world: Option<bool>,
    /// `timeout_ms = N`: milliseconds, at least 1.
    pub timeout_ms: Option<LitInt>,
    /// `idempotency_key = "field"`: the argument carrying the idempotency key.
    pub idempotency_key: Option<LitStr>,
    /// `requires_approval`: a human decides before the write runs.
    pub requires_approval: Option<bool>,
    /// `approval = "Close ticket {ticketId}"`: the approval text (implies
    /// `requires_approval`).
    pub approval: Option<LitStr>,
    /// `scopes = "tickets:write"`: the OAuth scopes a caller needs (space-separated, all
    /// required; RFC 6749 §3.3).
    pub scopes: Option<LitStr>,
    /// `full_input_schema`: `tools/list` advertises the full JSON Schema 2020-12 input
    /// schema, not its host-portable profile.
    pub full_input_schema: Option<bool>,
    /// `task = "optional" | "required"`: a call may be answered with a task (`true`:
    /// required).
    pub task: Option<bool>,
    /// `task_after_ms = N`: the call becomes a task only past N milliseconds.
    pub task_after_ms: Option<LitInt>,
}

pub fn parse_server(cx: &Ctxt, args: TokenStream) -> ServerAttrs {
    let mut artifacts = Attr::none(cx, ARTIFACTS);
    let mut services = Attr::none(cx, SERVICES);
    let mut spec_names = Attr::none(cx, SPEC_NAMES);
    let mut krate = Attr::none(cx, CRATE);
    let mut block = Attr::none(cx, BLOCK);
    let mut include = Attr::none(cx, INCLUDE);
    let mut server_wide = Vec::new();
    attr::parse_args(cx, args, |meta| {
        if meta.path == ARTIFACTS {
            artifacts.set(attr::key_span(meta), attr::flag(meta)?);
            server_wide.push((ARTIFACTS, attr::key_span(meta)));
        } else if meta.path == SERVICES {
            services.set(attr::key_span(meta), attr::flag(meta)?);
            server_wide.push((SERVICES, attr::key_span(meta)));
        } else if meta.path == BLOCK {
            block.set(attr::key_span(meta), block_name(meta)?);
        } else if meta.path == INCLUDE {
            include.set(attr::key_span(meta), included(meta)?);
            server_wide.push((INCLUDE, attr::key_span(meta)));
        } else if meta.path == SPEC_NAMES {
            spec_names.set(attr::key_span(meta), attr::flag(meta)?);
        } else if meta.path == CRATE {
            krate.set(attr::key_span(meta), attr::crate_path(meta)?);
        } else {
            return Err(attr::key_error(
                meta,
                format!(
                    "unknown `mcp_tools` argument `{}`: expected `artifacts` (the server \
                     implements `mcp_result::store::ArtifactAccess` and stores payloads), \
                     `services` (it implements `mcp_result::ServerServices`), `spec_names` \
                     (tool names may use the MCP spec's wider rule: dots, up to 128 \
                     characters), `block = name` (this block is a named part of the \
                     server's tools), `include(name, ...)` (the main block serves those \
                     blocks too) or {}",
                    attr::key_name(meta),
                    attr::CRATE_HELP
                ),
            ));
        }
        Ok(())
    });
    ServerAttrs {
        artifacts: artifacts.get().unwrap_or(false),
        services: services.get().unwrap_or(false),
        spec_names: spec_names.get().unwrap_or(false),
        krate: krate.get().unwrap_or_else(attr::default_crate),
        block: block.get(),
        include: include.get().unwrap_or_default(),
        server_wide,
    }
}

pub fn is_mcp_tool(attr: &Attribute) -> bool {
    attr.path()
        .segments
        .last()
        .is_some_and(|s| s.ident == "mcp_tool")
}

fn timeout_ms(value: LitInt) -> syn::Result<LitInt> {
    match value.base10_parse::<u64>() {
        Ok(0) | Err(_) => Err(syn::Error::new(
            value.span(),
            "`timeout_ms` is a whole number of milliseconds, at least 1",
        )),
        Ok(_) => Ok(value),
    }
}

pub fn parse_tool(cx: &Ctxt, attribute: &Attribute) -> ToolAttrs {
    let mut name = Attr::none(cx, NAME);
    let mut spec_name = Attr::none(cx, SPEC_NAME);
    let mut title = Attr::none(cx, TITLE);
    let mut description = Attr::none(cx, DESCRIPTION);
    let mut read_only = Attr::none(cx, READ_ONLY);
    let mut destructive = Attr::none(cx, DESTRUCTIVE);
    let mut idempotent = Attr::none(cx, IDEMPOTENT);
    let mut open_world = Attr::none(cx, OPEN_WORLD);
    let mut timeout = Attr::none(cx, TIMEOUT_MS);
    let mut idempotency_key = Attr::none(cx, IDEMPOTENCY_KEY);
    let mut requires_approval = Attr::none(cx, REQUIRES_APPROVAL);
    let mut approval = Attr::none(cx, APPROVAL);
    let mut scopes = Attr::none(cx, SCOPES);
    let mut full_input_schema = Attr::none(cx, FULL_INPUT_SCHEMA);
    let mut task = Attr::none(cx, TASK);
    let mut task_after = Attr::none(cx, TASK_AFTER_MS);
    attr::parse_attr(cx, attribute, |meta| {
        let span = attr::key_span(meta);
        if meta.path == NAME {
            name.set(span, attr::string(meta)?);
        } else if meta.path == SPEC_NAME {
            spec_name.set(span, attr::flag(meta)?);
        } else if meta.path == TITLE {
            title.set(span, attr::string(meta)?);
        } else if meta.path == DESCRIPTION {
            description.set(span, attr::string(meta)?);
        } else if meta.path == READ_ONLY {
            read_only.set(span, attr::flag(meta)?);
        } else if meta.path == DESTRUCTIVE {
            destructive.set(span, attr::flag(meta)?);
        } else if meta.path == IDEMPOTENT {
            idempotent.set(span, attr::flag(meta)?);
        } else if meta.path == OPEN_WORLD {
            open_world.set(span, attr::flag(meta)?);
        } else if meta.path == TIMEOUT_MS {
            timeout.set(span, timeout_ms(meta.value()?.parse()?)?);
        } else if meta.path == IDEMPOTENCY_KEY {
            idempotency_key.set(span, attr::string(meta)?);
        } else if meta.path == REQUIRES_APPROVAL {
            requires_approval.set(span, attr::flag(meta)?);
        } else if meta.path == APPROVAL {
            approval.set(span, attr::string(meta)?);
        } else if meta.path == SCOPES {
            scopes.set(span, attr::string(meta)?);
        } else if meta.path == FULL_INPUT_SCHEMA {
            full_input_schema.set(span, attr::flag(meta)?);
        } else if meta.path == TASK {
            task.set(span, task_support(attr::string(meta)?)?);
        } else if meta.path == TASK_AFTER_MS {
            let value: LitInt = meta.value()?.parse()?;
            value.base10_parse::<u64>().map_err(|_| {
                syn::Error::new(
                    value.span(),
                    "`task_after_ms` is a whole number of milliseconds",
                )
            })?;
            task_after.set(span, value);
        } else {
            let keys: Vec<String> = TOOL_KEYS.iter().map(ToString::to_string).collect();
            return Err(attr::key_error(
                meta,
                format!(
                    "unknown `mcp_tool` key `{}`: expected one of {}",
                    attr::key_name(meta),
                    keys.join(", ")
                ),
            ));
        }
        Ok(())
    });
    read_only.conflicts_with(
        &destructive,
        "a tool cannot be both `read_only` and `destructive`: a read-only tool does not modify \
         its environment; remove one",
    );
    task_after.requires(
        &task,
        "`task_after_ms` applies to a tool whose calls may run as tasks: add `task = \"optional\"` \
         or `task = \"required\"`",
    );
    ToolAttrs {
        name: name.get(),
        spec_name: spec_name.get(),
        title: title.get(),
        description: description.get(),
        read_only: read_only.get(),
        destructive: destructive.get(),
        idempotent: idempotent.get(),
        open_world: open_world.get(),
        timeout_ms: timeout.get(),
        idempotency_key: idempotency_key.get(),
        requires_approval: requires_approval.get(),
        approval: approval.get(),
        scopes: scopes.get(),
        full_input_schema: full_input_schema.get(),
        task: task.get(),
        task_after_ms: task_after.get(),
    }
}

/// `task = "optional"` (`false`) or `"required"` (`true`).
fn task_support(value: LitStr) -> syn::Result<bool> {
    match value.value().as_str() {
        "optional" => Ok(false),
        "required" => Ok(true),
        _ => Err(syn::Error::new(
            value.span(),
            "`task` is \"optional\" (a call becomes a task when the client declares the tasks \
             extension, a plain call otherwise) or \"required\" (a client without the \
             extension is refused with -32021)",
        )),
    }
}
