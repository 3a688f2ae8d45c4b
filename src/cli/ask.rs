//! `claudio ask`: one answer, made for shell pipelines.

use super::approve::TtyApprover;
use super::args::{AskArgs, OutputFormat, SessionFlags};
use super::exit::Exit;
use super::options::build_options;
use super::reading::{Call, Outcome, Reading, Seen};
use super::sanitize::Sanitizer;
use super::spinner::Spinner;
use super::style::Style;
use super::summary::one_line;
use anyhow::Context;
use claudio::{Client, Message, RawMessage, ResultMessage};
use futures_util::FutureExt;
use std::future::{pending, Future};
use std::io::{self, IsTerminal, Read, Write};
use std::pin::Pin;
use std::time::{Duration, Instant};
use tokio::signal::unix::{signal, SignalKind};

/// Build the prompt from the arguments and piped stdin.
pub fn compose_prompt(args: &[String], piped: Option<&str>) -> Option<String> {
    let arg = args.join(" ");
    let piped = piped.filter(|s| !s.trim().is_empty());
    match (arg.trim().is_empty(), piped) {
        (true, None) => None,
        (true, Some(p)) => Some(p.to_owned()),
        (false, None) => Some(arg),
        (false, Some(p)) => Some(format!("{arg}\n\n{p}")),
    }
}

/// The most piped input `ask` takes: 64 MiB. The Messages API refuses a
/// request over 32 MB, so a longer prompt could never be answered; below
/// the limit input passes whole, never cut.
const STDIN_LIMIT: usize = 64 * 1024 * 1024;

/// All of `r`, or `None` when it holds more than `limit` bytes (then at most
/// `limit + 1` are read). The bytes are read into one buffer, which the
/// caller turns into a `String` without a copy.
fn read_bounded(r: impl Read, limit: usize) -> io::Result<Option<Vec<u8>>> {
    let mut buf = Vec::new();
    r.take(limit as u64 + 1).read_to_end(&mut buf)?;
    Ok((buf.len() <= limit).then_some(buf))
}

fn read_stdin() -> anyhow::Result<Option<String>> {
    let stdin = io::stdin();
    if stdin.is_terminal() {
        return Ok(None);
    }
    let read = read_bounded(stdin.lock(), STDIN_LIMIT).context("failed to read stdin")?;
    let Some(buf) = read else {
        // nothing has started: a usage error, before anything is sent
        return Err(crate::cli::exit::usage_error!(
            "stdin holds more than {} MiB, the most a prompt may be (the API takes 32 MB a request); nothing was sent",
            STDIN_LIMIT >> 20
        ));
    };
    Ok(Some(match String::from_utf8(buf) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("claudio: stdin is not valid UTF-8; invalid bytes were replaced");
            String::from_utf8_lossy(e.as_bytes()).into_owned()
        }
    }))
}

/// `--json-schema`'s value: the schema inline, or `@FILE`.
fn read_schema(text: &str) -> anyhow::Result<serde_json::Value> {
    let (what, json) = match text.strip_prefix('@') {
        Some(path) => (
            format!("--json-schema @{path}"),
            std::fs::read_to_string(path)
                .with_context(|| format!("--json-schema: cannot read {path}"))?,
        ),
        None => ("--json-schema".to_owned(), text.to_owned()),
    };
    let v: serde_json::Value =
        serde_json::from_str(&json).with_context(|| format!("{what}: not JSON"))?;
    anyhow::ensure!(v.is_object(), "{what}: a JSON Schema is an object");
    Ok(v)
}

/// How long to wait, once the last background agent ended, for the turn the
/// CLI starts to report it (it starts within milliseconds when it does).
const REPORT_WAIT: Duration = Duration::from_secs(3);

