//! A scripted stand-in for the Anthropic Messages API, for end-to-end tests
//! that run the real `claude` CLI with `ANTHROPIC_BASE_URL` pointed here.
//!
//! A crate of its own (a dev-dependency of claudio), used by the
//! integration tests and the benchmark server. It uses only std and
//! serde_json.
//!
//! ```no_run
//! let api = mock_api::MockApi::start();
//! api.push(mock_api::Reply::bash("touch SOMEFILE"));
//! api.push(mock_api::Reply::text("Done."));
//! // spawn claude with ANTHROPIC_BASE_URL=api.base_url() ...
//! let reqs = api.main_requests();
//! ```
//!
//! What the CLI (2.1.328) sends, as observed on the wire
//! ------------------------------------------------------
//! * `POST /v1/messages?beta=true`, JSON body (Content-Length, never chunked),
//!   `Connection: keep-alive`, several requests per connection. Main turns
//!   are `stream: true` with `tools` (13 for the default tool set),
//!   `thinking: {"type":"adaptive",...}`, `context_management`, `metadata`,
//!   `max_tokens` (128000 for opus, 32000 for sonnet-4-5: model dependent).
//!   The answer is read as server-sent events.
//! * Sub-agents (the `Agent`/`Task` tool) send the same shape from the same
//!   process, concurrently with the main thread; their first system block (the
//!   billing header) contains `cc_is_subagent=true`. They are scripted like
//!   main turns (they consume the queue) — use [`MockApi::push_matching`] with
//!   [`RecordedRequest::is_subagent`] to route replies without races.
//! * `POST /v1/messages/count_tokens?beta=true` (body `model`, `messages`,
//!   `tools`; no `stream`): sent in bulk (~25) for the `get_context_usage`
//!   control request. Answered `{"input_tokens": N}`.
//! * `HEAD /api/hello`: a connectivity probe, only when
//!   `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC` is NOT set. Answered 200.
//! * One-shot helper queries (session title via the `generate_session_title`
//!   control request, and the other "auxiliary" query sources) are ALSO
//!   streaming `POST /v1/messages` with the same model and max_tokens, but
//!   with `tools: []` and no `thinking` key; the title one carries
//!   `output_config.format` = json_schema and expects a JSON object as text.
//! * Forked helper queries (`side_question` control request, prompt
//!   suggestions, compaction) look exactly like a main turn (same tools and
//!   thinking) except for a marker in the last user message.
//! * 404 on a streaming request makes the CLI retry the same turn once
//!   NON-streaming (`stream: false`, max_tokens 64000); such requests are
//!   answered with a plain JSON message.
//!
//! How side requests are told apart (see [`classify`])
//! ---------------------------------------------------
//! A request is [`RequestKind::Main`] (consumes the script) iff it is a
//! `POST` to `/v1/messages` (not `/v1/messages/count_tokens`) and it is not:
//!   * a structured-output helper: `output_config.format` present; nor
//!   * a one-shot helper: `tools` absent/empty AND no `thinking` key AND no
//!     [`ENVIRONMENT_MARKER`] in the messages (agent-loop requests always
//!     carry the environment block, even with `--tools ""`, a custom
//!     `--system-prompt`, or a model without thinking); nor
//!   * a fork helper: the last user message contains one of
//!     [`FORK_HELPER_MARKERS`] (side question / suggestion mode / compaction).
//!
//! `count_tokens` and helpers are [`RequestKind::Side`]; every other path is
//! [`RequestKind::Other`]. Side and Other requests get a short valid answer
//! and never consume the script. All requests are recorded. Tests that need
//! another rule can install one with [`MockApi::set_classifier`].
//!
//! Errors and retries (observed)
//! -----------------------------
//! Every API error surfaces as a synthetic `assistant` line (`"model":
//! "<synthetic>"`, `is_api_error_message: true`, `api_error_status`) and a
//! `result` with `subtype: "success"` (sic), `is_error: true`,
//! `api_error_status`, and the exit code after stdin closes is 1 if the last
//! result was an error. The session stays usable for the next user message.
//! * 402 (`billing_error`), 405, 410, 451: NOT retried (1 request); `result`
//!   is `"API Error: 402 <message>"`, `terminal_reason: "api_error"`. This is
//!   [`Reply::fatal`].
//! * 413: not retried, but the CLI replaces the message with its own
//!   ("Request too large (max 32MB)...", `terminal_reason: "image_error"`).
//! * 403: not retried, reported as "Failed to authenticate. API Error: 403 ..."
//!   (`error: "authentication_failed"`).
//! * 400 / 422: retried at once through a beta-header fallback ladder: 6
//!   requests in ~100 ms (the last 3 with a different tools list), then
//!   "API Error: 400 <message>". Script it as `Reply::api_error(400, ..).times(6)`.
//! * 404 on a streaming request: retried once NON-streaming (see above).
//! * 401, 409, 429, 5xx: retried ~10 times over ~3 minutes, unless the
//!   response has `x-should-retry: false` (then not retried at all; 5xx text
//!   gets "This is a server-side issue..." appended). Use
//!   `Reply::api_error(529, "overloaded_error", m).with_header("x-should-retry", "false")`.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// Markers in the last user message of forked helper queries that look like
/// a main turn otherwise (side question, prompt suggestion, compaction).
pub const FORK_HELPER_MARKERS: &[&str] = &[
    "This is a side question from the user",
    "[SUGGESTION MODE:",
    "Your task is to create a detailed summary of the conversation so far",
];

