//! What the chat knows of its session: the model, the permission mode, the
//! session's id and the totals, kept up to date from the CLI's messages.
//! The renderer draws with it; commands, the prompt and rewind read it.

use claudio::{Message, SystemMessage};
use std::time::Duration;

/// Totals over the session, for the end-of-turn line and `/cost`.
#[derive(Debug, Default, Clone)]
pub struct Totals {
    pub turns: u64,
    pub cost_usd: f64,
    pub duration: Duration,
    pub api_duration: Duration,
}

/// The session's state, as the CLI last told it.
#[derive(Debug, Default, Clone)]
pub struct SessionState {
    pub model: Option<String>,
    pub mode: Option<String>,
    pub session_id: Option<String>,
    pub totals: Totals,
    /// The usage of the main agent's last API call (how full the context is).
    pub last_usage: Option<serde_json::Value>,
    /// The model's context window, from the last result's `modelUsage`.
    pub context_window: Option<u64>,
    /// The git branch of the session's folder (the chat reads it).
    pub branch: Option<String>,
    /// Exact calls the person allowed for this session when the CLI
    /// suggested no rule (not asked again; anything else is).
    pub grants: crate::cli::approve::SessionGrants,
}

impl SessionState {
    /// Take in what a message says of the session.
    pub fn observe(&mut self, m: &Message) {
        match m {
            Message::System(s) => match &**s {
                SystemMessage::Init(i) => {
                    self.model = i.model.clone().or(self.model.take());
                    self.mode = i
                        .permission_mode
                        .as_ref()
                        .map(|m| m.as_str().to_owned())
                        .or(self.mode.take());
                    self.session_id = i.session_id.clone().or(self.session_id.take());
                }
                // a mode change (plan approved, Shift-Tab) is confirmed here
                SystemMessage::Status(st) => {
                    if let Some(m) = &st.permission_mode {
                        self.mode = Some(m.as_str().to_owned());
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
                self.totals.turns += r.num_turns.unwrap_or(0);
                self.totals.duration += Duration::from_millis(r.duration_ms.unwrap_or(0));
                self.totals.api_duration += Duration::from_millis(r.duration_api_ms.unwrap_or(0));
                if let Some(c) = r.total_cost_usd {
                    self.totals.cost_usd += c;
                }
                if let Some(id) = &r.session_id {
                    self.session_id = Some(id.clone());
                }
            }
            _ => {}
        }
    }

    /// How full the context is, in percent, when the CLI has said.
    pub fn context_percent(&self) -> Option<u8> {
        super::status::context_percent(self.last_usage.as_ref()?, self.context_window?)
    }

    /// The permission mode, `default` when none was named.
    pub fn mode_name(&self) -> &str {
        self.mode.as_deref().unwrap_or("default")
    }
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
        for _ in 0..2 {
            s.observe(&msg(json!({"type":"result","subtype":"success","is_error":false,"num_turns":2,"duration_ms":1500,"total_cost_usd":0.25,"session_id":"s2"})));
        }
        assert_eq!(s.totals.turns, 4);
        assert_eq!(s.totals.duration, Duration::from_secs(3));
        assert!((s.totals.cost_usd - 0.5).abs() < 1e-9);
        assert_eq!(s.session_id.as_deref(), Some("s2"));
    }
}
