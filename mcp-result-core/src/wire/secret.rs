use std::{
    collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque},
    fmt,
    rc::Rc,
    sync::Arc,
};

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

/// A value that may hold secrets which serialization withholds: whether *this* value held
/// one. [`build_result`](crate::build_result) sets a result's `redactionApplied` to `true`
/// exactly when the value returned by the tool withholds a secret, at any depth.
///
/// Decided per value, not per type: an empty `Vec<Upstream>` or a `None` withheld nothing,
/// a non-empty one did when one of its elements did. `#[derive(Redact)]` implements it for
/// the structs and enums a result contains (true when the value has a `#[secret]` field, or
/// for an enum the variant it is, or when any other field withholds); `#[derive(ToolResult)]`
/// decides a result's own value the same way. A field whose type has no impl (a
/// type from another crate, a type parameter of a generic type) withholds nothing to the probe; a
/// [`Secret`] always withholds.
///
/// A result that declares `redactionApplied` and has no `#[secret]` of its own answers it
/// from its fields alone, so there every field's type must implement `Redacts` (a compile
/// error at the field otherwise, instead of a flag that says `false` while a nested secret
/// was withheld): the std types, JSON values, times and the framework's own types do;
/// derive `Redact` on your own types; wrap a value of another crate's type that holds no
/// secret in [`NoSecrets`].
///
/// ```
/// use mcp_result_core::{Redacts, Secret};
///
/// let tokens = vec![Secret::new(String::from("tok-123"))];
/// assert!(tokens.withholds_secrets());
/// assert!(!Vec::<Secret<String>>::new().withholds_secrets());
/// assert!(!None::<Secret<String>>.withholds_secrets());
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` may hold a `Secret` that `redactionApplied` cannot see",
    label = "no `Redacts` impl: whether this value withheld a secret is unknown",
    note = "add `#[derive(mcp_result::Redact)]` to `{Self}` (a type without secrets derives it too, and answers `false`); wrap a value of another crate's type that holds no secret in `mcp_result::NoSecrets`; a result that declares `redactionApplied`, and every `#[derive(Redact)]` type, answers from every field, so a secret at any depth reaches the flag"
)]
pub trait Redacts {
    /// `true` when this value holds a secret that no serialization of it carries.
    fn withholds_secrets(&self) -> bool;
}

impl<T> Redacts for Secret<T> {
    fn withholds_secrets(&self) -> bool {
        true
    }
}

impl<T: Redacts + ?Sized> Redacts for &T {
    fn withholds_secrets(&self) -> bool {
        (**self).withholds_secrets()
    }
}

impl<T: Redacts> Redacts for Option<T> {
    fn withholds_secrets(&self) -> bool {
        self.as_ref().is_some_and(T::withholds_secrets)
    }
}

impl<T: Redacts> Redacts for [T] {
    fn withholds_secrets(&self) -> bool {
        self.iter().any(T::withholds_secrets)
    }
}

impl<T: Redacts, const N: usize> Redacts for [T; N] {
    fn withholds_secrets(&self) -> bool {
        self.iter().any(T::withholds_secrets)
    }
}

/// Impls that delegate to the pointee or test every element (maps: every value).
macro_rules! redacts {
    (pointer: $($ty:ident),*) => {$(
        impl<T: Redacts + ?Sized> Redacts for $ty<T> {
            fn withholds_secrets(&self) -> bool {
                (**self).withholds_secrets()
            }
        }
    )*};
    (elements: $($ty:ty => [$($generics:tt)*]),*) => {$(
        impl<$($generics)*> Redacts for $ty {
            fn withholds_secrets(&self) -> bool {
                self.iter().any(T::withholds_secrets)
            }
        }
    )*};
    (values: $($ty:ty => [$($generics:tt)*]),*) => {$(
        impl<$($generics)*> Redacts for $ty {
            fn withholds_secrets(&self) -> bool {
                self.values().any(V::withholds_secrets)
            }
        }
    )*};
}

/// Types that hold no secret: they withhold nothing.
macro_rules! holds_no_secret {
    ($($ty:ty),* $(,)?) => {$(
        impl Redacts for $ty {
            fn withholds_secrets(&self) -> bool {
                false
            }
        }
    )*};
}

