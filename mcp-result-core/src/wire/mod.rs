//! The wire vocabulary: every name and shape that crosses the wire between an mcp-result
//! server and its readers (the client view, the docs, a host). The server half writes these
//! shapes, the client half and the docs read them, and all three take them from here.
//!
//! - [`status`]: `status` ([`Status`](status::Status)) and `auditEventId`
//!   ([`AuditEventId`](status::AuditEventId)), the write contract's values;
//! - [`envelope`]: the tool error envelope ([`ToolError`](envelope::ToolError)),
//!   [`ErrorKind`](envelope::ErrorKind) and [`FieldError`](envelope::FieldError), serialized
//!   by the server and parsed by the client with the same `serde` impls; [`write_errors`]:
//!   the errors of a write's own path;
//! - [`audience`]: the one [`Audience`](audience::Audience) of content-block annotations;
//! - [`keys`]: property names and `_meta` keys (the write-contract keys, the wrap property);
//! - [`meta_key`]: the `_meta` key rules;
//! - [`number`]: integers that cross JSON intact (the safe range, [`DecimalString`](number::DecimalString));
//! - [`text`]: how text for the model echoes values it did not write (escaped, capped).

pub(crate) mod audience;
pub(crate) mod envelope;
pub(crate) mod error_kind;
pub mod identity;
pub mod keys;
pub(crate) mod meta_key;
pub(crate) mod number;
pub(crate) mod pointer;
pub(crate) mod secret;
pub(crate) mod status;
pub(crate) mod text;
pub(crate) mod write_errors;