/// Text used for main requests when the script is empty.
pub const DEFAULT_TEXT: &str = "OK (mock default reply).";

/// Text answered to side (helper) requests.
pub const SIDE_TEXT: &str = "Mock side answer.";

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

fn next_id() -> u64 {
    NEXT_ID.fetch_add(1, Ordering::Relaxed)
}

// ---------------------------------------------------------------------------
// Replies
// ---------------------------------------------------------------------------

/// One content block of a scripted assistant message.
#[derive(Clone, Debug)]
pub enum Block {
    /// Streamed as one `text_delta` per chunk.
    Text { chunks: Vec<String> },
    /// Streamed as `thinking_delta` chunks, then one `signature_delta`.
    Thinking {
        chunks: Vec<String>,
        signature: String,
    },
    /// Streamed as `input_json_delta` chunks of the serialized input.
    ToolUse {
        id: String,
        name: String,
        input: Value,
    },
}

/// A scripted answer for one main `POST /v1/messages`.
#[derive(Clone, Debug)]
pub enum Reply {
    Message {
        blocks: Vec<Block>,
        /// `end_turn`, `tool_use`, `max_tokens`, ...
        stop_reason: String,
        /// Sleep before every delta event.
        chunk_delay: Duration,
        /// Sleep after the headers, before `message_start`.
        initial_delay: Duration,
        /// Wait (after the headers, before `initial_delay`) until this file
        /// exists: another reply's [`Reply::then_mark`] (an order between
        /// two answers, not a guessed time). 120 s at most.
        after: Option<PathBuf>,
        /// Once the whole answer is written, create this file.
        mark: Option<PathBuf>,
        /// `usage.output_tokens` reported in `message_delta` (None: estimated).
        output_tokens: Option<u64>,
        /// The whole `usage` object of the answer, as given (in
        /// `message_start` and `message_delta`): known token counts, for
        /// what the CLI prices them at. None: estimated counts.
        usage: Option<Value>,
    },
    Error {
        status: u16,
        error_type: String,
        message: String,
        /// How many requests this entry answers before it leaves the queue.
        times: usize,
        extra_headers: Vec<(String, String)>,
    },
}

fn split_words(text: &str, words_per_chunk: usize) -> Vec<String> {
    // Split keeping whitespace attached to the preceding word.
    let mut chunks = Vec::new();
    let mut cur = String::new();
    let mut words = 0;
    let mut in_space = false;
    for ch in text.chars() {
        if ch.is_whitespace() {
            in_space = true;
        } else if in_space {
            in_space = false;
            words += 1;
            if words >= words_per_chunk {
                chunks.push(std::mem::take(&mut cur));
                words = 0;
            }
        }
        cur.push(ch);
    }
    if !cur.is_empty() || chunks.is_empty() {
        chunks.push(cur);
    }
    chunks
}

fn split_chars(s: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    if chars.is_empty() {
        return vec![String::new()];
    }
    chars.chunks(n.max(1)).map(|c| c.iter().collect()).collect()
}

impl Reply {
    /// A message with the given blocks; stop_reason is `tool_use` when any
    /// block is a tool_use, else `end_turn`.
    pub fn blocks(blocks: Vec<Block>) -> Reply {
        let stop = if blocks.iter().any(|b| matches!(b, Block::ToolUse { .. })) {
            "tool_use"
        } else {
            "end_turn"
        };
        Reply::Message {
            blocks,
            stop_reason: stop.to_string(),
            chunk_delay: Duration::ZERO,
            initial_delay: Duration::ZERO,
            after: None,
            mark: None,
            output_tokens: None,
            usage: None,
        }
    }

    /// Text, streamed in chunks of two words (several `text_delta`s).
    pub fn text(text: &str) -> Reply {
        Reply::blocks(vec![Block::text(text)])
    }

    /// Text streamed exactly as the given chunks.
    pub fn text_chunks(chunks: &[&str]) -> Reply {
        Reply::blocks(vec![Block::Text {
            chunks: chunks.iter().map(|s| s.to_string()).collect(),
        }])
    }

    /// A thinking block followed by a text block.
    pub fn thinking_then_text(thinking: &str, text: &str) -> Reply {
        Reply::blocks(vec![Block::thinking(thinking), Block::text(text)])
    }

    /// One tool_use block (id generated, see [`Reply::tool_use_ids`]).
    pub fn tool_use(name: &str, input: Value) -> Reply {
        Reply::blocks(vec![Block::tool_use(name, input)])
    }

    /// Several tool_use blocks in one message (parallel tool calls).
    pub fn tool_uses(calls: Vec<(&str, Value)>) -> Reply {
        Reply::blocks(
            calls
                .into_iter()
                .map(|(n, i)| Block::tool_use(n, i))
                .collect(),
        )
    }

    /// A Bash tool_use: `{"command": cmd, "description": "Run: cmd"}`.
    pub fn bash(command: &str) -> Reply {
        Reply::tool_use(
            "Bash",
            json!({"command": command, "description": format!("Run: {command}")}),
        )
    }

