use std::collections::HashMap;

use mcp_result::{Secret, ToolResult};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, JsonSchema)]
struct Account {
    name: String,
    #[serde(skip)]
    password: Secret<String>,
}

#[derive(Serialize, JsonSchema)]
#[serde(tag = "type")]
enum Credential {
    Key {
        #[serde(skip)]
        key: Secret<String>,
    },
    Anonymous,
}

/// Every nested position.
#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
struct Report<T: Serialize + JsonSchema + 'static> {
    accounts: Vec<Account>,
    backup: Option<Account>,
    by_region: HashMap<String, Account>,
    credential: Credential,
    extra: T,
    #[secret]
    #[serde(skip_serializing)]
    session: Secret<String>,
    redaction_applied: bool,
}

/// A secret as a tool *argument* is fine: it comes in, it never goes out.
#[derive(Deserialize, JsonSchema)]
struct LoginArgs {
    user: String,
    password: Secret<String>,
}

fn main() {
    let report = Report {
        accounts: vec![Account { name: "a".into(), password: Secret::new("p".into()) }],
        backup: None,
        by_region: HashMap::new(),
        credential: Credential::Key { key: Secret::new("k".into()) },
        extra: 1u8,
        session: Secret::new("s".into()),
        redaction_applied: false,
    };
    let _ = (Credential::Anonymous, mcp_result::build_result(&report));
    let args: LoginArgs = serde_json::from_str(r#"{"user": "u", "password": "p"}"#).unwrap();
    assert_eq!(args.password.expose(), "p");
    let _ = args.user;
}
