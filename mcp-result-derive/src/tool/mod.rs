//! `#[mcp_tools]` on an `impl` block and `#[mcp_tool]` on its methods: parse (`ast`,
//! `attr`) → validate (`valid`) → expand (`expand`).

mod ast;
mod attr;
mod expand;
mod valid;

use proc_macro2::TokenStream;
use quote::quote;

use crate::ctxt::{self, Ctxt};

pub fn mcp_tools(args: TokenStream, input: TokenStream) -> TokenStream {
    let mut item: syn::ItemImpl = match syn::parse2(input) {
        Ok(item) => item,
        Err(error) => return error.to_compile_error(),
    };
    let cx = Ctxt::default();
    let server = ast::Server::take_from(&cx, args, &mut item);
    match cx.check().and_then(|()| valid::validate(&server)) {
        Ok(()) => {
            let generated = expand::expand(&server);
            quote!(#item #generated)
        }
        // The methods keep compiling (their `#[mcp_tool]` attributes are already removed),
        // so the user sees only the real error.
        Err(error) => ctxt::with_stub(error, quote!(#item)),
    }
}

/// `#[mcp_tool]` reached on its own: the method is not inside an `#[mcp_tools]` block, so
/// nothing would register it. A compile error, never a silently missing tool.
pub fn stray_mcp_tool(args: TokenStream, input: TokenStream) -> TokenStream {
    let error = syn::Error::new(
        proc_macro2::Span::call_site(),
        "`#[mcp_tool]` is registered by `#[mcp_tools]` on the enclosing `impl` block: add \
         `#[mcp_tools]` above `impl YourServer { ... }`, or this tool would never be served",
    );
    let _ = args;
    ctxt::with_stub(error, input)
}