    /// An API error answered with `status` and the API's JSON error body
    /// `{"type":"error","error":{"type":..,"message":..},"request_id":..}`.
    pub fn api_error(status: u16, error_type: &str, message: &str) -> Reply {
        Reply::Error {
            status,
            error_type: error_type.to_string(),
            message: message.to_string(),
            times: 1,
            extra_headers: Vec::new(),
        }
    }

    /// An error the CLI surfaces at once, without any retry, keeping the
    /// message: 402 `billing_error` (result text `API Error: 402 <message>`).
    pub fn fatal(message: &str) -> Reply {
        Reply::api_error(402, "billing_error", message)
    }

    /// Prepend a block (e.g. text before a tool_use).
    pub fn with_block_first(mut self, block: Block) -> Reply {
        if let Reply::Message { blocks, .. } = &mut self {
            blocks.insert(0, block);
        }
        self
    }

    /// Sleep this long before every delta event (to test streaming/interrupts).
    pub fn with_delay(mut self, d: Duration) -> Reply {
        if let Reply::Message { chunk_delay, .. } = &mut self {
            *chunk_delay = d;
        }
        self
    }

    /// Sleep this long before the first event.
    pub fn with_initial_delay(mut self, d: Duration) -> Reply {
        if let Reply::Message { initial_delay, .. } = &mut self {
            *initial_delay = d;
        }
        self
    }

    /// Begin the answer only once `file` exists (made by another reply's
    /// [`Reply::then_mark`]): this answer comes after that one, however
    /// slow the machine.
    pub fn after(mut self, file: impl Into<PathBuf>) -> Reply {
        if let Reply::Message { after, .. } = &mut self {
            *after = Some(file.into());
        }
        self
    }

    /// Create `file` once the whole answer is written (see [`Reply::after`]).
    pub fn then_mark(mut self, file: impl Into<PathBuf>) -> Reply {
        if let Reply::Message { mark, .. } = &mut self {
            *mark = Some(file.into());
        }
        self
    }

    pub fn with_stop_reason(mut self, reason: &str) -> Reply {
        if let Reply::Message { stop_reason, .. } = &mut self {
            *stop_reason = reason.to_string();
        }
        self
    }

    pub fn with_output_tokens(mut self, n: u64) -> Reply {
        if let Reply::Message { output_tokens, .. } = &mut self {
            *output_tokens = Some(n);
        }
        self
    }

    /// The answer's `usage` exactly as given (input, output, cache reads
    /// and writes, their 5-minute and 1-hour split...), in both
    /// `message_start` and `message_delta`.
    pub fn with_usage(mut self, u: Value) -> Reply {
        if let Reply::Message { usage, .. } = &mut self {
            *usage = Some(u);
        }
        self
    }

    /// For errors: answer this many requests (e.g. 6 for a 400, whose
    /// beta-fallback ladder sends 6 requests) before leaving the queue.
    pub fn times(mut self, n: usize) -> Reply {
        if let Reply::Error { times, .. } = &mut self {
            *times = n.max(1);
        }
        self
    }

    /// For errors: an extra response header (e.g. `x-should-retry: false`).
    pub fn with_header(mut self, name: &str, value: &str) -> Reply {
        if let Reply::Error { extra_headers, .. } = &mut self {
            extra_headers.push((name.to_string(), value.to_string()));
        }
        self
    }

    /// Ids of the tool_use blocks of this reply, in order.
    pub fn tool_use_ids(&self) -> Vec<String> {
        match self {
            Reply::Message { blocks, .. } => blocks
                .iter()
                .filter_map(|b| match b {
                    Block::ToolUse { id, .. } => Some(id.clone()),
                    _ => None,
                })
                .collect(),
            Reply::Error { .. } => Vec::new(),
        }
    }

    /// The id of the first tool_use block (panics if none).
    pub fn tool_use_id(&self) -> String {
        self.tool_use_ids()
            .into_iter()
            .next()
            .expect("reply has no tool_use block")
    }

    fn times_left(&self) -> usize {
        match self {
            Reply::Error { times, .. } => *times,
            _ => 1,
        }
    }
}

impl Block {
    pub fn text(text: &str) -> Block {
        Block::Text {
            chunks: split_words(text, 2),
        }
    }
    pub fn thinking(thinking: &str) -> Block {
        Block::Thinking {
            chunks: split_words(thinking, 3),
            signature: format!("mock-signature-{}", next_id()),
        }
    }
    pub fn tool_use(name: &str, input: Value) -> Block {
        Block::ToolUse {
            id: format!("toolu_mock_{:06}", next_id()),
            name: name.to_string(),
            input,
        }
    }
    pub fn tool_use_with_id(id: &str, name: &str, input: Value) -> Block {
        Block::ToolUse {
            id: id.to_string(),
            name: name.to_string(),
            input,
        }
    }
}

// ---------------------------------------------------------------------------
// Recorded requests
// ---------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RequestKind {
    /// Agent-loop turn (main thread or sub-agent): consumes the script.
    Main,
    /// Helper query or count_tokens: short canned answer.
    Side,
    /// Any other path (e.g. `HEAD /api/hello`).
    Other,
}

