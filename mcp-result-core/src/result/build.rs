use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, JsonObject};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::{
    result::{
        answer::ToolAnswer,
        collect::{self, Collected, PENDING},
        content::Artifact,
        summary::Summary,
    },
    store::artifact::{new_artifact_uri, ArtifactStore},
    wire::envelope::ToolError,
};

/// Which text blocks a result's `content` holds, in order. Chosen per type with
/// `#[tool_result(content = "...")]`.
///
/// The default, [`ContentMode::SummaryThenJson`], puts the summary first because hosts that
/// read only the first text block hand it to the model, and the summary is what the model
/// needs (what happened, what to do next); the JSON block second meets the MCP SHOULD that
/// a result with `structuredContent` also carries it serialized as text (MCP 2025-06-18
/// and later, "Structured Content") for clients that do not read `structuredContent`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ContentMode {
    /// `"summary_then_json"` (default): the summary, then the JSON-compat text.
    #[default]
    SummaryThenJson,
    /// `"json_then_summary"`: the JSON-compat text first, for hosts that parse the first
    /// block as data.
    JsonThenSummary,
    /// `"summary"`: only the summary. Hosts that read only `content` (Claude Desktop and
    /// claude.ai connectors, Claude Code, clients older than MCP 2025-06-18) then see no data
    /// beyond what the summary names: every field the template leaves out is lost to them.
    /// `mcp-result-check` reports such a tool (`json-compat-text`, with the fields left out).
    Summary,
    /// `"json"`: only the JSON-compat text.
    Json,
}

/// A type that can be a tool's success result. Implement it with `#[derive(ToolResult)]`.
///
/// The serialized value must be a JSON object (MCP 2025-06-18 and 2025-11-25 require
/// `structuredContent` to be one); the derive accepts only structs with named fields.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool result",
    label = "this type does not implement `ToolResult`",
    note = "add `#[derive(serde::Serialize, schemars::JsonSchema, mcp_result::ToolResult)]` to `{Self}`"
)]
pub trait ToolResult: Serialize + JsonSchema + 'static {
    /// How the summary text is produced.
    const SUMMARY: Summary;
    /// Which text blocks `content` holds.
    const CONTENT: ContentMode = ContentMode::SummaryThenJson;
    /// The type has `#[secret]` fields, whose values are withheld from every result: when
    /// the type also serializes `redactionApplied`, [`build_result`] sets it to `true`.
    const REDACTS: bool = false;
    /// The summary block's annotations (`#[tool_result(summary_audience, summary_priority)]`).
    const SUMMARY_STYLE: crate::result::content::BlockStyle =
        crate::result::content::BlockStyle::SUMMARY;
    /// The JSON-compat block's annotations (`#[tool_result(json_audience, json_priority)]`).
    const JSON_STYLE: crate::result::content::BlockStyle = crate::result::content::BlockStyle::JSON;

    /// The schema of this type's `structuredContent` (JSON Schema 2020-12, object root,
    /// self-contained), generated once and cached: later calls clone an `Arc`.
    fn output_schema() -> Arc<JsonObject> {
        crate::schema::output_shape::<Self>().schema.clone()
    }

    /// Whether the serialized value is wrapped as `{"result": value}` because it is not
    /// always a JSON object (see [`crate::schema::output_shape`]).
    fn is_wrapped() -> bool {
        crate::schema::output_shape::<Self>().wrapped
    }

    /// Whether this value withheld a secret, decided per value (an empty list or a `None`
    /// withheld nothing): [`build_result`] then sets `redactionApplied` to `true` (when the
    /// type serializes that key). `#[derive(ToolResult)]` generates it from the type's own
    /// `#[secret]` fields and every other field's [`Redacts`](crate::Redacts); the default
    /// is [`Self::REDACTS`].
    fn withholds_secrets(&self) -> bool {
        Self::REDACTS
    }

    /// The error this value must be answered with instead of itself, when it cannot be a
    /// result (a [`Page`](crate::pagination::Page) that does not advance, or whose next
    /// cursor is too long). `None` by default. Not public API.
    #[doc(hidden)]
    fn refusal(&self) -> Option<ToolError> {
        None
    }
}

