//! The client half, end to end: connect rmcp's client to the example support-desk server,
//! call each of its tools, and print what the model sees, what the user sees and the
//! error view of every result.
//!
//! ```console
//! cargo build --example helpdesk && cargo run --features client --example client_view
//! ```
//!
//! The server is the sibling binary `target/<profile>/examples/helpdesk`, spawned as a
//! child process and spoken to over its stdio (`cargo test` builds both).

use std::path::PathBuf;

use mcp_result::{
    rmcp::{model::CallToolRequestParams, transport::TokioChildProcess, ServiceExt},
    view::{DisplayOptions, ToolCatalog},
};
use serde_json::{json, Value};

/// The user display's budget, in characters: small enough to show collapsing.
const USER_BUDGET: usize = 400;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let server = helpdesk_binary()?;
    let client = ()
        .serve(TokioChildProcess::new(tokio::process::Command::new(
            &server,
        ))?)
        .await?;

    // One catalog per server: each outputSchema is compiled once, on first use.
    let catalog = ToolCatalog::new(client.list_all_tools().await?);

    let calls = [
        ("search_tickets", json!({"query": "login"})),
        ("list_ticket_ids", json!({})),
        ("get_ticket", json!({"ticketId": "T-1003"})),
        (
            "add_internal_note",
            json!({"ticketId": "T-1001", "body": "Customer confirmed SSO loop."}),
        ),
        (
            "add_internal_note",
            json!({"ticketId": "T-1004", "body": "Checking export job."}),
        ),
        ("get_ticket", json!({"ticketId": "T-9999"})),
        ("lookup_customer", json!({"customerId": "C-100"})),
        ("lookup_customer", json!({"customerId": "C-SLOW"})),
        ("search_tickets", json!({"query": 42, "pageSize": 500})),
    ];
    let count = calls.len();
    for (name, arguments) in calls {
        let Value::Object(arguments) = arguments else {
            unreachable!("the arguments above are objects")
        };
        println!("=== tools/call {name} {}", Value::Object(arguments.clone()));
        let result = client
            .call_tool(CallToolRequestParams::new(name).with_arguments(arguments))
            .await?;
        let view = catalog.view(name, result);

        let model = view.model_context();
        println!(
            "--- model context{}:",
            if model.is_error { " (tool error)" } else { "" }
        );
        println!("{}", indent(&model.to_text()));

        let user = view.user_display(&DisplayOptions::budget(USER_BUDGET));
        let collapsed = user.items.iter().filter(|i| i.collapsed).count();
        println!(
            "--- user display ({} of {USER_BUDGET} characters, {collapsed} collapsed, {} hidden):",
            user.used_chars(),
            user.hidden
        );
        println!("{}", indent(&user.to_text()));

        match view.error() {
            Some(error) => println!("--- error view:\n{}", indent(&error.render())),
            None => match view.structured_value() {
                Ok(value) => println!(
                    "--- error view: none; structured value ({}, checked against outputSchema: {}):\n{}",
                    view.structured_source()
                        .map_or_else(|| "none".to_owned(), |s| s.to_string()),
                    view.schema_checked(),
                    indent(&serde_json::to_string(value)?)
                ),
                Err(error) => println!("--- error view: none; no usable structured value: {error}"),
            },
        }
        println!();
    }
    println!("({count} results, each checked against its tool's outputSchema)");
    client.cancel().await?;
    Ok(())
}

/// `target/<profile>/examples/helpdesk`, beside this binary.
fn helpdesk_binary() -> Result<PathBuf, Box<dyn std::error::Error + Send + Sync>> {
    let me = std::env::current_exe()?;
    let dir = me.parent().ok_or("the executable has no directory")?;
    let path = dir.join(format!("helpdesk{}", std::env::consts::EXE_SUFFIX));
    if !path.exists() {
        return Err(format!(
            "the example server is not built at {}: run `cargo build --example helpdesk` first",
            path.display()
        )
        .into());
    }
    Ok(path)
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|line| format!("    {line}"))
        .collect::<Vec<_>>()
        .join("\n")
}