#[derive(Clone, Debug)]
pub struct ToolResult {
    pub tool_use_id: String,
    /// Text of the result (string content, or text blocks joined by "\n").
    pub content: String,
    pub is_error: bool,
}

#[derive(Clone, Debug)]
pub struct RecordedRequest {
    /// Order of arrival, from 0.
    pub seq: usize,
    pub method: String,
    /// Full request target, e.g. `/v1/messages?beta=true`.
    pub path: String,
    /// Header names lower-cased.
    pub headers: Vec<(String, String)>,
    /// Parsed JSON body; `Value::Null` when empty or not JSON.
    pub body: Value,
    pub kind: RequestKind,
    /// Index of the scripted reply used (order of `push`), for Main requests
    /// answered from the script; None when the default text was used.
    pub script_index: Option<usize>,
    /// Time since the server started.
    pub at: Duration,
    /// Which TCP connection carried it (0, 1, ...): shows keep-alive reuse.
    pub conn: usize,
}

impl RecordedRequest {
    /// The path without the query string.
    pub fn path_only(&self) -> &str {
        self.path.split('?').next().unwrap_or("")
    }
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }
    pub fn is_main(&self) -> bool {
        self.kind == RequestKind::Main
    }
    pub fn model(&self) -> Option<&str> {
        self.body.get("model").and_then(Value::as_str)
    }
    pub fn is_stream(&self) -> bool {
        self.body
            .get("stream")
            .and_then(Value::as_bool)
            .unwrap_or(false)
    }
    pub fn messages(&self) -> Vec<Value> {
        self.body
            .get("messages")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    }
    /// Names of the tools offered to the model.
    pub fn tool_names(&self) -> Vec<String> {
        self.body
            .get("tools")
            .and_then(Value::as_array)
            .map(|ts| {
                ts.iter()
                    .filter_map(|t| t.get("name").and_then(Value::as_str).map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    }
    /// All system prompt text joined by "\n".
    pub fn system_text(&self) -> String {
        match self.body.get("system") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Array(a)) => a
                .iter()
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n"),
            _ => String::new(),
        }
    }
    /// True for sub-agent turns (billing header `cc_is_subagent=true`).
    pub fn is_subagent(&self) -> bool {
        self.system_text().contains("cc_is_subagent=true")
    }
    /// The last message with role `user`.
    pub fn last_user_message(&self) -> Option<Value> {
        self.messages()
            .into_iter()
            .rev()
            .find(|m| m.get("role").and_then(Value::as_str) == Some("user"))
    }
    /// Text of the last user message (text blocks joined by "\n"); the CLI
    /// prepends `<system-reminder>` blocks, so prefer `contains`.
    pub fn last_user_text(&self) -> String {
        self.last_user_message()
            .map(|m| content_text(m.get("content")))
            .unwrap_or_default()
    }
    /// The image blocks of the last user message, in order, as
    /// `(media_type, base64 data)`.
    pub fn last_user_images(&self) -> Vec<(String, String)> {
        let Some(m) = self.last_user_message() else {
            return Vec::new();
        };
        let Some(blocks) = m.get("content").and_then(Value::as_array) else {
            return Vec::new();
        };
        blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("image"))
            .map(|b| {
                let s = |k: &str| b["source"][k].as_str().unwrap_or_default().to_string();
                (s("media_type"), s("data"))
            })
            .collect()
    }
    /// tool_result blocks of the last user message.
    pub fn tool_results(&self) -> Vec<ToolResult> {
        let Some(m) = self.last_user_message() else {
            return Vec::new();
        };
        let Some(blocks) = m.get("content").and_then(Value::as_array) else {
            return Vec::new();
        };
        blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
            .map(|b| ToolResult {
                tool_use_id: b
                    .get("tool_use_id")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                content: content_text(b.get("content")),
                is_error: b.get("is_error").and_then(Value::as_bool).unwrap_or(false),
            })
            .collect()
    }
    /// The tool_result for `tool_use_id` anywhere in the conversation.
    pub fn tool_result_for(&self, tool_use_id: &str) -> Option<ToolResult> {
        for m in self.messages() {
            if let Some(blocks) = m.get("content").and_then(Value::as_array) {
                for b in blocks {
                    if b.get("type").and_then(Value::as_str) == Some("tool_result")
                        && b.get("tool_use_id").and_then(Value::as_str) == Some(tool_use_id)
                    {
                        return Some(ToolResult {
                            tool_use_id: tool_use_id.to_string(),
                            content: content_text(b.get("content")),
                            is_error: b.get("is_error").and_then(Value::as_bool).unwrap_or(false),
                        });
                    }
                }
            }
        }
        None
    }
    /// Whether the serialized body contains `needle`.
    pub fn body_contains(&self, needle: &str) -> bool {
        self.body.to_string().contains(needle)
    }
}

fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// Marker of the environment block the CLI puts into the messages of every
/// agent-loop request (main thread and sub-agents, any model, any system
/// prompt); one-shot helpers do not carry it.
pub const ENVIRONMENT_MARKER: &str = "You have been invoked in the following environment";

