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
    let glue = server.tools.iter().map(|tool| call_glue(server, tool));
    let defs: Vec<TokenStream> = server
        .tools
        .iter()
        .map(|tool| tool_def(server, tool))
        .collect();
    let type_name = &server.type_name;
    let (impl_generics, _, _) = server.generics.split_for_impl();
    let implemented = match &server.attrs.block {
        None => tool_set(server, &defs),
        // A named block: its tools, for the main block that includes it, and a check that
        // one does (else they would never be served), reported at the block's name.
        Some(block) => {
            let hash = block.hash;
            let name = block.name();
            let where_clause = glue_where(server);
            let included = {
                let span = block.ident.span();
                let krate = crate::attr::respanned(krate, span);
                let server = crate::attr::respanned_tokens(quote!(#self_ty), span);
                quote_spanned! {span=>
                    #[allow(dead_code)]
                    fn __included #impl_generics () #where_clause {
                        let () = #krate::__private::assert_included::<#server, #hash>();
                    }
                }
            };
            quote! {
                #[automatically_derived]
                impl #impl_generics #krate::__private::ToolBlockOf<#hash> for #self_ty
                #where_clause
                {
                    fn tool_block() -> #krate::__private::ToolBlock<Self> {
                        #krate::__private::ToolBlock {
                            server: #type_name,
                            block: ::core::option::Option::Some(#name),
                            tools: ::std::vec![#(#defs),*],
                        }
                    }
                }

                #included
            }
        }
    };
    quote! {
        const _: () = {
            #(#glue)*

            #implemented
        };
    }
}

/// The `ToolSet` impl of the server's main block: its own tools and those of every block it
/// includes, in one registry built once per server type.
fn tool_set(server: &Server, defs: &[TokenStream]) -> TokenStream {
    let krate = &server.attrs.krate;
    let self_ty = &server.self_ty;
    let type_name = &server.type_name;
    let (impl_generics, _, where_clause) = server.generics.split_for_impl();
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
    let clone = {
        let krate = crate::attr::respanned(krate, self_ty.span());
        quote_spanned! {self_ty.span()=>
            fn clone_for_call(&self) -> Self {
                <Self as #krate::__private::ServerClone>::clone_server(self)
            }
        }
    };
    // Each included block, spanned at its name in `include(...)`: a name no block has is
    // reported there.
    let included = server.attrs.include.iter().map(|block| {
        let hash = block.hash;
        let krate = crate::attr::respanned(krate, block.ident.span());
        quote_spanned! {block.ident.span()=>
            <Self as #krate::__private::ToolBlockOf<#hash>>::tool_block()
        }
    });
    let marks = server.attrs.include.iter().map(|block| {
        let hash = block.hash;
        quote! {
            #[automatically_derived]
            impl #impl_generics #krate::__private::IncludesBlock<#hash> for #self_ty #where_clause {}
        }
    });
    let build = quote! {
        || #krate::ToolRegistry::from_blocks(::std::vec![
            #krate::__private::ToolBlock {
                server: #type_name,
                block: ::core::option::Option::None,
                tools: ::std::vec![#(#defs),*],
            },
            #(#included),*
        ])
    };
    // A `static` cannot name the parameters of a generic server: its registries live in a
    // map keyed by the concrete type.
    let registry = if server.is_generic() {
        quote! {
            #krate::__private::registry_per_type::<Self>(#build)
        }
    } else {
        quote! {
            static __REGISTRY: ::std::sync::OnceLock<
                ::core::result::Result<
                    #krate::ToolRegistry<#self_ty>,
                    #krate::RegistryError,
                >,
            > = ::std::sync::OnceLock::new();
            __REGISTRY.get_or_init(#build).as_ref()
        }
    };
    quote! {
        #[automatically_derived]
        impl #impl_generics #krate::ToolSet for #self_ty #where_clause {
            #clone

            fn tool_registry() -> ::core::result::Result<
                &'static #krate::ToolRegistry<Self>,
                &'static #krate::RegistryError,
            > {
                #registry
            }

            #artifacts
            #services
        }

        #(#marks)*
    }
}

