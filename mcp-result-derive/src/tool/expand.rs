//! Code generation for `#[mcp_tools]`. No error paths: `valid` ran first. Every path into
//! the runtime crate goes through `server.attrs.krate` (`::mcp_result` unless
//! `#[mcp_tools(crate = "...")]`).

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::ast::{Server, Tool};

pub fn expand(server: &Server) -> TokenStream {
    let krate = &server.attrs.krate;
    let self_ty = &server.self_ty;
    let artifacts = server.attrs.artifacts.then(|| {
        quote! {
            fn artifact_access(&self) -> ::core::option::Option<&dyn #krate::store::ArtifactAccess> {
                ::core::option::Option::Some(self)
            }

            const ARTIFACTS: bool = true;
        }
    });
    let services = server.attrs.services.then(|| {
        quote! {
            fn services(&self) -> ::core::option::Option<&dyn #krate::ServerServices> {
                ::core::option::Option::Some(self)
            }
        }
    });
    let glue = server
        .tools
        .iter()
        .map(|tool| call_glue(krate, self_ty, tool));
    let defs = server.tools.iter().map(|tool| tool_def(krate, tool));
    let clone = {
        let krate = crate::attr::respanned(krate, self_ty.span());
        quote_spanned! {self_ty.span()=>
            fn clone_for_call(&self) -> Self {
                <Self as #krate::__private::ServerClone>::clone_server(self)
            }
        }
    };
    quote! {
        const _: () = {
            #(#glue)*

            #[automatically_derived]
            impl #krate::ToolSet for #self_ty {
                #clone

                fn tool_registry() -> ::core::result::Result<
                    &'static #krate::ToolRegistry<Self>,
                    &'static #krate::RegistryError,
                > {
                    static __REGISTRY: ::std::sync::OnceLock<
                        ::core::result::Result<
                            #krate::ToolRegistry<#self_ty>,
                            #krate::RegistryError,
                        >,
                    > = ::std::sync::OnceLock::new();
                    __REGISTRY
                        .get_or_init(|| #krate::ToolRegistry::new(::std::vec![#(#defs),*]))
                        .as_ref()
                }

                #artifacts
                #services
            }
        };
    }
}

fn glue_ident(tool: &Tool) -> syn::Ident {
    format_ident!("__mcp_tool_{}", tool.method)
}

