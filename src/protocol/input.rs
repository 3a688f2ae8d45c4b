//! What the host sends as a user turn.

use super::content::{ContentBlock, MessageContent};
use serde_json::{json, Value};

/// When a message written during a running turn is taken (protocol.md §4).
///
/// ```no_run
/// # async fn demo(client: &claudio::Client) -> claudio::Result<()> {
/// use claudio::{Priority, UserInput};
/// client.send("Refactor the parser").await?;
/// // while it runs: taken once this turn is over
/// client.send(UserInput::from("Then update the docs").priority(Priority::Next)).await?;
/// # Ok(()) }
/// ```
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
///
/// ```
/// use claudio::{ContentBlock, Priority, UserInput};
/// let text = UserInput::from("What does src/lib.rs do?");
/// let blocks = UserInput::from(vec![
///     ContentBlock::text("What is in this picture?"),
///     ContentBlock::image_base64("image/png", "iVBORw0KGgo="),
/// ]);
/// let urgent = UserInput::from("Stop, wrong file").priority(Priority::Now);
/// let tracked = UserInput::from("Add a CHANGELOG").uuid(claudio::store::new_uuid());
/// ```
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
    ///
    /// ```
    /// use claudio::UserInput;
    /// assert_eq!(UserInput::new("hi"), UserInput::from("hi"));
    /// ```
    pub fn new(content: impl Into<MessageContent>) -> Self {
        UserInput {
            content: content.into(),
            uuid: None,
            priority: None,
            parent_tool_use_id: None,
        }
    }

    /// Set the message's id.
    ///
    /// ```
    /// use claudio::UserInput;
    /// // the id to rewind the files to (`Client::rewind_files`)
    /// let id = claudio::store::new_uuid();
    /// let input = UserInput::from("Rename the module").uuid(&id);
    /// assert_eq!(input.to_value()["uuid"], id.as_str());
    /// ```
    pub fn uuid(mut self, uuid: impl Into<String>) -> Self {
        self.uuid = Some(uuid.into());
        self
    }

    /// Set the priority.
    ///
    /// ```
    /// use claudio::{Priority, UserInput};
    /// let input = UserInput::from("Stop, wrong file").priority(Priority::Now);
    /// assert_eq!(input.to_value()["priority"], "now");
    /// ```
    pub fn priority(mut self, priority: Priority) -> Self {
        self.priority = Some(priority);
        self
    }

    /// The line to write on the CLI's stdin.
    ///
    /// ```
    /// use serde_json::json;
    /// let line = claudio::UserInput::from("hello").to_value();
    /// assert_eq!(line["type"], "user");
    /// assert_eq!(line["message"], json!({"role": "user", "content": "hello"}));
    /// ```
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