pub async fn run(session: &SessionFlags, args: AskArgs) -> anyhow::Result<Exit> {
    let piped = tokio::task::spawn_blocking(read_stdin).await??;
    let Some(prompt) = compose_prompt(&args.prompt, piped.as_deref()) else {
        eprintln!("claudio: ask needs a prompt: `claudio ask \"...\"` or text on stdin\n\nUsage: claudio ask [OPTIONS] [PROMPT]...");
        return Ok(Exit::Usage);
    };

    let schema = match &args.json_schema {
        Some(text) => Some(read_schema(text).map_err(|e| crate::cli::exit::usage_error!("{e:#}"))?),
        None => None,
    };
    let stderr_style = Style::for_stderr(session.color_choice());
    let cwd = match &session.cwd {
        Some(d) => d.clone(),
        None => std::env::current_dir()?,
    };
    let approver = TtyApprover::new(stderr_style, cwd);
    // one spinner line on stderr, when that is a terminal
    let spinner = Spinner::on_stderr(stderr_style);
    if let Some(s) = &spinner {
        approver.hide_while_asking(s.clone());
    }
    // with a schema, the answer is the object the model returns, not its text
    let structured = schema.is_some() && args.output_format == OutputFormat::Text;
    let mut options = build_options(session)?
        .include_partial_messages(args.output_format != OutputFormat::Json && !structured);
    if let Some(schema) = schema {
        options = options.json_schema(schema);
    }
    options = options.can_use_tool(move |req, ctx| {
        let a = approver.clone();
        async move { Ok(a.decide(req, ctx).await) }
    });

    // The raw lines are needed only to pass them on verbatim.
    let client = if args.output_format == OutputFormat::Text {
        Client::connect(options).await?
    } else {
        Client::connect_keeping_raw(options).await?
    };
    client.send(prompt).await?;
    if let Some(s) = &spinner {
        s.show("waiting for the answer".into(), Instant::now());
    }

    let stdout = io::stdout();
    let to_terminal = stdout.is_terminal();
    let mut out = Output {
        w: io::BufWriter::with_capacity(64 * 1024, stdout.lock()),
        format: args.output_format,
        sanitizer: to_terminal.then(Sanitizer::new),
        scratch: String::new(),
        reading: Reading::default(),
        wrote_text: false,
        at_line_start: true,
        activity: (io::stderr().is_terminal()).then_some(stderr_style),
        to_terminal,
        spinner: spinner.clone(),
        waiting_since: None,
        structured,
    };

    let mut sigint = signal(SignalKind::interrupt())?;
    let mut sigterm = signal(SignalKind::terminate())?;
    let mut sighup = signal(SignalKind::hangup())?;
    let mut interrupted = false;
    // The interrupt request runs beside the reading, so a second Ctrl-C is
    // seen at once even if the CLI is slow to answer the first.
    let mut interrupt: Pin<Box<dyn Future<Output = ()> + Send + '_>> = Box::pin(pending());
    let mut result: Option<ResultMessage> = None;
    // set when the last background agent ended after a result
    let mut report_deadline: Option<tokio::time::Instant> = None;
    let mut failure: Option<claudio::Error> = None;

    loop {
        // Flush only when nothing else is waiting: one write per burst.
        let next = match client.next_raw().now_or_never() {
            Some(n) => n,
            None => {
                if out.flush().is_err() {
                    return Ok(quiet_exit(&client).await);
                }
                let report_due = report_deadline;
                tokio::select! {
                    n = client.next_raw() => n,
                    // the agents are done, a result is in, and no turn
                    // started for their report: the answer is complete
                    _ = async { tokio::time::sleep_until(report_due.unwrap_or_else(tokio::time::Instant::now)).await },
                        if report_due.is_some() => break,
                    _ = &mut interrupt => {
                        interrupt = Box::pin(pending());
                        continue;
                    }
                    _ = sigint.recv() => {
                        if interrupted {
                            client.kill();
                            return Ok(Exit::Interrupted);
                        }
                        interrupted = true;
                        let c = &client;
                        interrupt = Box::pin(async move {
                            let _ = tokio::time::timeout(Duration::from_secs(10), c.interrupt()).await;
                        });
                        continue;
                    }
                    _ = sigterm.recv() => {
                        drop(interrupt);
                        let _ = client.close().await;
                        return Ok(Exit::Signal(libc::SIGTERM));
                    }
                    _ = sighup.recv() => {
                        drop(interrupt);
                        let _ = client.close().await;
                        return Ok(Exit::Signal(libc::SIGHUP));
                    }
                }
            }
        };
        match next {
            None => break,
            Some(Err(claudio::Error::LineTooLong { limit })) => {
                out.above(|| eprintln!("claudio: skipped a message longer than {limit} bytes"));
            }
            Some(Err(e)) => {
                failure = Some(e);
                break;
            }
            Some(Ok(m)) => {
                // a background agent reports in a turn of its own: the
                // answer ends with the result after the last one finished
                let is_result =
                    m.message.is_result() && (out.reading.agents().background_running() == 0 || interrupted);
                let were_running = out.reading.agents().background_running() > 0;
                if out.message(&m).is_err() {
                    return Ok(quiet_exit(&client).await);
                }
                if were_running && out.reading.agents().background_running() == 0 && result.is_some() {
                    report_deadline = Some(tokio::time::Instant::now() + REPORT_WAIT);
                }
                if matches!(&m.message, Message::System(s) if matches!(&**s, claudio::SystemMessage::Init(_)))
                {
                    report_deadline = None;
                }
                if let Message::Result(r) = m.message {
                    result = Some(*r);
                    if out.reading.agents().background_running() > 0 {
                        out.waiting_since.get_or_insert_with(Instant::now);
                        if out.show_running().is_err() {
                            return Ok(quiet_exit(&client).await);
                        }
                    }
                }
                if is_result {
                    break;
                }
            }
        }
    }
    if out.finish().is_err() {
        return Ok(quiet_exit(&client).await);
    }
    drop(out);
    drop(interrupt);
    // The answer is complete: let the next program in the pipeline see the
    // end of it now, while the CLI takes its ~50 ms to finish the transcript.
    release_stdout();
    let _ = client.close().await;

    if interrupted {
        return Ok(Exit::Interrupted);
    }
    if let Some(e) = failure {
        return Err(e.into());
    }
    match result {
        Some(r) if args.json_schema.is_some() && !r.is_error && r.structured_output.is_none() => {
            eprintln!(
                "claudio: the model answered without the requested structure{}",
                r.result
                    .as_deref()
                    .map(|t| format!(": {}", Sanitizer::clean(&one_line(t, 200))))
                    .unwrap_or_default()
            );
            Ok(Exit::Failure)
        }
        Some(r) if r.is_error => {
            eprintln!(
                "claudio: the run ended with an error: {}",
                describe_error(&r)
            );
            Ok(Exit::Failure)
        }
        Some(_) => Ok(Exit::Success),
        None => {
            eprintln!("claudio: the CLI ended without a result");
            Ok(Exit::Failure)
        }
    }
}

