//! Paging large results: a tool returns one [`Page`] at a time, and the client walks the
//! pages with opaque, tamper-proof cursors.
//!
//! The shape is MCP's own ("Pagination": list methods take an opaque `cursor` and answer
//! `nextCursor`, absent on the last page) and Google AIP-158's rules for page tokens: a token
//! is opaque, bound to the request it was issued for, expires, and `page_size` has a
//! documented maximum.
//!
//! A tool author writes only how to fetch one page from a position; the framework encodes,
//! signs, checks and decodes the position:
//!
//! ```
//! use mcp_result_core::pagination::{Page, Pager};
//! # use serde::{Deserialize, Serialize};
//! # use schemars::JsonSchema;
//! # #[derive(Clone, Serialize, JsonSchema)] struct Ticket { id: String }
//! # #[derive(Deserialize, JsonSchema)] struct SearchArgs { query: String }
//! # struct Desk { tickets: Vec<Ticket> }
//! # impl Desk {
//! // In an `#[mcp_tools]` impl block, under `#[mcp_tool(read_only)]`:
//! fn search_tickets(&self, args: SearchArgs, pages: Pager<usize>) -> Page<Ticket> {
//!     let start = pages.position().unwrap_or(0); // None: the first page
//!     let items: Vec<Ticket> = self.tickets.iter().skip(start).take(pages.page_size()).cloned().collect();
//!     let next = start + items.len();
//!     let more = next < self.tickets.len();
//!     pages.page(items, more.then_some(next), Some(self.tickets.len() as u64))
//! }
//! # }
//! ```
//!
//! What the framework adds (the [`Pager`] extractor contributes both to the tool's
//! `inputSchema`, and the tool's `tools/list` `_meta` advertises them as [`Advertised`]):
//!
//! - `cursor` (string, optional): the `nextCursor` of the previous page. Omitted: the first
//!   page.
//! - `pageSize` (integer, optional): `1` to [`PagePolicy::MAX_PAGE_SIZE`] (default 200),
//!   default [`PagePolicy::DEFAULT_PAGE_SIZE`] (default 50). A client may change it in the
//!   middle of a walk.
//!
//! Both are taken out of the arguments object before the arguments type deserializes, so an
//! arguments type with `#[serde(deny_unknown_fields)]` accepts them; an arguments type with
//! its own field serialized as `cursor` or `pageSize` is refused when the server starts.
//!
//! A cursor is `base64url` (no padding) of a version byte, its expiry (milliseconds since
//! the Unix epoch), the count of items shown before the next page, three 8-byte digests
//! binding it to the tool name, the caller's identity (keyed with the server key) and the
//! RFC 8785 fingerprint of the other arguments (every argument but `cursor` and `pageSize`,
//! secret ones as their keyed hash, as for idempotency keys), then the position as JSON, and
//! an HMAC-SHA256 tag under the server key ([`ServerKey`](crate::key::ServerKey)) over all of it. With
//! `MCP_RESULT_SERVER_KEY` set, a cursor works on every instance and after a restart.
//!
//! A cursor that is too long (over [`MAX_CURSOR_CHARS`], refused before decoding), does not
//! decode, was altered, was issued for another tool, to another caller or for other
//! arguments, has expired ([`PagePolicy::CURSOR_LIFETIME`], default 24 hours), or holds a
//! position the tool no longer reads, is a `validation_error` whose one field error has the
//! pointer `/cursor` and says to call again without `cursor`: never a panic, never a silent
//! restart from the first page.
//!
//! A walk ends: a page whose next position is the one it was asked for (it does not
//! advance) is answered as an `internal` error naming the tool ("the page did not
//! advance"), never as a page a client would follow forever; and within an expiry step the
//! same position gives the same cursor (its expiry is rounded up to a 24th of the lifetime,
//! at most an hour), so a client's guard against a repeated cursor sees the repeat.

mod cursor;
mod page;
mod pager;
mod policy;

pub use page::Page;
pub use pager::Pager;
pub use policy::{Advertised, DefaultPaging, PagePolicy, MAX_CURSOR_CHARS};

#[cfg(test)]
mod tests;
