//! The write-tool contract: what a write tool's success result must serialize.
//!
//! A tool not declared `read_only` is a write tool (MCP's default `readOnlyHint` is `false`:
//! fail closed). Its success type must serialize, in `structuredContent`, always present and
//! under exactly these names:
//!
//! | key | Rust type | meaning |
//! |---|---|---|
//! | `status` | [`Status`] | `succeeded` / `partial` / `blocked` / `failed` |
//! | `retrySafe` | `bool` | may an automatic retry run the same call again |
//! | `auditEventId` | [`AuditEventId`] | the audit-log event of this write |
//!
//! Optional companions, checked by type when present: `externalId` and `approvalId` (`String` or
//! `Option<String>`), `requiresHumanReview` (`bool`), `redactionApplied` (`bool`).
//!
//! `#[derive(ToolResult)]` implements [`HasStatus`], [`HasRetrySafe`], [`HasAuditEventId`]
//! and [`WriteCompanions`] from the serialized field names (after serde's `rename` and
//! `rename_all`), and `#[mcp_tools]` requires them of every write tool's return type, so a
//! broken contract is a compile error at that return type. The bounds of those impls carry the field-level checks; the traits below say, in
//! their error messages, what to change.
//!
//! The three keys may also come from a `#[serde(flatten)]` field whose type
//! [`ProvidesContractKeys`] (serde merges its keys into the result):
//! [`WriteReceipt`](crate::WriteReceipt) is the ready-made one.
//!
//! Two more traits name, in compile errors, what any tool's types must be: [`SuccessOutput`]
//! (what a tool may return on success) and [`SecretField`] (what a `#[secret]` field may
//! hold). The framework implements them; you never do.

use crate::wire::status::{AuditEventId, Status};
pub use crate::{result::probe::SuccessOutput, wire::secret::SecretField};

/// The result type serializes a `status` field of type [`Status`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is returned by a write tool but has no `status` field",
    label = "write tools must return `status`, `retrySafe` and `auditEventId`",
    note = "add `pub status: mcp_result::Status` (serialized as `status`), or embed the ready-made receipt with all three keys, `#[serde(flatten)] pub receipt: mcp_result::WriteReceipt` (filled by the framework: `WriteReceipt::succeeded()`); or declare the tool `#[mcp_tool(read_only)]` if it changes nothing"
)]
pub trait HasStatus<Via = via::OwnFields> {}

/// The result type serializes a `retrySafe` field of type `bool`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is returned by a write tool but has no `retrySafe` field",
    label = "write tools must return `status`, `retrySafe` and `auditEventId`",
    note = "add `pub retry_safe: bool` serialized as `retrySafe` (e.g. with `#[serde(rename_all = \"camelCase\")]`), or embed the ready-made receipt with all three keys, `#[serde(flatten)] pub receipt: mcp_result::WriteReceipt` (filled by the framework: `WriteReceipt::succeeded()`); or declare the tool `#[mcp_tool(read_only)]` if it changes nothing"
)]
pub trait HasRetrySafe<Via = via::OwnFields> {}

/// The result type serializes an `auditEventId` field of type [`AuditEventId`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is returned by a write tool but has no `auditEventId` field",
    label = "write tools must return `status`, `retrySafe` and `auditEventId`",
    note = "add `pub audit_event_id: mcp_result::AuditEventId` serialized as `auditEventId` (e.g. with `#[serde(rename_all = \"camelCase\")]`), or embed the ready-made receipt with all three keys, `#[serde(flatten)] pub receipt: mcp_result::WriteReceipt` (filled by the framework: `WriteReceipt::succeeded()`); or declare the tool `#[mcp_tool(read_only)]` if it changes nothing"
)]
pub trait HasAuditEventId<Via = via::OwnFields> {}

/// The optional companions the type declares (`externalId`, `approvalId`, `requiresHumanReview`,
/// `redactionApplied`) have their contract types and always serialize.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has a write-contract companion field of the wrong shape",
    note = "`externalId` and `approvalId` are a `String` or `Option<String>`; `requiresHumanReview` and `redactionApplied` are `bool`"
)]
pub trait WriteCompanions {}

/// Types that can be a write result's `status`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the `status` of a write tool's result",
    label = "`status` has the wrong type",
    note = "use `mcp_result::Status` (succeeded / partial / blocked / failed) so clients can branch on it"
)]
pub trait StatusField {}
impl StatusField for Status {}

/// Types that can be a write result's `retrySafe`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the `retrySafe` of a write tool's result",
    label = "`retrySafe` has the wrong type",
    note = "use `bool`: a retry controller needs a definite yes or no, so not `Option<bool>`"
)]
pub trait RetrySafeField {}
impl RetrySafeField for bool {}

/// Types that can be a write result's `auditEventId`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the `auditEventId` of a write tool's result",
    label = "`auditEventId` has the wrong type",
    note = "use `mcp_result::AuditEventId` (serialized as a string)"
)]
pub trait AuditEventIdField {}
impl AuditEventIdField for AuditEventId {}

/// Types that can be a write result's `externalId`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the `externalId` or `approvalId` of a write tool's result",
    note = "use `String`, or `Option<String>` when there may be none"
)]
pub trait ExternalIdField {}
impl ExternalIdField for String {}
impl ExternalIdField for Option<String> {}

