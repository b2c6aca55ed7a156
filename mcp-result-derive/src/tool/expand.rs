//! Code generation for `#[mcp_tools]`. No error paths: `valid` ran first.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::ast::{Param, Server, Tool};

pub fn expand(server: &Server) -> TokenStream {
    let self_ty = &server.self_ty;
    let artifacts = server.artifacts.then(|| {
        quote! {
            fn artifact_access(&self) -> ::core::option::Option<&dyn ::mcp_result::ArtifactAccess> {
                ::core::option::Option::Some(self)
            }
        }
    });
    let glue = server.tools.iter().map(|tool| call_glue(self_ty, tool));
    let defs = server.tools.iter().map(tool_def);
    quote! {
        const _: () = {
            #(#glue)*

            #[automatically_derived]
            impl ::mcp_result::ToolSet for #self_ty {
                fn tool_router() -> ::core::result::Result<
                    &'static ::mcp_result::ToolRouter<Self>,
                    &'static ::mcp_result::RouterError,
                > {
                    static __ROUTER: ::std::sync::OnceLock<
                        ::core::result::Result<
                            ::mcp_result::ToolRouter<#self_ty>,
                            ::mcp_result::RouterError,
                        >,
                    > = ::std::sync::OnceLock::new();
                    __ROUTER
                        .get_or_init(|| ::mcp_result::ToolRouter::new(::std::vec![#(#defs),*]))
                        .as_ref()
                }

                #artifacts
            }
        };
    }
}

fn glue_ident(tool: &Tool) -> syn::Ident {
    format_ident!("__mcp_tool_{}", tool.method)
}

fn call_glue(self_ty: &syn::Type, tool: &Tool) -> TokenStream {
    let glue = glue_ident(tool);
    let method = &tool.method;
    let output = &tool.output;
    // Write tools (not declared read-only: MCP's `readOnlyHint` defaults to false) must
    // return the write contract; that check implies the plain one. A return type written as
    // `Result<T, E>` is checked part by part so `E` gets its own message.
    let (plain, parts) = if tool.is_read_only() {
        (quote!(assert_tool_output), quote!(assert_tool_result))
    } else {
        (quote!(assert_write_output), quote!(assert_write_result))
    };
    let assert_output = match result_parts(output) {
        Some((ok, err)) => quote_spanned! {output.span()=>
            const _: () = ::mcp_result::__private::#parts::<#ok, #err>();
        },
        None => quote_spanned! {output.span()=>
            const _: () = ::mcp_result::__private::#plain::<#output>();
        },
    };
    let deserialize = tool.arguments().map(|ty| {
        quote! {
            let __args: #ty = match ::mcp_result::__private::deserialize_arguments(__arguments) {
                ::core::result::Result::Ok(args) => args,
                ::core::result::Result::Err(error) => {
                    return ::mcp_result::__private::error_result(&error);
                }
            };
        }
    });
    let uses_context = tool.params.iter().any(|p| matches!(p, Param::Context));
    let args = tool.params.iter().map(|param| match param {
        Param::Arguments(_) => quote!(__args),
        Param::Context => quote!(__context),
    });
    let unused = (!uses_context).then(|| quote!(let _ = __context;));
    let unused_args = tool
        .arguments()
        .is_none()
        .then(|| quote!(let _ = __arguments;));
    let await_ = tool.is_async.then(|| quote!(.await));
    quote! {
        #assert_output

        fn #glue<'__a>(
            __server: &'__a #self_ty,
            __arguments: ::mcp_result::__private::serde_json::Value,
            __context: ::mcp_result::__private::rmcp::service::RequestContext<
                ::mcp_result::__private::rmcp::RoleServer,
            >,
            __scope: ::core::option::Option<::mcp_result::SpillScope<'__a>>,
        ) -> ::mcp_result::__private::ToolFuture<'__a> {
            ::std::boxed::Box::pin(async move {
                #unused
                #unused_args
                #deserialize
                let __output = __server.#method(#(#args),*)#await_;
                #[allow(unused_imports)]
                use ::mcp_result::__private::{ViaFallback as _, ViaToolOutput as _};
                (&::mcp_result::__private::Probe::<#output>::new())
                    .finish(__output, __scope.as_ref())
            })
        }
    }
}

fn tool_def(tool: &Tool) -> TokenStream {
    let name = tool.name();
    let glue = glue_ident(tool);
    let output = &tool.output;
    let title = match &tool.attrs.title {
        Some(title) => quote!(::core::option::Option::Some(#title)),
        None => quote!(::core::option::Option::None),
    };
    let description = match (&tool.attrs.description, &tool.doc) {
        (Some(description), _) => quote!(#description),
        (None, Some(doc)) => quote!(#doc),
        (None, None) => quote!(""),
    };
    let read_only = tool.is_read_only();
    let hint = |flag: Option<super::attr::Flag>, method: &str| {
        flag.map(|flag| {
            let method = format_ident!("{}", method);
            let value = flag.value;
            quote!(.#method(#value))
        })
    };
    let destructive = hint(tool.attrs.destructive, "destructive");
    let idempotent = hint(tool.attrs.idempotent, "idempotent");
    let open_world = hint(tool.attrs.open_world, "open_world");
    let input_schema = match tool.arguments() {
        Some(ty) => quote_spanned!(ty.span()=> ::mcp_result::schema::input_schema::<#ty>),
        None => quote!(::mcp_result::schema::empty_input_schema),
    };
    let timeout = match &tool.attrs.timeout_ms {
        Some(ms) => quote!(::core::option::Option::Some(::core::time::Duration::from_millis(#ms))),
        None => quote!(::core::option::Option::None),
    };
    quote! {
        ::mcp_result::ToolDef {
            name: #name,
            title: #title,
            description: #description,
            annotations: ::mcp_result::__private::rmcp::model::ToolAnnotations::new()
                .read_only(#read_only)
                #destructive
                #idempotent
                #open_world,
            input_schema: #input_schema,
            output: {
                #[allow(unused_imports)]
                use ::mcp_result::__private::{ViaFallback as _, ViaToolOutput as _};
                (&::mcp_result::__private::Probe::<#output>::new()).output_shape()
            },
            timeout: #timeout,
            call: #glue,
        }
    }
}

/// `T` and `E` of a return type written `Result<T, E>` (any path ending in `Result` with two
/// type arguments); `None` for other spellings, which get the whole-type check.
fn result_parts(ty: &syn::Type) -> Option<(&syn::Type, &syn::Type)> {
    let syn::Type::Path(path) = ty else {
        return None;
    };
    let last = path.path.segments.last()?;
    if last.ident != "Result" {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    let mut types = args.args.iter().filter_map(|arg| match arg {
        syn::GenericArgument::Type(ty) => Some(ty),
        _ => None,
    });
    match (types.next(), types.next(), types.next()) {
        (Some(ok), Some(err), None) => Some((ok, err)),
        _ => None,
    }
}
