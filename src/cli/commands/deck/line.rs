//! `claudio deck` on a terminal, line by line: the running sessions, then
//! each permission request a claude TUI hands over (through `claudio deck
//! hook`) shown as the chat shows a tool approval (the whole command, the
//! diff), answered with a typed line: `y` allows it, `n` or a reason
//! denies it, `t` hands it back to its terminal (the TUI shows its own
//! dialog). Each answer goes to the request it was typed for: the hook
//! takes it only with that request's token.

use crate::cli::requests::socket::{Listener, Pending};
use crate::cli::requests::{diff, tool};
use crate::cli::sanitize::Sanitizer;
use crate::cli::term::style::Style;
use crate::cli::turn::summary::Here;
use claudio::CanUseToolRequest;
use serde_json::Value;
use std::io::{self, BufRead, Write};
use std::path::PathBuf;
use std::time::Duration;

/// How often, in ms, a waiting request's transcript is looked at for an
/// answer given in its terminal.
const CHECK_EVERY_MS: i32 = 200;

/// How long a connection may take to send its request.
const REQUEST_BOUND: Duration = Duration::from_secs(5);

/// The prompt after a request.
fn choices(s: &Style) -> String {
    format!(
        "Allow?  {} once · {} no · {} answer it in its terminal · or why not; Enter › ",
        s.bold("y"),
        s.bold("n"),
        s.bold("t"),
    )
}

/// The chat's approval as the line deck asks it: without the chat's own
/// choices row (`└ Allow?  y once · a session · …`), whose `a`, `p` and
/// `u` are the full-screen deck's (the line deck's own choices follow).
fn question_of(folded: &str) -> String {
    format!("{}\n  └ ", super::view::body_lines(folded).join("\n"))
}

/// The full-screen deck's keys the line deck does not take (typed here,
/// each would deny the call with itself as the reason).
fn full_screen_key(line: &str) -> bool {
    matches!(line.trim(), "a" | "A" | "p" | "P" | "u" | "U")
}

/// What the person typed, as the hook's answer: `(behavior, message)`;
/// `None`: show the whole diff.
fn answer_of(line: &str) -> Option<(&'static str, Option<String>)> {
    let t = line.trim();
    match t {
        "y" | "Y" | "yes" => Some(("allow", None)),
        "t" | "T" => Some(("ask", None)),
        "d" | "D" => None,
        "" | "n" | "N" | "no" => Some(("deny", Some("The user denied this tool call.".into()))),
        reason => Some((
            "deny",
            Some(format!(
                "The user denied this tool call, saying: {}",
                Sanitizer::clean(reason)
            )),
        )),
    }
}

/// What came from the person while a request waits.
#[derive(Debug, PartialEq, Eq)]
pub enum Typed {
    /// A line, without its newline.
    Line(String),
    /// The input ended: nobody is at the deck any more.
    End,
    /// The request went away first (answered in its terminal, its hook's
    /// bound passed).
    Withdrawn,
}

/// Where the answers come from.
pub trait Keyboard {
    /// The next line typed for `pending`, or its withdrawal; `elsewhere`
    /// says whether it was answered in its terminal (asked now and then
    /// while waiting).
    fn next(&mut self, pending: &Pending, elsewhere: &mut dyn FnMut() -> bool)
        -> io::Result<Typed>;
}

/// Any buffered reader (a test's text): lines only, never waiting on the
/// request.
impl<T: BufRead> Keyboard for T {
    fn next(&mut self, _: &Pending, _: &mut dyn FnMut() -> bool) -> io::Result<Typed> {
        let mut line = String::new();
        if self.read_line(&mut line)? == 0 {
            return Ok(Typed::End);
        }
        Ok(Typed::Line(line.trim_end_matches(['\n', '\r']).to_owned()))
    }
}

/// The deck's standard input, waited on together with the request's
/// connection: a request answered in its terminal is said to be gone at
/// once, not when the next answer is typed.
pub struct Polled<F: std::os::fd::AsFd> {
    fd: F,
    buf: Vec<u8>,
    ended: bool,
}

