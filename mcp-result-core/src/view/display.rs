//! The user display: every block for the person at the host, fitted to a size budget.

use std::fmt;

use rmcp::model::{ContentBlock, ResourceContents};

use super::{
    block::{annotations, base64_len, human_size, priority, Audience},
    BlockHandle, MediaKind, ResourceRef, ResultView,
};

/// The priority a block without a valid `priority` annotation is ranked with: midway,
/// since MCP gives no default ("Annotations": 1 = effectively required, 0 = entirely
/// optional).
pub const DEFAULT_PRIORITY: f32 = 0.5;

/// How many characters of a collapsed text block stay visible.
const PREVIEW_CHARS: usize = 80;

/// Knobs of [`ResultView::user_display`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct DisplayOptions {
    /// The size budget in characters (Unicode scalar values) of
    /// [`UserDisplay::to_text`]. Default 4000.
    pub budget_chars: usize,
    /// The order of [`UserDisplay::items`]. Default [`DisplayOrder::Content`].
    pub order: DisplayOrder,
}

impl Default for DisplayOptions {
    fn default() -> Self {
        Self {
            budget_chars: 4000,
            order: DisplayOrder::Content,
        }
    }
}

impl DisplayOptions {
    /// Options with a budget of `chars` characters, in content order.
    pub fn budget(chars: usize) -> Self {
        Self {
            budget_chars: chars,
            ..Self::default()
        }
    }

    /// Sets the [`order`](Self::order).
    pub fn order(mut self, order: DisplayOrder) -> Self {
        self.order = order;
        self
    }
}

/// The order of the items of a [`UserDisplay`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DisplayOrder {
    /// As the server sent them in `content` (the structured fallback last).
    #[default]
    Content,
    /// Highest `priority` first; equal priorities in `content` order.
    Priority,
}

/// What the user sees of a result: every content block, those with `audience: ["user"]`
/// included, fitted to a character budget.
///
/// When the blocks do not fit, they are collapsed lowest `priority` first (a block without
/// one ranks [`DEFAULT_PRIORITY`]; between equals, the later block first): a collapsed text
/// keeps an 80-character preview, a collapsed resource or structured value a one-line
/// summary. If even the collapsed blocks do not fit, the lowest-priority ones are left out
/// and counted in [`hidden`](Self::hidden). The higher a block's priority, the longer it is
/// kept whole. Media count as their one-line caption; a UI renders the data from the
/// [`BlockHandle`]. (MCP 2025-06-18 and later, "Annotations"; DESIGN.md "The client side".)
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct UserDisplay {
    /// The result is a tool execution error: render it as a failure (see
    /// [`ResultView::error`] for the details).
    pub is_error: bool,
    /// The blocks shown, in the requested [`DisplayOrder`].
    pub items: Vec<DisplayItem>,
    /// How many blocks were left out because even collapsed they did not fit.
    pub hidden: usize,
    /// The budget the display was fitted to, in characters.
    pub budget_chars: usize,
}

/// One block of a [`UserDisplay`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct DisplayItem {
    /// Where the block sits in `content`; `None` for the structured fallback.
    pub handle: Option<BlockHandle>,
    /// Who the block is meant for (a UI may style assistant-only blocks differently).
    pub audience: Audience,
    /// The block's valid `priority` annotation, if any.
    pub priority: Option<f32>,
    /// The block was collapsed to fit the budget.
    pub collapsed: bool,
    /// What to show.
    pub body: DisplayBody,
}

