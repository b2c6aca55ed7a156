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
//! an HMAC-SHA256 tag under the server key ([`ServerKey`]) over all of it. With
//! `MCP_RESULT_SERVER_KEY` set, a cursor works on every instance and after a restart.
//!
//! A cursor that is too long (over [`MAX_CURSOR_CHARS`], refused before decoding), does not
//! decode, was altered, was issued for another tool, to another caller or for other
//! arguments, has expired ([`PagePolicy::CURSOR_LIFETIME`], default 24 hours), or holds a
//! position the tool no longer reads, is a `validation_error` whose one field error has the
//! pointer `/cursor` and says to call again without `cursor`: never a panic, never a silent
//! restart from the first page.

use std::{fmt, marker::PhantomData, time::Duration};

use base64::Engine as _;
use rmcp::model::JsonObject;
use schemars::JsonSchema;
use serde::{de::DeserializeOwned, Deserialize, Serialize, Serializer};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

use crate::{
    result::{build::ToolResult, summary::Summary},
    store::{clock::now_ms, key::ServerKey},
    tool::extract::{via, FromToolCall, ToolCall, ToolExtension},
    wire::{
        envelope::{FieldError, ToolError},
        keys::{CURSOR_ARGUMENT, NEXT_CURSOR, PAGE_SIZE_ARGUMENT, PAGING_META},
        text::push_escaped,
    },
};

/// The longest cursor accepted or issued, in characters (base64url). A longer one is refused
/// before it is decoded; a position whose cursor would be longer (its JSON over about 690
/// bytes) makes the page an `internal` error. Keep positions small: an offset, a last-seen
/// key.
pub const MAX_CURSOR_CHARS: usize = 1024;

/// How a tool pages: the page size when the call gives none, the largest page size accepted,
/// and how long a cursor is honoured (AIP-158: `page_size` has a documented maximum; a token
/// expires). Every item has a default; implement it on a type of your own to change one, and
/// take `Pager<P, YourPolicy>`:
///
/// ```
/// use std::time::Duration;
/// use mcp_result_core::pagination::PagePolicy;
///
/// /// Pages of 20 (at most 100); cursors last an hour.
/// enum Hourly {}
/// impl PagePolicy for Hourly {
///     const DEFAULT_PAGE_SIZE: usize = 20;
///     const MAX_PAGE_SIZE: usize = 100;
///     const CURSOR_LIFETIME: Duration = Duration::from_secs(3600);
/// }
/// ```
///
/// A policy whose default page size is 0 or above its maximum, or whose cursors last no time
/// at all, is a compile error where the tool takes it.
pub trait PagePolicy: 'static {
    /// The page size of a call without `pageSize` (items). Default: 50.
    const DEFAULT_PAGE_SIZE: usize = 50;
    /// The largest `pageSize` accepted (items); `pageSize` above it is a `validation_error`.
    /// Default: 200.
    const MAX_PAGE_SIZE: usize = 200;
    /// How long after it was issued a cursor is honoured. Default: 24 hours.
    const CURSOR_LIFETIME: Duration = Duration::from_secs(24 * 60 * 60);
}

/// The default [`PagePolicy`]: pages of 50 items, at most 200, cursors valid for 24 hours.
#[derive(Debug)]
pub enum DefaultPaging {}

impl PagePolicy for DefaultPaging {}

/// A policy's own consistency, checked at compile time (a `const` the tool's glue names).
struct Checked<C>(PhantomData<C>);

impl<C: PagePolicy> Checked<C> {
    const OK: () = {
        assert!(
            C::DEFAULT_PAGE_SIZE >= 1 && C::DEFAULT_PAGE_SIZE <= C::MAX_PAGE_SIZE,
            "PagePolicy: DEFAULT_PAGE_SIZE must be from 1 to MAX_PAGE_SIZE: lower \
             DEFAULT_PAGE_SIZE or raise MAX_PAGE_SIZE"
        );
        assert!(
            C::CURSOR_LIFETIME.as_millis() >= 1,
            "PagePolicy: CURSOR_LIFETIME must be at least 1 ms: cursors that expire at once \
             page nothing"
        );
    };
}

