//! `#[mcp_handler]` on `impl rmcp::ServerHandler for T`: adds the tool methods that
//! delegate to `T`'s `#[mcp_tools]` registry, `get_info` (the `tools` capability and the
//! user's crate as `serverInfo`), `initialize` (which first checks the tools) and
//! `on_custom_request` (a malformed `tools/call` gets `-32602`), leaving any the user wrote. `#[mcp_handler(crate = "...")]` names the runtime
//! crate for a crate that re-exports it.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{ImplItem, ItemImpl};

use crate::{
    attr::{self, Attr, CRATE},
    ctxt::Ctxt,
};

pub fn mcp_handler(args: TokenStream, input: TokenStream) -> TokenStream {
    let mut item: ItemImpl = match syn::parse2(input) {
        Ok(item) => item,
        Err(error) => return error.to_compile_error(),
    };
    let cx = Ctxt::default();
    let mut krate = Attr::none(&cx, CRATE);
    attr::parse_args(&cx, args, |meta| {
        if meta.path == CRATE {
            krate.set(attr::key_span(meta), attr::crate_path(meta)?);
            Ok(())
        } else {
            Err(attr::key_error(
                meta,
                format!(
                    "unknown `mcp_handler` argument `{}`: expected {}",
                    attr::key_name(meta),
                    attr::CRATE_HELP
                ),
            ))
        }
    });
    let krate = krate.get().unwrap_or_else(attr::default_crate);
    if let Err(error) = cx.check() {
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
                request: #krate::__private::rmcp::model::CallToolRequestParams,
                context: #krate::__private::rmcp::service::RequestContext<
                    #krate::__private::rmcp::RoleServer,
                >,
            ) -> ::core::result::Result<
                #krate::__private::rmcp::model::CallToolResponse,
                #krate::__private::rmcp::ErrorData,
            > {
                #krate::__private::call_tool(self, request, context).await
            }
        });
    }
    if !has("list_tools") {
        added.push(syn::parse_quote! {
            async fn list_tools(
                &self,
                _request: ::core::option::Option<
                    #krate::__private::rmcp::model::PaginatedRequestParams,
                >,
                _context: #krate::__private::rmcp::service::RequestContext<
                    #krate::__private::rmcp::RoleServer,
                >,
            ) -> ::core::result::Result<
                #krate::__private::rmcp::model::ListToolsResult,
                #krate::__private::rmcp::ErrorData,
            > {
                #krate::__private::list_tools::<Self>()
            }
        });
    }
    if !has("get_tool") {
        added.push(syn::parse_quote! {
            fn get_tool(&self, name: &str)
                -> ::core::option::Option<#krate::__private::rmcp::model::Tool>
            {
                #krate::__private::tool_for::<Self>(name)
            }
        });
    }
    if !has("read_resource") {
        added.push(syn::parse_quote! {
            async fn read_resource(
                &self,
                request: #krate::__private::rmcp::model::ReadResourceRequestParams,
                context: #krate::__private::rmcp::service::RequestContext<
                    #krate::__private::rmcp::RoleServer,
                >,
            ) -> ::core::result::Result<
                #krate::__private::rmcp::model::ReadResourceResponse,
                #krate::__private::rmcp::ErrorData,
            > {
                #krate::__private::read_resource(self, request, context).await
            }
        });
    }
    if !has("get_info") {
        // `env!` expands in the user's crate: the server is named after its package.
        added.push(syn::parse_quote! {
            fn get_info(&self) -> #krate::__private::rmcp::model::ServerConfig {
                #krate::__private::server_info::<Self>(
                    ::core::env!("CARGO_PKG_NAME"),
                    ::core::env!("CARGO_PKG_VERSION"),
                )
            }
        });
    }
    if !has("initialize") {
        // The tools are checked at the handshake: a broken definition fails `initialize`
        // with the tool's name and the fix, not every later request.
        added.push(syn::parse_quote! {
            async fn initialize(
                &self,
                request: #krate::__private::rmcp::model::InitializeRequestParams,
                context: #krate::__private::rmcp::service::RequestContext<
                    #krate::__private::rmcp::RoleServer,
                >,
            ) -> ::core::result::Result<
                #krate::__private::rmcp::model::InitializeResult,
                #krate::__private::rmcp::ErrorData,
            > {
                #krate::__private::initialize(self, request, context)
            }
        });
    }
    if !has("on_custom_request") {
        added.push(syn::parse_quote! {
            async fn on_custom_request(
                &self,
                request: #krate::__private::rmcp::model::CustomRequest,
                _context: #krate::__private::rmcp::service::RequestContext<
                    #krate::__private::rmcp::RoleServer,
                >,
            ) -> ::core::result::Result<
                #krate::__private::rmcp::model::CustomResult,
                #krate::__private::rmcp::ErrorData,
            > {
                #krate::__private::custom_request(request)
            }
        });
    }
    item.items.extend(added);
    quote!(#item)
}
