//! `claudio deck --watch`: what changes, as it changes, one JSON object a
//! line (NDJSON), for scripts:
//!
//! - `{"event":"session-appeared","session":{…}}`, `session-changed` (its
//!   row as `deck --json` shows it, when any of it changed) and
//!   `{"event":"session-gone","pid":…,"sessionId":…}`;
//! - `{"event":"request-pending","request":{…}}` when a running deck takes
//!   a permission request (as `deck --json` lists it) and
//!   `{"event":"request-answered","id":…,"deckId":…}` when it holds it
//!   no more (answered from the deck or in its terminal, or given up by
//!   its hook). A request is told by its deck and its number there: a
//!   deck started again numbers its requests from 1 again.
//!
//! Sessions come from the registry folder, watched with inotify (a slow
//! poll besides); requests from the running deck, asked over its socket.
//! It runs until its output is closed. The config file's notices go from
//! one deck of the user's at a time (the first started: a lock in the
//! private runtime folder): beside a full-screen deck, the watch sends
//! none until that deck ends.

use crate::cli::common::exit::Exit;
use crate::cli::requests::socket;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

/// How often the deck is asked for its requests.
const ASK_EVERY: Duration = Duration::from_millis(250);

/// A request as the watch tells it from another: the deck that holds it
/// (`deckId`: each deck numbers its requests from 1) and its number there.
pub type RequestKey = (String, u64);

/// The requests that came between two states, and those that went: by
/// [`RequestKey`], and a key whose row changed is one request gone and
/// another come (a deck that does not say `deckId`, restarted between two
/// looks, numbers its next request as the last one's). A listed request
/// never changes while it is held.
fn requests_changed<'a>(
    old: &'a BTreeMap<RequestKey, Value>,
    new: &'a BTreeMap<RequestKey, Value>,
) -> (Vec<&'a Value>, Vec<&'a Value>) {
    let came = new
        .iter()
        .filter(|(k, r)| old.get(*k) != Some(*r))
        .map(|(_, r)| r)
        .collect();
    let went = old
        .iter()
        .filter(|(k, r)| new.get(*k) != Some(*r))
        .map(|(_, r)| r)
        .collect();
    (came, went)
}

/// The events between two states: sessions by pid, requests by
/// [`RequestKey`] (those answered before those come, so a request
/// numbered as one answered is never taken for it).
pub fn events(
    old_sessions: &BTreeMap<u64, Value>,
    new_sessions: &BTreeMap<u64, Value>,
    old_requests: &BTreeMap<RequestKey, Value>,
    new_requests: &BTreeMap<RequestKey, Value>,
) -> Vec<Value> {
    let mut out = Vec::new();
    for (pid, row) in new_sessions {
        match old_sessions.get(pid) {
            None => out.push(json!({"event": "session-appeared", "session": row})),
            Some(old) if old != row => {
                out.push(json!({"event": "session-changed", "session": row}))
            }
            _ => {}
        }
    }
    for (pid, row) in old_sessions {
        if !new_sessions.contains_key(pid) {
            out.push(json!({"event": "session-gone", "pid": pid, "sessionId": row["sessionId"]}));
        }
    }
    let (came, went) = requests_changed(old_requests, new_requests);
    for r in went {
        out.push(json!({"event": "request-answered", "id": r["id"], "deckId": r["deckId"]}));
    }
    for r in came {
        out.push(json!({"event": "request-pending", "request": r}));
    }
    out
}

fn sessions_now(config_dir: &Path) -> BTreeMap<u64, Value> {
    let reg = claudio::registry::read_dir(&config_dir.join("sessions"));
    let snap = super::snapshot::snapshot(config_dir, &reg);
    snap["sessions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| Some((r["pid"].as_u64()?, r.clone())))
        .collect()
}

/// The requests the running deck holds; `None` when no deck answers.
fn requests_now(sock: &Path) -> Option<BTreeMap<RequestKey, Value>> {
    socket::ask_list(sock).map(|list| keyed(&list))
}

/// A deck's list of requests by [`RequestKey`].
fn keyed(list: &Value) -> BTreeMap<RequestKey, Value> {
    list.as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| {
            let deck = r["deckId"].as_str().unwrap_or("").to_owned();
            Some(((deck, r["id"].as_u64()?), r.clone()))
        })
        .collect()
}

