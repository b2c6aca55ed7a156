//! Every path the macros emit into the runtime crate goes through the crate path:
//! with `crate = "..."`, no `mcp_result` identifier is left in the output.

use proc_macro2::{TokenStream, TokenTree};
use quote::quote;

/// The `mcp_result` identifiers in `tokens` (error messages, in string literals, aside).
fn mcp_result_idents(tokens: TokenStream) -> usize {
    tokens
        .into_iter()
        .map(|tree| match tree {
            TokenTree::Ident(ident) => usize::from(ident == "mcp_result"),
            TokenTree::Group(group) => mcp_result_idents(group.stream()),
            _ => 0,
        })
        .sum()
}

fn derive(input: TokenStream) -> TokenStream {
    crate::result::derive(&syn::parse2(input).expect("a derive input"))
}

#[test]
fn derive_output_goes_through_the_crate_path() {
    let written = quote! {
        #[mcp_result(crate = "::framework::results")]
        #[tool_result(summary = "Saved {name}", summary_audience = "user", json_priority = 0.5)]
        #[serde(rename_all = "camelCase")]
        struct Saved {
            name: String,
            status: Status,
            retry_safe: bool,
            #[serde(skip_serializing_if = "Option::is_none")]
            audit_event_id: Option<AuditEventId>,
            external_id: String,
            #[secret]
            #[serde(skip)]
            token: Secret<String>,
        }
    };
    let default = derive(written.clone());
    assert!(mcp_result_idents(default.clone()) == 0, "{default}");
    assert!(default
        .to_string()
        .contains(":: framework :: results :: ToolResult"));
    assert!(default.to_string().contains("HasAuditEventId"));

    // The stub beside an error, too.
    let broken = derive(quote! {
        #[mcp_result(crate = "renamed")]
        #[tool_result(summary = "{missing}")]
        struct Broken { total: u32 }
    });
    assert!(broken.to_string().contains("compile_error"), "{broken}");
    assert!(mcp_result_idents(broken.clone()) == 0, "{broken}");
}

#[test]
fn derive_defaults_to_mcp_result() {
    let output = derive(quote!(
        struct Found {
            total: u32,
        }
    ));
    assert!(
        output.to_string().contains(":: mcp_result :: ToolResult"),
        "{output}"
    );
}

fn redact(input: TokenStream) -> TokenStream {
    crate::redact::derive(&syn::parse2(input).expect("a derive input"))
}

