//! Notices that reach the person away from the terminal: when a session
//! needs them (a permission to give, a question, a plan) or a long turn
//! has ended. Set in the config file's `[notify]` table; `claudio notify
//! test` sends one through every way set.
//!
//! The ways: the terminal's bell; an OSC 9 or OSC 777 desktop notice, wrapped
//! for tmux so that it reaches the outer terminal (through SSH too); a
//! desktop notice (`notify-send`, or `osascript` on macOS); an ntfy topic
//! (with `curl`); a command of the person's own, the notice as JSON on its
//! stdin. Each command runs with a deadline, in the background: a notice
//! never holds up the chat.
//!
//! One notice per event: requests that come while one is already waiting
//! for the person (parallel sub-agents asking at once) make no second
//! notice until the person has answered; a sub-agent's end makes none.

use crate::cli::sanitize::Sanitizer;
use claudio::child;
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::process::Command;
use std::time::Duration;

/// How long a notifying command may take.
const DEADLINE: Duration = Duration::from_secs(5);
/// The most bytes of a notifying command's output read: past it, it is
/// ended (a notice command has nothing to say).
const MAX_OUTPUT: usize = 4096;
/// The longest title and body sent, in characters.
const MAX_TITLE: usize = 80;
const MAX_BODY: usize = 300;

/// The keys of the `[notify]` table (others are warned about).
pub const KEYS: [&str; 7] = [
    "on",
    "turn-seconds",
    "bell",
    "osc",
    "desktop",
    "ntfy",
    "command",
];

/// The config file's `[notify]` table.
#[derive(Debug, Default, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct NotifyConfig {
    /// What makes a notice: `permission`, `question`, `turn` (the
    /// default: all three).
    pub on: Option<Vec<Trigger>>,
    /// A turn makes a notice when it took at least this many seconds
    /// (default 60).
    pub turn_seconds: Option<u64>,
    /// Ring the terminal's bell (default true).
    pub bell: Option<bool>,
    /// An OSC desktop notice through the terminal: `9` (iTerm2, WezTerm,
    /// kitty, Windows Terminal), `777` (rxvt, foot, Ghostty, WezTerm) or
    /// `off` (the default).
    pub osc: Option<Osc>,
    /// A desktop notice with `notify-send` (or `osascript` on macOS)
    /// (default false).
    pub desktop: Option<bool>,
    /// An ntfy topic (`ntfy.sh/<topic>`) or a whole `https://` URL.
    pub ntfy: Option<String>,
    /// A command of the person's own, run by `/bin/sh -c` with the notice
    /// as one line of JSON on its stdin (`kind`, `title`, `body`,
    /// `session`).
    pub command: Option<String>,
}

/// What a notice is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Trigger {
    /// A tool waits for the person's permission.
    Permission,
    /// The model asks a question, or a plan waits for approval.
    Question,
    /// A turn ended after at least `turn-seconds`.
    Turn,
}

/// The OSC sequence for a terminal's desktop notice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
pub enum Osc {
    /// `ESC ] 9 ; text BEL`.
    #[serde(rename = "9")]
    Nine,
    /// `ESC ] 777 ; notify ; title ; body BEL`.
    #[serde(rename = "777")]
    SevenSevenSeven,
    /// None.
    #[serde(rename = "off")]
    Off,
}

/// One notice.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Notice {
    pub kind: Trigger,
    pub title: String,
    pub body: String,
    /// The session it is about, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
}

impl Notice {
    /// A notice with its text made inert and cut to size.
    pub fn new(kind: Trigger, title: &str, body: &str, session: Option<&str>) -> Notice {
        Notice {
            kind,
            title: inert(title, MAX_TITLE),
            body: inert(body, MAX_BODY),
            session: session.map(|s| inert(s, 64)),
        }
    }
}

/// The project a notice names: the last part of the working folder
/// (`""` for `/`).
pub fn project_name(cwd: &std::path::Path) -> String {
    cwd.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// `s` on one line, with no control character or escape sequence, at most
/// `max` characters.
fn inert(s: &str, max: usize) -> String {
    let flat: String = Sanitizer::clean(s)
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let flat = flat.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        flat
    } else {
        let mut cut: String = flat.chars().take(max.saturating_sub(1)).collect();
        cut.push('…');
        cut
    }
}

/// Where notices go, and which have gone: one per event.
#[derive(Debug)]
pub struct Notifier {
    config: NotifyConfig,
    /// Inside tmux: terminal sequences are wrapped to pass through it.
    tmux: bool,
    /// A notice that the session needs the person went, and they have not
    /// answered since.
    waiting: bool,
    /// The notices' commands, run in the background one notice at a
    /// time: a flood of notices is one process at a time, not one thread
    /// and one process each.
    running: std::sync::Arc<std::sync::Mutex<Running>>,
}

fn lock(r: &std::sync::Mutex<Running>) -> std::sync::MutexGuard<'_, Running> {
    r.lock().unwrap_or_else(|e| e.into_inner())
}

/// The most notices whose commands wait for the running ones: past it the
/// oldest waiting is dropped (the bell still rang for it).
const WAITING_MAX: usize = 16;

/// A notice's commands, each with what goes to its standard input.
type Batch = Vec<(Command, Vec<u8>)>;

/// Whether a notice's commands run, and the notices' that wait for them,
/// oldest first: each once (a notice sent again while it waits is not
/// queued twice), so a flood of one session's notices runs twice at most,
/// and the deck's notices of many sessions each run.
#[derive(Debug, Default)]
struct Running {
    busy: bool,
    next: std::collections::VecDeque<(String, Batch)>,
}

impl Running {
    /// Queue a notice's commands behind the running ones.
    fn wait(&mut self, commands: Batch) {
        let key = commands
            .iter()
            .map(|(c, input)| format!("{c:?}\0{}", String::from_utf8_lossy(input)))
            .collect::<Vec<_>>()
            .join("\0\0");
        if self.next.iter().any(|(k, _)| *k == key) {
            return;
        }
        if self.next.len() == WAITING_MAX {
            self.next.pop_front();
        }
        self.next.push_back((key, commands));
    }
}

impl Notifier {
    /// A notifier for `config`, in tmux or not (`$TMUX`).
    pub fn new(config: NotifyConfig) -> Notifier {
        let tmux = std::env::var_os("TMUX").is_some_and(|v| !v.is_empty());
        Notifier {
            config,
            tmux,
            waiting: false,
            running: Default::default(),
        }
    }

    /// Whether any way is set at all (without a `[notify]` table, none is).
    pub fn is_on(&self) -> bool {
        self.config != NotifyConfig::default()
    }

    /// How long a turn must take to make a notice.
    pub fn turn_threshold(&self) -> Duration {
        Duration::from_secs(self.config.turn_seconds.unwrap_or(60))
    }