holds_no_secret!(
    bool, char, str, String, u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize,
    f32, f64, (), std::time::Duration, std::time::SystemTime, std::path::PathBuf,
    std::net::IpAddr, serde_json::Value, serde_json::Number,
    serde_json::Map<String, serde_json::Value>, uuid::Uuid, chrono::NaiveDate,
    chrono::NaiveDateTime, chrono::NaiveTime,
    crate::wire::status::Status, crate::wire::status::AuditEventId,
    crate::wire::envelope::ErrorKind,
);

/// The framework's own types above the wire hold no secret either; each module says so
/// beside its type (`holds_no_secret!`), so the wire imports nothing above it.
macro_rules! holds_no_secret_above {
    ($($ty:ty),* $(,)?) => {$(
        impl $crate::wire::secret::Redacts for $ty {
            fn withholds_secrets(&self) -> bool {
                false
            }
        }
    )*};
}
pub(crate) use holds_no_secret_above as holds_no_secret;

impl<Tz: chrono::TimeZone> Redacts for chrono::DateTime<Tz> {
    fn withholds_secrets(&self) -> bool {
        false
    }
}

impl<T: Redacts + ToOwned + ?Sized> Redacts for std::borrow::Cow<'_, T> {
    fn withholds_secrets(&self) -> bool {
        (**self).withholds_secrets()
    }
}

/// Tuples: any element.
macro_rules! tuples {
    ($(($($n:tt $t:ident),+)),*) => {$(
        impl<$($t: Redacts),+> Redacts for ($($t,)+) {
            fn withholds_secrets(&self) -> bool {
                false $(|| self.$n.withholds_secrets())+
            }
        }
    )*};
}

tuples!((0 A), (0 A, 1 B), (0 A, 1 B, 2 C), (0 A, 1 B, 2 C, 3 D));

/// A value that holds no secret, said so: for a field of another crate's type (which cannot
/// implement [`Redacts`] there) in a result that declares `redactionApplied`. Serialized and
/// described exactly as the value (`#[serde(transparent)]`).
///
/// ```
/// use mcp_result_core::{NoSecrets, Redacts};
///
/// let url = NoSecrets("https://example.com".to_owned());
/// assert!(!url.withholds_secrets());
/// ```
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(transparent)]
#[schemars(transparent)]
pub struct NoSecrets<T>(pub T);

impl<T> Redacts for NoSecrets<T> {
    fn withholds_secrets(&self) -> bool {
        false
    }
}

redacts!(pointer: Box, Rc, Arc);
redacts!(elements:
    Vec<T> => [T: Redacts],
    VecDeque<T> => [T: Redacts],
    BTreeSet<T> => [T: Redacts],
    std::collections::LinkedList<T> => [T: Redacts],
    std::collections::BinaryHeap<T> => [T: Redacts],
    HashSet<T, S> => [T: Redacts, S]
);
redacts!(values:
    BTreeMap<K, V> => [K, V: Redacts],
    HashMap<K, V, S> => [K, V: Redacts, S]
);

/// Autoref dispatch for generated code: `(&RedactsProbe(&field)).withholds_secrets()`
/// resolves to [`Redacts`] when the field's type implements it, and to `false` otherwise,
/// so a field of any type may stand in a `#[derive(Redact)]` or `#[derive(ToolResult)]`
/// type.
#[doc(hidden)]
pub struct RedactsProbe<'a, T: ?Sized>(pub &'a T);

impl<'a, T: ?Sized> ::std::fmt::Debug for RedactsProbe<'a, T> {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        f.write_str("RedactsProbe")
    }
}

#[doc(hidden)]
pub trait ViaRedacts {
    fn withholds_secrets(&self) -> bool;
}

impl<T: Redacts + ?Sized> ViaRedacts for RedactsProbe<'_, T> {
    fn withholds_secrets(&self) -> bool {
        self.0.withholds_secrets()
    }
}

#[doc(hidden)]
pub trait ViaNoRedacts {
    fn withholds_secrets(&self) -> bool;
}

impl<T: ?Sized> ViaNoRedacts for &RedactsProbe<'_, T> {
    fn withholds_secrets(&self) -> bool {
        false
    }
}
