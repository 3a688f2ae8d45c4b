//! The model asks a question (`AskUserQuestion`); the program answers it.
//!
//! A plain `allow()` would tell the model that nobody answered: the answer
//! goes back with [`answer_questions`], keyed by the question's text. Here
//! the first option of each question is chosen; a real program would ask a
//! person.
//!
//! `cargo run --example question -- "Ask me which database to use, then say why it fits."`

use claudio::protocol::ask::{answer_questions, questions, ASK_USER_QUESTION};
use claudio::{Client, Options, PermissionResult};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let prompt = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "Ask me which database to use, then say why it fits.".into());
    let options = Options::default().can_use_tool(|req, _ctx| async move {
        if req.tool_name != ASK_USER_QUESTION {
            return Ok(PermissionResult::deny(
                "this example only answers questions",
            ));
        }
        let Some(qs) = questions(&req.input) else {
            return Ok(PermissionResult::deny("the questions could not be read"));
        };
        let mut answers = Vec::new();
        for q in &qs {
            println!("? {}", q.question);
            for o in &q.options {
                println!("  - {}: {}", o.label, o.description);
            }
            let choice = q
                .options
                .first()
                .map(|o| o.label.clone())
                .unwrap_or_default();
            println!("  → {choice}");
            answers.push((q.question.as_str(), choice));
        }
        Ok(answer_questions(&req.input, answers))
    });
    let client = Client::connect(options).await?;
    let turn = client.turn(prompt).await?;
    println!("{}", turn.text());
    client.close().await?;
    Ok(())
}