/// What a paging tool's `tools/list` entry advertises under `_meta`
/// `io.github.mcp-result/paging`: where the cursor and the page size go, where the next
/// cursor comes back, and the policy (`{"cursorIn": "arguments/cursor", "pageSizeIn":
/// "arguments/pageSize", "nextCursorIn": "structuredContent/nextCursor", "defaultPageSize":
/// 50, "maxPageSize": 200, "cursorTtlSeconds": 86400}`). Written by [`Pager`]'s tool
/// extension and read back by the docs through this one type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Advertised {
    /// Where the cursor goes: `arguments/cursor`.
    pub cursor_in: String,
    /// Where the page size goes: `arguments/pageSize`.
    pub page_size_in: String,
    /// Where the next page's cursor comes back: `structuredContent/nextCursor`.
    pub next_cursor_in: String,
    /// The page size of a call without `pageSize` (items).
    pub default_page_size: usize,
    /// The largest `pageSize` accepted (items).
    pub max_page_size: usize,
    /// How long a cursor is honoured, in seconds (rounded down).
    pub cursor_ttl_seconds: u64,
}

impl Advertised {
    /// The advertisement of a tool paging under `C`.
    pub fn of<C: PagePolicy>() -> Self {
        Self {
            cursor_in: format!("arguments/{CURSOR_ARGUMENT}"),
            page_size_in: format!("arguments/{PAGE_SIZE_ARGUMENT}"),
            next_cursor_in: format!("structuredContent/{NEXT_CURSOR}"),
            default_page_size: C::DEFAULT_PAGE_SIZE,
            max_page_size: C::MAX_PAGE_SIZE,
            cursor_ttl_seconds: C::CURSOR_LIFETIME.as_secs(),
        }
    }

    /// Reads it from a listed tool (`None`: the tool does not page).
    pub fn read(tool: &rmcp::model::Tool) -> Option<Self> {
        let value = tool.meta.as_ref()?.0.get(PAGING_META)?;
        serde_json::from_value(value.clone()).ok()
    }
}

// ---------------------------------------------------------------------------------------
// The result: one page
// ---------------------------------------------------------------------------------------

/// One page of a larger result: a tool's return type (also as `Result<Page<T>, ToolError>`),
/// built by [`Pager::page`].
///
/// `structuredContent`: `{"items": [...], "offset": 50, "nextCursor": "...",
/// "totalEstimate": 5000}`:
///
/// - `items`: this page's items, in the walk's order;
/// - `offset`: how many items earlier pages of this walk showed (0 on the first page);
/// - `nextCursor`: pass it as `cursor`, with the same other arguments, for the next page;
///   absent on the last page (MCP "Pagination");
/// - `totalEstimate`: about how many items the whole walk has, when the tool says.
///
/// The summary says which slice this is and how to go on: `Showing 51–100 of about 5,000;
/// call again with the same arguments and cursor "…" to continue.`, on the last page
/// `Showing 101–120 of 120; this is the last page.`, and `No items.` for an empty walk. The
/// cursor is in the summary too, for hosts that hand the model only the first text block.
#[derive(Debug, Clone, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(
    rename = "Page_of_{T}",
    description = "One page of a longer result. For the next page, call the tool again with \
                   the same arguments and `nextCursor` as `cursor`; the last page has no \
                   `nextCursor`."
)]
pub struct Page<T> {
    /// This page's items, in the walk's order.
    items: Vec<T>,
    /// How many items the earlier pages of this walk showed (0 on the first page).
    offset: u64,
    /// The cursor of the next page: call the tool again with the same arguments and this as
    /// `cursor`. Absent on the last page. Opaque; it expires.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    next_cursor: Option<String>,
    /// About how many items the whole walk has (an estimate), when the tool knows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u64")]
    total_estimate: Option<u64>,
    /// The length of a next cursor that came out longer than [`MAX_CURSOR_CHARS`]: the page
    /// then fails to serialize (an `internal` error result).
    #[serde(skip)]
    overlong_cursor: Option<usize>,
}

