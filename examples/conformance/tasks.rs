//! The fixtures of the tasks extension's scenarios (`tasks-*`, SEP-2663): a block of
//! `Fixture`'s tools of its own, included by the main block.

use super::*;

/// The fixtures of the tasks extension's scenarios (`tasks-*`, SEP-2663).
#[mcp_tools(block = tasks)]
impl Fixture {
    /// Greets at once (never a task).
    #[mcp_tool(read_only)]
    fn greet(&self, args: GreetArguments) -> Unstructured {
        Unstructured::text(format!("Hello, {}!", args.name))
    }

    /// Computes for `seconds` seconds; a task when the client declares the extension.
    #[mcp_tool(read_only, task = "optional")]
    async fn slow_compute(&self, args: ComputeArguments) -> Unstructured {
        tokio::time::sleep(Duration::from_secs(args.seconds)).await;
        Unstructured::text(format!(
            "Computed `{}` in {} s",
            args.label.unwrap_or_default(),
            args.seconds
        ))
    }

    /// Fails after a second, as a tool error; only as a task.
    #[mcp_tool(read_only, task = "required")]
    async fn failing_job(&self) -> Result<Unstructured, ToolError> {
        tokio::time::sleep(Duration::from_secs(1)).await;
        Err(ToolError::upstream_unavailable("The job failed.", true))
    }

    /// Ends with a protocol error (the task ends `failed`).
    #[mcp_tool(read_only, task = "optional")]
    async fn protocol_error_job(&self) -> Result<Unstructured, ToolError> {
        tokio::time::sleep(Duration::from_millis(200)).await;
        Err(ToolError::protocol(ErrorData::internal_error(
            "the job's backend broke",
            None,
        )))
    }

    /// Asks to confirm, then deletes (nothing, here).
    #[mcp_tool(read_only, task = "optional")]
    async fn confirm_delete(
        &self,
        args: DeleteArguments,
        mut ask: Ask,
    ) -> Result<Unstructured, ToolError> {
        let question = format!("Delete {}?", args.filename);
        match ask.elicit::<Confirmation>("confirm", question).await? {
            Elicited::Accepted(Confirmation { confirm: true }) => {
                Ok(Unstructured::text(format!("Deleted {}", args.filename)))
            }
            _ => Ok(Unstructured::text(format!("Kept {}", args.filename))),
        }
    }

    /// Asks two questions at once.
    #[mcp_tool(read_only, task = "optional")]
    async fn multi_input(&self, mut ask: Ask) -> Result<Unstructured, ToolError> {
        let answers = ask
            .all(vec![
                ("name".into(), Question::form::<Name>("Your name?")?),
                (
                    "confirm".into(),
                    Question::form::<Confirmation>("Go ahead?")?,
                ),
            ])
            .await?;
        Ok(Unstructured::text(format!("{} answers", answers.len())))
    }

    /// Asks the user's name in a round of its own, then works as a task.
    #[mcp_tool(read_only, task = "required", task_after_ms = 300)]
    async fn test_tool_with_task(&self, mut ask: Ask) -> Result<Unstructured, ToolError> {
        let name = match ask
            .elicit::<Name>("user_name", "What is your name?")
            .await?
        {
            Elicited::Accepted(Name { name }) => name,
            _ => "stranger".to_owned(),
        };
        tokio::time::sleep(Duration::from_secs(1)).await;
        Ok(Unstructured::text(format!("Hello, {name}!")))
    }
}
