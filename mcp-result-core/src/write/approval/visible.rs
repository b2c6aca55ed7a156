//! What is read is what runs: the characters that change what a reader sees of a value,
//! shown by their code point wherever an approval is presented (the approval text, the
//! elicitation message, the approvals page, the `approvals` command), and the request
//! warned of them ([`Review::hidden`](super::Review::hidden)).
//!
//! They are the bidirectional controls (U+202A–U+202E, U+2066–U+2069: `"\u{202e}1001-T"`
//! reads "T-1001"), zero-width and other invisible formatting characters (U+200B–U+200D,
//! U+2060, U+FEFF and the rest of Unicode's general category `Cf`), the C0 and C1 control
//! characters (`Cc`), and the line and paragraph separators (U+2028, U+2029). Each is
//! written `[U+XXXX]`. Unicode Technical Report #36 "Unicode Security Considerations"
//! (bidirectional text spoofing) and CVE-2021-42574 ("Trojan Source") are the reason.

use std::{borrow::Cow, fmt::Write as _};

use unicode_properties::{GeneralCategory, UnicodeGeneralCategory as _};

/// Whether `c` changes what a reader sees without being seen: a control character, a
/// format character (`Cf`: bidirectional controls, zero-width characters, U+FEFF, …), or a
/// line or paragraph separator.
pub fn changes_reading(c: char) -> bool {
    if (' '..='~').contains(&c) {
        return false;
    }
    c.is_control()
        || c == '\u{2028}'
        || c == '\u{2029}'
        || c.general_category() == GeneralCategory::Format
}

/// `text` with every character that [`changes_reading`] written as its code point in
/// brackets, `[U+202E]`, but those in `keep` (the page keeps `'\n'` and `'\t'` of a
/// multi-line value, which it shows as lines). Borrowed when there is none.
///
/// ```
/// use mcp_result_core::approval::marked;
///
/// assert_eq!(marked("\u{202e}1001-T", &[]), "[U+202E]1001-T");
/// assert_eq!(marked("T-1\u{200b}001", &[]), "T-1[U+200B]001");
/// assert_eq!(marked("two\nlines", &['\n']), "two\nlines");
/// assert_eq!(marked("two\nlines", &[]), "two[U+000A]lines");
/// ```
pub fn marked<'a>(text: &'a str, keep: &[char]) -> Cow<'a, str> {
    if !holds_hidden(text, keep) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if changes_reading(c) && !keep.contains(&c) {
            let _ = write!(out, "[U+{:04X}]", c as u32);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Whether `text` holds a character that [`changes_reading`], but those in `keep`.
pub fn holds_hidden(text: &str, keep: &[char]) -> bool {
    !text.bytes().all(|byte| (b' '..=b'~').contains(&byte))
        && text
            .chars()
            .any(|c| changes_reading(c) && !keep.contains(&c))
}

/// The JSON Pointers of the values and property names under `value` that hold a character
/// that [`changes_reading`] (a name's pointer is the property's), sorted; `'\n'` and
/// `'\t'` inside string values are not counted (a note may have lines).
pub(crate) fn hidden_pointers(value: &serde_json::Value) -> Vec<String> {
    let mut found = Vec::new();
    walk(value, &mut String::new(), &mut found);
    found.sort();
    found.dedup();
    found
}

/// The warning an approval text ends with when the arguments at `hidden` (JSON Pointers)
/// hold characters that change reading: `. Warning: /ticketId holds characters that change
/// how text reads, shown as [U+…]` (the first 5 named, then how many more); `None` for none.
pub(crate) fn warning(hidden: &[String]) -> Option<String> {
    if hidden.is_empty() {
        return None;
    }
    let named: Vec<&str> = hidden.iter().take(5).map(String::as_str).collect();
    let more = match hidden.len() - named.len() {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    let verb = if hidden.len() == 1 { "holds" } else { "hold" };
    Some(format!(
        ". Warning: {}{more} {verb} characters that change how text reads, shown as [U+…]",
        marked(&named.join(", "), &[])
    ))
}

fn walk(value: &serde_json::Value, pointer: &mut String, found: &mut Vec<String>) {
    use serde_json::Value;
    match value {
        Value::String(text) if holds_hidden(text, &['\n', '\t']) => found.push(pointer.clone()),
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                let at = pointer.len();
                let _ = write!(pointer, "/{index}");
                walk(item, pointer, found);
                pointer.truncate(at);
            }
        }
        Value::Object(map) => {
            for (name, item) in map {
                let at = pointer.len();
                pointer.push('/');
                pointer.push_str(&crate::wire::pointer::escape(name));
                if holds_hidden(name, &[]) {
                    found.push(pointer.clone());
                }
                walk(item, pointer, found);
                pointer.truncate(at);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spoofing_class_is_marked() {
        for c in [
            '\u{202a}', '\u{202e}', '\u{2066}', '\u{2069}', '\u{200b}', '\u{200d}', '\u{2060}',
            '\u{feff}', '\u{00ad}', '\u{061c}', '\u{200e}', '\u{0000}', '\u{001b}', '\u{007f}',
            '\u{0085}', '\u{009f}', '\u{2028}', '\u{2029}',
        ] {
            assert!(changes_reading(c), "U+{:04X}", c as u32);
        }
        for c in ['a', ' ', 'é', '–', '字', '\u{00a0}'] {
            assert!(!changes_reading(c), "U+{:04X}", c as u32);
        }
    }

    #[test]
    fn pointers_name_values_and_property_names() {
        let value = serde_json::json!({
            "ticketId": "\u{202e}1001-T",
            "note": "two\nlines",
            "items": ["ok", "zero\u{200b}width"],
            "na\u{200b}me": 1
        });
        assert_eq!(
            hidden_pointers(&value),
            ["/items/1", "/na\u{200b}me", "/ticketId"]
        );
    }
}