/// Builds the complete `CallToolResult` for a success value. This is the one place a
/// result is made:
///
/// 1. `structuredContent` = `serde_json::to_value(value)`, serialized once;
/// 2. the summary is rendered from that object ([`Summary::render`]);
/// 3. a type with `#[secret]` fields gets `redactionApplied: true` (when it has that key);
///
/// A type whose serialized form is not always an object is wrapped first:
/// `structuredContent` is `{"result": value}` ([`crate::wire::keys::WRAP_PROPERTY`]), matching
/// its schema; the compat text is that same object.
///
/// 4. the JSON-compat text is `serde_json::to_string` of that same object, so parsing it
///    back gives a value equal to `structuredContent`, key order included.
///
/// A value whose `Serialize` fails, or does not produce a JSON object, becomes an
/// `internal` [`ToolError`] result (the cause is logged under its correlation id), never a
/// panic.
pub fn build_result<T: ToolResult>(value: &T) -> CallToolResult {
    build_result_in(value, &ResultScope::default())
}

/// What a result is built with inside a tool call: where its payloads are stored, and the
/// facts the framework knows about the call, which it writes into the result.
#[derive(Default)]
pub struct ResultScope<'a> {
    /// The server's artifact store (`#[mcp_tools(artifacts)]`); `None`: a result holding a
    /// `Payload` becomes an `internal` error.
    pub store: Option<&'a dyn ArtifactStore>,
    /// The owner recorded on the artifacts: the caller's
    /// [`Identity::key`](crate::wire::identity::Identity::key).
    pub owner: Option<String>,
    /// A write's `retrySafe` as the framework knows it: `true` under an idempotency key or
    /// for a tool declared `idempotent`, else `false`. Written over the tool's own value
    /// where the result has the field (a contradiction is logged).
    pub retry_safe: Option<bool>,
    /// The call is of a read-only tool: its errors are `retrySafe: true`, whatever their
    /// kind (it has no effect to repeat; [`crate::ErrorKind::default_retry_safe`]).
    pub read_only: bool,
    /// A write's audit event, minted by the framework: written as the result's
    /// `auditEventId` (and an error's).
    pub audit_event_id: Option<crate::wire::status::AuditEventId>,
    /// The human approval the write ran under: written as the result's `approvalId`.
    pub approval_id: Option<String>,
    /// Artifacts made while the result was built, put into `store` by [`Self::commit`].
    pub staged: std::sync::Mutex<Vec<crate::store::artifact::StoredArtifact>>,
}

impl ResultScope<'_> {
    pub(crate) fn stage(&self, artifacts: Vec<crate::store::artifact::StoredArtifact>) {
        self.staged
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend(artifacts);
    }

    /// Puts the artifacts staged while `result` was built into the store, all or none, and
    /// answers `result`. When the store refuses (a bound of its
    /// [`ArtifactLimits`](crate::store::ArtifactLimits) would be passed) or fails, the
    /// call's answer is that error instead, and nothing was stored.
    pub async fn commit(self, answer: ToolAnswer) -> ToolAnswer {
        let ToolAnswer::Result(result) = answer else {
            return answer;
        };
        self.commit_result(result).await.into()
    }

    async fn commit_result(self, result: CallToolResult) -> CallToolResult {
        let staged = std::mem::take(&mut *self.staged.lock().unwrap_or_else(|e| e.into_inner()));
        let (Some(store), false) = (self.store, staged.is_empty()) else {
            return result;
        };
        let refusal = match store.put(&staged).await {
            Ok(Ok(())) => return result,
            Ok(Err(refusal)) => refusal,
            Err(error) => crate::store::artifact::ArtifactRefusal::Store(error),
        };
        error_result(&self.stamp(refusal.to_tool_error()))
    }

    /// `error` with what the framework knows of this call: for a read-only tool
    /// `retrySafe: true`; for a write without an idempotency key that is not declared
    /// `idempotent`, `retrySafe: false` unless the tool said otherwise (it ran, and may have
    /// done part of its work); for a write its audit event, the id the framework minted and
    /// recorded. An `auditEventId` of the tool's own is kept as the `externalId` when the
    /// error has none; when it has one, the tool's `externalId` is kept and the dropped
    /// audit id is logged at warn level.
    pub fn stamp(&self, error: ToolError) -> ToolError {
        let error = if self.read_only {
            error.with_retry_safe(true)
        } else if self.retry_safe == Some(false) {
            error.unsafe_unless_said()
        } else {
            error
        };
        match &self.audit_event_id {
            Some(id) => {
                let mut error = error;
                if let Some(own) = error.audit_event_id.take().filter(|own| own != id) {
                    if error.external_id.is_none() {
                        error.external_id = Some(own.as_str().to_owned());
                    } else {
                        tracing::warn!(
                            minted = %id,
                            own = %own,
                            "a write's error set its own auditEventId and an externalId: \
                             answered the minted auditEventId and the tool's externalId; its \
                             own audit id was not kept"
                        );
                    }
                }
                error.with_audit_event_id(id.clone())
            }
            None => error,
        }
    }
}