/// A session's row (as `deck --json` shows it) as the notices read it.
fn sighting(row: &Value) -> Option<crate::cli::common::notify::Sighting> {
    use crate::cli::common::notify::{Seen, Sighting};
    let key = match row["sessionId"].as_str() {
        Some(id) => id.to_owned(),
        None => format!("pid:{}", row["pid"].as_u64()?),
    };
    Some(Sighting {
        key,
        project: row["cwd"].as_str().unwrap_or("").to_owned(),
        seen: match row["state"].as_str() {
            Some("waiting") => {
                Seen::Waiting(row["waitingFor"].as_str().unwrap_or("input").to_owned())
            }
            Some("working") => Seen::Working,
            _ => Seen::Idle,
        },
        since: row["updatedAt"].as_u64(),
    })
}

/// A request as `deck --json` lists it, as the hook gave it (what a
/// notice reads).
fn hook_input(r: &Value) -> Value {
    let mut input = json!({
        "session_id": r["sessionId"],
        "cwd": r["cwd"],
        "tool_name": r["toolName"],
        "tool_input": r["toolInput"],
    });
    // a claudio chat's or `ask`'s: it sends its own notice
    if let Some(p) = r["program"]
        .as_str()
        .filter(|p| super::view::Kind::of_program(p).is_some())
    {
        input["claudio"] = json!({ "program": p });
    }
    input
}

/// The notices for what changed between two states (the terminal's part
/// to `tty`: stdout is the events').
fn notify(
    notices: &mut super::full::Notices,
    sessions: &BTreeMap<u64, Value>,
    old_requests: &BTreeMap<RequestKey, Value>,
    new_requests: &BTreeMap<RequestKey, Value>,
    tty: &mut impl Write,
) {
    let (came, went) = requests_changed(old_requests, new_requests);
    for r in went {
        notices.request_gone(&hook_input(r));
    }
    for r in came {
        notices.request(&hook_input(r), tty);
    }
    let seen: Vec<_> = sessions.values().filter_map(sighting).collect();
    notices.sessions(&seen, tty);
    notices.tick(tty);
}

