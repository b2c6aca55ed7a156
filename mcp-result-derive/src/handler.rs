//! `#[mcp_handler]` on `impl rmcp::ServerHandler for T`: adds the tool methods that
//! delegate to `T`'s `#[mcp_tools]` registry, `get_info` (the `tools` capability and the
//! user's crate as `serverInfo`) and `on_custom_request` (a malformed `tools/call` gets
//! `-32602`), leaving any the user wrote.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{ImplItem, ItemImpl};

pub fn mcp_handler(args: TokenStream, input: TokenStream) -> TokenStream {
    let mut item: ItemImpl = match syn::parse2(input) {
        Ok(item) => item,
        Err(error) => return error.to_compile_error(),
    };
    if !args.is_empty() {
        let error = syn::Error::new_spanned(args, "`#[mcp_handler]` takes no arguments");
        return crate::ctxt::with_stub(error, quote!(#item));
    }
    let has = |name: &str| {
        item.items
            .iter()
            .any(|i| matches!(i, ImplItem::Fn(f) if f.sig.ident == name))
    };
    let mut added: Vec<ImplItem> = Vec::new();
    if !has("call_tool") {
        added.push(syn::parse_quote! {
            async fn call_tool(
                &self,
                request: ::mcp_result::__private::rmcp::model::CallToolRequestParams,
                context: ::mcp_result::__private::rmcp::service::RequestContext<
                    ::mcp_result::__private::rmcp::RoleServer,
                >,
            ) -> ::core::result::Result<
                ::mcp_result::__private::rmcp::model::CallToolResponse,
                ::mcp_result::__private::rmcp::ErrorData,
            > {
                ::mcp_result::__private::call_tool(self, request, context).await
            }
        });
    }
    if !has("list_tools") {
        added.push(syn::parse_quote! {
            async fn list_tools(
                &self,
                _request: ::core::option::Option<
                    ::mcp_result::__private::rmcp::model::PaginatedRequestParams,
                >,
                _context: ::mcp_result::__private::rmcp::service::RequestContext<
                    ::mcp_result::__private::rmcp::RoleServer,
                >,
            ) -> ::core::result::Result<
                ::mcp_result::__private::rmcp::model::ListToolsResult,
                ::mcp_result::__private::rmcp::ErrorData,
            > {
                ::mcp_result::__private::list_tools::<Self>()
            }
        });
    }
    if !has("get_tool") {
        added.push(syn::parse_quote! {
            fn get_tool(&self, name: &str)
                -> ::core::option::Option<::mcp_result::__private::rmcp::model::Tool>
            {
                ::mcp_result::__private::tool_for::<Self>(name)
            }
        });
    }
    if !has("read_resource") {
        added.push(syn::parse_quote! {
            async fn read_resource(
                &self,
                request: ::mcp_result::__private::rmcp::model::ReadResourceRequestParams,
                context: ::mcp_result::__private::rmcp::service::RequestContext<
                    ::mcp_result::__private::rmcp::RoleServer,
                >,
            ) -> ::core::result::Result<
                ::mcp_result::__private::rmcp::model::ReadResourceResponse,
                ::mcp_result::__private::rmcp::ErrorData,
            > {
                ::mcp_result::__private::read_resource(self, request, context)
            }
        });
    }
    if !has("get_info") {
        // `env!` expands in the user's crate: the server is named after its package.
        added.push(syn::parse_quote! {
            fn get_info(&self) -> ::mcp_result::__private::rmcp::model::ServerConfig {
                ::mcp_result::__private::server_info::<Self>(
                    ::core::env!("CARGO_PKG_NAME"),
                    ::core::env!("CARGO_PKG_VERSION"),
                )
            }
        });
    }
    if !has("on_custom_request") {
        added.push(syn::parse_quote! {
            async fn on_custom_request(
                &self,
                request: ::mcp_result::__private::rmcp::model::CustomRequest,
                _context: ::mcp_result::__private::rmcp::service::RequestContext<
                    ::mcp_result::__private::rmcp::RoleServer,
                >,
            ) -> ::core::result::Result<
                ::mcp_result::__private::rmcp::model::CustomResult,
                ::mcp_result::__private::rmcp::ErrorData,
            > {
                ::mcp_result::__private::custom_request(request)
            }
        });
    }
    item.items.extend(added);
    quote!(#item)
}
