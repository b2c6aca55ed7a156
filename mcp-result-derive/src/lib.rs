//! Procedural macros of **mcp-result**. Use them through the `mcp-result` crate, which
//! re-exports them: `#[derive(ToolResult)]`, `#[derive(Redact)]`, `#[mcp_tools]`,
//! `#[mcp_tool]` and `#[mcp_handler]`. Each macro's keys are documented on the macro, from
//! `docs/<macro>.md` in this crate; the compiled examples are in the `mcp-result` guide.
//!
//! Each macro runs the same pipeline: parse the input into a typed model with every fact
//! resolved (`ast`, `attr`; serde's attributes through `serde_derive_internals`), validate
//! it (`valid`, collecting every error at the span of what the user must change), then
//! expand (`expand`, code generation only, no error paths). `attr` at the root is the
//! attribute toolkit every macro shares; `fields` is serde's view of a derive input's fields,
//! shared by both derives, as are the `#[secret]` rules of `redact`; `keys` is the derive's
//! copy of the write-contract keys; `shapes` refuses the field types JSON clients cannot take
//! (128-bit integers, bytes as number arrays).

mod attr;
mod ctxt;
mod fields;
mod handler;
mod keys;
mod redact;
mod result;
mod shapes;
#[cfg(test)]
mod tests;
mod tool;

use proc_macro::TokenStream;

#[doc = include_str!("../docs/tool_result.md")]
#[proc_macro_derive(ToolResult, attributes(tool_result, secret, mcp_result))]
pub fn derive_tool_result(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    result::derive(&input).into()
}

#[doc = include_str!("../docs/redact.md")]
#[proc_macro_derive(Redact, attributes(secret, mcp_result))]
pub fn derive_redact(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    redact::derive(&input).into()
}

#[doc = include_str!("../docs/mcp_tools.md")]
#[proc_macro_attribute]
pub fn mcp_tools(args: TokenStream, input: TokenStream) -> TokenStream {
    tool::mcp_tools(args.into(), input.into()).into()
}

#[doc = include_str!("../docs/mcp_tool.md")]
#[proc_macro_attribute]
pub fn mcp_tool(args: TokenStream, input: TokenStream) -> TokenStream {
    tool::stray_mcp_tool(args.into(), input.into()).into()
}

#[doc = include_str!("../docs/mcp_handler.md")]
#[proc_macro_attribute]
pub fn mcp_handler(args: TokenStream, input: TokenStream) -> TokenStream {
    handler::mcp_handler(args.into(), input.into()).into()
}