    fn wants(&self, kind: Trigger) -> bool {
        self.is_on() && self.config.on.as_ref().is_none_or(|on| on.contains(&kind))
    }

    /// The person answered (or the request went): the next request makes a
    /// notice again.
    pub fn answered(&mut self) {
        self.waiting = false;
    }

    /// The session needs the person: a notice, unless one is still
    /// waiting for them. `out` is the terminal.
    pub fn needs_you(&mut self, notice: &Notice, out: &mut impl Write) {
        if !self.wants(notice.kind) || self.waiting {
            return;
        }
        self.waiting = true;
        self.send(notice, out);
    }

    /// A turn of `took` ended: a notice when it took long enough.
    pub fn turn_ended(&mut self, took: Duration, notice: &Notice, out: &mut impl Write) {
        if !self.wants(Trigger::Turn) || took < self.turn_threshold() {
            return;
        }
        self.send(notice, out);
    }

    /// As [`turn_ended`](Notifier::turn_ended), waiting for each command:
    /// for a process about to exit (`ask`), whose background thread would
    /// end with it.
    pub fn turn_ended_now(&mut self, took: Duration, notice: &Notice, out: &mut impl Write) {
        if !self.wants(Trigger::Turn) || took < self.turn_threshold() {
            return;
        }
        let _ = self.send_now(notice, out);
    }

    /// Send `notice` every way set, whatever its kind.
    pub fn send(&self, notice: &Notice, out: &mut impl Write) {
        let bytes = terminal_bytes(notice, &self.config, self.tmux);
        if !bytes.is_empty() {
            let _ = out.write_all(bytes.as_bytes());
            let _ = out.flush();
        }
        let commands = commands(notice, &self.config, &Host::here());
        if commands.is_empty() {
            return;
        }
        {
            let mut r = lock(&self.running);
            if r.busy {
                // after the running ones and those already waiting
                r.wait(commands);
                return;
            }
            r.busy = true;
        }
        // in the background: a notice never holds up the chat
        let running = self.running.clone();
        let spawned = std::thread::Builder::new()
            .name("claudio-notify".into())
            .spawn(move || {
                let mut batch = commands;
                loop {
                    for (cmd, input) in batch {
                        let _ = run(cmd, input);
                    }
                    let mut r = lock(&running);
                    match r.next.pop_front() {
                        Some((_, next)) => batch = next,
                        None => {
                            r.busy = false;
                            return;
                        }
                    }
                }
            });
        if spawned.is_err() {
            lock(&self.running).busy = false;
        }
    }

    /// Send `notice` every way set, waiting for each command; what failed,
    /// in words (for `claudio notify test`).
    pub fn send_now(&self, notice: &Notice, out: &mut impl Write) -> Vec<String> {
        let bytes = terminal_bytes(notice, &self.config, self.tmux);
        let _ = out.write_all(bytes.as_bytes());
        let _ = out.flush();
        commands(notice, &self.config, &Host::here())
            .into_iter()
            .filter_map(|(cmd, input)| {
                let name = cmd.get_program().to_string_lossy().into_owned();
                run(cmd, input).err().map(|e| format!("{name}: {e}"))
            })
            .collect()
    }
}

impl Notifier {
    /// Send `notice` when its kind is chosen (`on`).
    pub fn deliver(&self, notice: &Notice, out: &mut impl Write) {
        if self.wants(notice.kind) {
            self.send(notice, out);
        }
    }
}

/// What a session watched from outside is doing (a claude TUI, as its
/// registry file says).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seen {
    /// It waits for the person: for what, as the CLI says it.
    Waiting(String),
    Working,
    Idle,
}

/// One session, as [`Watched`] last saw it.
#[derive(Debug)]
struct Track {
    seen: Seen,
    /// When its turn began (ms since the epoch), while one runs.
    busy_since: Option<u64>,
    /// A needs-you notice went (or is due) for its wait, and the wait has
    /// not ended since.
    told: bool,
    /// Its requests the deck holds now.
    held: usize,
    /// The deck's last held request of it left (answered, handed back,
    /// withdrawn), and its registry has not said since that it stopped
    /// waiting: a permission wait it says is that request's, read late (the
    /// CLI writes its file after the fact); a new request is a new wait.
    answered: bool,
    /// The notice of a permission wait its registry says, held back until
    /// this time (ms since the epoch) for the hook's request of the same
    /// wait, whose notice says more and replaces it.
    due: Option<(u64, Notice)>,
}

impl Track {
    fn new(seen: Seen) -> Track {
        Track {
            seen,
            busy_since: None,
            told: false,
            held: 0,
            answered: false,
            due: None,
        }
    }
}

/// How long the notice of a permission wait the registry says is held
/// back for the hook's request of the same wait (when the hook is
/// installed): the hook's notice names the tool and its command. The two
/// come within milliseconds of each other, in either order.
pub const HOOK_GRACE: Duration = Duration::from_secs(2);

/// The notices for sessions the deck watches from outside (claude TUIs):
/// a permission request from the hook, the registry saying a session
/// waits (a question, its own dialog), a turn that ended after long
/// enough. One notice per wait: while a session's notice waits for the
/// person, its other requests (parallel sub-agents, its own dialog beside
/// the hook's, its registry file saying so before or after the hook's
/// request, or still after the deck answered it) make none; a session seen
/// for the first time says nothing of what it did before. Pure: the time
/// is handed in.
#[derive(Debug, Default)]
pub struct Watched {
    sessions: std::collections::HashMap<String, Track>,
    /// The first sight of the sessions was taken (what was already so then
    /// makes no notice).
    primed: bool,
    /// The hook hands the deck the sessions' permission requests: a
    /// registry's permission wait waits [`HOOK_GRACE`] for its request.
    hooked: bool,
}

/// A session as the deck reads it: its key (its session id, else its
/// pid), its folder, what it does, and since when (ms since the epoch,
/// the registry's `statusUpdatedAt`).
#[derive(Debug, Clone)]
pub struct Sighting {
    pub key: String,
    pub project: String,
    pub seen: Seen,
    pub since: Option<u64>,
}

/// Whether the registry's `waitingFor` is a permission's (the hook's).
fn for_permission(what: &str) -> bool {
    what.contains("permission")
}

/// Whether a wait the registry names is worth a notice. A dialog the TUI
/// opened (`dialog open`: its offer of auto mode as it starts, a menu the
/// person opened) waits on someone already at it; the CLI's own code
/// gives it no notification either.
fn worth_a_notice(what: &str) -> bool {
    what != "dialog open"
}

impl Watched {
    /// Watched sessions whose permission requests reach the deck through
    /// the hook (`hooked`: installed) or not.
    pub fn new(hooked: bool) -> Watched {
        Watched {
            hooked,
            ..Watched::default()
        }
    }

