//! `mcp-echo`: a stdio MCP server for the real-CLI tests. One tool, `echo`
//! (its `text` argument back, prefixed `echo: `, or by `$MCP_ECHO_PREFIX`
//! when set, which shows the server got its `env`; with `structured: true`
//! also as `structuredContent`), and one `ui://` resource
//! (`ui://echo/page`, a line of HTML). JSON-RPC, one message a line.

use serde_json::{json, Value};
use std::io::{self, BufRead, Write};

fn main() {
    let stdin = io::stdin();
    let mut out = io::stdout().lock();
    let prefix = std::env::var("MCP_ECHO_PREFIX").unwrap_or_else(|_| "echo: ".into());
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
            "tools/list" => json!({"tools": [{"name": "echo", "description": "echo text back",
                "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}},
                                "required": ["text"]}}]}),
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
