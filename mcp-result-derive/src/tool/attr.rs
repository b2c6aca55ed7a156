//! `#[mcp_tool(...)]` keys.

use proc_macro2::Span;
use syn::{Attribute, LitBool, LitInt, LitStr, Token};

/// A boolean flag: `read_only` or `read_only = true`, with the span of its key.
#[derive(Clone, Copy)]
pub struct Flag {
    pub value: bool,
    pub span: Span,
}

#[derive(Default)]
pub struct ToolAttrs {
    pub name: Option<LitStr>,
    pub title: Option<LitStr>,
    pub description: Option<LitStr>,
    pub read_only: Option<Flag>,
    pub destructive: Option<Flag>,
    pub idempotent: Option<Flag>,
    pub open_world: Option<Flag>,
    /// `timeout_ms = N`: milliseconds, at least 1.
    pub timeout_ms: Option<LitInt>,
}

const KEYS: &str =
    "name, title, description, read_only, destructive, idempotent, open_world, timeout_ms";

pub fn is_mcp_tool(attr: &Attribute) -> bool {
    attr.path()
        .segments
        .last()
        .is_some_and(|s| s.ident == "mcp_tool")
}

pub fn parse(attr: &Attribute) -> syn::Result<ToolAttrs> {
    let mut out = ToolAttrs::default();
    if matches!(attr.meta, syn::Meta::Path(_)) {
        return Ok(out);
    }
    let mut errors: Option<syn::Error> = None;
    let result = attr.parse_nested_meta(|meta| {
        let key = meta
            .path
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default();
        let duplicate = || meta.error(format!("duplicate `{key}`: give it once"));
        let string = |slot: &mut Option<LitStr>| -> syn::Result<()> {
            let value: LitStr = meta.value()?.parse()?;
            if slot.replace(value).is_some() {
                return Err(duplicate());
            }
            Ok(())
        };
        let flag = |slot: &mut Option<Flag>| -> syn::Result<()> {
            let value = if meta.input.peek(Token![=]) {
                meta.value()?.parse::<LitBool>()?.value
            } else {
                true
            };
            let span = syn::spanned::Spanned::span(&meta.path);
            if slot.replace(Flag { value, span }).is_some() {
                return Err(duplicate());
            }
            Ok(())
        };
        let outcome = match key.as_str() {
            "name" => string(&mut out.name),
            "title" => string(&mut out.title),
            "description" => string(&mut out.description),
            "read_only" => flag(&mut out.read_only),
            "destructive" => flag(&mut out.destructive),
            "idempotent" => flag(&mut out.idempotent),
            "open_world" => flag(&mut out.open_world),
            "timeout_ms" => (|| {
                let value: LitInt = meta.value()?.parse()?;
                match value.base10_parse::<u64>() {
                    Ok(0) | Err(_) => {
                        return Err(syn::Error::new(
                            value.span(),
                            "`timeout_ms` is a whole number of milliseconds, at least 1",
                        ))
                    }
                    Ok(_) => {}
                }
                if out.timeout_ms.replace(value).is_some() {
                    return Err(duplicate());
                }
                Ok(())
            })(),
            _ => {
                if meta.input.peek(Token![=]) {
                    meta.value()?.parse::<syn::Expr>()?;
                }
                Err(meta.error(format!(
                    "unknown `mcp_tool` key `{key}`: expected one of {KEYS}"
                )))
            }
        };
        if let Err(error) = outcome {
            match &mut errors {
                Some(errors) => errors.combine(error),
                None => errors = Some(error),
            }
        }
        Ok(())
    });
    result?;
    match errors {
        Some(errors) => Err(errors),
        None => Ok(out),
    }
}
