//! `mcp-echo`: a stdio MCP server for the real-CLI tests. One tool:
//! - `echo`: its `text` argument back, prefixed `echo: `, or by
//!   `$MCP_ECHO_PREFIX` when set, which shows the server got its `env`;
//!   with `structured: true` also as `structuredContent`.
//!
//! With `MCP_ECHO_FAILING=1` in its environment, two more:
//! - `fail`: a tool that fails: a result with `isError: true` and the text
//!   `failed: TEXT`;
//! - `broken`: a JSON-RPC error (`-32603`, `broken: TEXT`) instead of a
//!   result.
//!
//! Any other name gets a JSON-RPC error (`-32602`, `no tool "NAME"`).
//!
//! And one `ui://` resource (`ui://echo/page`, a line of HTML). JSON-RPC,
//! one message a line.

use serde_json::{json, Value};
use std::io::{self, BufRead, Write};

fn main() {
    let stdin = io::stdin();
    let mut out = io::stdout().lock();
    let prefix = std::env::var("MCP_ECHO_PREFIX").unwrap_or_else(|_| "echo: ".into());
    let failing = std::env::var("MCP_ECHO_FAILING").as_deref() == Ok("1");
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let Ok(msg) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let Some(id) = msg.get("id").cloned() else {
            continue; // a notification
        };
        let params = msg.get("params").cloned().unwrap_or(Value::Null);
        let result = match msg["method"].as_str().unwrap_or("") {
            "initialize" => json!({
                "protocolVersion": params["protocolVersion"].as_str().unwrap_or("2025-06-18"),
                "capabilities": {"tools": {}, "resources": {}},
                "serverInfo": {"name": "echo", "version": "1"}}),
            "tools/list" => {
                let schema = json!({"type": "object",
                    "properties": {"text": {"type": "string"}}, "required": ["text"]});
                let mut tools = vec![
                    json!({"name": "echo", "description": "echo text back", "inputSchema": schema}),
                ];
                if failing {
                    tools.push(json!({"name": "fail", "description": "always fails",
                        "inputSchema": schema}));
                    tools.push(
                        json!({"name": "broken", "description": "answers a JSON-RPC error",
                        "inputSchema": schema}),
                    );
                }
                json!({ "tools": tools })
            }
            "tools/call" if failing && params["name"] == "fail" => {
                let text = params["arguments"]["text"].as_str().unwrap_or("");
                json!({"content": [{"type": "text", "text": format!("failed: {text}")}],
                       "isError": true})
            }
            "tools/call" if params["name"] != "echo" => {
                let (code, message) = if failing && params["name"] == "broken" {
                    let text = params["arguments"]["text"].as_str().unwrap_or("");
                    (-32603, format!("broken: {text}"))
                } else {
                    (-32602, format!("no tool {}", params["name"]))
                };
                let e = json!({"jsonrpc": "2.0", "id": id,
                    "error": {"code": code, "message": message}});
                let _ = writeln!(out, "{e}");
                let _ = out.flush();
                continue;
            }
            "tools/call" => {
                let text = params["arguments"]["text"].as_str().unwrap_or("");
                let mut r =
                    json!({"content": [{"type": "text", "text": format!("{prefix}{text}")}]});
                if params["arguments"]["structured"] == true {
                    r["structuredContent"] = json!({"echoed": text});
                }
                r
            }
            "resources/list" => json!({"resources": [
                {"uri": "ui://echo/page", "name": "page", "mimeType": "text/html"}]}),
            "resources/read" => json!({"contents": [{"uri": params["uri"],
                "mimeType": "text/html", "text": "<p>echo</p>"}]}),
            "prompts/list" => json!({"prompts": []}),
            "resources/templates/list" => json!({"resourceTemplates": []}),
            other => {
                let e = json!({"jsonrpc": "2.0", "id": id,
                    "error": {"code": -32601, "message": format!("no method {other}")}});
                let _ = writeln!(out, "{e}");
                let _ = out.flush();
                continue;
            }
        };
        let reply = json!({"jsonrpc": "2.0", "id": id, "result": result});
        if writeln!(out, "{reply}").and_then(|_| out.flush()).is_err() {
            break;
        }
    }
}