/// Classify a request (see the module docs).
pub fn classify(method: &str, path: &str, body: &Value) -> RequestKind {
    let p = path.split('?').next().unwrap_or("");
    if method != "POST" || !p.starts_with("/v1/messages") {
        return RequestKind::Other;
    }
    if p != "/v1/messages" {
        return RequestKind::Side; // count_tokens, batches, ...
    }
    if body.pointer("/output_config/format").is_some() {
        return RequestKind::Side; // structured-output helper (session title, ...)
    }
    let messages = body.get("messages").cloned().unwrap_or(Value::Null);
    let no_tools = body
        .get("tools")
        .and_then(Value::as_array)
        .is_none_or(|t| t.is_empty());
    let no_thinking = body.get("thinking").is_none();
    if no_tools && no_thinking && !messages.to_string().contains(ENVIRONMENT_MARKER) {
        return RequestKind::Side; // one-shot helper
    }
    let last_user = messages
        .as_array()
        .and_then(|ms| {
            ms.iter()
                .rev()
                .find(|m| m.get("role").and_then(Value::as_str) == Some("user"))
        })
        .map(|m| m.get("content").map(|c| c.to_string()).unwrap_or_default())
        .unwrap_or_default();
    if FORK_HELPER_MARKERS.iter().any(|mk| last_user.contains(mk)) {
        return RequestKind::Side; // forked helper (side question, suggestion, compaction)
    }
    RequestKind::Main
}

// ---------------------------------------------------------------------------
// Server
// ---------------------------------------------------------------------------

type Matcher = Box<dyn Fn(&RecordedRequest) -> bool + Send + Sync>;

struct Scripted {
    index: usize,
    reply: Reply,
    matcher: Option<Matcher>,
    left: usize,
}

type Classifier = Box<dyn Fn(&str, &str, &Value) -> RequestKind + Send + Sync>;

struct State {
    classifier: Option<Arc<Classifier>>,
    queue: VecDeque<Scripted>,
    pushed: usize,
    requests: Vec<RecordedRequest>,
    default_text: String,
}

struct Inner {
    state: Mutex<State>,
    changed: Condvar,
    started: Instant,
    stop: AtomicBool,
    conns: AtomicU64,
}

/// The mock server. Dropping it stops accepting connections.
pub struct MockApi {
    inner: Arc<Inner>,
    addr: SocketAddr,
}

impl MockApi {
    /// Bind 127.0.0.1:0 and serve in background threads.
    pub fn start() -> MockApi {
        let listener = TcpListener::bind("127.0.0.1:0").expect("mock api: bind");
        let addr = listener.local_addr().expect("mock api: local_addr");
        let inner = Arc::new(Inner {
            state: Mutex::new(State {
                classifier: None,
                queue: VecDeque::new(),
                pushed: 0,
                requests: Vec::new(),
                default_text: DEFAULT_TEXT.to_string(),
            }),
            changed: Condvar::new(),
            started: Instant::now(),
            stop: AtomicBool::new(false),
            conns: AtomicU64::new(0),
        });
        let acc = inner.clone();
        thread::Builder::new()
            .name("mock-api-accept".into())
            .spawn(move || {
                for conn in listener.incoming() {
                    if acc.stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = conn else { continue };
                    let inner = acc.clone();
                    let conn = acc.conns.fetch_add(1, Ordering::SeqCst) as usize;
                    let _ = thread::Builder::new()
                        .name("mock-api-conn".into())
                        .spawn(move || {
                            let _ = serve_connection(stream, &inner, conn);
                        });
                }
            })
            .expect("mock api: spawn");
        MockApi { inner, addr }
    }

    /// `http://127.0.0.1:PORT` — the value for `ANTHROPIC_BASE_URL`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// Queue the reply for the next main request. Returns the reply's
    /// script index (0, 1, ...).
    pub fn push(&self, reply: Reply) -> usize {
        self.push_entry(reply, None)
    }

    /// Queue a reply that only a main request matching `pred` may take.
    /// Main requests take the FIRST queued entry whose matcher accepts them
    /// (entries pushed with `push` accept all), so e.g. a sub-agent's reply
    /// can be routed with `|r| r.is_subagent()` regardless of timing.
    pub fn push_matching<F>(&self, pred: F, reply: Reply) -> usize
    where
        F: Fn(&RecordedRequest) -> bool + Send + Sync + 'static,
    {
        self.push_entry(reply, Some(Box::new(pred)))
    }

    fn push_entry(&self, reply: Reply, matcher: Option<Matcher>) -> usize {
        let mut st = self.inner.state.lock().unwrap();
        let index = st.pushed;
        st.pushed += 1;
        let left = reply.times_left();
        st.queue.push_back(Scripted {
            index,
            reply,
            matcher,
            left,
        });
        index
    }

    /// Number of scripted replies not yet used.
    pub fn pending(&self) -> usize {
        self.inner.state.lock().unwrap().queue.len()
    }

    /// Replace [`classify`] (arguments: method, path, parsed body).
    pub fn set_classifier<F>(&self, f: F)
    where
        F: Fn(&str, &str, &Value) -> RequestKind + Send + Sync + 'static,
    {
        self.inner.state.lock().unwrap().classifier = Some(Arc::new(Box::new(f)));
    }

