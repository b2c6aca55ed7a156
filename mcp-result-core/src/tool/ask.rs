//! A tool asking the client: [`Ask`].

#![allow(deprecated)] // rmcp marks sampling and roots deprecated (SEP-2577); MCP still has them.

use std::{collections::BTreeMap, sync::Arc, time::Duration};

use rmcp::{
    model::{
        ClientCapabilities, ClientResult, CreateMessageRequest, CreateMessageRequestParams,
        CreateMessageResult, ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction,
        ElicitationSchema, InputRequest, InputRequests, InputRequiredResult, ListRootsRequest,
        ListRootsResult, ServerRequest,
    },
    service::RequestContext,
    ErrorData, RoleServer,
};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::{
    call::client::{
        asks_by_round, elicits_forms, request_during_call, requests_reach_the_client, AskPolicy,
        Unanswered,
    },
    store::{clock::unix_now, key::ServerKey},
    tool::extract::{via, FromToolCall, ToolCall, ToolExtension},
    wire::envelope::ToolError,
    write::approval::Round,
};

/// How long a round's sealed state is good for: 10 minutes. (A question sent during the
/// call waits [`AskPolicy::wait`].)
const ROUND_TTL: Duration = Duration::from_secs(600);

/// One question of a tool to its client, under the key the tool names it by.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Question {
    /// `elicitation/create`: a form for the user (MCP "Elicitation").
    Elicit {
        /// What the form asks, for the user.
        message: String,
        /// The form: a flat object of primitive properties.
        schema: ElicitationSchema,
    },
    /// `sampling/createMessage`: a completion from the client's model (MCP "Sampling").
    Sample(CreateMessageRequestParams),
    /// `roots/list`: the client's roots (MCP "Roots").
    Roots,
}

impl Question {
    /// A form asking for `T`'s fields (`T` derives `JsonSchema`; a flat object of
    /// primitive properties, as MCP elicitation requires).
    ///
    /// # Errors
    /// An `internal` error when `T`'s schema is not an elicitation form.
    pub fn form<T: schemars::JsonSchema>(message: impl Into<String>) -> Result<Self, ToolError> {
        let schema = ElicitationSchema::from_type::<T>().map_err(|error| {
            ToolError::internal_logged(format_args!("not an elicitation form: {error}"))
        })?;
        Ok(Question::Elicit {
            message: message.into(),
            schema,
        })
    }

    fn method(&self) -> &'static str {
        match self {
            Question::Elicit { .. } => "elicitation/create",
            Question::Sample(_) => "sampling/createMessage",
            Question::Roots => "roots/list",
        }
    }

    fn request(&self) -> InputRequest {
        match self {
            Question::Elicit { message, schema } => {
                InputRequest::Elicitation(ElicitRequest::new(form(message, schema)))
            }
            Question::Sample(params) => {
                InputRequest::CreateMessage(CreateMessageRequest::new(params.clone()))
            }
            Question::Roots => InputRequest::ListRoots(ListRootsRequest::default()),
        }
    }

    /// Whether `answer` is an answer of this question's kind (an `ElicitResult`, a
    /// `CreateMessageResult`, a `ListRootsResult`); an accepted form must also fill it.
    fn answered_by(&self, answer: &Value) -> bool {
        match self {
            Question::Elicit { schema, .. } => {
                let Ok(result) = serde_json::from_value::<ElicitResult>(answer.clone()) else {
                    return false;
                };
                match (result.action, result.content) {
                    (ElicitationAction::Accept, Some(content)) => fills(schema, &content),
                    (ElicitationAction::Accept, None) => false,
                    _ => true,
                }
            }
            Question::Sample(_) => {
                serde_json::from_value::<CreateMessageResult>(answer.clone()).is_ok()
            }
            Question::Roots => serde_json::from_value::<ListRootsResult>(answer.clone()).is_ok(),
        }
    }

    /// Whether `capabilities` let the client answer this question.
    fn allowed_by(&self, capabilities: &ClientCapabilities) -> bool {
        match self {
            Question::Elicit { .. } => elicits_forms(capabilities),
            Question::Sample(_) => capabilities.sampling.is_some(),
            Question::Roots => capabilities.roots.is_some(),
        }
    }
}

fn form(message: &str, schema: &ElicitationSchema) -> ElicitRequestParams {
    ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: message.to_owned(),
        requested_schema: schema.clone(),
    }
}

