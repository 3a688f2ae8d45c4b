//! `claudio deck` on a terminal: the full screen ([`super::view`] draws
//! it), fed by three sources on threads: the socket's requests, the
//! registry folder watched with inotify (a slow poll when it cannot be),
//! and the keyboard. The held requests are looked at now and then: one
//! whose hook went away, or that was answered in its terminal (its
//! transcript says so, [`super::answered`]), leaves the screen.

use super::answered::Watch;
use super::view::{Act, Asks, Kind, Phase, Request, Session, View};
use crate::cli::common::notify::{Notifier, Seen, Sighting, Watched};
use crate::cli::requests::diff;
use crate::cli::requests::socket::{Acked, Listener, Pending};
use crate::cli::requests::tool::{Offer, SessionGrants, Shown};
use crate::cli::term::style::Style;
use crate::cli::turn::summary::Here;
use claudio::registry::{self, SessionState};
use claudio::{CanUseToolRequest, PermissionResult};
use serde_json::Value;
use std::collections::HashMap;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

/// How often held requests and ages are looked at.
const TICK: Duration = Duration::from_millis(200);
/// The registry folder read again at least this often (inotify missed
/// nothing, but a session's transcript changes without its file).
const SLOW_POLL: Duration = Duration::from_secs(2);

enum Event {
    Request(Pending),
    Sessions,
    Key(crossterm::event::KeyEvent),
    /// Pasted text (bracketed): typed, never a key that answers.
    Paste(String),
    Resize,
    /// What became of an answer given (its asker's acknowledgement, read
    /// off the loop so an asker that never acknowledges stops nothing).
    Given(Box<Given>),
}

/// An answer's outcome, for the screen's note and the session's grants.
struct Given {
    taken: Option<Acked>,
    said: String,
    project: String,
    input: Value,
    /// The session and request whose "allow for this session" is kept
    /// once the answer is taken.
    grant: Option<(String, CanUseToolRequest)>,
}

/// Give `answer` to `pending` now (a deck quitting next has given it),
/// and read its acknowledgement on a thread of its own, sending what
/// became of it to the loop: the screen goes on meanwhile, whatever the
/// asker does.
fn give_off_loop(
    tx: &mpsc::Sender<Event>,
    pending: Pending,
    answer: crate::cli::requests::socket::Answer,
    mut given: Given,
) {
    let Some(sent) = send(pending, &answer) else {
        let _ = tx.send(Event::Given(Box::new(given)));
        return;
    };
    let tx = tx.clone();
    std::thread::spawn(move || {
        given.taken = Some(sent.acked());
        let _ = tx.send(Event::Given(Box::new(given)));
    });
}

fn now_ms() -> u64 {
    crate::cli::term::time::now_ms().max(0) as u64
}

/// Watch `dir` with inotify and call `changed` when anything in it
/// changed; every [`SLOW_POLL`] too. Returns when `changed` says `false`.
pub fn watch_dir(dir: PathBuf, mut changed: impl FnMut() -> bool) {
    use rustix::fs::inotify;
    let fd = inotify::init(inotify::CreateFlags::CLOEXEC | inotify::CreateFlags::NONBLOCK).ok();
    let mut watching = false;
    let mut buf = [0u8; 4096];
    loop {
        if let (Some(fd), false) = (&fd, watching) {
            let flags = inotify::WatchFlags::CREATE
                | inotify::WatchFlags::DELETE
                | inotify::WatchFlags::MODIFY
                | inotify::WatchFlags::CLOSE_WRITE
                | inotify::WatchFlags::MOVED_TO
                | inotify::WatchFlags::MOVED_FROM
                | inotify::WatchFlags::DONT_FOLLOW
                | inotify::WatchFlags::ONLYDIR;
            watching = inotify::add_watch(fd, &dir, flags).is_ok();
        }
        match (&fd, watching) {
            (Some(fd), true) => {
                use rustix::event::{poll, PollFd, PollFlags};
                let mut fds = [PollFd::new(fd, PollFlags::IN)];
                let _ = poll(&mut fds, SLOW_POLL.as_millis() as i32);
                // drain: what changed does not matter, the folder is read again
                while let Ok(n) = rustix::io::read(fd, &mut buf) {
                    if n == 0 {
                        break;
                    }
                }
                // the folder itself gone: watched again once it is back
                if !dir.is_dir() {
                    watching = false;
                }
            }
            _ => std::thread::sleep(SLOW_POLL),
        }
        if !changed() {
            return;
        }
    }
}

/// What each session's transcript cost, kept while the file is unchanged,
/// and read on from where it was read to as it grows (only the lines
/// appended since).
#[derive(Default)]
struct Costs(HashMap<PathBuf, Cost>);

/// One transcript's cost: the file's size and time when it was read.
struct Cost {
    stamp: (u64, i64),
    usd: Option<f64>,
    tail: claudio::store::UsageTail,
}

