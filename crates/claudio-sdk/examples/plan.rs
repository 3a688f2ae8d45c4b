//! Plan mode: the model proposes a plan (`ExitPlanMode`), the program shows
//! it and approves it with a mode change, so the edits that follow are
//! accepted without asking (`CanUseToolRequest::approve_plan`). The plan is
//! approved as proposed, so the model is not told it was edited; a program
//! that lets the person change it passes the changed text instead of `None`.
//!
//! `cargo run --example plan -- "Plan a README for this directory, then write it."`

use claudio::protocol::ask::RequestKind;
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
            // the request's input is empty unless the model wrote a plan
            // file: the session hands over the plan of its tool_use block
            println!(
                "--- the plan ---\n{}\n----------------",
                req.plan().unwrap_or("(none)")
            );
            // approve it unedited; the edits that follow need no more asking
            Ok(req.approve_plan(PermissionMode::AcceptEdits, None))
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
