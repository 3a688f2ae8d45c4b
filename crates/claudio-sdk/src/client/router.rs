//! The router: the shared core of a session. The reader task routes each
//! line the CLI writes (messages to the caller, control responses to their
//! requests, control requests to the handlers), beside the writer.

use super::events::{
    self, Answer, Deliver, Event, Incoming, Kind, Queued, Request, RequestBody, Responder, Slot,
};
use super::queue::Queue;
use super::runs::{TextRun, RUN_BYTES};
use crate::error::{Error, Result};
use crate::handlers::{BoxFuture, HookHandler, PermissionHandler, RequestContext};
use crate::mcp::McpServer;
use crate::options::Options;
use crate::protocol::{
    request_line, ControlRequest, ControlResponse, IncomingRequest, Message, Routed, SystemMessage,
};
use crate::transport::{ExitInfo, Line, LineReader, Supervisor, STDERR_DRAIN};
use serde_json::{json, Map, Value};
use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::process::{ChildStdin, ChildStdout};
use tokio::sync::oneshot;

/// How many bytes of messages may wait for the consumer before the reader
/// stops reading (backpressure).
const QUEUE_BYTES: usize = 8 * 1024 * 1024;

/// How many messages the reader queues before it lets others run.
const YIELD_EVERY: usize = 32;

struct Pending {
    subtype: String,
    tx: oneshot::Sender<Result<Value>>,
}

/// Handlers for the CLI's requests, fixed at connect time.
pub(crate) struct Handlers {
    pub(crate) can_use_tool: Option<Arc<dyn PermissionHandler>>,
    pub(crate) hooks: HashMap<String, Arc<dyn HookHandler>>,
    pub(crate) mcp_servers: Vec<McpServer>,
}

impl Handlers {
    /// Take the handlers out of `options` and build the `hooks` field of
    /// `initialize` (callback ids `hook_N`).
    pub(crate) fn from_options(options: &Options) -> (Handlers, Option<Value>) {
        let mut hooks = HashMap::new();
        let mut config = Map::new();
        for (event, matchers) in &options.hooks {
            let mut list = Vec::new();
            for m in matchers {
                let mut ids = Vec::new();
                for h in &m.hooks {
                    let id = format!("hook_{}", hooks.len());
                    hooks.insert(id.clone(), h.clone());
                    ids.push(Value::String(id));
                }
                let mut entry = json!({"matcher": m.matcher, "hookCallbackIds": ids});
                if let Some(t) = m.timeout {
                    entry["timeout"] = json!(t.as_secs_f64());
                }
                list.push(entry);
            }
            config.insert(event.to_string(), Value::Array(list));
        }
        let handlers = Handlers {
            can_use_tool: options.can_use_tool.clone(),
            hooks,
            mcp_servers: options.mcp_servers.clone(),
        };
        (
            handlers,
            (!config.is_empty()).then_some(Value::Object(config)),
        )
    }
}

pub(crate) struct Shared {
    stdin: tokio::sync::Mutex<Option<ChildStdin>>,
    pending: Mutex<HashMap<String, Pending>>,
    /// The CLI's requests not yet settled, by an internal token (the CLI's
    /// ids may repeat).
    in_flight: Mutex<HashMap<u64, Arc<Slot>>>,
    next_token: AtomicU64,
    pub(crate) queue: Queue<Result<Queued>>,
    pub(crate) supervisor: Supervisor,
    handlers: Handlers,
    next_id: AtomicU64,
    id_prefix: String,
    running_handlers: AtomicUsize,
    /// When the CLI or a handler last did something (ms since `epoch`).
    last_activity: AtomicU64,
    epoch: std::time::Instant,
    open_turns: AtomicUsize,
    /// The prompts sent and where the CLI has them, to end a prompt's turn
    /// with the turn that answered it (see [`Prompts`]).
    prompts: Mutex<Prompts>,
    ended: AtomicBool,
    exit: Mutex<Option<ExitInfo>>,
    closing: AtomicBool,
    session_id: Mutex<Option<String>>,
    /// The capabilities the session's `system`/`init` listed (once seen).
    init_capabilities: Mutex<Option<crate::protocol::Capabilities>>,
    /// Plans of recent `ExitPlanMode` calls, by tool-use id (oldest first),
    /// handed to the request that follows ([`CanUseToolRequest::plan`]).
    plans: Mutex<std::collections::VecDeque<(String, String)>>,
    pub(crate) control_timeout: Duration,
    pub(crate) close_grace: Duration,
    inactivity_timeout: Option<Duration>,
    keep_raw: bool,
    /// Text deltas come in runs ([`super::runs`]).
    coalesce: bool,
    /// The stream events around the deltas come lean
    /// ([`Options::lean_stream_events`]).
    lean: bool,
}

/// The most prompts remembered as sent and not yet taken by a turn: past
/// it the oldest is forgotten (a CLI that never says where its prompts
/// are).
const PROMPTS_KEPT: usize = 1024;

