//! The full-screen deck, pure: its state in, the screen's rows out, and
//! keys in, answers out. No terminal, no socket, no clock (the time is
//! handed in), so whole screens are tested as text.
//!
//! Rows are sorted NEEDS YOU (a request held here first, then sessions
//! that wait on something only their terminal can answer), WORKING, DONE.
//! The selected request is shown below the rows as the chat shows a tool
//! approval (the whole command, the diff folded; Enter with nothing typed
//! shows all of it), and answered with the chat's grammar: `y` once, `a`
//! this session, `p` this project, `u` every project (`p` and `u` only
//! when the CLI suggested a rule), `n` or a typed reason denies, each
//! ended with Enter; `t` hands it back to its terminal. Up and Down pick a
//! request; `q` or Ctrl-C quits, handing every held request back.
//!
//! Every text from a session (its folder, name, pane, the request) is
//! untrusted: escapes are shown as text, and each row is cut to the
//! screen's width.

use crate::cli::requests::tool::{Decision, Offer, Shown};
use crate::cli::sanitize::Sanitizer;
use crate::cli::term::style::Style;
use crate::cli::term::wrap::fit_row;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// What kind of program a session is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    ClaudioChat,
    ClaudioAsk,
    Tui,
    Print,
    Background,
    Other,
}

impl Kind {
    /// From a registry file's `kind` and `entrypoint`.
    pub fn of(kind: Option<&str>, entrypoint: Option<&str>) -> Kind {
        match (kind.unwrap_or(""), entrypoint.unwrap_or("")) {
            (_, "sdk-rust") => Kind::ClaudioChat,
            ("interactive", _) => Kind::Tui,
            (k, _) if k == "bg" || k == "background" || k.starts_with("agent") => Kind::Background,
            (_, e) if e == "print" || e.starts_with("sdk") => Kind::Print,
            ("print" | "headless" | "non-interactive", _) => Kind::Print,
            _ => Kind::Other,
        }
    }

    /// From a registry file's `kind` and `entrypoint`, and for a CLI a
    /// claudio program started (`sdk-rust`), which one, as it said in
    /// the CLI's environment ([`PROGRAM_ENV`](crate::cli::requests::publish::PROGRAM_ENV), read from
    /// `/proc/<pid>/environ`; a claudio chat when it cannot be read).
    pub fn of_process(kind: Option<&str>, entrypoint: Option<&str>, pid: u32) -> Kind {
        match Kind::of(kind, entrypoint) {
            Kind::ClaudioChat => {
                program_in_environ(&read_environ(pid)).unwrap_or(Kind::ClaudioChat)
            }
            k => k,
        }
    }

    /// From a request a claudio chat or `ask` published
    /// ([`crate::cli::requests::publish`]): its `claudio.program`.
    pub fn of_program(program: &str) -> Option<Kind> {
        match program {
            "claudio chat" => Some(Kind::ClaudioChat),
            "claudio ask" => Some(Kind::ClaudioAsk),
            _ => None,
        }
    }

    pub fn words(self) -> &'static str {
        match self {
            Kind::ClaudioChat => "claudio chat",
            Kind::ClaudioAsk => "claudio ask",
            Kind::Tui => "claude TUI",
            Kind::Print => "claude -p",
            Kind::Background => "background agent",
            Kind::Other => "claude",
        }
    }
}

/// The most bytes of a process's environment read.
const ENVIRON_MAX: u64 = 1 << 20;

/// The environment `pid` started with (empty when it cannot be read: gone,
/// another user's).
fn read_environ(pid: u32) -> Vec<u8> {
    use std::io::Read;
    let mut out = Vec::new();
    if let Ok(f) = std::fs::File::open(format!("/proc/{pid}/environ")) {
        let _ = f.take(ENVIRON_MAX).read_to_end(&mut out);
    }
    out
}

/// The program [`PROGRAM_ENV`](crate::cli::requests::publish::PROGRAM_ENV) names in an environment (NUL-separated
/// `KEY=value` entries), when it names one.
fn program_in_environ(environ: &[u8]) -> Option<Kind> {
    let key = format!("{}=", crate::cli::requests::publish::PROGRAM_ENV);
    environ
        .split(|b| *b == 0)
        .find_map(|e| e.strip_prefix(key.as_bytes()))
        .and_then(|v| std::str::from_utf8(v).ok())
        .and_then(Kind::of_program)
}

/// Where a session is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Phase {
    NeedsYou,
    Working,
    Done,
}

/// One running session, as the registry and its transcript say.
#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    pub pid: u32,
    pub session_id: Option<String>,
    /// Its folder (untrusted text).
    pub project: String,
    pub kind: Kind,
    pub phase: Phase,
    /// What it waits for, when it waits (`permission prompt`).
    pub waiting_for: Option<String>,
    /// Its tmux pane (untrusted text).
    pub tmux: Option<String>,
    /// Its cost so far, in USD, when known.
    pub cost: Option<f64>,
    /// When its state last changed, ms since the epoch.
    pub since: Option<u64>,
    /// The API error its last turn ended with, when it ended so (untrusted
    /// text).
    pub error: Option<String>,
}

/// A question or a plan of a claudio chat or `ask`, asked here through
/// the model its kind registers ([`crate::cli::requests::registered`]),
/// a typed line at a time, as `ask` asks it on its terminal.
#[derive(Debug)]
pub struct Asks {
    /// The kind's model.
    pub model: Box<dyn crate::cli::requests::Kind>,
    /// What it shows now: its prompt for the next line (the model's own
    /// last line, its hint, is the deck's keys line).
    pub text: String,
    /// Where it is drawn.
    pub at: crate::cli::requests::Screen,
    /// A plan: Esc rejects it and stops the turn, as in the chat.
    pub plan: bool,
}

impl Asks {
    /// Ask `model`: its first prompt, drawn `at`.
    pub fn new(
        mut model: Box<dyn crate::cli::requests::Kind>,
        at: crate::cli::requests::Screen,
    ) -> Asks {
        let text = model.prompt(&at);
        Asks {
            model,
            text,
            at,
            plan: false,
        }
    }

    /// Drawn again for another width.
    pub fn resize(&mut self, width: usize) {
        self.at.width = width;
        self.text = self.model.prompt(&self.at);
    }
}

/// The rows of a model's prompt, without its hint (its last line).
pub(super) fn asks_lines(text: &str) -> Vec<&str> {
    let shown = text.rsplit_once('\n').map_or("", |(rows, _)| rows);
    shown
        .lines()
        .skip_while(|l| crate::cli::term::wrap::strip_sgr(l).trim().is_empty())
        .collect()
}