impl<F: std::os::fd::AsFd> Polled<F> {
    pub fn new(fd: F) -> Self {
        Polled {
            fd,
            buf: Vec::new(),
            ended: false,
        }
    }
}

impl<F: std::os::fd::AsFd> Keyboard for Polled<F> {
    fn next(
        &mut self,
        pending: &Pending,
        elsewhere: &mut dyn FnMut() -> bool,
    ) -> io::Result<Typed> {
        use rustix::event::{poll, PollFd, PollFlags};
        loop {
            if let Some(at) = self.buf.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.buf.drain(..=at).collect();
                let text = String::from_utf8_lossy(&line[..at]);
                return Ok(Typed::Line(text.trim_end_matches('\r').to_owned()));
            }
            if self.ended {
                return Ok(Typed::End);
            }
            let (keys, hook) = {
                let mut fds = [
                    PollFd::new(&self.fd, PollFlags::IN),
                    PollFd::from_borrowed_fd(pending.as_fd(), PollFlags::IN),
                ];
                match poll(&mut fds, CHECK_EVERY_MS) {
                    Err(rustix::io::Errno::INTR) => continue,
                    Err(e) => return Err(e.into()),
                    Ok(0) if elsewhere() => return Ok(Typed::Withdrawn),
                    Ok(_) => {}
                }
                (!fds[0].revents().is_empty(), !fds[1].revents().is_empty())
            };
            // the hook sends nothing after its request: its end readable
            // is its end closed (or a peer out of line): the request is
            // gone
            if hook {
                return Ok(Typed::Withdrawn);
            }
            if keys {
                let mut chunk = [0u8; 4096];
                match rustix::io::read(&self.fd, &mut chunk) {
                    Ok(0) => self.ended = true,
                    Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                    Err(rustix::io::Errno::INTR) | Err(rustix::io::Errno::AGAIN) => {}
                    Err(e) => return Err(e.into()),
                }
                if self.buf.len() > 1 << 20 {
                    // a line past any answer's length: read as typed
                    self.buf.push(b'\n');
                }
            }
        }
    }
}

