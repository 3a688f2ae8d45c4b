//! Plan mode: the model proposes a plan (`ExitPlanMode`), the program shows
//! it and approves it with a mode change, so the edits that follow are
//! accepted without asking ([`approve_plan`]).
//!
//! `cargo run --example plan -- "Plan a README for this directory, then write it."`

use claudio::protocol::ask::{approve_plan, plan_text, EXIT_PLAN_MODE};
use claudio::{Client, ContentBlock, Message, Options, PermissionMode, PermissionResult};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let prompt = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "Plan a README for this directory, then write it.".into());
    // The request's input is empty unless the CLI read a plan file: the plan
    // is then in the assistant's `tool_use` block, kept here by its id.
    let plans: Arc<Mutex<HashMap<String, String>>> = Arc::default();
    let seen = plans.clone();
    let options = Options::default()
        .permission_mode(PermissionMode::Plan)
        .can_use_tool(move |req, _ctx| {
            let plans = seen.clone();
            async move {
                if req.tool_name != EXIT_PLAN_MODE {
                    return Ok(PermissionResult::allow());
                }
                let from_block = req
                    .tool_use_id
                    .as_deref()
                    .and_then(|id| plans.lock().unwrap().get(id).cloned());
                let plan = plan_text(&req.input).map(str::to_owned).or(from_block);
                println!(
                    "--- the plan ---\n{}\n----------------",
                    plan.as_deref().unwrap_or("(none)")
                );
                // approve it; the edits that follow need no more asking
                Ok(approve_plan(
                    PermissionMode::AcceptEdits,
                    &req.input,
                    plan.as_deref(),
                ))
            }
        });
    let client = Client::connect(options).await?;
    client.send(prompt).await?;
    while let Some(m) = client.next_message().await {
        match m? {
            Message::Assistant(a) => {
                for b in &a.message.content {
                    match b {
                        ContentBlock::ToolUse(t) if t.name == EXIT_PLAN_MODE => {
                            if let Some(p) = plan_text(&t.input) {
                                plans.lock().unwrap().insert(t.id.clone(), p.to_owned());
                            }
                        }
                        ContentBlock::Text(t) => println!("{}", t.text),
                        _ => {}
                    }
                }
            }
            Message::Result(r) => {
                eprintln!("[{}]", r.subtype);
                break;
            }
            _ => {}
        }
    }
    client.close().await?;
    Ok(())
}
