//! One ordered stream of what happens in a session: the messages, the
//! CLI's requests with a handle to answer them, their withdrawal, and the
//! turns' boundaries ([`Client::events`](crate::Client::events)).
//!
//! Every request the CLI sends is answered through one path, a
//! [`Responder`]: a callback registered in [`Options`](crate::Options) is
//! one holder of it, the [`Event::Request`] in the stream another, and the
//! first answer wins.

use crate::error::{HandlerError, Result};
use crate::handlers::{BoxFuture, Cancellation};
use crate::protocol::{
    error_response, success_response, CanUseToolRequest, HookOutput, Message, PermissionResult,
};
use serde_json::Value;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, Weak};
use tokio::sync::Notify;
use tokio::task::AbortHandle;

/// A message as it came off the wire.
pub(crate) struct Incoming {
    pub(crate) message: Message,
    pub(crate) raw: Option<Box<[u8]>>,
}

/// What the queue to the caller holds: the messages, and the session's
/// other events in their place among them.
// Transient, one per item: boxing the message would only add an allocation.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Queued {
    Message(Incoming),
    Event(Event),
}

/// What happens in a session, in the order the CLI wrote it.
///
/// Read with [`Client::events`](crate::Client::events) or
/// [`Client::next_event`](crate::Client::next_event). Events come through
/// the same queue as the messages (the same backpressure): a request comes
/// exactly between the messages it came between on the wire.
///
/// ```no_run
/// # async fn demo() -> claudio::Result<()> {
/// use claudio::{Client, Event, Options, PermissionResult, StreamExt};
/// // the CLI asks before tools, and the requests come as events
/// let client = Client::connect(Options::default().requests_as_events(true)).await?;
/// client.send("Delete the build folder").await?;
/// let mut events = client.events();
/// while let Some(event) = events.next().await {
///     match event? {
///         Event::Message(m) => println!("{}", m.kind()),
///         Event::Request(req) => {
///             if let Some(tool) = req.can_use_tool() {
///                 println!("{} wants to run", tool.tool_name);
///             }
///             // any clone of the responder may answer, from any task
///             let _ = req.responder().answer(PermissionResult::deny("not now")).await;
///         }
///         Event::Withdrawn { request_id } => println!("{request_id} went away"),
///         Event::TurnEnded => break,
///         _ => {}
///     }
/// }
/// # Ok(()) }
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum Event {
    /// A message from the CLI.
    Message(Message),
    /// A request from the CLI, to be answered through its [`Responder`].
    Request(Box<Request>),
    /// The CLI withdrew a request that was still waiting
    /// (`control_cancel_request`); its responder now says
    /// [`AnswerError::Withdrawn`].
    Withdrawn {
        /// The id of the request, as [`Request::request_id`] had it.
        request_id: String,
    },
    /// A prompt was sent ([`Client::send`](crate::Client::send)): what
    /// follows is its turn.
    TurnStarted,
    /// A turn ended: comes right after each [`Message::Result`], also for
    /// the turns the CLI starts by itself (a background agent's report),
    /// which have no [`Event::TurnStarted`].
    ///
    /// A prompt sent while a turn runs (with no
    /// [`priority`](crate::UserInput::priority), or `next`) may be taken
    /// into that turn: the CLI reads it after a tool's result and answers
    /// both with one `result`. Each prompt still has its `TurnEnded`: they
    /// come one after the other after that `result`, so every
    /// [`Event::TurnStarted`] has its end. (The library knows which turn
    /// took a prompt from the CLI's `command_lifecycle` lines; it gives
    /// each prompt sent without a [`uuid`](crate::UserInput::uuid) one of
    /// its own for that, and keeps those lines to itself.)
    TurnEnded,
}

/// What a request asks.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum RequestBody {
    /// May a tool run (`can_use_tool`)? Also the model's questions and
    /// plans: see [`CanUseToolRequest::kind`].
    CanUseTool(Box<CanUseToolRequest>),
    /// A request claudio does not model (e.g. `elicitation`), as sent.
    /// Answered with [`Answer::Value`] or [`Answer::Error`].
    Other {
        /// Its `subtype`.
        subtype: String,
        /// The whole request object.
        request: Value,
    },
}

