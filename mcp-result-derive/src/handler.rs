//! `#[mcp_handler]` on `impl rmcp::ServerHandler for T`: adds the tool methods that
//! delegate to `T`'s `#[mcp_tools]` registry, `get_info` (the `tools` capability and the
//! user's crate as `serverInfo`), `initialize` (which first checks the tools) and
//! `on_custom_request` (a malformed `tools/call` gets `-32602`), leaving any the user wrote.
//! `#[mcp_handler(crate = "...")]` names the runtime crate for a crate that re-exports it;
//! `#[mcp_handler(rmcp_router)]` (the router of `Self::tool_router()`) or
//! `#[mcp_handler(rmcp_router = <expression>)]` serves an rmcp `ToolRouter<Self>` beside the
//! `#[mcp_tools]` tools, evaluated per request as rmcp's `#[tool_handler(router = ...)]`
//! does.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned as _;
use syn::{ImplItem, ItemImpl};

use crate::{
    attr::{self, Attr, Symbol, CRATE},
    ctxt::Ctxt,
};

const RMCP_ROUTER: Symbol = Symbol("rmcp_router");

/// `rmcp_router` or `rmcp_router = <expression>`: the expression, `Self::tool_router()` when
/// none is given (rmcp's `#[tool_handler]` default).
fn rmcp_router(meta: &syn::meta::ParseNestedMeta) -> syn::Result<syn::Expr> {
    if meta.input.peek(syn::Token![=]) {
        meta.value()?.parse()
    } else {
        Ok(syn::parse_quote_spanned!(attr::key_span(meta)=> Self::tool_router()))
    }
}

/// The router expression as messages name it: `Self::tool_router()`, `self.tools`.
fn router_text(router: &syn::Expr) -> String {
    let spaced = quote::ToTokens::to_token_stream(router).to_string();
    let tight = |c: char| matches!(c, ':' | '.' | '(' | ')' | '[' | ']' | '<' | '>' | '&' | '!');
    let chars: Vec<char> = spaced.chars().collect();
    let mut text = String::with_capacity(spaced.len());
    for (i, c) in chars.iter().enumerate() {
        let before = i.checked_sub(1).map(|j| chars[j]);
        let after = chars.get(i + 1).copied();
        if *c == ' ' && (before.is_some_and(tight) || after.is_some_and(tight)) {
            continue;
        }
        text.push(*c);
    }
    text
}