impl Costs {
    fn of(&mut self, transcript: Option<PathBuf>) -> Option<f64> {
        let p = transcript?;
        let m = std::fs::symlink_metadata(&p).ok()?;
        if !m.is_file() {
            return None;
        }
        use std::os::unix::fs::MetadataExt;
        let stamp = (m.len(), m.mtime());
        let c = self.0.entry(p.clone()).or_insert_with(|| Cost {
            stamp: (u64::MAX, 0),
            usd: None,
            tail: claudio::store::UsageTail::new(p),
        });
        if c.stamp != stamp {
            c.stamp = stamp;
            c.usd = c.tail.read().ok().map(usd_of);
        }
        c.usd
    }
}

/// A transcript's cost, priced as every view prices a session: the CLI's
/// own `cost-state` first, then what the store taught, then the table.
fn usd_of(u: &claudio::store::FileUsage) -> f64 {
    let pricer = crate::cli::common::pricing::Pricer::learn(std::iter::once(u)).with_kept();
    // summed in one order (the same usage, the same sum to the last bit)
    let mut each: Vec<_> = pricer
        .file(&u.messages, u.cli_cost.as_ref(), u.messages.len())
        .into_iter()
        .collect();
    each.sort_by(|a, b| a.0.cmp(&b.0));
    each.iter().map(|(_, c)| c.usd).sum::<f64>()
}

/// The sessions as the registry says now (and its live files, to tell
/// when a held request's session ends).
fn sessions(
    config_dir: &Path,
    costs: &mut Costs,
) -> (Vec<Session>, Vec<String>, Vec<registry::LiveSession>) {
    let reg = registry::read_dir(&config_dir.join("sessions"));
    let rows = reg
        .live
        .iter()
        .map(|s| {
            let state = registry::state(config_dir, s);
            let (phase, waiting_for) = match state {
                SessionState::Waiting { for_what } => (Phase::NeedsYou, Some(for_what)),
                SessionState::Working => (Phase::Working, None),
                _ => (Phase::Done, None),
            };
            let since = s
                .extra
                .get("statusUpdatedAt")
                .and_then(Value::as_u64)
                .or(s.updated_at);
            Session {
                pid: s.pid,
                session_id: s.session_id.clone(),
                project: s.cwd.clone().unwrap_or_default(),
                kind: Kind::of_process(s.kind.as_deref(), s.entrypoint.as_deref(), s.pid),
                phase,
                waiting_for,
                tmux: s.tmux.clone(),
                cost: costs.of(registry::transcript_path(config_dir, s)),
                since,
                error: (phase == Phase::Done)
                    .then(|| super::snapshot::last_error(config_dir, s))
                    .flatten(),
            }
        })
        .collect();
    let problems = reg
        .problems
        .iter()
        .map(|p| {
            format!(
                "{}: {}",
                crate::cli::common::folder::shown(&p.path),
                p.reason
            )
        })
        .collect();
    (rows, problems, reg.live)
}

/// A request held here: its connection, what it asks, and its watch.
struct Held {
    pending: Pending,
    req: CanUseToolRequest,
    watch: Option<Watch>,
    /// Its number here, for `deck --json` and `--watch`.
    id: u64,
    at: u64,
    /// Its session's registry file, once seen: the process that asks.
    process: Option<registry::LiveSession>,
}

/// Each held request whose session's process is not known yet is given
/// it, from the registry's live files (a session the registry never
/// lists, another Claude folder's, keeps none).
fn attach(held: &mut HashMap<String, Held>, live: &[registry::LiveSession]) {
    for hd in held.values_mut().filter(|h| h.process.is_none()) {
        let Some(id) = hd
            .pending
            .request
            .input
            .get("session_id")
            .and_then(Value::as_str)
        else {
            continue;
        };
        hd.process = live
            .iter()
            .find(|s| s.session_id.as_deref() == Some(id))
            .cloned();
    }
}

/// The registry file of the session that asks `input` (a hook's input,
/// its `session_id`), when the registry lists it now.
pub fn process_of(input: &Value) -> Option<registry::LiveSession> {
    let id = input.get("session_id")?.as_str()?;
    let dir = registry::default_dir().ok()?;
    registry::read_dir(&dir)
        .live
        .into_iter()
        .find(|s| s.session_id.as_deref() == Some(id))
}

/// Why a held request leaves the deck by itself.
#[derive(Debug, PartialEq)]
enum Left {
    /// Its session's process ended (killed, crashed): its hook may wait
    /// on, its parent gone, but nobody is there to answer.
    Ended,
    /// Its hook gave up, or it was answered in its terminal.
    Answered,
}

/// Whether the held request `hd` left by itself, and why.
fn left(hd: &mut Held) -> Option<Left> {
    if hd
        .process
        .as_ref()
        .is_some_and(|s| registry::liveness(s).is_some())
    {
        return Some(Left::Ended);
    }
    (hd.pending.withdrawn() || hd.watch.as_mut().is_some_and(Watch::answered))
        .then_some(Left::Answered)
}

