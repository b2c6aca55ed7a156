//! Phase 3 of a call, on its route: the arguments checked against the tool's full
//! `inputSchema` (every failing field at once), and, for stores that cannot hold U+0000,
//! checked for it.

use rmcp::model::{CallToolResult, JsonObject};
use serde_json::Value;

use crate::{
    result::build::error_result,
    router::registry::Route,
    wire::envelope::{FieldError, ToolError},
    wire::keys::APPROVAL_REQUEST_ARGUMENT,
};

impl<S> Route<S> {
    /// Phase 3 of a call: its arguments (absent: `{}`) checked against the tool's full
    /// `inputSchema`; every failing field at once in one `validation_error` result.
    ///
    /// The optional arguments the framework adds (a `Pager`'s `cursor` and `pageSize`, an
    /// approval-gated tool's `approvalRequestId`) take `null` as absent, as a user's own
    /// `Option` fields do: strict-mode hosts send `null` for every optional property they
    /// leave unset.
    pub(crate) fn validate(&self, arguments: Option<JsonObject>) -> Result<Value, CallToolResult> {
        let mut arguments = arguments.unwrap_or_default();
        arguments.retain(|name, value| !(value.is_null() && self.adds(name)));
        let arguments = Value::Object(arguments);
        let (mut field_errors, mut total) = self.arguments.errors(&arguments);
        // A gated write's approver is shown what the tool receives: an argument it would
        // never read (JSON Schema admits it, serde ignores it) is refused, before any
        // approval request exists.
        if self.approval.is_some() || self.asks_approval {
            let (undeclared, count) = self
                .arguments
                .undeclared(&arguments, |name| self.adds(name));
            total += count;
            for pointer in undeclared {
                if field_errors.len() < crate::schema::arguments::MAX_FIELD_ERRORS {
                    field_errors.push(FieldError::new(pointer, UNDECLARED));
                }
            }
        }
        if !field_errors.is_empty() {
            return Err(error_result(&ToolError::validation_of(field_errors, total)));
        }
        Ok(arguments)
    }

    /// Phase 3, for an instance whose stores refuse the character U+0000 (PostgreSQL): every
    /// string (or property name) of the arguments holding it, as one `validation_error`
    /// naming each field, instead of a database error after the call began.
    pub(crate) fn storable(&self, arguments: &Value) -> Result<(), CallToolResult> {
        let mut errors = Vec::new();
        nul_fields(arguments, &mut String::new(), &mut errors);
        if errors.is_empty() {
            return Ok(());
        }
        let total = errors.len();
        Err(error_result(&ToolError::validation_of(errors, total)))
    }
}

/// What a gated write's undeclared argument is told ([`Route::validate`]).
const UNDECLARED: &str = "is not an argument of this tool: remove it (a write that needs a \
                          human approval takes only the arguments it declares, so that its \
                          approver reads what runs)";

/// The field errors of every string under `value` (at `pointer`) that holds U+0000.
fn nul_fields(value: &Value, pointer: &mut String, errors: &mut Vec<FieldError>) {
    const MESSAGE: &str = "holds the character U+0000 (NUL), which this server's database \
                           cannot store: remove it";
    match value {
        Value::String(text) if text.contains('\0') => {
            errors.push(FieldError::new(pointer.clone(), MESSAGE));
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                let at = pointer.len();
                pointer.push_str(&format!("/{index}"));
                nul_fields(item, pointer, errors);
                pointer.truncate(at);
            }
        }
        Value::Object(object) => {
            for (name, item) in object {
                let at = pointer.len();
                pointer.push('/');
                pointer.push_str(&crate::wire::pointer::escape(name));
                if name.contains('\0') {
                    errors.push(FieldError::new(pointer.clone(), MESSAGE));
                } else {
                    nul_fields(item, pointer, errors);
                }
                pointer.truncate(at);
            }
        }
        _ => {}
    }
}

impl<S> Route<S> {
    /// Whether argument `name` is one the framework adds to this tool's `inputSchema`.
    fn adds(&self, name: &str) -> bool {
        self.extension_arguments.iter().any(|added| added == name)
            || (self.approval.is_some() && name == APPROVAL_REQUEST_ARGUMENT)
    }
}
