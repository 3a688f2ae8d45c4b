//! `claudio deck hook`: the `PermissionRequest` hook a claude TUI runs
//! (`claudio deck hooks install` puts it in its settings). It hands the
//! request to the deck over its socket and prints the deck's decision as
//! the CLI reads it, telling the deck it took it ([`socket::Ack`]; a hook
//! its TUI killed, having answered first, says nothing: "not taken"). Whenever the deck cannot decide (none running,
//! another user's socket, the deck gone mid-answer, "answer it there", the
//! wait's bound passed, input it cannot read, a plan or a question) it
//! exits 0 with no output,
//! and the TUI shows its own dialog: the person at the TUI is never locked
//! out, and without a deck the TUI behaves as before.
//!
//! The path without a deck is cheap: no runtime, no store, no config; the
//! input read, one `lstat`, one failed `connect`.

use crate::cli::common::exit::Exit;
use crate::cli::requests::socket::{self, Answer, Request};
use serde_json::{json, Value};
use std::io::{self, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::{Duration, Instant};

/// How long the hook waits for the deck's answer, at most: past it the
/// TUI shows its own dialog (the hook's timeout in the settings is a
/// little longer, [`super::install::TIMEOUT_SECS`]).
pub const WAIT: Duration = Duration::from_secs(300);
/// The longest wait `--wait` may ask for: longer is this.
const MAX_WAIT: Duration = Duration::from_secs(24 * 3600);
/// The most bytes of hook input read: it holds the tool's whole input.
pub const MAX_INPUT: usize = 4 << 20;
/// How long stdin is waited for.
const INPUT_DEADLINE: Duration = Duration::from_secs(5);

/// Run the hook: read stdin, ask the deck, print its decision if it made
/// one. Always exit 0.
pub fn run(wait: Duration) -> Exit {
    let stdin = io::stdin();
    let input = crate::cli::common::stdin::read_json(&stdin, MAX_INPUT, INPUT_DEADLINE);
    let Ok(input) = input else {
        return Exit::Success;
    };
    if std::env::var_os(socket::PUBLISHED_BY_CLAUDIO).is_some_and(|v| v == "1") {
        return Exit::Success;
    }
    if let Some(text) = decide(&socket::path(), &input, wait) {
        let mut out = io::stdout().lock();
        let _ = writeln!(out, "{text}");
        let _ = out.flush();
    }
    Exit::Success
}

/// Whether the command line is `claudio deck hook` and nothing else (as
/// `deck hooks install` writes it): run at once, the parser skipped.
pub fn is_plain_hook_call(args: impl Iterator<Item = std::ffi::OsString>) -> bool {
    let rest: Vec<std::ffi::OsString> = args.skip(1).take(3).collect();
    rest.len() == 2 && rest[0] == "deck" && rest[1] == "hook"
}

/// Reads from a stream until a deadline over the whole exchange.
struct Deadline<'a> {
    stream: &'a UnixStream,
    until: Instant,
}

impl Read for Deadline<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::ErrorKind::TimedOut.into());
        }
        self.stream.set_read_timeout(Some(left))?;
        let mut s = self.stream;
        s.read(buf)
    }
}

