//! Text written for the model: values it did not write are echoed short and on one line.
//!
//! A value from a caller or an upstream (an argument, a field of a result) can be huge or
//! can hold newlines that forge lines in the text the model reads (`"T-1\nError
//! (internal): ..."`). Every such value is written through [`push_escaped`] (control
//! characters and newlines as visible escapes) and, where an error echoes a caller's value,
//! through [`echo`] (a short prefix and the length).

use std::fmt::Write as _;

use serde_json::Value;

/// How many characters of a caller's value an error message may echo.
pub(crate) const ECHO_CHARS: usize = 40;

/// Appends `text` with every control character written as a visible escape (`\n`, `\r`,
/// `\t`, `\u{1b}`), so it stays on one line. The runs between escapes are copied whole.
pub(crate) fn push_escaped(out: &mut String, text: &str) {
    // Printable ASCII only (most text): nothing to escape, copied whole after a byte scan.
    if text.bytes().all(|byte| (b' '..=b'~').contains(&byte)) {
        out.push_str(text);
        return;
    }
    let mut clean = 0;
    for (at, c) in text.char_indices() {
        let escape = match c {
            // Printable ASCII first: most text is, and `char::is_control` is a table lookup.
            ' '..='~' => continue,
            '\n' => "\\n",
            '\r' => "\\r",
            '\t' => "\\t",
            c if breaks_line(c) => "",
            _ => continue,
        };
        out.push_str(&text[clean..at]);
        if escape.is_empty() {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        } else {
            out.push_str(escape);
        }
        clean = at + c.len_utf8();
    }
    out.push_str(&text[clean..]);
}

/// Whether `c` is a control character or a Unicode line break (U+2028, U+2029): what
/// [`push_escaped`] escapes, and what text for the model never holds raw.
pub(crate) fn breaks_line(c: char) -> bool {
    c.is_control() || c == '\u{2028}' || c == '\u{2029}'
}

/// `value` as compact JSON: serde_json's text (key order included), except that the
/// characters serde_json leaves raw and [`breaks_line`] flags (DEL, C1 controls such as
/// U+0085, U+2028, U+2029) are written `\uXXXX`, so it parses back to the same value and
/// stays on one line.
pub(crate) fn json_one_line(value: &Value) -> String {
    // A result's text is rarely under 256 bytes: one allocation instead of a few growths.
    let mut out = Vec::with_capacity(256);
    let _ = serde_json::to_writer(&mut out, value);
    let text = String::from_utf8(out).unwrap_or_default();
    // serde_json escapes the controls below a space; the rest of what `breaks_line` flags it
    // writes raw, always inside a string (JSON's own characters are ASCII), and all of it is
    // at or above DEL: a text of ASCII below DEL (most) is done after a scan.
    if text.is_ascii() && !text.as_bytes().contains(&0x7f) {
        return text;
    }
    let mut escaped = String::with_capacity(text.len() + 12);
    let mut clean = 0;
    for (at, c) in text.char_indices() {
        if c >= '\u{7f}' && breaks_line(c) {
            escaped.push_str(&text[clean..at]);
            let _ = write!(escaped, "\\u{:04x}", c as u32);
            clean = at + c.len_utf8();
        }
    }
    escaped.push_str(&text[clean..]);
    escaped
}

/// `text` escaped by [`push_escaped`].
pub(crate) fn escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    push_escaped(&mut out, text);
    out
}

/// A caller's value as an error message may echo it: compact JSON, cut to [`ECHO_CHARS`]
/// characters with its full length given when longer (`"aaaa…" (4194304 characters)`),
/// control characters escaped.
pub(crate) fn echo(value: &Value) -> String {
    let json = value.to_string();
    cap(&json)
}

/// `text` cut to [`ECHO_CHARS`] characters (length given when longer), escaped.
pub(crate) fn cap(text: &str) -> String {
    match cut_at(text, ECHO_CHARS) {
        Some((cut, total)) => {
            let mut out = escaped(&text[..cut]);
            let _ = write!(out, "… ({total} characters)");
            out
        }
        None => escaped(text),
    }
}

/// Where `text` is cut to keep its first `keep` characters, and its full length in
/// characters: `None` when it has no more than `keep`.
fn cut_at(text: &str, keep: usize) -> Option<(usize, usize)> {
    // At most 4 bytes a character: a text of no more than `keep` bytes is short enough.
    if text.len() <= keep {
        return None;
    }
    let (cut, _) = text.char_indices().nth(keep)?;
    Some((cut, keep + text[cut..].chars().count()))
}

/// How many characters an error message keeps, in all ([`crate::ToolError::MAX_MESSAGE_CHARS`]).
pub(crate) const ERROR_MESSAGE_CHARS: usize = 1024;

/// `text` as an error envelope keeps it: whole up to `limit` characters; longer, its first
/// characters and `… (N characters in all)`, N its full length, `limit` characters in all
/// (or only that ending, when `limit` is shorter than it). Not escaped: the error's summary
/// escapes what it writes, the JSON text is JSON.
pub(crate) fn capped(text: &str, limit: usize) -> std::borrow::Cow<'_, str> {
    if cut_at(text, limit).is_none() {
        return text.into();
    }
    let total = text.chars().count();
    let ending = format!("… ({total} characters in all)");
    let keep = limit.saturating_sub(ending.chars().count());
    let cut = text
        .char_indices()
        .nth(keep)
        .map_or(text.len(), |(at, _)| at);
    let mut out = String::with_capacity(cut + ending.len());
    out.push_str(&text[..cut]);
    out.push_str(&ending);
    out.into()
}

/// [`capped`] in place, to [`ERROR_MESSAGE_CHARS`].
pub(crate) fn cap_error_text(text: &mut String) {
    if let std::borrow::Cow::Owned(cut) = capped(text, ERROR_MESSAGE_CHARS) {
        *text = cut;
    }
}