/// Show one request and answer it from `input`; `false` when `input`
/// ended.
pub fn answer_one(
    pending: Pending,
    input: &mut dyn Keyboard,
    out: &mut dyn Write,
    style: Style,
    width: usize,
) -> io::Result<bool> {
    let req_input = &pending.request.input;
    let cwd = req_input
        .get("cwd")
        .and_then(Value::as_str)
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .unwrap_or_else(|| PathBuf::from("/"));
    let session = req_input
        .get("session_id")
        .and_then(Value::as_str)
        .unwrap_or("?");
    let head = format!(
        "{}  {}  {}",
        style.yellow("NEEDS YOU"),
        Sanitizer::visible_line(&cwd.display().to_string()),
        style.dim(&format!(
            "claude TUI · session {}",
            Sanitizer::visible(&session.chars().take(8).collect::<String>())
        ))
    );
    writeln!(out, "\n{head}")?;
    let Some(req) = crate::cli::requests::publish::as_tool_request(req_input) else {
        writeln!(
            out,
            "  (a request the deck cannot read: answer it in its terminal)"
        )?;
        let _ = pending.answer("ask", None);
        return Ok(true);
    };
    if super::full::kind_answered_here(req_input, &req) {
        return asks_line(pending, &req, &cwd, input, out, style, width);
    }
    if super::hook::answered_in_its_terminal(&req) {
        writeln!(
            out,
            "  {}",
            style.dim(&format!(
                "{} of its session: answer it in its terminal",
                super::hook::kind_words(&req)
            ))
        )?;
        let _ = pending.answer("ask", None);
        return Ok(true);
    }
    let mut watch = super::answered::Watch::new(req_input);
    // its session's process, as the registry lists it now: a request whose
    // process ended (its TUI killed) goes, its hook living on or not
    let process = super::full::process_of(req_input);
    let ended = std::cell::Cell::new(false);
    let change = diff::proposed(&req.tool_name, &req.input, &cwd);
    let here = Here::new(&cwd);
    let mut shown = tool::Shown::new(&req, change.as_ref(), None, &here, style, width);
    let mut question = question_of(&shown.folded);
    loop {
        write!(out, "{question}  {}", choices(&style))?;
        out.flush()?;
        let line = match input.next(&pending, &mut || {
            if process
                .as_ref()
                .is_some_and(|s| claudio::registry::liveness(s).is_some())
            {
                ended.set(true);
                return true;
            }
            watch.as_mut().is_some_and(super::answered::Watch::answered)
        })? {
            Typed::Line(l) => l,
            Typed::End => {
                // nobody at the deck any more: the TUI asks
                let _ = pending.answer("ask", None);
                return Ok(false);
            }
            Typed::Withdrawn => {
                // the hook, if still there, ends with no decision
                let _ = pending.answer("ask", None);
                let why = if ended.get() {
                    "gone: its session ended"
                } else {
                    "gone: answered in its terminal (or its hook's bound passed)"
                };
                writeln!(out, "\n  {}", style.dim(why))?;
                out.flush()?;
                return Ok(true);
            }
        };
        if full_screen_key(&line) {
            writeln!(
                out,
                "  {}",
                style.dim(
                    "a, p and u are the full-screen deck's: here y allows once, n or a reason denies, t answers it in its terminal"
                )
            )?;
            continue;
        }
        let Some((behavior, message)) = answer_of(&line) else {
            question = shown
                .whole
                .take()
                .map(|w| question_of(&w))
                .unwrap_or_default();
            continue;
        };
        if pending.withdrawn() {
            writeln!(
                out,
                "  {}",
                style.dim("gone: the session stopped waiting (its hook's bound passed)")
            )?;
            return Ok(true);
        }
        let said = match behavior {
            "allow" => style.green("allowed from the deck"),
            "deny" => style.red("denied from the deck"),
            _ => style.dim("handed back: answer it in its terminal"),
        };
        let given = if behavior == "ask" {
            pending
                .answer(behavior, message)
                .map(|()| crate::cli::requests::socket::Acked::Taken)
        } else {
            // the asking end says whether it took it (it may have been
            // answered there a moment before)
            pending.decide(crate::cli::requests::socket::Answer {
                token: String::new(),
                behavior: behavior.to_owned(),
                message,
                updated_permissions: None,
                updated_input: None,
                interrupt: false,
            })
        };
        match given {
            Ok(crate::cli::requests::socket::Acked::Taken) => writeln!(out, "  {said}")?,
            Ok(crate::cli::requests::socket::Acked::Refused) => writeln!(
                out,
                "  {}",
                style.dim("refused: no answer to what it asks (it still asks)")
            )?,
            Ok(crate::cli::requests::socket::Acked::NotTaken) => writeln!(
                out,
                "  {}",
                style.dim("answered in its terminal first: the deck's answer was not taken")
            )?,
            Err(_) => writeln!(
                out,
                "  {}",
                style.dim("gone: the session stopped waiting before the answer reached it")
            )?,
        }
        return Ok(true);
    }
}