/// A permission request held by the deck.
#[derive(Debug)]
pub struct Request {
    /// The answer goes to this request, by this token.
    pub token: String,
    pub session_id: Option<String>,
    pub project: String,
    pub kind: Kind,
    /// The approval as the chat shows it.
    pub shown: Shown,
    pub offer: Offer,
    /// A question or a plan answered here (`shown` and `offer` are then
    /// not used).
    pub asks: Option<Asks>,
    /// When it came in, ms since the epoch.
    pub at: u64,
}

/// What the person decided with a key.
#[derive(Debug, Clone, PartialEq)]
pub enum Act {
    /// Answer the request with this token.
    Answer(String, Decision),
    /// Answer the question or the plan with this token with what its
    /// model gave.
    Reply(String, claudio::PermissionResult),
    /// Hand it back to its terminal (its dialog shows there).
    HandBack(String),
    Quit,
}

/// The deck's whole state.
#[derive(Debug, Default)]
pub struct View {
    pub sessions: Vec<Session>,
    pub requests: Vec<Request>,
    /// The token of the selected request.
    pub selected: Option<String>,
    /// The answer being typed.
    pub typed: String,
    /// The selected request shown whole.
    pub whole: bool,
    /// The last thing that happened, said under the rows.
    pub note: Option<String>,
    /// Registry files passed over, in words.
    pub problems: Vec<String>,
    /// The screen's height, as last drawn: an allow is taken only for a
    /// request whose every row was on it.
    pub height: usize,
    /// The first row of the selected request shown, when it does not fit
    /// (PgDn and PgUp move it).
    pub scroll: usize,
    /// How many of its rows have been on the screen so far (0: only its
    /// first screenful).
    pub seen: usize,
}

/// The rows a request's body may take on a screen `height` rows tall.
fn body_room(height: usize) -> usize {
    height.saturating_sub(4 + 2 + 2).max(1)
}

/// The rows of a body of `len` rows shown at once in `room` rows: all,
/// or all but the one that says where the window is.
fn window(len: usize, room: usize) -> usize {
    if len > room {
        room.saturating_sub(1).max(1)
    } else {
        len
    }
}

/// A request's body as shown: the chat's approval without its own
/// choices line (the deck's replaces it).
pub(super) fn body_lines(body: &str) -> Vec<&str> {
    let mut rows: Vec<&str> = body.lines().collect();
    // its last rows from the one that opens with `└`, and only those: a
    // command that says "Allow?" is shown whole (cut at its first row
    // saying so, the rest of it was never on the screen, yet allowed)
    if let Some(i) = rows.iter().rposition(|l| {
        crate::cli::term::wrap::strip_sgr(l)
            .trim_start()
            .starts_with('└')
    }) {
        rows.truncate(i);
    }
    rows
}

/// `ms` as an age: `5s`, `3m`, `2h`, `4d`.
pub fn age(ms: u64) -> String {
    let s = ms / 1000;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m", s / 60),
        3600..86400 => format!("{}h", s / 3600),
        86400..8640000 => format!("{}d", s / 86400),
        _ => ">99d".to_owned(),
    }
}

fn cost(c: Option<f64>) -> String {
    // (a sum of nothing is -0.0)
    c.map_or_else(
        || "$—".to_owned(),
        |c| format!("${:.2}", (c + 0.0).max(0.0)),
    )
}

/// A project's name on its row: its folder's last part.
fn name(project: &str) -> String {
    let last = project
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or("");
    shown(if last.is_empty() { project } else { last })
}

/// The keys line and what is typed after it, on a pane `cols` wide: one
/// row when both fit, else the keys and then the typed text on a row of
/// its own, its end always in sight (a reason typed on the keys line of
/// an 80-column pane showed its first letter or two, no more).
fn keys_and_typed(keys: &str, typed: &str, cols: usize) -> Vec<String> {
    let typed = Sanitizer::visible(typed);
    let one = format!("{keys} › {typed}");
    if crate::cli::term::wrap::visible_width(&one) <= cols {
        return vec![one];
    }
    let room = cols.saturating_sub(5).max(1);
    let mut tail: Vec<char> = Vec::new();
    let mut used = 0;
    for c in typed.chars().rev() {
        let w = crate::cli::term::wrap::columns(c);
        if used + w > room {
            break;
        }
        used += w;
        tail.push(c);
    }
    let tail: String = tail.into_iter().rev().collect();
    let cut = if tail.len() < typed.len() { "…" } else { "" };
    vec![fit_row(keys, cols), format!("  › {cut}{tail}")]
}

/// Untrusted text on one row: escapes as text, newlines as `\n`.
fn shown(s: &str) -> String {
    Sanitizer::visible_line(s)
}

impl View {
    /// Add a request; the first one is selected.
    pub fn add(&mut self, r: Request) {
        if self.selected.is_none() {
            self.selected = Some(r.token.clone());
        }
        self.requests.push(r);
        self.requests.sort_by_key(|r| r.at);
    }

    /// Take a request away (answered, withdrawn); the selection moves to
    /// the next one, and what was typed for it is dropped.
    pub fn remove(&mut self, token: &str) -> Option<Request> {
        let i = self.requests.iter().position(|r| r.token == token)?;
        let r = self.requests.remove(i);
        if self.selected.as_deref() == Some(token) {
            self.typed.clear();
            self.whole = false;
            self.scroll = 0;
            self.seen = 0;
            self.selected = self
                .requests
                .get(i.min(self.requests.len().saturating_sub(1)))
                .map(|r| r.token.clone());
        }
        Some(r)
    }

    fn selected_request(&self) -> Option<&Request> {
        let t = self.selected.as_deref()?;
        self.requests.iter().find(|r| r.token == t)
    }

    fn move_selection(&mut self, by: isize) {
        let Some(i) = self
            .selected
            .as_deref()
            .and_then(|t| self.requests.iter().position(|r| r.token == t))
        else {
            return;
        };
        let j = (i as isize + by).clamp(0, self.requests.len() as isize - 1) as usize;
        if j != i {
            self.selected = Some(self.requests[j].token.clone());
            self.typed.clear();
            self.whole = false;
            self.scroll = 0;
            self.seen = 0;
        }
    }

    /// The selected request's body as shown now (folded, or whole).
    fn body(&self) -> Option<Vec<&str>> {
        let r = self.selected_request()?;
        if let Some(a) = &r.asks {
            return Some(asks_lines(&a.text));
        }
        let body = match (&r.shown.whole, self.whole) {
            (Some(w), true) => w,
            _ => &r.shown.folded,
        };
        // from its first row with something on it: on a short screen the
        // one row of it shown is never the blank above it
        Some(
            body_lines(body)
                .into_iter()
                .skip_while(|l| crate::cli::term::wrap::strip_sgr(l).trim().is_empty())
                .collect(),
        )
    }

    /// Show the body from row `to` (kept in range), counting the rows so
    /// brought on screen as seen.
    fn scroll_to(&mut self, to: isize) {
        let len = self.body().map_or(0, |b| b.len());
        let room = body_room(self.height.max(1));
        let win = window(len, room);
        let top = to.clamp(0, len.saturating_sub(win) as isize) as usize;
        self.scroll = top;
        self.seen = self.seen.max(top + win);
    }

