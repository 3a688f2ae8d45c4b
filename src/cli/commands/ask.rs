//! `claudio ask`: one answer, made for shell pipelines.

use crate::cli::common::exit::Exit;
use crate::cli::common::flags::SessionFlags;
use crate::cli::common::notify::{Notice, Notifier, Trigger};
use crate::cli::common::options::build_options;
use crate::cli::requests::tty::{CancelFlag, TtyPrompts};
use crate::cli::sanitize::Sanitizer;
use crate::cli::term::spinner::Spinner;
use crate::cli::term::style::Style;
use crate::cli::term::text::first_line;
use crate::cli::turn::events::{
    held_bytes, Happened, Signal, Signals, Source, Wait, HELD_BYTES, HELD_MAX,
};
use crate::cli::turn::interrupt::Press;
use crate::cli::turn::reading::Reading;
use crate::cli::turn::{After, TurnWatch};
use anyhow::Context;
use args::{AskArgs, OutputFormat};
use claudio::{Client, Message, PermissionResult, Request, RequestBody, Responder, ResultMessage};
use output::Sink;
use std::collections::VecDeque;
use std::future::pending;
use std::io::{self, IsTerminal, Read};
use std::sync::Arc;
use std::time::Instant;

pub mod args;
mod input;
mod output;

use input::{compose_input, Piped};

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