impl std::fmt::Debug for ResultScope<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResultScope")
            .field("store", &self.store.is_some())
            .field("owner", &self.owner)
            .field("retry_safe", &self.retry_safe)
            .field("audit_event_id", &self.audit_event_id)
            .field("approval_id", &self.approval_id)
            .finish()
    }
}

/// [`build_result`] inside a tool call: first stores the value's [`crate::store::artifact::Payload`]s in
/// `scope`'s artifact store (so they serialize as URIs and link as `resource_link`s).
pub(crate) fn build_result_in<T: ToolResult>(value: &T, scope: &ResultScope<'_>) -> CallToolResult {
    if let Some(error) = value.refusal() {
        return error_result(&error);
    }
    let (serialized, mut collected) = collect::collecting(|| serde_json::to_value(value));
    let serialized = serialized.map(|value| {
        if T::is_wrapped() {
            let mut object = serde_json::Map::with_capacity(1);
            object.insert(crate::wire::keys::WRAP_PROPERTY.to_owned(), value);
            Value::Object(object)
        } else {
            value
        }
    });
    let mut object = match serialized {
        Ok(Value::Object(object)) => object,
        Ok(other) => {
            return error_result(&ToolError::internal_logged(format_args!(
                "result type `{}` serialized to a non-object JSON value ({})",
                std::any::type_name::<T>(),
                json_kind(&other)
            )))
        }
        Err(error) => {
            return error_result(&ToolError::internal_logged(format_args!(
                "result type `{}` failed to serialize: {error}",
                std::any::type_name::<T>()
            )))
        }
    };
    if value.withholds_secrets() {
        if let Some(flag) = object.get_mut(crate::wire::keys::REDACTION_APPLIED) {
            *flag = Value::Bool(true);
        }
    }
    if let Some(retry_safe) = scope.retry_safe {
        if let Some(flag) = object.get_mut(crate::wire::keys::RETRY_SAFE) {
            if *flag == Value::Bool(true) && !retry_safe {
                tracing::warn!(
                    result = std::any::type_name::<T>(),
                    "a write without an idempotency key that is not declared `idempotent` \
                     claimed `retrySafe: true`; answered `false`"
                );
            }
            *flag = Value::Bool(retry_safe);
        }
    }
    if let Some(id) = &scope.audit_event_id {
        if let Some(field) = object.get_mut(crate::wire::keys::AUDIT_EVENT_ID) {
            if field
                .as_str()
                .is_some_and(|own| !own.is_empty() && own != id.as_str())
            {
                tracing::debug!(minted = %id, own = %field, "auditEventId: answered the minted one");
            }
            *field = Value::String(id.as_str().to_owned());
        }
    }
    if let Some(id) = &scope.approval_id {
        if let Some(field) = object.get_mut(crate::wire::keys::APPROVAL_ID) {
            *field = Value::String(id.clone());
        } else if declares::<T>(crate::wire::keys::APPROVAL_ID) {
            // An optional `approvalId` the value left out (a `WriteReceipt` built without the
            // call's `WriteContext`): the framework knows it.
            object.insert(
                crate::wire::keys::APPROVAL_ID.to_owned(),
                Value::String(id.clone()),
            );
        }
    }
    let mut structured = Value::Object(object);
    if let Err(cause) = store_payloads(&mut collected, &mut structured, scope) {
        return error_result(&ToolError::internal_logged(format_args!(
            "result type `{}`: {cause}",
            std::any::type_name::<T>()
        )));
    }
    if let Some((pointer, number)) = crate::wire::number::first_unsafe_integer(&structured) {
        return error_result(&unsafe_integer::<T>(&pointer, &number));
    }
    #[cfg(any(debug_assertions, feature = "validate-results"))]
    if let Err(violation) = conformance::check::<T>(&structured) {
        return error_result(&ToolError::internal_logged(format_args!(
            "result type `{}` does not match its own outputSchema (its `Serialize` and \
             `JsonSchema` disagree): {violation}",
            std::any::type_name::<T>()
        )));
    }
    let summary = match &structured {
        Value::Object(object) => T::SUMMARY.render(object),
        _ => String::new(),
    };
    let mut result = assemble(
        structured,
        summary,
        T::CONTENT,
        (T::SUMMARY_STYLE, T::JSON_STYLE),
        false,
    );
    result.content.append(&mut collected.blocks);
    result
}