/// A request from the CLI, with the handle to answer it.
#[derive(Debug, Clone)]
pub struct Request {
    pub(crate) body: RequestBody,
    pub(crate) handled: bool,
    pub(crate) responder: Responder,
}

impl Request {
    /// The CLI's id for the request.
    pub fn request_id(&self) -> &str {
        self.responder.request_id()
    }

    /// What it asks.
    pub fn body(&self) -> &RequestBody {
        &self.body
    }

    /// The tool approval (question, plan), if it is one.
    pub fn can_use_tool(&self) -> Option<&CanUseToolRequest> {
        match &self.body {
            RequestBody::CanUseTool(r) => Some(&**r),
            RequestBody::Other { .. } => None,
        }
    }

    /// Whether a callback registered in the options
    /// ([`Options::can_use_tool`](crate::Options::can_use_tool)) answers it
    /// too: then it is shown here for reading, and whoever answers first
    /// wins.
    pub fn handled_by_callback(&self) -> bool {
        self.handled
    }

    /// The handle to answer it (clone it to answer from elsewhere).
    pub fn responder(&self) -> &Responder {
        &self.responder
    }

    /// The request as its parts.
    pub fn into_parts(self) -> (RequestBody, Responder) {
        (self.body, self.responder)
    }
}

/// An answer to a request.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Answer {
    /// To a `can_use_tool` request.
    Permission(PermissionResult),
    /// To a hook callback.
    Hook(HookOutput),
    /// A success carrying this payload, as sent (any request).
    Value(Value),
    /// An error answer with this message (any request).
    Error(String),
}

impl From<PermissionResult> for Answer {
    fn from(p: PermissionResult) -> Answer {
        Answer::Permission(p)
    }
}

impl From<HookOutput> for Answer {
    fn from(h: HookOutput) -> Answer {
        Answer::Hook(h)
    }
}

/// Why an answer was not taken.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AnswerError {
    /// Another holder answered first (or no one did, and the last handle
    /// was dropped: see [`Responder`]).
    #[error("the request was already answered")]
    AlreadyAnswered,
    /// The CLI withdrew the request.
    #[error("the CLI withdrew the request")]
    Withdrawn,
    /// The session ended: nothing reaches the CLI any more.
    #[error("the session is closed")]
    Closed,
    /// The answer does not fit the request (a permission answer to a
    /// request that is no tool approval, ...). Nothing was sent; the
    /// request still waits.
    #[error("a {answer} answer does not fit a `{request}` request")]
    WrongKind {
        /// The request's subtype.
        request: String,
        /// The answer's kind.
        answer: &'static str,
    },
}

/// Where a request stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RequestState {
    /// Waiting for an answer.
    Pending,
    /// Answered (by a holder, or by the default when every handle was
    /// dropped unanswered).
    Answered,
    /// The CLI withdrew it.
    Withdrawn,
    /// The session ended before an answer.
    Closed,
}

const PENDING: u8 = 0;
const ANSWERED: u8 = 1;
const WITHDRAWN: u8 = 2;
const CLOSED: u8 = 3;

fn state_of(v: u8) -> RequestState {
    match v {
        PENDING => RequestState::Pending,
        ANSWERED => RequestState::Answered,
        WITHDRAWN => RequestState::Withdrawn,
        _ => RequestState::Closed,
    }
}

/// Where answers go: the session (or a test's recorder).
pub(crate) trait Deliver: Send + Sync + 'static {
    /// Write one control response line to the CLI.
    fn deliver(self: Arc<Self>, line: Value) -> BoxFuture<Result<()>>;
    /// The request `token` is settled (answered, withdrawn or closed).
    fn settled(&self, token: u64);
}

/// The kind of request a slot is for (which answers fit it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Permission,
    Hook,
    Other,
}