/// The prompts sent, and which of them the running turn has taken.
///
/// The CLI takes a prompt written while a turn runs into that turn when it
/// can (between a tool's result and the next request to the model: sent
/// without `priority`, or with `next`), and answers both with one `result`
/// (seen with the CLI 2.1.328 to 2.1.336). Its `command_lifecycle` lines say
/// so: the second prompt is `started` before the running turn's `result`.
/// So a `result` ends every prompt `started` since the last one, and each
/// gets its [`Event::TurnEnded`]. A `result` with none started (a CLI that
/// sends no lifecycle lines, or a turn the CLI started by itself) ends one,
/// as before.
#[derive(Debug, Default)]
struct Prompts {
    /// Sent, not yet started, oldest first.
    waiting: std::collections::VecDeque<String>,
    /// Started since the last `result`.
    started: usize,
    /// The uuids the library gave (their lifecycle lines are its own).
    own: std::collections::HashSet<String>,
    /// The CLI said where a prompt is at least once.
    speaks_lifecycle: bool,
}

impl Prompts {
    fn sent(&mut self, uuid: String) {
        if self.waiting.len() == PROMPTS_KEPT {
            if let Some(old) = self.waiting.pop_front() {
                self.own.remove(&old);
            }
        }
        self.waiting.push_back(uuid);
    }

    /// A prompt whose line could not be written.
    fn unsent(&mut self, uuid: &str) {
        if let Some(i) = self.waiting.iter().rposition(|u| u == uuid) {
            self.waiting.remove(i);
        }
        self.own.remove(uuid);
    }

    /// A `command_lifecycle` line: whether it is about a uuid the library
    /// gave.
    fn lifecycle(&mut self, c: &crate::protocol::CommandLifecycle) -> bool {
        use crate::protocol::CommandState;
        let Some(uuid) = c.command_uuid.as_deref() else {
            return false;
        };
        self.speaks_lifecycle = true;
        if c.state == CommandState::Started {
            if let Some(i) = self.waiting.iter().position(|u| u == uuid) {
                self.waiting.remove(i);
                self.started += 1;
            }
        }
        let own = self.own.contains(uuid);
        if own && c.state == CommandState::Completed {
            self.own.remove(uuid);
        }
        own
    }

    /// A `result`: how many [`Event::TurnEnded`] it gives, and how many of
    /// the prompts sent it ends.
    fn result(&mut self) -> (usize, usize) {
        let started = std::mem::take(&mut self.started);
        if started > 0 {
            return (started, started);
        }
        if self.speaks_lifecycle {
            // a turn the CLI started by itself (a background agent's
            // report): no prompt of the host's ends with it
            return (1, 0);
        }
        // No lifecycle lines say which: the oldest prompt, as a CLI
        // answers them in order.
        if let Some(old) = self.waiting.pop_front() {
            self.own.remove(&old);
        }
        (1, 1)
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Shared {
    pub(crate) fn new(
        stdin: ChildStdin,
        supervisor: Supervisor,
        handlers: Handlers,
        options: &Options,
        keep_raw: bool,
    ) -> Arc<Shared> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        Arc::new(Shared {
            stdin: tokio::sync::Mutex::new(Some(stdin)),
            pending: Mutex::new(HashMap::new()),
            in_flight: Mutex::new(HashMap::new()),
            next_token: AtomicU64::new(0),
            queue: Queue::new(QUEUE_BYTES),
            supervisor,
            handlers,
            next_id: AtomicU64::new(1),
            id_prefix: format!("req_{:x}{:x}", std::process::id(), nanos),
            running_handlers: AtomicUsize::new(0),
            last_activity: AtomicU64::new(0),
            epoch: std::time::Instant::now(),
            open_turns: AtomicUsize::new(0),
            prompts: Mutex::new(Prompts::default()),
            ended: AtomicBool::new(false),
            exit: Mutex::new(None),
            closing: AtomicBool::new(false),
            session_id: Mutex::new(None),
            init_capabilities: Mutex::new(None),
            plans: Mutex::new(std::collections::VecDeque::new()),
            control_timeout: options.control_timeout,
            close_grace: options.close_grace,
            inactivity_timeout: options.inactivity_timeout,
            keep_raw,
            coalesce: options.coalesce_text_deltas && !keep_raw,
            lean: options.lean_stream_events,
        })
    }

    fn touch(&self) {
        if self.inactivity_timeout.is_none() {
            return; // only the inactivity timeout needs the time
        }
        let ms = self.epoch.elapsed().as_millis() as u64;
        self.last_activity.store(ms, Ordering::SeqCst);
    }

    /// How long nothing has happened.
    fn idle_for(&self) -> Duration {
        let last = self.last_activity.load(Ordering::SeqCst);
        let now = self.epoch.elapsed().as_millis() as u64;
        Duration::from_millis(now.saturating_sub(last))
    }

    pub(crate) fn session_id(&self) -> Option<String> {
        lock(&self.session_id).clone()
    }

    /// The capabilities of the session's `system`/`init`, once it came.
    pub(crate) fn init_capabilities(&self) -> Option<crate::protocol::Capabilities> {
        lock(&self.init_capabilities).clone()
    }

    pub(crate) fn is_ended(&self) -> bool {
        self.ended.load(Ordering::SeqCst)
    }

    pub(crate) fn turn_open(&self) -> bool {
        self.open_turns.load(Ordering::SeqCst) > 0
    }

    /// The error for a call made after the session ended: [`Error::Closed`]
    /// once the host closed it (whatever the CLI's exit), else how the CLI
    /// ended on its own.
    fn terminal_error(&self) -> Error {
        if self.closing.load(Ordering::SeqCst) {
            return Error::Closed;
        }
        match *lock(&self.exit) {
            Some(info) => self.supervisor.exit_error(info),
            None => Error::Closed,
        }
    }

    /// Write one JSON line on the CLI's stdin.
    pub(crate) async fn write(&self, value: &Value) -> Result<()> {
        let mut line = serde_json::to_vec(value)?;
        line.push(b'\n');
        let mut guard = self.stdin.lock().await;
        let Some(stdin) = guard.as_mut() else {
            return Err(self.terminal_error());
        };
        let res = async {
            stdin.write_all(&line).await?;
            stdin.flush().await
        }
        .await;
        match res {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                drop(guard);
                // The CLI is gone; report how it ended if that is known soon.
                match self.supervisor.wait_timeout(Duration::from_secs(2)).await {
                    Some(info) => Err(self.supervisor.exit_error_drained(info).await),
                    None => Err(Error::Io(e)),
                }
            }
            Err(e) => Err(Error::Io(e)),
        }
    }