/// A claudio chat's question or plan, asked line by line through the
/// model its kind registers (as `ask` asks it on its terminal): a number
/// or words each, `t` hands it back; the answer goes once the model gives
/// one, and the chat says whether it took it.
fn asks_line(
    pending: Pending,
    req: &CanUseToolRequest,
    cwd: &std::path::Path,
    input: &mut dyn Keyboard,
    out: &mut dyn Write,
    style: Style,
    width: usize,
) -> io::Result<bool> {
    use crate::cli::requests::socket::Acked;
    let Some(mut asks) = super::full::asks_of(req, &pending.request.input, cwd, width, style)
    else {
        writeln!(
            out,
            "  (a request the deck cannot read: answer it in its chat)"
        )?;
        let _ = pending.answer("ask", None);
        return Ok(true);
    };
    loop {
        for l in super::view::asks_lines(&asks.text) {
            writeln!(out, "{l}")?;
        }
        let hint = if asks.plan {
            // as `ask` reads a plan's line
            "a number, or what to change; Enter alone rejects it and stops the turn; t: answer it in its chat ›"
        } else {
            "a number, or your own answer; t: answer it in its chat ›"
        };
        write!(out, "  {} ", style.dim(hint))?;
        out.flush()?;
        let line = match input.next(&pending, &mut || false)? {
            Typed::Line(l) => l,
            Typed::End => {
                let _ = pending.answer("ask", None);
                return Ok(false);
            }
            Typed::Withdrawn => {
                let _ = pending.answer("ask", None);
                writeln!(out, "\n  {}", style.dim("gone: answered in its chat"))?;
                out.flush()?;
                return Ok(true);
            }
        };
        let t = line.trim();
        if t.eq_ignore_ascii_case("t") {
            let _ = pending.answer("ask", None);
            writeln!(out, "  {}", style.dim("handed back: answer it in its chat"))?;
            return Ok(true);
        }
        if t.is_empty() && !asks.plan {
            continue;
        }
        let step = asks.model.line(&line, &asks.at);
        write!(out, "{}", step.write)?;
        let Some(done) = step.done else {
            asks.text = asks.model.prompt(&asks.at);
            continue;
        };
        let said = match pending.decide(super::full::hook_answer(&done.result)) {
            Ok(Acked::Taken) => style.green("answered from the deck"),
            Ok(Acked::NotTaken) => {
                style.dim("answered in its chat first: the deck's answer was not taken")
            }
            Ok(Acked::Refused) => style.dim("refused: no answer to what it asks (it still asks)"),
            Err(_) => style.dim("gone: answered in its chat before the answer reached it"),
        };
        writeln!(out, "  {said}")?;
        out.flush()?;
        return Ok(true);
    }
}

/// The sessions running now, one line each, waiting ones first.
pub fn sessions_lines(style: Style) -> String {
    let Ok(config_dir) = claudio::store::default_config_dir() else {
        return String::new();
    };
    let reg = claudio::registry::read_dir(&config_dir.join("sessions"));
    let snap = super::snapshot::snapshot(&config_dir, &reg);
    let mut out = String::new();
    for s in snap["sessions"].as_array().into_iter().flatten() {
        let text = |k: &str| s[k].as_str().unwrap_or("").to_owned();
        // a turn the API ended with an error: failed, with the error
        let failed = text("error");
        let state = match text("state").as_str() {
            "waiting" => style.yellow("NEEDS YOU"),
            "working" => style.green("WORKING  "),
            _ if !failed.is_empty() => style.yellow("FAILED   "),
            _ => style.dim("DONE     "),
        };
        let pane = text("tmux");
        let line = format!(
            "{}  {}  {}{}{}",
            text("cwd"),
            text("name"),
            text("waitingFor"),
            if failed.is_empty() {
                String::new()
            } else {
                format!("failed: {failed}")
            },
            if pane.is_empty() {
                String::new()
            } else {
                format!("  (tmux {pane})")
            }
        );
        out.push_str(&format!(
            "{state}  {}\n",
            crate::cli::term::text::flat(&Sanitizer::visible(&line))
        ));
    }
    for p in snap["problems"].as_array().into_iter().flatten() {
        let line = format!(
            "passed over {}: {}",
            p["path"].as_str().unwrap_or(""),
            p["reason"].as_str().unwrap_or("")
        );
        out.push_str(&format!(
            "{}\n",
            style.dim(&crate::cli::term::text::flat(&Sanitizer::visible(&line)))
        ));
    }
    out
}