/// What a [`DisplayItem`] shows.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum DisplayBody {
    /// A text block: its text, or an 80-character preview when collapsed.
    Text {
        /// What to show.
        text: String,
        /// The length of the whole text, in characters.
        chars: usize,
    },
    /// An image or audio block: render it from the handle's block.
    Media {
        /// Image or audio.
        kind: MediaKind,
        /// Its `mimeType`.
        mime_type: String,
        /// The decoded size in bytes.
        bytes: u64,
    },
    /// A `resource_link`: show it as a link the user can open (`resources/read`).
    ResourceLink(ResourceRef),
    /// An embedded resource.
    Resource {
        /// Its URI.
        uri: String,
        /// Its MIME type, when given.
        mime_type: Option<String>,
        /// The size of its text (UTF-8 bytes) or decoded blob.
        bytes: u64,
        /// `true` for a blob resource (render it from the handle's block).
        binary: bool,
        /// The text of a text resource, unless collapsed.
        text: Option<String>,
    },
    /// `structuredContent`, pretty-printed, when no text block carries it; `None` when
    /// collapsed.
    Structured {
        /// The pretty JSON, unless collapsed.
        json: Option<String>,
        /// The length of the pretty JSON, in characters.
        chars: usize,
    },
    /// A content block of a kind this version does not know.
    Unsupported,
}

impl DisplayItem {
    /// The priority the budget ranks this block by: its `priority`, or
    /// [`DEFAULT_PRIORITY`].
    pub fn effective_priority(&self) -> f32 {
        self.priority.unwrap_or(DEFAULT_PRIORITY)
    }

    /// The item as plain text (what [`UserDisplay::to_text`] joins and the budget counts).
    pub fn render(&self) -> String {
        let at = |handle: Option<BlockHandle>| {
            handle.map_or_else(|| "structuredContent".to_owned(), |h| h.to_string())
        };
        match &self.body {
            DisplayBody::Text { text, chars } if self.collapsed => {
                let shown = text.chars().count();
                format!("{text} [… {} more characters]", chars.saturating_sub(shown))
            }
            DisplayBody::Text { text, .. } => text.clone(),
            DisplayBody::Media {
                kind,
                mime_type,
                bytes,
            } => format!(
                "[{} {}: {}, {}]",
                kind.as_str(),
                at(self.handle),
                super::block::one_line(mime_type, 80),
                human_size(*bytes)
            ),
            DisplayBody::ResourceLink(link) => format!("[{}]", link.describe()),
            DisplayBody::Resource {
                uri,
                mime_type,
                bytes,
                binary,
                text,
            } => {
                let mime = mime_type.as_deref().unwrap_or("unknown type");
                let kind = if *binary { "binary" } else { "text" };
                let line = format!(
                    "[resource {} <{uri}> ({mime}, {} {kind})]",
                    at(self.handle),
                    human_size(*bytes)
                );
                match text {
                    Some(text) => format!("{line}\n{text}"),
                    None => line,
                }
            }
            DisplayBody::Structured {
                json: Some(json), ..
            } => json.clone(),
            DisplayBody::Structured { json: None, chars } => {
                format!("[structuredContent: {chars} characters of JSON, collapsed]")
            }
            DisplayBody::Unsupported => {
                format!("[{}: a content block of an unknown kind]", at(self.handle))
            }
        }
    }

    /// This item collapsed, when collapsing makes it shorter.
    fn collapse(&self) -> Option<DisplayItem> {
        let body = match &self.body {
            DisplayBody::Text { text, chars } if *chars > PREVIEW_CHARS => DisplayBody::Text {
                text: text.chars().take(PREVIEW_CHARS).collect(),
                chars: *chars,
            },
            DisplayBody::Resource {
                text: Some(_),
                uri,
                mime_type,
                bytes,
                binary,
            } => DisplayBody::Resource {
                uri: uri.clone(),
                mime_type: mime_type.clone(),
                bytes: *bytes,
                binary: *binary,
                text: None,
            },
            DisplayBody::Structured {
                json: Some(_),
                chars,
            } => DisplayBody::Structured {
                json: None,
                chars: *chars,
            },
            _ => return None,
        };
        let collapsed = DisplayItem {
            collapsed: true,
            body,
            ..self.clone()
        };
        (collapsed.size() < self.size()).then_some(collapsed)
    }

    fn size(&self) -> usize {
        self.render().chars().count()
    }
}

impl UserDisplay {
    /// Every item rendered, one after another, separated by newlines: at most
    /// [`budget_chars`](Self::budget_chars) characters.
    pub fn to_text(&self) -> String {
        self.items
            .iter()
            .map(DisplayItem::render)
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The length of [`to_text`](Self::to_text), in characters.
    pub fn used_chars(&self) -> usize {
        total(&self.items)
    }
}

impl fmt::Display for UserDisplay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_text())
    }
}