    /// Send a user message; the turn counts as open until the `result` of
    /// the turn that answers it. A prompt without a `uuid` is given one, so
    /// that the CLI says which turn takes it (`command_lifecycle`); those
    /// lines are the library's own and are not passed on.
    pub(crate) async fn send_user(&self, line: &Value) -> Result<()> {
        if self.is_ended() {
            return Err(self.terminal_error());
        }
        let mut line = Cow::Borrowed(line);
        let uuid = match line.get("uuid").and_then(Value::as_str) {
            Some(u) => u.to_owned(),
            None => {
                let u = crate::store::new_uuid();
                line.to_mut()["uuid"] = Value::String(u.clone());
                lock(&self.prompts).own.insert(u.clone());
                u
            }
        };
        lock(&self.prompts).sent(uuid.clone());
        self.open_turns.fetch_add(1, Ordering::SeqCst);
        self.touch();
        // before the line: the turn's messages come after it
        self.queue.push_now(Ok(Queued::Event(Event::TurnStarted)));
        let r = self.write(&line).await;
        if r.is_err() {
            lock(&self.prompts).unsent(&uuid);
            let _ = self
                .open_turns
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1));
        }
        r
    }

    /// Send a control request and wait for its answer.
    pub(crate) async fn request(
        &self,
        subtype: &str,
        fields: Value,
        timeout: Duration,
    ) -> Result<Value> {
        let id = format!(
            "{}_{}",
            self.id_prefix,
            self.next_id.fetch_add(1, Ordering::SeqCst)
        );
        let mut body = match fields {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        body.insert("subtype".into(), Value::String(subtype.into()));
        if subtype == "end_session" {
            // the host ends the session: how the CLI then exits is no error
            self.closing.store(true, Ordering::SeqCst);
        }
        let (tx, rx) = oneshot::channel();
        {
            let mut p = lock(&self.pending);
            if self.is_ended() {
                return Err(self.terminal_error());
            }
            p.insert(
                id.clone(),
                Pending {
                    subtype: subtype.into(),
                    tx,
                },
            );
        }
        // While waiting, the reader must keep reading to find the answer.
        self.queue.begin_overdraft();
        struct Guard<'a>(&'a Shared);
        impl Drop for Guard<'_> {
            fn drop(&mut self) {
                self.0.queue.end_overdraft();
            }
        }
        let _guard = Guard(self);
        if let Err(e) = self.write(&request_line(&id, Value::Object(body))).await {
            lock(&self.pending).remove(&id);
            return Err(e);
        }
        match tokio::time::timeout(timeout, rx).await {
            Ok(Ok(r)) => {
                if subtype == "end_session" && r.is_ok() {
                    // the session is over: end stdin so the CLI exits
                    // (2.1.336 waits for it after a turn)
                    self.stdin.lock().await.take();
                }
                r
            }
            Ok(Err(_)) => Err(self.terminal_error()),
            Err(_) => {
                lock(&self.pending).remove(&id);
                Err(Error::ControlTimeout {
                    subtype: subtype.into(),
                    timeout,
                })
            }
        }
    }

    fn resolve(&self, r: ControlResponse) {
        let body = r.response;
        let Some(p) = lock(&self.pending).remove(&body.request_id) else {
            // Echoes (`--replay-user-messages`) and late answers land here.
            tracing::debug!(request_id = %body.request_id, "response to an unknown request id; ignored");
            return;
        };
        let result = if body.subtype == "success" {
            Ok(body.response.unwrap_or_else(|| json!({})))
        } else {
            Err(Error::Control {
                subtype: p.subtype,
                message: body
                    .error
                    .unwrap_or_else(|| "no error message given".into()),
                code: body.error_code,
            })
        };
        let _ = p.tx.send(result);
    }

    /// A request from the CLI: one [`Slot`] answered through its
    /// [`Responder`]s, whoever holds them (a registered callback, the
    /// caller through [`Event::Request`], or the default answer when every
    /// handle is dropped unanswered).
    async fn dispatch(self: &Arc<Self>, req: ControlRequest, size: usize) {
        let id = req.request_id;
        let subtype = req.request.subtype().to_owned();
        // what answers it: a callback, a refusal at once, or the caller
        let mut handler: Option<BoxFuture<Answer>> = None;
        let mut event: Option<RequestBody> = None;
        let (kind, input, default) = match &req.request {
            IncomingRequest::CanUseTool(r) => (
                Kind::Permission,
                r.input.clone(),
                Answer::Permission(crate::protocol::PermissionResult::deny(
                    events::NO_ONE_ANSWERED,
                )),
            ),
            IncomingRequest::HookCallback(r) => (
                Kind::Hook,
                Value::Null,
                Answer::Error(format!("no hook callback with id `{}`", r.callback_id)),
            ),
            IncomingRequest::McpMessage(r) => (
                Kind::Other,
                Value::Null,
                Answer::Error(format!(
                    "no in-process MCP server named `{}`",
                    r.server_name
                )),
            ),
            IncomingRequest::Other(_) => (
                Kind::Other,
                Value::Null,
                Answer::Error(format!("Unsupported control request subtype: {subtype}")),
            ),
        };
        let token = self.next_token.fetch_add(1, Ordering::SeqCst);
        let sink: Weak<dyn Deliver> = Arc::downgrade(self) as Weak<dyn Deliver>;
        let slot = Slot::new(id.clone(), subtype, kind, input, default, token, sink);
        let responder = Responder::new(slot.clone());
        let ctx = RequestContext {
            request_id: id,
            cancellation: responder.cancellation(),
        };
        match req.request {
            IncomingRequest::CanUseTool(mut r) => {
                // the plan this request is for, as its tool_use block had it
                if r.kind() == crate::protocol::ask::RequestKind::Plan {
                    if let Some(id) = r.tool_use_id.as_deref() {
                        r.seen_plan = lock(&self.plans)
                            .iter()
                            .rev()
                            .find(|(call, _)| call == id)
                            .map(|(_, plan)| plan.clone());
                    }
                }
                if let Some(h) = &self.handlers.can_use_tool {
                    let f = h.can_use_tool(r.clone(), ctx);
                    handler = Some(Box::pin(async move { events::from_handler(f.await) }));
                }
                event = Some(RequestBody::CanUseTool(Box::new(r)));
            }
            IncomingRequest::HookCallback(r) => {
                if let Some(h) = self.handlers.hooks.get(&r.callback_id) {
                    let f = h.call(r, ctx);
                    handler = Some(Box::pin(async move { events::from_handler(f.await) }));
                }
            }
            IncomingRequest::McpMessage(r) => {
                if let Some(s) = self
                    .handlers
                    .mcp_servers
                    .iter()
                    .find(|s| s.name == r.server_name)
                {
                    let f = s.handle(&r.message);
                    handler = Some(Box::pin(async move {
                        Answer::Value(json!({ "mcp_response": f.await }))
                    }));
                }
            }
            IncomingRequest::Other(v) => {
                event = Some(RequestBody::Other {
                    subtype: slot_subtype(&v),
                    request: v,
                });
            }
        }
        self.running_handlers.fetch_add(1, Ordering::SeqCst);
        lock(&self.in_flight).insert(token, slot.clone());
        let handled = handler.is_some();
        if let Some(fut) = handler {
            let inner = tokio::spawn(fut);
            slot.set_abort(inner.abort_handle());
            let responder = responder.clone();
            tokio::spawn(async move {
                let answer = match inner.await {
                    Ok(a) => a,
                    // stopped: the request was settled some other way
                    Err(e) if e.is_cancelled() => return,
                    Err(_) => Answer::Error("the handler panicked".into()),
                };
                // a later answer than another holder's is no matter
                let _ = responder.answer(answer).await;
            });
        }
        match event {
            Some(body) => {
                let request = Request {
                    body,
                    handled,
                    responder,
                };
                // its line's bytes count toward the bound as a message's
                // do: a flood of big requests no one reads is backpressure
                self.queue
                    .push(Ok(Queued::Event(Event::Request(Box::new(request)))), size)
                    .await;
            }
            // a request no one can answer: refused now, as it always was
            None if !handled => drop(responder),
            None => {}
        }
    }

    async fn cancel_incoming(&self, request_id: &str) {
        let slots: Vec<Arc<Slot>> = lock(&self.in_flight)
            .values()
            .filter(|s| s.request_id() == request_id)
            .cloned()
            .collect();
        let mut withdrawn = false;
        for s in slots {
            withdrawn |= s.withdraw();
        }
        if withdrawn {
            self.queue
                .push(
                    Ok(Queued::Event(Event::Withdrawn {
                        request_id: request_id.to_owned(),
                    })),
                    0,
                )
                .await;
        }
    }

    fn observe(&self, m: &Message) {
        match m {
            Message::System(s) => {
                if let SystemMessage::Init(i) = &**s {
                    if let Some(id) = &i.session_id {
                        *lock(&self.session_id) = Some(id.clone());
                    }
                    *lock(&self.init_capabilities) = Some(i.capabilities.clone());
                }
            }
            Message::Assistant(a) => {
                // plans proposed, for the ExitPlanMode request that follows
                for b in &a.message.content {
                    if let crate::protocol::ContentBlock::ToolUse(t) = b {
                        if crate::protocol::ask::RequestKind::of_tool(&t.name)
                            == crate::protocol::ask::RequestKind::Plan
                        {
                            if let Some(plan) = crate::protocol::ask::plan_text(&t.input) {
                                let mut plans = lock(&self.plans);
                                if plans.len() == RECENT_PLANS {
                                    plans.pop_front();
                                }
                                plans.push_back((t.id.clone(), plan.to_owned()));
                            }
                        }
                    }
                }
            }
            Message::Result(r) => {
                if let Some(id) = &r.session_id {
                    *lock(&self.session_id) = Some(id.clone());
                }
            }
            _ => {}
        }
    }

    /// What a line from the CLI does to the prompts' turns: how many
    /// prompts a `result` ends (each gets its [`Event::TurnEnded`]), and
    /// whether the line is the library's own (a `command_lifecycle` of a
    /// uuid it gave), not to be passed on.
    fn turn_bookkeeping(&self, m: &Message) -> (usize, bool) {
        match m {
            Message::CommandLifecycle(c) => {
                let own = lock(&self.prompts).lifecycle(c);
                (0, own)
            }
            Message::Result(_) => {
                let (events, ended) = lock(&self.prompts).result();
                let _ = self
                    .open_turns
                    .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                        Some(n.saturating_sub(ended))
                    });
                (events, false)
            }
            _ => (0, false),
        }
    }

    /// Close stdin and stop the process gracefully. A running turn is
    /// interrupted first so the CLI can finish its transcript, then the
    /// session is ended as the CLI expects of a host that closes
    /// (`end_session`, `reason: "host_closing"`, as the TypeScript SDK
    /// sends it; the CLI 2.1.328 to 2.1.336 answer `{}` and exit 0; an
    /// error answer is no matter, stdin is closed next either way).
    /// `end_session` is sent only to a CLI that answers it (`ends_session`).
    pub(crate) async fn shutdown(&self, ends_session: bool) -> ExitInfo {
        self.closing.store(true, Ordering::SeqCst);
        let grace = self.close_grace;
        if self.turn_open() && !self.is_ended() {
            let _ = self.request("interrupt", json!({}), grace).await;
        }
        if ends_session && !self.is_ended() {
            let _ = self
                .request("end_session", json!({"reason": "host_closing"}), grace)
                .await;
        }
        let stdin = match tokio::time::timeout(grace, self.stdin.lock()).await {
            Ok(mut g) => g.take(),
            Err(_) => None,
        };
        self.supervisor.shutdown(stdin, grace).await
    }
}