    /// Whether the sessions' permission requests reach the deck through
    /// the hook now (for `deck --watch`: the hook installed and a deck
    /// running to take them).
    pub fn set_hooked(&mut self, hooked: bool) {
        self.hooked = hooked;
    }

    /// A permission request the deck holds came for `session` (`None`:
    /// the hook named none): the notice to send, unless one for that
    /// session's wait went already (another request held, its registry
    /// saying it waits). A request after the deck answered the last one
    /// is a new wait.
    pub fn request(&mut self, session: Option<&str>, notice: Notice) -> Option<Notice> {
        let Some(key) = session else {
            return Some(notice);
        };
        let t = self
            .sessions
            .entry(key.to_owned())
            .or_insert_with(|| Track::new(Seen::Working));
        t.held += 1;
        if t.held > 1 {
            return None;
        }
        // the registry's notice of this wait, held back: this one says more
        let replaced = t.due.take().is_some();
        let fresh = !t.told || t.answered || replaced;
        t.told = true;
        t.answered = false;
        fresh.then_some(notice)
    }

    /// A request the deck held for `session` left it (answered, handed
    /// back, withdrawn). Its wait ends when the registry says the session
    /// no longer waits, or with the next request.
    pub fn request_gone(&mut self, session: Option<&str>) {
        let Some(t) = session.and_then(|k| self.sessions.get_mut(k)) else {
            return;
        };
        t.held = t.held.saturating_sub(1);
        if t.held == 0 {
            t.answered = true;
        }
    }

    /// The notices held back that are due at `now` (ms since the epoch):
    /// the registry said a session waits for a permission, and no request
    /// of the hook came for it.
    pub fn due(&mut self, now: u64) -> Vec<Notice> {
        let mut out: Vec<(u64, Notice)> = Vec::new();
        for t in self.sessions.values_mut() {
            if t.due.as_ref().is_some_and(|(at, _)| *at <= now) {
                out.extend(t.due.take());
            }
        }
        out.sort_by_key(|(at, _)| *at);
        out.into_iter().map(|(_, n)| n).collect()
    }

    /// The sessions as they are at `now` (ms since the epoch): the notices
    /// for what changed. A turn's end makes one when it took at least
    /// `turn`.
    pub fn sessions(&mut self, now: u64, seen: &[Sighting], turn: Duration) -> Vec<Notice> {
        let mut out = Vec::new();
        let primed = std::mem::replace(&mut self.primed, true);
        let hooked = self.hooked;
        let live: std::collections::HashSet<&str> = seen.iter().map(|s| s.key.as_str()).collect();
        // gone: forgotten, unless the deck still holds a request of it
        self.sessions
            .retain(|k, t| live.contains(k.as_str()) || t.held > 0);
        // a wait's notice: now, or held back for the hook's request
        let tell = |t: &mut Track, s: &Sighting, what: &str, out: &mut Vec<Notice>| {
            if !worth_a_notice(what) {
                return;
            }
            t.told = true;
            t.answered = false;
            let n = waiting_notice(&s.project, what, &s.key);
            if hooked && for_permission(what) {
                t.due = Some((now.saturating_add(HOOK_GRACE.as_millis() as u64), n));
            } else {
                out.push(n);
            }
        };
        for s in seen {
            // a turn begins with work (a dialog on an idle session, as
            // 2.1.332's offer of auto mode, is none), and ends idle. A
            // wait for the person (a permission, a question) comes within
            // a turn: one whose work the deck never saw (the registry read
            // once the work had given way to the wait, or to idle: a
            // loaded machine's deck, a step of a tenth of a second) began
            // by then at the latest, and its end is still a notice
            let busy = s.seen == Seen::Working
                || matches!(&s.seen, Seen::Waiting(what) if worth_a_notice(what));
            let idle = s.seen == Seen::Idle;
            let Some(t) = self.sessions.get_mut(&s.key) else {
                let mut t = Track::new(s.seen.clone());
                t.busy_since = busy.then(|| s.since.unwrap_or(now));
                if let Seen::Waiting(what) = &s.seen {
                    if primed {
                        tell(&mut t, s, what, &mut out);
                    } else {
                        // already waiting when first seen: the deck's
                        // screen says so
                        t.told = true;
                    }
                }
                self.sessions.insert(s.key.clone(), t);
                continue;
            };
            if busy && t.busy_since.is_none() {
                t.busy_since = Some(s.since.unwrap_or(now).min(now));
            }
            match &s.seen {
                // the hook's request held: its notice is this wait's
                Seen::Waiting(_) if t.held > 0 => {}
                // the request the deck answered, its file not yet rewritten
                Seen::Waiting(what) if t.answered && for_permission(what) => {}
                Seen::Waiting(what) if !t.told || t.answered => tell(t, s, what, &mut out),
                Seen::Waiting(_) => {}
                // no longer waiting: the next wait is a new one
                _ => {
                    t.due = None;
                    if t.held == 0 {
                        t.told = false;
                        t.answered = false;
                    }
                }
            }
            if t.seen == s.seen {
                continue;
            }
            if idle {
                if let Some(from) = t.busy_since.take() {
                    let took = Duration::from_millis(now.saturating_sub(from));
                    if took >= turn {
                        out.push(Notice::new(
                            Trigger::Turn,
                            "Claude is done",
                            &format!(
                                "claude TUI in {}, after {} s",
                                project_name(std::path::Path::new(&s.project)),
                                took.as_secs()
                            ),
                            Some(&s.key),
                        ));
                    }
                }
            }
            t.seen = s.seen.clone();
        }
        out
    }
}

/// The notice for a session its registry says waits for the person.
fn waiting_notice(project: &str, what: &str, key: &str) -> Notice {
    let project = project_name(std::path::Path::new(project));
    let (kind, title) = if what.contains("permission") {
        (
            Trigger::Permission,
            "A claude TUI waits for your permission",
        )
    } else {
        (Trigger::Question, "A claude TUI waits for you")
    };
    Notice::new(
        kind,
        title,
        &format!("claude TUI in {project}: {what}"),
        Some(key),
    )
}

/// The notice for a permission request a claude TUI's hook handed the
/// deck (`input`: the hook's input).
pub fn request_notice(input: &serde_json::Value) -> Notice {
    let text = |k: &str| input.get(k).and_then(serde_json::Value::as_str);
    let cwd = std::path::PathBuf::from(text("cwd").unwrap_or("/"));
    let tool = text("tool_name").unwrap_or("a tool");
    let here = crate::cli::turn::summary::Here::new(&cwd);
    let what = crate::cli::turn::summary::tool_summary_at(
        tool,
        input.get("tool_input").unwrap_or(&serde_json::Value::Null),
        &here,
    );
    let project = project_name(&cwd);
    let body = if what.is_empty() {
        format!("claude TUI in {project}")
    } else {
        format!("claude TUI in {project}: {what}")
    };
    Notice::new(
        Trigger::Permission,
        &format!("{tool} waits for you"),
        &body,
        text("session_id"),
    )
}

