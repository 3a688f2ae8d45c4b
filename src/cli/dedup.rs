//! Text streamed as deltas is not printed again when the full `assistant`
//! line for it follows.

use claudio::protocol::{AssistantMessage, StreamEvent, StreamEventMessage};
use std::collections::HashSet;

#[derive(Debug, Default)]
pub struct Dedup {
    /// API message ids whose stream was seen (`message_start`).
    ids: HashSet<String>,
    /// Deltas arrived since the last `assistant` line (covers streams that
    /// carry no `message_start`).
    pending: bool,
}

impl Dedup {
    pub fn event(&mut self, e: &StreamEventMessage) {
        match &e.event {
            StreamEvent::MessageStart { message } => {
                if let Some(id) = message.get("id").and_then(|v| v.as_str()) {
                    self.ids.insert(id.to_owned());
                }
            }
            _ if e.text_delta().is_some() || e.thinking_delta().is_some() => self.pending = true,
            _ => {}
        }
    }

    /// Whether this line's text and thinking were already shown.
    pub fn streamed(&mut self, a: &AssistantMessage) -> bool {
        let seen = std::mem::take(&mut self.pending);
        seen || a
            .message
            .id
            .as_ref()
            .is_some_and(|id| self.ids.contains(id))
    }

    pub fn clear(&mut self) {
        *self = Dedup::default();
    }
}