    /// Text answered to main requests when the script is empty.
    pub fn set_default_text(&self, text: &str) {
        self.inner.state.lock().unwrap().default_text = text.to_string();
    }

    /// Every request received so far, in order of arrival.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.inner.state.lock().unwrap().requests.clone()
    }

    /// Only the main-conversation `POST /v1/messages` requests.
    pub fn main_requests(&self) -> Vec<RecordedRequest> {
        self.requests()
            .into_iter()
            .filter(|r| r.kind == RequestKind::Main)
            .collect()
    }

    /// Wait until at least `n` requests satisfy `pred`; returns them
    /// (None on timeout).
    pub fn wait_for<F>(&self, n: usize, timeout: Duration, pred: F) -> Option<Vec<RecordedRequest>>
    where
        F: Fn(&RecordedRequest) -> bool,
    {
        let deadline = Instant::now() + timeout;
        let mut st = self.inner.state.lock().unwrap();
        loop {
            let found: Vec<RecordedRequest> =
                st.requests.iter().filter(|r| pred(r)).cloned().collect();
            if found.len() >= n {
                return Some(found);
            }
            let now = Instant::now();
            if now >= deadline {
                return None;
            }
            st = self
                .inner
                .changed
                .wait_timeout(st, deadline - now)
                .unwrap()
                .0;
        }
    }

    /// Wait until at least `n` main requests arrived.
    pub fn wait_for_main(&self, n: usize, timeout: Duration) -> Option<Vec<RecordedRequest>> {
        self.wait_for(n, timeout, |r| r.is_main())
    }
}

impl Drop for MockApi {
    fn drop(&mut self) {
        self.inner.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_millis(200));
    }
}

// --- HTTP ------------------------------------------------------------------

struct HttpRequest {
    method: String,
    path: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl HttpRequest {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
    fn wants_close(&self) -> bool {
        self.header("connection")
            .is_some_and(|v| v.to_ascii_lowercase().contains("close"))
    }
}

fn read_line(r: &mut impl BufRead) -> std::io::Result<Option<String>> {
    let mut buf = Vec::new();
    let n = r.read_until(b'\n', &mut buf)?;
    if n == 0 {
        return Ok(None);
    }
    while buf.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
        buf.pop();
    }
    Ok(Some(String::from_utf8_lossy(&buf).into_owned()))
}

fn read_request(r: &mut impl BufRead) -> std::io::Result<Option<HttpRequest>> {
    // Skip stray empty lines between requests.
    let line = loop {
        match read_line(r)? {
            None => return Ok(None),
            Some(l) if l.is_empty() => continue,
            Some(l) => break l,
        }
    };
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or("").to_string();
    let path = parts.next().unwrap_or("/").to_string();
    let mut headers = Vec::new();
    loop {
        match read_line(r)? {
            None => return Ok(None),
            Some(l) if l.is_empty() => break,
            Some(l) => {
                if let Some((k, v)) = l.split_once(':') {
                    headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
                }
            }
        }
    }
    let mut req = HttpRequest {
        method,
        path,
        headers,
        body: Vec::new(),
    };
    let chunked = req
        .header("transfer-encoding")
        .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
    if chunked {
        loop {
            let size_line = read_line(r)?.unwrap_or_default();
            let size_hex = size_line.split(';').next().unwrap_or("").trim();
            let size = usize::from_str_radix(size_hex, 16).unwrap_or(0);
            if size == 0 {
                // Trailers until an empty line.
                while let Some(l) = read_line(r)? {
                    if l.is_empty() {
                        break;
                    }
                }
                break;
            }
            let mut chunk = vec![0u8; size];
            r.read_exact(&mut chunk)?;
            req.body.extend_from_slice(&chunk);
            let _ = read_line(r)?; // CRLF after the chunk
        }
    } else if let Some(len) = req
        .header("content-length")
        .and_then(|v| v.parse::<usize>().ok())
    {
        let mut body = vec![0u8; len];
        r.read_exact(&mut body)?;
        req.body = body;
    }
    Ok(Some(req))
}

fn serve_connection(stream: TcpStream, inner: &Arc<Inner>, conn: usize) -> std::io::Result<()> {
    let _ = stream.set_nodelay(true);
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut out = stream;
    loop {
        let Some(req) = read_request(&mut reader)? else {
            return Ok(());
        };
        if inner.stop.load(Ordering::SeqCst) {
            return Ok(());
        }
        let close = req.wants_close();
        handle(&req, &mut out, inner, close, conn)?;
        if close {
            let _ = out.shutdown(std::net::Shutdown::Both);
            return Ok(());
        }
    }
}

fn status_text(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        402 => "Payment Required",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        409 => "Conflict",
        413 => "Payload Too Large",
        422 => "Unprocessable Entity",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        529 => "Overloaded",
        _ => "Status",
    }
}

