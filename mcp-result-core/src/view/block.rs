//! What the model context and the user display share about a content block: its place in
//! `content`, its audience, its priority, and the sizes of what it carries.

use std::fmt;

use rmcp::model::{Annotations, ContentBlock, ReadResourceRequestParams, Resource};

/// The position of a block in the result's `content` array (0-based).
///
/// The model context and the user display refer to images, audio and embedded blobs by
/// handle instead of copying their base64 data; [`crate::view::ResultView::block`] gives the
/// original block back, e.g. for a UI to render the image or for a host to send it to a
/// vision model on purpose. Displayed as `content[2]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockHandle(pub(crate) usize);

impl BlockHandle {
    /// The index into `CallToolResult::content`.
    pub const fn index(self) -> usize {
        self.0
    }
}

impl fmt::Display for BlockHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "content[{}]", self.0)
    }
}

pub use crate::wire::audience::Audience;

/// The kind of a base64 media block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MediaKind {
    /// An `image` block.
    Image,
    /// An `audio` block.
    Audio,
}

impl MediaKind {
    /// `"image"` or `"audio"`, the block's `type`.
    pub const fn as_str(self) -> &'static str {
        match self {
            MediaKind::Image => "image",
            MediaKind::Audio => "audio",
        }
    }
}

/// A `resource_link` block: a reference to fetch with `resources/read` when it is needed.
///
/// MCP 2025-06-18 and later ("Tool Result: Resource Links"): a link returned by a tool is
/// not guaranteed to appear in `resources/list`, so read it by its URI instead of looking it
/// up there. Reading it is a new request the server checks again; the link grants nothing.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ResourceRef {
    /// Where the link sits in `content`.
    pub handle: BlockHandle,
    /// The resource's URI: what `resources/read` takes.
    pub uri: String,
    /// The resource's programmatic name.
    pub name: String,
    /// A human-readable title, when the server gave one.
    pub title: Option<String>,
    /// What the resource is, when the server said.
    pub description: Option<String>,
    /// The MIME type (`mimeType`), when known.
    pub mime_type: Option<String>,
    /// The raw size in bytes (before base64), when known.
    pub size: Option<u64>,
    /// Who the link is meant for.
    pub audience: Audience,
    /// The link's `priority`, when it has a valid one (see [`priority`]).
    pub priority: Option<f32>,
}

impl ResourceRef {
    pub(crate) fn new(handle: BlockHandle, link: &Resource) -> Self {
        Self {
            handle,
            uri: link.uri.clone(),
            name: link.name.clone(),
            title: link.title.clone(),
            description: link.description.clone(),
            mime_type: link.mime_type.clone(),
            size: link.size,
            audience: Audience::of(link.annotations.as_ref()),
            priority: priority(link.annotations.as_ref()),
        }
    }

    /// The `resources/read` request for this link (send it with rmcp's
    /// `Peer::read_resource`).
    pub fn read_request(&self) -> ReadResourceRequestParams {
        ReadResourceRequestParams::new(self.uri.clone())
    }

    /// One line: `resource_link report.csv <file:///r.csv> (text/csv, 12.0 KB): Q3 report`.
    pub fn describe(&self) -> String {
        let mut line = format!(
            "resource_link {} <{}>",
            one_line(&self.name, 160),
            one_line(&self.uri, 300)
        );
        let facts: Vec<String> = self
            .mime_type
            .iter()
            .map(|mime| one_line(mime, 80))
            .chain(self.size.map(human_size))
            .collect();
        if !facts.is_empty() {
            line.push_str(&format!(" ({})", facts.join(", ")));
        }
        if let Some(about) = self.title.as_ref().or(self.description.as_ref()) {
            line.push_str(": ");
            line.push_str(&one_line(about, 160));
        }
        line
    }
}

/// The `priority` of a block: a number in `[0, 1]`, 1 meaning effectively required and 0
/// entirely optional (MCP 2025-06-18 and later, "Annotations"). A value outside that range
/// (or not a number) is ignored, as if absent.
pub fn priority(annotations: Option<&Annotations>) -> Option<f32> {
    annotations
        .and_then(|a| a.priority)
        .filter(|p| p.is_finite() && (0.0..=1.0).contains(p))
}

/// The annotations of any content block (every kind may carry them).
pub(crate) fn annotations(block: &ContentBlock) -> Option<&Annotations> {
    match block {
        ContentBlock::Text(b) => b.annotations.as_ref(),
        ContentBlock::Image(b) => b.annotations.as_ref(),
        ContentBlock::Audio(b) => b.annotations.as_ref(),
        ContentBlock::Resource(b) => b.annotations.as_ref(),
        ContentBlock::ResourceLink(b) => b.annotations.as_ref(),
        _ => None,
    }
}

/// The number of bytes base64 `data` decodes to (whitespace ignored), without decoding it.
pub(crate) fn base64_len(data: &str) -> u64 {
    let symbols = data
        .bytes()
        .filter(|b| !b.is_ascii_whitespace() && *b != b'=')
        .count() as u64;
    symbols * 3 / 4
}

/// `512 B`, `12.0 KB`, `1.0 MB` (binary multiples).
pub(crate) fn human_size(bytes: u64) -> String {
    const KB: f64 = 1024.0;
    match bytes {
        b if b < 1024 => format!("{b} B"),
        b if (b as f64) < KB * KB => format!("{:.1} KB", b as f64 / KB),
        b => format!("{:.1} MB", b as f64 / (KB * KB)),
    }
}

/// `text` on one line (newlines, control characters and Unicode line breaks become spaces), at most `max` characters (then `…`).
pub(crate) fn one_line(text: &str, max: usize) -> String {
    let flat: String = text
        .chars()
        .map(|c| {
            if crate::wire::text::breaks_line(c) {
                ' '
            } else {
                c
            }
        })
        .collect();
    truncate_chars(flat.trim(), max)
}

/// At most `max` characters of `text`, with `…` when cut.
pub(crate) fn truncate_chars(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_owned(),
        Some((cut, _)) => format!("{}…", &text[..cut]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_length_counts_decoded_bytes() {
        assert_eq!(base64_len("aGVsbG8="), 5);
        assert_eq!(base64_len("aGVs\nbG8h"), 6);
        assert_eq!(base64_len(""), 0);
    }

    #[test]
    fn sizes_and_truncation() {
        assert_eq!(human_size(512), "512 B");
        assert_eq!(human_size(12 * 1024), "12.0 KB");
        assert_eq!(human_size(3 * 1024 * 1024 / 2), "1.5 MB");
        assert_eq!(truncate_chars("héllo", 2), "hé…");
        assert_eq!(one_line("a\nb", 10), "a b");
    }
}