/// One request's shared state: every [`Responder`] and the router point at it.
pub(crate) struct Slot {
    request_id: String,
    subtype: String,
    kind: Kind,
    /// The request's input, echoed by an allow without a changed input.
    input: Value,
    /// What the request gets when every handle is dropped unanswered.
    default: Answer,
    state: AtomicU8,
    notify: Notify,
    token: u64,
    sink: Weak<dyn Deliver>,
    runtime: Option<tokio::runtime::Handle>,
    pub(crate) cancellation: Cancellation,
    abort: Mutex<Option<AbortHandle>>,
}

impl std::fmt::Debug for Slot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Slot")
            .field("request_id", &self.request_id)
            .field("subtype", &self.subtype)
            .field("state", &self.state())
            .finish_non_exhaustive()
    }
}

/// The default answer when no one answers a tool approval.
pub(crate) const NO_ONE_ANSWERED: &str =
    "no one answered the permission request; the tool is not allowed";

impl Slot {
    pub(crate) fn new(
        request_id: String,
        subtype: String,
        kind: Kind,
        input: Value,
        default: Answer,
        token: u64,
        sink: Weak<dyn Deliver>,
    ) -> Arc<Slot> {
        Arc::new(Slot {
            request_id,
            subtype,
            kind,
            input,
            default,
            state: AtomicU8::new(PENDING),
            notify: Notify::new(),
            token,
            sink,
            runtime: tokio::runtime::Handle::try_current().ok(),
            cancellation: Cancellation::new(),
            abort: Mutex::new(None),
        })
    }

    pub(crate) fn request_id(&self) -> &str {
        &self.request_id
    }

    pub(crate) fn state(&self) -> RequestState {
        state_of(self.state.load(Ordering::SeqCst))
    }

    /// The task of the callback answering it, stopped once it is settled.
    pub(crate) fn set_abort(&self, abort: AbortHandle) {
        *self.abort.lock().unwrap_or_else(|e| e.into_inner()) = Some(abort);
        if self.state() != RequestState::Pending {
            self.stop_callback();
        }
    }

    fn stop_callback(&self) {
        if let Some(a) = self.abort.lock().unwrap_or_else(|e| e.into_inner()).take() {
            a.abort();
        }
    }

    /// Move from pending to `to`; the one caller that does so owns the
    /// request's end. Else the error for the state it is in.
    fn settle(&self, to: u8) -> std::result::Result<(), AnswerError> {
        match self
            .state
            .compare_exchange(PENDING, to, Ordering::SeqCst, Ordering::SeqCst)
        {
            Ok(_) => {
                // a callback still at work is told, then stopped
                self.cancellation.cancel();
                self.stop_callback();
                self.notify.notify_waiters();
                if let Some(sink) = self.sink.upgrade() {
                    sink.settled(self.token);
                }
                Ok(())
            }
            Err(ANSWERED) => Err(AnswerError::AlreadyAnswered),
            Err(WITHDRAWN) => Err(AnswerError::Withdrawn),
            Err(_) => Err(AnswerError::Closed),
        }
    }

    /// The CLI withdrew it: true if it was still waiting.
    pub(crate) fn withdraw(&self) -> bool {
        self.settle(WITHDRAWN).is_ok()
    }

    /// The session ended.
    pub(crate) fn close(&self) {
        let _ = self.settle(CLOSED);
    }