fn write_json(
    out: &mut TcpStream,
    status: u16,
    body: &Value,
    extra: &[(String, String)],
    close: bool,
    head: bool,
) -> std::io::Result<()> {
    let bytes = body.to_string().into_bytes();
    let mut h = format!(
        "HTTP/1.1 {} {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nrequest-id: req_mock_{}\r\n",
        status,
        status_text(status),
        bytes.len(),
        next_id()
    );
    for (k, v) in extra {
        h.push_str(&format!("{k}: {v}\r\n"));
    }
    h.push_str(if close {
        "connection: close\r\n\r\n"
    } else {
        "connection: keep-alive\r\n\r\n"
    });
    out.write_all(h.as_bytes())?;
    if !head {
        out.write_all(&bytes)?;
    }
    out.flush()
}

/// Write one HTTP chunk holding one SSE event.
fn write_event(out: &mut TcpStream, data: &Value) -> std::io::Result<()> {
    let ev = data
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("message");
    let payload = format!("event: {}\ndata: {}\n\n", ev, data);
    out.write_all(format!("{:x}\r\n{}\r\n", payload.len(), payload).as_bytes())?;
    out.flush()
}

fn estimate_tokens(v: &Value) -> u64 {
    (v.to_string().len() as u64 / 4).max(1)
}

fn handle(
    req: &HttpRequest,
    out: &mut TcpStream,
    inner: &Arc<Inner>,
    close: bool,
    conn: usize,
) -> std::io::Result<()> {
    let body: Value = serde_json::from_slice(&req.body).unwrap_or(Value::Null);
    let custom = inner.state.lock().unwrap().classifier.clone();
    let kind = match custom {
        Some(f) => f(&req.method, &req.path, &body),
        None => classify(&req.method, &req.path, &body),
    };
    let mut rec = RecordedRequest {
        seq: 0,
        method: req.method.clone(),
        path: req.path.clone(),
        headers: req.headers.clone(),
        body,
        kind,
        script_index: None,
        at: inner.started.elapsed(),
        conn,
    };
    // Record and pick the reply under one lock.
    let (reply, default_text) = {
        let mut st = inner.state.lock().unwrap();
        rec.seq = st.requests.len();
        let mut chosen = None;
        if kind == RequestKind::Main {
            if let Some(pos) = st
                .queue
                .iter()
                .position(|e| e.matcher.as_ref().is_none_or(|m| m(&rec)))
            {
                let e = &mut st.queue[pos];
                rec.script_index = Some(e.index);
                chosen = Some(e.reply.clone());
                e.left -= 1;
                if e.left == 0 {
                    st.queue.remove(pos);
                }
            }
        }
        st.requests.push(rec.clone());
        inner.changed.notify_all();
        (chosen, st.default_text.clone())
    };
    let head = req.method == "HEAD";
    match kind {
        RequestKind::Other => write_json(out, 200, &json!({}), &[], close, head),
        RequestKind::Side => {
            if rec.path_only() == "/v1/messages/count_tokens" {
                let n = estimate_tokens(&rec.body);
                return write_json(out, 200, &json!({"input_tokens": n}), &[], close, false);
            }
            let text = side_text(&rec.body);
            send_message(out, &rec, &Reply::text(&text), close)
        }
        RequestKind::Main => {
            let reply = reply.unwrap_or_else(|| Reply::text(&default_text));
            send_message(out, &rec, &reply, close)
        }
    }
}

/// The canned text for a side request: a JSON object filled from the
/// requested schema for structured-output helpers (e.g. `{"title": "..."}`),
/// a summary for compaction, else [`SIDE_TEXT`].
fn side_text(body: &Value) -> String {
    if let Some(schema) = body.pointer("/output_config/format/schema") {
        return fill_schema(schema).to_string();
    }
    if body
        .to_string()
        .contains("create a detailed summary of the conversation")
    {
        return "<analysis>Mock.</analysis>\n<summary>Mock summary of the conversation.</summary>"
            .into();
    }
    SIDE_TEXT.to_string()
}

fn fill_schema(schema: &Value) -> Value {
    match schema.get("type").and_then(Value::as_str) {
        Some("object") => {
            let mut obj = serde_json::Map::new();
            if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                for (k, v) in props {
                    let val = if k == "title" {
                        json!("Mock session title")
                    } else {
                        fill_schema(v)
                    };
                    obj.insert(k.clone(), val);
                }
            }
            Value::Object(obj)
        }
        Some("array") => json!([]),
        Some("boolean") => json!(false),
        Some("integer") | Some("number") => json!(0),
        Some("null") => Value::Null,
        _ => {
            if let Some(e) = schema
                .get("enum")
                .and_then(Value::as_array)
                .and_then(|a| a.first())
            {
                e.clone()
            } else {
                json!("mock")
            }
        }
    }
}

fn block_json(b: &Block) -> Value {
    match b {
        Block::Text { chunks } => json!({"type": "text", "text": chunks.concat()}),
        Block::Thinking { chunks, signature } => {
            json!({"type": "thinking", "thinking": chunks.concat(), "signature": signature})
        }
        Block::ToolUse { id, name, input } => {
            json!({"type": "tool_use", "id": id, "name": name, "input": input})
        }
    }
}

/// Wait until `file` exists (120 s at most: a guard, not a time).
fn wait_for_file(file: Option<&Path>) {
    if let Some(file) = file {
        let until = Instant::now() + Duration::from_secs(120);
        while !file.exists() && Instant::now() < until {
            thread::sleep(Duration::from_millis(10));
        }
    }
}

