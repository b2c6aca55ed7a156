//! Integers that cross JSON intact.
//!
//! serde_json writes every Rust integer as a bare JSON number, and a JSON client reads a
//! number as an IEEE-754 double (JavaScript's `Number`: the TypeScript SDK, MCP Inspector,
//! every browser host): an integer beyond ±(2^53 − 1) arrives rounded, silently
//! (9007199254740993 reads as 9007199254740992). RFC 7493 §2.2 (I-JSON): such numbers SHOULD
//! NOT be sent. So a result's integers are checked as the result is built
//! ([`first_unsafe_integer`]), and a field whose values may be larger is sent as a decimal
//! string ([`DecimalString`]).

use std::{borrow::Cow, fmt, str::FromStr};

use serde::{de, Deserializer, Serializer};
use serde_json::Value;

/// 2^53 − 1: the largest integer every JSON client reads exactly
/// (`Number.MAX_SAFE_INTEGER`).
pub const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// The pattern of [`DecimalString`]'s schema: an optional minus sign and decimal digits,
/// without leading zeros.
pub(crate) const DECIMAL_PATTERN: &str = "^-?(0|[1-9][0-9]*)$";

/// An integer field written as a decimal string, so no JSON client rounds it: one attribute,
/// `#[serde(with = "mcp_result::DecimalString")]`, read by serde (serialize and
/// deserialize) and by schemars (the schema: `{"type": "string", "pattern":
/// "^-?(0|[1-9][0-9]*)$"}`).
///
/// For `u64`/`i64`/`usize`/`isize` values that may pass ±(2^53 − 1) (database ids,
/// snowflakes, byte counts, hashes) and for `u128`/`i128`, which do not compile in a result
/// without it. The same attribute on an argument field accepts the string
/// (`"18446744073709551615"`); `mcp_result::view` parses it back into the integer; the
/// summary template shows the digits.
///
/// ```
/// use mcp_result_core::DecimalString;
/// use schemars::JsonSchema;
/// use serde::{Deserialize, Serialize};
///
/// /// An order (in a server: `#[derive(..., mcp_result::ToolResult)]` too).
/// #[derive(Serialize, Deserialize, JsonSchema)]
/// pub struct Order {
///     #[serde(with = "DecimalString")]
///     pub id: u64,
/// }
///
/// let json = serde_json::to_value(Order { id: (1 << 63) + 1 }).unwrap();
/// assert_eq!(json, serde_json::json!({"id": "9223372036854775809"}));
/// let back: Order = serde_json::from_value(json).unwrap();
/// assert_eq!(back.id, (1 << 63) + 1);
/// let schema = schemars::schema_for!(Order);
/// assert_eq!(schema.as_value()["properties"]["id"]["type"], "string");
/// ```
///
/// It takes the integer types themselves (not `Option<u64>` or `Vec<u64>`: for those, a
/// field of your own newtype with this attribute inside).
#[derive(Debug, Clone, Copy)]
pub struct DecimalString;

/// The integer types [`DecimalString`] writes as decimal strings.
#[diagnostic::on_unimplemented(
    message = "`#[serde(with = \"DecimalString\")]` takes an integer field, not `{Self}`",
    label = "not one of u8..u128, i8..i128, usize, isize",
    note = "for an `Option` or a list of wide integers, wrap each integer in a newtype of your own with `#[serde(with = \"mcp_result::DecimalString\")]` on its field"
)]
pub trait DecimalInteger: fmt::Display + FromStr + Sized {}

macro_rules! decimal_integers {
    ($($ty:ty),*) => {$(impl DecimalInteger for $ty {})*};
}
decimal_integers!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);

impl DecimalString {
    /// Writes `value` as its decimal digits (serde's `with` protocol).
    ///
    /// # Errors
    /// The serializer's own.
    pub fn serialize<T: DecimalInteger, S: Serializer>(
        value: &T,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.collect_str(value)
    }

