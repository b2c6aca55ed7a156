//! JSON Pointer (RFC 6901) reference tokens: the one place they are escaped and read back.

/// A property name as a reference token: `~` → `~0`, `/` → `~1` (RFC 6901 §4).
pub(crate) fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// A reference token as the property name it stands for: `~1` → `/`, then `~0` → `~`.
pub(crate) fn unescape(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

#[cfg(test)]
mod tests {
    #[test]
    fn tokens_round_trip() {
        assert_eq!(super::escape("a/b~c"), "a~1b~0c");
        assert_eq!(super::unescape("a~1b~0c"), "a/b~c");
        assert_eq!(super::unescape(&super::escape("~1")), "~1");
    }
}