impl<T> Page<T> {
    /// This page's items.
    pub fn items(&self) -> &[T] {
        &self.items
    }

    /// This page's items, owned.
    pub fn into_items(self) -> Vec<T> {
        self.items
    }

    /// How many items the earlier pages of this walk showed.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The next page's cursor; `None` on the last page.
    pub fn next_cursor(&self) -> Option<&str> {
        self.next_cursor.as_deref()
    }

    /// About how many items the whole walk has, if the tool said.
    pub fn total_estimate(&self) -> Option<u64> {
        self.total_estimate
    }
}

impl<T: Serialize> Serialize for Page<T> {
    /// # Errors
    /// When the next cursor came out longer than [`MAX_CURSOR_CHARS`] (its position is too
    /// large): the framework answers an `internal` error and logs why.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error as _, SerializeStruct as _};
        if let Some(chars) = self.overlong_cursor {
            return Err(S::Error::custom(format_args!(
                "the next page's cursor has {chars} characters, over the {MAX_CURSOR_CHARS} a \
                 cursor may have: make the position smaller (an offset or a last-seen key)"
            )));
        }
        let fields = 2
            + usize::from(self.next_cursor.is_some())
            + usize::from(self.total_estimate.is_some());
        let mut page = serializer.serialize_struct("Page", fields)?;
        page.serialize_field("items", &self.items)?;
        page.serialize_field("offset", &self.offset)?;
        if let Some(cursor) = &self.next_cursor {
            page.serialize_field(NEXT_CURSOR, cursor)?;
        }
        if let Some(total) = self.total_estimate {
            page.serialize_field("totalEstimate", &total)?;
        }
        page.end()
    }
}

impl<T: Serialize + JsonSchema + 'static> ToolResult for Page<T> {
    const SUMMARY: Summary = Summary::Custom(render_summary);
}

/// The summary of a page, rendered from its `structuredContent` (see [`Page`]).
pub(crate) fn render_summary(object: &Map<String, Value>) -> String {
    let shown = object
        .get("items")
        .and_then(Value::as_array)
        .map_or(0, Vec::len) as u64;
    let offset = object.get("offset").and_then(Value::as_u64).unwrap_or(0);
    let next = object.get(NEXT_CURSOR).and_then(Value::as_str);
    let total = object.get("totalEstimate").and_then(Value::as_u64);
    let mut out = String::new();
    match (shown, next) {
        (0, None) if offset == 0 => return "No items.".to_owned(),
        (0, None) => {
            out.push_str("No more items after ");
            out.push_str(&thousands(offset));
            out.push_str("; this is the last page.");
            return out;
        }
        (0, Some(_)) => {
            out.push_str("No items on this page (");
            out.push_str(&thousands(offset));
            out.push_str(" shown before)");
        }
        (_, _) => {
            out.push_str("Showing ");
            out.push_str(&thousands(offset + 1));
            out.push('–');
            out.push_str(&thousands(offset + shown));
            match (next, total) {
                (None, _) => {
                    out.push_str(" of ");
                    out.push_str(&thousands(offset + shown));
                }
                (Some(_), Some(total)) => {
                    out.push_str(" of about ");
                    out.push_str(&thousands(total));
                }
                (Some(_), None) => {}
            }
        }
    }
    match next {
        None => out.push_str("; this is the last page."),
        Some(cursor) => {
            out.push_str("; call again with the same arguments and cursor \"");
            push_escaped(&mut out, cursor);
            out.push_str("\" to continue.");
        }
    }
    out
}

/// `5000` as `5,000`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

// ---------------------------------------------------------------------------------------
// The extractor: where the walk is
// ---------------------------------------------------------------------------------------

