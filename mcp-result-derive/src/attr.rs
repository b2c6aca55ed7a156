//! The attribute toolkit of every macro in this crate (serde_derive's `Attr<T>` habit).
//!
//! Each key is a [`Symbol`]; each value an [`Attr`], which keeps the first setting with the
//! span of its key and reports a repeated key, or two keys that cannot hold together, in
//! one place. [`parse_attr`] and [`parse_args`] read the keys of one attribute and go on
//! after a wrong key, so every attribute error is reported at once.

use std::fmt;

use proc_macro2::{Span, TokenStream, TokenTree};
use syn::{meta::ParseNestedMeta, parse::ParseStream, spanned::Spanned as _, LitStr, Token};

use crate::ctxt::Ctxt;

/// An attribute key: compared with a parsed path, printed in messages.
#[derive(Clone, Copy)]
pub struct Symbol(pub &'static str);

impl PartialEq<Symbol> for syn::Path {
    fn eq(&self, word: &Symbol) -> bool {
        self.is_ident(word.0)
    }
}

impl fmt::Display for Symbol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

/// `crate = "path"`: the path generated code names the runtime crate by.
pub const CRATE: Symbol = Symbol("crate");

/// `#[mcp_result(...)]`: a derive's container attribute, holding `crate = "..."`.
const MCP_RESULT: Symbol = Symbol("mcp_result");

/// How an unknown-key message names the `crate` key.
pub const CRATE_HELP: &str =
    "`crate = \"...\"` (the path of the mcp-result crate, for a crate that re-exports it)";

/// A value and the span of the key that set it (where a conflict is reported).
struct Spanned<T> {
    value: T,
    span: Span,
}

/// One key's value while an attribute is read: unset, or set once.
pub struct Attr<'c, T> {
    cx: &'c Ctxt,
    key: Symbol,
    value: Option<Spanned<T>>,
}

impl<'c, T> Attr<'c, T> {
    pub fn none(cx: &'c Ctxt, key: Symbol) -> Self {
        Attr {
            cx,
            key,
            value: None,
        }
    }

    /// Sets the value from the key at `span`. A second setting is reported at its key as a
    /// duplicate and ignored.
    pub fn set(&mut self, span: Span, value: T) {
        if self.value.is_some() {
            self.cx
                .error_at(span, format!("duplicate `{}`: give it once", self.key));
        } else {
            self.value = Some(Spanned { value, span });
        }
    }

    pub fn get(self) -> Option<T> {
        self.value.map(|spanned| spanned.value)
    }

    /// Reports `message` at this key when it is set and `other` is not: a key that only
    /// means something beside another.
    pub fn requires<U>(&self, other: &Attr<'_, U>, message: &str) {
        if let (Some(Spanned { span, .. }), None) = (&self.value, &other.value) {
            self.cx.error_at(*span, message);
        }
    }
}

impl Attr<'_, bool> {
    /// Reports `message` at `other`'s key when both keys are set to `true`: two keys that
    /// cannot hold together.
    pub fn conflicts_with(&self, other: &Self, message: &str) {
        if let (Some(Spanned { value: true, .. }), Some(Spanned { value: true, span })) =
            (&self.value, &other.value)
        {
            self.cx.error_at(*span, message);
        }
    }
}

/// The span of a key (the path of `key`, `key = ...` or `key(...)`).
pub fn key_span(meta: &ParseNestedMeta) -> Span {
    meta.path.span()
}

/// A key as written, for messages.
pub fn key_name(meta: &ParseNestedMeta) -> String {
    quote::ToTokens::to_token_stream(&meta.path)
        .to_string()
        .replace(' ', "")
}

/// `key` or `key = true` / `key = false`.
pub fn flag(meta: &ParseNestedMeta) -> syn::Result<bool> {
    if meta.input.peek(Token![=]) {
        Ok(meta.value()?.parse::<syn::LitBool>()?.value)
    } else {
        Ok(true)
    }
}

/// `key = "..."`.
pub fn string(meta: &ParseNestedMeta) -> syn::Result<LitStr> {
    let key = key_name(meta);
    let expected = || format!("`{key}` takes a string: `{key} = \"...\"`");
    if !meta.input.peek(Token![=]) {
        return Err(key_error(meta, expected()));
    }
    meta.value()?
        .parse()
        .map_err(|error| syn::Error::new(error.span(), expected()))
}

