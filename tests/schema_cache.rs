//! Schemas are generated once per type and served from the cache afterwards: proven with
//! the generation counter, not with timings. (Its own test binary, so no other test
//! generates schemas concurrently.)

use std::sync::Arc;

use mcp_result::{mcp_tools, schema, ToolResult, ToolSet};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Rows.
#[derive(Serialize, JsonSchema, ToolResult)]
struct Rows {
    rows: Vec<u32>,
}

#[derive(Deserialize, JsonSchema)]
struct Page {
    page: u32,
}

#[derive(Clone)]
struct Server;

#[mcp_tools]
impl Server {
    /// Lists rows.
    #[mcp_tool(read_only)]
    fn rows(&self, page: Page) -> Rows {
        Rows {
            rows: vec![page.page],
        }
    }

    /// Lists the same rows again.
    #[mcp_tool(read_only)]
    fn rows_again(&self) -> Rows {
        Rows { rows: vec![] }
    }
}

#[test]
fn schemas_are_generated_once_then_cloned() {
    let router = Server::tool_registry().expect("router builds");
    let after_build = schema::generation_count();
    // Rows, Page and the ToolError envelope: each generated once, although Rows is used twice.
    assert!(after_build >= 3, "{after_build}");
    let first = router.tools().to_vec();
    for _ in 0..1_000 {
        let again = Server::tool_registry().unwrap().tools().to_vec();
        for (a, b) in first.iter().zip(&again) {
            assert!(Arc::ptr_eq(
                a.output_schema.as_ref().unwrap(),
                b.output_schema.as_ref().unwrap()
            ));
            assert!(Arc::ptr_eq(&a.input_schema, &b.input_schema));
        }
    }
    assert!(Arc::ptr_eq(&Rows::output_schema(), &Rows::output_schema()));
    assert_eq!(
        schema::generation_count(),
        after_build,
        "a cached schema was generated again"
    );
}