/// Where a paged call stands: the position its `cursor` carried (`None` on the first page),
/// the page size it asked for, and what the next cursor will be bound to. Take it as a
/// parameter of a `#[mcp_tool]` method (an extractor); `P` is the position, any
/// `Serialize + DeserializeOwned` type you choose (an offset `usize`, a last-seen key), `C`
/// the [`PagePolicy`].
///
/// It adds `cursor` and `pageSize` to the tool's `inputSchema` and the [`Advertised`]
/// paging facts to its `_meta`. Extraction fails, and the tool does not run, with a
/// `validation_error` at `/cursor` for a cursor that is not a valid, unexpired one of this
/// tool, caller and arguments (see the [module docs](self)).
pub struct Pager<P, C: PagePolicy = DefaultPaging> {
    position: Option<P>,
    page_size: usize,
    offset: u64,
    seal: Seal,
    policy: PhantomData<fn() -> C>,
}

impl<P: fmt::Debug, C: PagePolicy> fmt::Debug for Pager<P, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pager")
            .field("position", &self.position)
            .field("page_size", &self.page_size)
            .field("offset", &self.offset)
            .finish_non_exhaustive()
    }
}

impl<P: Serialize, C: PagePolicy> Pager<P, C> {
    /// The position the call's cursor carried; `None` without a cursor (the first page).
    pub fn position(&self) -> Option<P>
    where
        P: Clone,
    {
        self.position.clone()
    }

    /// The position, borrowed.
    pub fn position_ref(&self) -> Option<&P> {
        self.position.as_ref()
    }

    /// How many items this page should hold: the call's `pageSize`, else
    /// [`PagePolicy::DEFAULT_PAGE_SIZE`]; never 0, never above [`PagePolicy::MAX_PAGE_SIZE`].
    pub fn page_size(&self) -> usize {
        self.page_size
    }