    /// The line for `answer`, or why it does not fit.
    fn line(&self, answer: &Answer) -> std::result::Result<Value, AnswerError> {
        let wrong = |what: &'static str| AnswerError::WrongKind {
            request: self.subtype.clone(),
            answer: what,
        };
        Ok(match answer {
            Answer::Permission(p) if self.kind == Kind::Permission => {
                success_response(&self.request_id, p.to_response(&self.input))
            }
            Answer::Permission(_) => return Err(wrong("permission")),
            Answer::Hook(h) if self.kind == Kind::Hook => {
                let v = serde_json::to_value(h).map_err(|_| wrong("hook"))?;
                success_response(&self.request_id, v)
            }
            Answer::Hook(_) => return Err(wrong("hook")),
            Answer::Value(v) => success_response(&self.request_id, v.clone()),
            Answer::Error(msg) => error_response(&self.request_id, msg),
        })
    }

    async fn send(&self, line: Value) -> std::result::Result<(), AnswerError> {
        let Some(sink) = self.sink.upgrade() else {
            return Err(AnswerError::Closed);
        };
        sink.deliver(line).await.map_err(|e| {
            tracing::debug!(error = %e, "could not answer a control request");
            AnswerError::Closed
        })
    }

    /// Answer: the first answer wins. Once it has won, the answer is
    /// written whatever becomes of the caller (a timeout around this
    /// call, an aborted task): the request says it is answered, so the
    /// CLI must get the answer, or it waits for ever.
    pub(crate) async fn answer(
        self: &Arc<Self>,
        answer: Answer,
    ) -> std::result::Result<(), AnswerError> {
        let line = self.line(&answer)?;
        self.settle(ANSWERED)?;
        let slot = self.clone();
        let write = async move { slot.send(line).await };
        let handle = match tokio::runtime::Handle::try_current()
            .ok()
            .or_else(|| self.runtime.clone())
        {
            Some(rt) => rt.spawn(write),
            None => return write.await,
        };
        handle.await.unwrap_or(Err(AnswerError::Closed))
    }

    /// Resolves once it is no longer pending.
    async fn settled(&self) -> RequestState {
        loop {
            let notified = self.notify.notified();
            let s = self.state();
            if s != RequestState::Pending {
                return s;
            }
            notified.await;
        }
    }
}

/// The handle to answer one request from the CLI.
///
/// `Clone` and `Send`: hand it to any task (a keyboard, a socket, a
/// program). Any holder may answer; the first answer wins, atomically, and
/// every later one gets [`AnswerError::AlreadyAnswered`]. A request the
/// CLI withdrew says [`AnswerError::Withdrawn`], one of a session that
/// ended [`AnswerError::Closed`].
///
/// **No holder left:** when the last handle is dropped and no one
/// answered, the request gets its default answer, so the CLI never waits
/// forever: a tool approval is denied with the message "no one answered
/// the permission request; the tool is not allowed" (never allowed), any
/// other request gets the error answer claudio has always given one it
/// does not handle. A handle dropped after the answer, or after the CLI
/// withdrew the request, sends nothing.
///
/// ```no_run
/// # async fn demo(req: claudio::Request) {
/// use claudio::{AnswerError, PermissionResult};
/// let other = req.responder().clone();
/// tokio::spawn(async move {
///     // a second holder: a person at another screen
///     let _ = other.answer(PermissionResult::allow()).await;
/// });
/// match req.responder().answer(PermissionResult::deny("no")).await {
///     Ok(()) => println!("denied"),
///     Err(AnswerError::AlreadyAnswered) => println!("the other one was first"),
///     Err(e) => println!("{e}"),
/// }
/// # }
/// ```
#[derive(Clone)]
pub struct Responder {
    holder: Arc<Holder>,
}

/// The one object every clone of a [`Responder`] shares: its drop is the
/// last handle's drop.
struct Holder {
    slot: Arc<Slot>,
}

impl Drop for Holder {
    fn drop(&mut self) {
        let slot = self.slot.clone();
        let Ok(line) = slot.line(&slot.default) else {
            return;
        };
        if slot.settle(ANSWERED).is_err() {
            return; // answered, withdrawn or closed: nothing to send
        }
        tracing::debug!(request_id = %slot.request_id, "no one answered a request; it gets its default answer");
        match slot.runtime.clone() {
            Some(rt) => {
                rt.spawn(async move {
                    let _ = slot.send(line).await;
                });
            }
            None => tracing::debug!("no runtime to send a default answer on"),
        }
    }
}

impl std::fmt::Debug for Responder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Responder")
            .field("request_id", &self.holder.slot.request_id)
            .field("state", &self.state())
            .finish()
    }
}

impl Responder {
    pub(crate) fn new(slot: Arc<Slot>) -> Responder {
        Responder {
            holder: Arc::new(Holder { slot }),
        }
    }

    /// The CLI's id for the request.
    pub fn request_id(&self) -> &str {
        &self.holder.slot.request_id
    }