/// Whether `text` is within [`ERROR_MESSAGE_CHARS`].
pub(crate) fn error_text_within(text: &str) -> bool {
    cut_at(text, ERROR_MESSAGE_CHARS).is_none()
}

/// How many characters of an error message about input are kept.
pub(crate) const MESSAGE_CHARS: usize = 300;

/// An error message about input, escaped and cut to [`MESSAGE_CHARS`] characters.
pub(crate) fn cap_message(message: &str) -> String {
    match message.char_indices().nth(MESSAGE_CHARS) {
        Some((cut, _)) => {
            let mut out = escaped(&message[..cut]);
            out.push('…');
            out
        }
        None => escaped(message),
    }
}

/// Whether JSON writes `text` as it is between its quotes: it holds no `"`, no `\\` and no
/// control character below U+0020 (what serde_json escapes), checked eight bytes at a time.
pub(crate) fn json_plain(text: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // Some byte of `word` is below `n` (n <= 128): the borrow of subtracting `n` reaches
    // the high bit of a byte that was below it, and only of such a byte's (or of one above
    // a byte that was; the test is of any byte, so that is no error).
    let below = |word: u64, n: u8| word.wrapping_sub(ONES * u64::from(n)) & !word & HIGH;
    let has = |word: u64, byte: u8| below(word ^ (ONES * u64::from(byte)), 1);
    let mut words = text.chunks_exact(8);
    for word in &mut words {
        let word = u64::from_le_bytes([
            word[0], word[1], word[2], word[3], word[4], word[5], word[6], word[7],
        ]);
        if below(word, 0x20) | has(word, b'"') | has(word, b'\\') != 0 {
            return false;
        }
    }
    words
        .remainder()
        .iter()
        .all(|&byte| byte >= 0x20 && byte != b'"' && byte != b'\\')
}

/// Lower-case hex of `bytes` (two characters a byte).
pub(crate) fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut text = vec![0; bytes.len() * 2];
    for (pair, byte) in text.chunks_exact_mut(2).zip(bytes) {
        pair[0] = DIGITS[usize::from(byte >> 4)];
        pair[1] = DIGITS[usize::from(byte & 0xf)];
    }
    String::from_utf8(text).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_plain_is_what_serde_json_leaves_unescaped() {
        let plain = |text: &[u8]| {
            let text = String::from_utf8_lossy(text);
            serde_json::to_string(&text).unwrap() == format!("\"{text}\"")
        };
        // Every byte that matters, at every position of a word and of the tail.
        let mut samples: Vec<Vec<u8>> = vec![Vec::new(), b"plain".to_vec()];
        for byte in (0u8..=0x7f).chain([0x80, 0xc3, 0xa9, 0xff]) {
            for len in [1, 7, 8, 9, 16, 17] {
                for at in 0..len {
                    let mut text = vec![b'a'; len];
                    text[at] = byte;
                    samples.push(text);
                }
            }
        }
        samples.push("é\u{2028}\u{7f}\u{85}".as_bytes().to_vec());
        for sample in samples {
            let valid = std::str::from_utf8(&sample).is_ok();
            if valid {
                assert_eq!(json_plain(&sample), plain(&sample), "{sample:?}");
            }
        }
    }

    #[test]
    fn json_one_line_escapes_every_line_break_and_parses_back() {
        let value = serde_json::json!({"a": "x\u{2028}y\u{2029}z\u{85}w\u{7f}\n", "b": [1, "é"],
                                       "c\u{2028}": "ok"});
        let text = json_one_line(&value);
        assert_eq!(
            text,
            r#"{"a":"x\u2028y\u2029z\u0085w\u007f\n","b":[1,"é"],"c\u2028":"ok"}"#
        );
        assert!(!text.chars().any(breaks_line));
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), value);
    }

    #[test]
    fn echoes_are_short_and_on_one_line() {
        assert_eq!(
            escaped("T-1\nError (internal): x"),
            "T-1\\nError (internal): x"
        );
        assert_eq!(escaped("a\u{1b}[31m"), "a\\u{1b}[31m");
        assert_eq!(
            escaped("\tü\u{2028}x\r\u{85}é\n"),
            "\\tü\\u{2028}x\\r\\u{85}é\\n"
        );
        assert_eq!(escaped("plain"), "plain");
        assert_eq!(escaped(""), "");
        let long = Value::String("a".repeat(4 << 20));
        let echoed = echo(&long);
        assert!(echoed.len() < 80, "{echoed}");
        assert!(echoed.ends_with("… (4194306 characters)"), "{echoed}");
        assert_eq!(echo(&Value::from(5)), "5");
    }

    #[test]
    fn error_texts_are_cut_to_their_length_in_all_with_their_full_length() {
        assert_eq!(capped("short", 10), "short");
        assert_eq!(capped("0123456789", 10), "0123456789");
        let long = "é".repeat(1 << 20);
        let cut = capped(&long, ERROR_MESSAGE_CHARS);
        assert_eq!(cut.chars().count(), ERROR_MESSAGE_CHARS);
        assert!(cut.ends_with("é… (1048576 characters in all)"), "{cut}");
        // A limit shorter than the ending keeps only the ending.
        assert_eq!(capped("abcdef", 3), "… (6 characters in all)");
        let mut text = "a\nb".repeat(1000);
        cap_error_text(&mut text);
        assert_eq!(text.chars().count(), ERROR_MESSAGE_CHARS);
        assert!(text.starts_with("a\nb") && text.ends_with("… (3000 characters in all)"));
        assert!(error_text_within(&text) && !error_text_within(&"x".repeat(1025)));
    }
}
