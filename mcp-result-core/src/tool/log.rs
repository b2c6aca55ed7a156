//! A tool's log messages to its client: [`Log`].

#![allow(deprecated)] // rmcp marks logging deprecated (SEP-2577); MCP still has it.

use rmcp::{
    model::{LoggingLevel, LoggingMessageNotificationParam},
    service::RequestContext,
    RoleServer,
};
use serde::Serialize;

use crate::{
    state::State,
    tool::extract::{via, FromToolCall, ToolCall},
    wire::envelope::ToolError,
};

/// The order of `level` among the syslog severities of MCP "Logging" (RFC 5424): debug is
/// 0, emergency 7.
fn rank(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

/// Log messages of a tool to its client (`notifications/message`, MCP "Logging"), at the
/// level the client asked for: take it as a parameter.
///
/// - **MCP 2026-07-28**: the level is the call's own `_meta`
///   `io.modelcontextprotocol/logLevel`; a call without it gets no messages.
/// - **Before**: the level the session set with `logging/setLevel` (which `#[mcp_handler]`
///   answers, and the server declares the `logging` capability for); `info` until it does.
///
/// Messages below the level are dropped here, unsent; `logger` is the tool's name. A
/// message is a notification on the call's stream: it never fails the call (a message that
/// cannot be sent is dropped).
///
/// A tool takes it as a parameter (guide, "Asking, logging, plain content"):
///
/// ```text
/// async fn import(&self, log: Log) -> Unstructured {
///     log.info("import started").await;
///     ...
/// }
/// ```
#[derive(Debug, Clone)]
pub struct Log {
    context: RequestContext<RoleServer>,
    threshold: Option<LoggingLevel>,
    logger: &'static str,
}

impl FromToolCall<via::Extractor> for Log {
    fn from_tool_call(call: &mut ToolCall) -> Result<Self, ToolError> {
        let context = call.context().clone();
        let threshold = level_for(call.state(), &context);
        Ok(Log {
            context,
            threshold,
            logger: call.tool(),
        })
    }
}

/// The level messages of this call are sent from: the call's `_meta` on 2026-07-28, the
/// session's `logging/setLevel` before (`info` until set).
fn level_for(state: &State, context: &RequestContext<RoleServer>) -> Option<LoggingLevel> {
    if let Some(level) = context.meta.log_level() {
        return Some(level);
    }
    if crate::call::client::asks_by_round(context) {
        return None;
    }
    Some(
        state
            .log_level(&session_of(context))
            .unwrap_or(LoggingLevel::Info),
    )
}

/// The session a request belongs to, as `logging/setLevel` and [`Log`] key it: its
/// `Mcp-Session-Id` over streamable HTTP, `""` for a connection that is one session (stdio).
pub(crate) fn session_of(context: &RequestContext<RoleServer>) -> String {
    #[cfg(feature = "http")]
    if let Some(parts) = context.extensions.get::<http::request::Parts>() {
        if let Some(id) = parts
            .headers
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
        {
            return id.to_owned();
        }
    }
    let _ = context;
    String::new()
}

impl Log {
    /// Whether a message at `level` is sent.
    pub fn enabled(&self, level: LoggingLevel) -> bool {
        self.threshold
            .is_some_and(|threshold| rank(level) >= rank(threshold))
    }

    /// Sends `data` (any JSON value; a string for a line of text) at `level`, when enabled.
    pub async fn log(&self, level: LoggingLevel, data: impl Serialize) {
        if !self.enabled(level) {
            return;
        }
        let Ok(data) = serde_json::to_value(data) else {
            return;
        };
        let mut message = LoggingMessageNotificationParam::new(level, data);
        message.logger = Some(self.logger.to_owned());
        if let Err(error) = self.context.peer.notify_logging_message(message).await {
            tracing::debug!(%error, "a log message could not be sent");
        }
    }

    /// [`Self::log`] at `debug`.
    pub async fn debug(&self, data: impl Serialize) {
        self.log(LoggingLevel::Debug, data).await;
    }

    /// [`Self::log`] at `info`.
    pub async fn info(&self, data: impl Serialize) {
        self.log(LoggingLevel::Info, data).await;
    }

    /// [`Self::log`] at `warning`.
    pub async fn warning(&self, data: impl Serialize) {
        self.log(LoggingLevel::Warning, data).await;
    }

    /// [`Self::log`] at `error`.
    pub async fn error(&self, data: impl Serialize) {
        self.log(LoggingLevel::Error, data).await;
    }
}
