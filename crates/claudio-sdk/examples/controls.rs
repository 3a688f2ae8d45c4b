//! A session steered from the host between turns: the settings read and
//! changed, the model switched, and every line the CLI sends between turns
//! read as a typed message (not `Message::Unknown`). Then the session is
//! looked up in the transcript store by its id.
//!
//! `cargo run --example controls -- "Name three prime numbers."`

use claudio::protocol::CommandState;
use claudio::store::Store;
use claudio::{Client, Message, Options, SystemMessage, UserInput};
use serde_json::json;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let prompt = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "Name three prime numbers.".into());
    let client = Client::connect(Options::default()).await?;

    // what the session runs with, and a change for the next request
    let settings = client.get_settings().await?;
    println!(
        "model {:?}, effort {:?}, {} settings layers",
        settings.applied.model,
        settings.applied.effort,
        settings.sources.len()
    );
    client
        .apply_flag_settings(json!({"effortLevel": "low"}))
        .await?;

    let first = client.turn(prompt.as_str()).await?;
    println!("{}", first.text());

    // between turns: a model switch, and a prompt with an id of its own
    client.set_model(Some("haiku")).await?;
    let id = claudio::store::new_uuid();
    let turn = client
        .turn(UserInput::from("And the next one?").uuid(&id))
        .await?;
    for m in &turn.messages {
        match m {
            Message::User(u) => {
                if let Some(out) = u.local_command_stdout() {
                    println!("[the CLI: {out}]");
                }
            }
            Message::CommandLifecycle(c) if c.state == CommandState::Started => {
                println!(
                    "[prompt {} started]",
                    c.command_uuid.as_deref().unwrap_or("?")
                );
            }
            Message::System(s) => {
                if let SystemMessage::Init(init) = &**s {
                    println!("[model {:?}, mode {:?}]", init.model, init.permission_mode);
                }
            }
            _ => {}
        }
    }
    println!("{}", turn.text());
    let session = client.session_id();
    client.close().await?;

    // the transcript, by the same id the CLI reported
    if let Some(session) = session {
        let info = Store::from_env()?.info(&session)?;
        println!("stored as {:?} ({})", info.summary, info.session_id);
    }
    Ok(())
}
