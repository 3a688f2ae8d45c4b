//! Line editing: history, multi-line input, completion of slash commands.

use super::commands;
use rustyline::completion::{Completer, Pair};
use rustyline::highlight::Highlighter;
use rustyline::validate::{ValidationContext, ValidationResult, Validator};
use rustyline::{Cmd, Config, Context, Editor, EventHandler, KeyCode, KeyEvent, Modifiers};
use std::borrow::Cow;
use std::path::PathBuf;

#[derive(rustyline::Helper, rustyline::Hinter)]
pub struct ChatHelper {
    /// The prompt as shown (styled); rustyline is given the plain one.
    pub styled_prompt: String,
}

impl Completer for ChatHelper {
    type Candidate = Pair;
    fn complete(
        &self,
        line: &str,
        pos: usize,
        _ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let head = &line[..pos];
        if !head.starts_with('/') || head.contains(char::is_whitespace) {
            return Ok((pos, Vec::new()));
        }
        let pairs = commands::complete(head)
            .into_iter()
            .map(|c| Pair {
                display: c.to_owned(),
                replacement: format!("{c} "),
            })
            .collect();
        Ok((0, pairs))
    }
}

impl Highlighter for ChatHelper {
    fn highlight_prompt<'b, 's: 'b, 'p: 'b>(
        &'s self,
        prompt: &'p str,
        default: bool,
    ) -> Cow<'b, str> {
        if default && !self.styled_prompt.is_empty() {
            Cow::Borrowed(&self.styled_prompt)
        } else {
            Cow::Borrowed(prompt)
        }
    }
}

impl Validator for ChatHelper {
    /// A trailing `\` continues the input on a new line.
    fn validate(&self, ctx: &mut ValidationContext<'_>) -> rustyline::Result<ValidationResult> {
        if ctx.input().ends_with('\\') {
            Ok(ValidationResult::Incomplete)
        } else {
            Ok(ValidationResult::Valid(None))
        }
    }
}

pub type ChatEditor = Editor<ChatHelper, rustyline::history::FileHistory>;

/// Where the history lives: `$XDG_DATA_HOME/claudio/history` or the platform's data dir.
pub fn history_path() -> Option<PathBuf> {
    dirs::data_dir().map(|d| d.join("claudio").join("history"))
}

pub fn new_editor(history_size: usize) -> rustyline::Result<ChatEditor> {
    let config = Config::builder()
        .max_history_size(history_size)?
        .auto_add_history(false)
        .bracketed_paste(true)
        .completion_type(rustyline::CompletionType::List)
        .build();
    let mut ed: ChatEditor = Editor::with_config(config)?;
    ed.set_helper(Some(ChatHelper {
        styled_prompt: String::new(),
    }));
    // Alt-Enter inserts a newline.
    ed.bind_sequence(
        KeyEvent(KeyCode::Enter, Modifiers::ALT),
        EventHandler::Simple(Cmd::Newline),
    );
    if let Some(p) = history_path() {
        let _ = ed.load_history(&p);
    }
    Ok(ed)
}

pub fn save_history(ed: &mut ChatEditor) {
    if let Some(p) = history_path() {
        if let Some(dir) = p.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        if let Err(e) = ed.save_history(&p) {
            tracing::debug!(error = %e, "could not save the history");
        }
    }
}
