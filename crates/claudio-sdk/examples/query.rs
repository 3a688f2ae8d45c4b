//! One question, the answer streamed as it is written.
//!
//! `cargo run --example query -- "What is in this directory?"`

use claudio::{query, Message, Options, StreamExt};
use std::io::Write;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let prompt = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "Say hello".into());
    let options = Options::default()
        .include_partial_messages(true)
        .allowed_tools(["Read", "Glob", "Grep"]);
    let mut stream = query(prompt, options);
    let mut out = std::io::stdout();
    while let Some(message) = stream.next().await {
        match message? {
            Message::StreamEvent(e) => {
                if let Some(text) = e.text_delta() {
                    out.write_all(text.as_bytes())?;
                    out.flush()?;
                }
            }
            Message::Result(r) => {
                println!();
                eprintln!(
                    "[{} turn(s), ${:.4}]",
                    r.num_turns.unwrap_or(0),
                    r.total_cost_usd.unwrap_or(0.0)
                );
            }
            _ => {}
        }
    }
    Ok(())
}