/// Point fd 1 at /dev/null, so whoever reads our stdout gets end-of-file.
fn release_stdout() {
    if io::stdout().is_terminal() {
        return;
    }
    if let Ok(null) = std::fs::OpenOptions::new().write(true).open("/dev/null") {
        // nothing is written to stdout after
        let _ = rustix::stdio::dup2_stdout(&null);
    }
}

/// Stdout was closed by the reader (`| head -1`): stop quietly.
async fn quiet_exit(client: &Client) -> Exit {
    client.kill();
    let _ = client.close().await;
    Exit::Success
}

fn describe_error(r: &ResultMessage) -> String {
    // API errors end with subtype `success` and `is_error`: say only the error.
    let mut parts = Vec::new();
    if r.subtype != "success" {
        parts.push(r.subtype.clone());
    }
    if let Some(t) = &r.result {
        parts.push(t.clone());
    }
    parts.extend(r.errors.iter().cloned());
    if parts.is_empty() {
        parts.push(
            r.terminal_reason
                .clone()
                .unwrap_or_else(|| "unknown error".into()),
        );
    }
    Sanitizer::clean(&parts.join(": "))
}

/// `ask`'s sink over the shared [`Reading`]: the answer's text to stdout,
/// tool activity and the spinner to stderr (a terminal only).
struct Output<W: Write> {
    w: W,
    format: OutputFormat,
    sanitizer: Option<Sanitizer>,
    scratch: String,
    /// The answer, the calls and the sub-agents (which still work in the
    /// background: the answer is not over until they report).
    reading: Reading,
    wrote_text: bool,
    at_line_start: bool,
    /// Tool activity on stderr (only when stderr is a terminal).
    activity: Option<Style>,
    to_terminal: bool,
    /// The spinner line on stderr (a terminal only).
    spinner: Option<Spinner>,
    /// When a result came while background agents still worked.
    waiting_since: Option<Instant>,
    /// `--json-schema` with `-o text`: print the result's structured output,
    /// not the text.
    structured: bool,
}

impl<W: Write> Drop for Output<W> {
    fn drop(&mut self) {
        // on every way out, the spinner line goes before anything else is
        // written to stderr (an error, the reason for the exit code)
        if let Some(s) = &self.spinner {
            s.hide();
        }
    }
}

impl<W: Write> Output<W> {
    fn flush(&mut self) -> io::Result<()> {
        self.w.flush()
    }