    /// How many items the earlier pages of this walk showed (0 on the first page).
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The page: `items`, and the position the next page starts from (`None`: this is the
    /// last page, and the result has no `nextCursor`), with `total_estimate` items in the
    /// whole walk if the tool knows about how many. The next cursor is sealed here, bound to
    /// this tool, caller and arguments, valid for [`PagePolicy::CURSOR_LIFETIME`].
    pub fn page<T>(&self, items: Vec<T>, next: Option<P>, total_estimate: Option<u64>) -> Page<T> {
        let shown = self.offset + items.len() as u64;
        let mut overlong_cursor = None;
        let next_cursor = next.map(|position| {
            let cursor = self.seal.cursor(&position, shown, C::CURSOR_LIFETIME);
            if cursor.len() > MAX_CURSOR_CHARS {
                overlong_cursor = Some(cursor.len());
            }
            cursor
        });
        Page {
            items,
            offset: self.offset,
            next_cursor,
            total_estimate,
            overlong_cursor,
        }
    }
}

impl<C: PagePolicy> Pager<usize, C> {
    /// Offset paging over items already in memory: the page of `all` at this call's offset
    /// position (the first page without a cursor), with `totalEstimate` = `all.len()`.
    pub fn slice<T: Clone>(&self, all: &[T]) -> Page<T> {
        let start = self.position.unwrap_or(0).min(all.len());
        let end = start.saturating_add(self.page_size).min(all.len());
        let next = (end < all.len()).then_some(end);
        self.page(all[start..end].to_vec(), next, Some(all.len() as u64))
    }
}

impl<P, C> FromToolCall<via::Extractor> for Pager<P, C>
where
    P: Serialize + DeserializeOwned + Send + 'static,
    C: PagePolicy,
{
    const CHECK: () = Checked::<C>::OK;

    /// `cursor` and `pageSize` in the `inputSchema`; the [`Advertised`] facts in `_meta`.
    fn tool_extension() -> Option<ToolExtension> {
        let ttl = lifetime_words(C::CURSOR_LIFETIME);
        let mut arguments = JsonObject::new();
        arguments.insert(
            CURSOR_ARGUMENT.to_owned(),
            json!({
                "type": "string",
                "description": format!(
                    "Omit for the first page. For the next page, the `nextCursor` of the \
                     previous result, with the same other arguments (`pageSize` may change). \
                     Opaque; valid for {ttl}; at most {MAX_CURSOR_CHARS} characters."
                ),
            }),
        );
        arguments.insert(
            PAGE_SIZE_ARGUMENT.to_owned(),
            json!({
                "type": "integer",
                "minimum": 1,
                "maximum": C::MAX_PAGE_SIZE,
                "default": C::DEFAULT_PAGE_SIZE,
                "description": format!(
                    "Items per page: 1 to {}, default {}.",
                    C::MAX_PAGE_SIZE, C::DEFAULT_PAGE_SIZE
                ),
            }),
        );
        let mut meta = JsonObject::new();
        meta.insert(
            PAGING_META.to_owned(),
            serde_json::to_value(Advertised::of::<C>()).unwrap_or(Value::Null),
        );
        Some(ToolExtension { arguments, meta })
    }

    /// # Errors
    /// A `validation_error` at `/cursor` for a bad cursor, at `/pageSize` for a page size
    /// the `inputSchema` let through but that is no integer from 1 to the maximum; an
    /// `internal` error when the call was not bound (a tool built without its extension).
    fn from_tool_call(call: &mut ToolCall) -> Result<Self, ToolError> {
        let page_size = match call.extension_argument(PAGE_SIZE_ARGUMENT) {
            None => C::DEFAULT_PAGE_SIZE,
            Some(value) => read_page_size(value, C::MAX_PAGE_SIZE)?,
        };
        let Some(binding) = call.binding() else {
            return Err(ToolError::internal_logged(format_args!(
                "tool `{}` takes a `Pager` but its call was not bound to its arguments",
                call.tool()
            )));
        };
        let key = ServerKey::global();
        let caller = call.identity().key();
        let seal = Seal::new(key, call.tool(), &caller, binding);
        let (position, offset) = match call.extension_argument(CURSOR_ARGUMENT) {
            None => (None, 0),
            Some(Value::String(cursor)) => {
                let opened = seal
                    .open(key, cursor, &caller, binding, now_ms())
                    .map_err(|problem| problem.error(C::CURSOR_LIFETIME))?;
                let position = serde_json::from_slice::<P>(&opened.position)
                    .map_err(|_| Problem::Position.error(C::CURSOR_LIFETIME))?;
                (Some(position), opened.offset)
            }
            Some(_) => return Err(Problem::Malformed.error(C::CURSOR_LIFETIME)),
        };
        Ok(Self {
            position,
            page_size,
            offset,
            seal,
            policy: PhantomData,
        })
    }
}

fn read_page_size(value: &Value, max: usize) -> Result<usize, ToolError> {
    let mut value = value.clone();
    crate::schema::arguments::normalize_integers(&mut value);
    match value.as_u64().and_then(|n| usize::try_from(n).ok()) {
        Some(n) if (1..=max).contains(&n) => Ok(n),
        _ => Err(ToolError::validation(vec![FieldError::new(
            format!("/{PAGE_SIZE_ARGUMENT}"),
            format!("pageSize is an integer from 1 to {max}"),
        )])),
    }
}

/// `24 hours`, `1 hour`, `90 seconds`, `5 ms`.
fn lifetime_words(lifetime: Duration) -> String {
    let plural = |n: u128, unit: &str| format!("{n} {unit}{}", if n == 1 { "" } else { "s" });
    let ms = lifetime.as_millis();
    match ms {
        ms if ms % 3_600_000 == 0 => plural(ms / 3_600_000, "hour"),
        ms if ms % 60_000 == 0 => plural(ms / 60_000, "minute"),
        ms if ms % 1000 == 0 => plural(ms / 1000, "second"),
        ms => format!("{ms} ms"),
    }
}

// ---------------------------------------------------------------------------------------
// The cursor: sealed and opened with the server key
// ---------------------------------------------------------------------------------------

/// The cursor format's version byte.
const VERSION: u8 = 1;
/// What the tag signs before the cursor's bytes, so that no other signature of the server
/// key passes for a cursor's.
const DOMAIN: &[u8] = b"io.github.mcp-result/cursor\0";
/// version, expiry, shown, tool, caller, arguments.
const HEADER: usize = 1 + 8 + 8 + 8 + 8 + 8;
/// HMAC-SHA256.
const TAG: usize = 32;

type Digest8 = [u8; 8];

/// What the call's cursors are bound to (under the signing key).
#[derive(Clone)]
struct Seal {
    tool: Digest8,
    caller: Digest8,
    arguments: Digest8,
}

/// What an opened cursor holds.
struct Opened {
    offset: u64,
    position: Vec<u8>,
}

impl Seal {
    fn new(key: &ServerKey, tool: &str, caller: &str, binding: &[String]) -> Self {
        Self {
            tool: tool_digest(tool),
            caller: caller_digests(key, caller).next().unwrap_or_default(),
            arguments: binding
                .first()
                .map(|f| arguments_digest(f))
                .unwrap_or_default(),
        }
    }