    /// Show the other body (whole or folded), from its top.
    fn set_whole(&mut self, whole: bool) {
        self.whole = whole;
        self.scroll = 0;
        self.seen = 0;
    }

    /// Whether every row of the selected request's body has been on the
    /// screen (what is allowed is what was seen).
    fn all_seen(&self) -> bool {
        let len = self.body().map_or(0, |b| b.len());
        if self.height == 0 {
            return true;
        }
        let win = window(len, body_room(self.height));
        self.seen
            .max(self.scroll.min(len.saturating_sub(win)) + win)
            >= len
    }

    /// One key; an answer when one was given.
    pub fn key(&mut self, key: KeyEvent) -> Option<Act> {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Char('c') if ctrl => return Some(Act::Quit),
            // (a question's answer may start with a q: Ctrl-C quits there)
            KeyCode::Char('q')
                if self.typed.is_empty()
                    && self.selected_request().is_none_or(|r| r.asks.is_none()) =>
            {
                return Some(Act::Quit)
            }
            KeyCode::Up => self.move_selection(-1),
            KeyCode::Down => self.move_selection(1),
            // on a plan with nothing typed: rejected, the turn stopped
            // (the chat's Esc)
            KeyCode::Esc if self.typed.is_empty() => {
                if let Some(act) = self.reject_plan() {
                    return Some(act);
                }
                self.set_whole(false);
            }
            KeyCode::Esc => {
                self.typed.clear();
                self.set_whole(false);
            }
            KeyCode::PageDown | KeyCode::PageUp => {
                let step = window(usize::MAX, body_room(self.height.max(1))) as isize;
                let by = if key.code == KeyCode::PageDown {
                    step
                } else {
                    -step
                };
                self.scroll_to(self.scroll as isize + by);
            }
            KeyCode::Backspace => {
                self.typed.pop();
            }
            KeyCode::Enter if self.selected_request()?.asks.is_some() => {
                return self.reply();
            }
            KeyCode::Enter => {
                let r = self.selected_request()?;
                let token = r.token.clone();
                let t = self.typed.trim().to_owned();
                if t.is_empty() {
                    self.set_whole(!self.whole);
                    return None;
                }
                if t.eq_ignore_ascii_case("t") {
                    self.typed.clear();
                    return Some(Act::HandBack(token));
                }
                if t.eq_ignore_ascii_case("d") {
                    self.typed.clear();
                    self.set_whole(true);
                    return None;
                }
                let offer = r.offer.clone();
                let cut = !self.all_seen();
                match Decision::parse(&t, &offer) {
                    // what is allowed is what was seen: never a request
                    // whose rows were not all on the screen
                    Ok(d) if cut && !matches!(d, Decision::Deny(_)) => {
                        self.typed.clear();
                        self.note = Some(
                            "not all of it has been on the screen yet: PgDn shows the rest (then it can be allowed), or t answers it in its terminal"
                                .into(),
                        );
                    }
                    Ok(d) => {
                        self.typed.clear();
                        return Some(Act::Answer(token, d));
                    }
                    Err(why) => {
                        self.typed.clear();
                        self.note = Some(why.to_string());
                    }
                }
            }
            KeyCode::Char(c)
                if !ctrl
                    && !c.is_control()
                    && self.selected.is_some()
                    && self.typed.chars().count() < 2000 =>
            {
                self.typed.push(c);
            }
            _ => {}
        }
        None
    }

    /// Pasted text joins what is typed, its line breaks and tabs as
    /// spaces and its escapes dropped: a paste never answers (only the
    /// person's own Enter does).
    pub fn paste(&mut self, text: &str) {
        if self.selected.is_none() {
            return;
        }
        let flat: String = text
            .chars()
            .map(|c| {
                if matches!(c, '\n' | '\r' | '\t') {
                    ' '
                } else {
                    c
                }
            })
            .collect();
        let room = 2000usize.saturating_sub(self.typed.chars().count());
        self.typed.extend(
            Sanitizer::clean(&flat)
                .chars()
                .filter(|c| !c.is_control())
                .take(room),
        );
    }

    /// Enter on a question or a plan: `t` hands it back; a line is its
    /// model's ([`crate::cli::requests::Kind::line`]), once every row of
    /// it has been on the screen; the answer once its model gives one,
    /// else its next prompt (the next question).
    fn reply(&mut self) -> Option<Act> {
        let t = std::mem::take(&mut self.typed);
        let token = self.selected.clone()?;
        if t.trim().eq_ignore_ascii_case("t") {
            return Some(Act::HandBack(token));
        }
        if t.trim().is_empty() {
            self.note = Some(
                "type a number, or your own answer, then Enter (t: answer it in its chat)".into(),
            );
            return None;
        }
        if !self.all_seen() {
            self.note = Some(
                "not all of it has been on the screen yet: PgDn shows the rest (then it can be answered), or t answers it in its chat"
                    .into(),
            );
            return None;
        }
        let r = self.requests.iter_mut().find(|r| r.token == token)?;
        let a = r.asks.as_mut()?;
        let step = a.model.line(&t, &a.at);
        if let Some(done) = step.done {
            return Some(Act::Reply(token, done.result));
        }
        a.text = a.model.prompt(&a.at);
        self.scroll = 0;
        self.seen = 0;
        self.note = None;
        None
    }

    /// Esc on a plan: its model's rejection (an empty line: the plan
    /// rejected and the turn stopped), as the chat's Esc gives it.
    fn reject_plan(&mut self) -> Option<Act> {
        let token = self.selected.clone()?;
        let r = self.requests.iter_mut().find(|r| r.token == token)?;
        let a = r.asks.as_mut().filter(|a| a.plan)?;
        let done = a.model.line("", &a.at).done?;
        Some(Act::Reply(token, done.result))
    }

    /// The screen: `height` rows of at most `width` columns at time `now`
    /// (ms since the epoch).
    pub fn render(&self, now: u64, width: usize, height: usize, s: Style) -> Vec<String> {
        let cols = width.max(1);
        let width = width.max(20);
        let mut rows: Vec<String> = Vec::new();
        let held =
            |id: &Option<String>| id.is_some() && self.requests.iter().any(|r| &r.session_id == id);
        let waiting = self.requests.len()
            + self
                .sessions
                .iter()
                .filter(|x| x.phase == Phase::NeedsYou && !held(&x.session_id))
                .count();
        rows.push(format!(
            "{}  {}",
            s.bold("claudio deck"),
            s.dim(&format!(
                "{} sessions · {} need you",
                self.sessions.len(),
                waiting
            ))
        ));
        let line = |phase: &str, project: &str, kind: Kind, what: &str, age: &str, c: &str| {
            // the project takes what the fixed columns leave
            let fixed = 1 + 9 + 2 + 2 + 16 + 2 + 2 + 5 + 2 + 7;
            let room = width.saturating_sub(fixed).max(8);
            let proj_room = (room / 4).max(8);
            let what_room = room - proj_room;
            format!(
                "{phase}  {:<proj$}  {:<16}  {:<what$}  {:>5}  {:>7}",
                fit_row(project, proj_room),
                kind.words(),
                fit_row(what, what_room),
                age,
                c,
                proj = proj_room,
                what = what_room,
            )
        };
        rows.push(String::new());
        let mut needs: Vec<String> = Vec::new();
        for r in &self.requests {
            let session = self
                .sessions
                .iter()
                .find(|x| x.session_id.is_some() && x.session_id == r.session_id);
            let mark = if self.selected.as_deref() == Some(&r.token) {
                "›"
            } else {
                " "
            };
            let what = crate::cli::term::wrap::strip_sgr(match &r.asks {
                Some(a) => &a.text,
                None => &r.shown.folded,
            });
            let what = what
                .lines()
                .map(|l| l.trim_start_matches([' ', '┌', '│']).trim_end())
                .find(|l| !l.is_empty())
                .unwrap_or("")
                .to_owned();
            needs.push(format!(
                "{mark}{}",
                line(
                    "NEEDS YOU",
                    &name(&r.project),
                    r.kind,
                    &what,
                    &age(now.saturating_sub(r.at)),
                    &cost(session.and_then(|x| x.cost)),
                )
            ));
        }
        for x in self
            .sessions
            .iter()
            .filter(|x| x.phase == Phase::NeedsYou && !held(&x.session_id))
        {
            let pane = x
                .tmux
                .as_deref()
                .map(|p| format!("tmux {} · ", shown(p)))
                .unwrap_or_default();
            let what = format!(
                "{pane}{}: answer in its terminal",
                shown(x.waiting_for.as_deref().unwrap_or("input"))
            );
            needs.push(format!(
                " {}",
                line(
                    "NEEDS YOU",
                    &name(&x.project),
                    x.kind,
                    &what,
                    &x.since
                        .map_or(String::new(), |t| age(now.saturating_sub(t))),
                    &cost(x.cost),
                )
            ));
        }
        // a session whose request is held here is on that request's row:
        // it waits for the person, whatever its file says yet
        let mut rest: Vec<&Session> = self
            .sessions
            .iter()
            .filter(|x| x.phase != Phase::NeedsYou && !held(&x.session_id))
            .collect();
        // working, then done; the done ones most recently finished first
        // (one not saying when last: None is least, reversed), by pid
        // when at the same time, the same order at each redraw
        rest.sort_by_key(|x| {
            let finished = (x.phase == Phase::Done).then_some(x.since).flatten();
            (x.phase, std::cmp::Reverse(finished), x.pid)
        });
        let mut rest_rows: Vec<String> = Vec::new();
        for x in rest {
            let failed = x
                .error
                .as_deref()
                .filter(|_| x.phase == Phase::Done)
                .map(|e| format!("failed: {}", shown(e)));
            let (label, what) = match (x.phase, &failed) {
                (Phase::Working, _) => ("WORKING  ", "working"),
                (_, Some(f)) => ("FAILED   ", f.as_str()),
                _ => ("DONE     ", "idle"),
            };
            rest_rows.push(format!(
                " {}",
                line(
                    label,
                    &name(&x.project),
                    x.kind,
                    what,
                    &x.since
                        .map_or(String::new(), |t| age(now.saturating_sub(t))),
                    &cost(x.cost),
                )
            ));
        }
        let styled = |row: &str| {
            // a failed turn needs the person too
            if row.contains("NEEDS YOU") || row.contains("FAILED") {
                s.yellow(row)
            } else if row.contains("WORKING") {
                s.green(row)
            } else {
                s.dim(row)
            }
        };
        let list: Vec<String> = needs
            .iter()
            .chain(rest_rows.iter())
            .map(|r| fit_row(r, width))
            .collect();
        if list.is_empty() {
            rows.push(s.dim("no claude sessions are running"));
        }
        rows.extend(list.iter().map(|r| styled(r)));
        for p in &self.problems {
            rows.push(fit_row(&s.dim(&format!("passed over {}", shown(p))), width));
        }
        rows.push(String::new());
        // the selected request, as the chat's approval shows it
        let mut foot: Vec<String> = Vec::new();
        if let Some(r) = self.selected_request() {
            let head = format!("{} · {}", shown(&r.project), s.dim(r.kind.words()),);
            foot.push(fit_row(&head, width));
            // the list keeps its head and a row or two; the rest is the
            // request's, and what does not fit is said to be there
            let room = body_room(height);
            let lines = self.body().unwrap_or_default();
            if lines.len() > room {
                let win = window(lines.len(), room);
                let top = self.scroll.min(lines.len() - win);
                foot.extend(lines[top..top + win].iter().map(|l| fit_row(l, width)));
                foot.push(fit_row(
                    &s.dim(&format!(
                        "  … rows {}–{} of {} (PgDn, PgUp: the rest; all of it is seen before it can be allowed)",
                        top + 1,
                        top + win,
                        lines.len()
                    )),
                    width,
                ));
            } else {
                // a blank row under its head when there is room for it
                if lines.len() < room {
                    foot.push(String::new());
                }
                foot.extend(lines.iter().map(|l| fit_row(l, width)));
            }
            if let Some(a) = &r.asks {
                let stop = if a.plan {
                    format!("{} rejects, stops the turn · ", s.bold("Esc"))
                } else {
                    String::new()
                };
                foot.extend(keys_and_typed(
                    &format!(
                        "  └ a number, or your own answer, then Enter · {stop}{} chat · {} quits",
                        s.bold("t"),
                        s.bold("Ctrl-C"),
                    ),
                    &self.typed,
                    cols,
                ));
            }
            let keep = if r.offer.can_keep() {
                format!("{} project · {} all · ", s.bold("p"), s.bold("u"))
            } else {
                String::new()
            };
            if r.shown.whole.is_some() && !self.whole && r.asks.is_none() {
                foot.push(s.dim("  │ (folded: Enter shows all of it)"));
            }
            if r.asks.is_none() {
                foot.extend(keys_and_typed(
                    &format!(
                        "  └ {} once · {} session · {keep}{} no · {} terminal · or why not",
                        s.bold("y"),
                        s.bold("a"),
                        s.bold("n"),
                        s.bold("t"),
                    ),
                    &self.typed,
                    cols,
                ));
            }
        } else {
            foot.push(s.dim("↑↓ pick a request · q quits"));
        }
        if let Some(n) = &self.note {
            foot.push(fit_row(&s.dim(&shown(n)), width));
        }
        // the rows first, the request always in sight at the bottom
        let room = height.saturating_sub(foot.len());
        rows.truncate(room);
        while rows.len() < room {
            rows.push(String::new());
        }
        rows.extend(foot);
        rows.truncate(height);
        // every row cut to the pane as it is (narrower than the layout's
        // least, 20 columns, too): a row wider than the pane wraps, and
        // the screen scrolls by a row each time it is drawn
        rows.iter().map(|r| fit_row(r, cols)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A CLI a claudio program started says which in its environment:
    /// `claudio ask`'s row is no `claudio chat`; anything else is none.
    #[test]
    fn the_program_is_read_from_the_cli_s_environment() {
        let env = |s: &str| s.replace(';', "\0").into_bytes();
        assert_eq!(
            program_in_environ(&env("HOME=/h;CLAUDIO_PROGRAM=claudio ask;X=1")),
            Some(Kind::ClaudioAsk)
        );
        assert_eq!(
            program_in_environ(&env("CLAUDIO_PROGRAM=claudio chat")),
            Some(Kind::ClaudioChat)
        );
        for none in [
            "",
            "CLAUDIO_PROGRAM=claude TUI",
            "XCLAUDIO_PROGRAM=claudio ask",
        ] {
            assert_eq!(program_in_environ(&env(none)), None, "{none:?}");
        }
        assert_eq!(
            Kind::of_process(Some("interactive"), Some("cli"), std::process::id()),
            Kind::Tui
        );
    }
    use crate::cli::turn::summary::Here;
    use claudio::CanUseToolRequest;

    const NOW: u64 = 1_764_850_100_000;

    fn request(token: &str, session: &str, command: &str, rules: bool) -> Request {
        let mut v = serde_json::json!({
            "tool_name": "Bash",
            "input": {"command": command},
        });
        if rules {
            v["permission_suggestions"] = serde_json::json!([{"type": "addRules", "behavior": "allow",
                "rules": [{"toolName": "Bash", "ruleContent": "cargo test *"}], "destination": "session"}]);
        }
        let req: CanUseToolRequest = serde_json::from_value(v).unwrap();
        let here = Here::new(std::path::Path::new("/home/me/app"));
        Request {
            token: token.into(),
            session_id: Some(session.into()),
            project: "/home/me/app".into(),
            kind: Kind::Tui,
            shown: Shown::new(&req, None, None, &here, Style::plain(), 78),
            offer: Offer::of(&req),
            asks: None,
            at: NOW - 12_000,
        }
    }

    fn session(pid: u32, id: &str, project: &str, kind: Kind, phase: Phase) -> Session {
        Session {
            pid,
            session_id: Some(id.into()),
            project: project.into(),
            kind,
            phase,
            waiting_for: (phase == Phase::NeedsYou).then(|| "permission prompt".into()),
            tmux: Some("0:@1.%3".into()),
            cost: Some(0.4213),
            since: Some(NOW - 95_000),
            error: None,
        }
    }

    fn deck() -> View {
        let mut v = View {
            sessions: vec![
                session(
                    11,
                    "s-done",
                    "/home/me/notes",
                    Kind::Background,
                    Phase::Done,
                ),
                session(12, "s-tui", "/home/me/app", Kind::Tui, Phase::NeedsYou),
                session(
                    13,
                    "s-work",
                    "/srv/api\u{1b}]0;pwned\u{7}",
                    Kind::Print,
                    Phase::Working,
                ),
                Session {
                    waiting_for: Some("question".into()),
                    ..session(14, "s-ask", "/home/me/site", Kind::Tui, Phase::NeedsYou)
                },
            ],
            ..View::default()
        };
        v.add(request(
            "t1",
            "s-tui",
            "cargo test\u{1b}[2J && rm -rf build",
            true,
        ));
        v
    }

    fn screen(v: &View, width: usize) -> String {
        let rows = v.render(NOW, width, 16, Style::plain());
        assert_eq!(rows.len(), 16);
        for r in &rows {
            assert!(
                crate::cli::term::wrap::visible_width(r) <= width,
                "wider than {width}: {r:?}"
            );
            assert!(!r.contains('\u{1b}'), "an escape reached the screen: {r:?}");
        }
        rows.join("\n")
    }

    #[test]
    fn the_whole_screen_at_80_columns() {
        let want = [
            "claudio deck  4 sessions · 2 need you",
            "",
            "›NEEDS YOU  app       claude TUI        Bash  cargo test\\e[2J &…    12s    $0.42",
            " NEEDS YOU  site      claude TUI        tmux 0:@1.%3 · question…     1m    $0.42",
            " WORKING    api\\e]0…  claude -p         working                      1m    $0.42",
            " DONE       notes     background agent  idle                         1m    $0.42",
            "",
            "",
            "",
            "",
            "/home/me/app · claude TUI",
            "",
            "  ┌ Bash  cargo test\\e[2J && rm -rf build",
            "  │ a       Bash(cargo test *), for this session",
            "  │ p / u   Bash(cargo test *), kept in this project / in every project",
            "  └ y once · a session · p project · u all · n no · t terminal · or why not › ",
        ];
        assert_eq!(screen(&deck(), 80), want.join("\n"));
    }

    /// A session whose last turn ended in an API error is shown failed,
    /// with the error (its control characters shown, not run), never done
    /// as a turn that ended well; one still working is shown working.
    #[test]
    fn a_turn_ended_by_an_api_error_is_shown_failed() {
        let failed = Session {
            error: Some("Credit balance is too low\u{1b}]0;x\u{7}".into()),
            ..session(30, "f", "/p/billing", Kind::Tui, Phase::Done)
        };
        let working = Session {
            error: Some("old".into()),
            ..session(31, "w", "/p/work", Kind::Tui, Phase::Working)
        };
        let v = View {
            sessions: vec![failed, working],
            ..View::default()
        };
        let screen = v.render(NOW, 140, 20, Style::plain()).join("\n");
        let row = screen.lines().find(|l| l.contains("billing")).unwrap();
        assert!(row.starts_with(" FAILED "), "{screen}");
        assert!(
            row.contains("failed: Credit balance is too low"),
            "{screen}"
        );
        assert!(!row.contains('\u{1b}'), "{screen}");
        assert!(!screen.contains("DONE"), "{screen}");
        let row = screen.lines().find(|l| l.contains(" work ")).unwrap();
        assert!(row.contains("WORKING") && !row.contains("old"), "{screen}");
    }

    /// The finished sessions, most recently finished first; those
    /// finished at the same time by pid, one that says not when last:
    /// the same order however the registry lists them.
    #[test]
    fn the_done_rows_are_the_most_recent_first() {
        let done = |pid: u32, project: &str, ago: Option<u64>| Session {
            since: ago.map(|s| NOW - s * 1000),
            ..session(pid, "", project, Kind::Tui, Phase::Done)
        };
        let mut sessions = vec![
            done(20, "/p/minute", Some(60)),
            done(21, "/p/hour", Some(3600)),
            done(22, "/p/now-a", Some(10)),
            done(23, "/p/never", None),
            done(24, "/p/now-b", Some(10)),
            session(25, "w", "/p/work", Kind::Tui, Phase::Working),
        ];
        for turn in 0..sessions.len() {
            sessions.rotate_left(1);
            let v = View {
                sessions: sessions.clone(),
                ..View::default()
            };
            let rows = v.render(NOW, 80, 16, Style::plain());
            let order: Vec<&str> = rows
                .iter()
                .filter_map(|r| r.split_whitespace().nth(1))
                .filter(|w| ["minute", "hour", "now-a", "now-b", "never", "work"].contains(w))
                .collect();
            assert_eq!(
                order,
                ["work", "now-a", "now-b", "minute", "hour", "never"],
                "turn {turn}: {rows:#?}"
            );
        }
    }

    /// A screen 7 rows tall has one row for the request: its first row
    /// with something on it (the command), not the blank above it.
    #[test]
    fn a_short_screen_s_one_request_row_is_the_command() {
        let v = deck();
        let rows = v.render(NOW, 80, 7, Style::plain());
        assert_eq!(rows.len(), 7);
        assert!(
            rows.iter()
                .any(|r| r.contains("┌ Bash  cargo test\\e[2J && rm -rf build")),
            "{rows:#?}"
        );
    }

    #[test]
    fn the_whole_screen_at_120_columns() {
        let want = [
            "claudio deck  4 sessions · 2 need you",
            "",
            "›NEEDS YOU  app                 claude TUI        Bash  cargo test\\e[2J && rm -rf build                     12s    $0.42",
            " NEEDS YOU  site                claude TUI        tmux 0:@1.%3 · question: answer in its terminal            1m    $0.42",
            " WORKING    api\\e]0;pwned\\a     claude -p         working                                                    1m    $0.42",
            " DONE       notes               background agent  idle                                                       1m    $0.42",
            "",
            "",
            "",
            "",
            "/home/me/app · claude TUI",
            "",
            "  ┌ Bash  cargo test\\e[2J && rm -rf build",
            "  │ a       Bash(cargo test *), for this session",
            "  │ p / u   Bash(cargo test *), kept in this project / in every project",
            "  └ y once · a session · p project · u all · n no · t terminal · or why not › ",
        ];
        assert_eq!(screen(&deck(), 120), want.join("\n"));
    }

    /// A pane made narrow: the deck's head, the hints and the notes are
    /// cut to it as the rows are (a row wider than the pane wraps, and
    /// the screen scrolls a row each time it is drawn: its head is lost).
    #[test]
    fn every_row_fits_a_narrow_pane() {
        let mut v = deck();
        v.note = Some("allowed once: /home/me/a-project-with-a-long-name".into());
        for width in [30, 24, 20, 12, 1] {
            let shown = screen(&v, width);
            if width >= 12 {
                assert!(shown.starts_with("claudio"), "{shown}");
            }
        }
        // folded, and nothing selected
        let mut v = deck();
        v.remove("t1");
        v.add(request("t2", "s-tui", &"long words ".repeat(40), false));
        screen(&v, 30);
        v.remove("t2");
        assert!(screen(&v, 16).contains("↑↓ pick a"));
    }

    /// A command that says "Allow?" is shown whole: only the chat's own
    /// choices row (its last) gives way to the deck's.
    #[test]
    fn a_command_that_says_allow_is_shown_whole() {
        let mut v = deck();
        v.remove("t1");
        v.add(request(
            "t3",
            "s-tui",
            "echo 'Allow?' && rm -rf build",
            false,
        ));
        let shown = screen(&v, 80);
        assert!(shown.contains("echo 'Allow?' && rm -rf build"), "{shown}");
        let lines = "printf 'ok'\necho '└ Allow?  y once'\nrm -rf build";
        v.remove("t3");
        v.add(request("t4", "s-tui", lines, false));
        v.height = 40;
        let all = v.render(NOW, 80, 40, Style::plain()).join("\n");
        assert!(all.contains("rm -rf build"), "{all}");
        assert_eq!(all.matches("y once").count(), 2, "{all}");
    }

    /// What is typed is in sight as it is typed, its end first, however
    /// long and however narrow the pane: on the keys line when it fits,
    /// else on a row of its own under it.
    #[test]
    fn what_is_typed_is_in_sight() {
        let mut v = deck();
        key(&mut v, "x");
        assert!(screen(&v, 120).contains("or why not › x"));
        let reason = "not on main, open a branch first and run the tests there";
        v.typed.clear();
        key(&mut v, reason);
        for width in [80, 30] {
            let shown = screen(&v, width);
            let last = shown.lines().last().unwrap();
            assert!(last.starts_with("  › "), "{shown}");
            assert!(last.ends_with("run the tests there"), "{shown}");
            assert!(shown.contains("  └ y once"), "{shown}");
        }
        assert!(screen(&v, 80).contains(&format!("  › {reason}")));
        // a question's answer too
        let (r, _) = asking(
            "q1",
            "AskUserQuestion",
            serde_json::json!({"questions": [{"question": "Which?", "header": "Pick",
                "options": [{"label": "one", "description": ""}, {"label": "two", "description": ""}],
                "multiSelect": false}]}),
        );
        let mut v = deck();
        v.remove("t1");
        v.add(r);
        key(&mut v, "the second one, with the tests run first");
        let shown = screen(&v, 80);
        assert!(
            shown
                .lines()
                .last()
                .unwrap()
                .ends_with("with the tests run first"),
            "{shown}"
        );
    }

    fn key(v: &mut View, text: &str) -> Option<Act> {
        let mut last = None;
        for c in text.chars() {
            let code = if c == '\n' {
                KeyCode::Enter
            } else {
                KeyCode::Char(c)
            };
            last = v.key(KeyEvent::new(code, KeyModifiers::NONE));
        }
        last
    }

    /// A paste is typed text: its newline is no Enter, its escapes go.
    #[test]
    fn a_paste_is_typed_never_an_answer() {
        let mut v = deck();
        v.paste("y\r\nrm \u{1b}[2Jnow\tplease");
        assert_eq!(v.typed, "y  rm now please");
        assert!(!screen(&v, 80).contains('\u{1b}'));
        // the person's Enter sends it: a denial with that reason
        assert!(matches!(
            key(&mut v, "\n"),
            Some(Act::Answer(_, Decision::Deny(m))) if m.ends_with("y  rm now please")
        ));
        // nothing selected: nothing typed
        let mut empty = View::default();
        empty.paste("y\n");
        assert_eq!(empty.typed, "");
    }

    #[test]
    fn ages_fit_their_column() {
        assert_eq!(age(5_000), "5s");
        assert_eq!(age(180_000), "3m");
        assert_eq!(age(7_200_000), "2h");
        assert_eq!(age(3 * 86_400_000), "3d");
        assert_eq!(age(u64::MAX), ">99d");
        assert_eq!(cost(Some(-0.0)), "$0.00");
        assert_eq!(cost(None), "$—");
    }

    #[test]
    fn keys_follow_the_chat_s_approval_grammar() {
        let mut v = deck();
        assert_eq!(
            key(&mut v, "y\n"),
            Some(Act::Answer("t1".into(), Decision::AllowOnce))
        );
        assert_eq!(
            key(&mut v, "a\n"),
            Some(Act::Answer("t1".into(), Decision::AllowSession))
        );
        assert_eq!(
            key(&mut v, "p\n"),
            Some(Act::Answer("t1".into(), Decision::AllowProject))
        );
        assert_eq!(
            key(&mut v, "u\n"),
            Some(Act::Answer("t1".into(), Decision::AllowUser))
        );
        assert_eq!(
            key(&mut v, "n\n"),
            Some(Act::Answer(
                "t1".into(),
                Decision::Deny("The user denied this tool call.".into())
            ))
        );
        // a reason that starts with a choice's letter is read whole
        assert_eq!(
            key(&mut v, "use the staging db\n"),
            Some(Act::Answer(
                "t1".into(),
                Decision::Deny("The user denied this tool call: use the staging db".into())
            ))
        );
        assert_eq!(key(&mut v, "t\n"), Some(Act::HandBack("t1".into())));
        // Enter alone shows it whole, never answers
        assert_eq!(key(&mut v, "\n"), None);
        assert!(v.whole);
        // p and u with no rule suggested are not offered: said, not sent
        v.add(Request {
            at: NOW,
            ..request("t2", "s-x", "echo $(whoami)", false)
        });
        v.remove("t1");
        assert_eq!(v.selected.as_deref(), Some("t2"));
        assert_eq!(key(&mut v, "p\n"), None);
        assert!(v.note.as_deref().unwrap().contains("suggested no rule"));
        assert_eq!(key(&mut v, "q"), Some(Act::Quit));
    }

    #[test]
    fn an_answer_goes_to_the_request_it_was_typed_for() {
        let mut v = deck();
        v.add(Request {
            at: NOW,
            ..request("t2", "s-work", "ls", false)
        });
        assert_eq!(key(&mut v, "n"), None);
        // the request typed for leaves (answered in its terminal): what was
        // typed goes with it, and the next Enter answers nothing by surprise
        v.remove("t1");
        assert_eq!(v.typed, "");
        assert_eq!(key(&mut v, "\n"), None);
        key(&mut v, "\n");
        // Down and Up pick by request, and keys then answer the one picked
        v.add(Request {
            at: NOW + 1,
            ..request("t3", "s-work", "pwd", false)
        });
        v.key(KeyEvent::new(KeyCode::Down, KeyModifiers::NONE));
        assert_eq!(
            key(&mut v, "y\n"),
            Some(Act::Answer("t3".into(), Decision::AllowOnce))
        );
    }

    /// A claude TUI says `busy` while its hook runs: with its request held
    /// here it is shown once, as needing you, never as working too.
    #[test]
    fn a_session_whose_request_is_held_is_never_shown_working() {
        let mut v = deck();
        for s in &mut v.sessions {
            if s.session_id.as_deref() == Some("s-tui") {
                s.phase = Phase::Working;
                s.waiting_for = None;
            }
        }
        let rows = v.render(NOW, 100, 16, Style::plain()).join("\n");
        assert_eq!(rows.matches("WORKING").count(), 1, "{rows}");
        assert!(rows.contains(" WORKING    api"), "{rows}");
        assert!(rows.contains("›NEEDS YOU  app"), "{rows}");
        assert!(rows.contains("4 sessions · 2 need you"), "{rows}");
    }

    fn page_down(v: &mut View) {
        v.key(KeyEvent::new(KeyCode::PageDown, KeyModifiers::NONE));
    }

    /// A request taller than the screen keeps the list's head and the
    /// choices in sight; PgDn and PgUp bring its other rows on screen, and
    /// it can be allowed once every row has been there (a denial or a
    /// hand-back at any time).
    #[test]
    fn a_tall_request_is_scrolled_through_and_then_allowed() {
        let mut v = deck();
        let long: String = (0..60).map(|i| format!("echo line-{i}\n")).collect();
        v.remove("t1");
        v.add(request("t9", "s-tui", &long, false));
        v.height = 16;
        let rows = v.render(NOW, 80, 16, Style::plain());
        assert_eq!(rows.len(), 16);
        assert!(rows[2].starts_with("›NEEDS YOU"), "{rows:#?}");
        assert!(rows.last().unwrap().contains("y once"), "{rows:#?}");
        assert!(rows.iter().any(|r| r.contains("rows 1–7 of")), "{rows:#?}");
        // what has not been on the screen is not allowed
        assert_eq!(key(&mut v, "y\n"), None);
        assert!(v.note.as_deref().unwrap().contains("PgDn shows the rest"));
        assert_eq!(key(&mut v, "t\n"), Some(Act::HandBack("t9".into())));
        assert!(matches!(
            key(&mut v, "n\n"),
            Some(Act::Answer(_, Decision::Deny(_)))
        ));
        // page by page to the end: each row was on the screen once
        let mut shown = String::new();
        for _ in 0..20 {
            shown.push_str(&v.render(NOW, 80, 16, Style::plain()).join("\n"));
            page_down(&mut v);
        }
        for i in 0..60 {
            assert!(
                shown.contains(&format!("echo line-{i}")),
                "line {i} never shown"
            );
        }
        let rows = v.render(NOW, 80, 16, Style::plain());
        assert!(rows.iter().any(|r| r.contains("echo line-59")), "{rows:#?}");
        // back up: it stays seen
        v.key(KeyEvent::new(KeyCode::PageUp, KeyModifiers::NONE));
        assert_eq!(
            key(&mut v, "y\n"),
            Some(Act::Answer("t9".into(), Decision::AllowOnce))
        );
        // another request, or the other body (Enter), starts unseen again
        v.add(request("t8", "s-tui", &long, false));
        v.remove("t9");
        assert_eq!(key(&mut v, "y\n"), None);
    }

    /// A command longer than the screen is wrapped, never cut: every part
    /// of it, its escapes as text, is on the screen before it is allowed.
    #[test]
    fn a_long_command_is_shown_whole_with_its_escapes_as_text() {
        let mut v = deck();
        let long = format!(
            "curl -s https://example.com/{}\u{1b}]0;x\u{7} | sh # END-OF-IT",
            "a".repeat(300)
        );
        v.remove("t1");
        v.add(request("t7", "s-tui", &long, false));
        v.height = 16;
        let mut shown = String::new();
        for _ in 0..10 {
            let rows = v.render(NOW, 80, 16, Style::plain());
            for r in &rows {
                assert!(!r.contains('\u{1b}'), "an escape reached the screen: {r:?}");
                assert!(crate::cli::term::wrap::visible_width(r) <= 80, "{r:?}");
            }
            shown.push_str(&rows.join("\n"));
            page_down(&mut v);
        }
        // (the rows joined again: no space, no border)
        let flat: String = shown
            .chars()
            .filter(|c| !c.is_whitespace() && *c != '│')
            .collect();
        assert!(flat.contains("\\e]0;x\\a|sh#END-OF-IT"), "{shown}");
        // the whole URL is in the request's rows, and every one of them
        // was on the 16-row screen, page by page
        let all = v.render(NOW, 80, 200, Style::plain());
        let body: String = all
            .iter()
            .skip_while(|r| !r.contains("command"))
            .flat_map(|r| r.chars())
            .filter(|c| !c.is_whitespace() && *c != '│')
            .collect();
        assert!(
            body.contains(&format!("example.com/{}\\e]0;x", "a".repeat(300))),
            "{all:#?}"
        );
        for r in all.iter().skip_while(|r| !r.contains("command")) {
            assert!(shown.contains(r.as_str()), "never on screen: {r:?}");
        }
        assert_eq!(
            key(&mut v, "y\n"),
            Some(Act::Answer("t7".into(), Decision::AllowOnce))
        );
    }

    /// A claudio chat's request of another kind, asked through its model.
    fn asking(token: &str, tool: &str, input: serde_json::Value) -> (Request, CanUseToolRequest) {
        use crate::cli::requests::{registered, Asking, Opened, Screen};
        let req: CanUseToolRequest =
            serde_json::from_value(serde_json::json!({"tool_name": tool, "input": input})).unwrap();
        let grants = crate::cli::requests::tool::SessionGrants::default();
        let at = Asking {
            cwd: std::path::Path::new("/home/me/app"),
            agent: None,
            grants: &grants,
            style: Style::plain(),
            width: 78,
        };
        let Opened::Ask(model) = (registered(req.kind()).open)(&req, &at) else {
            panic!("decided at once")
        };
        let screen = Screen {
            style: Style::plain(),
            width: 78,
            height: 24,
            reflows: false,
        };
        let mut r = request(token, "s-chat", "unused", false);
        r.kind = Kind::ClaudioChat;
        r.asks = Some(Asks::new(model, screen));
        (r, req)
    }

    /// A claudio chat's questions are shown as `ask` shows them (each
    /// question, its numbered options; escapes never reach the screen),
    /// answered one typed line at a time, and the answers are the
    /// library's; `t` hands them back, Enter alone answers nothing.
    #[test]
    fn a_chat_s_questions_are_answered_a_line_each() {
        let input = serde_json::json!({"questions": [
            {"question": "Which db?\u{1b}]0;pwn\u{7}", "header": "DB", "multiSelect": false,
             "options": [{"label": "Postgres", "description": "big"}, {"label": "SQLite", "description": "small"}]},
            {"question": "Which port?", "header": "Port", "multiSelect": false,
             "options": [{"label": "5432", "description": ""}, {"label": "8080", "description": ""}]}
        ]});
        let (r, req) = asking("q1", "AskUserQuestion", input);
        let mut v = View::default();
        v.add(r);
        let text = screen(&v, 80);
        assert!(text.contains("Which db?"), "{text}");
        assert!(text.contains("1. Postgres"), "{text}");
        assert!(text.contains("2. SQLite"), "{text}");
        assert!(text.contains("a number, or your own answer"), "{text}");
        assert!(!text.contains("y once"), "{text}");
        // Enter alone: nothing answered, said why
        assert_eq!(key(&mut v, "\n"), None);
        assert!(v.note.as_deref().unwrap().contains("type a number"));
        // the first question answered: the second is shown
        assert_eq!(key(&mut v, "2\n"), None);
        let text = screen(&v, 80);
        assert!(text.contains("Which port?"), "{text}");
        assert!(!text.contains("Which db?"), "{text}");
        // an answer may start with a q: typed, never quitting
        assert_eq!(key(&mut v, "q"), None);
        v.key(KeyEvent::new(KeyCode::Backspace, KeyModifiers::NONE));
        assert_eq!(
            key(&mut v, "my own port\n"),
            Some(Act::Reply(
                "q1".into(),
                claudio::protocol::ask::answer_questions(
                    &req.input,
                    [
                        ("Which db?\u{1b}]0;pwn\u{7}", "SQLite".to_owned()),
                        ("Which port?", "my own port".to_owned())
                    ]
                )
            ))
        );
        let (r, _) = asking(
            "q2",
            "AskUserQuestion",
            serde_json::json!({"questions": [
            {"question": "Go on?", "header": "Go", "multiSelect": false,
             "options": [{"label": "Yes", "description": ""}]}]}),
        );
        let mut v = View::default();
        v.add(r);
        assert_eq!(key(&mut v, "t\n"), Some(Act::HandBack("q2".into())));
    }

    /// A claudio chat's plan is shown in its box with the three choices,
    /// and approved as the library approves it (the plan as it came, the
    /// mode picked); what to change is a denial carrying it.
    #[test]
    fn a_chat_s_plan_is_approved_as_shown() {
        let plan = "1. write the test\n2. fix the bug";
        let (r, req) = asking("p1", "ExitPlanMode", serde_json::json!({"plan": plan}));
        let mut v = View::default();
        v.add(r);
        let text = screen(&v, 80);
        assert!(text.contains("Here is the plan"), "{text}");
        assert!(text.contains("write the test"), "{text}");
        assert!(text.contains("1. Yes, and auto-accept edits"), "{text}");
        assert_eq!(
            key(&mut v, "1\n"),
            Some(Act::Reply(
                "p1".into(),
                req.approve_plan(claudio::PermissionMode::AcceptEdits, None)
            ))
        );
        assert!(matches!(
            key(&mut v, "use sqlite instead\n"),
            Some(Act::Reply(_, claudio::PermissionResult::Deny { message, .. })) if message.contains("use sqlite instead")
        ));
    }

    /// A plan taller than the screen is answered only once every row of it
    /// has been on the screen.
    #[test]
    fn a_tall_plan_is_seen_before_it_is_approved() {
        let plan: String = (0..60).map(|i| format!("- step {i}\n")).collect();
        let (r, _) = asking("p2", "ExitPlanMode", serde_json::json!({"plan": plan}));
        let mut v = View::default();
        v.add(r);
        v.height = 16;
        assert_eq!(key(&mut v, "1\n"), None);
        assert!(v.note.as_deref().unwrap().contains("PgDn"));
        for _ in 0..20 {
            page_down(&mut v);
        }
        assert!(matches!(key(&mut v, "1\n"), Some(Act::Reply(..))));
    }
}