/// `claudio notify test`: a notice through every way `config` sets; exit 1
/// when none is set or one failed.
pub fn test(config: Option<NotifyConfig>) -> anyhow::Result<crate::cli::common::exit::Exit> {
    use crate::cli::common::exit::Exit;
    let Some(config) = config.filter(|c| *c != NotifyConfig::default()) else {
        eprintln!(
            "claudio: no [notify] table in the config file: nothing to send (see `claudio config --help`)"
        );
        return Ok(Exit::Failure);
    };
    let notifier = Notifier::new(config);
    let notice = Notice::new(
        Trigger::Permission,
        "claudio: a test notice",
        "This is how claudio tells you a session needs you.",
        None,
    );
    let failed = notifier.send_now(&notice, &mut std::io::stdout());
    for f in &failed {
        eprintln!("claudio: notice not sent: {}", Sanitizer::clean(f));
    }
    let host = Host::here();
    if notifier.config.desktop == Some(true) && !host.macos && !host.notify_send {
        eprintln!("claudio: desktop = true, but there is no notify-send on PATH");
    }
    if notifier.config.ntfy.is_some() && !host.curl {
        eprintln!("claudio: ntfy is set, but there is no curl on PATH");
    }
    if let Some(t) = notifier.config.ntfy.as_deref() {
        if ntfy_url(t).is_none() {
            eprintln!(
                "claudio: ntfy = {:?} is neither a topic name nor an https:// URL",
                Sanitizer::clean(t)
            );
        }
    }
    Ok(if failed.is_empty() {
        eprintln!("claudio: test notice sent");
        Exit::Success
    } else {
        Exit::Failure
    })
}

fn run(cmd: Command, input: Vec<u8>) -> Result<(), Failed> {
    let done = child::run(
        cmd,
        child::Run::new(DEADLINE)
            .input(input)
            .max_output(MAX_OUTPUT),
    )?;
    match done.ended {
        child::Ended::Exited(s) if s.success() => Ok(()),
        child::Ended::Exited(s) => Err(Failed::Status(s)),
        child::Ended::Late => Err(Failed::Late),
        child::Ended::Full => Err(Failed::Flooded),
        _ => Ok(()),
    }
}

/// Why a notice's command failed.
#[derive(Debug, thiserror::Error)]
enum Failed {
    #[error(transparent)]
    Start(#[from] std::io::Error),
    #[error("ended with {0}")]
    Status(std::process::ExitStatus),
    #[error("took longer than {} s", DEADLINE.as_secs())]
    Late,
    #[error("wrote more than {MAX_OUTPUT} bytes of output; it was ended there")]
    Flooded,
}

/// What the terminal is sent: the bell, and the OSC notice (wrapped for
/// tmux's passthrough when inside tmux).
pub fn terminal_bytes(notice: &Notice, config: &NotifyConfig, tmux: bool) -> String {
    let mut out = String::new();
    let osc = match config.osc.unwrap_or(Osc::Off) {
        Osc::Off => None,
        // the text is inert: no BEL or ESC ends the sequence early
        Osc::Nine => Some(format!("\x1b]9;{}: {}\x07", notice.title, notice.body)),
        // `;` separates the fields
        Osc::SevenSevenSeven => Some(format!(
            "\x1b]777;notify;{};{}\x07",
            notice.title.replace(';', ","),
            notice.body.replace(';', ",")
        )),
    };
    if let Some(seq) = osc {
        if tmux {
            // DCS tmux; <the sequence, each ESC doubled> ST (tmux's
            // `allow-passthrough on` lets it out)
            out.push_str("\x1bPtmux;");
            out.push_str(&seq.replace('\x1b', "\x1b\x1b"));
            out.push_str("\x1b\\");
        } else {
            out.push_str(&seq);
        }
    }
    if config.bell.unwrap_or(true) {
        out.push('\x07');
    }
    out
}

/// What the machine offers for desktop notices.
#[derive(Debug, Clone, Default)]
pub struct Host {
    macos: bool,
    notify_send: bool,
    curl: bool,
}

impl Host {
    fn here() -> Host {
        Host {
            macos: cfg!(target_os = "macos"),
            notify_send: on_path("notify-send"),
            curl: on_path("curl"),
        }
    }
}

/// Whether `name` is a program on `PATH`.
pub(crate) fn on_path(name: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|p| {
        std::env::split_paths(&p).any(|d| {
            std::fs::metadata(d.join(name)).is_ok_and(|m| {
                use std::os::unix::fs::PermissionsExt;
                m.is_file() && m.permissions().mode() & 0o111 != 0
            })
        })
    })
}

/// The ntfy URL for a topic or URL; `None` for one that is neither.
pub fn ntfy_url(topic: &str) -> Option<String> {
    let topic = topic.trim();
    if let Some(rest) = topic.strip_prefix("https://") {
        let ok = !rest.is_empty()
            && rest
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-._~/:".contains(c));
        return ok.then(|| topic.to_owned());
    }
    let name = topic.strip_prefix("ntfy.sh/").unwrap_or(topic);
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    ok.then(|| format!("https://ntfy.sh/{name}"))
}

