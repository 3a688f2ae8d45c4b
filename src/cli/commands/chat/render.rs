//! The chat's renderer: what was seen in, terminal text out, drawn from
//! the [`Session`] as it stands (the renderer owns only the screen: the
//! answer's filler, the live region, where the cursor is). No I/O here, so
//! it is tested without a terminal.
//!
//! Permanent output (answer text, finished tool lines, notices) scrolls up;
//! below it a live region shows one spinner line per running tool. Before
//! anything permanent is written the live region is erased, and it is drawn
//! again after — only when the answer is at the start of a line, so a
//! half-written line is never torn.

use super::live::{Live, LiveLine};
use super::state::Session;
use crate::cli::sanitize::Sanitizer;
use crate::cli::term::markdown::Markdown;
use crate::cli::term::style::Style;
use crate::cli::term::text::cut_width;
use crate::cli::term::text::flat;
use crate::cli::term::text::more_lines;
use crate::cli::term::wrap::{undisputed, wrap, wrapped, Filler};
use crate::cli::turn::reading::{is_cli_diagnostic, login_hint};
use crate::cli::turn::reading::{AgentEnd, Call, CallEnd, Seen};
use crate::cli::turn::summary::{retry_line, Retry};
use claudio::protocol::ToolResultBlock;
use claudio::ResultMessage;
use std::time::{Duration, Instant};
use unicode_width::UnicodeWidthStr;

const PREVIEW_LINES: usize = 3;

/// A message's drawing is handed out in pieces of about this many bytes
/// ([`Renderer::stream`]).
pub const CHUNK: usize = 64 * 1024;

/// A message being shown as it is read ([`Renderer::stream`]).
#[derive(Debug, Default)]
pub struct Showing<'m> {
    /// Drawn and not yet handed out.
    out: String,
    /// The message wrote above the live region (which was erased first).
    drew: bool,
    /// What waits for the session: from the first thing that needs it on.
    rest: Vec<Seen<'m>>,
}

/// The terminal's rows until the chat says ([`Renderer::set_height`]).
const DEFAULT_HEIGHT: usize = 24;

/// A word the answer stopped in the middle of is shown after this long
/// (until then it is held, to be placed whole).
const SHOW_HELD: Duration = Duration::from_millis(200);

#[derive(Debug, Clone)]
pub struct RenderOptions {
    pub style: Style,
    /// Draw spinners (a terminal); otherwise tool lines are plain and final.
    pub live: bool,
    pub show_thinking: bool,
    pub width: usize,
    /// The terminal re-wraps its rows at a new width
    /// ([`crate::cli::term::console::reflows`]).
    pub reflows: bool,
}

#[derive(Debug, PartialEq, Eq, Clone, Copy)]
enum Block {
    None,
    Text,
    Thinking,
}