#[test]
fn redact_output_goes_through_the_crate_path() {
    for written in [
        quote! {
            #[mcp_result(crate = "::framework::results")]
            struct Upstream {
                name: String,
                nested: Vec<Inner>,
                #[secret]
                #[serde(skip)]
                token: Secret<String>,
            }
        },
        quote! {
            #[mcp_result(crate = "::framework::results")]
            enum Credential {
                Key(#[secret] #[serde(skip)] Secret<String>),
                Nested { inner: Option<Inner> },
                Anonymous,
            }
        },
    ] {
        let output = redact(written);
        assert!(!output.to_string().contains("compile_error"), "{output}");
        assert!(mcp_result_idents(output.clone()) == 0, "{output}");
        assert!(
            output
                .to_string()
                .contains(":: framework :: results :: Redacts"),
            "{output}"
        );
    }

    // The stub beside an error, too.
    let broken = redact(quote! {
        #[mcp_result(crate = "renamed")]
        struct Broken {
            #[secret]
            token: Secret<String>,
        }
    });
    assert!(broken.to_string().contains("compile_error"), "{broken}");
    assert!(mcp_result_idents(broken.clone()) == 0, "{broken}");
}

/// `withholds_secrets` is decided per value: a `#[secret]` field (of the variant) answers
/// `true` outright; other fields are probed; a value with neither answers `false`.
#[test]
fn withholds_is_decided_per_value() {
    let body = |input: TokenStream| {
        let output = redact(input).to_string();
        let start = output.find("fn withholds_secrets").expect("the method");
        output[start..].to_owned()
    };
    let secret = body(quote! {
        struct A { name: String, #[secret] #[serde(skip)] token: Secret<String> }
    });
    assert!(secret.contains("{ true }"), "{secret}");
    assert!(!secret.contains("RedactsProbe"), "{secret}");

    let plain = body(quote!(
        struct B;
    ));
    assert!(plain.contains("{ false }"), "{plain}");

    let nested = body(quote! {
        struct C { items: Vec<Upstream>, r#type: String }
    });
    // Strict: every field answers through `Redacts` itself (bound in the where clause), so
    // a secret at any depth reaches the flag.
    assert!(
        nested.contains(":: mcp_result :: Redacts :: withholds_secrets (& self . items)")
            && nested.contains(":: mcp_result :: Redacts :: withholds_secrets (& self . r#type)")
            && !nested.contains("RedactsProbe"),
        "{nested}"
    );
    let bounds = redact(quote! {
        struct C { items: Vec<Upstream>, child: Option<Box<C>> }
    })
    .to_string();
    assert!(
        bounds.contains("Vec < Upstream > : :: mcp_result :: Redacts"),
        "{bounds}"
    );
    assert!(!bounds.contains("Option < Box < C > > :"), "{bounds}");

    let variants = body(quote! {
        enum D {
            Key { #[secret] #[serde(skip)] key: Secret<String> },
            Pair(String, Option<Upstream>),
            None,
        }
    });
    assert!(
        variants.contains("Self :: Key { .. } => true"),
        "{variants}"
    );
    assert!(
        variants.contains("Self :: Pair { 0 : __field0 , 1 : __field1 , .. }"),
        "{variants}"
    );
    assert!(variants.contains("_ => false"), "{variants}");
}

#[test]
fn tools_output_goes_through_the_crate_path() {
    let output = crate::tool::mcp_tools(
        quote!(artifacts, crate = "renamed"),
        quote! {
            impl Server {
                /// Saves.
                #[mcp_tool(timeout_ms = 10, destructive)]
                async fn save(&self, args: Args, cx: Context) -> Result<Saved, ToolError> {
                    todo!()
                }

                /// Counts.
                #[mcp_tool(read_only, title = "Count")]
                fn count(&self) -> Count {
                    todo!()
                }
            }
        },
    );
    assert!(!output.to_string().contains("compile_error"), "{output}");
    assert!(
        output.to_string().contains("renamed :: ToolSet"),
        "{output}"
    );
    assert!(mcp_result_idents(output.clone()) == 0, "{output}");
}

#[test]
fn handler_output_goes_through_the_crate_path() {
    let output = crate::handler::mcp_handler(
        quote!(crate = "renamed"),
        quote!(impl ServerHandler for Server {}),
    );
    assert!(!output.to_string().contains("compile_error"), "{output}");
    assert!(mcp_result_idents(output.clone()) == 0, "{output}");
}

#[test]
fn every_wrong_key_is_reported_at_once() {
    let output = crate::tool::mcp_tools(
        quote!(artefacts, crate = renamed, crate = "a", crate = "b"),
        quote! {
            impl Server {
                /// Saves.
                #[mcp_tool(read_only, readonly, timeout_ms = 0, read_only, name = 3, destructive)]
                fn save(&self) {}
            }
        },
    );
    let text = output.to_string();
    for message in [
        "unknown `mcp_tools` argument `artefacts`",
        "`crate` takes the path of the mcp-result crate as a string",
        "duplicate `crate`: give it once",
        "unknown `mcp_tool` key `readonly`",
        "`timeout_ms` is a whole number of milliseconds, at least 1",
        "duplicate `read_only`: give it once",
        "`name` takes a string",
        "a tool cannot be both `read_only` and `destructive`",
    ] {
        assert!(text.contains(message), "missing {message:?} in {text}");
    }
}
