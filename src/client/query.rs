//! One-shot queries.

use super::client::Client;
use crate::error::{Error, Result};
use crate::options::Options;
use crate::protocol::Interrupted;
use crate::protocol::{Message, UserInput};
use futures_core::Stream;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

enum State {
    Start(Box<(UserInput, Options)>),
    Running(Arc<Client>),
    Finish(Arc<Client>),
    Done,
}

/// The session a [`Query`] runs, once it has started.
type Slot = Arc<Mutex<Option<Arc<Client>>>>;

/// A one-shot query: a stream of the turn's messages that also reaches the
/// session while it runs (as the TypeScript SDK's `Query`), to interrupt it
/// or change its model or mode. Made by [`query`].
///
/// ```no_run
/// # async fn demo() -> claudio::Result<()> {
/// use claudio::{query, Options, StreamExt};
/// // a `Stream`: the stream toolkit's adapters work on it
/// let answer: Vec<String> = query("Name three primes", Options::default())
///     .filter_map(|m| async move { m.ok()?.as_result()?.result.clone() })
///     .collect()
///     .await;
/// println!("{}", answer.concat());
/// # Ok(()) }
/// ```
pub struct Query {
    stream: Pin<Box<dyn Stream<Item = Result<Message>> + Send>>,
    client: Slot,
}

impl std::fmt::Debug for Query {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Query")
            .field("started", &self.client().is_some())
            .finish_non_exhaustive()
    }
}

impl Query {
    /// The session, once the CLI has started (after the stream's first
    /// poll); `None` before, and after the query ended.
    ///
    /// ```no_run
    /// # async fn demo() -> claudio::Result<()> {
    /// use claudio::{query, Options, PermissionMode, StreamExt};
    /// let mut q = query("Plan a refactor of src/", Options::default());
    /// let first = q.next().await; // starts the session
    /// if let Some(client) = q.client() {
    ///     client.set_permission_mode(PermissionMode::Plan).await?;
    /// }
    /// # let _ = first; Ok(()) }
    /// ```
    pub fn client(&self) -> Option<Arc<Client>> {
        self.client
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Stop the turn. The stream still ends with its `result`
    /// (`terminal_reason` `aborted_streaming`). Before the session has
    /// started, or after it ended, this is [`Error::Closed`].
    ///
    /// ```no_run
    /// # async fn demo() -> claudio::Result<()> {
    /// use claudio::{query, Options, StreamExt};
    /// let mut q = query("Count to ten thousand", Options::default());
    /// let mut stopped = false;
    /// while let Some(msg) = q.next().await {
    ///     if msg?.as_assistant().is_some() && !stopped {
    ///         q.interrupt().await?; // enough; the stream still ends with the result
    ///         stopped = true;
    ///     }
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn interrupt(&self) -> Result<Interrupted> {
        match self.client() {
            Some(c) => c.interrupt().await,
            None => Err(Error::Closed),
        }
    }
}

impl Stream for Query {
    type Item = Result<Message>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.stream.as_mut().poll_next(cx)
    }
}

/// Ask once: start the CLI, send `prompt`, stream the turn's messages, and
/// end after the `result` with the process closed gracefully.
///
/// ```no_run
/// # async fn demo() -> claudio::Result<()> {
/// use claudio::{query, Message, Options, StreamExt};
/// let mut answer = query("Say hi", Options::default());
/// while let Some(msg) = answer.next().await {
///     if let Message::Result(r) = msg? {
///         println!("{}", r.result.unwrap_or_default());
///     }
/// }
/// # Ok(()) }
/// ```
///
/// The query can be interrupted from another task while it is read:
///
/// ```no_run
/// # async fn demo() -> claudio::Result<()> {
/// use claudio::{query, Options, StreamExt};
/// use std::time::Duration;
/// let mut answer = query("Write a long story", Options::default());
/// let first = answer.next().await; // the session is running now
/// let client = answer.client().expect("started");
/// tokio::spawn(async move {
///     tokio::time::sleep(Duration::from_secs(5)).await;
///     let _ = client.interrupt().await;
/// });
/// while let Some(msg) = answer.next().await {
///     let _ = msg?;
/// }
/// # let _ = first; Ok(()) }
/// ```
pub fn query(prompt: impl Into<UserInput>, options: Options) -> Query {
    let client = Slot::default();
    let slot = client.clone();
    let start = State::Start(Box::new((prompt.into(), options)));
    let stream = futures_util::stream::unfold(start, move |state| {
        let slot = slot.clone();
        async move {
            match state {
                State::Start(b) => {
                    let (prompt, options) = *b;
                    let client = match Client::connect(options).await {
                        Ok(c) => Arc::new(c),
                        Err(e) => return Some((Err(e), State::Done)),
                    };
                    *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(client.clone());
                    if let Err(e) = client.send(prompt).await {
                        return Some((Err(e), State::Finish(client)));
                    }
                    step(client).await
                }
                State::Running(client) => step(client).await,
                State::Finish(client) => {
                    slot.lock().unwrap_or_else(|e| e.into_inner()).take();
                    let _ = client.close().await;
                    None
                }
                State::Done => None,
            }
        }
    });
    Query {
        stream: Box::pin(stream),
        client,
    }
}

async fn step(client: Arc<Client>) -> Option<(Result<Message>, State)> {
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

#[cfg(test)]
mod unpin_tests {
    /// `query()` and the client's streams are `Unpin`: `.next()` works on
    /// them as they come, as iterating does in TypeScript and Python.
    #[test]
    fn the_streams_need_no_pin() {
        fn unpin<T: Unpin + Send>(_: &T) {}
        unpin(&super::query("x", crate::Options::default()));
        // a compile-time check of the signatures, without a session
        #[allow(dead_code)]
        fn client_streams(c: &super::Client) {
            unpin(&c.receive_response());
            unpin(&c.receive_messages());
        }
    }
}