/// The held requests as `claudio deck --json` lists them, oldest first:
/// the hook's input as the CLI gave it, byte for byte, with the deck's
/// number for it, which deck holds it (`deck_id`, new each time a deck
/// starts: its numbers start at 1 again) and when it came in.
fn pending_list(held: &HashMap<String, Held>, deck_id: &str) -> Value {
    let mut v: Vec<&Held> = held.values().collect();
    v.sort_by_key(|h| h.id);
    Value::Array(
        v.iter()
            .map(|h| {
                let i = &h.pending.request.input;
                serde_json::json!({
                    "id": h.id,
                    "deckId": deck_id,
                    "since": h.at,
                    "sessionId": i.get("session_id"),
                    "cwd": i.get("cwd"),
                    "toolName": i.get("tool_name"),
                    "toolInput": i.get("tool_input"),
                    "permissionSuggestions": i.get("permission_suggestions"),
                    "program": program_of(i).unwrap_or(Kind::Tui).words(),
                    "requestId": i.get("claudio").and_then(|c| c.get("requestId")),
                })
            })
            .collect(),
    )
}

/// When a request began to wait: the time a claudio chat or `ask` says it
/// asked (`claudio.askedAt`, set once as it is first offered), never later
/// than `now`; else `now`, as a claude TUI's hook asks the moment the
/// request comes.
fn asked_at(input: &Value, now: u64) -> u64 {
    input
        .get("claudio")
        .and_then(|c| c.get("askedAt"))
        .and_then(Value::as_u64)
        .map_or(now, |t| t.min(now))
}

/// The program a request came from, when a claudio chat or `ask`
/// published it ([`crate::cli::requests::publish`]); else the hook's (a claude TUI).
pub fn program_of(input: &Value) -> Option<Kind> {
    Kind::of_program(input.get("claudio")?.get("program")?.as_str()?)
}

/// A request as the screen shows it, or `None` when it cannot be read
/// (handed back to its terminal at once).
fn request_of(
    p: &Pending,
    sessions: &[Session],
    width: usize,
    style: Style,
) -> Option<(Request, CanUseToolRequest)> {
    let input = &p.request.input;
    let req = crate::cli::requests::publish::as_tool_request(input)?;
    let cwd = input
        .get("cwd")
        .and_then(Value::as_str)
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .unwrap_or_else(|| PathBuf::from("/"));
    let session_id = input
        .get("session_id")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let kind = program_of(input).unwrap_or_else(|| {
        sessions
            .iter()
            .find(|s| s.session_id.is_some() && s.session_id == session_id)
            .map_or(Kind::Tui, |s| s.kind)
    });
    let shown = shown_at(&req, input, width, style);
    let offer = Offer::of(&req);
    let asks = if kind_answered_here(input, &req) {
        // a model that cannot ask (questions it cannot read): its chat asks
        Some(asks_of(&req, input, &cwd, width, style)?)
    } else {
        None
    };
    Some((
        Request {
            token: p.request.token.clone(),
            session_id,
            project: match dirs::home_dir().and_then(|h| cwd.strip_prefix(h).ok()) {
                Some(rest) if rest.as_os_str().is_empty() => "~".to_owned(),
                Some(rest) => format!("~/{}", rest.display()),
                None => cwd.display().to_string(),
            },
            kind,
            shown,
            offer,
            asks,
            at: asked_at(input, now_ms()),
        },
        req,
    ))
}

/// Whether the deck answers `req`, a question or a plan, itself: one a
/// claudio chat or `ask` published (a claude TUI's is answered in its
/// terminal, where it shows it).
pub fn kind_answered_here(input: &Value, req: &CanUseToolRequest) -> bool {
    super::hook::answered_in_its_terminal(req) && program_of(input).is_some()
}

/// The question or the plan `req` (its hook input `input`), asked through
/// the model its kind registers, as the chat's `ask` asks it a line at a
/// time; `None` when the model decides it at once (questions it cannot
/// read): its chat asks it.
pub(super) fn asks_of(
    req: &CanUseToolRequest,
    input: &Value,
    cwd: &Path,
    width: usize,
    style: Style,
) -> Option<Asks> {
    use crate::cli::requests::{registered, Asking, Opened, Screen};
    let mut req = req.clone();
    // a plan the CLI sent without its text: the plan the chat saw, as it
    // offered it (its approval is checked against it there)
    if let (Some(plan), true, Some(m)) = (
        input
            .get("claudio")
            .and_then(|c| c.get("plan"))
            .and_then(Value::as_str),
        claudio::protocol::ask::plan_text(&req.input).is_none(),
        req.input.as_object_mut(),
    ) {
        m.insert("plan".into(), Value::String(plan.to_owned()));
    }
    let grants = SessionGrants::default();
    let width = width.saturating_sub(2).max(20);
    let asking = Asking {
        cwd,
        agent: None,
        grants: &grants,
        style,
        width,
    };
    match (registered(req.kind()).open)(&req, &asking) {
        Opened::Ask(model) => {
            let mut a = Asks::new(
                model,
                Screen {
                    style,
                    width,
                    height: 24,
                    // the deck draws its whole screen again
                    reflows: false,
                },
            );
            a.plan = req.kind() == claudio::protocol::ask::RequestKind::Plan;
            Some(a)
        }
        Opened::Decided { .. } => None,
    }
}