/// The decision to print for the hook input `input`, asking the deck on
/// the socket at `path` and waiting at most `wait`; `None`: print nothing.
pub fn decide(path: &Path, input: &[u8], wait: Duration) -> Option<String> {
    // a bound past what the clock can add (`--wait` of 2^64 s) is a day
    let wait = wait.min(MAX_WAIT);
    let until = Instant::now() + wait;
    let input: Value = serde_json::from_slice(input).ok()?;
    if !input.is_object() {
        return None;
    }
    // a folder anyone else could have made or reached is not trusted to
    // hold the deck
    socket::check_private(path.parent()?).ok()?;
    let stream = UnixStream::connect(path).ok()?;
    if !socket::same_user(&stream) {
        return None;
    }
    stream.set_write_timeout(Some(wait)).ok()?;
    let token = claudio::store::new_uuid();
    let request = Request {
        kind: "permission".into(),
        token: token.clone(),
        input,
    };
    socket::write_line(&mut &stream, &request).ok()?;
    let line = socket::read_line(&mut Deadline {
        stream: &stream,
        until,
    })
    .ok()??;
    let answer: Answer = serde_json::from_str(&line).ok()?;
    // an answer for another request is no answer
    if answer.token != token {
        return None;
    }
    let req = crate::cli::requests::publish::as_tool_request(&request.input);
    // a plan or a question is answered in its terminal, whatever the deck
    // says: the TUI shows its own dialog all the same (2.1.332), and the
    // deck is not told its answer was taken
    if req.as_ref().is_some_and(answered_in_its_terminal) {
        return None;
    }
    let decision = match answer.behavior.as_str() {
        "allow" => match answer.updated_permissions {
            Some(Value::Array(u)) if !u.is_empty() => {
                // only what the deck offers for this very request (the
                // CLI's own suggestions), never wider: else the TUI asks
                let req = req?;
                let updates: Vec<claudio::PermissionUpdate> =
                    serde_json::from_value(Value::Array(u.clone())).ok()?;
                if !crate::cli::requests::publish::offered_rules(&updates, &req) {
                    return None;
                }
                json!({ "behavior": "allow", "updatedPermissions": u })
            }
            _ => json!({ "behavior": "allow" }),
        },
        "deny" => json!({
            "behavior": "deny",
            "message": answer.message.unwrap_or_else(|| "denied from claudio deck".to_owned()),
        }),
        // "ask": answer it in the TUI
        _ => return None,
    };
    // the deck is told its answer is taken: the hook prints it now (had
    // the TUI answered first, the hook would be gone, and the deck reads
    // the end of the connection as "not taken")
    let _ = socket::write_line(
        &mut &stream,
        &socket::Ack {
            token: token.clone(),
            taken: true,
            refused: false,
        },
    );
    Some(
        json!({
            "hookSpecificOutput": {
                "hookEventName": "PermissionRequest",
                "decision": decision,
            }
        })
        .to_string(),
    )
}

/// Whether `req` is one the deck never answers: a question or a plan,
/// which the claude TUI shows and takes the answers to itself (2.1.332
/// shows its own dialog whatever the hook prints), and its hook never
/// decides.
pub fn answered_in_its_terminal(req: &claudio::CanUseToolRequest) -> bool {
    !matches!(req.kind(), claudio::protocol::ask::RequestKind::Tool)
}

