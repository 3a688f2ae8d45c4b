//! One-shot queries.

use super::client::Client;
use crate::error::{Error, Result};
use crate::options::Options;
use crate::protocol::{Message, UserInput};
use futures_core::Stream;

enum State {
    Start(Box<(UserInput, Options)>),
    Running(Client),
    Finish(Client),
    Done,
}

/// Ask once: start the CLI, send `prompt`, stream the turn's messages, and
/// end after the `result` with the process closed gracefully.
///
/// ```no_run
/// # async fn demo() -> claudio::Result<()> {
/// use claudio::{query, Message, Options, StreamExt};
/// let mut answer = std::pin::pin!(query("Say hi", Options::default()));
/// while let Some(msg) = answer.next().await {
///     if let Message::Result(r) = msg? {
///         println!("{}", r.result.unwrap_or_default());
///     }
/// }
/// # Ok(()) }
/// ```
pub fn query(
    prompt: impl Into<UserInput>,
    options: Options,
) -> impl Stream<Item = Result<Message>> + Send + 'static {
    let start = State::Start(Box::new((prompt.into(), options)));
    futures_util::stream::unfold(start, |state| async move {
        match state {
            State::Start(b) => {
                let (prompt, options) = *b;
                let client = match Client::connect(options).await {
                    Ok(c) => c,
                    Err(e) => return Some((Err(e), State::Done)),
                };
                if let Err(e) = client.send(prompt).await {
                    return Some((Err(e), State::Finish(client)));
                }
                step(client).await
            }
            State::Running(client) => step(client).await,
            State::Finish(client) => {
                let _ = client.close().await;
                None
            }
            State::Done => None,
        }
    })
}

async fn step(client: Client) -> Option<(Result<Message>, State)> {
    match client.next_message().await {
        None => {
            let _ = client.close().await;
            None
        }
        Some(Ok(m)) if m.is_result() => Some((Ok(m), State::Finish(client))),
        Some(Err(e)) if !matches!(e, Error::LineTooLong { .. }) => {
            Some((Err(e), State::Finish(client)))
        }
        Some(item) => Some((item, State::Running(client))),
    }
}