    fn message(&mut self, m: &RawMessage) -> io::Result<()> {
        let mut seen = Vec::new();
        self.reading
            .read(&m.message, Instant::now(), &mut |s| seen.push(s));
        if self.waiting_since.is_some() {
            self.show_running()?; // how many agents are left
        }
        match self.format {
            OutputFormat::StreamJson => {
                self.w.write_all(&m.raw)?;
                return self.w.write_all(b"\n");
            }
            OutputFormat::Json => {
                if m.message.is_result() && self.reading.agents().background_running() == 0 {
                    self.w.write_all(&m.raw)?;
                    self.w.write_all(b"\n")?;
                }
            }
            OutputFormat::Text if self.structured => self.structured_output(&m.message)?,
            OutputFormat::Text => {}
        }
        let text = self.format == OutputFormat::Text && !self.structured;
        for s in seen {
            match s {
                Seen::TextStart if text => self.separate()?,
                Seen::Text(t) if text => self.write_text(t)?,
                Seen::BlockEnd | Seen::MessageEnd if text => self.finish_text()?,
                Seen::Result(r) if text && !self.wrote_text => {
                    if let (Some(t), false) = (&r.result, r.is_error) {
                        self.write_text(t)?;
                        self.finish_text()?;
                    }
                }
                Seen::ToolStarted(_) => self.show_running()?,
                Seen::ToolEnded { call, outcome, .. } => {
                    self.show_running()?;
                    self.tool_line(&call, outcome)?;
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
        if let Some(&last) = bytes.last() {
            self.at_line_start = last == b'\n';
        }
        self.wrote_text = true;
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
        if self.scratch.is_empty() {
            return Ok(());
        }
        self.at_line_start = self.scratch.ends_with('\n');
        self.wrote_text = true;
        self.w.write_all(self.scratch.as_bytes())
    }

    /// A finished call's line on stderr (a terminal only).
    fn tool_line(&mut self, call: &Call, outcome: Outcome) -> io::Result<()> {
        let Some(style) = self.activity else {
            return Ok(());
        };
        // a sub-agent's calls: indented, and named after the agent
        let indent = match &call.parent {
            Some(p) => format!(
                "    {} ",
                style.dim(&format!("{} ›", self.reading.agents().label(p)))
            ),
            None => "  ".to_owned(),
        };
        let (name, summary) = (style.cyan(&call.name), &call.summary);
        let line = match outcome {
            Outcome::Background => {
                let cue = style.cyan("⇢");
                let why = style.dim("working in the background");
                format!("{indent}{cue} {name}  {summary}  {why}")
            }
            Outcome::Done | Outcome::Failed => {
                let mark = if outcome == Outcome::Failed {
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
        }
        self.w.flush()
    }

    /// Run `f` (a write to stderr) with the spinner line out of the way.
    fn above<R>(&self, f: impl FnOnce() -> R) -> R {
        match &self.spinner {
            Some(s) => s.above(f),
            None => f(),
        }
    }

    /// The spinner shows the newest running tool, or goes when none runs.
    fn show_running(&mut self) -> io::Result<()> {
        let Some(spinner) = self.spinner.clone() else {
            return Ok(());
        };
        let newest = self
            .reading
            .calls()
            .iter()
            .max_by_key(|c| c.started)
            .map(|c| (format!("{}  {}", c.name, c.summary), c.started));
        // else, after the answer: the background agents it waits for
        let agents = self.reading.agents().background_running();
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

    fn finish(&mut self) -> io::Result<()> {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Text output to a terminal, written into a buffer.
    fn terminal_output() -> Output<Vec<u8>> {
        Output {
            w: Vec::new(),
            format: OutputFormat::Text,
            sanitizer: Some(Sanitizer::new()),
            scratch: String::new(),
            reading: Reading::default(),
            wrote_text: false,
            at_line_start: true,
            activity: None,
            to_terminal: true,
            spinner: None,
            waiting_since: None,
            structured: false,
        }
    }

    fn msg(v: serde_json::Value) -> Message {
        Message::parse(v.to_string().as_bytes()).unwrap()
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
            out.message(&RawMessage {
                message: m,
                raw: Vec::new(),
            })
            .unwrap();
        }
        out.finish().unwrap();
        let shown = String::from_utf8(out.w.clone()).unwrap();
        assert_eq!(
            shown,
            "one _rest of one\n\ntwo [1;\n\nthree ]0;\n\nfour\n\nfive P\n"
        );
    }

    #[test]
    fn stdin_is_read_up_to_its_limit() {
        assert_eq!(
            read_bounded(&b"0123456789"[..], 10).unwrap().unwrap().len(),
            10
        );
        assert_eq!(read_bounded(&b""[..], 10).unwrap(), Some(Vec::new()));
        assert_eq!(read_bounded(&b"0123456789a"[..], 10).unwrap(), None);
        // an endless input: no more than the limit and a byte are read
        let mut endless = io::repeat(b'x');
        assert_eq!(read_bounded(&mut endless, 1000).unwrap(), None);
    }

    #[test]
    fn prompt_composition() {
        let a = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            compose_prompt(&a(&["review", "this"]), None).unwrap(),
            "review this"
        );
        assert_eq!(
            compose_prompt(&a(&["review"]), Some("diff --git\n")).unwrap(),
            "review\n\ndiff --git\n"
        );
        assert_eq!(
            compose_prompt(&[], Some("just stdin")).unwrap(),
            "just stdin"
        );
        assert_eq!(compose_prompt(&[], Some("  \n")), None);
        assert_eq!(compose_prompt(&a(&["x"]), Some("")).unwrap(), "x");
        assert_eq!(compose_prompt(&[], None), None);
    }
}
