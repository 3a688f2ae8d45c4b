//! Plan mode: the model proposes a plan (`ExitPlanMode`), the program shows
//! it and approves it with a mode change, so the edits that follow are
//! accepted without asking ([`approve_plan`]).
//!
//! `cargo run --example plan -- "Plan a README for this directory, then write it."`

use claudio::protocol::ask::{approve_plan, RequestKind};
use claudio::{Client, ContentBlock, Message, Options, PermissionMode, PermissionResult};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let prompt = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "Plan a README for this directory, then write it.".into());
    let options = Options::default()
        .permission_mode(PermissionMode::Plan)
        .can_use_tool(move |req, _ctx| async move {
            if req.kind() != RequestKind::Plan {
                return Ok(PermissionResult::allow());
            }
            // the request's input is empty: the session hands over the plan
            // the model wrote in its tool_use block
            let plan = req.plan().map(str::to_owned);
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
        });
    let client = Client::connect(options).await?;
    client.send(prompt).await?;
    while let Some(m) = client.next_message().await {
        match m? {
            Message::Assistant(a) => {
                for b in &a.message.content {
                    if let ContentBlock::Text(t) = b {
                        println!("{}", t.text);
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
