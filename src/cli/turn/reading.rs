//! What a turn's messages mean, read once for the chat and for `ask`:
//! which text is the answer (shown once, whether it was streamed or not),
//! which tool calls run and how each ended, what the sub-agents do.
//!
//! What the work means (which calls run and how each ended, the agents,
//! the task list, whether streamed text repeats) is the library's
//! [`Progress`]; [`Reading`] holds one, takes the messages in order and
//! hands out what was [`Seen`], with what the screen keeps beside it (a
//! call's summary, when it started). The chat's renderer and `ask`'s
//! output are two sinks over it that decide only how it looks. No I/O here.

use super::summary::{tool_summary_at, Here};
use super::tasks;
use crate::cli::sanitize::Sanitizer;
use crate::cli::term::text::first_line;
use claudio::progress::{self, Change, Progress, Todos};
use claudio::protocol::ask::RequestKind;
use claudio::protocol::{
    ApiRetry, ContentBlock, MessageContent, StreamEvent, SystemMessage, TaskNotification,
    TaskProgress, ToolResultBlock,
};
use claudio::{Message, ResultMessage};
use std::collections::{btree_map, BTreeMap, HashMap};
use std::time::Instant;

/// A running tool call, as it is shown: name and summary inert.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub id: String,
    pub name: String,
    pub summary: String,
    /// `(+N −M)` for edits.
    pub detail: String,
    pub started: Instant,
    /// 0 for the main agent's calls, 1 for a sub-agent's.
    pub depth: usize,
    /// The `Task` call whose sub-agent made this call.
    pub parent: Option<String>,
}

/// How a tool call ended (the library's [`progress::CallEnd`], as the
/// screen tells them apart).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallEnd {
    Done,
    Failed,
    /// A `Task` call whose agent went on in the background.
    Background,
}

impl CallEnd {
    fn of(end: progress::CallEnd) -> CallEnd {
        match end {
            progress::CallEnd::Failed => CallEnd::Failed,
            progress::CallEnd::Background => CallEnd::Background,
            _ => CallEnd::Done,
        }
    }
}

/// A sub-agent that finished (or failed, or was stopped), once per agent.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentEnd<'m> {
    pub label: String,
    /// `completed`, `failed`, `stopped`…, inert.
    pub status: String,
    /// Duration and tool calls, when the CLI reported them.
    pub facts: Vec<String>,
    /// Its final report, unless its own text was already shown.
    pub summary: Option<&'m str>,
}

