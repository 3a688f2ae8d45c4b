//! The scripted Messages API as a standalone server, for benchmarks and for
//! driving claudio (or the claude TUI) by hand against the real CLI, offline.
//! Prints its base URL.
//!
//! `cargo run --release --example mock-api [SCRIPT.json]`
//!
//! With no script, every conversation request gets a short text answer. A
//! script is a JSON array of replies, taken in order by the main
//! conversation's requests (then the short text again):
//!
//! ```json
//! [
//!   {"text": "Let me look.", "delay_ms": 40},
//!   {"bash": "ls -la"},
//!   {"tool": "Edit", "input": {"file_path": "a.py", "old_string": "x", "new_string": "y"}},
//!   {"tools": [{"tool": "Read", "input": {"file_path": "a.py"}}, {"bash": "true"}]},
//!   {"thinking": "Hmm.", "text": "Done."},
//!   {"fatal": "Your credit balance is too low"}
//! ]
//! ```
//!
//! `fatal` answers with an error the CLI shows at once, with no retry
//! (402 `billing_error`). `delay_ms` (any reply) sleeps before each streamed piece, to watch a
//! spinner or press Esc mid-answer.

use mock_api::{Block, Reply};
use serde_json::Value;
use std::time::Duration;

/// One reply of the script, or why it cannot be one.
fn reply(v: &Value) -> Result<Reply, String> {
    let Some(o) = v.as_object() else {
        return Err(format!("a reply must be an object, not {v}"));
    };
    let text = o.get("text").and_then(Value::as_str);
    if let Some(message) = o.get("fatal").and_then(Value::as_str) {
        return Ok(Reply::fatal(message));
    }
    let mut reply = if let Some(calls) = o.get("tools").and_then(Value::as_array) {
        let blocks = calls
            .iter()
            .map(block)
            .collect::<Result<Vec<Block>, String>>()?;
        Reply::blocks(blocks)
    } else if o.contains_key("bash") || o.contains_key("tool") {
        Reply::blocks(vec![block(v)?])
    } else if let Some(thinking) = o.get("thinking").and_then(Value::as_str) {
        Reply::thinking_then_text(thinking, text.unwrap_or(""))
    } else if let Some(text) = text {
        Reply::text(text)
    } else {
        return Err(format!(
            "a reply needs \"text\", \"bash\", \"tool\", \"tools\" or \"fatal\": {v}"
        ));
    };
    if let Some(ms) = o.get("delay_ms").and_then(Value::as_u64) {
        reply = reply.with_delay(Duration::from_millis(ms));
    }
    Ok(reply)
}

/// One tool call: `{"bash": cmd}` or `{"tool": name, "input": {...}}`.
fn block(v: &Value) -> Result<Block, String> {
    if let Some(cmd) = v.get("bash").and_then(Value::as_str) {
        let input = serde_json::json!({"command": cmd, "description": format!("Run: {cmd}")});
        return Ok(Block::tool_use("Bash", input));
    }
    match v.get("tool").and_then(Value::as_str) {
        Some(name) => Ok(Block::tool_use(
            name,
            v.get("input")
                .cloned()
                .unwrap_or(Value::Object(Default::default())),
        )),
        None => Err(format!("a tool call needs \"bash\" or \"tool\": {v}")),
    }
}

fn main() {
    let api = mock_api::MockApi::start();
    api.set_default_text("Hi! How can I help?");
    if let Some(path) = std::env::args_os().nth(1) {
        let script = std::fs::read(&path)
            .map_err(|e| e.to_string())
            .and_then(|b| serde_json::from_slice::<Vec<Value>>(&b).map_err(|e| e.to_string()))
            .and_then(|list| list.iter().map(reply).collect::<Result<Vec<_>, _>>());
        match script {
            Ok(replies) => {
                for r in replies {
                    api.push(r);
                }
            }
            Err(e) => {
                eprintln!("mock-api: {}: {e}", path.to_string_lossy());
                std::process::exit(2);
            }
        }
    }
    println!("{}", api.base_url());
    use std::io::Write;
    let _ = std::io::stdout().flush();
    loop {
        std::thread::park();
    }
}
