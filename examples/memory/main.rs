//! The MCP reference *memory* server (npm `@modelcontextprotocol/server-memory` 2026.8.31)
//! ported to mcp-result: a knowledge graph of entities, their observations and the
//! relations between them, kept in a JSON Lines file, served over stdio.
//!
//! `cargo run --example memory` serves it. The file is `MEMORY_FILE_PATH` (a relative path
//! is taken from the binary's directory, as the reference takes it from its script's), else
//! `memory.jsonl` beside the binary (where a `memory.json` of older versions is moved to
//! first, as the reference does). The same calls give the same files, byte for byte, and
//! either server reads the other's.
//!
//! The same nine tools with the same arguments; what the port answers differently, and why,
//! is in `DIFFERENCES.md` beside this file (`tests/memory_parity.rs` drives both servers
//! with the same calls and holds it to that list). In short: every write answers its
//! `status`, `retrySafe` and `auditEventId` and is audited; a retry with the same
//! idempotency key (`_meta` `io.github.mcp-result/idempotencyKey`) gets the first answer
//! and changes nothing; and a delete that would delete something asks a person first (a
//! client with form elicitation asks its user during the call; with the feature
//! `approvals-page`, `MEMORY_APPROVALS_PAGE=127.0.0.1:0` serves the approvals page beside
//! stdio for clients without it).
//!
//! `graph.rs` is the graph and its file (the reference's `KnowledgeGraphManager`),
//! `tools.rs` the tools and the graph's resource.

mod graph;
pub mod tools;

use std::path::{Path, PathBuf};

use crate::{graph::GraphFile, tools::Memory};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let path = memory_file_path()?;
    let state = mcp_result::State::new();
    #[cfg(feature = "approvals-page")]
    let state = match std::env::var("MEMORY_APPROVALS_PAGE") {
        Ok(address) => state.with_local_approvals_page(address),
        Err(_) => state,
    };
    eprintln!("Knowledge graph in {}", path.display());
    mcp_result::serve_stdio_with_state(Memory::new(GraphFile::new(path)), state).await
}

/// `MEMORY_FILE_PATH` from the binary's directory, or `memory.jsonl` there, after moving a
/// legacy `memory.json` to it if only that one exists.
fn memory_file_path() -> std::io::Result<PathBuf> {
    let exe = std::env::current_exe()?;
    let here = exe.parent().unwrap_or(Path::new("."));
    match std::env::var_os("MEMORY_FILE_PATH") {
        Some(path) if !path.is_empty() => return Ok(here.join(path)),
        _ => {}
    }
    let (old, new) = (here.join("memory.json"), here.join("memory.jsonl"));
    if old.exists() && !new.exists() {
        eprintln!("DETECTED: Found legacy memory.json file, migrating to memory.jsonl for JSONL format compatibility");
        std::fs::rename(&old, &new)?;
        eprintln!("COMPLETED: Successfully migrated memory.json to memory.jsonl");
    }
    Ok(new)
}
