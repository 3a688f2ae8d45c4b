//! Line editing: history, multi-line input, completion of slash commands.

use super::commands;
use rustyline::completion::{Completer, Pair};
use rustyline::highlight::Highlighter;
use rustyline::validate::{ValidationContext, ValidationResult, Validator};
use rustyline::{
    Cmd, ConditionalEventHandler, Config, Context, Editor, Event, EventContext, EventHandler,
    KeyCode, KeyEvent, Modifiers, RepeatCount,
};
use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A key at the prompt that the chat handles itself: the line editor stops
/// (as for Ctrl-C) and leaves this behind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PromptAction {
    /// Shift-Tab: the next permission mode; the line as it was, split at
    /// the cursor, to type on.
    CycleMode { before: String, after: String },
    /// Esc Esc at an empty prompt.
    Rewind,
}

/// Where the key handlers leave their [`PromptAction`].
pub type Actions = Arc<Mutex<Option<PromptAction>>>;

/// Take the action a key left, if any.
pub fn take_action(actions: &Actions) -> Option<PromptAction> {
    actions.lock().unwrap_or_else(|e| e.into_inner()).take()
}

struct ShiftTab(Actions);

impl ConditionalEventHandler for ShiftTab {
    fn handle(&self, _: &Event, _: RepeatCount, _: bool, ctx: &EventContext) -> Option<Cmd> {
        let (line, pos) = (ctx.line(), ctx.pos().min(ctx.line().len()));
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(PromptAction::CycleMode {
            before: line[..pos].to_owned(),
            after: line[pos..].to_owned(),
        });
        Some(Cmd::Interrupt)
    }
}

/// Two Esc presses within this time at an empty prompt open rewind.
const DOUBLE_ESC: Duration = Duration::from_millis(800);

struct DoubleEsc {
    actions: Actions,
    last: Mutex<Option<Instant>>,
}

impl ConditionalEventHandler for DoubleEsc {
    fn handle(&self, _: &Event, _: RepeatCount, _: bool, ctx: &EventContext) -> Option<Cmd> {
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        if !ctx.line().is_empty() {
            *last = None;
            return Some(Cmd::Noop);
        }
        let now = Instant::now();
        if last.is_some_and(|t| now.duration_since(t) < DOUBLE_ESC) {
            *last = None;
            *self.actions.lock().unwrap_or_else(|e| e.into_inner()) = Some(PromptAction::Rewind);
            return Some(Cmd::Interrupt);
        }
        *last = Some(now);
        Some(Cmd::Noop)
    }
}

#[derive(rustyline::Helper, rustyline::Hinter)]
pub struct ChatHelper {
    /// The prompt as shown (styled); rustyline is given the plain one.
    pub styled_prompt: String,
    /// What Shift-Tab or Esc Esc asked for.
    pub actions: Actions,
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
        // a lone Esc is a key of its own after 40 ms (Esc Esc: rewind)
        .keyseq_timeout(Some(40))
        .build();
    let mut ed: ChatEditor = Editor::with_config(config)?;
    let actions = Actions::default();
    ed.set_helper(Some(ChatHelper {
        styled_prompt: String::new(),
        actions: actions.clone(),
    }));
    ed.bind_sequence(
        KeyEvent(KeyCode::BackTab, Modifiers::NONE),
        EventHandler::Conditional(Box::new(ShiftTab(actions.clone()))),
    );
    ed.bind_sequence(
        KeyEvent(KeyCode::Esc, Modifiers::NONE),
        EventHandler::Conditional(Box::new(DoubleEsc {
            actions,
            last: Mutex::new(None),
        })),
    );
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