/// A question or a plan, in words.
pub fn kind_words(req: &claudio::CanUseToolRequest) -> &'static str {
    match req.kind() {
        claudio::protocol::ask::RequestKind::Plan => "a plan",
        claudio::protocol::ask::RequestKind::Questions => "a question",
        _ => "a request",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::requests::socket::{read_line, write_line, Listener};

    const INPUT: &str = r#"{"session_id":"s","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"ls"}}"#;

    fn deck_answering(
        answer: impl FnOnce(Request) -> Option<Answer> + Send + 'static,
    ) -> (
        tempfile::TempDir,
        std::path::PathBuf,
        std::thread::JoinHandle<()>,
    ) {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("claudio").join("deck.sock");
        let l = Listener::bind(&p).unwrap();
        let t = std::thread::spawn(move || {
            let pending = l.next(Duration::from_secs(30)).unwrap();
            let req = pending.request.clone();
            if let Some(a) = answer(req) {
                match a.behavior.as_str() {
                    "raw" => {
                        // a reply written by hand
                        let mut s = pending.into_stream();
                        write_line(&mut s, &a).unwrap();
                    }
                    b => pending
                        .answer_with(b, a.message, a.updated_permissions)
                        .unwrap(),
                }
            }
        });
        (d, p, t)
    }

    /// The hook says the deck's answer was taken before it prints it; a
    /// hook gone before it read the answer (the TUI answered first, and
    /// killed it) is "not taken".
    #[test]
    fn the_hook_acknowledges_the_answer_it_prints() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("claudio").join("deck.sock");
        let l = Listener::bind(&p).unwrap();
        let deck = std::thread::spawn(move || {
            let pending = l.next(Duration::from_secs(30)).unwrap();
            let taken = pending
                .decide(Answer {
                    token: String::new(),
                    behavior: "deny".into(),
                    message: Some("no".into()),
                    updated_permissions: None,
                    updated_input: None,
                    interrupt: false,
                })
                .unwrap();
            // the next hook is gone before the answer (its TUI answered)
            let pending = l.next(Duration::from_secs(30)).unwrap();
            let late = pending.decide(Answer {
                token: String::new(),
                behavior: "allow".into(),
                message: None,
                updated_permissions: None,
                updated_input: None,
                interrupt: false,
            });
            (taken, late.unwrap_or(socket::Acked::NotTaken))
        });
        let out = decide(&p, INPUT.as_bytes(), WAIT).unwrap();
        assert!(out.contains("\"deny\""), "{out}");
        // a hook killed while it waits: its connection closes unread
        let s = std::os::unix::net::UnixStream::connect(&p).unwrap();
        write_line(
            &mut &s,
            &Request {
                kind: "permission".into(),
                token: "t".into(),
                input: serde_json::json!({"tool_name": "Bash"}),
            },
        )
        .unwrap();
        drop(s);
        let (taken, late) = deck.join().unwrap();
        assert_eq!(taken, socket::Acked::Taken, "the hook's answer is taken");
        assert_eq!(late, socket::Acked::NotTaken, "a hook gone is no taker");
    }

    #[test]
    fn no_deck_is_no_output_at_once() {
        let d = tempfile::tempdir().unwrap();
        // no folder, no socket
        let p = d.path().join("claudio").join("deck.sock");
        assert_eq!(decide(&p, INPUT.as_bytes(), WAIT), None);
        // the folder but no socket
        std::fs::create_dir(d.path().join("claudio")).unwrap();
        std::fs::set_permissions(
            d.path().join("claudio"),
            std::os::unix::fs::PermissionsExt::from_mode(0o700),
        )
        .unwrap();
        assert_eq!(decide(&p, INPUT.as_bytes(), WAIT), None);
        // a socket nobody listens on (a deck that died): refused
        drop(std::os::unix::net::UnixListener::bind(&p).unwrap());
        assert_eq!(decide(&p, INPUT.as_bytes(), WAIT), None);
    }

    #[test]
    fn allow_and_deny_are_printed_as_the_cli_reads_them() {
        let (_d, p, t) = deck_answering(|r| {
            assert_eq!(r.input["tool_name"], "Bash");
            Some(Answer {
                token: String::new(),
                behavior: "allow".into(),
                message: None,
                updated_permissions: None,
                updated_input: None,
                interrupt: false,
            })
        });
        let out = decide(&p, INPUT.as_bytes(), WAIT).unwrap();
        t.join().unwrap();
        assert_eq!(
            out,
            r#"{"hookSpecificOutput":{"decision":{"behavior":"allow"},"hookEventName":"PermissionRequest"}}"#
        );
        let (_d, p, t) = deck_answering(|_| {
            Some(Answer {
                token: String::new(),
                behavior: "deny".into(),
                message: Some("not on main".into()),
                updated_permissions: None,
                updated_input: None,
                interrupt: false,
            })
        });
        let out: Value =
            serde_json::from_str(&decide(&p, INPUT.as_bytes(), WAIT).unwrap()).unwrap();
        t.join().unwrap();
        assert_eq!(out["hookSpecificOutput"]["decision"]["behavior"], "deny");
        assert_eq!(
            out["hookSpecificOutput"]["decision"]["message"],
            "not on main"
        );
    }

    /// A TUI's request the CLI suggested a rule for.
    const SUGGESTED: &str = r#"{"session_id":"s","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"ls -l"},"permission_suggestions":[{"type":"addRules","behavior":"allow","rules":[{"toolName":"Bash","ruleContent":"ls *"}],"destination":"localSettings"}]}"#;

    /// An allow whose permission updates are not what the deck offers for
    /// the request (a rule wider than the CLI's suggestion, one it never
    /// suggested, a mode for a request that is no plan) is passed on to
    /// nobody: the hook prints nothing and the TUI asks. What the deck's
    /// `a`, `p` and `u` give is passed on.
    #[test]
    fn an_allow_wider_than_the_cli_suggested_is_not_passed_on() {
        let wider = json!([{"type": "addRules", "behavior": "allow",
            "rules": [{"toolName": "Bash"}], "destination": "userSettings"}]);
        let other = json!([{"type": "addRules", "behavior": "allow",
            "rules": [{"toolName": "Bash", "ruleContent": "rm *"}], "destination": "session"}]);
        let mode =
            json!([{"type": "setMode", "mode": "bypassPermissions", "destination": "session"}]);
        for (input, updates) in [
            (SUGGESTED, wider.clone()),
            (SUGGESTED, other),
            (SUGGESTED, mode),
            (INPUT, wider),
        ] {
            let u = updates.clone();
            let (_d, p, t) = deck_answering(move |_| Some(allow_with(u.clone())));
            assert_eq!(decide(&p, input.as_bytes(), WAIT), None, "{updates}");
            t.join().unwrap();
        }
        let req = crate::cli::requests::publish::as_tool_request(
            &serde_json::from_str(SUGGESTED).unwrap(),
        )
        .unwrap();
        for d in [
            crate::cli::requests::tool::Decision::AllowSession,
            crate::cli::requests::tool::Decision::AllowProject,
            crate::cli::requests::tool::Decision::AllowUser,
        ] {
            let answer = crate::cli::commands::deck::full::hook_answer(&d.result(&req));
            let updates = answer.updated_permissions.clone().unwrap();
            assert_eq!(
                decision_of(answer),
                json!({"behavior": "allow", "updatedPermissions": updates})
            );
        }
    }

    /// The decision the hook prints for the suggested request, the deck
    /// answering it with `answer`.
    fn decision_of(answer: Answer) -> Value {
        let (_d, p, t) = deck_answering(move |_| Some(answer));
        let out: Value =
            serde_json::from_str(&decide(&p, SUGGESTED.as_bytes(), WAIT).unwrap()).unwrap();
        t.join().unwrap();
        out["hookSpecificOutput"]["decision"].clone()
    }

    /// The deck's allow, carrying `updates`.
    fn allow_with(updates: Value) -> Answer {
        Answer {
            token: String::new(),
            behavior: "allow".into(),
            message: None,
            updated_permissions: Some(updates),
            updated_input: None,
            interrupt: false,
        }
    }

    /// A plan or a question of a claude TUI is never decided by its hook,
    /// whatever the deck answers (an allow with a plan's mode, a plain
    /// allow, a denial): the hook prints nothing and takes nothing, and the
    /// TUI shows its own dialog.
    #[test]
    fn a_plan_or_a_question_is_never_decided_by_the_hook() {
        const PLAN: &str = r##"{"session_id":"s","hook_event_name":"PermissionRequest","tool_name":"ExitPlanMode","tool_input":{"plan":"# Plan"}}"##;
        const QUESTION: &str = r#"{"session_id":"s","hook_event_name":"PermissionRequest","tool_name":"AskUserQuestion","tool_input":{"questions":[{"question":"Which?","header":"H","options":[{"label":"A","description":"a"},{"label":"B","description":"b"}],"multiSelect":false}]}}"#;
        let mode = json!([{"type": "setMode", "mode": "acceptEdits", "destination": "session"}]);
        for (input, behavior, updates) in [
            (PLAN, "allow", Some(mode.clone())),
            (PLAN, "allow", None),
            (PLAN, "deny", None),
            (QUESTION, "allow", None),
            (QUESTION, "deny", None),
        ] {
            let d = tempfile::tempdir().unwrap();
            let p = d.path().join("claudio").join("deck.sock");
            let l = Listener::bind(&p).unwrap();
            let u = updates.clone();
            let deck = std::thread::spawn(move || {
                let pending = l.next(Duration::from_secs(30)).unwrap();
                pending
                    .decide(Answer {
                        token: String::new(),
                        behavior: behavior.into(),
                        message: None,
                        updated_permissions: u,
                        updated_input: None,
                        interrupt: false,
                    })
                    .unwrap_or(socket::Acked::NotTaken)
            });
            assert_eq!(
                decide(&p, input.as_bytes(), WAIT),
                None,
                "{behavior} {updates:?}"
            );
            assert_eq!(deck.join().unwrap(), socket::Acked::NotTaken);
        }
    }

    #[test]
    fn an_allow_carries_the_chosen_permission_updates() {
        let updates = json!([{"type": "addRules", "behavior": "allow",
            "rules": [{"toolName": "Bash", "ruleContent": "ls *"}], "destination": "session"}]);
        assert_eq!(
            decision_of(allow_with(updates.clone())),
            json!({"behavior": "allow", "updatedPermissions": updates})
        );
    }

    #[test]
    fn answer_it_there_or_a_deck_gone_mid_answer_is_no_output() {
        let (_d, p, t) = deck_answering(|_| {
            Some(Answer {
                token: String::new(),
                behavior: "ask".into(),
                message: None,
                updated_permissions: None,
                updated_input: None,
                interrupt: false,
            })
        });
        assert_eq!(decide(&p, INPUT.as_bytes(), WAIT), None);
        t.join().unwrap();
        // the deck takes the request and dies without a word
        let (_d, p, t) = deck_answering(|_| None);
        assert_eq!(decide(&p, INPUT.as_bytes(), WAIT), None);
        t.join().unwrap();
    }

    #[test]
    fn an_answer_with_another_request_s_token_is_no_answer() {
        let (_d, p, t) = deck_answering(|r| {
            Some(Answer {
                token: format!("{}x", r.token),
                behavior: "raw".into(),
                message: None,
                updated_permissions: None,
                updated_input: None,
                interrupt: false,
            })
        });
        assert_eq!(decide(&p, INPUT.as_bytes(), WAIT), None);
        t.join().unwrap();
    }

    #[test]
    fn a_deck_that_never_answers_is_waited_for_no_longer_than_the_bound() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("claudio").join("deck.sock");
        let l = Listener::bind(&p).unwrap();
        let t = std::thread::spawn(move || {
            let pending = l.next(Duration::from_secs(30)).unwrap();
            // held, never answered, until the hook gave up
            let s = pending.into_stream();
            let _ = read_line(&mut &s);
        });
        assert_eq!(
            decide(&p, INPUT.as_bytes(), Duration::from_millis(50)),
            None
        );
        t.join().unwrap();
    }

    #[test]
    fn only_the_plain_hook_call_skips_the_parser() {
        let call = |a: &[&str]| is_plain_hook_call(a.iter().map(std::ffi::OsString::from));
        assert!(call(&["/x/claudio", "deck", "hook"]));
        assert!(!call(&["/x/claudio", "deck", "hook", "--wait", "5"]));
        assert!(!call(&["/x/claudio", "deck", "hooks"]));
        assert!(!call(&["/x/claudio", "deck"]));
    }

    #[test]
    fn input_that_is_no_json_object_is_not_sent() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("deck.sock");
        assert_eq!(decide(&p, b"[1]", WAIT), None);
        assert_eq!(decide(&p, b"{oops", WAIT), None);
    }
}