/// One thing a message said, in the order it said it.
///
/// Small (40 bytes: the rare large payloads are boxed): a line of 300,000
/// text blocks says 900,000 of them, 160 MB when a `Seen` was 180 bytes.
#[derive(Debug, PartialEq)]
pub enum Seen<'m> {
    /// A text block of the answer begins.
    TextStart,
    /// Text of the answer, as the model wrote it: the sink makes it inert.
    Text(&'m str),
    /// A thinking block begins.
    ThinkingStart,
    Thinking(&'m str),
    /// The block that was open ended.
    BlockEnd,
    /// The main agent's message ended: no escape sequence runs past it.
    MessageEnd,
    /// A tool call began (questions and plans are asked, not shown as
    /// calls).
    ToolStarted(Box<Call>),
    /// A tool call ended.
    ToolEnded {
        call: Box<Call>,
        end: CallEnd,
        result: &'m ToolResultBlock,
    },
    /// Text a sub-agent wrote.
    AgentText {
        label: Box<str>,
        text: &'m str,
    },
    AgentEnded(Box<AgentEnd<'m>>),
    /// An API error the CLI wrote as an assistant message (inert).
    ApiError(String),
    Retry(&'m ApiRetry),
    Compacted,
    /// The turn's result; the calls of agents still at work stay.
    Result(&'m ResultMessage),
    /// The model's task list changed (see [`Reading::todos`]).
    Todos,
}

/// What the screen keeps of a sub-agent (which agents exist and which
/// still work is [`tasks::Agents`]'s).
#[derive(Debug, Clone)]
pub struct AgentUi {
    pub started: Instant,
    /// The last `task_progress` description (`Running make a file`).
    pub progress: String,
    /// Whether its own text was shown (then its summary is not repeated).
    spoke: bool,
    /// Whether its end was seen.
    reported: bool,
}

/// The calls whose agents a message may start: the main agent's `Task`
/// calls, a `task_started`'s call.
fn started_calls(m: &Message) -> Vec<&str> {
    match m {
        Message::Assistant(a) if a.parent_tool_use_id.is_none() => a
            .message
            .content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::ToolUse(t) if tasks::is_task_tool(&t.name) => Some(t.id.as_str()),
                _ => None,
            })
            .collect(),
        Message::System(s) => match &**s {
            SystemMessage::TaskStarted(t) => t.tool_use_id.as_deref().into_iter().collect(),
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// The running calls as the screen shows them, in the order they began,
/// each found by its id at once: N calls and then their N results cost N
/// steps, not N². Which calls run is the [`Progress`]'s; this follows it.
#[derive(Debug, Default)]
struct Running {
    /// The calls, by the order they began in.
    calls: BTreeMap<u64, Call>,
    /// Where each call stands in that order, by its id.
    order: HashMap<String, u64>,
    next: u64,
    /// How many of the calls are a sub-agent's (the live region draws
    /// the others without a pass over them all).
    subs: usize,
}

impl Running {
    /// A call begins (one with the id of a call still running takes its
    /// place: ids are not reused).
    fn push(&mut self, call: Call) {
        let n = self.next;
        self.next += 1;
        if let Some(old) = self.order.insert(call.id.clone(), n) {
            if let Some(gone) = self.calls.remove(&old) {
                self.subs -= usize::from(gone.parent.is_some());
            }
        }
        self.subs += usize::from(call.parent.is_some());
        self.calls.insert(n, call);
    }

    fn remove(&mut self, id: &str) -> Option<Call> {
        let n = self.order.remove(id)?;
        let gone = self.calls.remove(&n)?;
        self.subs -= usize::from(gone.parent.is_some());
        Some(gone)
    }

    fn get(&self, id: &str) -> Option<&Call> {
        self.calls.get(self.order.get(id)?)
    }

    fn get_mut(&mut self, id: &str) -> Option<&mut Call> {
        self.calls.get_mut(self.order.get(id)?)
    }

    fn clear(&mut self) {
        self.calls.clear();
        self.order.clear();
        self.subs = 0;
    }
}

/// The session as the messages tell it: answer, calls, agents.
#[derive(Debug, Default)]
pub struct Reading {
    /// What the work means: the library's reading of it.
    progress: Progress,
    calls: Running,
    /// The calls not shown as tool lines (questions, plans, the task
    /// list's tools): shown only if they fail, with the reason.
    quiet: Running,
    agent_ui: HashMap<String, AgentUi>,
    /// Where the person is: a call's paths are shown from there.
    here: Here,
}

impl Reading {
    /// A reading whose calls show their paths from `here`
    /// ([`Here::show`]); [`Reading::default`] shows them exact.
    pub fn at(here: Here) -> Reading {
        Reading {
            here,
            ..Reading::default()
        }
    }

    /// The person moved (a session of another folder resumed): calls show
    /// their paths from `here` now.
    pub fn move_to(&mut self, here: Here) {
        self.here = here;
    }

    /// Read one message: what it said, in order.
    #[cfg(test)]
    pub fn seen<'m>(&mut self, m: &'m Message, now: Instant) -> Vec<Seen<'m>> {
        let mut seen = Vec::new();
        self.read(m, now, &mut |s| seen.push(s));
        seen
    }

    /// Read one message; `seen` gets what it said, in order.
    pub fn read<'m>(&mut self, m: &'m Message, now: Instant, seen: &mut impl FnMut(Seen<'m>)) {
        // the library reads what the message means first: the calls it
        // ended are shown below, in the message's order
        let mut ended: HashMap<String, progress::CallEnd> = HashMap::new();
        let Reading {
            progress,
            calls,
            quiet,
            ..
        } = self;
        progress.observe_with(m, |change| match change {
            Change::TodosChanged => seen(Seen::Todos),
            Change::CallEnded { call, end } => {
                ended.insert(call.id, end);
            }
            Change::CallDropped(call) => {
                calls.remove(&call.id);
                quiet.remove(&call.id);
            }
            _ => {}
        });
        // an agent is new only through the message that starts it (looking
        // through all that run, every message, cost time in their number)
        for call in started_calls(m) {
            if !self.agents().is_done(call) && !self.agent_ui.contains_key(call) {
                self.ui(call, now);
            }
        }
        match m {
            Message::StreamEvent(e) if e.parent_tool_use_id.is_none() => match &e.event {
                StreamEvent::ContentBlockStart { content_block, .. } => match content_block {
                    ContentBlock::Text(_) => seen(Seen::TextStart),
                    ContentBlock::Thinking(_) => seen(Seen::ThinkingStart),
                    _ => {}
                },
                StreamEvent::ContentBlockStop { .. } => seen(Seen::BlockEnd),
                StreamEvent::MessageStop => seen(Seen::MessageEnd),
                _ => {
                    if let Some(t) = e.text_delta() {
                        seen(Seen::Text(t));
                    } else if let Some(t) = e.thinking_delta() {
                        seen(Seen::Thinking(t));
                    }
                }
            },
            Message::Assistant(a) => {
                let parent = a.parent_tool_use_id.as_deref();
                let main = parent.is_none();
                // text streamed as deltas is not shown again; an API error
                // dressed as a message is reported as one, not as the answer
                let shown = main && (self.progress.already_streamed() || a.is_synthetic());
                for b in &a.message.content {
                    match b {
                        ContentBlock::Text(t) if main && !shown => {
                            seen(Seen::TextStart);
                            seen(Seen::Text(&t.text));
                            seen(Seen::BlockEnd);
                        }
                        ContentBlock::Text(t) => {
                            if let Some(p) = parent {
                                if self.agents().knows(p) {
                                    self.ui(p, now).spoke = true;
                                }
                                let label = self.agents().label(p);
                                seen(Seen::AgentText {
                                    label: label.into(),
                                    text: &t.text,
                                });
                            }
                        }
                        ContentBlock::Thinking(t) if main && !shown => {
                            seen(Seen::ThinkingStart);
                            seen(Seen::Thinking(&t.thinking));
                            seen(Seen::BlockEnd);
                        }
                        // questions and plans show as their own prompt, the
                        // task list as a checklist
                        ContentBlock::ToolUse(t) => {
                            seen(Seen::BlockEnd);
                            let call = Call {
                                id: t.id.clone(),
                                name: Sanitizer::clean(&t.name),
                                summary: Sanitizer::clean(&tool_summary_at(
                                    &t.name, &t.input, &self.here,
                                )),
                                detail: edit_counts(&t.name, &t.input),
                                started: now,
                                depth: usize::from(!main),
                                parent: a.parent_tool_use_id.clone(),
                            };
                            if RequestKind::of_tool(&t.name) != RequestKind::Tool
                                || progress::is_todo_tool(&t.name)
                            {
                                self.quiet.push(call);
                            } else {
                                self.calls.push(call.clone());
                                seen(Seen::ToolStarted(Box::new(call)));
                            }
                        }
                        _ => {}
                    }
                }
                if main {
                    seen(Seen::MessageEnd);
                    if a.is_synthetic() {
                        seen(Seen::ApiError(Sanitizer::clean(&a.text())));
                    }
                }
            }
            Message::User(u) => {
                if let MessageContent::Blocks(blocks) = &u.message.content {
                    for b in blocks {
                        if let ContentBlock::ToolResult(r) = b {
                            if let Some(end) = ended.remove(&r.tool_use_id) {
                                self.tool_result(r, CallEnd::of(end), seen);
                            }
                        }
                    }
                }
            }
            Message::System(s) => match &**s {
                SystemMessage::ApiRetry(r) => seen(Seen::Retry(r)),
                SystemMessage::TaskProgress(p) => self.task_progress(p, now),
                SystemMessage::TaskNotification(n) => {
                    if let Some(end) = self.agent_ended(n, now) {
                        seen(Seen::AgentEnded(Box::new(end)));
                    }
                }
                SystemMessage::CompactBoundary(_) => seen(Seen::Compacted),
                _ => {}
            },
            // the calls that end with the turn were dropped above (a
            // background agent's go on after the main turn's result)
            Message::Result(r) => seen(Seen::Result(r)),
            _ => {}
        }
    }

    /// A prompt was sent (the stream's [`claudio::Event::TurnStarted`]):
    /// its result is owed.
    pub fn turn_started(&mut self) {
        self.progress.observe_event(&claudio::Event::TurnStarted);
    }

    /// A turn ended (the stream's [`claudio::Event::TurnEnded`], after its
    /// `result`; one for each prompt it took).
    pub fn turn_ended(&mut self) {
        self.progress.observe_event(&claudio::Event::TurnEnded);
    }

    /// The calls still running, oldest first.
    pub fn calls(&self) -> btree_map::Values<'_, u64, Call> {
        self.calls.calls.values()
    }

    /// How many running calls are a sub-agent's.
    pub fn sub_calls(&self) -> usize {
        self.calls.subs
    }

    /// The running call `id`.
    pub fn call(&self, id: &str) -> Option<&Call> {
        self.calls.get(id)
    }

    /// The call `id` runs from `now` (it was allowed, or refused, at
    /// `now`): its time is what it took, not what the person took to decide.
    pub fn call_runs(&mut self, id: &str, now: Instant) {
        if let Some(c) = self.calls.get_mut(id) {
            c.started = now;
        }
    }

    /// The session's sub-agents.
    pub fn agents(&self) -> tasks::Agents<'_> {
        tasks::Agents::new(self.progress.agents())
    }

    /// The API calls of the turn that ended with `r`: the responses it
    /// showed ([`Progress::api_calls`]); where it showed none (a local
    /// command, a CLI that streams no ids), the CLI's `num_turns`.
    pub fn api_calls(&self, r: &claudio::ResultMessage) -> u64 {
        match self.progress.api_calls() {
            0 => r.num_turns.unwrap_or(0),
            n => n,
        }
    }

    /// The model's task list.
    pub fn todos(&self) -> &Todos {
        self.progress.todos()
    }

    /// The library's reading of the work (what runs, the task list, the
    /// cost), as any front end sees it.
    #[allow(dead_code)] // the deck's publishing reads it
    pub fn progress(&self) -> &Progress {
        &self.progress
    }

    /// How the agent of `call` is shown.
    pub fn agent_ui(&self, call: &str) -> Option<&AgentUi> {
        self.agent_ui.get(call)
    }

    /// The turn ended without a result (the CLI died): no call runs.
    pub fn abandon_turn(&mut self) {
        self.progress.abandon_turn(|_| {});
        self.calls.clear();
        self.quiet.clear();
    }

    /// A new session (`/new`, `/resume`, rewind, a restart): nothing of the
    /// old one runs any more.
    pub fn forget_session(&mut self) {
        self.progress.forget_session();
        self.agent_ui.clear();
        self.calls.clear();
        self.quiet.clear();
    }

    fn ui(&mut self, call: &str, now: Instant) -> &mut AgentUi {
        self.agent_ui
            .entry(call.to_owned())
            .or_insert_with(|| AgentUi {
                started: now,
                progress: String::new(),
                spoke: false,
                reported: false,
            })
    }

    /// The call of `r` ended (the library said how).
    fn tool_result<'m>(
        &mut self,
        r: &'m ToolResultBlock,
        end: CallEnd,
        seen: &mut impl FnMut(Seen<'m>),
    ) {
        let Some(call) = self.calls.remove(&r.tool_use_id) else {
            // a call not shown as a line (a question, a plan, the task
            // list's tools) is shown when it failed: every failure is said
            if let Some(call) = self.quiet.remove(&r.tool_use_id) {
                if end == CallEnd::Failed {
                    seen(Seen::ToolEnded {
                        call: Box::new(call),
                        end,
                        result: r,
                    });
                }
            }
            return;
        };
        seen(Seen::ToolEnded {
            call: Box::new(call),
            end,
            result: r,
        });
    }

    /// `task_progress`: what the agent does now, to show.
    fn task_progress(&mut self, p: &TaskProgress, now: Instant) {
        let Some(task) = p.task_id.as_deref() else {
            return;
        };
        if let Some(call) = self.agents().by_task(task).map(|a| a.call) {
            let doing = p.description.as_deref().unwrap_or_default();
            self.ui(&call, now).progress = Sanitizer::clean(&first_line(doing, 60));
        }
    }

    /// `task_notification`: the sub-agent finished, once.
    fn agent_ended<'m>(&mut self, n: &'m TaskNotification, now: Instant) -> Option<AgentEnd<'m>> {
        let task = n.task_id.as_deref()?;
        let (call, label) = self.agents().by_task(task).map(|a| (a.call, a.label))?;
        let ui = self.ui(&call, now);
        if std::mem::replace(&mut ui.reported, true) {
            return None;
        }
        let spoke = ui.spoke;
        let usage = n.usage.as_ref();
        let mut facts = Vec::new();
        if let Some(ms) = usage.and_then(|u| u.duration_ms) {
            facts.push(format!("{:.1}s", ms as f64 / 1000.0));
        }
        if let Some(t) = usage.and_then(|u| u.tool_uses) {
            facts.push(format!("{t} tool call{}", if t == 1 { "" } else { "s" }));
        }
        Some(AgentEnd {
            label,
            status: Sanitizer::clean(n.status.as_ref().map_or("finished", |s| s.as_str())),
            facts,
            summary: n
                .summary
                .as_deref()
                .filter(|t| !spoke && !t.trim().is_empty()),
        })
    }
}

