//! `ask`'s output: the answer's text on stdout (byte-exact to a pipe,
//! inert on a terminal), tool activity and the spinner on stderr.
//!
//! On a terminal the text is also filled to its width as the chat's is
//! (lines broken between words, tables drawn as columns), without colour:
//! the width is read as the text comes, so a resize applies to what follows.

use crate::cli::commands::ask::args::OutputFormat;
use crate::cli::sanitize::Sanitizer;
use crate::cli::term::markdown::Markdown;
use crate::cli::term::spinner::Spinner;
use crate::cli::term::style::Style;
use crate::cli::turn::reading::{Call, CallEnd, Reading, Seen};
use crate::cli::turn::summary::Retry;
use claudio::{Message, RawMessage};
use std::io::{self, Write};
use std::time::Instant;

/// `ask`'s sink over the shared [`Reading`]: what each message said, and
/// the reading `ask` keeps of its session, in; the answer's text to stdout,
/// tool activity and the spinner to stderr (a terminal only).
pub struct Sink<W: Write> {
    w: W,
    format: OutputFormat,
    sanitizer: Option<Sanitizer>,
    scratch: String,
    /// On a terminal: the text filled to its width.
    fill: Option<Markdown>,
    /// The text filled, before it is written.
    filled: String,
    /// The terminal's width, read as the text comes.
    width: fn() -> usize,
    wrote_text: bool,
    at_line_start: bool,
    /// Tool activity on stderr (only when stderr is a terminal).
    activity: Option<Style>,
    to_terminal: bool,
    /// The spinner line on stderr (a terminal only).
    spinner: Option<Spinner>,
    /// When a result came while background agents still worked.
    pub waiting_since: Option<Instant>,
    /// `--json-schema` with `-o text`: print the result's structured output,
    /// not the text.
    structured: bool,
    /// The CLI is retrying an API call (stderr a terminal): the newest
    /// retry, shown on the spinner's line, and how many came; what they
    /// came to is one line on stderr when the next thing comes.
    retrying: Option<(Retry, u32)>,
}

impl<W: Write> Drop for Sink<W> {
    fn drop(&mut self) {
        // on every way out, the spinner line goes before anything else is
        // written to stderr (an error, the reason for the exit code)
        if let Some(s) = &self.spinner {
            s.hide();
        }
    }
}

impl<W: Write> Sink<W> {
    pub fn new(
        w: W,
        format: OutputFormat,
        to_terminal: bool,
        activity: Option<Style>,
        spinner: Option<Spinner>,
        structured: bool,
    ) -> Self {
        let fill = (to_terminal && format == OutputFormat::Text && !structured).then(|| {
            let mut m = Markdown::new(false);
            m.set_width(Some(terminal_width()));
            m
        });
        Sink {
            w,
            format,
            sanitizer: to_terminal.then(Sanitizer::new),
            scratch: String::new(),
            fill,
            filled: String::new(),
            width: terminal_width,
            wrote_text: false,
            at_line_start: true,
            activity,
            to_terminal,
            spinner,
            waiting_since: None,
            structured,
            retrying: None,
        }
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.w.flush()
    }