/// The `internal` error for a result holding an integer that JSON clients would round
/// (beyond ±(2^53 − 1), RFC 7493 §2.2): it names the field and the way out, and nothing is
/// sent rounded. The text is about the server's code, not the caller's data, so the client
/// sees it too.
fn unsafe_integer<T>(pointer: &str, number: &serde_json::Number) -> ToolError {
    let max = crate::wire::number::MAX_SAFE_INTEGER;
    let mut error = ToolError::internal_logged(format_args!(
        "result type `{}`: `{pointer}` is {number}, beyond ±{max} (2^53 − 1), the largest \
         integer JSON clients read exactly; send the field as a decimal string: \
         `#[serde(with = \"mcp_result::DecimalString\")]`",
        std::any::type_name::<T>()
    ));
    let id = error.correlation_id.clone().unwrap_or_default();
    error.message = format!(
        "Internal error (correlation id {id}): the result field `{pointer}` holds an integer \
         beyond ±{max} (2^53 − 1), which JSON clients would read rounded, so no result was \
         sent. The server must send this field as a decimal string \
         (`#[serde(with = \"mcp_result::DecimalString\")]`)."
    );
    error
}

/// Whether `T`'s own (unwrapped) schema declares the top-level property `key`.
fn declares<T: ToolResult>(key: &str) -> bool {
    let shape = crate::schema::output_shape::<T>();
    !shape.wrapped
        && shape
            .schema
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|properties| properties.contains_key(key))
}

/// Builds the `isError: true` result for a tool execution error.
pub fn error_result(error: &ToolError) -> CallToolResult {
    if !error.texts_within() {
        // A message set past the constructors (`error.message = ...`): cut as they cut.
        let mut error = error.clone();
        error.cap_texts();
        return error_result(&error);
    }
    let structured = serde_json::to_value(error).unwrap_or(Value::Null);
    assemble(
        structured,
        error.summary(),
        ContentMode::SummaryThenJson,
        (
            crate::result::content::BlockStyle::SUMMARY,
            crate::result::content::BlockStyle::JSON,
        ),
        true,
    )
}

fn assemble(
    structured: Value,
    summary: String,
    mode: ContentMode,
    (summary_style, json_style): (
        crate::result::content::BlockStyle,
        crate::result::content::BlockStyle,
    ),
    is_error: bool,
) -> CallToolResult {
    let text = |text: String, style: crate::result::content::BlockStyle| {
        ContentBlock::Text(
            rmcp::model::TextContent::new(text).with_annotations(style.annotations()),
        )
    };
    let json = || text(crate::wire::text::json_one_line(&structured), json_style);
    let content = match mode {
        ContentMode::SummaryThenJson => vec![text(summary, summary_style), json()],
        ContentMode::JsonThenSummary => vec![json(), text(summary, summary_style)],
        ContentMode::Summary => vec![text(summary, summary_style)],
        ContentMode::Json => vec![json()],
    };
    let mut result = if is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    result.structured_content = Some(structured);
    result
}

