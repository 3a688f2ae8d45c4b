//! A multi-turn session with a tool written in Rust, a hook, and a
//! permission policy.
//!
//! `cargo run --example tools`

use claudio::protocol::HookEvent;
use claudio::{
    Client, HookMatcher, HookOutput, McpServer, McpTool, Message, Options, PermissionResult,
    StreamExt, ToolOutput,
};
use serde_json::{json, Value};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // An in-process MCP server: the model calls it as `mcp__calc__add`.
    let calc = McpServer::new("calc").tool(McpTool::new(
        "add",
        "Add two numbers",
        json!({"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}),
        |args: Value| async move {
            let (a, b) = (args["a"].as_f64(), args["b"].as_f64());
            match (a, b) {
                (Some(a), Some(b)) => Ok(ToolOutput::text((a + b).to_string())),
                _ => Ok(ToolOutput::error("a and b must be numbers")),
            }
        },
    ));

    let options = Options::default()
        .mcp_server(calc)
        // Refuse `rm` before the permission check is even reached.
        .hook(
            HookEvent::PreToolUse,
            HookMatcher::new(Some("Bash"), |req, _ctx| async move {
                let input = req.hook_input();
                let tool_input = input.tool_input.unwrap_or_default();
                let cmd = tool_input["command"].as_str().unwrap_or("");
                Ok(if cmd.contains("rm ") {
                    HookOutput::deny_tool("deleting files is not allowed")
                } else {
                    HookOutput::proceed()
                })
            }),
        )
        // Everything else: our calculator yes, the rest no.
        .can_use_tool(|req, _ctx| async move {
            Ok(if req.tool_name.starts_with("mcp__calc__") {
                PermissionResult::allow()
            } else {
                PermissionResult::deny(format!("{} is not allowed in this example", req.tool_name))
            })
        });

    let client = Client::connect(options).await?;
    for prompt in ["Use the calc tool to add 2 and 40.", "Now add 1 to that."] {
        client.send(prompt).await?;
        let mut turn = std::pin::pin!(client.receive_response());
        while let Some(message) = turn.next().await {
            match message? {
                Message::Assistant(a) => {
                    let text = a.text();
                    if !text.is_empty() {
                        println!("{text}");
                    }
                }
                Message::Result(r) => eprintln!("[{}]", r.subtype),
                _ => {}
            }
        }
    }
    client.close().await?;
    Ok(())
}
