//! Prompts, resources, completion and logging: `ServerHandler` methods beside
//! `#[mcp_handler]` (guide, "Beside the framework").

use super::*;

#[mcp_handler]
impl ServerHandler for Fixture {
    fn get_info(&self) -> ServerConfig {
        let mut info = mcp_result::handler::server_info::<Self>("mcp-result-conformance", "0.1.0");
        let capabilities = &mut info.capabilities;
        capabilities.prompts = Some(Default::default());
        capabilities.completions = Some(Default::default());
        // `resources.subscribe`: `resources/subscribe` and `subscriptions/listen` are the
        // framework's (`#[mcp_handler]` fills them in).
        capabilities.resources = Some(wire(json!({"subscribe": true, "listChanged": true})));
        info
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(wire(json!({"resultType": "complete", "prompts": [
            {"name": "test_simple_prompt", "description": "A prompt without arguments"},
            {"name": "test_prompt_with_arguments", "description": "A prompt with arguments",
             "arguments": [
                {"name": "arg1", "description": "First argument", "required": true},
                {"name": "arg2", "description": "Second argument", "required": true}]},
            {"name": "test_prompt_with_embedded_resource", "description": "A prompt with a resource",
             "arguments": [{"name": "resourceUri", "description": "The resource", "required": true}]},
            {"name": "test_prompt_with_image", "description": "A prompt with an image"},
            {"name": "test_input_required_result_prompt", "description": "A prompt that asks first"},
        ]})))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let argument = |name: &str| {
            request
                .arguments
                .as_ref()
                .and_then(|a| a.get(name))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        let text =
            |text: String| json!({"role": "user", "content": {"type": "text", "text": text}});
        let messages = match request.name.as_str() {
            "test_simple_prompt" => vec![text("This is a simple prompt for testing.".into())],
            "test_prompt_with_arguments" => vec![text(format!(
                "Prompt with arguments: arg1='{}', arg2='{}'",
                argument("arg1"),
                argument("arg2")
            ))],
            "test_prompt_with_embedded_resource" => vec![
                json!({"role": "user", "content": {"type": "resource", "resource": {
                    "uri": argument("resourceUri"), "mimeType": "text/plain",
                    "text": "Embedded resource content for testing."}}}),
                text("Please process the embedded resource above.".into()),
            ],
            "test_prompt_with_image" => vec![
                json!({"role": "user", "content": {"type": "image", "data": PNG, "mimeType": "image/png"}}),
                text("Please analyze the image above.".into()),
            ],
            "test_input_required_result_prompt" => {
                // A prompt is not a tool: rmcp's input-required round, written by hand.
                let answer = request
                    .input_responses
                    .as_ref()
                    .and_then(|r| r.get("user_context"))
                    .and_then(|a| a.pointer("/content/context"))
                    .and_then(Value::as_str);
                match answer {
                    Some(context) => vec![text(format!("Prompt with elicited context: {context}"))],
                    None => {
                        return Ok(GetPromptResponse::InputRequired(wire(json!({
                            "resultType": "input_required",
                            "inputRequests": {"user_context": {
                                "method": "elicitation/create",
                                "params": {"mode": "form", "message": "What context should the prompt use?",
                                    "requestedSchema": {"type": "object",
                                        "properties": {"context": {"type": "string"}},
                                        "required": ["context"]}}}},
                        }))))
                    }
                }
            }
            other => {
                return Err(ErrorData::invalid_params(
                    format!("no prompt `{}`", other.chars().take(64).collect::<String>()),
                    None,
                ))
            }
        };
        Ok(GetPromptResponse::Complete(wire(json!({
            "resultType": "complete",
            "messages": messages,
        }))))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(wire(json!({"resultType": "complete", "resources": [
            {"uri": "test://static-text", "name": "static-text", "mimeType": "text/plain"},
            {"uri": "test://static-binary", "name": "static-binary", "mimeType": "image/png"},
            {"uri": "test://watched-resource", "name": "watched-resource", "mimeType": "text/plain"},
        ]})))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(wire(
            json!({"resultType": "complete", "resourceTemplates": [
                {"uriTemplate": "test://template/{id}/data", "name": "template", "mimeType": "application/json"},
            ]}),
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if mcp_result::handler::is_framework_uri(&request.uri) {
            return mcp_result::handler::read_resource(self, request, context).await;
        }
        let uri = request.uri.as_str();
        let contents = match uri {
            "test://static-text" => json!({"uri": uri, "mimeType": "text/plain",
                "text": "This is the content of the static text resource."}),
            "test://static-binary" => json!({"uri": uri, "mimeType": "image/png", "blob": PNG}),
            "test://watched-resource" => json!({"uri": uri, "mimeType": "text/plain",
                "text": "Watched resource content"}),
            _ => match uri
                .strip_prefix("test://template/")
                .and_then(|rest| rest.strip_suffix("/data"))
            {
                Some(id) if !id.is_empty() && !id.contains('/') => json!({
                    "uri": uri, "mimeType": "application/json",
                    "text": json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")}).to_string()}),
                _ => {
                    // MCP 2026-07-28 (SEP-2164): an unknown resource is `-32602`, naming it.
                    return Err(ErrorData::new(
                        ErrorCode::INVALID_PARAMS,
                        "Resource not found",
                        Some(json!({"uri": uri})),
                    ));
                }
            },
        };
        Ok(ReadResourceResponse::Complete(wire(json!({
            "resultType": "complete",
            "contents": [contents],
        }))))
    }

    async fn complete(
        &self,
        _request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        Ok(wire(json!({
            "resultType": "complete",
            "completion": {"values": [], "total": 0, "hasMore": false},
        })))
    }
}
