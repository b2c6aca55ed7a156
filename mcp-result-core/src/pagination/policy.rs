//! How a tool pages ([`PagePolicy`]) and what its `tools/list` entry advertises ([`Advertised`]).

use std::{marker::PhantomData, time::Duration};

use serde::{Deserialize, Serialize};

use crate::wire::keys::{CURSOR_ARGUMENT, NEXT_CURSOR, PAGE_SIZE_ARGUMENT, PAGING_META};

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
pub(super) struct Checked<C>(PhantomData<C>);

impl<C: PagePolicy> Checked<C> {
    pub(super) const OK: () = {
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
/// 50, "maxPageSize": 200, "cursorTtlSeconds": 86400}`). Written by [`Pager`](super::Pager)'s tool
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