/// The approval for `req` (the hook's `input` says its folder) on a
/// screen `width` columns wide.
fn shown_at(req: &CanUseToolRequest, input: &Value, width: usize, style: Style) -> Shown {
    let cwd = input
        .get("cwd")
        .and_then(Value::as_str)
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .unwrap_or_else(|| PathBuf::from("/"));
    let change = diff::proposed(&req.tool_name, &req.input, &cwd);
    Shown::new(
        req,
        change.as_ref(),
        None,
        &Here::new(&cwd),
        style,
        width.saturating_sub(2).max(20),
    )
}

/// The hook's answer for a decision (its token set when it is sent).
pub fn hook_answer(result: &PermissionResult) -> crate::cli::requests::socket::Answer {
    let interrupt = matches!(
        result,
        PermissionResult::Deny {
            interrupt: true,
            ..
        }
    );
    let (behavior, message, updated_permissions, updated_input) = match result {
        PermissionResult::Allow {
            updated_permissions,
            updated_input,
            ..
        } => {
            let u = (!updated_permissions.is_empty())
                .then(|| serde_json::to_value(updated_permissions).ok())
                .flatten();
            ("allow", None, u, updated_input.clone())
        }
        PermissionResult::Deny { message, .. } => ("deny", Some(message.clone()), None, None),
        _ => ("ask", None, None, None),
    };
    crate::cli::requests::socket::Answer {
        token: String::new(),
        behavior: behavior.to_owned(),
        message,
        updated_permissions,
        updated_input,
        interrupt,
    }
}

/// Give `answer` to the request `p`; `None` when it was gone before the
/// answer reached it (its acknowledgement is read with `Sent::acked`).
fn send(
    p: Pending,
    answer: &crate::cli::requests::socket::Answer,
) -> Option<crate::cli::requests::socket::Sent> {
    if p.withdrawn() {
        return None;
    }
    p.send(answer.clone()).ok()
}

/// What the deck says once it answered: what was said, or that the
/// request was answered at its own end first.
fn said_of(taken: Option<Acked>, said: &str, project: &str, input: &Value) -> String {
    match taken {
        Some(Acked::Taken) => format!("{said}: {project}"),
        Some(Acked::NotTaken) => format!("{} first: {project}", answered_where(input)),
        Some(Acked::Refused) => {
            format!("refused: no answer to what it asks (it still asks, and comes back): {project}")
        }
        None => format!("gone before the answer reached it: {project}"),
    }
}

/// Where a request not taken was answered, in words.
fn answered_where(input: &Value) -> &'static str {
    match program_of(input) {
        Some(Kind::ClaudioChat) => "answered in its chat",
        _ => "answered in its terminal",
    }
}

/// The sessions as the notices read them.
pub fn sightings(sessions: &[Session]) -> Vec<Sighting> {
    sessions
        .iter()
        .map(|x| Sighting {
            key: x
                .session_id
                .clone()
                .unwrap_or_else(|| format!("pid:{}", x.pid)),
            project: x.project.clone(),
            seen: match x.phase {
                Phase::NeedsYou => {
                    Seen::Waiting(x.waiting_for.clone().unwrap_or_else(|| "input".to_owned()))
                }
                Phase::Working => Seen::Working,
                Phase::Done => Seen::Idle,
            },
            since: x.since,
        })
        .collect()
}

/// The sessions the registry in `config_dir` lists now, as the notices
/// read them (for the decks that show no rows: line by line, `--watch`).
pub fn registry_sightings(config_dir: &Path) -> Vec<Sighting> {
    let reg = registry::read_dir(&config_dir.join("sessions"));
    reg.live
        .iter()
        .map(|s| Sighting {
            key: s
                .session_id
                .clone()
                .unwrap_or_else(|| format!("pid:{}", s.pid)),
            project: s.cwd.clone().unwrap_or_default(),
            seen: match registry::state(config_dir, s) {
                SessionState::Waiting { for_what } => Seen::Waiting(for_what),
                SessionState::Working => Seen::Working,
                _ => Seen::Idle,
            },
            since: s
                .extra
                .get("statusUpdatedAt")
                .and_then(Value::as_u64)
                .or(s.updated_at),
        })
        .collect()
}

/// A question or a plan of a claude TUI (by the hook's input): the deck
/// hands it back, and its notice comes from the session's registry file
/// saying it waits (a claudio chat's is answered here, and noticed).
fn asked_in_its_terminal(input: &Value) -> bool {
    let tool = input.get("tool_name").and_then(Value::as_str).unwrap_or("");
    !matches!(
        claudio::protocol::ask::RequestKind::of_tool(tool),
        claudio::protocol::ask::RequestKind::Tool
    ) && program_of(input).is_none()
}