fn call_glue(krate: &syn::Path, self_ty: &syn::Type, tool: &Tool) -> TokenStream {
    let glue = glue_ident(tool);
    let method = &tool.method;
    let output = &tool.output;
    // Inside `quote_spanned!`, the crate path too is spanned at the user's type, so an
    // error there points at one place.
    let krate_at = |span| crate::attr::respanned(krate, span);
    // The return type is checked where the user wrote it; a `Result<T, E>` part by part, so
    // `T` and `E` each get their own message. Write tools (not declared read-only: MCP's
    // `readOnlyHint` defaults to false) must also return the write contract, checked on the
    // success type alone (`Result<T, ToolError>`), so a bad `E` hides no contract error.
    let assert_output = {
        let krate = krate_at(output.span());
        let (read, check_error, success, success_span) = match result_parts(output) {
            ResultParts::Written(ok, err) => {
                let span = name_span(err);
                (
                    quote_spanned! {output.span()=>
                        const _: () = #krate::__private::assert_tool_result::<#ok, #err>();
                    },
                    check_error(&krate_at(span), err, span),
                    quote!(::core::result::Result<#ok, #krate::ToolError>),
                    name_span(ok),
                )
            }
            ResultParts::Alias => {
                let ok = quote_spanned! {output.span()=>
                    <#output as #krate::__private::ResultParts>::Ok
                };
                let err = quote_spanned! {output.span()=>
                    <#output as #krate::__private::ResultParts>::Err
                };
                let span = name_span(output);
                (
                    quote_spanned! {output.span()=>
                        const _: () = #krate::__private::assert_tool_result::<#ok, #err>();
                    },
                    check_error(&krate_at(span), &err, span),
                    quote!(::core::result::Result<#ok, #krate::ToolError>),
                    span,
                )
            }
            ResultParts::None => (
                quote_spanned! {output.span()=>
                    const _: () = #krate::__private::assert_tool_output::<#output>();
                },
                TokenStream::new(),
                quote!(#output),
                name_span(output),
            ),
        };
        let check_write = (!tool.is_read_only())
            .then(|| check_write(&krate_at(success_span), &success, success_span));
        quote! {
            #read
            #check_error
            #check_write
        }
    };
    // Every parameter goes through `FromToolCall`, spanned at its type so a type that is
    // neither an arguments type nor an extractor is reported there.
    let names: Vec<syn::Ident> = (0..tool.params.len())
        .map(|i| format_ident!("__p{}", i))
        .collect();
    let extract = tool.params.iter().zip(&names).map(|(ty, name)| {
        let krate = krate_at(ty.span());
        quote_spanned! {ty.span()=>
            let #name = match <#ty as #krate::__private::FromToolCall<_>>::from_tool_call(
                &mut __call,
            ) {
                ::core::result::Result::Ok(value) => value,
                ::core::result::Result::Err(error) => {
                    return #krate::__private::error_result(&error);
                }
            };
        }
    });
    let one_arguments = (tool.params.len() > 1).then(|| {
        let flags = tool.params.iter().map(|ty| {
            let krate = krate_at(ty.span());
            quote_spanned!(ty.span()=> <#ty as #krate::__private::FromToolCall<_>>::ARGUMENTS)
        });
        let span = tool.params[1].span();
        let krate = krate_at(span);
        quote_spanned! {span=>
            const _: () = #krate::__private::assert_one_arguments(&[#(#flags),*]);
        }
    });
    // Each parameter's own configuration check (a `Pager`'s page policy), evaluated here at
    // compile time and reported at the parameter's type.
    let checks = tool.params.iter().map(|ty| {
        let krate = krate_at(ty.span());
        quote_spanned! {ty.span()=>
            const _: () = <#ty as #krate::__private::FromToolCall<_>>::CHECK;
        }
    });
    // An `async` method runs on the call's task; a synchronous one on a blocking thread, so
    // it never stalls the async workers and its time limit holds.
    let run = if tool.is_async {
        quote! {
            let __output = __server.#method(#(#names),*).await;
        }
    } else {
        let name = tool.name();
        quote! {
            let (__server, __output) = match #krate::__private::run_blocking(#name, move || {
                let __output = __server.#method(#(#names),*);
                (__server, __output)
            })
            .await
            {
                ::core::result::Result::Ok(done) => done,
                ::core::result::Result::Err(result) => return result,
            };
        }
    };
    quote! {
        #assert_output
        #one_arguments
        #(#checks)*

        #[allow(unused_mut, unused_variables)]
        fn #glue(
            __server: #self_ty,
            mut __call: #krate::__private::ToolCall,
        ) -> #krate::__private::ToolFuture {
            ::std::boxed::Box::pin(async move {
                #(#extract)*
                #run
                let __scope = __call.scope(&__server);
                #[allow(unused_imports)]
                use #krate::__private::{ViaFallback as _, ViaToolOutput as _};
                let __result = (&#krate::__private::Probe::<#output>::new()).finish(__output, &__scope);
                __scope.commit(__result).await
            })
        }
    }
}