    /// Answer the request: a [`PermissionResult`] for a tool approval, a
    /// [`HookOutput`] for a hook callback, or an [`Answer`]. Returns once
    /// the answer is written to the CLI.
    ///
    /// See [`Responder`] for an example.
    pub async fn answer(&self, answer: impl Into<Answer>) -> std::result::Result<(), AnswerError> {
        self.holder.slot.answer(answer.into()).await
    }

    /// Where the request stands now.
    pub fn state(&self) -> RequestState {
        self.holder.slot.state()
    }

    /// Whether it was answered, withdrawn or closed.
    pub fn is_settled(&self) -> bool {
        self.state() != RequestState::Pending
    }

    /// Resolves once the request is no longer pending, with how it ended:
    /// a screen clears its row when another holder answered, or the CLI
    /// withdrew it.
    ///
    /// ```no_run
    /// # async fn demo(req: claudio::Request) {
    /// let watch = req.responder().clone();
    /// tokio::spawn(async move {
    ///     let how = watch.settled().await;
    ///     println!("{} is gone: {how:?}", watch.request_id());
    /// });
    /// # }
    /// ```
    pub async fn settled(&self) -> RequestState {
        self.holder.slot.settled().await
    }

    /// Resolves once the request is no longer pending: true if the CLI
    /// withdrew it.
    pub async fn withdrawn(&self) -> bool {
        self.settled().await == RequestState::Withdrawn
    }

    /// Fires once the request is settled in any way (for a callback's
    /// [`RequestContext`](crate::RequestContext)).
    pub(crate) fn cancellation(&self) -> Cancellation {
        self.holder.slot.cancellation.clone()
    }
}

impl super::Client {
    /// The next event of the session, in order: messages, the CLI's
    /// requests, their withdrawal, the turns' starts and ends; `None` once
    /// the process has ended and everything was read.
    ///
    /// Events and messages come off one queue: reading events takes the
    /// messages too, and [`Client::next_message`](super::Client::next_message)
    /// passes over the other events (a request passed over by every reader
    /// gets its default answer, see [`Responder`]). Read the session one
    /// way at a time.
    ///
    /// See [`Event`] for an example.
    pub async fn next_event(&self) -> Option<Result<Event>> {
        Some(match self.shared().queue.pop().await? {
            Ok(Queued::Message(m)) => Ok(Event::Message(m.message)),
            Ok(Queued::Event(e)) => Ok(e),
            Err(e) => Err(e),
        })
    }

    /// Like [`Client::next_event`](Self::next_event), with a message's line as the CLI
    /// wrote it (without the `\n`): empty for the other events, and
    /// unless the client was made with
    /// [`Client::connect_keeping_raw`](super::Client::connect_keeping_raw).
    ///
    /// ```no_run
    /// # async fn demo() -> claudio::Result<()> {
    /// use claudio::{Client, Event, Options};
    /// let client = Client::connect_keeping_raw(Options::default().requests_as_events(true)).await?;
    /// client.send("Hello").await?;
    /// while let Some(next) = client.next_raw_event().await {
    ///     match next? {
    ///         (Event::Message(_), raw) => println!("{}", String::from_utf8_lossy(&raw)),
    ///         (Event::TurnEnded, _) => break,
    ///         _ => {}
    ///     }
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn next_raw_event(&self) -> Option<Result<(Event, Vec<u8>)>> {
        Some(match self.shared().queue.pop().await? {
            Ok(Queued::Message(m)) => Ok((
                Event::Message(m.message),
                m.raw.map(Vec::from).unwrap_or_default(),
            )),
            Ok(Queued::Event(e)) => Ok((e, Vec::new())),
            Err(e) => Err(e),
        })
    }