fn read_stdin() -> anyhow::Result<Option<Piped>> {
    let stdin = io::stdin();
    if stdin.is_terminal() {
        return Ok(None);
    }
    let read = read_bounded(stdin.lock(), STDIN_LIMIT).context("failed to read stdin")?;
    let Some(buf) = read else {
        // nothing has started: a usage error, before anything is sent
        return Err(crate::cli::common::exit::usage_error!(
            "stdin holds more than {} MiB, the most a prompt may be (the API takes 32 MB a request); nothing was sent",
            STDIN_LIMIT >> 20
        ));
    };
    let (piped, replaced) = Piped::from_bytes(buf);
    if replaced {
        eprintln!("claudio: stdin is not valid UTF-8; invalid bytes were replaced");
    }
    Ok(Some(piped))
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

/// `ask` in a folder not trusted yet: its project settings are left out,
/// unless `--trust-workspace` says to load them or the person, asked on
/// the terminal, trusts it (asked only when they would load something).
/// Without a terminal the note names the flag.
fn settle_trust(flags: &mut SessionFlags, cwd: &std::path::Path, style: Style) {
    use crate::cli::common::trust;
    if flags.trust_workspace {
        return;
    }
    let trust::Check::Untrusted(folder) = trust::check(cwd) else {
        return;
    };
    flags.without_project_settings = true;
    if folder.loads.is_empty() {
        // nothing of the project's is left out
        return;
    }
    match crate::cli::requests::tty::ask_trust(&folder, style) {
        Ok(true) => {
            flags.without_project_settings = false;
            if let Err(e) = trust::record_trust(&folder) {
                eprintln!(
                    "claudio: trusted for this run only: the trust could not be recorded ({e})"
                );
            }
        }
        Ok(false) => eprintln!(
            "claudio: {}",
            trust::left_out(&folder, "pass --trust-workspace to load them")
        ),
        Err(_) => eprintln!(
            "claudio: {}",
            trust::left_out(
                &folder,
                "pass --trust-workspace to load them (no terminal to ask on)"
            )
        ),
    }
}

pub async fn run(session: &SessionFlags, args: AskArgs) -> anyhow::Result<Exit> {
    // what a process killed outright left: its settings and MCP servers
    claudio::transport::sweep_private_dirs();
    let piped = tokio::task::spawn_blocking(read_stdin).await??;
    // every image is checked here, before anything starts
    let Some(prompt) = compose_input(&args.prompt, piped, &args.image)? else {
        if let Some(id) = &session.resume {
            // `claudio -r ID` or `sessions resume ID` with no terminal
            eprintln!(
                "claudio: resuming session {} as a chat needs a terminal; from a script, give the next prompt: `claudio ask -r {} \"...\"` (or pipe it in)",
                crate::cli::sanitize::Sanitizer::clean(id),
                crate::cli::sanitize::Sanitizer::clean(id)
            );
            return Ok(Exit::Usage);
        }
        if args.from_chat {
            eprintln!("claudio: the chat needs a terminal, and nothing came on stdin: run `claudio` in a terminal, or pipe a prompt in (`echo \"...\" | claudio`, `claudio ask \"...\"`)");
        } else {
            eprintln!("claudio: ask needs a prompt: `claudio ask \"...\"` or text on stdin\n\nUsage: claudio ask [OPTIONS] [PROMPT]...");
        }
        return Ok(Exit::Usage);
    };

    let schema = match &args.json_schema {
        Some(text) => {
            Some(read_schema(text).map_err(|e| crate::cli::common::exit::usage_error!("{e:#}"))?)
        }
        None => None,
    };
    let stderr_style = Style::for_stderr(session.color_choice());
    let cwd = match &session.cwd {
        Some(d) => d.clone(),
        None => crate::cli::common::folder::current()?,
    };
    let mut session = session.clone();
    settle_trust(&mut session, &cwd, stderr_style);
    let session = &session;
    let here = crate::cli::turn::summary::Here::new(&cwd);
    let here_dir = cwd.clone();
    let prompts = TtyPrompts::new(stderr_style, cwd);
    // one spinner line on stderr, when that is a terminal
    let spinner = Spinner::on_stderr(stderr_style);
    if let Some(s) = &spinner {
        prompts.hide_while_asking(s.clone());
    }
    // with a schema, the answer is the object the model returns, not its text
    let structured = schema.is_some() && args.output_format == OutputFormat::Text;
    let streamed_text = args.output_format == OutputFormat::Text && !structured;
    let mut options = build_options(session)?
        .include_partial_messages(args.output_format != OutputFormat::Json && !structured)
        // Text to a pipe is written as it comes, byte for byte: a run of
        // deltas read at once is one message, not one per delta (on a
        // terminal each delta is shown and filled as it comes).
        .coalesce_text_deltas(streamed_text && !io::stdout().is_terminal())
        // `ask` reads no stream event's values but a message's id (`-o
        // json` and `-o stream-json` write the CLI's own bytes)
        .lean_stream_events(true);
    if let Some(schema) = schema {
        options = options.json_schema(schema);
    }
    // the CLI's requests come in the session's events, asked by the loop
    options = options.requests_as_events(true);
    // the deck's row says `claudio ask`, not `claudio chat`
    options = options.env(crate::cli::requests::publish::PROGRAM_ENV, "claudio ask");

    // Taken before the CLI starts: a signal while it starts (slow MCP
    // servers) stops it and removes its private files, as one later does.
    let mut signals = Signals::new(&[Signal::Interrupt, Signal::Terminate, Signal::Hangup])?;
    // The raw lines are needed only to pass them on verbatim.
    let connecting = async {
        if args.output_format == OutputFormat::Text {
            Client::connect(options).await
        } else {
            Client::connect_keeping_raw(options).await
        }
    };
    let client = tokio::select! {
        client = connecting => client?,
        sig = signals.recv(true) => {
            // nothing to keep: no turn has begun
            claudio::transport::abandon();
            return Ok(match sig {
                Signal::Interrupt => Exit::Interrupted,
                sig => Exit::Signal(sig.number()),
            });
        }
    };
    client.send(prompt).await?;
    if let Some(s) = &spinner {
        s.show("waiting for the answer".into(), Instant::now());
    }

    let stdout = io::stdout();
    let to_terminal = stdout.is_terminal();
    let mut out = Sink::new(
        io::BufWriter::with_capacity(64 * 1024, stdout.lock()),
        args.output_format,
        to_terminal,
        (io::stderr().is_terminal()).then_some(stderr_style),
        spinner.clone(),
        structured,
    );

    let mut source = Source::new(&client, signals);
    // a background agent reports in a turn of its own: the answer ends
    // with the result after the last one finished (and its report)
    let mut turn = TurnWatch::prompt(After::Agents);
    // what the session's messages said: the answer, the calls, the agents
    // (which still work in the background: the answer is not over until
    // they report)
    let mut reading = Reading::at(here);
    let mut result: Option<ResultMessage> = None;
    let mut failure: Option<claudio::Error> = None;
    // the request being asked on the terminal, and what the CLI said
    // meanwhile: taken in order once it is answered
    let mut asking: Option<Asked> = None;
    let mut held: Held<PermissionResult> = Held::default();
    // notices, as the chat sends them: a request asked on the terminal,
    // an answer that took long (the bell and OSC go to the terminal the
    // person answers on, stderr; never into the answer on stdout)
    let mut notifier = Notifier::new(args.notify.clone().unwrap_or_default());
    let project = crate::cli::common::notify::project_name(&here_dir);
    let asked_at = Instant::now();

    loop {
        let next = match asking {
            None => held.pop(),
            Some(_) => None,
        };
        // no more is read past the bound while someone is asked
        let full = held.full();
        let read = asking.is_none() || !full;
        // Flush only when nothing else is waiting: one write per burst.
        let next = match next.or_else(|| read.then(|| source.ready()).flatten()) {
            Some(n) => n,
            None => {
                if out.flush().is_err() {
                    return Ok(quiet_exit(&client).await);
                }
                let wait = Wait {
                    // the settle time does not run out while someone decides
                    due: asking.is_none().then(|| turn.deadline()).flatten(),
                    hold: full,
                    ..Wait::default()
                };
                let answer = async {
                    match asking.as_mut() {
                        Some(a) => (&mut a.task).await.unwrap_or_else(|_| {
                            PermissionResult::deny("The permission prompt failed.")
                        }),
                        None => pending().await,
                    }
                };
                source.next(answer, wait).await
            }
        };
        let now = Instant::now();
        let next = match next {
            // what the CLI says while a question is open waits for its answer
            n @ (Happened::Message(_)
            | Happened::TurnEnded
            | Happened::Request(_)
            | Happened::LongLine(_)
            | Happened::Failed(_)
            | Happened::Closed)
                if asking.is_some() =>
            {
                held.push(n);
                continue;
            }
            n => n,
        };
        match next {
            Happened::Request(req) => {
                let notice = notice_for(&req, &project, &here_dir, client.session_id());
                let about = crate::cli::requests::publish::About {
                    program: "claudio ask",
                    cwd: here_dir.clone(),
                    session_id: client.session_id(),
                    cost_usd: None,
                };
                asking = ask(&prompts, *req, &about);
                if asking.is_some() {
                    notifier.needs_you(&notice, &mut notice_terminal());
                }
            }
            Happened::TurnStarted => reading.turn_started(),
            Happened::TurnEnded => reading.turn_ended(),
            Happened::Withdrawn(id) => {
                // the question closes, saying so (a request withdrawn
                // before it was asked is passed over when its turn comes)
                if let Some(a) = asking.as_ref().filter(|a| a.responder.request_id() == id) {
                    a.cancel.set();
                }
            }
            Happened::Front(answer) => {
                notifier.answered();
                if let Some(a) = asking.take() {
                    // a withdrawn request takes no answer: nothing to say;
                    // one the deck answered first keeps nothing of `a`
                    let answered = a.responder.answer(answer).await;
                    if matches!(answered, Err(claudio::AnswerError::AlreadyAnswered)) {
                        prompts.take_back_grant();
                    }
                    // a call's time starts when it was allowed, as in the
                    // chat: not what the person took to decide
                    if let Some(id) = &a.call {
                        reading.call_runs(id, now);
                    }
                }
            }
            Happened::Message(m) => {
                if out.read_message(&m, &mut reading, now).is_err() {
                    return Ok(quiet_exit(&client).await);
                }
                let agents = reading.agents().background_running();
                let over = turn.message(&m.message, agents, now);
                if let Message::Result(r) = m.message {
                    result = Some(*r);
                    if !over && turn.waiting_for_agents() && agents > 0 {
                        out.waiting_since.get_or_insert_with(Instant::now);
                        if out.show_running(&reading).is_err() {
                            return Ok(quiet_exit(&client).await);
                        }
                    }
                }
                if over {
                    break;
                }
            }
            // the agents are done, a result is in, and no turn started
            // for their report: the answer is complete
            Happened::Due | Happened::Tick => {
                let agents = reading.agents().background_running();
                if turn.tick(agents, now) {
                    break;
                }
            }
            Happened::Closed => break,
            Happened::LongLine(limit) => {
                out.above(|| eprintln!("claudio: skipped a message longer than {limit} bytes"));
            }
            Happened::Failed(e) => {
                failure = Some(e);
                break;
            }
            Happened::Signal(Signal::Interrupt) => {
                if turn.ctrl_c(now) == Press::Quit {
                    client.kill();
                    return Ok(Exit::Interrupted);
                }
                source.interrupt();
            }
            Happened::Signal(sig @ (Signal::Terminate | Signal::Hangup)) => {
                drop(source);
                let _ = client.close().await;
                return Ok(Exit::Signal(sig.number()));
            }
        }
    }
    if out.finish().is_err() {
        return Ok(quiet_exit(&client).await);
    }
    drop(out);
    drop(source);
    // The answer is complete: let the next program in the pipeline see the
    // end of it now, while the CLI takes its ~50 ms to finish the transcript.
    release_stdout();
    let _ = client.close().await;

    if turn.interrupted() {
        return Ok(Exit::Interrupted);
    }
    if result.as_ref().is_some_and(|r| !r.is_error) {
        let took = asked_at.elapsed();
        let body = format!("claudio ask in {project}, after {} s", took.as_secs());
        let notice = Notice::new(
            Trigger::Turn,
            "Claude is done",
            &body,
            client.session_id().as_deref(),
        );
        notifier.turn_ended_now(took, &notice, &mut notice_terminal());
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
                    .map(|t| format!(": {}", Sanitizer::clean(&first_line(t, 200))))
                    .unwrap_or_default()
            );
            Ok(Exit::Failure)
        }
        Some(r) if r.is_error => {
            eprintln!(
                "claudio: the run ended with an error: {}",
                describe_error(&r, session.verbose)
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

/// A request being asked on the terminal.
struct Asked {
    responder: Responder,
    /// The tool call it is for.
    call: Option<String>,
    /// Set when the question is to close (the request withdrawn, answered
    /// elsewhere, the session gone); set too when this is dropped.
    cancel: CancelFlag,
    /// The question, asked on `/dev/tty` beside the loop; its answer.
    task: tokio::task::JoinHandle<PermissionResult>,
    /// The request offered to the deck meanwhile (dropped: taken off it).
    _published: Option<crate::cli::requests::publish::Published>,
}

/// Ask `req` on the terminal (a tool approval, a question, a plan), or
/// pass it over: a request already settled (withdrawn before its turn
/// came) or of a kind `ask` does not answer (dropped: it gets its default
/// answer, an error).
fn ask(
    prompts: &Arc<TtyPrompts>,
    req: Request,
    about: &crate::cli::requests::publish::About,
) -> Option<Asked> {
    let (body, responder) = req.into_parts();
    let RequestBody::CanUseTool(tool) = body else {
        return None;
    };
    if responder.is_settled() {
        return None;
    }
    let cancel = CancelFlag::watch(&responder);
    let call = tool.tool_use_id.clone();
    // the deck may answer it too: the first answer wins, and the question
    // on the terminal closes saying so
    let published = crate::cli::requests::publish::start(
        crate::cli::requests::socket::path(),
        &tool,
        &responder,
        about,
    );
    let task = tokio::spawn(prompts.clone().decide(*tool, cancel.flag.clone()));
    Some(Asked {
        responder,
        call,
        cancel,
        task,
        _published: published,
    })
}

/// The notice for a request asked on the terminal, worded as the chat's.
fn notice_for(
    req: &Request,
    project: &str,
    cwd: &std::path::Path,
    session: Option<String>,
) -> Notice {
    let (trigger, title, what) = match req.can_use_tool() {
        Some(t) => {
            let (trigger, title) = (crate::cli::requests::registered(t.kind()).notice)(t);
            let here = crate::cli::turn::summary::Here::new(cwd);
            let what = crate::cli::turn::summary::tool_summary_at(&t.tool_name, &t.input, &here);
            (trigger, title, what)
        }
        None => (
            Trigger::Permission,
            "Claude asks you".to_owned(),
            String::new(),
        ),
    };
    let body = if what.is_empty() {
        format!("claudio ask in {project}")
    } else {
        format!("{what} — claudio ask in {project}")
    };
    Notice::new(trigger, &title, &body, session.as_deref())
}

/// Where a notice's bell and OSC go: stderr when it is a terminal,
/// nowhere else (never into the answer on stdout).
fn notice_terminal() -> Box<dyn io::Write> {
    if io::stderr().is_terminal() {
        Box::new(io::stderr())
    } else {
        Box::new(io::sink())
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

/// A failed run's error, in one line; the CLI's internal diagnostics
/// (`[ede_diagnostic] …`) only under `--verbose`.
fn describe_error(r: &ResultMessage, verbose: bool) -> String {
    // API errors end with subtype `success` and `is_error`: say only the error.
    let mut parts = Vec::new();
    if r.subtype != "success" {
        parts.push(r.subtype.clone());
    }
    if let Some(t) = &r.result {
        parts.push(t.clone());
    }
    parts.extend(
        r.errors
            .iter()
            .filter(|e| verbose || !crate::cli::turn::reading::is_cli_diagnostic(e))
            .cloned(),
    );
    if parts.is_empty() {
        parts.push(
            r.terminal_reason
                .clone()
                .unwrap_or_else(|| "unknown error".into()),
        );
    }
    // "Please run /login" names a command `ask` has not: say how to log in
    crate::cli::turn::reading::login_hint(&Sanitizer::clean(&parts.join(": ")))
}

/// What the CLI said while a question is open, held in order until it is
/// answered, and bounded: [`HELD_MAX`] things, [`HELD_BYTES`] of the CLI's
/// lines (the line that passes it is held whole). Once full, the loop reads
/// no more from the CLI until the answer: the CLI waits.
#[derive(Debug)]
struct Held<X> {
    held: VecDeque<Happened<X>>,
    /// The bytes of the lines held.
    bytes: usize,
}

impl<X> Default for Held<X> {
    fn default() -> Self {
        Held {
            held: VecDeque::new(),
            bytes: 0,
        }
    }
}

impl<X> Held<X> {
    fn push(&mut self, h: Happened<X>) {
        self.bytes += held_bytes(&h);
        self.held.push_back(h);
    }

    /// The first thing held, taken in: its bytes make room.
    fn pop(&mut self) -> Option<Happened<X>> {
        let h = self.held.pop_front()?;
        self.bytes -= held_bytes(&h);
        Some(h)
    }

    /// Whether as much is held as may be.
    fn full(&self) -> bool {
        self.held.len() >= HELD_MAX || self.bytes >= HELD_BYTES
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `ask`'s half of the bound on what is held while a question is open
    /// (the chat's is `what_is_held_is_bounded_in_bytes`): lines of 1 MiB
    /// (a sub-agent's file read, an image) fill it at [`HELD_BYTES`], long
    /// before [`HELD_MAX`] of them; taking one in makes room; the line that
    /// passes the bound is held whole, and its bytes go with it.
    #[test]
    fn what_is_held_while_asked_is_bounded_in_bytes() {
        let line = 1 << 20;
        let progress = |size: usize| {
            let message = claudio::Message::parse(
                br#"{"type":"system","subtype":"task_progress","task_id":"a1","description":"working"}"#,
            )
            .unwrap();
            let raw = vec![b' '; size];
            Happened::Message(Box::new(claudio::RawMessage { message, raw }))
        };
        let mut held: Held<()> = Held::default();
        for i in 0..HELD_BYTES / line {
            assert!(!held.full(), "full after {i} lines of 1 MiB");
            held.push(progress(line));
        }
        assert!(held.full());
        assert!(held.pop().is_some());
        assert!(!held.full(), "one taken in makes room");
        held.push(progress(64 * line));
        assert!(held.full());
        for _ in 0..HELD_BYTES / line {
            assert!(held.pop().is_some());
        }
        assert!(!held.full());
        assert!(held.pop().is_none());
        // and in things, small lines: at HELD_MAX
        for _ in 0..HELD_MAX {
            assert!(!held.full());
            held.push(Happened::TurnEnded);
        }
        assert!(held.full());
    }

    #[test]
    fn a_cli_diagnostic_is_said_only_under_verbose() {
        let m = claudio::Message::parse(
            br#"{"type":"result","subtype":"error_during_execution","is_error":true,"errors":["[ede_diagnostic] result_type=user","disk full"]}"#,
        )
        .unwrap();
        let r = m.as_result().unwrap();
        assert_eq!(
            describe_error(r, false),
            "error_during_execution: disk full"
        );
        assert!(describe_error(r, true).contains("[ede_diagnostic] result_type=user"));
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
}
