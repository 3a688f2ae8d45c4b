//! What the host sends as a user turn.

use super::content::{ContentBlock, MessageContent};
use serde_json::{json, Value};

/// When a message written during a running turn is taken (protocol.md §4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Priority {
    /// Cut the running answer short and take this message at once.
    Now,
    /// Take it as soon as the running turn ends.
    Next,
    /// Take it after everything already queued.
    Later,
}

impl Priority {
    /// The wire value.
    pub fn as_str(self) -> &'static str {
        match self {
            Priority::Now => "now",
            Priority::Next => "next",
            Priority::Later => "later",
        }
    }
}

/// A user message: the prompt and how to deliver it.
///
/// Build one from a `&str`, a `String` or a `Vec<ContentBlock>`; add a
/// `uuid` (needed for [`crate::Client::rewind_files`]) or a `priority`.
#[derive(Debug, Clone, PartialEq)]
pub struct UserInput {
    /// Text or content blocks.
    pub content: MessageContent,
    /// An id the CLI keeps as the message's id.
    pub uuid: Option<String>,
    /// Scheduling relative to a running turn.
    pub priority: Option<Priority>,
    /// For answers inside a sub-agent; normally `None`.
    pub parent_tool_use_id: Option<String>,
}

impl UserInput {
    /// A message with this content.
    pub fn new(content: impl Into<MessageContent>) -> Self {
        UserInput {
            content: content.into(),
            uuid: None,
            priority: None,
            parent_tool_use_id: None,
        }
    }

    /// Set the message's id.
    pub fn uuid(mut self, uuid: impl Into<String>) -> Self {
        self.uuid = Some(uuid.into());
        self
    }

    /// Set the priority.
    pub fn priority(mut self, priority: Priority) -> Self {
        self.priority = Some(priority);
        self
    }

    /// The line to write on the CLI's stdin.
    pub fn to_value(&self) -> Value {
        let mut v = json!({
            "type": "user",
            "message": {"role": "user", "content": self.content},
            "parent_tool_use_id": self.parent_tool_use_id,
            "session_id": "",
        });
        if let Some(u) = &self.uuid {
            v["uuid"] = json!(u);
        }
        if let Some(p) = self.priority {
            v["priority"] = json!(p.as_str());
        }
        v
    }
}

impl From<&str> for UserInput {
    fn from(s: &str) -> Self {
        UserInput::new(s)
    }
}

impl From<String> for UserInput {
    fn from(s: String) -> Self {
        UserInput::new(s)
    }
}

impl From<&String> for UserInput {
    fn from(s: &String) -> Self {
        UserInput::new(s.as_str())
    }
}

impl From<Vec<ContentBlock>> for UserInput {
    fn from(b: Vec<ContentBlock>) -> Self {
        UserInput::new(b)
    }
}

impl From<MessageContent> for UserInput {
    fn from(c: MessageContent) -> Self {
        UserInput::new(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_line_shape() {
        let v = UserInput::from("hello")
            .uuid("u-1")
            .priority(Priority::Now)
            .to_value();
        assert_eq!(
            v,
            json!({"type":"user","message":{"role":"user","content":"hello"},
                   "parent_tool_use_id":null,"session_id":"","uuid":"u-1","priority":"now"})
        );
        let v = UserInput::from(vec![ContentBlock::text("a")]).to_value();
        assert_eq!(v["message"]["content"], json!([{"type":"text","text":"a"}]));
    }
}
