//! Procedural macros of **mcp-result**. Use them through the `mcp-result` crate, which
//! documents them: `#[derive(ToolResult)]`, `#[derive(Redact)]`, `#[mcp_tools]`,
//! `#[mcp_tool]` and `#[mcp_handler]`.
//!
//! Each macro runs the same pipeline: parse the input into a typed model with every fact
//! resolved (`ast`, `attr`; serde's attributes through `serde_derive_internals`), validate
//! it (`valid`, collecting every error at the span of what the user must change), then
//! expand (`expand`, code generation only, no error paths). `attr` at the root is the
//! attribute toolkit every macro shares; `fields` is serde's view of a derive input's fields,
//! shared by both derives, as are the `#[secret]` rules of `redact`; `keys` is the derive's
//! copy of the write-contract keys.

mod attr;
mod ctxt;
mod fields;
mod handler;
mod keys;
mod redact;
mod result;
#[cfg(test)]
mod tests;
mod tool;

use proc_macro::TokenStream;

/// Derives `mcp_result::ToolResult`. See the `mcp-result` crate for the attributes.
#[proc_macro_derive(ToolResult, attributes(tool_result, secret, mcp_result))]
pub fn derive_tool_result(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    result::derive(&input).into()
}

/// Derives `mcp_result::Redacts` for a struct or enum that a tool result contains, so its
/// `#[secret]` fields count towards the result's `redactionApplied`, at any depth.
///
/// `#[secret]` works as on `#[derive(ToolResult)]`: the field must be a
/// `mcp_result::Secret<T>` and skipped by serde (`#[serde(skip)]` or
/// `#[serde(skip_serializing)]`), or the derive reports it. The generated
/// `withholds_secrets` is decided per value: `true` when the value (for an enum, the
/// variant it is) has a `#[secret]` field, or when another field withholds one (a `Vec`,
/// `Option`, map, `Box` or array of `Redact` types, checked element by element; an empty
/// list or a `None` withholds nothing). A field whose type implements no `Redacts` (a
/// `String`, a type parameter) withholds nothing. `#[mcp_result(crate = "...")]` names the
/// runtime crate, as on `ToolResult`.
///
/// ```ignore
/// #[derive(Serialize, JsonSchema, Redact)]
/// struct Upstream {
///     name: String,
///     #[secret]
///     #[serde(skip)]
///     token: Secret<String>,
/// }
///
/// #[derive(Serialize, JsonSchema, ToolResult)]
/// #[serde(rename_all = "camelCase")]
/// struct Upstreams {
///     items: Vec<Upstream>,
///     redaction_applied: bool, // `true` when `items` is not empty
/// }
/// ```
#[proc_macro_derive(Redact, attributes(secret, mcp_result))]
pub fn derive_redact(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    redact::derive(&input).into()
}

/// Registers the `#[mcp_tool]` methods of an `impl` block as the server's tools.
///
/// A server's tools may live in several blocks: the main block (`#[mcp_tools]`, which
/// implements `ToolSet` and holds the server-wide keys) lists the named ones it serves,
/// `#[mcp_tools(include(billing))]`, and each of those is `#[mcp_tools(block = billing)]`.
/// The impl block may be generic (`impl<Db: Store> Server<Db>`): each concrete type gets its
/// own registry.
#[proc_macro_attribute]
pub fn mcp_tools(args: TokenStream, input: TokenStream) -> TokenStream {
    tool::mcp_tools(args.into(), input.into()).into()
}

/// Marks a method as an MCP tool. Only meaningful inside an `impl` block annotated with
/// `#[mcp_tools]`, which reads and removes it; anywhere else it is a compile error, so a
/// tool can never be silently left unregistered.
#[proc_macro_attribute]
pub fn mcp_tool(args: TokenStream, input: TokenStream) -> TokenStream {
    tool::stray_mcp_tool(args.into(), input.into()).into()
}

/// Fills in `list_tools`, `call_tool`, `get_tool` and `on_custom_request` (when absent) of an
/// `impl rmcp::ServerHandler for T` block from `T`'s `#[mcp_tools]`.
///
/// `#[mcp_handler(rmcp_router)]` also serves the rmcp `ToolRouter<T>` of `Self::tool_router()`
/// (`rmcp_router = <expression>` for another one, evaluated per request): the union of both
/// sets, a name in both refused when the server starts.
#[proc_macro_attribute]
pub fn mcp_handler(args: TokenStream, input: TokenStream) -> TokenStream {
    handler::mcp_handler(args.into(), input.into()).into()
}