    /// Show what the message `m` said (`seen`); `reading` has taken it in.
    pub fn message(
        &mut self,
        m: &RawMessage,
        seen: Vec<Seen<'_>>,
        reading: &Reading,
    ) -> io::Result<()> {
        if self.waiting_since.is_some() {
            self.show_running(reading)?; // how many agents are left
        }
        match self.format {
            OutputFormat::StreamJson => {
                self.w.write_all(&m.raw)?;
                return self.w.write_all(b"\n");
            }
            OutputFormat::Json => {
                if m.message.is_result() && reading.agents().background_running() == 0 {
                    self.w.write_all(&m.raw)?;
                    self.w.write_all(b"\n")?;
                }
            }
            OutputFormat::Text if self.structured => self.structured_output(&m.message)?,
            OutputFormat::Text => {}
        }
        let text = self.format == OutputFormat::Text && !self.structured;
        for s in seen {
            if !matches!(s, Seen::Retry(_)) {
                self.retried()?;
            }
            match s {
                Seen::Retry(r) => self.retry(r),
                Seen::TextStart if text => self.separate()?,
                Seen::Text(t) if text => self.write_text(t)?,
                Seen::BlockEnd | Seen::MessageEnd if text => self.finish_text()?,
                Seen::Result(r) if text && !self.wrote_text => {
                    if let (Some(t), false) = (&r.result, r.is_error) {
                        self.write_text(t)?;
                        self.finish_text()?;
                    }
                }
                Seen::ToolStarted(_) => self.show_running(reading)?,
                Seen::ToolEnded { call, end, .. } => {
                    self.show_running(reading)?;
                    self.tool_line(&call, end, reading)?;
                }
                Seen::AgentEnded(end) => {
                    if let Some(style) = self.activity {
                        let line = format!(
                            "  {} {}  {}",
                            style.green("●"),
                            end.label,
                            style.dim(&end.status)
                        );
                        self.activity_line(&line)?;
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Read `m` into `reading` and show what it said. Only the events
    /// [`Sink::message`] acts on are kept, and the answer's text is
    /// written as it is read: one line of 300,000 text blocks made a list
    /// of 900,000 events (135 MB) before. From the first event that needs
    /// the reading's state on, the rest waits until the whole message is
    /// read, as before, in order.
    pub fn read_message(
        &mut self,
        m: &RawMessage,
        reading: &mut Reading,
        now: Instant,
    ) -> io::Result<()> {
        let text = self.format == OutputFormat::Text && !self.structured;
        let inline = text && self.waiting_since.is_none();
        let mut later = Vec::new();
        let mut failed = None;
        reading.read(&m.message, now, &mut |s| {
            let shown = match s {
                Seen::TextStart
                | Seen::Text(_)
                | Seen::BlockEnd
                | Seen::MessageEnd
                | Seen::Result(_) => text,
                Seen::ToolStarted(_) | Seen::ToolEnded { .. } | Seen::AgentEnded(_) => true,
                Seen::Retry(_) => self.activity.is_some(),
                _ => false,
            };
            if !shown || failed.is_some() {
                return;
            }
            if !inline || !later.is_empty() {
                later.push(s);
                return;
            }
            // the answer came: the retries are over
            let done = match s {
                Seen::TextStart => self.retried().and_then(|()| self.separate()),
                Seen::Text(t) => self.retried().and_then(|()| self.write_text(t)),
                Seen::BlockEnd | Seen::MessageEnd => self.finish_text(),
                s => {
                    later.push(s);
                    Ok(())
                }
            };
            if let Err(e) = done {
                failed = Some(e);
            }
        });
        if let Some(e) = failed {
            return Err(e);
        }
        self.message(m, later, reading)
    }

    /// The object the model returned for `--json-schema`, as one line of
    /// JSON (byte-exact: no terminal sanitizing needed, JSON escapes controls).
    fn structured_output(&mut self, m: &Message) -> io::Result<()> {
        if let Message::Result(r) = m {
            if let Some(v) = &r.structured_output {
                serde_json::to_writer(&mut self.w, v)?;
                self.w.write_all(b"\n")?;
                self.wrote_text = true;
                self.at_line_start = true;
            }
        }
        Ok(())
    }

    /// A blank line between separate text blocks.
    fn separate(&mut self) -> io::Result<()> {
        if self.wrote_text {
            if !self.at_line_start {
                self.w.write_all(b"\n")?;
            }
            self.w.write_all(b"\n")?;
            self.at_line_start = true;
        }
        if let Some(m) = &mut self.fill {
            m.new_row();
        }
        Ok(())
    }

    fn write_text(&mut self, t: &str) -> io::Result<()> {
        if t.is_empty() {
            return Ok(());
        }
        // the waiting is over; the answer may share the terminal
        if let Some(s) = self.spinner.as_ref().filter(|s| s.shown()) {
            s.hide();
        }
        let bytes = match &mut self.sanitizer {
            Some(s) => {
                self.scratch.clear();
                s.push(t, &mut self.scratch);
                self.scratch.as_bytes()
            }
            None => t.as_bytes(),
        };
        self.wrote_text = true;
        if let Some(m) = &mut self.fill {
            m.set_width(Some((self.width)()));
            self.filled.clear();
            m.push(&self.scratch, &mut self.filled);
            self.at_line_start = m.at_row_start().unwrap_or(self.at_line_start);
            return self.w.write_all(self.filled.as_bytes());
        }
        if let Some(&last) = bytes.last() {
            self.at_line_start = last == b'\n';
        }
        self.w.write_all(bytes)
    }

    /// What the sanitizer holds of a sequence that was cut off goes out as
    /// text.
    fn finish_text(&mut self) -> io::Result<()> {
        let Some(s) = &mut self.sanitizer else {
            return Ok(());
        };
        self.scratch.clear();
        s.finish(&mut self.scratch);
        if let Some(m) = &mut self.fill {
            // the block is over: what the filler holds goes out too
            self.filled.clear();
            m.push(&self.scratch, &mut self.filled);
            m.finish(&mut self.filled);
            self.at_line_start = m.at_row_start().unwrap_or(self.at_line_start);
            if !self.filled.is_empty() {
                self.wrote_text = true;
            }
            return self.w.write_all(self.filled.as_bytes());
        }
        if self.scratch.is_empty() {
            return Ok(());
        }
        self.at_line_start = self.scratch.ends_with('\n');
        self.wrote_text = true;
        self.w.write_all(self.scratch.as_bytes())
    }

    /// The CLI retries an API call: the spinner's line says so, in place
    /// of the last retry (stderr a terminal; else nothing is said, as of a
    /// tool: the error it may end with is).
    fn retry(&mut self, r: &claudio::protocol::ApiRetry) {
        if self.activity.is_none() {
            return;
        }
        let times = self.retrying.as_ref().map_or(0, |(_, n)| *n) + 1;
        let r = Retry::of(r);
        if let Some(s) = &self.spinner {
            // the time it shows counts from this retry
            s.show(r.waiting(None), Instant::now());
        }
        self.retrying = Some((r, times));
    }

    /// The retries are over (the answer, a call or the end came): what
    /// they came to, one line on stderr (`↻ retried 3 times — overloaded`).
    fn retried(&mut self) -> io::Result<()> {
        let Some((r, times)) = self.retrying.take() else {
            return Ok(());
        };
        let Some(style) = self.activity else {
            return Ok(());
        };
        self.activity_line(&format!("  {}", style.dim(&r.retried(times))))?;
        if let Some(s) = &self.spinner {
            s.show("waiting for the answer".into(), Instant::now());
        }
        Ok(())
    }

    /// A finished call's line on stderr (a terminal only).
    fn tool_line(&mut self, call: &Call, end: CallEnd, reading: &Reading) -> io::Result<()> {
        let Some(style) = self.activity else {
            return Ok(());
        };
        // a sub-agent's calls: indented, and named after the agent
        let indent = match &call.parent {
            Some(p) => format!(
                "    {} ",
                style.dim(&format!("{} ›", reading.agents().label(p)))
            ),
            None => "  ".to_owned(),
        };
        let (name, summary) = (style.cyan(&call.name), &call.summary);
        let line = match end {
            CallEnd::Background => {
                let cue = style.cyan("⇢");
                let why = style.dim("working in the background");
                format!("{indent}{cue} {name}  {summary}  {why}")
            }
            CallEnd::Done | CallEnd::Failed => {
                let mark = if end == CallEnd::Failed {
                    style.red("✗")
                } else {
                    style.green("✓")
                };
                let secs = style.dim(&format!("{:.1}s", call.started.elapsed().as_secs_f64()));
                format!("{indent}{mark} {name}  {summary}  {secs}")
            }
        };
        self.activity_line(&line)
    }

    fn activity_line(&mut self, line: &str) -> io::Result<()> {
        self.line_start()?;
        self.above(|| {
            let mut e = io::stderr().lock();
            let _ = writeln!(e, "{line}");
        });
        Ok(())
    }

    /// Don't glue stderr's lines to a half-written answer line.
    fn line_start(&mut self) -> io::Result<()> {
        if self.to_terminal && !self.at_line_start {
            self.w.write_all(b"\n")?;
            self.at_line_start = true;
            if let Some(m) = &mut self.fill {
                m.new_row();
            }
        }
        self.w.flush()
    }

    /// Run `f` (a write to stderr) with the spinner line out of the way.
    pub fn above<R>(&self, f: impl FnOnce() -> R) -> R {
        match &self.spinner {
            Some(s) => s.above(f),
            None => f(),
        }
    }

    /// The spinner shows the newest running tool, or goes when none runs.
    pub fn show_running(&mut self, reading: &Reading) -> io::Result<()> {
        let Some(spinner) = self.spinner.clone() else {
            return Ok(());
        };
        let newest = reading
            .calls()
            .max_by_key(|c| c.started)
            .map(|c| (format!("{}  {}", c.name, c.summary), c.started));
        // else, after the answer: the background agents it waits for
        let agents = reading.agents().background_running();
        let waiting = self.waiting_since.filter(|_| agents > 0).map(|since| {
            let what = if agents == 1 { "agent" } else { "agents" };
            (format!("waiting for {agents} background {what}"), since)
        });
        match newest.or(waiting) {
            Some((text, started)) => {
                self.line_start()?;
                spinner.show(text, started);
            }
            None => spinner.hide(),
        }
        Ok(())
    }

    pub fn finish(&mut self) -> io::Result<()> {
        // retries nothing else ended (`-o json`: the answer is no text
        // here; the CLI gone mid-retry): what they came to, all the same
        self.retried()?;
        if let Some(s) = &self.spinner {
            s.hide();
        }
        self.finish_text()?;
        if self.format == OutputFormat::Text && self.wrote_text && !self.at_line_start {
            self.w.write_all(b"\n")?;
        }
        self.w.flush()
    }
}

/// The terminal's width now (stdout is one).
fn terminal_width() -> usize {
    crossterm::terminal::size().map_or(80, |(w, _)| usize::from(w).max(20))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Text output to a terminal, written into a buffer.
    fn terminal_output() -> Sink<Vec<u8>> {
        Sink {
            w: Vec::new(),
            format: OutputFormat::Text,
            sanitizer: Some(Sanitizer::new()),
            scratch: String::new(),
            fill: None,
            filled: String::new(),
            width: terminal_width,
            wrote_text: false,
            at_line_start: true,
            activity: None,
            to_terminal: true,
            spinner: None,
            waiting_since: None,
            structured: false,
            retrying: None,
        }
    }

    fn msg(v: serde_json::Value) -> Message {
        Message::parse(v.to_string().as_bytes()).unwrap()
    }

    /// The message read, then shown, as `ask` does.
    fn feed(out: &mut Sink<Vec<u8>>, reading: &mut Reading, m: Message) {
        let m = RawMessage {
            message: m,
            raw: Vec::new(),
        };
        let seen = reading.seen(&m.message, Instant::now());
        out.message(&m, seen, reading).unwrap();
    }

    #[test]
    fn a_cut_off_sequence_hides_no_later_text() {
        let delta = |t: &str| {
            msg(
                serde_json::json!({"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":t}}}),
            )
        };
        let start = msg(
            serde_json::json!({"type":"stream_event","event":{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}}),
        );
        let stop = msg(
            serde_json::json!({"type":"stream_event","event":{"type":"content_block_stop","index":0}}),
        );
        let mut out = terminal_output();
        let mut reading = Reading::default();
        for m in [
            start.clone(),
            delta("one \u{1b}_"),
            delta("rest of one"),
            stop,
            start.clone(),
            delta("two \u{1b}[1;"),
            msg(serde_json::json!({"type":"stream_event","event":{"type":"message_stop"}})),
            // the streamed message in full: not printed again
            msg(
                serde_json::json!({"type":"assistant","message":{"id":"m","content":[{"type":"text","text":"streamed"}]}}),
            ),
            msg(
                serde_json::json!({"type":"assistant","message":{"id":"u","content":[{"type":"text","text":"three \u{1b}]0;"}]}}),
            ),
            msg(
                serde_json::json!({"type":"assistant","message":{"id":"v","content":[{"type":"text","text":"four"}]}}),
            ),
            start,
            delta("five \u{1b}P"),
        ] {
            feed(&mut out, &mut reading, m);
        }
        out.finish().unwrap();
        let shown = String::from_utf8(out.w.clone()).unwrap();
        assert_eq!(
            shown,
            "one _rest of one\n\ntwo [1;\n\nthree ]0;\n\nfour\n\nfive P\n"
        );
    }

    /// Text written as it is read shows what the whole message, read
    /// first, showed: text around calls, a sub-agent's text, the result.
    #[test]
    fn text_written_as_read_is_what_the_whole_message_showed() {
        use serde_json::json;
        let msgs = [
            json!({"type":"assistant","message":{"id":"m1","content":[
                {"type":"text","text":"one"},
                {"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}},
                {"type":"text","text":"two \u{1b}[31mred"},
                {"type":"thinking","thinking":"hm"},
                {"type":"text","text":"three"}]},"session_id":"s"}),
            json!({"type":"assistant","message":{"id":"m2","content":[
                {"type":"text","text":"agent's"}]},"parent_tool_use_id":"t1","session_id":"s"}),
            json!({"type":"user","message":{"role":"user","content":[
                {"type":"tool_result","tool_use_id":"t1","content":"a b"}]},"session_id":"s"}),
            json!({"type":"assistant","message":{"id":"m3","content":[
                {"type":"text","text":"four"},{"type":"text","text":"five"}]},"session_id":"s"}),
            json!({"type":"result","subtype":"success","is_error":false,"result":"five","session_id":"s"}),
        ];
        let shown = |streamed: bool| {
            let mut out = terminal_output();
            let mut reading = Reading::default();
            for v in &msgs {
                if streamed {
                    let m = RawMessage {
                        message: msg(v.clone()),
                        raw: Vec::new(),
                    };
                    out.read_message(&m, &mut reading, Instant::now()).unwrap();
                } else {
                    feed(&mut out, &mut reading, msg(v.clone()));
                }
            }
            String::from_utf8(std::mem::take(&mut out.w)).unwrap()
        };
        let whole = shown(false);
        assert!(whole.contains("one") && whole.contains("five"), "{whole:?}");
        assert_eq!(shown(true), whole);
    }

    #[test]
    fn on_a_terminal_the_text_is_filled_to_its_width() {
        let mut out = terminal_output();
        let mut reading = Reading::default();
        let mut m = Markdown::new(false);
        m.set_width(Some(24));
        out.fill = Some(m);
        out.width = || 24;
        let start = msg(
            serde_json::json!({"type":"stream_event","event":{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}}),
        );
        let delta = |t: &str| {
            msg(
                serde_json::json!({"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":t}}}),
            )
        };
        let text = "Totals are rounded once, at the end.\n\n| a | b |\n|---|--:|\n| one | 1 |\n| three | 33 |\n";
        let mut msgs = vec![start];
        let chars: Vec<char> = text.chars().collect();
        msgs.extend(
            chars
                .chunks(5)
                .map(|c| delta(&c.iter().collect::<String>())),
        );
        msgs.push(msg(
            serde_json::json!({"type":"stream_event","event":{"type":"content_block_stop","index":0}}),
        ));
        for m in msgs {
            feed(&mut out, &mut reading, m);
        }
        out.finish().unwrap();
        let shown = String::from_utf8(out.w.clone()).unwrap();
        assert_eq!(
            shown,
            "Totals are rounded once,\nat the end.\n\na     │  b\n──────┼───\none   │  1\nthree │ 33\n"
        );
    }
}