    fn cursor<P: Serialize>(&self, position: &P, shown: u64, lifetime: Duration) -> String {
        let position = serde_json::to_vec(position).unwrap_or_default();
        let lifetime = u64::try_from(lifetime.as_millis()).unwrap_or(u64::MAX);
        let mut bytes = Vec::with_capacity(HEADER + position.len() + TAG);
        bytes.push(VERSION);
        bytes.extend(now_ms().saturating_add(lifetime).to_be_bytes());
        bytes.extend(shown.to_be_bytes());
        bytes.extend(self.tool);
        bytes.extend(self.caller);
        bytes.extend(self.arguments);
        bytes.extend(&position);
        let tag = ServerKey::global().sign(&signed(&bytes));
        bytes.extend(tag);
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
    }

    /// Opens `cursor`: checks its size, form, tag, binding and expiry, in that order.
    fn open(
        &self,
        key: &ServerKey,
        cursor: &str,
        caller: &str,
        fingerprints: &[String],
        now_ms: u64,
    ) -> Result<Opened, Problem> {
        let chars = cursor.chars().count();
        if chars > MAX_CURSOR_CHARS {
            return Err(Problem::TooLong(chars));
        }
        let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(cursor)
            .map_err(|_| Problem::Malformed)?;
        if bytes.len() < HEADER + TAG || bytes[0] != VERSION {
            return Err(Problem::Malformed);
        }
        let (body, tag) = bytes.split_at(bytes.len() - TAG);
        if !key.verify(&signed(body), tag) {
            return Err(Problem::Altered);
        }
        let field = |at: usize| -> [u8; 8] {
            let mut out = [0; 8];
            out.copy_from_slice(&body[at..at + 8]);
            out
        };
        if field(17) != self.tool {
            return Err(Problem::OtherTool);
        }
        if !caller_digests(key, caller).any(|digest| digest == field(25)) {
            return Err(Problem::OtherCaller);
        }
        if !fingerprints
            .iter()
            .any(|f| arguments_digest(f) == field(33))
        {
            return Err(Problem::OtherArguments);
        }
        if u64::from_be_bytes(field(1)) < now_ms {
            return Err(Problem::Expired);
        }
        Ok(Opened {
            offset: u64::from_be_bytes(field(9)),
            position: body[HEADER..].to_vec(),
        })
    }
}

fn signed(body: &[u8]) -> Vec<u8> {
    let mut data = Vec::with_capacity(DOMAIN.len() + body.len());
    data.extend(DOMAIN);
    data.extend(body);
    data
}

fn truncated(hash: &[u8]) -> Digest8 {
    let mut out = [0; 8];
    out.copy_from_slice(&hash[..8]);
    out
}

/// Tool names are public: a plain hash.
fn tool_digest(tool: &str) -> Digest8 {
    truncated(&Sha256::digest([b"tool\0", tool.as_bytes()].concat()))
}

/// An identity is not for anyone holding the cursor to test guesses against: keyed, one
/// digest per server key (the signing key's first).
fn caller_digests<'a>(key: &'a ServerKey, caller: &str) -> impl Iterator<Item = Digest8> + 'a {
    let data = [b"caller\0", caller.as_bytes()].concat();
    key.keyed_hashes(&data)
        .map(|hash| truncated(&hash))
        .collect::<Vec<_>>()
        .into_iter()
}