fn send_message(
    out: &mut TcpStream,
    rec: &RecordedRequest,
    reply: &Reply,
    close: bool,
) -> std::io::Result<()> {
    let (blocks, stop_reason, chunk_delay, initial_delay, out_tokens, given, after, mark) =
        match reply {
            Reply::Error {
                status,
                error_type,
                message,
                extra_headers,
                ..
            } => {
                let body = json!({
                    "type": "error",
                    "error": {"type": error_type, "message": message},
                    "request_id": format!("req_mock_{}", next_id()),
                });
                return write_json(out, *status, &body, extra_headers, close, false);
            }
            Reply::Message {
                blocks,
                stop_reason,
                chunk_delay,
                initial_delay,
                after,
                mark,
                output_tokens,
                usage,
            } => (
                blocks,
                stop_reason,
                *chunk_delay,
                *initial_delay,
                *output_tokens,
                usage,
                after,
                mark,
            ),
        };
    let model = rec.model().unwrap_or("claude-mock").to_string();
    let msg_id = format!("msg_mock_{:06}", next_id());
    let input_tokens = estimate_tokens(&rec.body);
    let output_tokens = out_tokens.unwrap_or_else(|| {
        blocks
            .iter()
            .map(|b| estimate_tokens(&block_json(b)))
            .sum::<u64>()
            .max(1)
    });

    if !rec.is_stream() {
        wait_for_file(after.as_deref());
        let body = json!({
            "id": msg_id, "type": "message", "role": "assistant", "model": model,
            "content": blocks.iter().map(block_json).collect::<Vec<_>>(),
            "stop_reason": stop_reason, "stop_sequence": null,
            "usage": given.clone().unwrap_or_else(|| json!({"input_tokens": input_tokens, "cache_creation_input_tokens": 0,
                      "cache_read_input_tokens": 0, "output_tokens": output_tokens,
                      "service_tier": "standard"})),
        });
        write_json(out, 200, &body, &[], close, false)?;
        if let Some(file) = mark {
            std::fs::write(file, b"")?;
        }
        return Ok(());
    }

    let h = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\ncache-control: no-cache\r\n\
         transfer-encoding: chunked\r\nrequest-id: req_mock_{}\r\nconnection: {}\r\n\r\n",
        next_id(),
        if close { "close" } else { "keep-alive" }
    );
    out.write_all(h.as_bytes())?;
    out.flush()?;
    wait_for_file(after.as_deref());
    if !initial_delay.is_zero() {
        thread::sleep(initial_delay);
    }
    write_event(
        out,
        &json!({
            "type": "message_start",
            "message": {
                "id": msg_id, "type": "message", "role": "assistant", "model": model,
                "content": [], "stop_reason": null, "stop_sequence": null,
                "usage": given.clone().unwrap_or_else(|| json!({"input_tokens": input_tokens, "cache_creation_input_tokens": 0,
                          "cache_read_input_tokens": 0, "output_tokens": 1,
                          "service_tier": "standard"})),
            }
        }),
    )?;
    write_event(out, &json!({"type": "ping"}))?;
    let delta = |out: &mut TcpStream, index: usize, d: Value| -> std::io::Result<()> {
        if !chunk_delay.is_zero() {
            thread::sleep(chunk_delay);
        }
        write_event(
            out,
            &json!({"type": "content_block_delta", "index": index, "delta": d}),
        )
    };
    for (index, b) in blocks.iter().enumerate() {
        match b {
            Block::Text { chunks } => {
                write_event(
                    out,
                    &json!({"type": "content_block_start", "index": index,
                    "content_block": {"type": "text", "text": ""}}),
                )?;
                for c in chunks {
                    delta(out, index, json!({"type": "text_delta", "text": c}))?;
                }
            }
            Block::Thinking { chunks, signature } => {
                write_event(
                    out,
                    &json!({"type": "content_block_start", "index": index,
                    "content_block": {"type": "thinking", "thinking": "", "signature": ""}}),
                )?;
                for c in chunks {
                    delta(out, index, json!({"type": "thinking_delta", "thinking": c}))?;
                }
                delta(
                    out,
                    index,
                    json!({"type": "signature_delta", "signature": signature}),
                )?;
            }
            Block::ToolUse { id, name, input } => {
                write_event(
                    out,
                    &json!({"type": "content_block_start", "index": index,
                    "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}}),
                )?;
                for c in split_chars(&input.to_string(), 12) {
                    delta(
                        out,
                        index,
                        json!({"type": "input_json_delta", "partial_json": c}),
                    )?;
                }
            }
        }
        write_event(out, &json!({"type": "content_block_stop", "index": index}))?;
    }
    write_event(
        out,
        &json!({
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason, "stop_sequence": null},
            "usage": given.clone().unwrap_or_else(|| json!({"input_tokens": input_tokens, "cache_creation_input_tokens": 0,
                      "cache_read_input_tokens": 0, "output_tokens": output_tokens})),
        }),
    )?;
    write_event(out, &json!({"type": "message_stop"}))?;
    out.write_all(b"0\r\n\r\n")?;
    out.flush()?;
    if let Some(file) = mark {
        std::fs::write(file, b"")?;
    }
    Ok(())
}