impl Deliver for Shared {
    fn deliver(self: Arc<Self>, line: Value) -> BoxFuture<Result<()>> {
        Box::pin(async move { self.write(&line).await })
    }

    fn settled(&self, token: u64) {
        if lock(&self.in_flight).remove(&token).is_some() {
            self.running_handlers.fetch_sub(1, Ordering::SeqCst);
        }
        self.touch();
    }
}

fn slot_subtype(v: &Value) -> String {
    v.get("subtype")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned()
}

// Transient, one per line: boxing the message would only add an allocation.
#[allow(clippy::large_enum_variant)]
enum Read {
    Message(
        std::result::Result<Routed, serde_json::Error>,
        Option<Box<[u8]>>,
        usize,
    ),
    /// The line went into the run of text deltas.
    InRun,
    /// The next read may wait for the CLI: the run goes first.
    WouldWait,
    TooLong,
    Eof,
    Failed(std::io::Error),
}

async fn read_one(
    reader: &mut LineReader<ChildStdout>,
    keep_raw: bool,
    lean: bool,
    mut run: Option<&mut TextRun>,
) -> Read {
    if run.as_ref().is_some_and(|r| r.is_open()) && !reader.line_buffered() {
        return Read::WouldWait;
    }
    let (message, size) = match reader.next_line().await {
        Ok(Some(Line::Data(d))) => {
            // UTF-8 checked once, for the run and the decoder alike
            let message = match crate::text::to_str(d) {
                Ok(line) => {
                    if run.as_mut().is_some_and(|r| r.offer_text(line, line.len())) {
                        return Read::InRun;
                    }
                    Routed::parse_str_as(line, lean)
                }
                Err(e) => Err(<serde_json::Error as serde::de::Error>::custom(e)),
            };
            (message, d.len())
        }
        Ok(Some(Line::TooLong)) => return Read::TooLong,
        Ok(None) => return Read::Eof,
        Err(e) => return Read::Failed(e),
    };
    let raw = keep_raw.then(|| reader.take_last().into_boxed_slice());
    Read::Message(message, raw, size)
}