/// Types that can be a write result's `requiresHumanReview` or `redactionApplied`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the `requiresHumanReview` or `redactionApplied` of a write tool's result",
    note = "use `bool`"
)]
pub trait FlagField {}
impl FlagField for bool {}

/// Marker bounds the derive adds when a contract field is present but not serialized as
/// the contract requires. Each trait has exactly one type that does not implement it.
#[doc(hidden)]
pub mod markers {
    /// A contract field with `#[serde(skip)]` or `#[serde(skip_serializing)]`.
    #[derive(Debug)]
    pub struct SkippedBySerde;
    /// A contract field with `#[serde(skip_serializing_if = ...)]`.
    #[derive(Debug)]
    pub struct ConditionallySkipped;
    /// A contract field serialized under another name.
    #[derive(Debug)]
    pub struct RenamedAway;

    #[diagnostic::on_unimplemented(
        message = "a write-contract field of this result is never serialized",
        label = "its field has `#[serde(skip)]` or `#[serde(skip_serializing)]`",
        note = "`status`, `retrySafe` and `auditEventId` must reach `structuredContent`: remove the skip"
    )]
    pub trait Serialized {}
    impl Serialized for ConditionallySkipped {}
    impl Serialized for RenamedAway {}

    #[diagnostic::on_unimplemented(
        message = "a write-contract field of this result may be left out of `structuredContent`",
        label = "its field has `#[serde(skip_serializing_if = ...)]`",
        note = "write-contract fields are required in every result: remove `skip_serializing_if`"
    )]
    pub trait AlwaysSerialized {}
    impl AlwaysSerialized for SkippedBySerde {}
    impl AlwaysSerialized for RenamedAway {}

    #[diagnostic::on_unimplemented(
        message = "a write-contract field of this result is serialized under another name",
        label = "its field has a serde `rename` that changes the contract name",
        note = "the keys must be exactly `status`, `retrySafe` and `auditEventId` (and `externalId`, `requiresHumanReview`, `redactionApplied`): remove the rename"
    )]
    pub trait ContractName {}
    impl ContractName for SkippedBySerde {}
    impl ContractName for ConditionallySkipped {}
}

/// Where a write result's contract key comes from, the `Via` of [`HasStatus`],
/// [`HasRetrySafe`] and [`HasAuditEventId`]: the result's own field, or its `N`th
/// `#[serde(flatten)]` field, whose type [`ProvidesContractKeys`]. `#[derive(ToolResult)]`
/// implements the `Flattened` source of a key for each flattened field of a type that does
/// not serialize the key itself, and `#[mcp_tools]` infers the source: exactly one must hold.
pub mod via {
    /// The result's own field.
    #[derive(Debug)]
    pub enum OwnFields {}
    /// The result's `N`th `#[serde(flatten)]` field (in declaration order, from 0).
    #[derive(Debug)]
    pub enum Flattened<const N: usize> {}
}

/// A type that, flattened into a write result with `#[serde(flatten)]`, serializes all three
/// contract keys, always and under exactly their names: `status` ([`Status`]), `retrySafe`
/// (`bool`) and `auditEventId` ([`AuditEventId`]).
///
/// [`WriteReceipt`](crate::WriteReceipt) implements it. Implement it for your own type only
/// when that holds for every value (no `skip`, no `skip_serializing_if` on those fields):
/// the compiler checks the fields of a result type, but it takes this impl at its word.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is flattened into a write tool's result but does not provide `status`, `retrySafe` and `auditEventId`",
    label = "the result has no write-contract fields of its own",
    note = "flatten the ready-made receipt instead, `#[serde(flatten)] pub receipt: mcp_result::WriteReceipt` (filled by the framework: `WriteReceipt::succeeded()`), or add the fields `status`, `retrySafe` and `auditEventId` to the result itself"
)]
pub trait ProvidesContractKeys {}

/// Compile-time check `#[mcp_tools]` emits for every write tool, spanned at its success
/// type: `(&&WriteProbe::<R>::new()).check_write()`, `R` the return type with its error type
/// replaced by [`ToolError`](crate::ToolError) (the error type is checked apart). Autoref picks
/// [`WriteViaContract`] when `R` is a tool output, which requires the contract of its
/// success type; else [`WriteViaNothing`], which reports nothing: the return type's own check
/// already says what to return instead, and contract fields listed against a type that cannot
/// have them (`rmcp::model::CallToolResult`) would only mislead.
#[doc(hidden)]
pub struct WriteProbe<R>(std::marker::PhantomData<fn() -> R>);

impl<R> ::std::fmt::Debug for WriteProbe<R> {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        f.write_str("WriteProbe")
    }
}

impl<R> WriteProbe<R> {
    #[doc(hidden)]
    pub const fn new() -> Self {
        Self(std::marker::PhantomData)
    }
}

#[doc(hidden)]
pub trait WriteViaContract<R: crate::result::output::IntoToolOutput> {
    fn check_write<S, T, A>(&self)
    where
        R::Output: HasStatus<S> + HasRetrySafe<T> + HasAuditEventId<A> + WriteCompanions,
    {
    }
}

impl<R: crate::result::output::IntoToolOutput> WriteViaContract<R> for &WriteProbe<R> {}

#[doc(hidden)]
pub trait WriteViaNothing {
    fn check_write(&self) {}
}

impl<R> WriteViaNothing for WriteProbe<R> {}
