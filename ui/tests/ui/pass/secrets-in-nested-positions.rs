use std::collections::{HashMap, VecDeque};

use mcp_result::{Redact, Redacts, Secret, ToolResult};
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

/// `#[secret]` on a struct a result contains, through `#[derive(Redact)]`.
#[derive(Serialize, JsonSchema, Redact)]
struct Upstream {
    name: String,
    #[secret]
    #[serde(skip)]
    token: Secret<String>,
}

fn upstream() -> Upstream {
    Upstream { name: "u".into(), token: Secret::new("t".into()) }
}

/// A tuple struct.
#[derive(Serialize, JsonSchema, Redact)]
struct Keyed(String, #[secret] #[serde(skip)] Secret<String>);

/// An enum: a tuple variant holding a `Redact` type, a struct variant with a raw
/// identifier, a unit variant.
#[derive(Serialize, JsonSchema, Redact)]
#[serde(untagged)]
enum Access {
    Keyed(Keyed),
    Open { r#type: String },
    Nobody,
}

/// A generic struct with its own secret.
#[derive(Serialize, JsonSchema, Redact)]
struct Pool<T> {
    members: Vec<T>,
    #[secret]
    #[serde(skip_serializing)]
    pool_key: Secret<String>,
}

/// Through a crate that re-exports mcp-result.
mod framework {
    pub use ::mcp_result as results;
}

#[derive(Serialize, JsonSchema, framework::results::Redact)]
#[mcp_result(crate = "crate::framework::results")]
struct Renamed {
    #[secret]
    #[serde(skip)]
    key: framework::results::Secret<String>,
}

/// A result holding them in every container position: `redactionApplied` per value.
#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
struct Upstreams {
    items: Vec<Upstream>,
    queue: VecDeque<Upstream>,
    fallback: Option<Box<Upstream>>,
    by_region: HashMap<String, Upstream>,
    pinned: [Option<Upstream>; 2],
    access: Vec<Access>,
    pools: Vec<Pool<u8>>,
    renamed: Option<Renamed>,
    redaction_applied: bool,
}

fn upstreams() -> Upstreams {
    Upstreams {
        items: Vec::new(),
        queue: VecDeque::new(),
        fallback: None,
        by_region: HashMap::new(),
        pinned: [None, None],
        access: vec![Access::Open { r#type: "public".into() }, Access::Nobody],
        pools: Vec::new(),
        renamed: None,
        redaction_applied: false,
    }
}

fn redaction_applied(value: &Upstreams) -> bool {
    let result = mcp_result::build_result(value);
    result.structured_content.unwrap()["redactionApplied"] == serde_json::json!(true)
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

    assert!(!redaction_applied(&upstreams()));
    let filled: [fn(&mut Upstreams); 8] = [
        |u| u.items.push(upstream()),
        |u| u.queue.push_back(upstream()),
        |u| u.fallback = Some(Box::new(upstream())),
        |u| drop(u.by_region.insert("eu".into(), upstream())),
        |u| u.pinned[1] = Some(upstream()),
        |u| u.access.push(Access::Keyed(Keyed("k".into(), Secret::new("s".into())))),
        |u| u.pools.push(Pool { members: vec![1], pool_key: Secret::new("p".into()) }),
        |u| u.renamed = Some(Renamed { key: Secret::new("r".into()) }),
    ];
    for fill in filled {
        let mut value = upstreams();
        fill(&mut value);
        assert!(redaction_applied(&value));
    }
    assert!(upstream().withholds_secrets());
    assert!(!Access::Nobody.withholds_secrets());

    let args: LoginArgs = serde_json::from_str(r#"{"user": "u", "password": "p"}"#).unwrap();
    assert_eq!(args.password.expose(), "p");
    let _ = args.user;
}
