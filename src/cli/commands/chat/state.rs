//! What the chat knows of its session, owned once ([`Session`]): the
//! model, the permission mode, the session's id and the totals; what its
//! messages mean (the answer, the calls, the agents, the task list); the
//! last answers for `/copy`. The machine takes each message in here once;
//! the renderer draws from it; commands, the prompt and rewind read it.

use super::clipboard::Answers;
use crate::cli::term::style::Style;
use crate::cli::turn::reading::{Reading, Seen};
use claudio::{Message, PermissionMode, SystemMessage};
use std::time::{Duration, Instant};

/// What the session has seen, owned once.
#[derive(Debug, Default)]
pub struct Session {
    /// What the CLI said of the session: model, mode, id, totals.
    pub state: SessionState,
    /// What its messages mean: the answer, the calls, the agents, the
    /// task list (read the same way by `ask`).
    pub reading: Reading,
    /// The last answers' markdown source, for `/copy`.
    pub answers: Answers,
}

impl Session {
    /// Take in one message: what it said, in order, for the screen.
    pub fn see<'m>(&mut self, m: &'m Message, now: Instant) -> Vec<Seen<'m>> {
        let mut seen = Vec::new();
        self.see_into(m, now, &mut |s| seen.push(s));
        seen
    }

    /// Take in one message; `seen` gets what it said, in order, as it is
    /// read (a message of 300,000 blocks is not listed first).
    pub fn see_into<'m>(&mut self, m: &'m Message, now: Instant, seen: &mut impl FnMut(Seen<'m>)) {
        self.state.observe(m);
        let answers = &mut self.answers;
        self.reading.read(m, now, &mut |s| {
            match &s {
                Seen::TextStart => answers.block(),
                Seen::Text(t) => answers.push(t),
                Seen::Result(_) => answers.end(),
                _ => {}
            }
            seen(s)
        });
        if let Message::Result(r) = m {
            self.state.totals.api_calls += self.reading.api_calls(r);
        }
    }

    /// How many sub-agents are still at work.
    pub fn agents_running(&self) -> usize {
        self.reading.agents().running().count()
    }

    /// The label of the sub-agent that made the tool call `tool_use_id`
    /// (`None` for the main agent's own calls).
    pub fn agent_of(&self, tool_use_id: &str) -> Option<String> {
        let parent = self.reading.call(tool_use_id)?.parent.as_deref()?;
        Some(self.reading.agents().label(parent))
    }

    /// The label of the sub-agent with this task id (the `agent_id` on
    /// its permission requests).
    pub fn agent_by_task(&self, task_id: &str) -> Option<String> {
        self.reading
            .agents()
            .by_task(task_id)
            .map(|a| a.label.clone())
    }

    /// The task list as text (`/todos`), or `None` when there is none.
    pub fn todos_text(&self, style: Style, width: usize) -> Option<String> {
        let todos = self.reading.todos();
        if todos.is_empty() {
            return None;
        }
        Some(
            crate::cli::turn::todos::lines(todos, style, width)
                .iter()
                .map(|l| format!("{l}\n"))
                .collect(),
        )
    }

    /// A new session (`/new`, `/resume`, rewind, a restart): nothing of the
    /// old one is running any more.
    pub fn forget(&mut self) {
        self.reading.forget_session();
    }
}

/// Totals for the end-of-turn line and `/cost`.
///
/// The CLI's `total_cost_usd` is the session's running total, not the
/// prompt's: it grows with each prompt of one process and is restored when
/// the CLI resumes the session (seen with 2.1.328 and 2.1.332). So it
/// is never summed; a prompt's cost is the step from the last total.
#[derive(Debug, Default, Clone)]
pub struct Totals {
    /// Prompts answered in this chat (results seen).
    pub prompts: u64,
    /// API calls made in this chat (each turn's distinct responses, as its
    /// reading counts them, not the CLI's `num_turns`: see
    /// [`Reading::api_calls`]).
    pub api_calls: u64,
    /// What this chat's prompts cost, over every session it held.
    pub cost_usd: f64,
    /// The current session's cost as the CLI counts it (its last
    /// `total_cost_usd`, earlier runs of a resumed session included).
    pub session_cost_usd: Option<f64>,
    /// What the last prompt cost, when it can be told: not for the first
    /// prompt of a session this chat did not start (the CLI's total may
    /// include what the session cost before).
    pub last_prompt_usd: Option<f64>,
    pub duration: Duration,
    pub api_duration: Duration,
    /// The session and total the CLI last reported.
    reported: Option<(String, f64)>,
}