/// Whether the deck's notice tells of the request `input`: a claude
/// TUI's permission request (a claudio chat or `ask` sends its own notice
/// as its dialog asks; a TUI's question or plan is told of by its registry
/// file).
fn noticed_here(input: &Value) -> bool {
    program_of(input).is_none() && !asked_in_its_terminal(input)
}

/// The notices the config file sets, for the sessions the deck watches.
pub struct Notices {
    notifier: Option<Notifier>,
    watched: Watched,
    /// With no `[notify]` table, a request still rings the bell (the full
    /// screen's way of saying one came).
    bell: bool,
    /// The lock that makes this deck the one of the user's that sends the
    /// notices (another deck or `--watch` beside it shows the same, and
    /// sends none while it runs): taken when free.
    lock: Option<std::fs::File>,
    /// Where the lock is.
    lock_dir: PathBuf,
    /// The hook is installed.
    installed: bool,
}

impl Notices {
    /// The config file's notices; `bell`: ring for a request when it sets
    /// none.
    pub fn from_config(bell: bool) -> Notices {
        let installed = super::install::installed();
        let mut n = Notices {
            notifier: crate::cli::common::config::notifier(),
            watched: Watched::new(installed),
            installed,
            bell,
            lock: None,
            lock_dir: super::socket::dir(),
        };
        // the first deck started sends them
        n.sending();
        n
    }

    /// No `[notify]` table: the bell alone, for a request.
    #[cfg(test)]
    pub(super) fn bell_only() -> Notices {
        Notices {
            notifier: None,
            watched: Watched::new(true),
            installed: true,
            bell: true,
            lock: None,
            lock_dir: PathBuf::new(),
        }
    }

    /// Whether this deck sends the notices: it holds the lock, or takes
    /// it now (the deck that held it ended).
    fn sending(&mut self) -> bool {
        if self.notifier.is_some() && self.lock.is_none() {
            self.lock = super::socket::lock_notices(&self.lock_dir);
        }
        self.lock.is_some()
    }

    /// Whether a deck takes the hook's requests now (`deck --watch`: one
    /// runs beside it), besides the hook being installed.
    pub fn deck_running(&mut self, running: bool) {
        self.watched.set_hooked(running && self.installed);
    }

    /// A permission request the deck holds (`input`: the hook's): its
    /// notice, or the bell alone when no `[notify]` table is set.
    pub fn request(&mut self, input: &Value, out: &mut impl Write) {
        if !noticed_here(input) {
            return;
        }
        let session = input.get("session_id").and_then(Value::as_str);
        let notice = crate::cli::common::notify::request_notice(input);
        let notice = self.watched.request(session, notice);
        let sending = self.sending();
        match (&self.notifier, notice) {
            (Some(n), Some(notice)) if sending => n.deliver(&notice, out),
            (Some(_), _) => {}
            (None, Some(_)) if self.bell => {
                let _ = out.write_all(b"\x07");
                let _ = out.flush();
            }
            _ => {}
        }
    }

    /// A request the deck held left it.
    pub fn request_gone(&mut self, input: &Value) {
        if !noticed_here(input) {
            return;
        }
        let session = input.get("session_id").and_then(Value::as_str);
        self.watched.request_gone(session);
    }

    /// The sessions as they are now.
    pub fn sessions(&mut self, seen: &[Sighting], out: &mut impl Write) {
        let turn = self
            .notifier
            .as_ref()
            .map_or(Duration::from_secs(60), Notifier::turn_threshold);
        let notices = self.watched.sessions(now_ms(), seen, turn);
        self.deliver(&notices, out);
    }

    /// The notices held back that are due now (a registry's permission
    /// wait whose hook request never came): call it often.
    pub fn tick(&mut self, out: &mut impl Write) {
        let notices = self.watched.due(now_ms());
        self.deliver(&notices, out);
    }

    fn deliver(&mut self, notices: &[crate::cli::common::notify::Notice], out: &mut impl Write) {
        if !self.sending() {
            return;
        }
        if let Some(n) = &self.notifier {
            for notice in notices {
                n.deliver(notice, out);
            }
        }
    }
}

/// Puts the terminal back however the deck ends.
struct Screen;

impl Screen {
    /// The alternate screen, the cursor hidden, and pastes marked
    /// (bracketed paste): a pasted newline is never the Enter that answers.
    fn enter() -> io::Result<Screen> {
        crossterm::terminal::enable_raw_mode()?;
        let mut out = io::stdout();
        write!(out, "\x1b[?1049h\x1b[?25l\x1b[?2004h")?;
        out.flush()?;
        Ok(Screen)
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        let mut out = io::stdout();
        let _ = write!(out, "\x1b[?2004l\x1b[?25h\x1b[?1049l");
        let _ = out.flush();
        let _ = crossterm::terminal::disable_raw_mode();
    }
}

