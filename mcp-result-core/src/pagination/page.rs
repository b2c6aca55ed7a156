//! The result: one page and its summary.
use super::policy::MAX_CURSOR_CHARS;

use schemars::JsonSchema;
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use crate::{
    result::{build::ToolResult, summary::Summary},
    wire::{
        envelope::{ErrorKind, ToolError},
        keys::NEXT_CURSOR,
        text::push_escaped,
    },
};

/// One page of a larger result: a tool's return type (also as `Result<Page<T>, ToolError>`),
/// built by [`Pager::page`](super::Pager::page).
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
    pub(super) items: Vec<T>,
    /// How many items the earlier pages of this walk showed (0 on the first page).
    pub(super) offset: u64,
    /// The cursor of the next page: call the tool again with the same arguments and this as
    /// `cursor`. Absent on the last page. Opaque; it expires.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub(super) next_cursor: Option<String>,
    /// About how many items the whole walk has (an estimate), when the tool knows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u64")]
    pub(super) total_estimate: Option<u64>,
    /// Why this page cannot be answered (it does not advance, or its next cursor came out
    /// too long): the page then fails to serialize, and the framework answers an `internal`
    /// error naming the tool instead.
    #[serde(skip)]
    pub(super) refused: Option<Refused>,
}

/// Why a page cannot be answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Refused {
    /// Its next cursor has this many characters, over [`MAX_CURSOR_CHARS`].
    OverlongCursor { tool: &'static str, chars: usize },
    /// Its next position is the one it was asked for: following `nextCursor` would give
    /// this page again, forever.
    Stalled { tool: &'static str },
}

impl Refused {
    fn detail(&self) -> String {
        match self {
            Refused::OverlongCursor { tool, chars } => format!(
                "Tool `{tool}`: the next page's cursor has {chars} characters, over the \
                 {MAX_CURSOR_CHARS} a cursor may have (the tool must make its position \
                 smaller: an offset or a last-seen key)."
            ),
            Refused::Stalled { tool } => format!(
                "Tool `{tool}`: the page did not advance (its next position is the one it \
                 was asked for), so following nextCursor would return it forever. This is a \
                 fault of the tool, not of the call."
            ),
        }
    }
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
        if let Some(refused) = &self.refused {
            return Err(S::Error::custom(refused.detail()));
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

    /// A page that does not advance, or whose next cursor is too long: an `internal` error
    /// naming the tool (logged with its correlation id), never a page a client would follow
    /// forever.
    fn refusal(&self) -> Option<ToolError> {
        let refused = self.refused.as_ref()?;
        let detail = refused.detail();
        let id = crate::wire::envelope::new_correlation_id();
        tracing::error!(correlation_id = %id, "{detail}");
        Some(ToolError::of_kind(ErrorKind::Internal, detail).with_correlation_id(id))
    }
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
pub(super) fn thousands(n: u64) -> String {
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