/// `(+N −M)` for edits, from the tool's input.
fn edit_counts(name: &str, input: &serde_json::Value) -> String {
    let lines = |v: &serde_json::Value, k: &str| {
        v.get(k)
            .and_then(|v| v.as_str())
            .map_or(0, |s| s.lines().count())
    };
    match name {
        "Edit" => format!(
            "(+{} −{})",
            lines(input, "new_string"),
            lines(input, "old_string")
        ),
        "Write" => format!("(+{})", lines(input, "content")),
        "MultiEdit" => {
            let edits = input.get("edits").and_then(|e| e.as_array());
            let (add, del) = edits.into_iter().flatten().fold((0, 0), |(a, d), e| {
                (a + lines(e, "new_string"), d + lines(e, "old_string"))
            });
            format!("(+{add} −{del})")
        }
        _ => String::new(),
    }
}

/// An error line the CLI writes about its own internals (`[ede_diagnostic]
/// result_type=user …`, `[session_crash] …`), which its TUI leaves out.
pub(crate) fn is_cli_diagnostic(e: &str) -> bool {
    let e = e.trim_start();
    e.starts_with("[ede_diagnostic]") || e.starts_with("[session_crash]")
}

/// The CLI's "Please run /login" names a command the chat does not have:
/// say how to log in from here.
pub(crate) fn login_hint(text: &str) -> String {
    if text.contains("/login") {
        text.replace(
            "Please run /login",
            "run `claude` once to log in (or set ANTHROPIC_API_KEY), then try again",
        )
    } else {
        text.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn msg(v: serde_json::Value) -> Message {
        Message::parse(v.to_string().as_bytes()).unwrap()
    }

    /// What `msgs` said, as short strings.
    fn seen(r: &mut Reading, msgs: &[Message]) -> Vec<String> {
        let mut out = Vec::new();
        for m in msgs {
            r.read(m, Instant::now(), &mut |s| {
                out.push(match s {
                    Seen::Text(t) => format!("text {t}"),
                    Seen::ToolStarted(c) => format!("start {} {}", c.name, c.summary),
                    Seen::ToolEnded { call, end, .. } => {
                        format!("end {} {end:?}", call.name)
                    }
                    Seen::AgentText { label, text } => format!("agent {label}: {text}"),
                    Seen::AgentEnded(e) => format!("ended {} {}", e.label, e.status),
                    Seen::ApiError(t) => format!("error {t}"),
                    Seen::Result(_) => "result".into(),
                    other => format!("{other:?}"),
                })
            });
        }
        out
    }

    fn delta(t: &str) -> Message {
        msg(
            json!({"type":"stream_event","event":{"type":"content_block_delta","index":0,
            "delta":{"type":"text_delta","text":t}},"session_id":"s"}),
        )
    }

    fn assistant(id: &str, content: serde_json::Value) -> Message {
        msg(
            json!({"type":"assistant","message":{"id":id,"role":"assistant","content":content},"session_id":"s"}),
        )
    }

    /// The reading's progress (what a screen of many sessions is sent)
    /// has the turn open from the prompt to its end, with what runs.
    #[test]
    fn the_progress_has_the_turn_open_until_its_result() {
        let mut r = Reading::default();
        r.turn_started();
        assert!(r.progress().turn_open());
        seen(
            &mut r,
            &[assistant(
                "m",
                json!([{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]),
            )],
        );
        let snapshot = r.progress().snapshot();
        assert!(snapshot.turn_open);
        assert_eq!(snapshot.running[0].name, "Bash");
        let result =
            msg(json!({"type":"result","subtype":"success","is_error":false,"total_cost_usd":0.5}));
        assert_eq!(seen(&mut r, &[result]), ["result"]);
        assert!(r.progress().turn_open(), "until the stream says it ended");
        r.turn_ended();
        assert!(!r.progress().turn_open());
        assert_eq!(r.progress().cost_usd(), Some(0.5));
        assert_eq!(r.calls().len(), 0);
    }

    /// A line of 300,000 blocks says 900,000 of these at once.
    #[test]
    fn an_event_is_small() {
        assert!(std::mem::size_of::<Seen<'static>>() <= 40);
    }

    #[test]
    fn streamed_text_is_seen_once_and_unstreamed_text_whole() {
        let mut r = Reading::default();
        let start = msg(
            json!({"type":"stream_event","event":{"type":"message_start",
            "message":{"id":"m1"}},"session_id":"s"}),
        );
        let got = seen(
            &mut r,
            &[
                start,
                delta("Hi "),
                delta("there"),
                assistant("m1", json!([{"type":"text","text":"Hi there"}])),
                assistant("m2", json!([{"type":"text","text":"More"}])),
            ],
        );
        assert_eq!(
            got,
            [
                "text Hi ",
                "text there",
                "MessageEnd",
                "TextStart",
                "text More",
                "BlockEnd",
                "MessageEnd"
            ]
        );
    }

    /// A text delta with a field the library does not know (one the API
    /// adds later) is still the answer's text: the streamed text is shown,
    /// and the message's copy is not shown again.
    #[test]
    fn a_text_delta_with_a_new_field_is_still_seen() {
        let mut r = Reading::default();
        let start = msg(
            json!({"type":"stream_event","event":{"type":"message_start",
            "message":{"id":"m1"}},"session_id":"s"}),
        );
        let new = msg(
            json!({"type":"stream_event","event":{"type":"content_block_delta","index":0,
            "delta":{"type":"text_delta","text":"there","citations":[]}},"session_id":"s"}),
        );
        let got = seen(
            &mut r,
            &[
                start,
                delta("Hi "),
                new,
                assistant("m1", json!([{"type":"text","text":"Hi there"}])),
            ],
        );
        assert_eq!(got, ["text Hi ", "text there", "MessageEnd"]);
    }

    #[test]
    fn an_api_error_is_an_error_not_the_answer() {
        let mut r = Reading::default();
        let m = msg(
            json!({"type":"assistant","message":{"id":"x","model":"<synthetic>","role":"assistant",
            "content":[{"type":"text","text":"API Error: 529 \u{1b}[2Joverloaded"}]},"session_id":"s"}),
        );
        let got = seen(&mut r, &[m]);
        assert_eq!(got, ["MessageEnd", "error API Error: 529 overloaded"]);
    }

    #[test]
    fn calls_run_until_their_result_and_questions_are_no_calls() {
        let mut r = Reading::default();
        let use_ = assistant(
            "m",
            json!([
                {"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls\u{1b}]0;x\u{7}"}},
                {"type":"tool_use","id":"q1","name":"AskUserQuestion","input":{}}
            ]),
        );
        let got = seen(&mut r, &[use_]);
        assert_eq!(got, ["BlockEnd", "start Bash ls", "BlockEnd", "MessageEnd"]);
        assert_eq!(r.calls().len(), 1);
        let res = msg(json!({"type":"user","message":{"role":"user","content":[
            {"type":"tool_result","tool_use_id":"t1","content":"boom","is_error":true}]},"session_id":"s"}));
        assert_eq!(
            seen(&mut r, std::slice::from_ref(&res)),
            ["end Bash Failed"]
        );
        assert_eq!(r.calls().len(), 0);
        // a result for no known call says nothing
        assert!(seen(&mut r, &[res]).is_empty());
        // a question (not a tool line) that failed is said; one that
        // succeeded is not (#40.5)
        let failed = msg(json!({"type":"user","message":{"role":"user","content":[
            {"type":"tool_result","tool_use_id":"q1","content":"no","is_error":true}]},"session_id":"s"}));
        assert_eq!(seen(&mut r, &[failed]), ["end AskUserQuestion Failed"]);
        let plan = assistant(
            "m2",
            json!([{"type":"tool_use","id":"p1","name":"ExitPlanMode","input":{}}]),
        );
        seen(&mut r, &[plan]);
        assert_eq!(r.calls().len(), 0, "not drawn as running");
        let ok = msg(json!({"type":"user","message":{"role":"user","content":[
            {"type":"tool_result","tool_use_id":"p1","content":"approved"}]},"session_id":"s"}));
        assert!(seen(&mut r, &[ok]).is_empty());
    }

    #[test]
    fn a_background_agent_keeps_its_calls_past_the_result_and_ends_once() {
        let mut r = Reading::default();
        let task = assistant(
            "m",
            json!([{"type":"tool_use","id":"task1","name":"Task","input":{"description":"dig"}}]),
        );
        let started = msg(
            json!({"type":"system","subtype":"task_started","task_id":"a1",
            "tool_use_id":"task1","description":"dig","session_id":"s"}),
        );
        let launched = msg(json!({"type":"user","message":{"role":"user","content":[
            {"type":"tool_result","tool_use_id":"task1","content":"Async agent launched successfully"}]},"session_id":"s"}));
        let sub = msg(
            json!({"type":"assistant","parent_tool_use_id":"task1","message":{"id":"s1","role":"assistant",
            "content":[{"type":"text","text":"looking"},{"type":"tool_use","id":"sub1","name":"Read","input":{"file_path":"/a"}}]},"session_id":"s"}),
        );
        let result =
            msg(json!({"type":"result","subtype":"success","is_error":false,"session_id":"s"}));
        let got = seen(&mut r, &[task, started, launched, sub, result]);
        assert_eq!(
            got,
            [
                "BlockEnd",
                "start Task dig",
                "MessageEnd",
                "end Task Background",
                "agent dig: looking",
                "BlockEnd",
                "start Read /a",
                "result"
            ]
        );
        assert_eq!(r.calls().len(), 1, "the agent's call runs on");
        let done = msg(
            json!({"type":"system","subtype":"task_notification","task_id":"a1",
            "status":"completed","summary":"found it","usage":{"duration_ms":1500,"tool_uses":1},"session_id":"s"}),
        );
        let mut ends = Vec::new();
        for _ in 0..2 {
            r.read(&done, Instant::now(), &mut |s| {
                if let Seen::AgentEnded(e) = s {
                    ends.push(e.clone());
                }
            });
        }
        assert_eq!(ends.len(), 1, "an agent ends once");
        assert_eq!(ends[0].facts, ["1.5s", "1 tool call"]);
        assert_eq!(ends[0].summary, None, "it spoke: no summary again");
        assert_eq!(r.calls().len(), 0);
    }

    #[test]
    fn edits_count_their_lines() {
        assert_eq!(
            edit_counts("Edit", &json!({"old_string":"a","new_string":"b\nc"})),
            "(+2 −1)"
        );
        assert_eq!(edit_counts("Write", &json!({"content":"x\ny\nz"})), "(+3)");
        assert_eq!(
            edit_counts(
                "MultiEdit",
                &json!({"edits":[{"old_string":"a","new_string":"b"},{"old_string":"c\nd","new_string":""}]})
            ),
            "(+1 −3)"
        );
        assert_eq!(edit_counts("Bash", &json!({})), "");
    }

    #[test]
    fn fifty_thousand_calls_then_their_results_each_end_once() {
        // each result finds its call at once: N calls, then N results,
        // cost N steps, not N² (a list searched and shifted per result)
        const N: usize = 50_000;
        let mut r = Reading::default();
        let uses: Vec<serde_json::Value> = (0..N)
            .map(|i| json!({"type":"tool_use","id":format!("c{i}"),"name":"Bash","input":{"command":"true"}}))
            .collect();
        let results: Vec<serde_json::Value> = (0..N)
            .map(|i| json!({"type":"tool_result","tool_use_id":format!("c{i}"),"content":"ok"}))
            .collect();
        let call = assistant("m", serde_json::Value::Array(uses));
        let done = msg(
            json!({"type":"user","message":{"role":"user","content":results},"session_id":"s"}),
        );
        let got = seen(&mut r, &[call, done]);
        let ended: Vec<&String> = got.iter().filter(|s| s.starts_with("end ")).collect();
        assert_eq!(ended.len(), N, "each ends once");
        assert_eq!(r.calls().len(), 0);
    }

    #[test]
    fn twenty_thousand_background_tasks_each_get_their_ui_and_end_once() {
        const N: usize = 20_000;
        let mut r = Reading::default();
        let started: Vec<Message> = (0..N)
            .map(|i| {
                msg(
                    json!({"type":"system","subtype":"task_started","task_id":format!("t{i}"),
                    "tool_use_id":format!("c{i}"),"description":format!("job {i}"),
                    "is_backgrounded":true}),
                )
            })
            .collect();
        assert!(seen(&mut r, &started).is_empty());
        assert_eq!(r.agents().background_running(), N);
        assert!((0..N).all(|i| r.agent_ui(&format!("c{i}")).is_some()));
        let listed: Vec<serde_json::Value> =
            (0..N).map(|i| json!({"task_id":format!("t{i}")})).collect();
        let mut msgs = vec![msg(
            json!({"type":"system","subtype":"background_tasks_changed","tasks":listed}),
        )];
        for i in 0..N {
            let done = msg(json!({"type":"system","subtype":"task_notification",
                "task_id":format!("t{i}"),"status":"completed"}));
            msgs.push(done.clone());
            msgs.push(done);
        }
        let got = seen(&mut r, &msgs);
        assert_eq!(got.len(), N, "each ends once");
        assert_eq!(got[0], "ended job 0 completed");
        assert_eq!(got[N - 1], format!("ended job {} completed", N - 1));
        assert_eq!(r.agents().background_running(), 0);
    }
}
