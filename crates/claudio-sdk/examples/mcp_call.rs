//! A tool of an MCP server called directly, without a model turn: the
//! server's state first, then the call, with a failed tool told from the
//! CLI refusing the call.
//!
//! `cargo run --example mcp_call -- SERVER_COMMAND TOOL [ARGUMENTS_JSON]`
//!
//! With the test server of this repository (`cargo build --example mcp-echo`;
//! `MCP_ECHO_FAILING=1` gives it its failing tools, and the CLI passes its
//! environment on to the servers it starts):
//! - `... -- target/debug/examples/mcp-echo echo '{"text": "hi"}'` prints `echo: hi`;
//! - `MCP_ECHO_FAILING=1 cargo run ... -- target/debug/examples/mcp-echo fail '{"text": "hi"}'`:
//!   the tool fails;
//! - `... -- target/debug/examples/mcp-echo nosuch`: the server answers an error;
//! - `... -- /nonexistent/server x`: the CLI does not call it.

use claudio::{Client, Error, Options};
use serde_json::{json, Value};
use std::time::Duration;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(command), Some(tool)) = (args.next(), args.next()) else {
        eprintln!("usage: mcp_call SERVER_COMMAND TOOL [ARGUMENTS_JSON]");
        std::process::exit(2);
    };
    let arguments: Value = match args.next() {
        Some(text) => serde_json::from_str(&text)?,
        None => json!({}),
    };
    // the server is named `demo`: its tools are `mcp__demo__TOOL`
    let config = json!({"mcpServers": {"demo": {"type": "stdio", "command": command}}});
    let client = Client::connect(Options::default().mcp_config(config.to_string())).await?;

    // a server starts `pending`: wait until it is connected (or failed);
    // `mcp_call` would wait for it too, but its state is shown first
    for s in client.mcp_wait(Duration::from_secs(30)).await?.servers {
        println!("{}: {}", s.name, s.status);
    }
    // with `mcp_call_soft_error_result_v1` a failed tool is a result with
    // `is_error`; an older CLI says it with `Error::McpToolFailed`
    let soft = client
        .server_info()
        .capabilities
        .has("mcp_call_soft_error_result_v1");
    println!("failed tools come back as results: {soft}");

    let name = format!("mcp__demo__{tool}");
    let outcome = match client.mcp_call(&name, arguments).await {
        Ok(r) if !r.is_error => {
            println!("{}", r.text());
            if let Some(data) = &r.structured_content {
                println!("structured: {data}");
            }
            Ok(())
        }
        Ok(r) => {
            println!("the tool failed: {}", r.text());
            Ok(())
        }
        Err(Error::McpToolFailed { message, .. }) => {
            println!("the tool failed: {message}");
            Ok(())
        }
        // not called: the server is not connected, the name is wrong, ...
        Err(Error::Control { message, .. }) => {
            println!("the CLI did not call {name}: {message}");
            Ok(())
        }
        Err(e) => Err(e),
    };
    client.close().await?;
    Ok(outcome?)
}