fn tool_def(krate: &syn::Path, tool: &Tool) -> TokenStream {
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
    let hint = |flag: Option<bool>, method: &str| {
        flag.map(|value| {
            let method = format_ident!("{}", method);
            quote!(.#method(#value))
        })
    };
    let destructive = hint(tool.attrs.destructive, "destructive");
    let idempotent = hint(tool.attrs.idempotent, "idempotent");
    let open_world = hint(tool.attrs.open_world, "open_world");
    let params = &tool.params;
    let input_schema = quote! {{
        fn __input_schema() -> ::std::sync::Arc<#krate::__private::rmcp::model::JsonObject> {
            #krate::__private::tool_input_schema(&[
                #(<#params as #krate::__private::FromToolCall<_>>::input_schema),*
            ])
        }
        __input_schema
    }};
    let extensions = quote! {{
        fn __extensions() -> ::std::vec::Vec<#krate::__private::ToolExtension> {
            #krate::__private::tool_extensions(&[
                #(<#params as #krate::__private::FromToolCall<_>>::tool_extension),*
            ])
        }
        __extensions
    }};
    let timeout = match &tool.attrs.timeout_ms {
        Some(ms) => quote!(::core::option::Option::Some(::core::time::Duration::from_millis(#ms))),
        None => quote!(::core::option::Option::None),
    };
    let idempotency_key = match &tool.attrs.idempotency_key {
        Some(field) => quote!(::core::option::Option::Some(#field)),
        None => quote!(::core::option::Option::None),
    };
    let approval = match (&tool.attrs.approval, tool.attrs.requires_approval) {
        (Some(text), _) => quote!(::core::option::Option::Some(#text)),
        (None, Some(true)) => quote!(::core::option::Option::Some("")),
        (None, _) => quote!(::core::option::Option::None),
    };
    quote! {
        #krate::ToolDef {
            name: #name,
            title: #title,
            description: #description,
            annotations: #krate::__private::rmcp::model::ToolAnnotations::new()
                .read_only(#read_only)
                #destructive
                #idempotent
                #open_world,
            input_schema: #input_schema,
            extensions: #extensions,
            output: {
                #[allow(unused_imports)]
                use #krate::__private::{ViaFallback as _, ViaToolOutput as _};
                (&#krate::__private::Probe::<#output>::new()).output_shape()
            },
            timeout: #timeout,
            idempotency_key: #idempotency_key,
            approval: #approval,
            call: #glue,
        }
    }
}

/// How a return type spells a `Result`, so its two parts are checked apart and each gets its
/// own message.
enum ResultParts<'a> {
    /// `Result<T, E>` written out (any path ending in `Result` with two type arguments).
    Written(&'a syn::Type, &'a syn::Type),
    /// A path ending in `Result` with one type argument: an alias (`anyhow::Result<T>`,
    /// `io::Result<T>`), taken apart through `ResultParts` in the generated code.
    Alias,
    /// Anything else: checked whole.
    None,
}

fn result_parts(ty: &syn::Type) -> ResultParts<'_> {
    let syn::Type::Path(path) = ty else {
        return ResultParts::None;
    };
    let Some(last) = path.path.segments.last() else {
        return ResultParts::None;
    };
    if last.ident != "Result" {
        return ResultParts::None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return ResultParts::None;
    };
    let mut types = args.args.iter().filter_map(|arg| match arg {
        syn::GenericArgument::Type(ty) => Some(ty),
        _ => None,
    });
    match (types.next(), types.next(), types.next()) {
        (Some(ok), Some(err), None) => ResultParts::Written(ok, err),
        (Some(_), None, None) => ResultParts::Alias,
        _ => ResultParts::None,
    }
}

/// The span of the token that names `ty`: the last segment of a path (`ErrorData` in
/// `rmcp::ErrorData`, `Result` in `io::Result<T>`), through references. A span covers one
/// token on stable Rust, and the first token of a path is a module.
fn name_span(ty: &syn::Type) -> proc_macro2::Span {
    match ty {
        syn::Type::Path(path) => path
            .path
            .segments
            .last()
            .map_or_else(|| ty.span(), |last| last.ident.span()),
        syn::Type::Reference(reference) => name_span(&reference.elem),
        syn::Type::Paren(inner) => name_span(&inner.elem),
        syn::Type::Group(inner) => name_span(&inner.elem),
        _ => ty.span(),
    }
}

/// The write contract of a write tool's return type `output` (its error type already
/// replaced by `ToolError`), spanned at its success type: `WriteProbe`'s autoref levels
/// require the contract of a tool output, and report nothing for a type that is none (its
/// own check says what to return instead). In a closure for the same reason as
/// [`check_error`].
fn check_write(krate: &TokenStream, output: &TokenStream, span: proc_macro2::Span) -> TokenStream {
    quote_spanned! {span=>
        const _: () = {
            let _ = || {
                #[allow(unused_imports)]
                use #krate::__private::{WriteViaContract as _, WriteViaNothing as _};
                (&&#krate::__private::WriteProbe::<#output>::new()).check_write();
            };
        };
    }
}

/// The check of a tool's error type, spanned at it: `ErrorProbe`'s autoref levels pick the
/// message that names the fix for that kind of type (text, a protocol error, a boxed
/// `dyn Error`, anything else without a conversion into `ToolError`). A method call cannot
/// run in a constant, so it sits in a closure that is never called.
fn check_error(
    krate: &TokenStream,
    err: &dyn quote::ToTokens,
    span: proc_macro2::Span,
) -> TokenStream {
    quote_spanned! {span=>
        const _: () = {
            let _ = || {
                #[allow(unused_imports)]
                use #krate::__private::{
                    ErrorViaAnything as _, ErrorViaBoxed as _, ErrorViaConversion as _,
                    ErrorViaProtocol as _, ErrorViaText as _,
                };
                (&&&#krate::__private::ErrorProbe::<#err>::new()).check_error();
            };
        };
    }
}