pub fn mcp_handler(args: TokenStream, input: TokenStream) -> TokenStream {
    let mut item: ItemImpl = match syn::parse2(input) {
        Ok(item) => item,
        Err(error) => return error.to_compile_error(),
    };
    let cx = Ctxt::default();
    let mut krate = Attr::none(&cx, CRATE);
    let mut router = Attr::none(&cx, RMCP_ROUTER);
    attr::parse_args(&cx, args, |meta| {
        if meta.path == CRATE {
            krate.set(attr::key_span(meta), attr::crate_path(meta)?);
            Ok(())
        } else if meta.path == RMCP_ROUTER {
            router.set(attr::key_span(meta), rmcp_router(meta)?);
            Ok(())
        } else {
            Err(attr::key_error(
                meta,
                format!(
                    "unknown `mcp_handler` argument `{}`: expected `rmcp_router` (serve the \
                     rmcp `ToolRouter` of `Self::tool_router()` too) or `rmcp_router = \
                     <expression>` (of another `ToolRouter<Self>`), or {}",
                    attr::key_name(meta),
                    attr::CRATE_HELP
                ),
            ))
        }
    });
    let krate = krate.get().unwrap_or_else(attr::default_crate);
    let router = router.get();
    if let Err(error) = cx.check() {
        return crate::ctxt::with_stub(error, quote!(#item));
    }
    // Each answer, from the `#[mcp_tools]` registry alone or, with `rmcp_router`, from it
    // and the rmcp router (evaluated per request, spanned at the user's expression so a
    // wrong type is reported there).
    let (call, list, get, initialize) = match &router {
        None => (
            quote!(#krate::__private::call_tool(self, request, context)),
            quote!(#krate::__private::list_tools_observed::<Self>(request.as_ref(), &context).await),
            quote!(#krate::__private::tool_for::<Self>(name)),
            quote!(#krate::__private::initialize(self, request, context)),
        ),
        Some(expr) => {
            let text = router_text(expr);
            let routes = quote!(&Self::__mcp_rmcp_router(self));
            (
                // The router is a value of this request: the answer borrows it, so it lives
                // in the future beside the boxed call.
                quote! {
                    async move {
                        #krate::__private::call_tool_with_rmcp(
                            self, #routes, #text, request, context,
                        )
                        .await
                    }
                },
                quote! {{
                    let _ = &context;
                    #krate::__private::list_tools_with_rmcp::<Self>(#routes, #text, request.as_ref())
                }},
                quote!(#krate::__private::tool_with_rmcp::<Self>(#routes, name)),
                quote! {
                    #krate::__private::initialize_with_rmcp(self, #routes, #text, request, context)
                },
            )
        }
    };
    let has = |name: &str| {
        item.items
            .iter()
            .any(|i| matches!(i, ImplItem::Fn(f) if f.sig.ident == name))
    };
    let mut added: Vec<ImplItem> = Vec::new();
    if !has("call_tool") {
        // Not an `async fn`: the boxed answer is returned as it is, so the future rmcp moves
        // through its layers is a pointer (`handler::CallFuture`), not the call's state.
        added.push(syn::parse_quote! {
            fn call_tool(
                &self,
                request: #krate::__private::rmcp::model::CallToolRequestParams,
                context: #krate::__private::rmcp::service::RequestContext<
                    #krate::__private::rmcp::RoleServer,
                >,
            ) -> impl ::core::future::Future<
                Output = ::core::result::Result<
                    #krate::__private::rmcp::model::CallToolResponse,
                    #krate::__private::rmcp::ErrorData,
                >,
            > + ::core::marker::Send + '_ {
                #call
            }
        });
    }
    // The answers below that await the framework (a span, a store) return their future
    // boxed, as `call_tool` does: rmcp's `handle_request` holds the future of whichever
    // method a request calls inline, and the largest of them sizes the future that every
    // request, a `tools/call` too, is spawned and moved as.
    if !has("list_tools") {
        added.push(syn::parse_quote! {
            fn list_tools(
                &self,
                request: ::core::option::Option<
                    #krate::__private::rmcp::model::PaginatedRequestParams,
                >,
                context: #krate::__private::rmcp::service::RequestContext<
                    #krate::__private::rmcp::RoleServer,
                >,
            ) -> impl ::core::future::Future<
                Output = ::core::result::Result<
                    #krate::__private::rmcp::model::ListToolsResult,
                    #krate::__private::rmcp::ErrorData,
                >,
            > + ::core::marker::Send + '_ {
                ::std::boxed::Box::pin(async move { #list })
            }
        });
    }
    // The list methods the server leaves to the framework: rmcp's answers, except that a
    // cursor they never issued is `-32602` (MCP "Pagination").
    for (method, result, request_method, capability) in [
        (
            "list_resources",
            "ListResourcesResult",
            "ListResourcesRequestMethod",
            "resources",
        ),
        (
            "list_resource_templates",
            "ListResourceTemplatesResult",
            "ListResourceTemplatesRequestMethod",
            "resources",
        ),
        (
            "list_prompts",
            "ListPromptsResult",
            "ListPromptsRequestMethod",
            "prompts",
        ),
    ] {
        if has(method) {
            continue;
        }
        let method = syn::Ident::new(method, proc_macro2::Span::call_site());
        let result = syn::Ident::new(result, proc_macro2::Span::call_site());
        let request_method = syn::Ident::new(request_method, proc_macro2::Span::call_site());
        let capability = syn::Ident::new(capability, proc_macro2::Span::call_site());
        added.push(syn::parse_quote! {
            async fn #method(
                &self,
                request: ::core::option::Option<
                    #krate::__private::rmcp::model::PaginatedRequestParams,
                >,
                _context: #krate::__private::rmcp::service::RequestContext<
                    #krate::__private::rmcp::RoleServer,
                >,
            ) -> ::core::result::Result<
                #krate::__private::rmcp::model::#result,
                #krate::__private::rmcp::ErrorData,
            > {
                #krate::__private::empty_list::<_, #krate::__private::rmcp::model::#request_method>(
                    #krate::__private::rmcp::ServerHandler::get_info(self)
                        .capabilities
                        .#capability
                        .is_some(),
                    request.as_ref(),
                )
            }
        });
    }
    if !has("get_tool") {
        added.push(syn::parse_quote! {
            fn get_tool(&self, name: &str)
                -> ::core::option::Option<#krate::__private::rmcp::model::Tool>
            {
                #get
            }
        });
    }
    if !has("read_resource") {
        added.push(syn::parse_quote! {
            fn read_resource(
                &self,
                request: #krate::__private::rmcp::model::ReadResourceRequestParams,
                context: #krate::__private::rmcp::service::RequestContext<
                    #krate::__private::rmcp::RoleServer,
                >,
            ) -> impl ::core::future::Future<
                Output = ::core::result::Result<
                    #krate::__private::rmcp::model::ReadResourceResponse,
                    #krate::__private::rmcp::ErrorData,
                >,
            > + ::core::marker::Send + '_ {
                ::std::boxed::Box::pin(#krate::__private::read_resource(self, request, context))
            }
        });
    }
    if !has("get_info") {
        // `env!` expands in the user's crate: the server is named after its package. A
        // server that reads resources of its own declares the `resources` capability (MCP
        // "Resources: Capabilities"), with the subscriptions the framework serves.
        let own_resources = has("read_resource") || has("list_resources");
        added.push(syn::parse_quote! {
            fn get_info(&self) -> #krate::__private::rmcp::model::ServerConfig {
                #krate::__private::server_info_of::<Self>(
                    ::core::env!("CARGO_PKG_NAME"),
                    ::core::env!("CARGO_PKG_VERSION"),
                    #own_resources,
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
                #initialize
            }
        });
    }
    if !has("discover") {
        // `server/discover` (MCP 2026-07-28) advertises no capability of a method that
        // revision removed.
        added.push(syn::parse_quote! {
            async fn discover(
                &self,
                _context: #krate::__private::rmcp::service::RequestContext<
                    #krate::__private::rmcp::RoleServer,
                >,
            ) -> ::core::result::Result<
                #krate::__private::rmcp::model::DiscoverResult,
                #krate::__private::rmcp::ErrorData,
            > {
                ::core::result::Result::Ok(#krate::__private::discover(self))
            }
        });
    }
    if !has("set_level") {
        // Before MCP 2026-07-28 a session sets the level of the `Log` messages it gets.
        added.push(syn::parse_quote! {
            #[allow(deprecated)]
            async fn set_level(
                &self,
                request: #krate::__private::rmcp::model::SetLevelRequestParams,
                context: #krate::__private::rmcp::service::RequestContext<
                    #krate::__private::rmcp::RoleServer,
                >,
            ) -> ::core::result::Result<(), #krate::__private::rmcp::ErrorData> {
                #krate::__private::set_level::<Self>(request, &context)
            }
        });
    }
    // The tasks extension (SEP-2663): rmcp answers `-32601` while no tool runs as a task
    // (the server then declares no extension), `-32021` to a request without it.
    for (method, params, result, answer) in [
        (
            "get_task",
            "GetTaskParams",
            quote!(#krate::__private::rmcp::model::GetTaskResult),
            "get_task",
        ),
        ("update_task", "UpdateTaskParams", quote!(()), "update_task"),
        ("cancel_task", "CancelTaskParams", quote!(()), "cancel_task"),
    ] {
        if has(method) {
            continue;
        }
        let method = syn::Ident::new(method, proc_macro2::Span::call_site());
        let params = syn::Ident::new(params, proc_macro2::Span::call_site());
        let answer = syn::Ident::new(answer, proc_macro2::Span::call_site());
        added.push(syn::parse_quote! {
            fn #method(
                &self,
                request: #krate::__private::rmcp::model::#params,
                context: #krate::__private::rmcp::service::RequestContext<
                    #krate::__private::rmcp::RoleServer,
                >,
            ) -> impl ::core::future::Future<
                Output = ::core::result::Result<#result, #krate::__private::rmcp::ErrorData>,
            > + ::core::marker::Send + '_ {
                ::std::boxed::Box::pin(#krate::__private::#answer(self, request, context))
            }
        });
    }
    // Change notifications: the 2026-07-28 `subscriptions/listen` stream and, before it, a
    // session's `resources/subscribe`, from the instance's `Subscriptions`.
    if !has("accepted_subscription_filter") {
        added.push(syn::parse_quote! {
            fn accepted_subscription_filter(
                &self,
                requested: &#krate::__private::rmcp::model::SubscriptionFilter,
            ) -> ::core::option::Option<#krate::__private::rmcp::model::SubscriptionFilter> {
                #krate::__private::accepted_subscription_filter(requested)
            }
        });
    }
    if !has("listen") {
        added.push(syn::parse_quote! {
            fn listen(
                &self,
                subscription: #krate::__private::rmcp::service::SubscriptionContext,
            ) -> impl ::core::future::Future<
                Output = ::core::result::Result<(), #krate::__private::rmcp::ErrorData>,
            > + ::core::marker::Send + '_ {
                ::std::boxed::Box::pin(#krate::__private::listen(self, subscription))
            }
        });
    }
    if !has("subscribe") {
        added.push(syn::parse_quote! {
            #[allow(deprecated)]
            async fn subscribe(
                &self,
                request: #krate::__private::rmcp::model::SubscribeRequestParams,
                context: #krate::__private::rmcp::service::RequestContext<
                    #krate::__private::rmcp::RoleServer,
                >,
            ) -> ::core::result::Result<(), #krate::__private::rmcp::ErrorData> {
                #krate::__private::subscribe::<Self>(request, &context)
            }
        });
    }
    if !has("unsubscribe") {
        added.push(syn::parse_quote! {
            #[allow(deprecated)]
            async fn unsubscribe(
                &self,
                request: #krate::__private::rmcp::model::UnsubscribeRequestParams,
                context: #krate::__private::rmcp::service::RequestContext<
                    #krate::__private::rmcp::RoleServer,
                >,
            ) -> ::core::result::Result<(), #krate::__private::rmcp::ErrorData> {
                #krate::__private::unsubscribe::<Self>(&request, &context)
            }
        });
    }
    if !has("on_custom_request") {
        added.push(syn::parse_quote! {
            async fn on_custom_request(
                &self,
                request: #krate::__private::rmcp::model::CustomRequest,
                context: #krate::__private::rmcp::service::RequestContext<
                    #krate::__private::rmcp::RoleServer,
                >,
            ) -> ::core::result::Result<
                #krate::__private::rmcp::model::CustomResult,
                #krate::__private::rmcp::ErrorData,
            > {
                #krate::__private::custom_request(request, &context)
            }
        });
    }
    item.items.extend(added);
    // The router expression is written once, in a method of the server's own, so a wrong
    // type is one error at the expression. It is evaluated per request, like rmcp's
    // `#[tool_handler(router = ...)]`; a router held in a field is cloned (its routes are
    // `Arc`s).
    let router = router.map(|expr| {
        let self_ty = &item.self_ty;
        let (impl_generics, _, where_clause) = item.generics.split_for_impl();
        let router_type = quote_spanned! {expr.span()=>
            #krate::__private::rmcp::handler::server::router::tool::ToolRouter<Self>
        };
        let borrowed = quote_spanned!(expr.span()=> &(#expr));
        quote! {
            #[automatically_derived]
            impl #impl_generics #self_ty #where_clause {
                #[doc(hidden)]
                fn __mcp_rmcp_router(&self) -> #router_type {
                    let __router: &#router_type = #borrowed;
                    ::core::clone::Clone::clone(__router)
                }
            }
        }
    });
    quote!(#item #router)
}