/// Success results are checked against their own `outputSchema` (MCP: a server MUST return
/// conforming `structuredContent`) in debug builds and tests, and in release builds with
/// the `validate-results` feature. A result that does not conform becomes an `internal`
/// error (cause logged), never a non-conforming success.
#[cfg(any(debug_assertions, feature = "validate-results"))]
mod conformance {
    use serde_json::Value;

    use super::ToolResult;

    pub(super) fn check<T: ToolResult>(structured: &Value) -> Result<(), String> {
        let compiled = crate::schema::output_validator::<T>();
        let validator = compiled.as_ref().as_ref().map_err(Clone::clone)?;
        let first = validator.iter_errors(structured).next().map(|error| {
            format!(
                "at `{}`: {}",
                error.instance_path().as_str(),
                crate::wire::text::cap_message(&error.to_string())
            )
        });
        first.map_or(Ok(()), Err)
    }
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// What a `#[mcp_tool]` method may return: a [`ToolResult`] `T`, or `Result<T, E>` where
/// `E` converts into a [`ToolError`] ([`IntoToolError`]).
///
/// The messages speak to every type a user may have written here, their own and other
/// crates' (`rmcp::model::CallToolResult` above all): a tool returns its data, and
/// mcp-result builds the `CallToolResult` from it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a `#[mcp_tool]` method",
    label = "a tool returns a type deriving `ToolResult`, or `Result<T, ToolError>` of one",
    note = "return your data in a type with `#[derive(Serialize, JsonSchema, ToolResult)]`: mcp-result builds the `CallToolResult` (`structuredContent`, `content`, `isError`) from it; for a `Serialize + JsonSchema` type from another crate, return `Structured<T>`; an error type must convert into `mcp_result::ToolError`"
)]
pub trait IntoToolOutput {
    /// The success type, whose schema is the success branch of the tool's `outputSchema`
    /// (a [`ToolResult`], or [`Unstructured`](crate::Unstructured), which has none).
    type Output;

    /// The tool's `structuredContent` shape; `None`: no `outputSchema` (plain content).
    fn output_shape() -> Option<Arc<crate::schema::OutputShape>>;

    /// Turns the returned value into the result sent to the client.
    fn into_call_tool_result(self) -> CallToolResult
    where
        Self: Sized,
    {
        self.into_result_in(&ResultScope::default())
    }

