//! `demo`: this binary started as a child over stdio, rmcp's client connected to it, and
//! `tools/list` and a few calls printed as JSON.

pub(crate) async fn demo() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    use mcp_result::rmcp::{
        model::CallToolRequestParams, transport::TokioChildProcess, ServiceExt,
    };
    use serde_json::json;

    let mut child = tokio::process::Command::new(std::env::current_exe()?);
    // The server's stderr (its logs and its audit records) only when asked for
    // (`RUST_LOG`): the demo prints what it demonstrates.
    let quiet = std::env::var_os("RUST_LOG").is_none();
    if quiet {
        child.env("RUST_LOG", "off");
    }
    let mut process = TokioChildProcess::builder(child);
    if quiet {
        process = process.stderr(std::process::Stdio::null());
    }
    let (process, _) = process.spawn()?;
    let client = ().serve(process).await?;
    let print = |label: &str, value: &dyn erased::Json| {
        println!("=== {label}\n{}\n", value.pretty());
    };

    let tools = client.list_all_tools().await?;
    print("tools/list", &tools);

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
        ("search_tickets", json!({"query": "", "pageSize": 2})),
        ("search_tickets", json!({"query": 42, "pageSize": 500})),
        ("get_attachment", json!({"ticketId": "T-1002"})),
    ];
    for (name, arguments) in calls {
        let serde_json::Value::Object(arguments) = arguments else {
            unreachable!()
        };
        let label = format!(
            "tools/call {name} {}",
            serde_json::Value::Object(arguments.clone())
        );
        let result = client
            .call_tool(CallToolRequestParams::new(name).with_arguments(arguments))
            .await?;
        print(&label, &result);
    }
    // A large report behind a resource_link, readable by the identity that made it; a URI
    // the store never made (they are 128 random bits) is not found.
    let import = CallToolRequestParams::new("billing_import_dry_run")
        .with_arguments(serde_json::Map::from_iter([("rows".into(), json!(20))]));
    let result = client.call_tool(import).await?;
    print("tools/call billing_import_dry_run {\"rows\":20}", &result);
    let uri = result
        .structured_content
        .as_ref()
        .and_then(|s| s["report"].as_str())
        .unwrap_or_default()
        .to_owned();
    let guessed = "mcp-result://artifacts/00000000000000000000000000000001".to_owned();
    for target in [uri, guessed] {
        let read = mcp_result::rmcp::model::ReadResourceRequestParams::new(target.clone());
        match client.read_resource(read).await {
            Ok(contents) => print(&format!("resources/read {target}"), &contents),
            Err(error) => println!("=== resources/read {target}\n{error}\n"),
        }
    }
    match client
        .call_tool(CallToolRequestParams::new("delete_everything"))
        .await
    {
        Err(error) => println!("=== tools/call delete_everything (unknown tool)\n{error}\n"),
        Ok(result) => print("tools/call delete_everything", &result),
    }
    client.cancel().await?;
    Ok(())
}

mod erased {
    /// Pretty JSON for anything serializable, behind `dyn` so the demo's printer is one
    /// closure.
    pub trait Json {
        fn pretty(&self) -> String;
    }
    impl<T: serde::Serialize> Json for T {
        fn pretty(&self) -> String {
            serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("<{e}>"))
        }
    }
}