    /// Every event of the session, until the process ends: the stream of
    /// [`Client::next_event`](super::Client::next_event).
    ///
    /// The CLI asks for tool approvals when the options say so
    /// ([`Options::requests_as_events`](crate::Options::requests_as_events)
    /// or a callback, [`Options::can_use_tool`](crate::Options::can_use_tool)).
    /// Each comes as an [`Event::Request`] whether or not a callback is
    /// registered: with one, it answers it too
    /// ([`Request::handled_by_callback`]) and the first answer wins.
    /// Requests claudio does not model (e.g. `elicitation`) come here too.
    /// Hook callbacks and in-process MCP calls are answered by what the
    /// options registered, and do not come here.
    ///
    /// See [`Event`] for an example.
    pub fn events(&self) -> impl futures_core::Stream<Item = Result<Event>> + Unpin + Send + '_ {
        Box::pin(futures_util::stream::unfold((), move |()| async move {
            self.next_event().await.map(|e| (e, ()))
        }))
    }
}

/// A callback's outcome as an answer.
pub(crate) fn from_handler<T: Into<Answer>>(r: std::result::Result<T, HandlerError>) -> Answer {
    match r {
        Ok(a) => a.into(),
        Err(e) => Answer::Error(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Records every line "sent to the CLI".
    #[derive(Default)]
    struct Recorder {
        lines: Mutex<Vec<Value>>,
        settled: Mutex<Vec<u64>>,
        sent: Notify,
    }

    impl Deliver for Recorder {
        fn deliver(self: Arc<Self>, line: Value) -> BoxFuture<Result<()>> {
            Box::pin(async move {
                self.lines.lock().unwrap().push(line);
                self.sent.notify_waiters();
                Ok(())
            })
        }
        fn settled(&self, token: u64) {
            self.settled.lock().unwrap().push(token);
        }
    }

    impl Recorder {
        fn lines(&self) -> Vec<Value> {
            self.lines.lock().unwrap().clone()
        }
        async fn wait_lines(&self, n: usize) -> Vec<Value> {
            loop {
                let notified = self.sent.notified();
                if self.lines().len() >= n {
                    return self.lines();
                }
                notified.await;
            }
        }
    }

    fn permission(rec: &Arc<Recorder>) -> Responder {
        let sink: Arc<dyn Deliver> = rec.clone();
        permission_to(&sink)
    }

    /// A permission request whose answers go to `sink`.
    fn permission_to(sink: &Arc<dyn Deliver>) -> Responder {
        let slot = Slot::new(
            "perm-1".into(),
            "can_use_tool".into(),
            Kind::Permission,
            json!({"command":"ls"}),
            Answer::Permission(PermissionResult::deny(NO_ONE_ANSWERED)),
            7,
            Arc::downgrade(sink),
        );
        Responder::new(slot)
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_first_answer_wins_under_concurrency() {
        let rec = Arc::new(Recorder::default());
        let r = permission(&rec);
        let barrier = Arc::new(tokio::sync::Barrier::new(16));
        let tasks: Vec<_> = (0..16)
            .map(|i| {
                let r = r.clone();
                let b = barrier.clone();
                tokio::spawn(async move {
                    b.wait().await;
                    let answer = if i % 2 == 0 {
                        PermissionResult::allow()
                    } else {
                        PermissionResult::deny(format!("no {i}"))
                    };
                    r.answer(answer).await
                })
            })
            .collect();
        let mut won = 0;
        for t in tasks {
            match t.await.unwrap() {
                Ok(()) => won += 1,
                Err(e) => assert_eq!(e, AnswerError::AlreadyAnswered),
            }
        }
        assert_eq!(won, 1);
        assert_eq!(rec.lines().len(), 1, "exactly one answer reaches the CLI");
        assert_eq!(r.state(), RequestState::Answered);
        assert_eq!(*rec.settled.lock().unwrap(), [7]);
        drop(r);
        tokio::task::yield_now().await;
        assert_eq!(
            rec.lines().len(),
            1,
            "a drop after the answer sends nothing"
        );
    }

    #[tokio::test]
    async fn an_answer_after_the_withdrawal_is_refused_and_sends_nothing() {
        let rec = Arc::new(Recorder::default());
        let r = permission(&rec);
        let watcher = r.clone();
        let watch = tokio::spawn(async move { watcher.withdrawn().await });
        assert!(r.holder.slot.withdraw());
        assert!(!r.holder.slot.withdraw(), "withdrawn once");
        assert!(watch.await.unwrap(), "the waiter saw the withdrawal");
        assert_eq!(
            r.answer(PermissionResult::allow()).await,
            Err(AnswerError::Withdrawn)
        );
        drop(r);
        tokio::task::yield_now().await;
        assert!(rec.lines().is_empty(), "{:?}", rec.lines());
    }

    #[tokio::test]
    async fn dropping_every_handle_unanswered_denies_the_tool() {
        let rec = Arc::new(Recorder::default());
        let r = permission(&rec);
        let other = r.clone();
        drop(r);
        assert!(rec.lines().is_empty(), "one holder is left");
        assert_eq!(other.state(), RequestState::Pending);
        let watch = other.holder.slot.clone();
        drop(other);
        let lines = rec.wait_lines(1).await;
        assert_eq!(
            lines,
            [
                json!({"type":"control_response","response":{"subtype":"success","request_id":"perm-1",
                "response":{"behavior":"deny","message":NO_ONE_ANSWERED,"interrupt":false}}})
            ]
        );
        assert_eq!(watch.state(), RequestState::Answered);
    }

    #[tokio::test]
    async fn a_closed_session_refuses_answers_and_wrong_kinds_change_nothing() {
        let rec = Arc::new(Recorder::default());
        let r = permission(&rec);
        let wrong = r.answer(HookOutput::proceed()).await;
        assert!(
            matches!(wrong, Err(AnswerError::WrongKind { .. })),
            "{wrong:?}"
        );
        assert_eq!(r.state(), RequestState::Pending);
        r.holder.slot.close();
        assert_eq!(r.settled().await, RequestState::Closed);
        assert_eq!(
            r.answer(PermissionResult::allow()).await,
            Err(AnswerError::Closed)
        );
        drop(r);
        tokio::task::yield_now().await;
        assert!(rec.lines().is_empty());
    }

    /// A sink whose writes wait for a gate (the CLI's stdin held by
    /// another writer).
    struct Slow {
        rec: Arc<Recorder>,
        gate: tokio::sync::Semaphore,
    }

    impl Deliver for Slow {
        fn deliver(self: Arc<Self>, line: Value) -> BoxFuture<Result<()>> {
            Box::pin(async move {
                let _permit = self.gate.acquire().await;
                self.rec.clone().deliver(line).await
            })
        }
        fn settled(&self, token: u64) {
            self.rec.settled(token)
        }
    }

    /// The caller gives up on its answer while the write waits (a
    /// timeout, an aborted task): the answer still reaches the CLI, which
    /// would otherwise wait forever for a request that says it is answered.
    #[tokio::test]
    async fn an_answer_whose_caller_gave_up_still_reaches_the_cli() {
        let slow = Arc::new(Slow {
            rec: Arc::new(Recorder::default()),
            gate: tokio::sync::Semaphore::new(0),
        });
        let sink: Arc<dyn Deliver> = slow.clone();
        let r = permission_to(&sink);
        let gave_up = tokio::time::timeout(
            std::time::Duration::from_millis(20),
            r.answer(PermissionResult::deny("no")),
        )
        .await;
        assert!(gave_up.is_err(), "the write waits for the gate");
        assert_eq!(r.state(), RequestState::Answered);
        drop(r);
        slow.gate.add_permits(1);
        let lines =
            tokio::time::timeout(std::time::Duration::from_secs(20), slow.rec.wait_lines(1))
                .await
                .expect("the answer was written");
        assert_eq!(lines[0]["response"]["response"]["message"], "no");
    }

    #[tokio::test]
    async fn an_allow_echoes_the_input_and_a_gone_session_is_closed() {
        let rec = Arc::new(Recorder::default());
        let r = permission(&rec);
        r.answer(PermissionResult::allow()).await.unwrap();
        assert_eq!(
            rec.lines()[0]["response"]["response"],
            json!({"behavior":"allow","updatedInput":{"command":"ls"}})
        );
        // the session (the sink) is gone: an answer cannot be delivered
        let r = permission(&rec);
        drop(rec);
        assert_eq!(
            r.answer(PermissionResult::allow()).await,
            Err(AnswerError::Closed)
        );
    }
}
