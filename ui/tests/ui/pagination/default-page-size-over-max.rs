use mcp_result::{
    mcp_tools,
    pagination::{Page, PagePolicy, Pager},
};

/// Pages of 500 by default, but at most 100 per page.
enum Wide {}

impl PagePolicy for Wide {
    const DEFAULT_PAGE_SIZE: usize = 500;
    const MAX_PAGE_SIZE: usize = 100;
}

#[derive(Clone)]
struct Server;

#[mcp_tools]
impl Server {
    /// Lists names, a page at a time.
    #[mcp_tool(read_only)]
    fn names(&self, pages: Pager<usize, Wide>) -> Page<String> {
        pages.page(Vec::new(), None, None)
    }
}

fn main() {}