fn total(items: &[DisplayItem]) -> usize {
    let rendered: usize = items.iter().map(DisplayItem::size).sum();
    rendered + items.len().saturating_sub(1)
}

pub(crate) fn build(view: &ResultView, options: &DisplayOptions) -> UserDisplay {
    let mut items: Vec<DisplayItem> = view
        .result()
        .content
        .iter()
        .enumerate()
        .map(|(index, block)| item(BlockHandle(index), block))
        .collect();
    if let Some(value) = view.uncopied_structured(|_| true) {
        let json = serde_json::to_string_pretty(value).unwrap_or_default();
        items.push(DisplayItem {
            handle: None,
            audience: Audience::BOTH,
            priority: None,
            collapsed: false,
            body: DisplayBody::Structured {
                chars: json.chars().count(),
                json: Some(json),
            },
        });
    }

    // Positions in collapse order: lowest priority first, later blocks before earlier.
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by(|&a, &b| {
        items[a]
            .effective_priority()
            .total_cmp(&items[b].effective_priority())
            .then(b.cmp(&a))
    });
    for &position in &order {
        if total(&items) <= options.budget_chars {
            break;
        }
        if let Some(collapsed) = items[position].collapse() {
            items[position] = collapsed;
        }
    }
    let sizes: Vec<usize> = items.iter().map(DisplayItem::size).collect();
    let mut keep = vec![true; items.len()];
    let (mut used, mut kept, mut hidden) = (total(&items), items.len(), 0);
    for &position in &order {
        if used <= options.budget_chars {
            break;
        }
        keep[position] = false;
        used -= sizes[position] + usize::from(kept > 1);
        kept -= 1;
        hidden += 1;
    }
    let mut items: Vec<DisplayItem> = items
        .into_iter()
        .zip(keep)
        .filter_map(|(item, keep)| keep.then_some(item))
        .collect();
    if options.order == DisplayOrder::Priority {
        items.sort_by(|a, b| b.effective_priority().total_cmp(&a.effective_priority()));
    }
    UserDisplay {
        is_error: view.is_error(),
        items,
        hidden,
        budget_chars: options.budget_chars,
    }
}

fn item(handle: BlockHandle, block: &ContentBlock) -> DisplayItem {
    let notes = annotations(block);
    let body = match block {
        ContentBlock::Text(text) => DisplayBody::Text {
            chars: text.text.chars().count(),
            text: text.text.clone(),
        },
        ContentBlock::Image(image) => DisplayBody::Media {
            kind: MediaKind::Image,
            mime_type: image.mime_type.clone(),
            bytes: base64_len(&image.data),
        },
        ContentBlock::Audio(audio) => DisplayBody::Media {
            kind: MediaKind::Audio,
            mime_type: audio.mime_type.clone(),
            bytes: base64_len(&audio.data),
        },
        ContentBlock::ResourceLink(link) => {
            DisplayBody::ResourceLink(ResourceRef::new(handle, link))
        }
        ContentBlock::Resource(embedded) => match &embedded.resource {
            ResourceContents::TextResourceContents {
                uri,
                mime_type,
                text,
                ..
            } => DisplayBody::Resource {
                uri: uri.clone(),
                mime_type: mime_type.clone(),
                bytes: text.len() as u64,
                binary: false,
                text: Some(text.clone()),
            },
            ResourceContents::BlobResourceContents {
                uri,
                mime_type,
                blob,
                ..
            } => DisplayBody::Resource {
                uri: uri.clone(),
                mime_type: mime_type.clone(),
                bytes: base64_len(blob),
                binary: true,
                text: None,
            },
            _ => DisplayBody::Unsupported,
        },
        _ => DisplayBody::Unsupported,
    };
    DisplayItem {
        handle: Some(handle),
        audience: Audience::of(notes),
        priority: priority(notes),
        collapsed: false,
        body,
    }
}