impl Totals {
    /// Take in a result's figures. `fresh` says the session began in this
    /// chat with this prompt (so its first total is all this prompt's).
    fn result(&mut self, session: Option<&str>, total: Option<f64>, fresh: bool) {
        self.prompts += 1;
        let (Some(session), Some(total)) = (session, total) else {
            self.last_prompt_usd = None;
            return;
        };
        let step = match &self.reported {
            // the same CLI's running total grew by this prompt; one that is
            // lower is a new CLI that did not restore it
            Some((s, last)) if s == session => {
                Some(if total >= *last { total - last } else { total })
            }
            _ if fresh => Some(total),
            _ => None,
        };
        match step {
            Some(step) => {
                self.cost_usd += step;
                self.session_cost_usd = Some(
                    self.session_cost_usd
                        .filter(|_| self.reported.as_ref().is_some_and(|(s, _)| s == session))
                        .unwrap_or(0.0)
                        + step,
                );
            }
            None => {
                self.cost_usd += total;
                self.session_cost_usd = Some(total);
            }
        }
        self.last_prompt_usd = step;
        self.reported = Some((session.to_owned(), total));
    }
}

/// The session's state, as the CLI last told it.
#[derive(Debug, Default, Clone)]
pub struct SessionState {
    /// The model the CLI named (its `init`), else the one asked for.
    pub model: Option<String>,
    /// The model the person chose, as they named it (`--model`,
    /// `ANTHROPIC_MODEL`, the settings' `model`, `/model NAME`): the one the
    /// prompt names, known from the first prompt on and not changed when
    /// the CLI names the model it resolved (`opus` stays `opus`).
    pub chosen_model: Option<String>,
    /// The permission mode, as the CLI last said (or as it was started).
    pub mode: Option<PermissionMode>,
    pub session_id: Option<String>,
    pub totals: Totals,
    /// The usage of the main agent's last API call (how full the context is).
    pub last_usage: Option<claudio::protocol::Usage>,
    /// The model's context window, from the last result's `modelUsage`.
    pub context_window: Option<u64>,
    /// The git branch of the session's folder (the chat reads it).
    pub branch: Option<String>,
    /// Exact calls the person allowed for this session when the CLI
    /// suggested no rule (not asked again; anything else is).
    pub grants: crate::cli::requests::tool::SessionGrants,
    /// The next result is the first of a session this chat did not start
    /// (`-r`, `-c`, `/resume`, a rewind): its cost total may hold earlier runs.
    pub resuming: bool,
}

impl SessionState {
    /// Take in what a message says of the session.
    pub fn observe(&mut self, m: &Message) {
        match m {
            Message::System(s) => match &**s {
                SystemMessage::Init(i) => {
                    self.model = i.model.clone().or(self.model.take());
                    self.mode = i.permission_mode.clone().or(self.mode.take());
                    self.session_id = i.session_id.clone().or(self.session_id.take());
                }
                // a mode change (plan approved, Shift-Tab) is confirmed here
                SystemMessage::Status(st) => {
                    if let Some(m) = &st.permission_mode {
                        self.mode = Some(m.clone());
                    }
                }
                _ => {}
            },
            Message::Assistant(a) if a.parent_tool_use_id.is_none() && !a.is_synthetic() => {
                if let Some(u) = &a.message.usage {
                    self.last_usage = Some(u.clone());
                }
            }
            Message::Result(r) => {
                // the window of the model in use (else the largest named)
                let windows = r.model_usage.iter().filter_map(|(name, u)| {
                    u.context_window
                        .map(|w| (Some(name) == self.model.as_ref(), w))
                });
                if let Some((_, w)) = windows.max() {
                    self.context_window = Some(w);
                }
                let fresh = !std::mem::take(&mut self.resuming);
                self.totals
                    .result(r.session_id.as_deref(), r.total_cost_usd, fresh);
                self.totals.duration += Duration::from_millis(r.duration_ms.unwrap_or(0));
                self.totals.api_duration += Duration::from_millis(r.duration_api_ms.unwrap_or(0));
                if let Some(id) = &r.session_id {
                    self.session_id = Some(id.clone());
                }
            }
            _ => {}
        }
    }