/// What the screen is to show, drawn in order with the session as it
/// stands (see [`Renderer::draw`]).
#[derive(Debug)]
pub enum Draw<'m> {
    /// What a message said (the session has taken it in).
    Seen(Vec<Seen<'m>>),
    /// The rest of a message shown as it was read ([`Renderer::stream`]).
    Shown(Showing<'m>),
    /// A prompt was sent: the turn's status line shows until its result.
    BeginTurn,
    /// These lines under the live region (see [`Renderer::set_footer`]).
    Footer(Vec<String>),
    /// The live region goes, a half-written line is ended.
    Suspend,
    /// A notice line between the answer's lines.
    Notice(String),
    /// Time passed: the spinners move.
    Tick,
    /// The terminal is this wide now, drawn again to fit.
    Resize(usize),
    /// The terminal is this wide now; nothing is drawn (a dialog is open).
    Width(usize),
    /// Back from Ctrl-Z at this width.
    Continued(usize),
    /// Ctrl-T: the task list shown or hidden.
    ToggleTodos,
    /// Ctrl-C: the turn is being interrupted.
    Interrupting,
}

pub struct Renderer {
    opts: RenderOptions,
    sanitizer: Sanitizer,
    /// The thinking's own: a sequence cut across its deltas is removed
    /// whole, as the answer's is.
    thinking_sanitizer: Sanitizer,
    markdown: Markdown,
    /// The thinking's rows, under its heading (filled to the width on a
    /// terminal, as the answer's are).
    thinking: Filler,
    /// When the answer's (or thinking's) text last came.
    text_came: Instant,
    block: Block,
    wrote_answer: bool,
    at_line_start: bool,
    /// Lines under the spinners: prompts typed ahead.
    footer: Vec<String>,
    /// The spinners and typed-ahead lines under the answer (indicatif).
    live: Live,
    /// The model's task list (the reading's) shows under the spinners
    /// unless hidden (Ctrl-T), and once more at the end of a turn that
    /// changed it.
    show_todos: bool,
    todos_changed: bool,
    /// This turn's error was shown as it came (an API error the CLI
    /// reports as a made-up message): the result does not repeat it.
    error_shown: bool,
    /// A turn is under way since then: its status line shows in the live
    /// region until its result.
    working: Option<Instant>,
    /// The characters of answer and thinking streamed this turn (the
    /// status line's token estimate).
    streamed: usize,
    /// Ctrl-C asked the turn to stop: the status line says so.
    interrupting: bool,
    /// The block whose filler wrote the current row last.
    last_block: Block,
    /// The live region hangs under a half-written row: the column the
    /// cursor goes back to on that row, and the colours open there.
    hung: Option<(usize, String)>,
    /// Drawing a transcript's past ([`Renderer::for_history`]).
    past: bool,
    /// Calls of that past whose time is not shown: it may hold the wait
    /// for an answer to their permission ([`Renderer::untimed`]).
    untimed: std::collections::HashSet<String>,
    /// `--verbose`: the CLI's internal diagnostics in a result are shown.
    verbose: bool,
    /// The terminal's rows: the live region stays within them.
    height: usize,
    /// The CLI is retrying an API call (on a terminal): one row of the
    /// live region says the newest attempt and counts down its wait; what
    /// the retries came to is written once, when the next thing comes.
    retrying: Option<Retrying>,
}

/// The retries of an API call so far ([`Renderer`]'s `retrying`).
#[derive(Debug)]
struct Retrying {
    last: Retry,
    /// When the newest came (its wait counts from there).
    came: Instant,
    times: u32,
}

/// One line of a tool's output or an agent's text, cut to `room` columns,
/// each tab as the 4 columns it is drawn in: a tab sent to the terminal
/// moved to its next tab stop, past the width the cut counted.
fn cut_row(line: &str, room: usize) -> String {
    cut_width(&line.replace('\t', "    "), room)
}

impl Renderer {
    pub fn new(opts: RenderOptions) -> Self {
        let (live_style, live_width) = (opts.style, opts.width);
        let fill = opts.live.then_some(opts.width);
        Renderer {
            markdown: fresh_markdown(&opts),
            thinking: Filler::new(fill, THINKING_MARGIN),
            text_came: Instant::now(),
            opts,
            sanitizer: Sanitizer::new(),
            thinking_sanitizer: Sanitizer::new(),
            block: Block::None,
            wrote_answer: false,
            at_line_start: true,
            footer: Vec::new(),
            live: Live::new(live_style, live_width),
            show_todos: true,
            todos_changed: false,
            error_shown: false,
            working: None,
            streamed: 0,
            interrupting: false,
            last_block: Block::None,
            hung: None,
            past: false,
            untimed: Default::default(),
            verbose: false,
            height: DEFAULT_HEIGHT,
            retrying: None,
        }
    }

    /// `--verbose`: show the CLI's internal diagnostics (`[ede_diagnostic]
    /// …`) where a result names them.
    pub fn set_verbose(&mut self, on: bool) {
        self.verbose = on;
    }

    /// A renderer for what happened before (a resumed session's last
    /// exchanges): filled to `width` as on a terminal, with nothing live
    /// (no spinners, no status line; a tool's line once, when it ended).
    pub fn for_history(style: Style, width: usize) -> Self {
        let mut r = Renderer::new(RenderOptions {
            style,
            live: false,
            show_thinking: false,
            width,
            reflows: false,
        });
        r.past = true;
        r.set_width(width);
        r
    }

    /// The call `id`'s line, when it ends, shows no time: a transcript
    /// holds when the call was made and when its result came, and between
    /// them may lie the wait for the person's answer to its permission,
    /// which the live chat did not count.
    pub fn untimed(&mut self, id: &str) {
        self.untimed.insert(id.to_owned());
    }

    /// Draw one thing the machine asked for, with the session as it stands.
    pub fn draw(&mut self, d: Draw<'_>, session: &Session, now: Instant) -> String {
        match d {
            Draw::Seen(seen) => self.show(seen, session, now),
            Draw::Shown(showing) => self.shown(showing, session, now),
            Draw::BeginTurn => self.begin_turn(session, now),
            Draw::Footer(lines) => self.set_footer(lines, session, now),
            Draw::Suspend => self.suspend(),
            Draw::Notice(text) => self.notice(&text),
            Draw::Tick => self.tick(session, now),
            Draw::Resize(width) => self.resize(width, session, now),
            Draw::Width(width) => {
                self.set_width(width);
                String::new()
            }
            Draw::Continued(width) => self.resume_after_stop(width, session, now),
            Draw::ToggleTodos => self.toggle_todos(session, now),
            Draw::Interrupting => {
                self.interrupting = true;
                String::new()
            }
        }
    }

    /// Ctrl-T: show or hide the task list under the spinners.
    pub fn toggle_todos(&mut self, session: &Session, now: Instant) -> String {
        let mut out = String::new();
        self.clear_live(&mut out);
        self.show_todos = !self.show_todos;
        self.draw_live(session, now, &mut out);
        out
    }

    /// Switch spinners on or off.
    #[cfg(test)]
    pub fn set_live(&mut self, live: bool) {
        self.opts.live = live;
    }

    pub fn width(&self) -> usize {
        self.opts.width
    }

    /// The terminal has this many rows: the live region is folded to fit
    /// (from its next draw).
    pub fn set_height(&mut self, height: usize) {
        self.height = height.max(1);
    }

    /// The most rows the live region takes: the screen's, less one for
    /// the half-written row it may hang under and one to spare, so that
    /// every move over it stays on the screen.
    fn live_room(&self) -> usize {
        self.height.saturating_sub(2).max(1)
    }

    pub fn set_width(&mut self, width: usize) {
        self.opts.width = width.max(1);
        self.live.set_width(self.opts.width);
        // the answer is filled to the width on a terminal
        let fill = (self.opts.live || self.past).then_some(self.opts.width);
        self.markdown.set_width(fill);
        self.thinking.set_width(fill);
    }

    /// The terminal changed width: the live region is drawn again to fit.
    /// The old one is erased from its top row to the end of the screen, so
    /// rows the terminal re-wrapped below it go too; its top row is found
    /// by the rows it takes now (re-wrapped at the new width on a terminal
    /// that does, else as drawn).
    pub fn resize(&mut self, width: usize, session: &Session, now: Instant) -> String {
        let mut out = String::new();
        let rows = if self.opts.reflows {
            self.live.rows_at(width)
        } else {
            self.live.rows()
        };
        if rows > 0 && self.hung.take().is_some() {
            // the region hangs under the half-written row the cursor is on
            out.push_str("\x1b[J");
            self.live.forget();
        } else if rows > 0 {
            if rows > 1 {
                out.push_str(&format!("\x1b[{}A", rows - 1));
            }
            out.push_str("\r\x1b[J");
            self.live.forget();
        }
        self.set_width(width);
        self.draw_live(session, now, &mut out);
        out
    }

    /// The process was stopped (Ctrl-Z) and continued: the shell wrote
    /// below the live region, and the cursor is on a fresh line. The old
    /// region stays as it was; a new one is drawn where the cursor is.
    ///
    /// An answer's row half-written at the stop goes on on a row of its
    /// own, under its indent, as if the filler had broken it there, and
    /// the filler counts from there. It went on at its old column (spaces
    /// up to it): the words after the shell's lines began halfway across
    /// an empty row.
    ///
    /// What the CLI sent while the chat was stopped may have been drawn
    /// before this (the signal comes on its own way): then the cursor is
    /// not at the fresh line's start but after those words, the status
    /// line under them. So a half-written row is ended first (after the
    /// shell's lines, a blank row), and what is under the cursor erased.
    pub fn resume_after_stop(&mut self, width: usize, session: &Session, now: Instant) -> String {
        self.live.forget();
        self.hung = None;
        let mut out = String::new();
        if !self.at_line_start {
            out.push('\n');
            let block = match self.block {
                Block::None => self.last_block,
                b => b,
            };
            match block {
                Block::Text => self.markdown.broken_elsewhere(),
                Block::Thinking => self.thinking.broken_elsewhere(),
                Block::None => {}
            }
        }
        out.push_str("\r\x1b[J");
        self.at_line_start = true;
        self.set_width(width);
        self.draw_live(session, now, &mut out);
        out
    }

    /// Whether tools are still running (the spinners need ticks).
    pub fn has_live(&self, session: &Session) -> bool {
        (session.reading.calls().len() > 0
            || session.agents_running() > 0
            || self.working.is_some()
            || self.retrying.is_some())
            && self.opts.live
    }

    /// A prompt was sent: the turn's status line (spinner, elapsed time,
    /// tokens, the interrupt key) shows under its output until its result.
    pub fn begin_turn(&mut self, session: &Session, now: Instant) -> String {
        let mut out = String::new();
        self.clear_live(&mut out);
        self.working = Some(now);
        self.streamed = 0;
        self.interrupting = false;
        self.new_prompt();
        self.draw_live(session, now, &mut out);
        out
    }

    /// A prompt begins a new answer: its first text follows the prompt
    /// with no blank line before it (a resumed history's prompts too).
    pub fn new_prompt(&mut self) {
        self.wrote_answer = false;
    }

    /// Show these lines under the answer (typed-ahead prompts), redrawn with
    /// the spinners and never through the answer's text.
    pub fn set_footer(&mut self, lines: Vec<String>, session: &Session, now: Instant) -> String {
        let mut out = String::new();
        if !self.opts.live || lines == self.footer {
            return out;
        }
        self.clear_live(&mut out);
        self.footer = lines;
        self.draw_live(session, now, &mut out);
        out
    }

    /// Show what one message said. `session` has taken the message in (the
    /// end-of-turn line names its mode).
    pub fn show(&mut self, seen: Vec<Seen<'_>>, session: &Session, now: Instant) -> String {
        let showing = Showing {
            rest: seen,
            ..Showing::default()
        };
        self.shown(showing, session, now)
    }

    /// Show one thing a message said while the message is still being read
    /// (the session is not to be looked at): what needs no session is drawn
    /// at once, and handed to `emit` in pieces of about [`CHUNK`] bytes, so
    /// that a message of 300,000 blocks is never held drawn whole. The
    /// first thing that needs the session, and all after it, wait for
    /// [`Renderer::shown`]. The bytes are those [`Renderer::show`] writes.
    pub fn stream<'m>(
        &mut self,
        showing: &mut Showing<'m>,
        seen: Seen<'m>,
        now: Instant,
        emit: &mut impl FnMut(String),
    ) {
        if !showing.rest.is_empty() {
            showing.rest.push(seen);
            return;
        }
        let at = showing.out.len();
        if let Err(seen) = self.show_plain(seen, now, &mut showing.out) {
            showing.rest.push(seen);
            return;
        }
        if showing.out.len() > at && !showing.drew {
            // the live region goes before the first of the message's text
            // (nothing was written before it: `at` is 0)
            let mut clear = String::new();
            self.clear_live(&mut clear);
            showing.out.insert_str(at, &clear);
            showing.drew = true;
        }
        if showing.out.len() >= CHUNK {
            emit(std::mem::take(&mut showing.out));
        }
    }

    /// The end of a message ([`Renderer::stream`]): what waited for the
    /// session, then the live region, with what was drawn and not yet
    /// handed out before them.
    pub fn shown(&mut self, showing: Showing<'_>, session: &Session, now: Instant) -> String {
        let Showing {
            mut out,
            mut drew,
            rest,
        } = showing;
        let mut body = String::new();
        for s in rest {
            self.show_one(s, session, now, &mut body);
        }
        if !body.is_empty() && !drew {
            self.clear_live(&mut out);
            drew = true;
        }
        out.push_str(&body);
        if drew {
            self.draw_live(session, now, &mut out);
        } else {
            // nothing above the region: only its rows that changed (a call
            // that started under a folded list changes its count)
            self.refresh_live(session, now, &mut out);
        }
        out
    }

    fn show_one(&mut self, seen: Seen<'_>, session: &Session, now: Instant, out: &mut String) {
        let seen = match self.show_plain(seen, now, out) {
            Ok(()) => return,
            Err(seen) => seen,
        };
        self.retried(out);
        match seen {
            Seen::ToolStarted(call) if !self.opts.live && !self.past => {
                let line = self.tool_line(&call, session, "…", None);
                self.permanent_line(&line, out);
            }
            Seen::ToolEnded { call, end, result } => {
                self.tool_done(&call, end, result, session, now, out)
            }
            Seen::Result(r) => {
                // the turn is over: its status line goes
                self.working = None;
                self.result(r, session, out)
            }
            _ => {}
        }
    }

    /// Show what needs no session; the rest is handed back.
    fn show_plain<'m>(
        &mut self,
        seen: Seen<'m>,
        now: Instant,
        out: &mut String,
    ) -> Result<(), Seen<'m>> {
        let s = self.opts.style;
        match seen {
            // what the rest needs, the session, waits: the retries' end too
            Seen::ToolStarted(_) | Seen::ToolEnded { .. } | Seen::Result(_) => return Err(seen),
            Seen::Retry(_) | Seen::Todos => {}
            // the answer (or the error) came: the retries are over
            _ => self.retried(out),
        }
        match seen {
            Seen::TextStart => self.begin_block(Block::Text, out),
            Seen::Text(t) => {
                self.text_came = now;
                self.streamed += t.chars().count();
                self.text(t, out)
            }
            Seen::ThinkingStart if self.opts.show_thinking => {
                self.begin_block(Block::Thinking, out)
            }
            Seen::Thinking(t) if self.block == Block::Thinking => {
                self.text_came = now;
                self.streamed += t.chars().count();
                self.thinking(t, out)
            }
            Seen::Thinking(t) => self.streamed += t.chars().count(),
            Seen::ThinkingStart => {}
            Seen::BlockEnd => self.end_block(out),
            Seen::MessageEnd => self.finish_text(out),
            Seen::ToolStarted(_) | Seen::ToolEnded { .. } | Seen::Result(_) => return Err(seen),
            Seen::AgentText { label, text } => self.agent_text(&label, text, out),
            Seen::AgentEnded(end) => self.agent_done(&end, out),
            Seen::ApiError(text) => {
                // API errors the CLI reports as a made-up message
                let first = format!("  {} ", s.red("✗"));
                for line in wrap(&login_hint(&text), self.opts.width, &first, "    ") {
                    self.permanent_line(&line, out);
                }
                self.error_shown = true;
            }
            Seen::Retry(r) if self.opts.live => {
                // one row of the live region, in place of the last
                let times = self.retrying.as_ref().map_or(0, |x| x.times) + 1;
                self.retrying = Some(Retrying {
                    last: Retry::of(r),
                    came: now,
                    times,
                });
            }
            Seen::Retry(r) => {
                // no terminal: a line each, as they come
                let line = format!("  {}", s.yellow(&retry_line(r)));
                self.permanent_line(&line, out);
            }
            Seen::Compacted => {
                let line = format!("  {}", s.dim("── context compacted ──"));
                self.permanent_line(&line, out);
            }
            Seen::Todos => self.todos_changed = true,
        }
        Ok(())
    }

    /// Redraw the spinners.
    pub fn tick(&mut self, session: &Session, now: Instant) -> String {
        let mut out = String::new();
        if now.saturating_duration_since(self.text_came) >= SHOW_HELD {
            self.show_held(session, now, &mut out);
        }
        if self.has_live(session) {
            self.refresh_live(session, now, &mut out);
        }
        out
    }

    /// The text paused in the middle of a word: what came of it is shown.
    fn show_held(&mut self, session: &Session, now: Instant, out: &mut String) {
        let held = match self.block {
            Block::Text => self.markdown.holds_word(),
            Block::Thinking => self.thinking.holds_word(),
            Block::None => false,
        };
        if !held {
            return;
        }
        self.clear_live(out);
        if self.block == Block::Text {
            self.markdown.show_held(out);
            self.at_line_start = self.markdown.at_row_start().unwrap_or(false);
        } else {
            self.thinking.show_held(out);
            self.at_line_start = self.thinking.at_row_start();
        }
        self.draw_live(session, now, out);
    }

    /// Erase the live region and end a half-written line: the screen is
    /// ready for a prompt.
    pub fn suspend(&mut self) -> String {
        let mut out = String::new();
        self.clear_live(&mut out);
        self.footer.clear();
        self.end_block(&mut out);
        if !self.at_line_start {
            out.push('\n');
            self.at_line_start = true;
        }
        out
    }

    /// A notice line (interrupt, errors) between the answer's lines.
    pub fn notice(&mut self, text: &str) -> String {
        let mut out = self.suspend();
        let line = format!("  {}", self.opts.style.dim(text));
        self.permanent_line(&line, &mut out);
        out
    }

    /// End of a turn that produced no `result` (the CLI died); the
    /// session forgets its calls.
    pub fn abandon_turn(&mut self) -> String {
        let mut out = self.suspend();
        self.retried(&mut out);
        self.working = None;
        self.markdown = fresh_markdown(&self.opts);
        self.block = Block::None;
        out
    }

    fn begin_block(&mut self, kind: Block, out: &mut String) {
        self.end_block(out);
        if self.wrote_answer {
            if !self.at_line_start {
                out.push('\n');
            }
            out.push('\n');
            self.at_line_start = true;
        }
        if kind == Block::Thinking {
            out.push_str(ANSWER_MARGIN);
            out.push_str(&self.opts.style.dim("∴ thinking"));
            out.push('\n');
            self.thinking.new_row();
            if self.opts.style.enabled() {
                self.thinking.push("\x1b[2m", out);
            }
            self.at_line_start = true;
        } else {
            self.markdown.new_row();
        }
        self.block = kind;
        self.wrote_answer = true;
    }

    fn end_block(&mut self, out: &mut String) {
        match self.block {
            Block::Text => {
                // no sequence runs past its block
                self.finish_text(out);
                let mut tail = String::new();
                self.markdown.finish(&mut tail);
                if let Some(empty) = self.markdown.at_row_start() {
                    self.at_line_start = empty;
                } else if !tail.is_empty() {
                    self.at_line_start = tail.ends_with('\n');
                }
                out.push_str(&tail);
            }
            Block::Thinking => {
                let mut rest = String::new();
                self.thinking_sanitizer.finish(&mut rest);
                self.thinking.push(&rest, out);
                self.thinking.finish(out);
                self.at_line_start = self.thinking.at_row_start();
            }
            Block::None => {}
        }
        if self.block != Block::None {
            self.last_block = self.block;
        }
        self.block = Block::None;
    }

    fn text(&mut self, t: &str, out: &mut String) {
        if self.interrupting {
            // asked to stop: what the CLI streams in the moment before it
            // stops is not drawn (it came after the interrupt's notes, the
            // rest of a word on a row of its own; the transcript keeps it)
            return;
        }
        if self.block != Block::Text {
            self.begin_block(Block::Text, out);
        }
        let mut clean = String::new();
        self.sanitizer.push(t, &mut clean);
        if self.opts.live || self.past {
            // on a terminal: what it counts otherwise is left out
            clean = undisputed(&clean).into_owned();
        }
        if clean.is_empty() {
            return;
        }
        self.markdown.push(&clean, out);
        self.at_line_start = self
            .markdown
            .at_row_start()
            .unwrap_or(clean.ends_with('\n'));
    }

    /// What the sanitizer holds of a sequence that was cut off goes out as
    /// the block's text.
    fn finish_text(&mut self, out: &mut String) {
        let mut rest = String::new();
        self.sanitizer.finish(&mut rest);
        if !rest.is_empty() {
            self.markdown.push(&rest, out);
            self.at_line_start = self.markdown.at_row_start().unwrap_or(rest.ends_with('\n'));
        }
    }

    fn thinking(&mut self, t: &str, out: &mut String) {
        let mut clean = String::new();
        self.thinking_sanitizer.push(t, &mut clean);
        self.thinking.push(&clean, out);
        self.at_line_start = self.thinking.at_row_start();
    }

    /// The retries are over: what they came to, in the scrollback
    /// (`↻ retried 3 times — overloaded`), where their row was.
    fn retried(&mut self, out: &mut String) {
        let Some(x) = self.retrying.take() else {
            return;
        };
        let s = self.opts.style;
        for line in wrap(&x.last.retried(x.times), self.opts.width, "  ", "    ") {
            let line = s.dim(&line);
            self.permanent_line(&line, out);
        }
    }

    /// The live region's retry row: `↻ retrying (3/10) in 2.4 s —
    /// overloaded`, its wait counted down from when it came.
    fn retry_row(&self, now: Instant) -> Option<LiveLine> {
        let x = self.retrying.as_ref()?;
        let gone = now.saturating_duration_since(x.came).as_secs_f64() * 1000.0;
        let left = (x.last.delay_ms - gone >= 50.0).then_some(x.last.delay_ms - gone);
        let room = self.opts.width.saturating_sub(2).max(1);
        Some(LiveLine::Plain {
            key: "retry".into(),
            text: format!(
                "  {}",
                self.opts
                    .style
                    .yellow(&cut_width(&x.last.waiting(left), room))
            ),
        })
    }

    fn permanent_line(&mut self, line: &str, out: &mut String) {
        if !self.at_line_start {
            out.push('\n');
        }
        out.push_str(line);
        out.push('\n');
        self.at_line_start = true;
        // a block's text goes on below it, on a row of its own
        self.markdown.new_row();
        self.thinking.new_row();
    }

    fn tool_line(
        &self,
        t: &Call,
        session: &Session,
        mark: &str,
        elapsed: Option<Duration>,
    ) -> String {
        let s = &self.opts.style;
        let (indent, body) = self.tool_parts(t, session);
        let time = elapsed
            .map(|d| format!("  {}", s.dim(&format!("{:.1}s", d.as_secs_f64()))))
            .unwrap_or_default();
        format!("{indent}{mark} {body}{time}")
    }

    /// A tool's line around its mark (see [`lines::tool_parts`]).
    fn tool_parts(&self, t: &Call, session: &Session) -> (String, String) {
        let agents = session.reading.agents();
        lines::tool_parts(t, &agents, self.opts.style, self.opts.width)
    }

    fn tool_done(
        &mut self,
        tool: &Call,
        end: CallEnd,
        r: &ToolResultBlock,
        session: &Session,
        now: Instant,
        out: &mut String,
    ) {
        let s = self.opts.style;
        // the answer's text after a call is a paragraph of its own: a blank
        // line goes before it, as after text
        self.wrote_answer = true;
        if end == CallEnd::Background {
            let line = self.tool_line(tool, session, &s.cyan("⇢"), None);
            let line = format!("{line}  {}", s.dim("working in the background"));
            self.permanent_line(&line, out);
            return;
        }
        let text = r.text();
        // the CLI's wrapper around a tool's error is not part of the reason
        let text = match text.trim().strip_prefix("<tool_use_error>") {
            Some(inner) => inner
                .strip_suffix("</tool_use_error>")
                .unwrap_or(inner)
                .to_owned(),
            None => text,
        };
        let mark = if end == CallEnd::Failed {
            s.red("✗")
        } else {
            s.green("✓")
        };
        let elapsed = (!self.untimed.remove(&tool.id)).then(|| now.duration_since(tool.started));
        let line = self.tool_line(tool, session, &mark, elapsed);
        self.permanent_line(&line, out);
        let text = Sanitizer::clean(&text);
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        let indent = "  ".repeat(tool.depth + 2);
        let room = self.opts.width.saturating_sub(indent.width() + 2).max(10);
        for l in lines.iter().take(PREVIEW_LINES) {
            let l = format!("{indent}{} {}", s.dim("│"), s.dim(&cut_row(l, room)));
            self.permanent_line(&l, out);
        }
        if lines.len() > PREVIEW_LINES {
            let more = lines.len() - PREVIEW_LINES;
            let l = format!("{indent}{} {}", s.dim("│"), s.dim(&more_lines(more)));
            self.permanent_line(&l, out);
        }
    }

    /// A sub-agent's text: a few dim lines under its name.
    fn agent_text(&mut self, label: &str, text: &str, out: &mut String) {
        let s = self.opts.style;
        let text = Sanitizer::clean(text);
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        let prefix = format!("    {} ", s.dim(&format!("{label} ›")));
        let room = self.opts.width.saturating_sub(label.width() + 7).max(10);
        for l in lines.iter().take(PREVIEW_LINES) {
            let line = format!("{prefix}{}", s.dim(&cut_row(l, room)));
            self.permanent_line(&line, out);
        }
        if lines.len() > PREVIEW_LINES {
            let more = lines.len() - PREVIEW_LINES;
            let line = format!("{prefix}{}", s.dim(&more_lines(more)));
            self.permanent_line(&line, out);
        }
    }

    /// `task_notification`: the sub-agent finished (or failed, or stopped).
    fn agent_done(&mut self, end: &AgentEnd<'_>, out: &mut String) {
        let s = self.opts.style;
        let mark = match end.status.as_str() {
            "completed" => s.green("●"),
            "failed" => s.red("●"),
            _ => s.yellow("●"),
        };
        let facts: Vec<&str> = std::iter::once(end.status.as_str())
            .chain(end.facts.iter().map(String::as_str))
            .collect();
        let line = format!(
            "  {mark} {}  {}",
            s.bold(&end.label),
            s.dim(&facts.join(" · "))
        );
        self.permanent_line(&line, out);
        if let Some(summary) = end.summary {
            let room = self.opts.width.saturating_sub(6).max(10);
            let clean = Sanitizer::clean(summary);
            let first = clean.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            let line = format!("    {} {}", s.dim("│"), s.dim(&cut_row(first, room)));
            self.permanent_line(&line, out);
        }
    }

    fn result(&mut self, r: &ResultMessage, session: &Session, out: &mut String) {
        self.end_block(out);
        let todos = session.reading.todos();
        // the list as the turn left it, when the turn changed it
        if std::mem::take(&mut self.todos_changed) && !todos.is_empty() {
            if !self.at_line_start {
                out.push('\n');
                self.at_line_start = true;
            }
            out.push('\n');
            for line in crate::cli::turn::todos::lines(todos, self.opts.style, self.opts.width) {
                self.permanent_line(&line, out);
            }
        }
        let running = session.agents_running();
        let s = self.opts.style;
        let calls = session.reading.api_calls(r);
        let secs = r.duration_ms.unwrap_or(0) as f64 / 1000.0;
        let error_shown = std::mem::take(&mut self.error_shown);
        // an interrupt is an interrupt, whatever key made it: Esc at a
        // question ends with an error the CLI names by its internals
        let interrupted =
            r.was_interrupted() || (std::mem::take(&mut self.interrupting) && r.is_error);
        if interrupted {
            // "interrupting…" was said at Ctrl-C; this is its end
            let line = format!("  {}", s.yellow("⏹ interrupted"));
            self.permanent_line(&line, out);
            // what the CLI said of it, under --verbose only
            if self.verbose && r.is_error && !r.errors.is_empty() {
                let said: Vec<String> = r.errors.iter().map(|e| Sanitizer::clean(e)).collect();
                for line in wrap(&said.join("; "), self.opts.width, "    ", "    ") {
                    let line = s.dim(&line);
                    self.permanent_line(&line, out);
                }
            }
        }
        if r.is_error && !interrupted {
            // an error the CLI ends with subtype `success` (not logged in,
            // prompt too long) was shown as it came; else its text says it
            let why = if r.subtype == "success" {
                (!error_shown)
                    .then(|| r.result.clone().filter(|t| !t.trim().is_empty()))
                    .flatten()
                    .map(|t| login_hint(&Sanitizer::clean(&t)))
            } else {
                let mut why = r.subtype.clone();
                // the CLI's own diagnostics (its TUI hides them too) only
                // under --verbose
                let shown = |e: &&String| self.verbose || !is_cli_diagnostic(e);
                for e in r.errors.iter().filter(shown) {
                    why.push_str(": ");
                    why.push_str(e);
                }
                Some(Sanitizer::clean(&why))
            };
            if let Some(why) = why {
                let first = format!("  {} ", s.red("✗"));
                for line in wrap(&why, self.opts.width, &first, "    ") {
                    self.permanent_line(&line, out);
                }
            }
        }
        let plural = if calls == 1 { "" } else { "s" };
        // what this prompt cost, then the session so far (as `/cost` says);
        // each part with the rank it goes in when the row is too narrow
        // (lower goes first; none stays)
        let state = &session.state;
        let t = &state.totals;
        // a turn that called no API (a local command) says nothing of calls
        let mut parts: Vec<(String, Option<u8>)> = Vec::new();
        if calls > 0 {
            parts.push((format!("{calls} API call{plural}"), None));
        }
        parts.push((format!("{secs:.1}s"), Some(2)));
        if let Some(session) = t.session_cost_usd {
            match t.last_prompt_usd {
                // a prompt that cost nothing (a local command) says only the session
                Some(p) if p >= 5e-5 && (p - session).abs() > 5e-5 => {
                    parts.push((format!("+${p:.4}"), Some(4)));
                }
                _ => {}
            }
            parts.push((format!("${session:.4} session"), None));
        }
        match running {
            0 => {}
            1 => parts.push(("1 agent still working".to_owned(), None)),
            n => parts.push((format!("{n} agents still working"), None)),
        }
        // where the session stands: context, branch, mode (the default
        // mode goes first, another stays)
        if let Some(p) = state.context_percent() {
            parts.push((format!("{p}% context"), Some(3)));
        }
        if let Some(b) = &state.branch {
            parts.push((format!("⎇ {}", flat(b)), Some(1)));
        }
        // one row: a newline or a tab in a field (a `.git/HEAD` of any
        // text, the CLI's mode) would break it or move it off its columns
        let mode = flat(state.mode_name()).trim().to_owned();
        let default = state
            .mode
            .as_ref()
            .is_none_or(|m| *m == claudio::PermissionMode::Default);
        let rank = default.then_some(0);
        parts.push((mode, rank));
        let footer = end_line(parts, self.opts.width.saturating_sub(2));
        if !self.at_line_start {
            out.push('\n');
        }
        out.push('\n');
        out.push_str(&wrapped(&s.dim(&footer), self.opts.width, "  ", "  "));
        self.at_line_start = true;
        self.wrote_answer = false;
        self.markdown = fresh_markdown(&self.opts);
    }

    /// The task list shows under the spinners: there is work left on it,
    /// and Ctrl-T has not hidden it.
    fn todos_live(&self, session: &Session) -> bool {
        self.show_todos && session.reading.todos().has_open()
    }

    fn clear_live(&mut self, out: &mut String) {
        let rows = self.live.rows();
        if rows == 0 {
            return;
        }
        if self.hung.is_some() {
            // down to the region's last row, where it was left drawn
            out.push_str(&format!("\x1b[{rows}B"));
        }
        out.push_str(&self.live.clear());
        if let Some((col, _)) = self.hung.take() {
            // back to the end of the half-written row (its colours are
            // still open: clearing sets none)
            out.push_str("\x1b[A\r");
            if col > 0 {
                out.push_str(&format!("\x1b[{col}C"));
            }
        }
    }

    /// Where the cursor is on the half-written row, and the colours open
    /// there (from the filler that wrote it).
    fn row(&self) -> Option<(usize, String)> {
        let block = match self.block {
            Block::None => self.last_block,
            b => b,
        };
        match block {
            Block::Text => self.markdown.row().map(|(c, o)| (c, o.to_owned())),
            Block::Thinking => {
                let (c, o) = self.thinking.row();
                Some((c, o.to_owned()))
            }
            Block::None => None,
        }
    }

    /// The turn's status line: `⠋ Working · 12s · ↓ ~1.2k tokens ·
    /// Esc to interrupt` (the tokens an estimate from the characters
    /// streamed, a token being about four).
    fn status_line(&self, now: Instant) -> Option<LiveLine> {
        let since = self.working?;
        let s = self.opts.style;
        let elapsed = now.saturating_duration_since(since);
        let ms = elapsed.as_millis() as u64;
        let secs = format!("{}s", elapsed.as_secs());
        let tokens = self.streamed / 4;
        let tokens = (tokens > 0).then(|| format!("↓ ~{} tokens", compact(tokens)));
        let line = |facts: &[Option<&str>]| {
            let facts: Vec<&str> = facts.iter().flatten().copied().collect();
            let doing = if self.interrupting {
                "Interrupting"
            } else {
                "Working"
            };
            format!("{doing} · {}", facts.join(" · "))
        };
        let key = (!self.interrupting).then_some("Esc to interrupt");
        let room = self.opts.width.saturating_sub(5).max(10);
        let mut text = line(&[Some(&secs), tokens.as_deref(), key]);
        if text.width() > room {
            // narrow: the interrupt key matters more than the tokens
            text = line(&[Some(&secs), key]);
        }
        Some(LiveLine::Plain {
            key: "status".into(),
            text: format!(
                "  {} {}",
                s.cyan(&crate::cli::term::spinner::frame(ms).to_string()),
                s.dim(&cut_width(&text, room))
            ),
        })
    }

    /// The live region's lines as things stand, and the half-written row
    /// it hangs under (its column, the colours open there); `None` when
    /// nothing is to be drawn.
    #[allow(clippy::type_complexity)]
    fn live_lines(
        &self,
        session: &Session,
        now: Instant,
    ) -> Option<(Vec<LiveLine>, Option<(usize, String)>)> {
        if !self.opts.live
            || (session.reading.calls().len() == 0
                && self.footer.is_empty()
                && session.agents_running() == 0
                && self.working.is_none()
                && self.retrying.is_none()
                && !self.todos_live(session))
        {
            return None;
        }
        // under a half-written row: drawn on the rows below it, the cursor
        // back where the row's next text goes
        let hang = if self.at_line_start {
            None
        } else {
            match self.row() {
                // a full row's cursor waits to wrap: nothing is drawn
                Some((col, open)) if col > 0 && col < self.opts.width => Some((col, open)),
                _ => return None,
            }
        };
        let todos = self.todos_live(session).then(|| {
            crate::cli::turn::todos::lines(
                session.reading.todos(),
                self.opts.style,
                self.opts.width,
            )
        });
        let lines = lines::live(
            &session.reading,
            self.opts.style,
            self.opts.width,
            now,
            todos,
            self.retry_row(now),
            self.status_line(now),
            &self.footer,
            self.live_room(),
        );
        (!lines.is_empty()).then_some((lines, hang))
    }

    fn draw_live(&mut self, session: &Session, now: Instant, out: &mut String) {
        let Some((lines, hang)) = self.live_lines(session, now) else {
            return;
        };
        let Some((col, open)) = hang else {
            out.push_str(&self.live.draw(lines));
            return;
        };
        if !open.is_empty() {
            out.push_str("\x1b[0m");
        }
        out.push_str("\r\n");
        out.push_str(&self.live.draw(lines));
        self.back_to_row(col, &open, out);
        self.hung = Some((col, open));
    }

    /// From the region's last row back up to the half-written row it
    /// hangs under, where the row's next text goes.
    fn back_to_row(&self, col: usize, open: &str, out: &mut String) {
        out.push_str(&format!("\x1b[{}A\r", self.live.rows()));
        if col > 0 {
            out.push_str(&format!("\x1b[{col}C"));
        }
        out.push_str(open);
    }

    /// The region drawn again where it is, only its rows that changed
    /// (nothing was written above it since it was drawn); drawn afresh
    /// when it was not on the screen, or hangs elsewhere now.
    fn refresh_live(&mut self, session: &Session, now: Instant, out: &mut String) {
        if self.live.rows() == 0 {
            self.draw_live(session, now, out);
            return;
        }
        let Some((lines, hang)) = self.live_lines(session, now) else {
            self.clear_live(out);
            return;
        };
        if hang != self.hung {
            self.clear_live(out);
            self.draw_live(session, now, out);
            return;
        }
        let above = hang.is_some();
        let Some(rows) = self.live.update(lines, above) else {
            return;
        };
        match hang {
            None => out.push_str(&rows),
            Some((col, open)) => {
                if !open.is_empty() {
                    out.push_str("\x1b[0m");
                }
                out.push_str(&rows);
                self.back_to_row(col, &open, out);
            }
        }
    }
}