/// The fingerprint already hides secret arguments (keyed).
fn arguments_digest(fingerprint: &str) -> Digest8 {
    truncated(&Sha256::digest(
        [b"arguments\0", fingerprint.as_bytes()].concat(),
    ))
}

/// Why a cursor is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Problem {
    TooLong(usize),
    Malformed,
    Altered,
    OtherTool,
    OtherCaller,
    OtherArguments,
    Expired,
    Position,
}

impl Problem {
    fn reason(self, lifetime: Duration) -> String {
        match self {
            Problem::TooLong(chars) => format!(
                "the cursor has {chars} characters; a cursor has at most {MAX_CURSOR_CHARS}"
            ),
            Problem::Malformed => "the cursor is not one this server issued".into(),
            Problem::Altered => "the cursor was altered: its signature does not match".into(),
            Problem::OtherTool => "the cursor was issued by another tool".into(),
            Problem::OtherCaller => "the cursor was issued to another caller".into(),
            Problem::OtherArguments => "the cursor was issued for other arguments (only \
                                        `pageSize` may change between pages)"
                .into(),
            Problem::Expired => format!(
                "the cursor has expired (cursors are valid for {})",
                lifetime_words(lifetime)
            ),
            Problem::Position => "the cursor's position no longer reads (the tool changed \
                                  since it was issued)"
                .into(),
        }
    }

    /// The `validation_error`: one field error at `/cursor`, and what to do.
    fn error(self, lifetime: Duration) -> ToolError {
        let reason = self.reason(lifetime);
        let mut error = ToolError::validation(vec![FieldError::new(
            format!("/{CURSOR_ARGUMENT}"),
            format!("{reason}; call again without `cursor` to start from the first page"),
        )]);
        error.message = format!(
            "Invalid argument `cursor`: {reason}. Call again without `cursor` to start from the \
             first page."
        );
        error
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn object(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => unreachable!(),
        }
    }