/// How many recent plans the session keeps for their requests.
const RECENT_PLANS: usize = 8;

/// The reader task: route every line until the CLI's stdout ends.
pub(crate) async fn drive(shared: Arc<Shared>, stdout: ChildStdout, max_line: usize) {
    let mut reader = LineReader::new(stdout, max_line);
    let mut batch = 0;
    let mut run = TextRun::default();
    // once the CLI has exited (its stdout may stay open): how long the
    // reads may still wait, in all
    let mut exited: Option<Duration> = None;
    // the bytes read from it when its exit was seen
    let mut read_at_exit: Option<u64> = None;
    loop {
        // The whole lines a read brought, UTF-8 checked at once: each as
        // `read_one` would read it, with nothing to wait for between them.
        if let Some(text) = reader.take_buffered_text() {
            shared.touch();
            let mut from = 0;
            while from < text.len() {
                // this line and those after it
                let rest = &text[from..];
                // a run's next delta, as the CLI writes it: compared with
                // the run's shape, its end where the shape ends
                if shared.coalesce {
                    if let Some(took) = run.offer_next(rest) {
                        from += took;
                        if run.bytes() >= RUN_BYTES {
                            hand_on(&shared, &mut run, &mut batch).await;
                        }
                        continue;
                    }
                }
                // (the memchr crate's search: `str::split` looks for a char
                // with core's own, several times slower; `text` ends with a
                // `\n`)
                let to = memchr::memchr(b'\n', rest.as_bytes()).unwrap_or(rest.len());
                from += to + 1;
                let line = &rest[..to];
                let line = line.strip_suffix('\r').unwrap_or(line);
                if shared.coalesce && run.offer_text(line, rest.len()) {
                    if run.bytes() >= RUN_BYTES {
                        hand_on(&shared, &mut run, &mut batch).await;
                    }
                    continue;
                }
                // the run goes before anything read after it
                hand_on(&shared, &mut run, &mut batch).await;
                let raw = shared.keep_raw.then(|| Box::from(line.as_bytes()));
                let read = Read::Message(Routed::parse_str_as(line, shared.lean), raw, line.len());
                route(&shared, read, &mut batch, max_line).await;
            }
            shared.touch();
            continue;
        }
        // once the CLI has exited: reads that waited EXIT_DRAIN_TOTAL in
        // all, or brought more than its pipe could hold, are another
        // process's, and its stdout ends here, unless a process of its
        // group can still be the CLI
        if let (Some(left), Some(from)) = (exited, read_at_exit) {
            if left.is_zero() || reader.bytes_read() - from > EXIT_DRAIN_BYTES {
                if shared.supervisor.cli_may_run() {
                    // the real CLI a launcher started, writing on: its
                    // output is no other process's
                    exited = Some(EXIT_DRAIN_TOTAL);
                    read_at_exit = Some(reader.bytes_read());
                } else {
                    reader.end_here();
                }
            }
        }
        let runs = shared.coalesce.then_some(&mut run);
        let next = unless_gone(
            &shared,
            &mut exited,
            read_one(&mut reader, shared.keep_raw, shared.lean, runs),
        );
        let read = match shared.inactivity_timeout {
            None => match next.await {
                Some(r) => r,
                None => {
                    // the end of stdout, as at its real end: a last line
                    // the CLI left without its `\n` is still read
                    reader.end_here();
                    continue;
                }
            },
            Some(d) => {
                match tokio::time::timeout(d, next).await {
                    Ok(Some(r)) => r,
                    Ok(None) => {
                        reader.end_here();
                        continue;
                    }
                    Err(_) => {
                        // Silence counts only while a turn runs and nobody is
                        // being asked (a person may take their time), and from
                        // the last thing that happened.
                        if shared.turn_open()
                            && shared.running_handlers.load(Ordering::SeqCst) == 0
                            && shared.idle_for() >= d
                        {
                            let _ = shared.open_turns.fetch_update(
                                Ordering::SeqCst,
                                Ordering::SeqCst,
                                |n| n.checked_sub(1),
                            );
                            shared.queue.push(Err(Error::InactivityTimeout(d)), 0).await;
                        }
                        continue;
                    }
                }
            }
        };
        if exited.is_some() && read_at_exit.is_none() {
            read_at_exit = Some(reader.bytes_read());
        }
        shared.touch();
        if let Read::InRun = read {
            if run.bytes() < RUN_BYTES {
                continue;
            }
        }
        // the run goes before anything read after it
        hand_on(&shared, &mut run, &mut batch).await;
        if !route(&shared, read, &mut batch, max_line).await {
            break;
        }
    }
    // Stdout is closed: the process is ending (or hung with stdout closed).
    ended(&shared).await;
}

