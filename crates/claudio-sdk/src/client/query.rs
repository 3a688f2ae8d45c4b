//! One-shot queries.

use super::client::Client;
use super::events::Event;
use crate::error::{Error, Result};
use crate::options::Options;
use crate::protocol::Interrupted;
use crate::protocol::{Message, UserInput};
use futures_core::Stream;
use std::future::Future;
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

/// A one-shot query: a stream of the turn's messages (or, made by
/// [`query_events`], of its [`Event`]s) that also reaches the session
/// while it runs (as the TypeScript SDK's `Query`), to interrupt it or
/// change its model or mode. Made by [`query`].
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
pub struct Query<T = Message> {
    stream: Pin<Box<dyn Stream<Item = Result<T>> + Send>>,
    client: Slot,
}

impl<T> std::fmt::Debug for Query<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Query")
            .field("started", &self.client().is_some())
            .finish_non_exhaustive()
    }
}

impl<T> Query<T> {
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

impl<T> Stream for Query<T> {
    type Item = Result<T>;

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
    run(prompt.into(), options, step)
}

/// Ask once, as [`query`], with the turn's [`Event`]s rather than its
/// messages alone: the messages, the CLI's requests to answer (with
/// [`Options::requests_as_events`](crate::Options::requests_as_events)),
/// their withdrawal, and the turn's boundaries. The stream ends after
/// [`Event::TurnEnded`], with the process closed gracefully. What
/// [`Client::events`] gives a session, this gives a one-shot query, so
/// the same reader (a [`Progress`](crate::progress::Progress), a screen)
/// serves both.
///
/// ```no_run
/// # async fn demo() -> claudio::Result<()> {
/// use claudio::progress::Progress;
/// use claudio::{query_events, Event, Options, PermissionResult, StreamExt};
/// let options = Options::default().requests_as_events(true);
/// let mut events = query_events("Tidy the imports in src/", options);
/// let mut progress = Progress::default();
/// while let Some(event) = events.next().await {
///     let event = event?;
///     progress.observe_event(&event);
///     if let Event::Request(req) = &event {
///         let _ = req.responder().answer(PermissionResult::allow()).await;
///     }
/// }
/// println!("cost ${:.4}", progress.cost_usd().unwrap_or(0.0));
/// # Ok(()) }
/// ```
pub fn query_events(prompt: impl Into<UserInput>, options: Options) -> Query<Event> {
    run(prompt.into(), options, step_event)
}

/// The query's stream: start the session, send the prompt, then `step`
/// until it says the query is over.
fn run<T, F, Fut>(prompt: UserInput, options: Options, step: F) -> Query<T>
where
    T: Send + 'static,
    F: Fn(Arc<Client>) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Option<(Result<T>, State)>> + Send,
{
    let step = Arc::new(step);
    let client = Slot::default();
    let slot = client.clone();
    let start = State::Start(Box::new((prompt, options)));
    let stream = futures_util::stream::unfold(start, move |state| {
        let slot = slot.clone();
        let step = step.clone();
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

/// The next event of a [`query_events`]: the query is over after the
/// turn's end.
async fn step_event(client: Arc<Client>) -> Option<(Result<Event>, State)> {
    match client.next_event().await {
        None => {
            let _ = client.close().await;
            None
        }
        Some(Ok(Event::TurnEnded)) => Some((Ok(Event::TurnEnded), State::Finish(client))),
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
        unpin(&super::query_events("x", crate::Options::default()));
        // a compile-time check of the signatures, without a session
        #[allow(dead_code)]
        fn client_streams(c: &super::Client) {
            unpin(&c.receive_response());
            unpin(&c.receive_messages());
        }
    }
}
