//! The answers to calls a server must refuse: arguments its inputSchema rejects, and a tool
//! it does not have.

use mcp_result::serde_json::Value;

use super::{common, envelope, values::names_field, Tool, ARGUMENTS_AS_RESULTS};
use crate::{
    checks::{Call, Finding},
    generate::Bad,
};

/// What a `tools/call` got back.
pub enum Answer {
    Result(Value),
    /// A JSON-RPC error: its code and message.
    RpcError(String),
    /// No answer: the transport failed or the time limit passed.
    Failed(String),
    /// JSON-RPC `-32021` (MCP 2026-07-28, missing required client capability): the
    /// `requiredCapabilities` it names, as JSON.
    NeedsCapability(String),
}

/// The checks of the answer to arguments the inputSchema rejects.
pub fn bad_arguments(
    tool: &Tool,
    bad: &Bad,
    answer: &Answer,
    protocol: &str,
    max_output: usize,
    out: &mut Vec<Finding>,
) {
    let call = Call::BadArguments;
    let result = match answer {
        Answer::Failed(why) => {
            out.push(
                Finding::new(
                    &tool.name,
                    "bad-arguments",
                    "",
                    format!("called {}, the server gave no answer: {why}", bad.how),
                )
                .in_call(call),
            );
            return;
        }
        Answer::NeedsCapability(_) => return,
        Answer::RpcError(error) => {
            if protocol >= ARGUMENTS_AS_RESULTS {
                out.push(
                    Finding::new(
                        &tool.name,
                        "bad-arguments",
                        "",
                        format!(
                            "called {}, the server answered a JSON-RPC error ({error}); from \
                             protocol {ARGUMENTS_AS_RESULTS} on, bad arguments are an isError \
                             result the model can read and correct",
                            bad.how
                        ),
                    )
                    .in_call(call),
                );
            }
            return;
        }
        Answer::Result(result) => result,
    };
    if result.get("isError") != Some(&Value::Bool(true)) {
        out.push(
            Finding::new(
                &tool.name,
                "bad-arguments",
                "/isError",
                format!(
                    "called {}, the server answered a result that is not an error",
                    bad.how
                ),
            )
            .in_call(call),
        );
    } else {
        envelope(tool, call, result, out);
        let names_field = result
            .get("structuredContent")
            .is_some_and(|s| names_field(s, &bad.field));
        if !names_field {
            out.push(
                Finding::new(
                    &tool.name,
                    "error-field-errors",
                    "/structuredContent",
                    format!(
                        "called {}, the isError result names no failing field in \
                         structuredContent",
                        bad.how
                    ),
                )
                .in_call(call),
            );
        }
    }
    common(tool, call, result, max_output, out);
}

/// The answer to a call of a tool the server does not have.
pub fn unknown_tool(name: &str, answer: &Answer, out: &mut Vec<Finding>) {
    let kind = match answer {
        Answer::RpcError(_) => return,
        Answer::NeedsCapability(_) => "a JSON-RPC -32021 (missing client capability)".to_owned(),
        Answer::Failed(why) => format!("no answer ({why})"),
        Answer::Result(result) if result.get("isError") == Some(&Value::Bool(true)) => {
            "an isError result".to_owned()
        }
        Answer::Result(_) => "a result".to_owned(),
    };
    out.push(
        Finding::new(
            "",
            "unknown-tool",
            "",
            format!(
                "a call of `{name}`, which the server does not list, was answered with \
                 {kind}, not a JSON-RPC error"
            ),
        )
        .in_call(Call::UnknownTool),
    );
}