/// Run the deck on the socket at `path`, answering from `input` until it
/// ends. The notices the config file sets go out for each request, and
/// for the sessions' registry (watched on a thread of its own: its
/// terminal's part goes to stderr, stdout being the deck's lines).
pub fn serve(
    listener: &Listener,
    input: &mut dyn Keyboard,
    out: &mut dyn Write,
    style: Style,
    width: usize,
) -> io::Result<()> {
    let notices = std::sync::Arc::new(std::sync::Mutex::new(super::full::Notices::from_config(
        false,
    )));
    if let Ok(config_dir) = super::snapshot::config_dir() {
        let notices = notices.clone();
        let dir = config_dir.join("sessions");
        let seen = move || super::full::registry_sightings(&config_dir);
        notices
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .sessions(&seen(), &mut io::stderr());
        {
            let notices = notices.clone();
            std::thread::spawn(move || {
                super::full::watch_dir(dir, move || {
                    let now = seen();
                    notices
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .sessions(&now, &mut io::stderr());
                    true
                })
            });
        }
        // the notices held back for a hook's request, when it never came
        std::thread::spawn(move || loop {
            std::thread::sleep(Duration::from_millis(250));
            notices
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .tick(&mut io::stderr());
        });
    }
    serve_with(listener, input, out, style, width, &notices)
}

