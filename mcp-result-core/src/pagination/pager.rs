//! The extractor: where the walk is.
use super::{cursor::*, page::*, policy::*};

use std::{fmt, marker::PhantomData};

use rmcp::model::JsonObject;
use serde::{de::DeserializeOwned, Serialize};
use serde_json::{json, Value};

use crate::{
    store::clock::now_ms,
    tool::extract::{via, FromToolCall, ToolCall, ToolExtension},
    wire::{
        envelope::{FieldError, ToolError},
        keys::{CURSOR_ARGUMENT, PAGE_SIZE_ARGUMENT, PAGING_META},
    },
};

/// Where a paged call stands: the position its `cursor` carried (`None` on the first page),
/// the page size it asked for, and what the next cursor will be bound to. Take it as a
/// parameter of a `#[mcp_tool]` method (an extractor); `P` is the position, any
/// `Serialize + DeserializeOwned` type you choose (an offset `usize`, a last-seen key), `C`
/// the [`PagePolicy`].
///
/// It adds `cursor` and `pageSize` to the tool's `inputSchema` and the [`Advertised`]
/// paging facts to its `_meta`. Extraction fails, and the tool does not run, with a
/// `validation_error` at `/cursor` for a cursor that is not a valid, unexpired one of this
/// tool, caller and arguments (see the [module docs](crate::pagination)).
pub struct Pager<P, C: PagePolicy = DefaultPaging> {
    position: Option<P>,
    /// The position as its cursor held it (JSON), to tell a page that does not advance.
    position_json: Option<Vec<u8>>,
    tool: &'static str,
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
    /// this tool, caller and arguments, valid for [`PagePolicy::CURSOR_LIFETIME`] (rounded
    /// up, so that the same position gives the same cursor: a client's loop guard sees a
    /// repeat).
    ///
    /// A `next` position equal to the one this call was asked for (the page does not
    /// advance) is answered as an `internal` error naming the tool, "the page did not
    /// advance", instead of a page a client would follow forever; so is a next cursor over
    /// [`MAX_CURSOR_CHARS`].
    pub fn page<T>(&self, items: Vec<T>, next: Option<P>, total_estimate: Option<u64>) -> Page<T> {
        let shown = self.offset + items.len() as u64;
        let mut refused = None;
        let next_cursor = next.map(|position| {
            let (cursor, json) = self.seal.cursor(&position, shown, C::CURSOR_LIFETIME);
            if self.position_json.as_deref() == Some(&json[..]) {
                refused = Some(Refused::Stalled { tool: self.tool });
            } else if cursor.len() > MAX_CURSOR_CHARS {
                refused = Some(Refused::OverlongCursor {
                    tool: self.tool,
                    chars: cursor.len(),
                });
            }
            cursor
        });
        Page {
            items,
            offset: self.offset,
            next_cursor,
            total_estimate,
            refused,
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
        Some(ToolExtension {
            arguments,
            meta,
            ..ToolExtension::default()
        })
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
        let key = call.state().server_key().clone();
        let caller = call.identity().key();
        let seal = Seal::new(&key, call.tool(), &caller, binding);
        let (position, position_json, offset) = match call.extension_argument(CURSOR_ARGUMENT) {
            None => (None, None, 0),
            Some(Value::String(cursor)) => {
                let opened = seal
                    .open(&key, cursor, &caller, binding, now_ms())
                    .map_err(|problem| problem.error(C::CURSOR_LIFETIME))?;
                let position = serde_json::from_slice::<P>(&opened.position)
                    .map_err(|_| Problem::Position.error(C::CURSOR_LIFETIME))?;
                (Some(position), Some(opened.position), opened.offset)
            }
            Some(_) => return Err(Problem::Malformed.error(C::CURSOR_LIFETIME)),
        };
        Ok(Self {
            position,
            position_json,
            tool: call.tool(),
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
