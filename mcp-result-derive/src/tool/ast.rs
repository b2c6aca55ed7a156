//! The typed view of an `#[mcp_tools]` impl block.

use proc_macro2::TokenStream;
use syn::{FnArg, Ident, ImplItem, ItemImpl, LitStr, ReceiverKind, ReturnType, Type};

use super::attr::{self, ServerAttrs, ToolAttrs};
use crate::ctxt::Ctxt;

pub struct Server {
    pub self_ty: Type,
    /// The impl block's generics (`impl<Db: Store> Server<Db>`): the generated impls and
    /// call glue take the same ones.
    pub generics: syn::Generics,
    /// The server type's name as messages give it: the last segment of its path (`Desk`).
    pub type_name: String,
    /// `#[mcp_tools(...)]`: `artifacts`, `services`, `spec_names`, `block`, `include`,
    /// `crate`.
    pub attrs: ServerAttrs,
    pub tools: Vec<Tool>,
}

pub struct Tool {
    pub method: Ident,
    pub attrs: ToolAttrs,
    /// The method's doc comment, lines joined with `\n`, trimmed.
    pub doc: Option<String>,
    pub is_async: bool,
    /// The types of the parameters after `&self`, each produced by `FromToolCall`.
    pub params: Vec<Type>,
    /// The declared return type.
    pub output: Type,
}

impl Tool {
    /// The tool name and the span to report it at: `name = "..."`, else the method name.
    pub fn name(&self) -> LitStr {
        match &self.attrs.name {
            Some(name) => name.clone(),
            None => {
                let method = self.method.to_string();
                LitStr::new(
                    method.strip_prefix("r#").unwrap_or(&method),
                    self.method.span(),
                )
            }
        }
    }

    /// Whether the name may use the MCP spec's wider rule: `#[mcp_tool(spec_name)]` on the
    /// tool or `#[mcp_tools(spec_names)]` on the server.
    pub fn spec_name(&self, server: &ServerAttrs) -> bool {
        server.spec_names || self.attrs.spec_name == Some(true)
    }

    /// Declared `read_only`; every other tool is a write tool.
    pub fn is_read_only(&self) -> bool {
        self.attrs.read_only == Some(true)
    }
}

impl Server {
    /// Whether the impl block has type, lifetime or const parameters: its registry then
    /// lives in a map keyed by the concrete type (a `static` cannot name a parameter) and its
    /// compile-time checks in its call glue.
    pub fn is_generic(&self) -> bool {
        !self.generics.params.is_empty()
    }

    /// Reads the `#[mcp_tools(...)]` arguments and every `#[mcp_tool]` method of `item`,
    /// removing the attributes it consumes (also on error, so the methods keep compiling).
    /// Errors are recorded in `cx`.
    pub fn take_from(cx: &Ctxt, args: TokenStream, item: &mut ItemImpl) -> Self {
        let attrs = attr::parse_server(cx, args);
        if let Some((path, _)) = &item.trait_ {
            cx.error_spanned_by(
                path,
                "`#[mcp_tools]` goes on an inherent impl block (`impl MyServer { ... }`), \
                 not on a trait impl",
            );
        }
        let mut tools = Vec::new();
        for impl_item in &mut item.items {
            let ImplItem::Fn(method) = impl_item else {
                continue;
            };
            let Some(index) = method.attrs.iter().position(attr::is_mcp_tool) else {
                continue;
            };
            let tool_attr = method.attrs.remove(index);
            if let Some(extra) = method.attrs.iter().find(|a| attr::is_mcp_tool(a)) {
                cx.error_spanned_by(extra, "duplicate `#[mcp_tool]` on one method");
            }
            let tool_attrs = attr::parse_tool(cx, &tool_attr);
            let sig = &method.sig;
            match sig.inputs.first() {
                Some(FnArg::Receiver(receiver))
                    if matches!(receiver.kind, ReceiverKind::Reference(_, _, None)) => {}
                _ => cx.error_spanned_by(
                    &sig.ident,
                    "a tool method takes `&self` first: tools may run concurrently, so they \
                     cannot take `&mut self` or `self`",
                ),
            }
            let mut params = Vec::new();
            for input in sig.inputs.iter().skip(1) {
                let FnArg::Typed(typed) = input else { continue };
                params.push((*typed.ty).clone());
            }
            let output = match &sig.output {
                ReturnType::Type(_, ty) => (**ty).clone(),
                // No return type: `()`, a wrapped `{"result": null}` (a write tool still
                // needs its contract, so this is for read-only tools).
                ReturnType::Default => syn::parse_quote_spanned!(sig.ident.span()=> ()),
            };
            tools.push(Tool {
                method: sig.ident.clone(),
                attrs: tool_attrs,
                doc: doc(&method.attrs),
                is_async: sig.asyncness.is_some(),
                params,
                output,
            });
        }
        // A main block that includes others may hold no tool of its own.
        if tools.is_empty() && attrs.include.is_empty() {
            cx.error_spanned_by(
                &item.self_ty,
                "`#[mcp_tools]` found no `#[mcp_tool]` method in this impl block",
            );
        }
        let type_name = match &*item.self_ty {
            Type::Path(path) => path.path.segments.last().map(|last| last.ident.to_string()),
            _ => None,
        }
        .unwrap_or_else(|| quote::ToTokens::to_token_stream(&item.self_ty).to_string());
        Server {
            self_ty: (*item.self_ty).clone(),
            generics: item.generics.clone(),
            type_name,
            attrs,
            tools,
        }
    }
}

fn doc(attrs: &[syn::Attribute]) -> Option<String> {
    let lines: Vec<String> = attrs
        .iter()
        .filter_map(|attr| match &attr.meta {
            syn::Meta::NameValue(nv) if nv.path.is_ident("doc") => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    // Rustdoc paragraphs: wrapped lines join with a space, blank lines separate paragraphs.
    let mut text = String::new();
    for line in lines.iter().map(|l| l.trim()) {
        if line.is_empty() {
            if !text.is_empty() && !text.ends_with("\n\n") {
                text.push_str("\n\n");
            }
        } else {
            if !text.is_empty() && !text.ends_with('\n') {
                text.push(' ');
            }
            text.push_str(line);
        }
    }
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}
