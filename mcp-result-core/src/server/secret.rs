use std::fmt;

/// A value that must never leave the process: an API token, a password, a raw credential.
///
/// `Secret<T>` implements neither `serde::Serialize` nor `Display`, so no serialization path
/// (`structuredContent`, the JSON-compat text, `_meta`, an error envelope) and no
/// `format!("{}")` can carry it: a struct that holds one must mark the field
/// `#[serde(skip)]` or `#[serde(skip_serializing)]`, or it does not compile; the
/// serialize-side `outputSchema` then omits the field too. That holds in every position: a field of a nested struct, inside a
/// `Vec`, `Option` or map, a flattened struct, an enum variant. `Debug` prints
/// `Secret([redacted])`. The value is reached only through [`Secret::expose`].
///
/// On a `#[derive(ToolResult)]` type, mark such a field `#[secret]` as well: the derive then
/// checks that it is a `Secret<_>` and skipped by serde, refuses it in the summary template
/// and as a write-contract field, and sets the result's `redactionApplied` to `true` (when
/// the type declares that field).
///
/// ```
/// use mcp_result_core::Secret;
/// let token = Secret::new(String::from("tok-123"));
/// assert_eq!(format!("{token:?}"), "Secret([redacted])");
/// assert_eq!(token.expose(), "tok-123");
/// ```
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Secret<T>(T);

impl<T> Secret<T> {
    /// Wraps a secret value.
    pub const fn new(value: T) -> Self {
        Self(value)
    }

    /// The secret value, for the code that must use it (to call the upstream). Keep it out
    /// of results, logs and error messages.
    pub fn expose(&self) -> &T {
        &self.0
    }

    /// Unwraps the secret value.
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T> From<T> for Secret<T> {
    fn from(value: T) -> Self {
        Self(value)
    }
}

impl<T> fmt::Debug for Secret<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret([redacted])")
    }
}

/// Secrets may come *in*: a tool argument can be a `Secret<T>` (deserialized like `T`).
impl<'de, T: serde::Deserialize<'de>> serde::Deserialize<'de> for Secret<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        T::deserialize(deserializer).map(Self)
    }
}

/// The schema of what a `Secret<T>` *accepts* (an input): `T`'s schema marked `writeOnly`
/// (JSON Schema 2020-12: sent by the client, never returned). It never appears in an
/// `outputSchema`: a `Secret` field cannot serialize, so the serialize-side schema skips it.
impl<T: schemars::JsonSchema> schemars::JsonSchema for Secret<T> {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        format!("Secret_{}", T::schema_name()).into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let mut schema = generator.subschema_for::<T>();
        schema.insert("writeOnly".into(), serde_json::Value::Bool(true));
        schema
    }
}

/// Types a `#[secret]` field may have.
#[diagnostic::on_unimplemented(
    message = "a `#[secret]` field must have the type `mcp_result::Secret<T>`, not `{Self}`",
    label = "`{Self}` could reach `Debug` output or be formatted into a message",
    note = "wrap the value: `Secret<{Self}>` has no `Serialize`, no `Display`, and a redacted `Debug`"
)]
pub trait SecretField {}
impl<T> SecretField for Secret<T> {}