/// [`serve`] with the notices given.
fn serve_with(
    listener: &Listener,
    input: &mut dyn Keyboard,
    out: &mut dyn Write,
    style: Style,
    width: usize,
    notices: &std::sync::Mutex<super::full::Notices>,
) -> io::Result<()> {
    let lock = || notices.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        let pending = listener.next(REQUEST_BOUND)?;
        let asked = pending.request.input.clone();
        {
            let mut bell = Vec::new();
            lock().request(&asked, &mut bell);
            out.write_all(&bell)?;
            out.flush()?;
        }
        let more = answer_one(pending, input, out, style, width)?;
        lock().request_gone(&asked);
        if !more {
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::commands::deck::hook::{decide, WAIT};

    fn run_one(typed: &str, input: &str) -> (Option<String>, String) {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("claudio").join("deck.sock");
        let l = Listener::bind(&p).unwrap();
        let input = input.to_owned();
        let hook = std::thread::spawn(move || decide(&p, input.as_bytes(), WAIT));
        let pending = l.next(Duration::from_secs(30)).unwrap();
        let mut out = Vec::new();
        let mut typed = io::Cursor::new(typed.as_bytes().to_vec());
        answer_one(pending, &mut typed, &mut out, Style::plain(), 80).unwrap();
        (hook.join().unwrap(), String::from_utf8(out).unwrap())
    }

    const BASH: &str = r#"{"session_id":"0b5e2d0e-2a47","cwd":"/tmp","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"echo hi\u001b]0;pwned\u0007; rm -rf build"}}"#;

    #[test]
    fn y_allows_the_request_it_was_typed_for() {
        let (out, shown) = run_one("y\n", BASH);
        let out: Value = serde_json::from_str(&out.unwrap()).unwrap();
        assert_eq!(out["hookSpecificOutput"]["decision"]["behavior"], "allow");
        // the whole command is shown, its escapes as text
        assert!(shown.contains("rm -rf build"), "{shown}");
        assert!(shown.contains("\\e]0;pwned\\a"), "{shown}");
        assert!(!shown.contains('\u{1b}'));
        assert!(shown.contains("allowed from the deck"));
    }

    #[test]
    fn a_reason_denies_with_it_and_t_hands_it_back() {
        let (out, _) = run_one("not on main\n", BASH);
        let out: Value = serde_json::from_str(&out.unwrap()).unwrap();
        assert_eq!(out["hookSpecificOutput"]["decision"]["behavior"], "deny");
        assert!(out["hookSpecificOutput"]["decision"]["message"]
            .as_str()
            .unwrap()
            .contains("not on main"));
        let (out, shown) = run_one("t\n", BASH);
        assert_eq!(out, None, "the TUI shows its own dialog");
        assert!(shown.contains("handed back"));
        // nobody at the deck: handed back too
        let (out, _) = run_one("", BASH);
        assert_eq!(out, None);
    }

    /// The line deck asks with its own choices alone: the chat's row
    /// offering `a session` is not shown, and `a` typed (as the full
    /// screen takes it) is said to be no key here, never a denial with
    /// "a" as its reason.
    #[test]
    fn a_is_no_denial_and_the_chat_s_choices_are_not_offered() {
        let suggested = r#"{"session_id":"s","cwd":"/tmp","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"npm run lint"},"permission_suggestions":[{"type":"addRules","behavior":"allow","rules":[{"toolName":"Bash","ruleContent":"npm run *"}],"destination":"localSettings"}]}"#;
        for input in [BASH, suggested] {
            let (out, shown) = run_one("a\ny\n", input);
            let out: Value = serde_json::from_str(&out.unwrap()).unwrap();
            assert_eq!(
                out["hookSpecificOutput"]["decision"]["behavior"], "allow",
                "{shown}"
            );
            assert!(shown.contains("the full-screen deck's"), "{shown}");
            assert!(!shown.contains("a session"), "{shown}");
            assert_eq!(shown.matches("Allow?").count(), 2, "{shown}");
        }
    }

    #[test]
    fn an_edit_is_shown_as_its_diff() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("a.txt");
        std::fs::write(&f, "one\ntwo\n").unwrap();
        let input = serde_json::json!({
            "session_id": "s", "cwd": d.path(), "tool_name": "Edit",
            "tool_input": {"file_path": f, "old_string": "two", "new_string": "three"}
        })
        .to_string();
        let (out, shown) = run_one("n\n", &input);
        assert!(out.unwrap().contains("\"deny\""));
        assert!(shown.contains("three"), "{shown}");
        assert!(shown.contains("(+1 −1)"), "{shown}");
    }

    #[test]
    fn a_request_answered_elsewhere_is_gone_without_a_key() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("claudio").join("deck.sock");
        let l = Listener::bind(&p).unwrap();
        // a hook that gives up (its session answered in the terminal)
        let p2 = p.clone();
        let hook = std::thread::spawn(move || {
            let mut s = std::os::unix::net::UnixStream::connect(&p2).unwrap();
            crate::cli::requests::socket::write_line(
                &mut s,
                &crate::cli::requests::socket::Request {
                    kind: "permission".into(),
                    token: "t".into(),
                    input: serde_json::from_str(BASH).unwrap(),
                },
            )
            .unwrap();
        });
        let pending = l.next(Duration::from_secs(30)).unwrap();
        hook.join().unwrap();
        // the keyboard: a pipe nobody writes to
        let (keys, _writer) = std::os::unix::net::UnixStream::pair().unwrap();
        let mut kb = Polled::new(keys);
        assert_eq!(kb.next(&pending, &mut || false).unwrap(), Typed::Withdrawn);
        // one still waited on, said to be answered in its transcript
        let hook = std::thread::spawn(move || decide(&p, BASH.as_bytes(), WAIT));
        let pending = l.next(Duration::from_secs(30)).unwrap();
        let mut asked = 0;
        assert_eq!(
            kb.next(&pending, &mut || {
                asked += 1;
                asked > 2
            })
            .unwrap(),
            Typed::Withdrawn
        );
        drop(pending);
        assert_eq!(hook.join().unwrap(), None);
        // typed lines come whole, and the end of input is said
        let (keys, mut writer) = std::os::unix::net::UnixStream::pair().unwrap();
        let mut kb = Polled::new(keys);
        std::io::Write::write_all(&mut writer, b"not on main\r\n").unwrap();
        drop(writer);
        let l2 = Listener::bind(&d.path().join("c2").join("deck.sock")).unwrap();
        let path2 = d.path().join("c2").join("deck.sock");
        let hook = std::thread::spawn(move || decide(&path2, BASH.as_bytes(), WAIT));
        let pending = l2.next(Duration::from_secs(30)).unwrap();
        assert_eq!(
            kb.next(&pending, &mut || false).unwrap(),
            Typed::Line("not on main".into())
        );
        assert_eq!(kb.next(&pending, &mut || false).unwrap(), Typed::End);
        drop(pending);
        assert_eq!(hook.join().unwrap(), None);
    }
}