/// How long a read of the CLI's stdout waits once the CLI has exited:
/// what it wrote is in the pipe by then, and a process it left behind that
/// holds the pipe (a crash's child, a `cmd &`) must not keep the session
/// waiting for an end of stdout that never comes.
const EXIT_DRAIN: Duration = STDERR_DRAIN;

/// How long the reads of the CLI's stdout may wait in all once the CLI has
/// exited and no process of its group can still be the CLI: what it wrote
/// is in the pipe and is read without a wait, but a process it left behind
/// that writes on and on, never silent for [`EXIT_DRAIN`] (a `tail -f`, a
/// proxy's log), kept the session waiting for ever, each read bringing its
/// next line.
const EXIT_DRAIN_TOTAL: Duration = Duration::from_secs(5);

/// The most bytes read from the CLI's stdout once it has exited, while no
/// process of its group can still be the CLI: what it wrote is in the
/// pipe, which holds 64 KiB by default and 1 MiB at most unless the system
/// allows more; a process it left behind that floods the pipe (`yes`) is
/// never silent and never waits.
const EXIT_DRAIN_BYTES: u64 = 16 << 20;

/// `read`, unless the CLI has exited (`exited`: how long the reads may
/// still wait, set here when the exit is seen) and nothing more came
/// within [`EXIT_DRAIN`], or the reads since have waited
/// [`EXIT_DRAIN_TOTAL`] in all: `None` then, as the end of its stdout.
/// What is in the pipe is read however long its reader takes to take it
/// (the time the session takes to route a line is no wait here). A
/// silence is no end while a process of the CLI's group that can still be
/// the CLI runs ([`Supervisor::cli_may_run`]: the real CLI a launcher
/// started before it exited), and its waits count for nothing; once none
/// does, what it wrote before it went is in the pipe, and one more read
/// takes it.
async fn unless_gone<T>(
    shared: &Shared,
    exited: &mut Option<Duration>,
    read: impl std::future::Future<Output = T>,
) -> Option<T> {
    use futures_util::future::{select, Either};
    tokio::pin!(read);
    let mut left = match *exited {
        Some(left) => left,
        None => {
            let gone = std::pin::pin!(shared.supervisor.wait());
            match select(read.as_mut(), gone).await {
                Either::Left((r, _)) => return Some(r),
                Either::Right(_) => EXIT_DRAIN_TOTAL,
            }
        }
    };
    loop {
        let from = tokio::time::Instant::now();
        let got = tokio::time::timeout(EXIT_DRAIN.min(left), read.as_mut()).await;
        left = left.saturating_sub(from.elapsed());
        if let Ok(r) = got {
            *exited = Some(left);
            return Some(r);
        }
        if !shared.supervisor.cli_may_run() {
            let from = tokio::time::Instant::now();
            let got = tokio::time::timeout(EXIT_DRAIN.min(left), read).await.ok();
            *exited = Some(left.saturating_sub(from.elapsed()));
            return got;
        }
        // the real CLI a launcher started: its silence is no end
        left = EXIT_DRAIN_TOTAL;
    }
}