mod lines;
/// The end-of-turn line, `── a · b · c ──`, in `room` columns: the
/// parts with a rank left out, lowest first, until it fits (wrapped if
/// what stays is still too wide).
fn end_line(mut parts: Vec<(String, Option<u8>)>, room: usize) -> String {
    let line = |parts: &[(String, Option<u8>)]| {
        let texts: Vec<&str> = parts.iter().map(|(t, _)| t.as_str()).collect();
        format!("── {} ──", texts.join(" · "))
    };
    loop {
        let text = line(&parts);
        if crate::cli::term::wrap::visible_width(&text) <= room {
            return text;
        }
        let lowest = parts
            .iter()
            .enumerate()
            .filter_map(|(i, (_, rank))| rank.map(|r| (r, i)))
            .min();
        match lowest {
            Some((_, i)) => {
                parts.remove(i);
            }
            None => return text,
        }
    }
}

#[cfg(test)]
mod tests;

/// A count as it is said at a glance: `950`, `1.2k`, `34k`.
fn compact(n: usize) -> String {
    match n {
        0..=999 => n.to_string(),
        1000..=9999 => format!("{:.1}k", n as f64 / 1000.0),
        _ => format!("{}k", n / 1000),
    }
}

/// Where the answer's rows start: under the tool lines' marks, as the
/// notices and the footer do (the prompt alone starts at the edge).
pub(crate) const ANSWER_MARGIN: &str = "  ";
/// A thinking block's rows: under its label, which stands at the answer's
/// margin.
const THINKING_MARGIN: &str = "    ";

/// The answer's styler: filled to the width on a terminal, as it is
/// written to a pipe.
fn fresh_markdown(opts: &RenderOptions) -> Markdown {
    let mut m = Markdown::new(opts.style.enabled());
    m.set_margin(ANSWER_MARGIN);
    m.set_width(opts.live.then_some(opts.width));
    m
}