/// Run `deck --watch` until stdout is closed.
pub fn run() -> anyhow::Result<Exit> {
    let config_dir = super::snapshot::config_dir()?;
    let sock = socket::path();
    let (tx, rx) = mpsc::channel();
    {
        let dir = config_dir.join("sessions");
        std::thread::spawn(move || super::full::watch_dir(dir, move || tx.send(()).is_ok()));
    }
    let mut sessions = BTreeMap::new();
    let mut requests = BTreeMap::new();
    let mut out = std::io::stdout().lock();
    let mut notices = super::full::Notices::from_config(false);
    loop {
        let (mut s, r) = (sessions_now(&config_dir), requests_now(&sock));
        // a registry's permission wait waits for the hook's request only
        // while a deck takes them
        notices.deck_running(r.is_some());
        let r = r.unwrap_or_default();
        // a session whose request the deck holds waits, whatever its file says yet
        let held: Vec<Value> = r.values().cloned().collect();
        for row in s.values_mut() {
            super::snapshot::mark_held(std::slice::from_mut(row), &held);
        }
        notify(&mut notices, &s, &requests, &r, &mut std::io::stderr());
        for e in events(&sessions, &s, &requests, &r) {
            if writeln!(out, "{e}").is_err() {
                return Ok(Exit::Success);
            }
        }
        if out.flush().is_err() {
            return Ok(Exit::Success);
        }
        (sessions, requests) = (s, r);
        // a change in the folder, or time to ask the deck again
        match rx.recv_timeout(ASK_EVERY) {
            Ok(()) | Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => std::thread::sleep(ASK_EVERY),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A request the deck lists, as the notices read it: a claudio chat's
    /// says so (it sends its own notice), a claude TUI's does not.
    #[test]
    fn a_listed_request_keeps_which_program_asks() {
        let chat = hook_input(&json!({"sessionId": "s", "toolName": "Bash",
            "program": "claudio chat"}));
        assert_eq!(chat["claudio"]["program"], "claudio chat");
        assert_eq!(chat["tool_name"], "Bash");
        let tui = hook_input(&json!({"sessionId": "s", "toolName": "Bash",
            "program": "claude TUI"}));
        assert!(tui.get("claudio").is_none(), "{tui}");
    }

    #[test]
    fn events_say_what_came_changed_and_went() {
        let row = |pid: u64, state: &str| {
            (
                pid,
                json!({"pid": pid, "sessionId": format!("s{pid}"), "state": state}),
            )
        };
        let a: BTreeMap<u64, Value> = [row(1, "idle"), row(2, "working")].into();
        let b: BTreeMap<u64, Value> = [row(2, "waiting"), row(3, "idle")].into();
        let r1 = keyed(&json!([{"id": 7, "deckId": "d", "toolName": "Bash"}]));
        let none = BTreeMap::new();
        let got = events(&a, &b, &none, &r1);
        let names: Vec<&str> = got.iter().map(|e| e["event"].as_str().unwrap()).collect();
        assert_eq!(
            names,
            [
                "session-changed",
                "session-appeared",
                "session-gone",
                "request-pending"
            ]
        );
        assert_eq!(got[0]["session"]["state"], "waiting");
        assert_eq!(
            got[2],
            json!({"event": "session-gone", "pid": 1, "sessionId": "s1"})
        );
        assert_eq!(got[3]["request"]["id"], 7);
        assert_eq!(
            events(&b, &b, &r1, &none),
            [json!({"event": "request-answered", "id": 7, "deckId": "d"})]
        );
        assert!(events(&b, &b, &r1, &r1).is_empty());
    }

    /// A deck that ends and starts again between two looks numbers its
    /// next request 1 as it did the last: the watch says the one answered
    /// and the one come, each once, whether the deck names itself
    /// (`deckId`) or not (a deck of an older claudio: told by the rest of
    /// the row); the notices hear of both.
    #[test]
    fn a_request_numbered_as_one_answered_is_still_seen() {
        let req = |deck: Option<&str>, cmd: &str, since: u64| {
            let mut r = json!({"id": 1, "since": since, "sessionId": "s",
                "toolName": "Bash", "toolInput": {"command": cmd}});
            if let Some(d) = deck {
                r["deckId"] = json!(d);
            }
            r
        };
        let none = BTreeMap::new();
        let no_requests = BTreeMap::new();
        for (old, new) in [
            (req(Some("a"), "ls", 5), req(Some("b"), "ls", 5)),
            (req(Some("a"), "ls", 5), req(Some("b"), "rm -rf /", 6)),
            (req(None, "ls", 5), req(None, "rm -rf /", 5)),
            (req(None, "ls", 5), req(None, "ls", 6)),
        ] {
            let (o, n) = (keyed(&json!([old])), keyed(&json!([new])));
            let got = events(&none, &none, &o, &n);
            assert_eq!(
                got,
                [
                    json!({"event": "request-answered", "id": 1, "deckId": old["deckId"]}),
                    json!({"event": "request-pending", "request": new}),
                ],
                "{old} then {new}"
            );
            // the same request looked at twice is no event
            assert!(events(&none, &none, &n, &n).is_empty());
            // the bell for each
            let mut notices = super::super::full::Notices::bell_only();
            let mut tty = Vec::new();
            notify(&mut notices, &none, &no_requests, &o, &mut tty);
            notify(&mut notices, &none, &o, &n, &mut tty);
            assert_eq!(tty, b"\x07\x07", "{old} then {new}");
        }
    }
}