/// Run the full-screen deck until `q` or Ctrl-C.
pub fn run(listener: Listener, config_dir: PathBuf, style: Style) -> anyhow::Result<()> {
    // the listener lives on its thread till the process ends: the socket
    // is taken away here, so the next hook finds no deck at once
    let socket = listener.path().to_owned();
    let result = serve(listener, config_dir, style);
    let _ = std::fs::remove_file(&socket);
    result
}

fn serve(listener: Listener, config_dir: PathBuf, style: Style) -> anyhow::Result<()> {
    let (tx, rx) = mpsc::channel();
    {
        let tx = tx.clone();
        std::thread::spawn(move || loop {
            match listener.next_any(Duration::from_secs(5)) {
                Ok(p) => {
                    if tx.send(Event::Request(p)).is_err() {
                        return;
                    }
                }
                Err(_) => std::thread::sleep(Duration::from_millis(100)),
            }
        });
    }
    {
        let tx = tx.clone();
        let dir = config_dir.join("sessions");
        std::thread::spawn(move || watch_dir(dir, move || tx.send(Event::Sessions).is_ok()));
    }
    {
        let tx = tx.clone();
        std::thread::spawn(move || loop {
            let ev = match crossterm::event::read() {
                Ok(crossterm::event::Event::Key(k))
                    if k.kind != crossterm::event::KeyEventKind::Release =>
                {
                    Event::Key(k)
                }
                Ok(crossterm::event::Event::Resize(..)) => Event::Resize,
                Ok(crossterm::event::Event::Paste(p)) => Event::Paste(p),
                Ok(_) => continue,
                Err(_) => return,
            };
            if tx.send(ev).is_err() {
                return;
            }
        });
    }
    // what became of each answer comes back on the same channel
    let given = tx.clone();
    drop(tx);
    // (the config file read before the screen is taken: a warning about
    // it is seen)
    let mut notices = Notices::from_config(true);
    let _screen = Screen::enter()?;
    let mut view = View::default();
    if !super::install::installed() {
        // the deck sees the TUI's sessions, but answers none of their
        // requests until the hook is there (a TUI started by `claudio tui`
        // or `sessions resume --tui` has it through `--settings`)
        view.note = Some(
            "claude TUIs reach the deck by `claudio tui`, or once `claudio deck hooks install` has run"
                .to_owned(),
        );
    }
    let mut held: HashMap<String, Held> = HashMap::new();
    let mut grants: HashMap<String, SessionGrants> = HashMap::new();
    let mut costs = Costs::default();
    let mut live;
    (view.sessions, view.problems, live) = sessions(&config_dir, &mut costs);
    notices.sessions(&sightings(&view.sessions), &mut io::stdout());
    let mut last = Vec::new();
    let mut count = 0u64;
    // this deck's numbers for its requests start at 1: this names the
    // deck, so a watch tells its request 1 from a deck's before it
    let deck_id = claudio::store::new_uuid();
    // the registry read again once the events that came meanwhile are
    // taken (twenty TUIs rewrite their files often: a request never waits
    // behind a queue of reads)
    let mut dirty = false;
    let mut looked = std::time::Instant::now();
    loop {
        let (w, h) =
            // a terminal that says no size (0 × 0) is drawn at 80 × 24
            crossterm::terminal::size()
                .ok()
                .filter(|&(w, h)| w > 0 && h > 0)
                .map_or((80, 24), |(w, h)| (w as usize, h as usize));
        view.height = h;
        let rows = view.render(now_ms(), w, h, style);
        if rows != last {
            let mut out = io::stdout().lock();
            let mut frame = String::from("\x1b[H");
            for (i, r) in rows.iter().enumerate() {
                frame.push_str(r);
                frame.push_str("\x1b[K");
                if i + 1 < rows.len() {
                    frame.push_str("\r\n");
                }
            }
            frame.push_str("\x1b[J");
            out.write_all(frame.as_bytes())?;
            out.flush()?;
            last = rows;
        }
        let ev = if dirty {
            match rx.try_recv() {
                Ok(ev) => Some(ev),
                Err(mpsc::TryRecvError::Empty) => {
                    dirty = false;
                    (view.sessions, view.problems, live) = sessions(&config_dir, &mut costs);
                    attach(&mut held, &live);
                    notices.sessions(&sightings(&view.sessions), &mut io::stdout());
                    None
                }
                Err(mpsc::TryRecvError::Disconnected) => break,
            }
        } else {
            match rx.recv_timeout(TICK) {
                Ok(ev) => Some(ev),
                Err(mpsc::RecvTimeoutError::Timeout) => None,
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        };
        match ev {
            Some(Event::Request(p)) if p.request.kind == "list" => {
                let _ = p.reply(serde_json::json!({ "pending": pending_list(&held, &deck_id) }));
                continue;
            }
            Some(Event::Request(p)) => {
                let Some((r, req)) = request_of(&p, &view.sessions, w, style) else {
                    let _ = p.answer("ask", None);
                    continue;
                };
                // a question or a plan of a claude TUI (2.1.332 hands them
                // to the hook too) is answered in its terminal, where the
                // TUI shows it: an allow from here would run it with no
                // answer. Its session's row says so (its file: waiting)
                if super::hook::answered_in_its_terminal(&req)
                    && !kind_answered_here(&p.request.input, &req)
                {
                    let _ = p.answer("ask", None);
                    view.note = Some(format!(
                        "{}: answer it in its terminal ({})",
                        super::hook::kind_words(&req),
                        r.project
                    ));
                    continue;
                }
                // the same call allowed "for this session" here before
                if let Some(g) = r.session_id.as_ref().and_then(|s| grants.get(s)) {
                    if g.allows(&req) {
                        let _ = p.answer("allow", None);
                        view.note = Some(format!("allowed again for its session: {}", r.project));
                        continue;
                    }
                }
                let watch = Watch::new(&p.request.input);
                notices.request(&p.request.input, &mut io::stdout());
                count += 1;
                held.insert(
                    r.token.clone(),
                    Held {
                        pending: p,
                        req,
                        watch,
                        id: count,
                        at: r.at,
                        process: None,
                    },
                );
                attach(&mut held, &live);
                view.add(r);
            }
            Some(Event::Sessions) => dirty = true,
            Some(Event::Paste(p)) => view.paste(&p),
            Some(Event::Resize) => {
                // each request drawn again for the new width: a command is
                // shown whole, never cut at the screen's edge
                let w = crossterm::terminal::size().map_or(w, |(w, _)| (w as usize).max(20));
                for r in &mut view.requests {
                    if let Some(hd) = held.get(&r.token) {
                        r.shown = shown_at(&hd.req, &hd.pending.request.input, w, style);
                    }
                    if let Some(a) = &mut r.asks {
                        a.resize(w.saturating_sub(2).max(20));
                    }
                }
                last.clear();
            }
            Some(Event::Given(g)) => {
                if g.taken == Some(Acked::Taken) {
                    if let Some((session, req)) = &g.grant {
                        grants.entry(session.clone()).or_default().remember(req);
                    }
                }
                view.note = Some(said_of(g.taken, &g.said, &g.project, &g.input));
            }
            Some(Event::Key(k)) => match view.key(k) {
                Some(Act::Quit) => break,
                Some(Act::HandBack(token)) => {
                    if let (Some(hd), Some(r)) = (held.remove(&token), view.remove(&token)) {
                        notices.request_gone(&hd.pending.request.input);
                        let _ = hd.pending.answer("ask", None);
                        view.note = Some(format!("handed back to its terminal: {}", r.project));
                    }
                }
                Some(Act::Answer(token, d)) => {
                    if let (Some(hd), Some(r)) = (held.remove(&token), view.remove(&token)) {
                        notices.request_gone(&hd.pending.request.input);
                        let said = d.note(&r.offer);
                        let input = hd.pending.request.input.clone();
                        let answer = hook_answer(&d.result(&hd.req));
                        let grant = d
                            .grants_this_call(&hd.req)
                            .then(|| r.session_id.clone().map(|s| (s, hd.req.clone())))
                            .flatten();
                        view.note = Some(format!("{said}: {} (sent)", r.project));
                        give_off_loop(
                            &given,
                            hd.pending,
                            answer,
                            Given {
                                taken: None,
                                said,
                                project: r.project.clone(),
                                input,
                                grant,
                            },
                        );
                    }
                }
                Some(Act::Reply(token, result)) => {
                    if let (Some(hd), Some(r)) = (held.remove(&token), view.remove(&token)) {
                        notices.request_gone(&hd.pending.request.input);
                        let said = match (&result, hd.req.kind()) {
                            (
                                PermissionResult::Allow { .. },
                                claudio::protocol::ask::RequestKind::Plan,
                            ) => "plan approved",
                            (PermissionResult::Allow { .. }, _) => "answered",
                            (
                                PermissionResult::Deny {
                                    interrupt: true, ..
                                },
                                claudio::protocol::ask::RequestKind::Plan,
                            ) => "plan rejected, turn stopped",
                            (_, claudio::protocol::ask::RequestKind::Plan) => "plan not approved",
                            _ => "declined",
                        };
                        let input = hd.pending.request.input.clone();
                        view.note = Some(format!("{said}: {} (sent)", r.project));
                        give_off_loop(
                            &given,
                            hd.pending,
                            hook_answer(&result),
                            Given {
                                taken: None,
                                said: said.to_owned(),
                                project: r.project.clone(),
                                input,
                                grant: None,
                            },
                        );
                    }
                }
                None => {}
            },
            None => {}
        }
        // held requests whose hook went away, or answered in their terminal
        // (their transcripts read at most once a tick)
        if looked.elapsed() < TICK {
            continue;
        }
        looked = std::time::Instant::now();
        notices.tick(&mut io::stdout());
        let gone: Vec<(String, Left)> = held
            .iter_mut()
            .filter_map(|(t, hd)| left(hd).map(|why| (t.clone(), why)))
            .collect();
        for (t, why) in gone {
            if let (Some(hd), Some(r)) = (held.remove(&t), view.remove(&t)) {
                notices.request_gone(&hd.pending.request.input);
                let _ = hd.pending.answer("ask", None);
                view.note = Some(match why {
                    Left::Ended => format!("its session ended: {}", r.project),
                    Left::Answered => format!("answered in its terminal: {}", r.project),
                });
            }
        }
    }
    // nobody at the deck any more: each held request is asked in its
    // terminal. A claudio chat's or `ask`'s is let go unanswered: its
    // dialog asks on as before, and it is offered to the next deck started
    // (handed back, it would be offered no more)
    for (_, hd) in held {
        if program_of(&hd.pending.request.input).is_none() {
            let _ = hd.pending.answer("ask", None);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A running session's cost as its transcript grows, a line and a
    /// half at a time, is what a whole read of it prices, reading only
    /// what was appended; a file replaced by another is priced anew.
    #[test]
    fn a_growing_transcript_s_cost_is_a_whole_read_s() {
        let line = |id: &str, out: u64| {
            format!(
                r#"{{"type":"assistant","requestId":"r{id}","timestamp":"2026-12-04T10:00:00.000Z","message":{{"id":"m{id}","model":"claude-sonnet-4-5","usage":{{"input_tokens":1000,"output_tokens":{out}}}}}}}"#
            ) + "\n"
        };
        let text: String = (0..8)
            .map(|i| line(&i.to_string(), 1000 * (i + 1)))
            .collect();
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("t.jsonl");
        let mut costs = Costs::default();
        let step = line("x", 1).len() * 3 / 2;
        let mut at = 0;
        while at < text.len() {
            let to = (at + step).min(text.len());
            let mut f = std::fs::OpenOptions::new()
                .append(true)
                .create(true)
                .open(&p)
                .unwrap();
            std::io::Write::write_all(&mut f, &text.as_bytes()[at..to]).unwrap();
            at = to;
            // the size changed: read on
            let got = costs.of(Some(p.clone())).unwrap();
            let whole_lines = &text[..text[..to].rfind('\n').map_or(0, |i| i + 1)];
            let w = d.path().join("w.jsonl");
            std::fs::write(&w, whole_lines).unwrap();
            let want = usd_of(&claudio::store::file_usage(&w).unwrap());
            assert_eq!(got, want, "{to} bytes");
        }
        // what was read is not read again: a line far before where the
        // read stopped changed in place (the CLI only appends) is not
        // seen, the line appended is
        let was = costs.of(Some(p.clone())).unwrap();
        assert!(was > 0.0);
        let first = line("0", 1000);
        let changed = line("0", 9000);
        assert_eq!(first.len(), changed.len());
        std::fs::write(&p, text.replacen(&first, &changed, 1) + &line("8", 1000)).unwrap();
        let read_on = costs.of(Some(p.clone())).unwrap();
        let w = d.path().join("w.jsonl");
        std::fs::write(&w, text.clone() + &line("8", 1000)).unwrap();
        assert_eq!(read_on, usd_of(&claudio::store::file_usage(&w).unwrap()));
        let other = d.path().join("other");
        std::fs::write(&other, line("y", 5)).unwrap();
        std::fs::rename(&other, &p).unwrap();
        let want = usd_of(&claudio::store::file_usage(&p).unwrap());
        assert_eq!(costs.of(Some(p.clone())), Some(want));
    }

    /// A chat's request shows its age from when it was asked, though the
    /// deck started later; a time ahead of the deck's clock, or none (a
    /// claude TUI's hook), is now.
    #[test]
    fn a_chat_s_request_is_as_old_as_its_asking() {
        let at = |v: Value| asked_at(&v, 50_000);
        assert_eq!(
            at(serde_json::json!({"claudio": {"askedAt": 38_000}})),
            38_000
        );
        assert_eq!(
            at(serde_json::json!({"claudio": {"askedAt": 90_000}})),
            50_000
        );
        assert_eq!(
            at(serde_json::json!({"claudio": {"askedAt": "soon"}})),
            50_000
        );
        assert_eq!(at(serde_json::json!({"tool_name": "Bash"})), 50_000);
    }

    /// An answer the asking end did not take is said to have been given
    /// where it was: in the chat for a claudio chat, else in its terminal.
    #[test]
    fn an_answer_not_taken_says_where_it_was_answered() {
        let chat = serde_json::json!({"claudio": {"program": "claudio chat"}});
        let tui = serde_json::json!({"tool_name": "Bash"});
        assert_eq!(
            said_of(Some(Acked::NotTaken), "allowed once", "~/app", &chat),
            "answered in its chat first: ~/app"
        );
        assert_eq!(
            said_of(Some(Acked::NotTaken), "allowed once", "~/app", &tui),
            "answered in its terminal first: ~/app"
        );
        assert_eq!(
            said_of(Some(Acked::Taken), "allowed once", "~/app", &tui),
            "allowed once: ~/app"
        );
        assert!(
            said_of(Some(Acked::Refused), "allowed once", "~/app", &chat).starts_with("refused")
        );
    }
}