/// `crate = "path"`: a module-style path (no generic arguments), spanned at the string so
/// that a path that does not resolve is reported there.
pub fn crate_path(meta: &ParseNestedMeta) -> syn::Result<syn::Path> {
    const EXPECTED: &str = "`crate` takes the path of the mcp-result crate as a string, like \
                            `crate = \"::my_framework::mcp_result\"` (for a crate that \
                            re-exports mcp-result)";
    if !meta.input.peek(Token![=]) {
        return Err(key_error(meta, EXPECTED));
    }
    match meta.value()?.parse::<syn::Expr>()? {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(lit),
            ..
        }) => lit
            .parse_with(syn::Path::parse_mod_style)
            .map_err(|_| syn::Error::new(lit.span(), EXPECTED)),
        other => Err(syn::Error::new_spanned(other, EXPECTED)),
    }
}

/// Reads `#[mcp_result(crate = "...")]` on a derive input into `krate`; any other
/// attribute is left alone. Shared by every derive, so the key means the same on each.
pub fn mcp_result_attr(cx: &Ctxt, attribute: &syn::Attribute, krate: &mut Attr<syn::Path>) {
    if *attribute.path() != MCP_RESULT {
        return;
    }
    parse_attr(cx, attribute, |meta| {
        if meta.path == CRATE {
            krate.set(key_span(meta), crate_path(meta)?);
            Ok(())
        } else {
            Err(key_error(
                meta,
                format!(
                    "unknown `mcp_result` key `{}`: expected {CRATE_HELP}",
                    key_name(meta)
                ),
            ))
        }
    });
}

/// `::mcp_result`: the crate path when no `crate = "..."` is given.
pub fn default_crate() -> syn::Path {
    syn::parse_quote!(::mcp_result)
}

/// `path` with every token at `span`, for a `quote_spanned!` whose tokens must all point
/// at one place of the user's code (a type that fails a bound).
pub fn respanned(path: &syn::Path, span: Span) -> TokenStream {
    respanned_tokens(quote::ToTokens::to_token_stream(path), span)
}

/// `tokens` with every token at `span` (see [`respanned`]).
pub fn respanned_tokens(tokens: TokenStream, span: Span) -> TokenStream {
    fn respan(tokens: TokenStream, span: Span) -> TokenStream {
        tokens
            .into_iter()
            .map(|mut tree| {
                if let TokenTree::Group(group) = &tree {
                    let mut inner =
                        proc_macro2::Group::new(group.delimiter(), respan(group.stream(), span));
                    inner.set_span(span);
                    tree = TokenTree::Group(inner);
                } else {
                    tree.set_span(span);
                }
                tree
            })
            .collect()
    }
    respan(tokens, span)
}

/// An error about a key (unknown, or missing its value), reported at the key.
pub fn key_error(meta: &ParseNestedMeta, message: impl fmt::Display) -> syn::Error {
    syn::Error::new(key_span(meta), message)
}

/// Reads the keys of `#[name(key, key = value, ...)]`, calling `each` per key. A bare
/// `#[name]` has no keys. An error in one key is recorded and reading goes on with the next.
pub fn parse_attr(
    cx: &Ctxt,
    attr: &syn::Attribute,
    each: impl FnMut(&ParseNestedMeta) -> syn::Result<()>,
) {
    if matches!(attr.meta, syn::Meta::Path(_)) {
        return;
    }
    if let Err(error) = attr.parse_nested_meta(recovering(cx, each)) {
        cx.syn_error(error);
    }
}

/// Reads the keys of an attribute macro's arguments (`#[mcp_tools(key, ...)]`), as
/// [`parse_attr`] does.
pub fn parse_args(
    cx: &Ctxt,
    args: TokenStream,
    each: impl FnMut(&ParseNestedMeta) -> syn::Result<()>,
) {
    let parser = syn::meta::parser(recovering(cx, each));
    if let Err(error) = syn::parse::Parser::parse2(parser, args) {
        cx.syn_error(error);
    }
}

/// `each`, recording its error and skipping the rest of the key so the next is read.
fn recovering<'c>(
    cx: &'c Ctxt,
    mut each: impl FnMut(&ParseNestedMeta) -> syn::Result<()> + 'c,
) -> impl FnMut(ParseNestedMeta) -> syn::Result<()> + 'c {
    move |meta| {
        if let Err(error) = each(&meta) {
            cx.syn_error(error);
            skip_to_comma(meta.input)?;
        }
        Ok(())
    }
}

fn skip_to_comma(input: ParseStream) -> syn::Result<()> {
    input.step(|cursor| {
        let mut rest = *cursor;
        while let Some((tree, next)) = rest.token_tree() {
            if matches!(&tree, TokenTree::Punct(p) if p.as_char() == ',') {
                break;
            }
            rest = next;
        }
        Ok(((), rest))
    })
}