/// Whether `content` fills the form `schema`: an object holding every required property.
fn fills(schema: &ElicitationSchema, content: &Value) -> bool {
    let Some(content) = content.as_object() else {
        return false;
    };
    let schema = serde_json::to_value(schema).unwrap_or(Value::Null);
    let required = schema["required"].as_array().cloned().unwrap_or_default();
    required
        .iter()
        .filter_map(Value::as_str)
        .all(|name| content.contains_key(name))
}

/// What a form gave back: the user's values, or their refusal.
#[derive(Debug, Clone, PartialEq)]
pub enum Elicited<T> {
    /// The user filled the form.
    Accepted(T),
    /// The user said no.
    Declined,
    /// The user dismissed the form.
    Cancelled,
}

/// A tool's own questions to its client: a form for the user (elicitation), a completion
/// from the client's model (sampling), the client's roots. Take it as a parameter.
///
/// How it asks depends on the revision the call speaks (MCP 2026-07-28, "Multi round-trip
/// requests", SEP-2322):
///
/// - **2026-07-28**: the call ends with an input-required result carrying the unanswered
///   questions and a sealed `requestState`; the client answers and calls again, and the
///   tool runs **again from its start**, its questions now answered (from the call's
///   `inputResponses`, or, for the earlier rounds, from the sealed state). The state is
///   sealed with the server key (HMAC-SHA256) and bound to the caller, the tool, the
///   arguments' fingerprint and a 10-minute expiry: a state altered, of another call or
///   too old is a JSON-RPC `-32602`. An answer of the wrong shape is asked again.
/// - **Before 2026-07-28**: the question goes to the client during the call (rmcp's
///   peer), and the answer comes back to the waiting call; over HTTP without a session
///   no answer can come back, so the call fails at once (`upstream_unavailable`).
///
/// A question the client's capabilities do not allow is a JSON-RPC `-32021` (MCP
/// 2026-07-28 missing client capability) naming what is missing; check first with
/// [`Ask::can`] to ask only what the client can answer.
///
/// Because a round runs the tool again, everything before a question runs once per round:
/// ask before acting. A write may ask (its attempt ends without effect and gives its key
/// back), but not one gated by `requires_approval`, which asks through the same round (the
/// server does not start).
///
/// A tool takes it as a parameter and asks with `?`, so a question ends the call where
/// it must (guide, "Asking, logging, plain content"):
///
/// ```text
/// async fn greet(&self, mut ask: Ask) -> Result<Unstructured, ToolError> {
///     match ask.elicit::<Name>("user_name", "What is your name?").await? { ... }
/// }
/// ```
///
/// A question is a [`Question`]; a form's is made from the type it asks for:
///
/// ```
/// use mcp_result_core::Question;
///
/// /// A name.
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Name {
///     /// Your name.
///     name: String,
/// }
///
/// let question = Question::form::<Name>("What is your name?").unwrap();
/// assert!(matches!(question, Question::Elicit { .. }));
/// ```
#[derive(Debug)]
pub struct Ask {
    context: RequestContext<RoleServer>,
    key: Arc<ServerKey>,
    caller: String,
    tool: &'static str,
    fingerprint: Option<String>,
    round: Round,
    /// The answers of the earlier rounds (from the sealed state) and of this one.
    answers: BTreeMap<String, Value>,
    /// The state failed to open: the round is refused as soon as the tool asks.
    tampered: bool,
    /// How long a question sent during the call waits for its answer.
    policy: AskPolicy,
}

impl FromToolCall<via::Extractor> for Ask {
    fn tool_extension() -> Option<ToolExtension> {
        Some(ToolExtension {
            binds_arguments: true,
            ..ToolExtension::default()
        })
    }

    fn from_tool_call(call: &mut ToolCall) -> Result<Self, ToolError> {
        let key = call.state().server_key().clone();
        let caller = call.identity().key();
        let fingerprint = call.binding().and_then(|b| b.first().cloned());
        let round = call.round().clone();
        let mut ask = Ask {
            context: call.context().clone(),
            key,
            caller,
            tool: call.tool(),
            fingerprint,
            round,
            answers: BTreeMap::new(),
            tampered: false,
            policy: call.state().get::<AskPolicy>().copied().unwrap_or_default(),
        };
        if let Some(state) = ask.round.state.clone() {
            match ask.open(&state) {
                Some(answers) => ask.answers = answers,
                None => ask.tampered = true,
            }
        }
        Ok(ask)
    }
}

impl Ask {
    /// Whether the client can answer `question` (its capabilities: per request from
    /// 2026-07-28, from `initialize` before).
    pub fn can(&self, question: &Question) -> bool {
        self.context
            .client_capabilities()
            .is_some_and(|capabilities| question.allowed_by(&capabilities))
    }

    /// Asks the user to fill the form of `T` (its `JsonSchema`: a flat object of
    /// primitive properties), under `key`.
    ///
    /// # Errors
    /// The question itself (2026-07-28: the call ends and comes back answered), a JSON-RPC
    /// error (a client without elicitation, a state that does not open), or a tool error
    /// (the client could not be reached or sent what is not `T`).
    pub async fn elicit<T: DeserializeOwned + schemars::JsonSchema>(
        &mut self,
        key: &str,
        message: impl Into<String>,
    ) -> Result<Elicited<T>, ToolError> {
        let question = Question::form::<T>(message)?;
        match self.elicit_form(key, question).await? {
            Elicited::Accepted(content) => serde_json::from_value(content)
                .map(Elicited::Accepted)
                .map_err(|error| {
                    ToolError::upstream_unavailable(
                        format!("The client's answer to `{key}` does not fit the form: {error}."),
                        true,
                    )
                }),
            Elicited::Declined => Ok(Elicited::Declined),
            Elicited::Cancelled => Ok(Elicited::Cancelled),
        }
    }

    /// Asks the user a form given as its schema (`Question::Elicit`), under `key`: the
    /// content as the client sent it.
    ///
    /// # Errors
    /// As [`Self::elicit`]; an `internal` error when `question` is not a form.
    pub async fn elicit_form(
        &mut self,
        key: &str,
        question: Question,
    ) -> Result<Elicited<Value>, ToolError> {
        if !matches!(question, Question::Elicit { .. }) {
            return Err(ToolError::internal_logged("`elicit_form` takes a form"));
        }
        let answer = self.one(key, question).await?;
        let result: ElicitResult = serde_json::from_value(answer).map_err(unreadable(key))?;
        Ok(match result.action {
            ElicitationAction::Accept => {
                Elicited::Accepted(result.content.unwrap_or(Value::Object(Default::default())))
            }
            ElicitationAction::Decline => Elicited::Declined,
            _ => Elicited::Cancelled,
        })
    }

    /// Asks the client's model for a completion, under `key`.
    ///
    /// # Errors
    /// As [`Self::elicit`], for a client without sampling.
    pub async fn sample(
        &mut self,
        key: &str,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, ToolError> {
        let answer = self.one(key, Question::Sample(params)).await?;
        serde_json::from_value(answer).map_err(unreadable(key))
    }

    /// Asks the client for its roots, under `key`.
    ///
    /// # Errors
    /// As [`Self::elicit`], for a client without roots.
    pub async fn roots(&mut self, key: &str) -> Result<ListRootsResult, ToolError> {
        let answer = self.one(key, Question::Roots).await?;
        serde_json::from_value(answer).map_err(unreadable(key))
    }

    /// Asks several questions at once (one round on 2026-07-28, one after the other
    /// before): the answers by key, as the client sent them (an `ElicitResult`, a
    /// `CreateMessageResult`, a `ListRootsResult`).
    ///
    /// # Errors
    /// As [`Self::elicit`].
    pub async fn all(
        &mut self,
        questions: Vec<(String, Question)>,
    ) -> Result<BTreeMap<String, Value>, ToolError> {
        if let Some((_, question)) = questions.iter().find(|(_, q)| !self.can(q)) {
            return Err(missing(question));
        }
        if asks_by_round(&self.context) {
            return self.by_round(questions);
        }
        let mut answers = BTreeMap::new();
        for (key, question) in questions {
            let answer = match self.answers.get(&key) {
                Some(answer) => answer.clone(),
                None => {
                    let answer = self.during_call(&key, &question).await?;
                    self.answers.insert(key.clone(), answer.clone());
                    answer
                }
            };
            answers.insert(key, answer);
        }
        Ok(answers)
    }

    async fn one(&mut self, key: &str, question: Question) -> Result<Value, ToolError> {
        let mut answers = self.all(vec![(key.to_owned(), question)]).await?;
        Ok(answers.remove(key).unwrap_or(Value::Null))
    }

    /// 2026-07-28: the answers when every question has one (from the state or this call's
    /// `inputResponses`), else the round that asks the rest.
    fn by_round(
        &mut self,
        questions: Vec<(String, Question)>,
    ) -> Result<BTreeMap<String, Value>, ToolError> {
        if self.tampered {
            return Err(ToolError::protocol(ErrorData::invalid_params(
                "requestState failed integrity verification: it is not this server's state for \
                 this caller, tool and arguments, or it expired",
                None,
            )));
        }
        let responses = self.round.responses.clone().unwrap_or_default();
        let mut unanswered = InputRequests::new();
        let mut answers = BTreeMap::new();
        for (key, question) in questions {
            let answer = self.answers.get(&key).cloned().or_else(|| {
                responses
                    .get(&key)
                    .filter(|answer| question.answered_by(answer))
                    .cloned()
            });
            match answer {
                Some(answer) => {
                    self.answers.insert(key.clone(), answer.clone());
                    answers.insert(key, answer);
                }
                None => {
                    unanswered.insert(key, question.request());
                }
            }
        }
        if unanswered.is_empty() {
            return Ok(answers);
        }
        let state = self.seal();
        Err(ToolError::asking(InputRequiredResult::new(
            Some(unanswered),
            Some(state),
        )))
    }

    /// Before 2026-07-28: the question sent to the client during the call.
    async fn during_call(&self, key: &str, question: &Question) -> Result<Value, ToolError> {
        if !requests_reach_the_client(&self.context) {
            return Err(ToolError::upstream_unavailable(
                format!(
                    "The tool needs to ask the client (`{key}`), and this connection cannot \
                     carry the question: use a session (streamable HTTP with sessions, or \
                     stdio) or MCP 2026-07-28."
                ),
                true,
            ));
        }
        let request = match question {
            Question::Elicit { message, schema } => {
                ServerRequest::ElicitRequest(ElicitRequest::new(form(message, schema)))
            }
            Question::Sample(params) => {
                ServerRequest::CreateMessageRequest(CreateMessageRequest::new(params.clone()))
            }
            Question::Roots => ServerRequest::ListRootsRequest(ListRootsRequest::default()),
        };
        let waiting = format!("Waiting for the client to answer `{key}`");
        match request_during_call(&self.context, request, self.policy, &waiting).await {
            Ok(answer) => {
                let answer = match (question, answer) {
                    (Question::Elicit { .. }, ClientResult::ElicitResult(r)) => {
                        serde_json::to_value(r)
                    }
                    (Question::Sample(_), ClientResult::CreateMessageResult(r)) => {
                        serde_json::to_value(r)
                    }
                    (Question::Roots, ClientResult::ListRootsResult(r)) => serde_json::to_value(r),
                    (_, other) => {
                        return Err(ToolError::upstream_unavailable(
                            format!(
                                "The client answered `{key}` ({}) with another kind of result: \
                                 {}.",
                                question.method(),
                                crate::wire::text::cap(&format!("{other:?}"))
                            ),
                            true,
                        ))
                    }
                };
                Ok(answer.unwrap_or(Value::Null))
            }
            Err(Unanswered::Failed(error)) => Err(ToolError::upstream_unavailable(
                format!(
                    "The client did not answer `{key}` ({}): {}.",
                    question.method(),
                    crate::wire::text::escaped(&error.to_string())
                ),
                true,
            )),
            Err(Unanswered::TimedOut(wait)) => Err(ToolError::upstream_timeout(wait, true)),
            Err(Unanswered::Cancelled) => Err(ToolError::conflict(
                "The call was cancelled while it waited for the client's answer.",
            )),
        }
    }

    /// The round's state: the answers so far, sealed and bound to this call.
    fn seal(&self) -> String {
        self.key.seal(&serde_json::json!({
            "ask": self.answers,
            "caller": self.caller,
            "tool": self.tool,
            "fingerprint": self.fingerprint,
            "expiresAt": unix_now() + ROUND_TTL.as_secs(),
        }))
    }

    /// The answers of `state`, when it is this server's state for this call and not
    /// expired.
    fn open(&self, state: &str) -> Option<BTreeMap<String, Value>> {
        let body = self.key.open(state)?;
        let bound = body["caller"] == self.caller.as_str()
            && body["tool"] == self.tool
            && body["fingerprint"].as_str() == self.fingerprint.as_deref()
            && body["expiresAt"].as_u64().is_some_and(|at| at > unix_now());
        if !bound {
            return None;
        }
        serde_json::from_value(body["ask"].clone()).ok()
    }
}

/// The `-32021` of a question the client's capabilities do not allow.
fn missing(question: &Question) -> ToolError {
    let mut required = ClientCapabilities::default();
    match question {
        Question::Elicit { .. } => required.elicitation = Some(Default::default()),
        Question::Sample(_) => required.sampling = Some(Default::default()),
        Question::Roots => required.roots = Some(Default::default()),
    }
    ToolError::protocol(ErrorData::missing_required_client_capability(required))
}

fn unreadable(key: &str) -> impl FnOnce(serde_json::Error) -> ToolError + '_ {
    move |error| {
        ToolError::upstream_unavailable(
            format!("The client's answer to `{key}` cannot be read: {error}."),
            true,
        )
    }
}