/// The open run of text deltas, if any, to the queue as one message.
async fn hand_on(shared: &Shared, run: &mut TextRun, batch: &mut usize) {
    if let Some((head, size)) = run.take() {
        let message = Message::StreamEvent(head);
        shared
            .queue
            .push(Ok(Queued::Message(Incoming { message, raw: None })), size)
            .await;
        *batch += 1;
        if *batch == YIELD_EVERY {
            *batch = 0;
            tokio::task::yield_now().await;
        }
    }
}

/// What one read says, routed: false once stdout is over.
async fn route(shared: &Arc<Shared>, read: Read, batch: &mut usize, max_line: usize) -> bool {
    match read {
        Read::InRun | Read::WouldWait => {}
        Read::Message(Ok(routed), raw, size) => match routed {
            Routed::Response(r) => shared.resolve(*r),
            Routed::Request(r) => shared.dispatch(*r, size).await,
            Routed::Cancel(c) => shared.cancel_incoming(&c.request_id).await,
            Routed::Message(message) => {
                shared.observe(&message);
                let (ended, own) = shared.turn_bookkeeping(&message);
                if !own {
                    shared
                        .queue
                        .push(Ok(Queued::Message(Incoming { message, raw })), size)
                        .await;
                }
                for _ in 0..ended {
                    shared
                        .queue
                        .push(Ok(Queued::Event(Event::TurnEnded)), 0)
                        .await;
                }
                // Let the consumer take a batch while it is still in the
                // cache (and the allocator reuses what it frees), rather
                // than decoding a whole 256 KiB read ahead of it.
                *batch += 1;
                if *batch == YIELD_EVERY {
                    *batch = 0;
                    tokio::task::yield_now().await;
                }
            }
        },
        Read::Message(Err(e), _, size) => {
            tracing::debug!(error = %e, bytes = size, "skipped a line from the CLI that is not a JSON object");
        }
        Read::TooLong => {
            tracing::warn!("skipped a line from the CLI longer than the limit");
            shared
                .queue
                .push(Err(Error::LineTooLong { limit: max_line }), 0)
                .await;
        }
        Read::Eof => return false,
        Read::Failed(e) => {
            tracing::warn!(error = %e, "reading the CLI's stdout failed");
            return false;
        }
    }
    true
}