/// The where clause of a generic server's call glue and block impls: the impl block's own,
/// and `Self: ToolSet` (which brings `Send + Sync + 'static`, what a tool's future needs).
/// A non-generic server needs nothing added.
fn glue_where(server: &Server) -> Option<syn::WhereClause> {
    let mut generics = server.generics.clone();
    if server.is_generic() {
        let krate = &server.attrs.krate;
        let self_ty = &server.self_ty;
        generics
            .make_where_clause()
            .predicates
            .push(syn::parse_quote!(#self_ty: #krate::ToolSet));
    }
    generics.where_clause
}

fn glue_ident(tool: &Tool) -> syn::Ident {
    format_ident!("__mcp_tool_{}", tool.method)
}

/// A compile-time check of a tool: an item (`const _: () = ...;`) beside the call glue, or,
/// in a generic server, an inline `const` in the glue, where the impl's parameters are in
/// scope (a free item cannot name them; the check then runs for each concrete type).
fn compile_check(server: &Server, span: proc_macro2::Span, expr: TokenStream) -> TokenStream {
    if server.is_generic() {
        quote_spanned! {span=> const { #expr }; }
    } else {
        quote_spanned! {span=> const _: () = #expr; }
    }
}

fn call_glue(server: &Server, tool: &Tool) -> TokenStream {
    let krate = &server.attrs.krate;
    let self_ty = &server.self_ty;
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
                    compile_check(
                        server,
                        output.span(),
                        quote_spanned! {output.span()=>
                            #krate::__private::assert_tool_result::<#ok, #err>()
                        },
                    ),
                    check_error(server, &krate_at(span), err, span),
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
                    compile_check(
                        server,
                        output.span(),
                        quote_spanned! {output.span()=>
                            #krate::__private::assert_tool_result::<#ok, #err>()
                        },
                    ),
                    check_error(server, &krate_at(span), &err, span),
                    quote!(::core::result::Result<#ok, #krate::ToolError>),
                    span,
                )
            }
            ResultParts::None => (
                compile_check(
                    server,
                    output.span(),
                    quote_spanned! {output.span()=>
                        #krate::__private::assert_tool_output::<#output>()
                    },
                ),
                TokenStream::new(),
                quote!(#output),
                name_span(output),
            ),
        };
        let check_write = (!tool.is_read_only())
            .then(|| check_write(server, &krate_at(success_span), &success, success_span));
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
                    return #krate::__private::ToolAnswer::of_error(error);
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
        compile_check(
            server,
            span,
            quote_spanned! {span=> #krate::__private::assert_one_arguments(&[#(#flags),*]) },
        )
    });
    // Each parameter's own configuration check (a `Pager`'s page policy), evaluated here at
    // compile time and reported at the parameter's type.
    let checks = tool.params.iter().map(|ty| {
        let krate = krate_at(ty.span());
        compile_check(
            server,
            ty.span(),
            quote_spanned! {ty.span()=> <#ty as #krate::__private::FromToolCall<_>>::CHECK },
        )
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
                ::core::result::Result::Err(result) => return result.into(),
            };
        }
    };
    let checks = quote! {
        #assert_output
        #one_arguments
        #(#checks)*
    };
    let (outside, inside) = if server.is_generic() {
        (TokenStream::new(), checks)
    } else {
        (checks, TokenStream::new())
    };
    let (impl_generics, _, _) = server.generics.split_for_impl();
    let where_clause = glue_where(server);
    quote! {
        #outside

        #[allow(unused_mut, unused_variables)]
        fn #glue #impl_generics (
            __server: #self_ty,
            mut __call: #krate::__private::ToolCall,
        ) -> #krate::__private::ToolFuture #where_clause {
            #inside
            ::std::boxed::Box::pin(async move {
                #(#extract)*
                #run
                let __scope = __call.scope(#krate::ToolSet::artifact_access(&__server));
                #[allow(unused_imports)]
                use #krate::__private::{ViaFallback as _, ViaToolOutput as _};
                let __result = (&#krate::__private::Probe::<#output>::new()).finish(__output, &__scope);
                __scope.commit(__result).await
            })
        }
    }
}

fn tool_def(server: &Server, tool: &Tool) -> TokenStream {
    let krate = &server.attrs.krate;
    let name = tool.name();
    let method = tool.method.to_string();
    let method = method.strip_prefix("r#").unwrap_or(&method);
    let glue = glue_ident(tool);
    let (_, ty_generics, _) = server.generics.split_for_impl();
    let turbofish = ty_generics.as_turbofish();
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
    // In a generic server the parameter types may name the impl's parameters, which a
    // nested `fn` cannot see: a closure that captures nothing is the same `fn` pointer.
    let (input_schema, extensions) = if server.is_generic() {
        (
            quote! {
                || #krate::__private::tool_input_schema(&[
                    #(<#params as #krate::__private::FromToolCall<_>>::input_schema),*
                ])
            },
            quote! {
                || #krate::__private::tool_extensions(&[
                    #(<#params as #krate::__private::FromToolCall<_>>::tool_extension),*
                ])
            },
        )
    } else {
        (
            quote! {{
                fn __input_schema() -> ::std::sync::Arc<#krate::__private::rmcp::model::JsonObject> {
                    #krate::__private::tool_input_schema(&[
                        #(<#params as #krate::__private::FromToolCall<_>>::input_schema),*
                    ])
                }
                __input_schema
            }},
            quote! {{
                fn __extensions() -> ::std::vec::Vec<#krate::__private::ToolExtension> {
                    #krate::__private::tool_extensions(&[
                        #(<#params as #krate::__private::FromToolCall<_>>::tool_extension),*
                    ])
                }
                __extensions
            }},
        )
    };
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
    let scopes: Vec<String> = tool
        .attrs
        .scopes
        .as_ref()
        .map(|s| {
            s.value()
                .split(' ')
                .filter(|t| !t.is_empty())
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    let full_input_schema = tool.attrs.full_input_schema.unwrap_or(false);
    let task = match (tool.attrs.task, &tool.attrs.task_after_ms) {
        (None, _) => quote!(::core::option::Option::None),
        (Some(required), after) => {
            let support = if required {
                quote!(#krate::task::TaskSupport::required())
            } else {
                quote!(#krate::task::TaskSupport::optional())
            };
            let after = after.as_ref().map(|ms| quote!(.after_ms(#ms)));
            quote!(::core::option::Option::Some(#support #after))
        }
    };
    quote! {
        #krate::__private::ToolDef {
            name: #name,
            method: #method,
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
            bytes_as_numbers: {
                #[allow(unused_imports)]
                use #krate::__private::{ViaFallback as _, ViaToolOutput as _};
                (&#krate::__private::Probe::<#output>::new()).bytes_as_numbers()
            },
            timeout: #timeout,
            idempotency_key: #idempotency_key,
            approval: #approval,
            scopes: &[#(#scopes),*],
            full_input_schema: #full_input_schema,
            task: #task,
            call: #glue #turbofish,
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
fn check_write(
    server: &Server,
    krate: &TokenStream,
    output: &TokenStream,
    span: proc_macro2::Span,
) -> TokenStream {
    compile_check(
        server,
        span,
        quote_spanned! {span=>
            {
                let _ = || {
                    #[allow(unused_imports)]
                    use #krate::__private::{WriteViaContract as _, WriteViaNothing as _};
                    (&&#krate::__private::WriteProbe::<#output>::new()).check_write();
                };
            }
        },
    )
}

/// The check of a tool's error type, spanned at it: `ErrorProbe`'s autoref levels pick the
/// message that names the fix for that kind of type (text, a protocol error, a boxed
/// `dyn Error`, anything else without a conversion into `ToolError`). A method call cannot
/// run in a constant, so it sits in a closure that is never called.
fn check_error(
    server: &Server,
    krate: &TokenStream,
    err: &dyn quote::ToTokens,
    span: proc_macro2::Span,
) -> TokenStream {
    compile_check(
        server,
        span,
        quote_spanned! {span=>
            {
                let _ = || {
                    #[allow(unused_imports)]
                    use #krate::__private::{
                        ErrorViaAnything as _, ErrorViaBoxed as _, ErrorViaConversion as _,
                        ErrorViaProtocol as _, ErrorViaText as _,
                    };
                    (&&&#krate::__private::ErrorProbe::<#err>::new()).check_error();
                };
            }
        },
    )
}