    /// The chat goes on with session `to` (`None`: a fresh one): what was
    /// allowed "for this session" was for the one before, and the first
    /// result's total is all this chat's only in a session begun here.
    pub fn switched(&mut self, to: Option<String>) {
        self.resuming = to.is_some();
        self.session_id = to;
        self.grants = Default::default();
    }

    /// How full the context is, in percent, when the CLI has said.
    pub fn context_percent(&self) -> Option<u8> {
        super::statusline_runner::context_percent(self.last_usage.as_ref()?, self.context_window?)
    }

    /// The permission mode, `default` when none was named.
    pub fn mode_name(&self) -> &str {
        self.mode.as_ref().map_or("default", PermissionMode::as_str)
    }

    /// The mode to start a new session of this conversation in: the one it
    /// is in now when this program knows it, else `started`.
    pub fn restart_mode(&self, started: Option<PermissionMode>) -> Option<PermissionMode> {
        self.mode
            .clone()
            .filter(|m| PermissionMode::KNOWN.contains(m))
            .or(started)
    }
}

/// A session's id as the chat shows it: its first 8 characters.
pub(super) fn short_id(id: &str) -> String {
    id.chars().take(8).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn msg(v: serde_json::Value) -> Message {
        Message::parse(v.to_string().as_bytes()).unwrap()
    }

    #[test]
    fn init_status_and_results_keep_it_current() {
        let mut s = SessionState {
            model: Some("asked-for".into()),
            ..SessionState::default()
        };
        assert_eq!(s.mode_name(), "default");
        s.observe(&msg(
            json!({"type":"system","subtype":"init","session_id":"s1","permissionMode":"plan"}),
        ));
        assert_eq!(
            s.model.as_deref(),
            Some("asked-for"),
            "kept when init names none"
        );
        assert_eq!(s.mode_name(), "plan");
        assert_eq!(s.session_id.as_deref(), Some("s1"));
        s.observe(&msg(
            json!({"type":"system","subtype":"status","permissionMode":"acceptEdits"}),
        ));
        assert_eq!(s.mode_name(), "acceptEdits");
        for total in [0.25, 0.5] {
            s.observe(&msg(json!({"type":"result","subtype":"success","is_error":false,"num_turns":2,"duration_ms":1500,"total_cost_usd":total,"session_id":"s2"})));
        }
        assert_eq!(s.totals.prompts, 2);
        assert_eq!(s.totals.duration, Duration::from_secs(3));
        assert_eq!(s.session_id.as_deref(), Some("s2"));
    }

    /// API calls are the responses a turn showed, not the CLI's
    /// `num_turns`: an interrupted one-call turn said "2 API calls".
    #[test]
    fn api_calls_are_the_distinct_responses_of_each_turn() {
        let mut s = Session::default();
        let now = Instant::now();
        let see = |s: &mut Session, v: serde_json::Value| drop(s.see(&msg(v), now));
        // interrupted while its one response streamed: no `assistant` line
        see(
            &mut s,
            json!({"type":"stream_event","event":{"type":"message_start","message":{"id":"r1"}},"session_id":"s"}),
        );
        see(
            &mut s,
            json!({"type":"result","subtype":"error_during_execution","is_error":true,"num_turns":2,"session_id":"s"}),
        );
        assert_eq!(s.reading.progress().api_calls(), 1);
        assert_eq!(s.state.totals.api_calls, 1);
        // two responses, each given block by block, a sub-agent's, and the
        // CLI's synthetic message (no call)
        let a = |id: &str, parent: serde_json::Value| {
            json!({"type":"assistant","parent_tool_use_id":parent,"session_id":"s",
            "message":{"id":id,"model":"m","role":"assistant","content":[{"type":"text","text":"x"}]}})
        };
        see(&mut s, a("r2", json!(null)));
        assert_eq!(
            s.reading.progress().api_calls(),
            1,
            "a new turn counts afresh"
        );
        see(&mut s, a("r2", json!(null)));
        see(&mut s, a("r3", json!(null)));
        see(&mut s, a("r4", json!("toolu_1")));
        see(
            &mut s,
            json!({"type":"assistant","parent_tool_use_id":null,"session_id":"s",
            "message":{"id":"r5","model":"<synthetic>","role":"assistant","content":[{"type":"text","text":"No response requested."}]}}),
        );
        see(
            &mut s,
            json!({"type":"result","subtype":"success","is_error":false,"num_turns":9,"session_id":"s"}),
        );
        assert_eq!(s.reading.progress().api_calls(), 3);
        assert_eq!(s.state.totals.api_calls, 4);
        // a turn that showed no response: the CLI's count is all there is
        see(
            &mut s,
            json!({"type":"result","subtype":"success","is_error":false,"num_turns":1,"session_id":"s"}),
        );
        assert_eq!(s.reading.progress().api_calls(), 0);
        assert_eq!(s.state.totals.api_calls, 5);
    }

    /// `/new` after `-r` (or a rewind to before the first prompt): the
    /// fresh session's first prompt cost what its total says; it was
    /// taken for a resumed one and its cost left unsaid.
    #[test]
    fn a_fresh_session_after_a_resumed_one_knows_its_first_cost() {
        let mut s = SessionState {
            resuming: true,
            session_id: Some("old".into()),
            ..SessionState::default()
        };
        s.switched(None);
        assert_eq!(s.session_id, None);
        result(&mut s, "new", 0.25);
        assert!(close(s.totals.last_prompt_usd, 0.25));
        s.switched(Some("other".into()));
        result(&mut s, "other", 0.75);
        assert_eq!(s.totals.last_prompt_usd, None, "earlier runs may be in it");
    }

    fn result(s: &mut SessionState, session: &str, total: f64) {
        s.observe(&msg(json!({"type":"result","subtype":"success","is_error":false,"num_turns":1,"total_cost_usd":total,"session_id":session})));
    }

    fn close(a: Option<f64>, b: f64) -> bool {
        a.is_some_and(|a| (a - b).abs() < 1e-9)
    }

    #[test]
    fn the_cli_total_is_a_running_total_never_summed() {
        // what 2.1.332 sends for two prompts of 0.0105 each in one process
        let mut s = SessionState::default();
        result(&mut s, "a", 0.0105);
        assert!(
            close(s.totals.last_prompt_usd, 0.0105),
            "a session begun here"
        );
        result(&mut s, "a", 0.021);
        assert!(close(s.totals.last_prompt_usd, 0.0105));
        assert!(close(s.totals.session_cost_usd, 0.021));
        assert!((s.totals.cost_usd - 0.021).abs() < 1e-9, "not 0.0315");
        // the CLI started again and restored its total (a resume): a step
        result(&mut s, "a", 0.0315);
        assert!(close(s.totals.last_prompt_usd, 0.0105));
        assert!(close(s.totals.session_cost_usd, 0.0315));
        // started again without it: the total begins anew
        result(&mut s, "a", 0.0105);
        assert!(close(s.totals.last_prompt_usd, 0.0105));
        assert!(close(s.totals.session_cost_usd, 0.042));
        assert!((s.totals.cost_usd - 0.042).abs() < 1e-9);
    }

    #[test]
    fn a_resumed_session_first_total_is_the_session_not_the_prompt() {
        let mut s = SessionState {
            resuming: true,
            ..SessionState::default()
        };
        result(&mut s, "old", 0.5);
        assert_eq!(s.totals.last_prompt_usd, None, "earlier runs may be in it");
        assert!(close(s.totals.session_cost_usd, 0.5));
        result(&mut s, "old", 0.6);
        assert!(close(s.totals.last_prompt_usd, 0.1));
        // /clear: a new session begun here, this chat's total goes on
        result(&mut s, "new", 0.2);
        assert!(close(s.totals.last_prompt_usd, 0.2));
        assert!(close(s.totals.session_cost_usd, 0.2));
        assert!((s.totals.cost_usd - 0.8).abs() < 1e-9);
    }
}