/// The CLI's stdout is over: how it ended, to every waiter.
async fn ended(shared: &Arc<Shared>) {
    let info = match shared.supervisor.wait_timeout(shared.close_grace).await {
        Some(info) => {
            // what it left in its group goes with it, as at a close
            shared.supervisor.kill_leftovers();
            info
        }
        None => shared.supervisor.shutdown(None, shared.close_grace).await,
    };
    // the tail must hold the CLI's last words before any error is built
    shared.supervisor.stderr_drained(STDERR_DRAIN).await;
    *lock(&shared.exit) = Some(info);
    let pending: Vec<Pending> = {
        let mut p = lock(&shared.pending);
        shared.ended.store(true, Ordering::SeqCst);
        p.drain().map(|(_, v)| v).collect()
    };
    for p in pending {
        let _ = p.tx.send(Err(shared.terminal_error()));
    }
    let in_flight: Vec<Arc<Slot>> = lock(&shared.in_flight).values().cloned().collect();
    for slot in in_flight {
        slot.close();
    }
    if !shared.closing.load(Ordering::SeqCst) {
        tracing::debug!(?info, "the CLI ended on its own");
        shared
            .queue
            .push(Err(shared.supervisor.exit_error(info)), 0)
            .await;
    }
    shared.queue.close();
}

#[cfg(test)]
mod tests {
    fn lifecycle(uuid: &str, state: &str) -> crate::protocol::CommandLifecycle {
        serde_json::from_value(
            json!({"type":"command_lifecycle","command_uuid":uuid,"state":state}),
        )
        .unwrap()
    }

    #[test]
    fn a_prompt_taken_into_the_running_turn_ends_with_it() {
        let mut p = Prompts::default();
        p.sent("a".into());
        p.own.insert("a".into());
        assert!(p.lifecycle(&lifecycle("a", "queued")));
        assert!(p.lifecycle(&lifecycle("a", "started")));
        p.sent("b".into());
        assert!(!p.lifecycle(&lifecycle("b", "queued")), "b is the host's");
        assert!(!p.lifecycle(&lifecycle("b", "started")));
        assert_eq!(p.result(), (2, 2));
        assert!(p.lifecycle(&lifecycle("a", "completed")));
        assert!(p.own.is_empty());
        assert!(p.waiting.is_empty());
    }

    #[test]
    fn a_prompt_waiting_for_the_next_turn_is_not_ended_by_this_one() {
        let mut p = Prompts::default();
        p.sent("a".into());
        p.lifecycle(&lifecycle("a", "started"));
        p.sent("b".into());
        p.lifecycle(&lifecycle("b", "queued"));
        assert_eq!(p.result(), (1, 1));
        // a turn the CLI starts by itself ends no prompt of the host's
        assert_eq!(p.result(), (1, 0));
        p.lifecycle(&lifecycle("b", "started"));
        assert_eq!(p.result(), (1, 1));
    }

    #[test]
    fn with_no_lifecycle_lines_each_result_ends_the_oldest_prompt() {
        let mut p = Prompts::default();
        for u in ["a", "b"] {
            p.sent(u.into());
            p.own.insert(u.into());
        }
        assert_eq!(p.result(), (1, 1));
        assert_eq!(p.waiting, ["b"]);
        assert!(!p.own.contains("a"));
        p.unsent("b");
        assert!(p.waiting.is_empty() && p.own.is_empty());
        // bounded, whatever the CLI never says
        for i in 0..PROMPTS_KEPT + 5 {
            p.sent(i.to_string());
        }
        assert_eq!(p.waiting.len(), PROMPTS_KEPT);
    }

    use super::*;
    use futures_util::FutureExt;

    /// A session over `cat` (a process that reads its stdin), for the
    /// router's own tests.
    async fn session() -> Arc<Shared> {
        let spec = crate::transport::SpawnSpec {
            program: "/bin/cat".into(),
            args: vec![],
            env: Default::default(),
            cwd: None,
            stderr: None,
            files: None,
        };
        let spawned = crate::transport::spawn(&spec).await.expect("cat starts");
        let options = Options::default();
        let (handlers, _) = Handlers::from_options(&options);
        Shared::new(spawned.stdin, spawned.supervisor, handlers, &options, false)
    }

    /// The CLI's requests count toward the queue's byte bound as the
    /// messages do: a flood of big tool approvals no one reads stops the
    /// reader (backpressure) instead of growing memory without limit.
    #[tokio::test]
    async fn requests_count_their_bytes_toward_the_queue_bound() {
        let shared = session().await;
        let big = "x".repeat(1 << 20);
        let line = json!({"type":"control_request","request_id":"r","request":{
            "subtype":"can_use_tool","tool_name":"Bash","input":{"command":big}}})
        .to_string();
        let mut waited_at = None;
        for i in 0..32 {
            let Ok(Routed::Request(req)) = Routed::parse(line.as_bytes()) else {
                panic!("not a request");
            };
            if shared.dispatch(*req, line.len()).now_or_never().is_none() {
                waited_at = Some(i);
                break;
            }
        }
        let at = waited_at.expect("the reader never waited: 32 MiB of requests queued");
        assert!(
            at * line.len() <= QUEUE_BYTES + line.len(),
            "{at} requests queued"
        );
        shared
            .supervisor
            .shutdown(None, Duration::from_secs(1))
            .await;
    }
}