    #[test]
    fn summaries_say_which_slice_and_how_to_continue() {
        let items = |n: usize| Value::Array(vec![json!(1); n]);
        let cases = [
            (
                json!({"items": items(50), "offset": 50, "nextCursor": "AbC", "totalEstimate": 5000}),
                "Showing 51–100 of about 5,000; call again with the same arguments and cursor \
                 \"AbC\" to continue.",
            ),
            (
                json!({"items": items(2), "offset": 0, "nextCursor": "x"}),
                "Showing 1–2; call again with the same arguments and cursor \"x\" to continue.",
            ),
            (
                json!({"items": items(20), "offset": 100, "totalEstimate": 130}),
                "Showing 101–120 of 120; this is the last page.",
            ),
            (json!({"items": [], "offset": 0}), "No items."),
            (
                json!({"items": [], "offset": 1200}),
                "No more items after 1,200; this is the last page.",
            ),
            (
                json!({"items": [], "offset": 4, "nextCursor": "y"}),
                "No items on this page (4 shown before); call again with the same arguments \
                 and cursor \"y\" to continue.",
            ),
        ];
        for (page, summary) in cases {
            assert_eq!(render_summary(&object(page)), summary);
        }
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(999), "999");
    }

    #[test]
    fn lifetimes_read_as_words() {
        assert_eq!(lifetime_words(Duration::from_secs(86400)), "24 hours");
        assert_eq!(lifetime_words(Duration::from_secs(3600)), "1 hour");
        assert_eq!(lifetime_words(Duration::from_secs(90)), "90 seconds");
        assert_eq!(lifetime_words(Duration::from_millis(5)), "5 ms");
    }

    #[test]
    fn a_cursor_opens_only_for_its_tool_caller_arguments_and_time() {
        let key = ServerKey::new("a server key that is long enough to be used", []).unwrap();
        let fingerprints = vec!["f-1".to_owned()];
        let seal = Seal::new(&key, "search", "alice", &fingerprints);
        // Sealed under the process key, so open with it too.
        let global = ServerKey::global();
        let seal_global = Seal::new(global, "search", "alice", &fingerprints);
        let cursor = seal_global.cursor(&42usize, 7, Duration::from_secs(60));
        let now = now_ms();
        let opened = seal_global
            .open(global, &cursor, "alice", &fingerprints, now)
            .ok()
            .unwrap();
        assert_eq!(opened.offset, 7);
        assert_eq!(
            serde_json::from_slice::<usize>(&opened.position).unwrap(),
            42
        );
        let problem =
            |seal: &Seal, key: &ServerKey, cursor: &str, caller: &str, f: &[String], at| {
                seal.open(key, cursor, caller, f, at).err()
            };
        assert_eq!(
            problem(&seal, &key, &cursor, "alice", &fingerprints, now),
            Some(Problem::Altered),
            "another server key"
        );
        let other_tool = Seal::new(global, "list", "alice", &fingerprints);
        assert_eq!(
            problem(&other_tool, global, &cursor, "alice", &fingerprints, now),
            Some(Problem::OtherTool)
        );
        assert_eq!(
            problem(&seal_global, global, &cursor, "bob", &fingerprints, now),
            Some(Problem::OtherCaller)
        );
        assert_eq!(
            problem(
                &seal_global,
                global,
                &cursor,
                "alice",
                &["f-2".to_owned()],
                now
            ),
            Some(Problem::OtherArguments)
        );
        assert_eq!(
            problem(
                &seal_global,
                global,
                &cursor,
                "alice",
                &fingerprints,
                now + 61_000
            ),
            Some(Problem::Expired)
        );
        assert_eq!(
            problem(
                &seal_global,
                global,
                "not a cursor",
                "alice",
                &fingerprints,
                now
            ),
            Some(Problem::Malformed)
        );
        let long = "A".repeat(MAX_CURSOR_CHARS + 1);
        assert_eq!(
            problem(&seal_global, global, &long, "alice", &fingerprints, now),
            Some(Problem::TooLong(MAX_CURSOR_CHARS + 1))
        );
        // Every single flipped bit is caught.
        let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(&cursor)
            .unwrap();
        for bit in 0..bytes.len() * 8 {
            let mut flipped = bytes.clone();
            flipped[bit / 8] ^= 1 << (bit % 8);
            let flipped = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(flipped);
            let problem = problem(&seal_global, global, &flipped, "alice", &fingerprints, now);
            assert!(
                matches!(problem, Some(Problem::Altered | Problem::Malformed)),
                "bit {bit}: {problem:?}"
            );
        }
    }

    #[test]
    fn the_refusal_names_the_cursor_field_and_the_way_out() {
        let error = Problem::Expired.error(Duration::from_secs(86400));
        let envelope = serde_json::to_value(&error).unwrap();
        assert_eq!(
            envelope,
            json!({
                "status": "failed",
                "errorKind": "validation_error",
                "retrySafe": false,
                "message": "Invalid argument `cursor`: the cursor has expired (cursors are valid \
                            for 24 hours). Call again without `cursor` to start from the first page.",
                "fieldErrors": [{
                    "pointer": "/cursor",
                    "message": "the cursor has expired (cursors are valid for 24 hours); call \
                                again without `cursor` to start from the first page"
                }]
            })
        );
    }
}
