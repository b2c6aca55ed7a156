//! `ToolResult` for the standard types a tool may return directly, and [`Structured<T>`]
//! for any other `Serialize + JsonSchema` type (a type from another crate cannot derive
//! `ToolResult` here). None of these serialize to an object with known keys, so they use the
//! generated summary; most are wrapped under `"result"` (see [`crate::schema::output_shape`]).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};

use schemars::JsonSchema;
use serde::{Serialize, Serializer};

use crate::result::{build::ToolResult, summary::Summary};

macro_rules! tool_result {
    ($title:literal => $($ty:ty),+ $(,)?) => {$(
        impl ToolResult for $ty {
            const SUMMARY: Summary = Summary::Generated { title: $title };
        }
    )+};
}

tool_result!("Result" => bool, char, String, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64,
    u128, usize, f32, f64, serde_json::Value, serde_json::Map<String, serde_json::Value>);
tool_result!("Done" => ());
tool_result!("Image" => crate::result::content::Image);
tool_result!("Audio" => crate::result::content::Audio);
tool_result!("Artifact" => crate::result::content::Artifact);
tool_result!("Embedded text" => crate::result::content::EmbeddedText);
tool_result!("Embedded blob" => crate::result::content::EmbeddedBlob);
tool_result!("Stored payload" => crate::result::content::Payload);

macro_rules! generic_tool_result {
    ($title:literal => $([$($param:ident),+] $ty:ty),+ $(,)?) => {$(
        impl<$($param: Serialize + JsonSchema + 'static),+> ToolResult for $ty {
            const SUMMARY: Summary = Summary::Generated { title: $title };
        }
    )+};
}

generic_tool_result!("Result" =>
    [T] Vec<T>,
    [T] VecDeque<T>,
    [T] Option<T>,
    [T] Box<T>,
    [T] BTreeSet<T>,
    [K, V] BTreeMap<K, V>,
    [A] (A,),
    [A, B] (A, B),
    [A, B, C] (A, B, C),
    [A, B, C, D] (A, B, C, D),
);

macro_rules! array_tool_result {
    ($($n:literal)+) => {$(
        impl<T: Serialize + JsonSchema + 'static> ToolResult for [T; $n] {
            const SUMMARY: Summary = Summary::Generated { title: "Result" };
        }
    )+};
}

// serde and schemars implement their traits for arrays of length 0 to 32.
array_tool_result!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29
    30 31 32);

impl<T, S> ToolResult for HashSet<T, S>
where
    T: Serialize + JsonSchema + 'static,
    S: 'static,
{
    const SUMMARY: Summary = Summary::Generated { title: "Result" };
}

impl<K, V, S> ToolResult for HashMap<K, V, S>
where
    K: Serialize + JsonSchema + 'static,
    V: Serialize + JsonSchema + 'static,
    S: 'static,
{
    const SUMMARY: Summary = Summary::Generated { title: "Result" };
}

/// Any `Serialize + JsonSchema` value as a tool result, for types that cannot derive
/// `ToolResult` (types from other crates: `uuid::Uuid`, `chrono::DateTime`, ...).
///
/// Serializes and describes itself exactly as `T` (transparent), wrapped under `"result"`
/// when `T` is not always a JSON object. The summary is generated.
///
/// ```
/// use mcp_result_core::{build_result, Structured};
/// let result = build_result(&Structured(vec![1, 2, 3]));
/// assert_eq!(result.structured_content, Some(serde_json::json!({"result": [1, 2, 3]})));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Structured<T>(pub T);

impl<T: Serialize> Serialize for Structured<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<T: JsonSchema> JsonSchema for Structured<T> {
    fn inline_schema() -> bool {
        T::inline_schema()
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        T::schema_name()
    }

    fn schema_id() -> std::borrow::Cow<'static, str> {
        T::schema_id()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        T::json_schema(generator)
    }
}

impl<T: Serialize + JsonSchema + 'static> ToolResult for Structured<T> {
    const SUMMARY: Summary = Summary::Generated { title: "Result" };
}
