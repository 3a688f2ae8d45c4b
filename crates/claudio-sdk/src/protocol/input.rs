//! What the host sends as a user turn.

use super::content::{ContentBlock, MessageContent};
use super::image::{Image, ImageError};
use serde_json::{json, Value};
use std::path::Path;

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

    /// A text message; add images with [`UserInput::image`] or
    /// [`UserInput::image_file`].
    ///
    /// ```
    /// use claudio::UserInput;
    /// assert_eq!(UserInput::text("hi"), UserInput::from("hi"));
    /// ```
    pub fn text(text: impl Into<String>) -> Self {
        UserInput::new(text.into())
    }

    /// Add an image, given its bytes: png, jpeg, gif or webp, told apart by
    /// their magic bytes; within the API's limits
    /// ([`crate::protocol::MAX_IMAGE_BYTES`], [`crate::protocol::MAX_IMAGE_SIDE`]).
    /// The images go before the text, in the order they were added, as the
    /// API's documentation recommends.
    ///
    /// Nothing is sent here, so a turn with a bad image fails whole: check
    /// every image first, then send.
    ///
    /// ```no_run
    /// # async fn demo(client: &claudio::Client) -> Result<(), Box<dyn std::error::Error>> {
    /// use claudio::UserInput;
    /// let shot = std::fs::read("screenshot.png")?;
    /// client.send(UserInput::text("What is wrong here?").image(shot)?).await?;
    /// # Ok(()) }
    /// ```
    pub fn image(self, bytes: impl Into<Vec<u8>>) -> Result<Self, ImageError> {
        Ok(self.with_image(&Image::from_bytes(bytes)?))
    }

    /// Add an image read from a file: as [`UserInput::image`], and an
    /// error names the file.
    ///
    /// ```no_run
    /// # async fn demo(client: &claudio::Client) -> Result<(), Box<dyn std::error::Error>> {
    /// use claudio::UserInput;
    /// let input = UserInput::text("Compare these")
    ///     .image_file("before.png")?
    ///     .image_file("after.jpg")?;
    /// client.send(input).await?;
    /// # Ok(()) }
    /// ```
    pub fn image_file(self, path: impl AsRef<Path>) -> Result<Self, ImageError> {
        Ok(self.with_image(&Image::from_file(path)?))
    }

    /// Add an image already checked.
    ///
    /// ```
    /// use claudio::{protocol::Image, UserInput};
    /// let gif = b"GIF89a\x01\0\x01\0\0\0\0,\0\0\0\0\x01\0\x01\0\0\x02\x02\x44\x01\0;";
    /// let gif = Image::from_bytes(&gif[..]).unwrap();
    /// let input = UserInput::text("and this?").with_image(&gif);
    /// let content = &input.to_value()["message"]["content"];
    /// assert_eq!(content[0]["type"], "image");
    /// assert_eq!(content[1]["text"], "and this?");
    /// ```
    pub fn with_image(mut self, image: &Image) -> Self {
        let mut blocks =
            match std::mem::replace(&mut self.content, MessageContent::Blocks(Vec::new())) {
                MessageContent::Text(t) if t.is_empty() => Vec::new(),
                MessageContent::Text(t) => vec![ContentBlock::text(t)],
                MessageContent::Blocks(b) => b,
            };
        let at = blocks
            .iter()
            .position(|b| !matches!(b, ContentBlock::Image(_)))
            .unwrap_or(blocks.len());
        blocks.insert(at, image.to_block());
        self.content = MessageContent::Blocks(blocks);
        self
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

    #[test]
    fn images_go_before_the_text_in_order() {
        let png = crate::protocol::image::tests::png(2, 3);
        let v = UserInput::text("what is wrong?")
            .image(png.clone())
            .unwrap()
            .image(crate::protocol::image::tests::gif(1, 1))
            .unwrap()
            .to_value();
        let c = &v["message"]["content"];
        assert_eq!(c[0]["source"]["media_type"], "image/png");
        assert_eq!(c[0]["source"]["type"], "base64");
        use base64::Engine as _;
        let data = base64::engine::general_purpose::STANDARD.encode(&png);
        assert_eq!(c[0]["source"]["data"], data.as_str());
        assert_eq!(c[1]["source"]["media_type"], "image/gif");
        assert_eq!(c[2], json!({"type":"text","text":"what is wrong?"}));
        assert_eq!(c.as_array().unwrap().len(), 3);
        // an empty text adds no text block
        let v = UserInput::text("").image(png).unwrap().to_value();
        assert_eq!(v["message"]["content"].as_array().unwrap().len(), 1);
        assert!(UserInput::text("x").image(&b"plain text"[..]).is_err());
    }
}
