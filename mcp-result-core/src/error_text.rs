//! [`ErrorText`]: an error that is a sentence, for what a person reads in a terminal.

use std::fmt;

/// An error that is its text: `Display` and `Debug` both write the sentence, so a `main`
/// returning it (`Result<(), Box<dyn Error>>`, which prints `Error: {:?}`) prints
/// `Error: <the sentence>` as it reads, not a quoted, escaped string.
///
/// What the `serve*` functions refuse before they serve (a state mixing durable and
/// in-memory stores, a gated tool nobody could approve) and what the `approvals` command
/// ([`run_command`](crate::approval::run_command)) refuses are `ErrorText`s.
#[derive(Clone, PartialEq, Eq)]
pub struct ErrorText(pub String);

impl fmt::Display for ErrorText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for ErrorText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ErrorText {}

impl From<String> for ErrorText {
    fn from(text: String) -> Self {
        ErrorText(text)
    }
}

#[cfg(test)]
mod tests {
    use super::ErrorText;

    #[test]
    fn main_prints_the_sentence_as_it_reads() {
        let boxed: Box<dyn std::error::Error> = Box::new(ErrorText("use \"a\" here".into()));
        assert_eq!(format!("Error: {boxed:?}"), "Error: use \"a\" here");
        assert_eq!(boxed.to_string(), "use \"a\" here");
    }
}