    /// Reads decimal digits back into the integer (serde's `with` protocol).
    ///
    /// # Errors
    /// `invalid value: string "…", expected decimal digits of …` when the string is not an
    /// integer of the field's type (not digits, or out of its range).
    pub fn deserialize<'de, T: DecimalInteger, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<T, D::Error> {
        struct Digits<T>(std::marker::PhantomData<T>);
        impl<T: DecimalInteger> de::Visitor<'_> for Digits<T> {
            type Value = T;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(
                    f,
                    "a string of the decimal digits of a `{}`",
                    std::any::type_name::<T>()
                )
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<T, E> {
                let canonical = text.strip_prefix('-').unwrap_or(text);
                let digits = !canonical.is_empty()
                    && canonical.bytes().all(|b| b.is_ascii_digit())
                    && (canonical == "0" || !canonical.starts_with('0'));
                match (digits, text.parse::<T>()) {
                    (true, Ok(value)) => Ok(value),
                    _ => Err(E::invalid_value(de::Unexpected::Str(text), &self)),
                }
            }
        }
        deserializer.deserialize_str(Digits(std::marker::PhantomData))
    }
}

impl schemars::JsonSchema for DecimalString {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        "DecimalString".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "pattern": DECIMAL_PATTERN,
            "description": "An integer, as its decimal digits (a string, so that no JSON client rounds it)."
        })
    }
}

/// An integer in `value` that JSON clients would round: its JSON Pointer and the number.
/// `None` when every integer is within ±[`MAX_SAFE_INTEGER`]. Floats are not integers here
/// (a client reads them as the doubles they are).
///
/// On every result's path: the walk compares numbers only and allocates nothing; the
/// pointer is made in a second walk, for a result that is refused.
pub(crate) fn first_unsafe_integer(value: &Value) -> Option<(String, serde_json::Number)> {
    fn is_unsafe(number: &serde_json::Number) -> bool {
        match (number.as_u64(), number.as_i64()) {
            (Some(u), _) => u > MAX_SAFE_INTEGER as u64,
            (None, Some(i)) => i < -MAX_SAFE_INTEGER,
            _ => false,
        }
    }
    fn any(value: &Value) -> bool {
        match value {
            Value::Number(number) => is_unsafe(number),
            Value::Array(items) => items.iter().any(any),
            Value::Object(map) => map.values().any(any),
            _ => false,
        }
    }
    fn find(value: &Value, pointer: &mut String) -> Option<serde_json::Number> {
        match value {
            Value::Number(number) => is_unsafe(number).then(|| number.clone()),
            Value::Array(items) => items.iter().enumerate().find_map(|(index, item)| {
                let at = pointer.len();
                pointer.push('/');
                pointer.push_str(&index.to_string());
                let found = find(item, pointer);
                if found.is_none() {
                    pointer.truncate(at);
                }
                found
            }),
            Value::Object(map) => map.iter().find_map(|(key, item)| {
                let at = pointer.len();
                pointer.push('/');
                pointer.push_str(&crate::wire::pointer::escape(key));
                let found = find(item, pointer);
                if found.is_none() {
                    pointer.truncate(at);
                }
                found
            }),
            _ => None,
        }
    }
    if !any(value) {
        return None;
    }
    let mut pointer = String::new();
    let number = find(value, &mut pointer)?;
    Some((pointer, number))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn finds_the_first_integer_past_the_safe_range() {
        assert_eq!(
            first_unsafe_integer(&json!({"a": [1, 9007199254740991u64]})),
            None
        );
        let (pointer, number) =
            first_unsafe_integer(&json!({"a": {"b/c": [0, 9007199254740993u64]}})).unwrap();
        assert_eq!(pointer, "/a/b~1c/1");
        assert_eq!(number.to_string(), "9007199254740993");
        let (pointer, _) = first_unsafe_integer(&json!({"n": -9007199254740992i64})).unwrap();
        assert_eq!(pointer, "/n");
        assert_eq!(first_unsafe_integer(&json!({"f": 1e300})), None);
    }

    #[test]
    fn decimal_strings_refuse_what_is_not_canonical_digits() {
        #[derive(Debug, serde::Deserialize)]
        struct Id(#[serde(with = "DecimalString")] u64);
        for bad in [
            "",
            "-",
            "+1",
            "01",
            "1.0",
            "1e3",
            " 1",
            "18446744073709551616",
            "-1",
        ] {
            let error = serde_json::from_value::<Id>(json!(bad)).unwrap_err();
            assert!(
                error.to_string().starts_with("invalid value: string"),
                "{bad}: {error}"
            );
        }
        assert_eq!(serde_json::from_value::<Id>(json!("0")).unwrap().0, 0);
        assert_eq!(
            serde_json::from_value::<Id>(json!("18446744073709551615"))
                .unwrap()
                .0,
            u64::MAX
        );
    }
}