/// The commands that send `notice` the ways `config` sets, with what each
/// is given on stdin. No shell, but the person's own command: every text
/// goes as an argument.
pub fn commands(notice: &Notice, config: &NotifyConfig, host: &Host) -> Vec<(Command, Vec<u8>)> {
    let mut out = Vec::new();
    if config.desktop.unwrap_or(false) {
        if host.macos {
            let mut c = Command::new("osascript");
            c.args([
                "-e",
                "on run argv",
                "-e",
                "display notification (item 2 of argv) with title (item 1 of argv)",
                "-e",
                "end run",
                &notice.title,
                &notice.body,
            ]);
            out.push((c, Vec::new()));
        } else if host.notify_send {
            let mut c = Command::new("notify-send");
            c.args(["--app-name=claudio", "--", &notice.title, &notice.body]);
            out.push((c, Vec::new()));
        }
    }
    if let (Some(topic), true) = (&config.ntfy, host.curl) {
        if let Some(url) = ntfy_url(topic) {
            let mut c = Command::new("curl");
            // the body on stdin; the title is inert (no CR or LF to add a
            // header with)
            c.args(["-fsS", "-m", "5", "-H"])
                .arg(format!("Title: {}", notice.title))
                .args(["--data-binary", "@-", "--"])
                .arg(url);
            out.push((c, notice.body.clone().into_bytes()));
        }
    }
    if let Some(command) = config.command.as_deref().filter(|c| !c.trim().is_empty()) {
        let mut c = Command::new("/bin/sh");
        c.args(["-c", command]);
        let mut line = serde_json::to_vec(notice).expect("a notice is plain data");
        line.push(b'\n');
        out.push((c, line));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn notice() -> Notice {
        Notice::new(
            Trigger::Permission,
            "claudio: Bash\x1b]0;x\x07",
            "rm -rf build;\nls\x1b[2J",
            Some("s1"),
        )
    }

    fn args(c: &Command) -> Vec<String> {
        c.get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn the_project_is_the_folder_s_last_part() {
        use std::path::Path;
        assert_eq!(project_name(Path::new("/home/me/shop")), "shop");
        assert_eq!(project_name(Path::new("/home/me/shop/")), "shop");
        assert_eq!(project_name(Path::new("/")), "");
    }

    #[test]
    fn a_notice_s_text_is_inert_and_on_one_line() {
        let n = notice();
        assert_eq!(n.title, "claudio: Bash");
        assert_eq!(n.body, "rm -rf build; ls");
        let long = Notice::new(Trigger::Turn, &"x".repeat(500), "", None);
        assert_eq!(long.title.chars().count(), MAX_TITLE);
        assert!(long.title.ends_with('…'));
    }

    #[test]
    fn the_terminal_gets_the_bell_and_the_osc_wrapped_for_tmux() {
        let mut c = NotifyConfig::default();
        assert_eq!(terminal_bytes(&notice(), &c, false), "\x07");
        c.bell = Some(false);
        c.osc = Some(Osc::Nine);
        assert_eq!(
            terminal_bytes(&notice(), &c, false),
            "\x1b]9;claudio: Bash: rm -rf build; ls\x07"
        );
        c.osc = Some(Osc::SevenSevenSeven);
        assert_eq!(
            terminal_bytes(&notice(), &c, false),
            "\x1b]777;notify;claudio: Bash;rm -rf build, ls\x07"
        );
        // tmux: DCS passthrough, every ESC inside doubled, ended by ST
        assert_eq!(
            terminal_bytes(&notice(), &c, true),
            "\x1bPtmux;\x1b\x1b]777;notify;claudio: Bash;rm -rf build, ls\x07\x1b\\"
        );
    }

    #[test]
    fn no_text_can_end_the_sequence_early_or_add_a_header() {
        // whatever the model names its tool, the sequence holds no ESC or
        // BEL but its own, and the title no line break
        for hostile in [
            "a\x07b",
            "a\x1b\\b",
            "a\u{9c}b",
            "a\r\nX-Evil: 1",
            "a\u{202e}b",
        ] {
            let n = Notice::new(Trigger::Question, hostile, hostile, None);
            let c = NotifyConfig {
                osc: Some(Osc::Nine),
                bell: Some(false),
                ..NotifyConfig::default()
            };
            let bytes = terminal_bytes(&n, &c, false);
            assert_eq!(bytes.matches('\x1b').count(), 1, "{bytes:?}");
            assert_eq!(bytes.matches('\x07').count(), 1, "{bytes:?}");
            assert!(!n.title.contains(['\r', '\n', '\u{202e}']), "{:?}", n.title);
        }
    }

    #[test]
    fn each_way_is_a_command_with_the_text_as_arguments() {
        let c = NotifyConfig {
            desktop: Some(true),
            ntfy: Some("my-topic".into()),
            command: Some("cat >> ~/notices".into()),
            ..NotifyConfig::default()
        };
        let host = Host {
            macos: false,
            notify_send: true,
            curl: true,
        };
        let cmds = commands(&notice(), &c, &host);
        assert_eq!(cmds.len(), 3);
        assert_eq!(cmds[0].0.get_program(), "notify-send");
        assert_eq!(
            args(&cmds[0].0),
            [
                "--app-name=claudio",
                "--",
                "claudio: Bash",
                "rm -rf build; ls"
            ]
        );
        assert_eq!(cmds[1].0.get_program(), "curl");
        assert_eq!(args(&cmds[1].0).last().unwrap(), "https://ntfy.sh/my-topic");
        assert!(args(&cmds[1].0).contains(&"Title: claudio: Bash".to_owned()));
        assert_eq!(cmds[1].1, b"rm -rf build; ls");
        assert_eq!(args(&cmds[2].0), ["-c", "cat >> ~/notices"]);
        let sent: serde_json::Value = serde_json::from_slice(&cmds[2].1).unwrap();
        assert_eq!(sent["kind"], "permission");
        assert_eq!(sent["session"], "s1");
        // nothing set, nothing run; no desktop tool, no desktop command
        assert!(commands(&notice(), &NotifyConfig::default(), &host).is_empty());
        let bare = Host::default();
        assert!(
            commands(&notice(), &c, &bare).len() == 1,
            "only the person's own"
        );
    }

    #[test]
    fn an_ntfy_topic_is_a_name_or_an_https_url() {
        assert_eq!(
            ntfy_url("abc_1-2").as_deref(),
            Some("https://ntfy.sh/abc_1-2")
        );
        assert_eq!(
            ntfy_url("ntfy.sh/abc").as_deref(),
            Some("https://ntfy.sh/abc")
        );
        assert_eq!(
            ntfy_url("https://ntfy.example.com/t").as_deref(),
            Some("https://ntfy.example.com/t")
        );
        for bad in [
            "",
            "a b",
            "-o /etc/x",
            "http://plain/t",
            "a/../b",
            "https://x/\ny",
        ] {
            assert_eq!(ntfy_url(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn one_notice_until_the_person_answers_and_turns_only_when_long() {
        let c = NotifyConfig {
            bell: Some(true),
            turn_seconds: Some(30),
            ..NotifyConfig::default()
        };
        let mut n = Notifier {
            config: c,
            tmux: false,
            waiting: false,
            running: Default::default(),
        };
        let mut out = Vec::new();
        n.needs_you(&notice(), &mut out);
        // a second request (another sub-agent) while the first waits
        n.needs_you(&notice(), &mut out);
        assert_eq!(out, b"\x07");
        n.answered();
        n.needs_you(&notice(), &mut out);
        assert_eq!(out, b"\x07\x07");
        let t = Notice::new(Trigger::Turn, "done", "", None);
        n.turn_ended(Duration::from_secs(29), &t, &mut out);
        assert_eq!(out, b"\x07\x07");
        n.turn_ended(Duration::from_secs(30), &t, &mut out);
        assert_eq!(out, b"\x07\x07\x07");
    }

    #[test]
    fn only_the_triggers_chosen_make_notices_and_none_without_a_table() {
        let mut out = Vec::new();
        let mut off = Notifier {
            config: NotifyConfig::default(),
            tmux: false,
            waiting: false,
            running: Default::default(),
        };
        off.needs_you(&notice(), &mut out);
        assert!(out.is_empty(), "no [notify] table: no notice");
        let mut n = Notifier {
            config: NotifyConfig {
                on: Some(vec![Trigger::Question]),
                ..NotifyConfig::default()
            },
            tmux: false,
            waiting: false,
            running: Default::default(),
        };
        n.needs_you(&notice(), &mut out);
        assert!(out.is_empty(), "permission is not chosen");
        let q = Notice::new(Trigger::Question, "a question", "", None);
        n.needs_you(&q, &mut out);
        assert_eq!(out, b"\x07");
    }

    /// A flood of one notice (requests answered and asked again and again)
    /// while a notice's command hangs: one runs at a time, and the same
    /// notice waits once (the bell still rings for each), never one thread
    /// and one process each.
    #[test]
    fn a_flood_of_notices_runs_one_command_at_a_time() {
        let d = tempfile::tempdir().unwrap();
        let log = d.path().join("log");
        let n = Notifier::new(NotifyConfig {
            bell: Some(true),
            command: Some(format!("echo $$ >> '{}'; exec sleep 30", log.display())),
            ..NotifyConfig::default()
        });
        let mut out = Vec::new();
        for _ in 0..20 {
            n.send(&notice(), &mut out);
        }
        assert_eq!(out, [b'\x07'; 20], "every notice rings");
        let until = std::time::Instant::now() + Duration::from_secs(30);
        let first: i32 = loop {
            let text = std::fs::read_to_string(&log).unwrap_or_default();
            if let Some(pid) = text.lines().next().and_then(|l| l.trim().parse().ok()) {
                break pid;
            }
            assert!(std::time::Instant::now() < until, "no command ran");
            std::thread::sleep(Duration::from_millis(20));
        };
        let gone = |pid: i32| {
            while std::path::Path::new(&format!("/proc/{pid}")).exists() {
                assert!(
                    std::time::Instant::now() < until,
                    "the command outlived its deadline"
                );
                std::thread::sleep(Duration::from_millis(50));
            }
        };
        // the first one ends at its deadline; then the one waiting runs
        gone(first);
        let until = std::time::Instant::now() + Duration::from_secs(30);
        let second: i32 = loop {
            let text = std::fs::read_to_string(&log).unwrap_or_default();
            if let Some(pid) = text.lines().nth(1).and_then(|l| l.trim().parse().ok()) {
                break pid;
            }
            assert!(
                std::time::Instant::now() < until,
                "the waiting notice never ran"
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        gone(second);
        let ran = std::fs::read_to_string(&log).unwrap().lines().count();
        assert_eq!(ran, 2, "the same notice waited once");
    }

    /// Notices of many sessions at once (the deck): each one's commands
    /// run, one at a time, in order; none is dropped for a later one.
    #[test]
    fn notices_of_many_sessions_each_run_in_order() {
        let d = tempfile::tempdir().unwrap();
        let log = d.path().join("log");
        let n = Notifier::new(NotifyConfig {
            command: Some(format!(
                "cat >> '{}'; echo >> '{0}'; sleep 0.2",
                log.display()
            )),
            ..NotifyConfig::default()
        });
        let mut out = Vec::new();
        let bodies: Vec<String> = (0..5).map(|i| format!("session {i} waits")).collect();
        for b in &bodies {
            n.send(
                &Notice::new(Trigger::Permission, "Bash waits for you", b, None),
                &mut out,
            );
        }
        let until = std::time::Instant::now() + Duration::from_secs(30);
        loop {
            let text = std::fs::read_to_string(&log).unwrap_or_default();
            if bodies.iter().all(|b| text.contains(b.as_str())) {
                let at: Vec<usize> = bodies
                    .iter()
                    .map(|b| text.find(b.as_str()).unwrap())
                    .collect();
                assert!(at.windows(2).all(|w| w[0] < w[1]), "in order: {text}");
                break;
            }
            assert!(
                std::time::Instant::now() < until,
                "a notice was dropped: {text}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// A notice command that floods its output is ended there, and
    /// `notify test` says so rather than "sent".
    #[test]
    fn a_command_that_floods_its_output_is_a_failure() {
        let mut c = Command::new("/bin/sh");
        c.args(["-c", "yes"]);
        let e = run(c, Vec::new()).unwrap_err();
        assert!(matches!(e, Failed::Flooded), "{e}");
        assert!(e.to_string().contains("more than 4096 bytes"), "{e}");
        let mut ok = Command::new("/bin/sh");
        ok.args(["-c", "echo fine"]);
        assert!(run(ok, Vec::new()).is_ok());
    }

    fn sighting(key: &str, seen: Seen, since: u64) -> Sighting {
        Sighting {
            key: key.into(),
            project: format!("/home/me/{key}"),
            seen,
            since: Some(since),
        }
    }

    fn kinds(n: &[Notice]) -> Vec<Trigger> {
        n.iter().map(|n| n.kind).collect()
    }

    #[test]
    fn a_dialog_the_tui_opens_is_no_notice_and_a_question_after_it_is() {
        let turn = Duration::from_secs(30);
        let mut w = Watched::default();
        w.sessions(1_000, &[], turn);
        // a TUI starting: its offer of auto mode, then idle
        let got = w.sessions(
            2_000,
            &[sighting("s", Seen::Waiting("dialog open".into()), 2_000)],
            turn,
        );
        assert!(got.is_empty(), "{got:?}");
        assert!(w
            .sessions(3_000, &[sighting("s", Seen::Idle, 3_000)], turn)
            .is_empty());
        // a dialog opened on a session already seen: none either
        assert!(w
            .sessions(
                4_000,
                &[sighting("s", Seen::Waiting("dialog open".into()), 4_000)],
                turn
            )
            .is_empty());
        // a question after it: one notice
        let got = w.sessions(
            5_000,
            &[sighting("s", Seen::Waiting("input needed".into()), 5_000)],
            turn,
        );
        assert_eq!(kinds(&got), [Trigger::Question]);
    }

    /// A claude TUI's permission request held by the deck is one notice:
    /// its own dialog beside the hook's (the registry saying it waits), and
    /// its sub-agents' requests meanwhile, make none; once answered and
    /// working again, the next request makes one.
    #[test]
    fn a_watched_session_s_request_is_one_notice_whatever_follows_it() {
        let turn = Duration::from_secs(60);
        let mut w = Watched::default();
        let bash = serde_json::json!({"session_id": "s1", "cwd": "/home/me/app",
            "tool_name": "Bash", "tool_input": {"command": "cargo test\u{1b}[2J"}});
        assert!(w
            .sessions(1_000, &[sighting("s1", Seen::Working, 900)], turn)
            .is_empty());
        let n = w.request(Some("s1"), request_notice(&bash)).unwrap();
        assert_eq!(n.kind, Trigger::Permission);
        assert_eq!(n.title, "Bash waits for you");
        assert_eq!(n.body, "claude TUI in app: cargo test");
        assert_eq!(n.session.as_deref(), Some("s1"));
        // a sub-agent asks too, and the TUI shows its own dialog
        assert!(w.request(Some("s1"), request_notice(&bash)).is_none());
        let waiting = Seen::Waiting("permission prompt".into());
        assert!(w
            .sessions(2_000, &[sighting("s1", waiting.clone(), 1_900)], turn)
            .is_empty());
        w.request_gone(Some("s1"));
        w.request_gone(Some("s1"));
        assert!(w
            .sessions(3_000, &[sighting("s1", Seen::Working, 2_900)], turn)
            .is_empty());
        assert!(w.request(Some("s1"), request_notice(&bash)).is_some());
        // another session's request is its own event
        assert!(w.request(Some("s2"), request_notice(&bash)).is_some());
    }

    fn perm() -> Seen {
        Seen::Waiting("permission prompt".into())
    }

    fn bash_notice(session: &str) -> Notice {
        request_notice(
            &serde_json::json!({"session_id": session, "cwd": "/home/me/app",
            "tool_name": "Bash", "tool_input": {"command": "touch made"}}),
        )
    }

    /// The race seen under load: the deck answers the hook's request
    /// before it reads the registry saying the session waits (the CLI
    /// rewrites its file after the fact). That wait is the request's: no
    /// second notice, however many reads still say so; once the file says
    /// it works again, the next wait is a notice again.
    #[test]
    fn a_registry_wait_read_after_the_deck_answered_is_the_same_wait() {
        let turn = Duration::from_secs(600);
        for hooked in [false, true] {
            let mut w = Watched::new(hooked);
            w.sessions(1_000, &[sighting("s1", Seen::Working, 900)], turn);
            assert!(w.request(Some("s1"), bash_notice("s1")).is_some());
            w.request_gone(Some("s1"));
            for now in [2_000, 3_000, 9_000] {
                assert!(
                    w.sessions(now, &[sighting("s1", perm(), 1_950)], turn)
                        .is_empty(),
                    "hooked {hooked}: the answered wait, read late"
                );
                assert!(w.due(now).is_empty());
            }
            w.sessions(10_000, &[sighting("s1", Seen::Working, 9_950)], turn);
            // a new wait the registry says, no hook request for it
            let got = w.sessions(11_000, &[sighting("s1", perm(), 10_950)], turn);
            let got = [got, w.due(11_000 + HOOK_GRACE.as_millis() as u64)].concat();
            assert_eq!(kinds(&got), [Trigger::Permission], "hooked {hooked}");
        }
    }

    /// The hook's request first, the registry saying the session waits
    /// after it (seen either way round on the real TUI): one notice, the
    /// hook's.
    #[test]
    fn a_hook_request_then_its_registry_wait_is_one_notice() {
        let turn = Duration::from_secs(600);
        let mut w = Watched::new(true);
        w.sessions(1_000, &[sighting("s1", Seen::Working, 900)], turn);
        let n = w.request(Some("s1"), bash_notice("s1")).unwrap();
        assert_eq!(n.title, "Bash waits for you");
        assert!(w
            .sessions(1_100, &[sighting("s1", perm(), 1_050)], turn)
            .is_empty());
        assert!(w.due(60_000).is_empty());
        w.request_gone(Some("s1"));
        assert!(w
            .sessions(2_000, &[sighting("s1", perm(), 1_050)], turn)
            .is_empty());
        assert!(w.due(60_000).is_empty());
    }

    /// The registry saying the session waits for a permission before the
    /// hook's request reaches the deck: the registry's notice is held back
    /// for the request, whose notice (naming the tool and its command)
    /// goes instead: one notice. Without the hook it goes at once, and a
    /// request after it makes none.
    #[test]
    fn a_registry_wait_then_its_hook_request_is_one_notice() {
        let turn = Duration::from_secs(600);
        let mut w = Watched::new(true);
        w.sessions(1_000, &[sighting("s1", Seen::Working, 900)], turn);
        assert!(w
            .sessions(1_100, &[sighting("s1", perm(), 1_050)], turn)
            .is_empty());
        assert!(w.due(1_200).is_empty());
        let n = w.request(Some("s1"), bash_notice("s1")).unwrap();
        assert_eq!(n.title, "Bash waits for you");
        assert!(w.due(1_100 + HOOK_GRACE.as_millis() as u64).is_empty());
        assert!(w
            .sessions(1_300, &[sighting("s1", perm(), 1_050)], turn)
            .is_empty());
        w.request_gone(Some("s1"));
        assert!(w
            .sessions(1_400, &[sighting("s1", perm(), 1_050)], turn)
            .is_empty());
        // without the hook (or no deck to take its requests, for `deck
        // --watch`): the registry's notice at once, and that is all
        let mut w = Watched::new(true);
        w.set_hooked(false);
        w.sessions(1_000, &[sighting("s1", Seen::Working, 900)], turn);
        let got = w.sessions(1_100, &[sighting("s1", perm(), 1_050)], turn);
        assert_eq!(kinds(&got), [Trigger::Permission]);
        assert!(w.request(Some("s1"), bash_notice("s1")).is_none());
    }

    /// A permission wait the registry says and no hook request follows
    /// (the deck not running when the hook ran, its dialog shown at once):
    /// the held-back notice goes once the grace is over, once; a request
    /// late after it is the same wait. A wait that ended within the grace
    /// (a request the deck allowed again by itself) makes none.
    #[test]
    fn a_registry_permission_wait_with_no_hook_request_is_one_late_notice() {
        let turn = Duration::from_secs(600);
        let grace = HOOK_GRACE.as_millis() as u64;
        let mut w = Watched::new(true);
        w.sessions(1_000, &[sighting("s1", Seen::Working, 900)], turn);
        w.sessions(2_000, &[sighting("s1", perm(), 1_950)], turn);
        assert!(w.due(2_000 + grace - 1).is_empty());
        let got = w.due(2_000 + grace);
        assert_eq!(kinds(&got), [Trigger::Permission]);
        assert_eq!(got[0].title, "A claude TUI waits for your permission");
        assert!(w.due(2_000 + grace * 10).is_empty(), "once");
        assert!(w.request(Some("s1"), bash_notice("s1")).is_none());
        // a flash of waiting, over before the grace
        let mut w = Watched::new(true);
        w.sessions(1_000, &[sighting("s1", Seen::Working, 900)], turn);
        w.sessions(2_000, &[sighting("s1", perm(), 1_950)], turn);
        w.sessions(2_050, &[sighting("s1", Seen::Working, 2_040)], turn);
        assert!(w.due(2_000 + grace * 10).is_empty());
        // a question is no hook's: at once
        let got = w.sessions(
            9_000,
            &[sighting("s1", Seen::Waiting("input needed".into()), 8_990)],
            turn,
        );
        assert_eq!(kinds(&got), [Trigger::Question]);
    }

    /// After the deck answered, its registry still saying it waits, a new
    /// wait before the deck read the file say it worked in between: a new
    /// hook request is a new wait (one notice), and so is a question.
    #[test]
    fn a_new_wait_after_an_answered_one_is_a_notice_again() {
        let turn = Duration::from_secs(600);
        let mut w = Watched::new(true);
        w.sessions(1_000, &[sighting("s1", Seen::Working, 900)], turn);
        assert!(w.request(Some("s1"), bash_notice("s1")).is_some());
        w.sessions(1_100, &[sighting("s1", perm(), 1_050)], turn);
        w.request_gone(Some("s1"));
        // the next call asks at once: the file says waiting all along
        w.sessions(1_200, &[sighting("s1", perm(), 1_150)], turn);
        assert!(w.request(Some("s1"), bash_notice("s1")).is_some());
        assert!(w
            .sessions(1_300, &[sighting("s1", perm(), 1_250)], turn)
            .is_empty());
        // its sub-agent asks meanwhile: the same wait
        assert!(w.request(Some("s1"), bash_notice("s1")).is_none());
        w.request_gone(Some("s1"));
        w.request_gone(Some("s1"));
        assert!(w.due(60_000).is_empty());
        // handed back, the TUI asks in its own dialog: the same wait; then
        // a question (no hook's request) is a new one
        let got = w.sessions(
            2_000,
            &[sighting("s1", Seen::Waiting("input needed".into()), 1_990)],
            turn,
        );
        assert_eq!(kinds(&got), [Trigger::Question]);
        assert!(w
            .sessions(
                2_100,
                &[sighting("s1", Seen::Waiting("input needed".into()), 1_990)],
                turn
            )
            .is_empty());
    }

    /// The registry saying a session waits (a question, a dialog the deck
    /// does not hold) is one notice until it stops waiting; what was
    /// already so when the deck started makes none.
    #[test]
    fn a_watched_session_waiting_is_one_notice_per_wait() {
        let turn = Duration::from_secs(60);
        let mut w = Watched::default();
        let q = Seen::Waiting("question".into());
        assert!(w
            .sessions(1_000, &[sighting("old", q.clone(), 0)], turn)
            .is_empty());
        let got = w.sessions(
            2_000,
            &[
                sighting("old", q.clone(), 0),
                sighting("new", q.clone(), 1_900),
            ],
            turn,
        );
        assert_eq!(kinds(&got), [Trigger::Question]);
        assert_eq!(got[0].body, "claude TUI in new: question");
        assert!(w
            .sessions(3_000, &[sighting("new", q.clone(), 1_900)], turn)
            .is_empty());
        w.sessions(4_000, &[sighting("new", Seen::Working, 3_900)], turn);
        let got = w.sessions(
            5_000,
            &[sighting(
                "new",
                Seen::Waiting("permission prompt".into()),
                4_900,
            )],
            turn,
        );
        assert_eq!(kinds(&got), [Trigger::Permission]);
    }

    /// A turn's end is a notice when it took long enough, counted from
    /// when it began (the registry's stamp), once.
    #[test]
    fn a_watched_turn_ending_after_long_enough_is_one_notice() {
        let turn = Duration::from_secs(60);
        let mut w = Watched::default();
        w.sessions(0, &[sighting("s", Seen::Idle, 0)], turn);
        w.sessions(10_000, &[sighting("s", Seen::Working, 10_000)], turn);
        w.sessions(
            20_000,
            &[sighting(
                "s",
                Seen::Waiting("permission prompt".into()),
                20_000,
            )],
            turn,
        );
        w.sessions(30_000, &[sighting("s", Seen::Working, 30_000)], turn);
        let got = w.sessions(75_000, &[sighting("s", Seen::Idle, 75_000)], turn);
        assert_eq!(kinds(&got), [Trigger::Turn]);
        assert_eq!(got[0].body, "claude TUI in s, after 65 s");
        assert!(w
            .sessions(90_000, &[sighting("s", Seen::Idle, 75_000)], turn)
            .is_empty());
        // a dialog on an idle session (2.1.332 offering auto mode) is no
        // turn, however long it waits
        w.sessions(
            80_000,
            &[sighting("s", Seen::Waiting("dialog open".into()), 80_000)],
            turn,
        );
        let got = w.sessions(99_000, &[sighting("s", Seen::Idle, 99_000)], turn);
        assert!(!kinds(&got).contains(&Trigger::Turn), "{got:?}");
        // a short turn: none
        w.sessions(100_000, &[sighting("s", Seen::Working, 100_000)], turn);
        assert!(w
            .sessions(110_000, &[sighting("s", Seen::Idle, 110_000)], turn)
            .is_empty());
    }

    /// A turn whose work the deck never saw (its registry read before the
    /// TUI went busy, then once it waited for a permission or a question,
    /// then idle: a deck on a loaded machine, steps of a tenth of a second
    /// each) still ends in one notice; a dialog on an idle session does
    /// not.
    #[test]
    fn a_turn_seen_only_waiting_still_ends_in_a_notice() {
        let turn = Duration::ZERO;
        for what in ["permission prompt", "input needed"] {
            let mut w = Watched::default();
            w.sessions(0, &[sighting("s", Seen::Idle, 0)], turn);
            w.sessions(
                1_000,
                &[sighting("s", Seen::Waiting(what.into()), 1_000)],
                turn,
            );
            let got = w.sessions(1_300, &[sighting("s", Seen::Idle, 1_300)], turn);
            assert_eq!(kinds(&got), [Trigger::Turn], "{what}");
            assert!(w
                .sessions(2_000, &[sighting("s", Seen::Idle, 1_300)], turn)
                .is_empty());
        }
        let mut w = Watched::default();
        w.sessions(0, &[sighting("s", Seen::Idle, 0)], turn);
        w.sessions(
            1_000,
            &[sighting("s", Seen::Waiting("dialog open".into()), 1_000)],
            turn,
        );
        let got = w.sessions(1_300, &[sighting("s", Seen::Idle, 1_300)], turn);
        assert!(!kinds(&got).contains(&Trigger::Turn), "{got:?}");
    }

    #[test]
    fn the_config_table_parses_and_refuses_a_bad_value() {
        let c: NotifyConfig = toml::from_str(
            "on = [\"permission\", \"turn\"]\nturn-seconds = 90\nosc = \"777\"\nntfy = \"t\"\n",
        )
        .unwrap();
        assert_eq!(c.on, Some(vec![Trigger::Permission, Trigger::Turn]));
        assert_eq!(c.osc, Some(Osc::SevenSevenSeven));
        assert!(toml::from_str::<NotifyConfig>("osc = \"10\"").is_err());
    }
}