    /// The same inside a tool call, storing payloads in `scope`.
    fn into_result_in(self, scope: &ResultScope<'_>) -> CallToolResult;

    /// The call's answer inside a tool call: the result, or the JSON-RPC error or question
    /// an error stands for ([`ToolError::protocol`], [`crate::Ask`]).
    fn into_answer_in(self, scope: &ResultScope<'_>) -> ToolAnswer
    where
        Self: Sized,
    {
        self.into_result_in(scope).into()
    }
}

impl<T: ToolResult> IntoToolOutput for T {
    type Output = T;
    fn output_shape() -> Option<Arc<crate::schema::OutputShape>> {
        Some(crate::schema::output_shape::<T>())
    }
    fn into_result_in(self, scope: &ResultScope<'_>) -> CallToolResult {
        build_result_in(&self, scope)
    }
}

impl<T: ToolResult, E: IntoToolError> IntoToolOutput for Result<T, E> {
    type Output = T;
    fn output_shape() -> Option<Arc<crate::schema::OutputShape>> {
        Some(crate::schema::output_shape::<T>())
    }
    fn into_result_in(self, scope: &ResultScope<'_>) -> CallToolResult {
        match self {
            Ok(value) => build_result_in(&value, scope),
            Err(error) => error_result(&scope.stamp(error.into_tool_error())),
        }
    }

    fn into_answer_in(self, scope: &ResultScope<'_>) -> ToolAnswer {
        answer_of(self, scope)
    }
}

impl ToolAnswer {
    /// The answer for `error`: its JSON-RPC error or question when it stands for one, else
    /// its `isError` result.
    pub fn of_error(mut error: ToolError) -> Self {
        use crate::wire::envelope::Escape;
        match error.take_escape() {
            Some(Escape::Protocol(error)) => ToolAnswer::Protocol(error),
            Some(Escape::Ask(question)) => ToolAnswer::Ask(question),
            None => ToolAnswer::Result(error_result(&error)),
        }
    }
}

/// The answer of a tool that returned `Result<O, E>`: the success's result, or the error's
/// (stamped with the call's facts; a JSON-RPC error or question when it stands for one).
pub(crate) fn answer_of<O: IntoToolOutput, E: IntoToolError>(
    returned: Result<O, E>,
    scope: &ResultScope<'_>,
) -> ToolAnswer {
    match returned {
        Ok(value) => value.into_answer_in(scope),
        Err(error) => ToolAnswer::of_error(scope.stamp(error.into_tool_error())),
    }
}

/// Converts a tool's error type into a [`ToolError`].
///
/// Implemented for every `E` where `ToolError: From<E>`: implement
/// `From<YourError> for mcp_result::ToolError` and a tool may return
/// `Result<T, YourError>`. A type from another crate (`io::Error`, `String`,
/// `rmcp::ErrorData`, ...) cannot get that impl: such a tool returns `Result<T, ToolError>`
/// and names the kind where the error happens with [`crate::ResultExt`]
/// (`.not_found("...")?`, `.internal()?`) or builds the error with a constructor
/// ([`ToolError::not_found`], ...). With the feature `anyhow`, `anyhow::Error` and
/// `Box<dyn Error + Send + Sync>` convert (an `internal` error).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned as a tool execution error",
    label = "no conversion into `mcp_result::ToolError`",
    note = "return `Result<T, ToolError>` and name the kind where the error happens with `mcp_result::ResultExt` (`.not_found(..)?`, `.or_tool_error(ErrorKind::UpstreamUnavailable)?`, `.internal()?`: the cause is logged, never returned), or build it with a constructor (`ToolError::not_found(..)`, ...); if your crate defines `{Self}`, you may instead implement `From<{Self}> for mcp_result::ToolError`, choosing an error kind per variant"
)]
pub trait IntoToolError {
    /// Performs the conversion.
    fn into_tool_error(self) -> ToolError;
}

impl<E> IntoToolError for E
where
    ToolError: From<E>,
{
    fn into_tool_error(self) -> ToolError {
        ToolError::from(self)
    }
}

/// Gives the pending payloads of `collected` their URIs, writes them into `value` and the
/// blocks, and stages the artifacts in `scope` (owned by its caller).
///
/// # Errors
/// When there are payloads to store and the server has no artifact store, or the call
/// has no owner: the message names the payload and the fix.
fn store_payloads(
    collected: &mut Collected,
    value: &mut Value,
    scope: &ResultScope<'_>,
) -> Result<(), String> {
    if collected.pending.is_empty() {
        return Ok(());
    }
    let (Some(_), Some(owner)) = (scope.store, &scope.owner) else {
        return Err(format!(
            "payload `{}` cannot be stored: a result holding a `Payload` must come from a \
             tool of a server declared with `#[mcp_tools(artifacts)]`",
            collected.pending[0].0.name
        ));
    };
    let mut uris = Vec::with_capacity(collected.pending.len());
    let mut staged = Vec::with_capacity(collected.pending.len());
    for (mut artifact, title, block) in collected.pending.drain(..) {
        artifact.uri = new_artifact_uri();
        artifact.owner = owner.clone();
        let mut link = Artifact::new(artifact.uri.clone(), artifact.name.clone())
            .with_mime_type(artifact.mime_type.clone())
            .with_size(artifact.content.len() as u64);
        if let Some(title) = title {
            link = link.with_title(title);
        }
        collected.blocks[block] = link.to_block();
        uris.push(artifact.uri.clone());
        staged.push(artifact);
    }
    replace_placeholders(value, &uris);
    scope.stage(staged);
    Ok(())
}

fn replace_placeholders(value: &mut Value, uris: &[String]) {
    match value {
        Value::String(text) => {
            if let Some(index) = text.strip_prefix(PENDING) {
                if let Some(uri) = index.parse::<usize>().ok().and_then(|i| uris.get(i)) {
                    *text = uri.clone();
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| replace_placeholders(v, uris)),
        Value::Object(map) => map.values_mut().for_each(|v| replace_placeholders(v, uris)),
        _ => {}
    }
}
