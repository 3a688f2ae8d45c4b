//! The session finder: `claudio -r` with no id, and `/resume` with no id.
//! This directory's sessions, newest first (Ctrl-A: every project), filtered
//! as you type, as fzf filters (title, first prompt, branch, tag; the id by
//! its letters together; see [`fuzzy`]); Tab switches to a full-text search
//! of the conversations (the store's search); the last exchange of the
//! highlighted session below; Enter resumes.
//!
//! [`Finder`] is pure (keys in, a step out; a drawing as lines), tested
//! without a terminal; [`pick`] runs it on the terminal.

use crate::cli::common::git::RecordedBranches;
use crate::cli::sanitize::Sanitizer;
use crate::cli::term::picker::redraw;
use crate::cli::term::style::Style;
use crate::cli::term::text::{cut_width, first_line};
use crate::cli::term::wrap::undisputed;
use crate::cli::term::wrap::wrap;
use claudio::store::SessionInfo;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::collections::HashSet;

/// Rows shown at once.
const PAGE: usize = 10;

/// The most keys read at once before the finder draws again.
const BATCH: usize = 4096;

/// One session, as the finder shows and filters it (inert text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub id: String,
    pub title: String,
    pub prompt: String,
    pub branch: String,
    pub tag: String,
    pub cwd: Option<String>,
    /// Milliseconds since the epoch.
    pub modified: i64,
    /// The session belongs to this directory (else: Ctrl-A's other projects).
    pub here: bool,
}

impl Row {
    /// The row of `s`, its branch as `branches` shows it.
    pub fn from_info(s: &SessionInfo, here: bool, branches: &mut RecordedBranches) -> Row {
        let clean = |t: &str| Sanitizer::clean(&first_line(t, 200));
        Row {
            id: s.session_id.clone(),
            title: clean(&s.title),
            prompt: s.first_prompt.as_deref().map(clean).unwrap_or_default(),
            branch: branches
                .shown(s.git_branch.as_deref(), s.cwd.as_deref())
                .map(|b| clean(&b))
                .unwrap_or_default(),
            tag: s.tag.as_deref().map(clean).unwrap_or_default(),
            cwd: s.cwd.clone(),
            modified: s.last_modified,
            here,
        }
    }
}

/// `text` with the letters each word of `query` matched in it (as a
/// substring when it is one, else as its letters in order) in yellow; the
/// rest as it was (only the colour is reset, so a bold row stays bold).
fn highlight(text: &str, query: &str, style: Style) -> String {
    if !style.enabled() || query.trim().is_empty() {
        return text.to_owned();
    }
    let chars: Vec<char> = text.chars().collect();
    let low: Vec<char> = chars
        .iter()
        .map(|c| c.to_lowercase().next().unwrap_or(*c))
        .collect();
    let mut mark = vec![false; chars.len()];
    for word in query.split_whitespace() {
        let w: Vec<char> = word.chars().flat_map(char::to_lowercase).collect();
        if w.is_empty() || w.len() > low.len() {
            continue;
        }
        if let Some(at) = (0..=low.len() - w.len()).find(|&i| low[i..i + w.len()] == w[..]) {
            mark[at..at + w.len()].iter_mut().for_each(|m| *m = true);
            continue;
        }
        // its letters in order
        let mut at = Vec::new();
        let mut next = 0;
        for (i, c) in low.iter().enumerate() {
            if next < w.len() && *c == w[next] {
                at.push(i);
                next += 1;
            }
        }
        if next == w.len() {
            at.into_iter().for_each(|i| mark[i] = true);
        }
    }
    let mut out = String::new();
    let mut on = false;
    for (c, m) in chars.iter().zip(mark) {
        if m != on {
            out.push_str(if m { "\x1b[33m" } else { "\x1b[39m" });
            on = m;
        }
        out.push(*c);
    }
    if on {
        out.push_str("\x1b[39m");
    }
    out
}

/// The columns the project takes in the all-projects view.
const PROJECT_COLUMNS: usize = 18;

/// A session's project as the all-projects view names it: the last
/// components of its folder, cut from the left, padded to `columns`.
fn project_cell(cwd: Option<&str>, columns: usize) -> String {
    let cwd = crate::cli::term::text::flat(cwd.unwrap_or("?"));
    let shown = crate::cli::term::text::cut_left(&undisputed(&cwd), columns);
    let w = crate::cli::term::text::width(&shown);
    format!("{shown}{}", " ".repeat(columns.saturating_sub(w)))
}

/// A row's fields folded to lower case, once (not at every keystroke).
#[derive(Debug)]
struct Folded([String; 5]);

impl Folded {
    fn of(r: &Row) -> Folded {
        Folded([&r.title, &r.prompt, &r.branch, &r.tag, &r.id].map(|f| fuzzy::fold(f)))
    }
}

/// How well `r` matches `q` (`None`: it does not).
fn score(q: &fuzzy::Query, r: &Row, folded: &Folded) -> Option<fuzzy::Score> {
    let [title, prompt, branch, tag, id] = &folded.0;
    q.score(
        [
            (r.title.as_str(), title.as_str(), true),
            (r.prompt.as_str(), prompt.as_str(), true),
            (r.branch.as_str(), branch.as_str(), true),
            (r.tag.as_str(), tag.as_str(), true),
            (r.id.as_str(), id.as_str(), false),
        ]
        .into_iter(),
    )
}

/// What the finder wants done.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Draw again.
    Redraw,
    /// Resume this session.
    Resume(Row),
    /// Esc: nothing.
    Cancel,
    /// Search the conversations for this text (every project or here), then
    /// hand the ids found to [`Finder::found`].
    Search { text: String, all: bool },
    /// Show every project's sessions (load them, then [`Finder::set_rows`]).
    LoadAll,
}

/// The finder's state.
#[derive(Debug)]
pub struct Finder {
    rows: Vec<Row>,
    /// `rows`' fields folded, in the same order.
    folded: Vec<Folded>,
    /// Every project, not only this directory.
    all: bool,
    query: String,
    /// Tab: the query searches inside the conversations.
    full_text: bool,
    /// The sessions the last search found, and for which text.
    found: Option<(String, HashSet<String>)>,
    shown: Vec<usize>,
    cursor: usize,
    /// The highlighted session's last exchange.
    preview: Option<(String, Vec<String>)>,
    /// The query and scope `shown` was filtered for (filter mode only): a
    /// query that extends it filters only the rows in `shown`.
    filtered: Option<(String, bool)>,
    /// The query changed and the rows were not filtered again yet
    /// ([`Finder::press`]).
    unsettled: bool,
}

impl Finder {
    /// A finder over `rows`, newest first.
    pub fn new(mut rows: Vec<Row>) -> Finder {
        rows.sort_by_key(|r| std::cmp::Reverse(r.modified));
        let mut f = Finder {
            folded: rows.iter().map(Folded::of).collect(),
            rows,
            all: false,
            query: String::new(),
            full_text: false,
            found: None,
            shown: Vec::new(),
            cursor: 0,
            preview: None,
            filtered: None,
            unsettled: false,
        };
        f.filter();
        f
    }

    /// Every project's sessions (after [`Step::LoadAll`]).
    pub fn set_rows(&mut self, rows: Vec<Row>) {
        let selected = self.selected().map(|r| r.id.clone());
        let mut rows = rows;
        rows.sort_by_key(|r| std::cmp::Reverse(r.modified));
        self.folded = rows.iter().map(Folded::of).collect();
        self.rows = rows;
        self.filtered = None;
        self.filter();
        if let Some(id) = selected {
            if let Some(i) = self.shown.iter().position(|&i| self.rows[i].id == id) {
                self.cursor = i;
            }
        }
    }

    /// The sessions a full-text search for `text` found.
    pub fn found(&mut self, text: &str, ids: HashSet<String>) {
        self.found = Some((text.to_owned(), ids));
        self.filter();
    }

    /// The highlighted session.
    pub fn selected(&self) -> Option<&Row> {
        self.shown.get(self.cursor).map(|&i| &self.rows[i])
    }

    /// Set the highlighted session's last exchange (lines, inert).
    pub fn set_preview(&mut self, id: &str, lines: Vec<String>) {
        self.preview = Some((id.to_owned(), lines));
    }

    /// Whether the highlighted session's preview is missing.
    pub fn wants_preview(&self) -> Option<&str> {
        let row = self.selected()?;
        match &self.preview {
            Some((id, _)) if *id == row.id => None,
            _ => Some(&row.id),
        }
    }

    /// The full-text search to run once the person stops typing (the
    /// query is 2 characters or more and not searched yet): the search
    /// follows the typing, as fzf's and atuin's do, without waiting for
    /// Enter.
    pub fn search_due(&self) -> Option<Step> {
        (self.search_stale() && self.query.trim().chars().count() >= 2).then(|| Step::Search {
            text: self.query.clone(),
            all: self.all,
        })
    }

    fn search_stale(&self) -> bool {
        self.full_text
            && !self.query.trim().is_empty()
            && self.found.as_ref().is_none_or(|(t, _)| *t != self.query)
    }

    /// The rows to show, in order: in scope, then found by the search or
    /// matched by the filter (best first, newest first among equals).
    /// When the query extends the one `shown` was filtered for (in the
    /// same scope), only the rows shown are scored again: a longer query
    /// matches no row the shorter one did not.
    fn filter(&mut self) {
        self.unsettled = false;
        let all = self.all;
        let in_scope = |r: &Row| all || r.here;
        if self.full_text {
            let q = self.query.trim();
            self.shown = (0..self.rows.len())
                .filter(|&i| {
                    let r = &self.rows[i];
                    in_scope(r)
                        && match &self.found {
                            Some((_, ids)) if !q.is_empty() => ids.contains(&r.id),
                            _ => true,
                        }
                })
                .collect();
            self.filtered = None;
        } else {
            let (used, _) = fuzzy::capped(&self.query);
            let narrowing = self
                .filtered
                .as_ref()
                .is_some_and(|(q, a)| *a == all && used.starts_with(q.as_str()));
            let candidates = if narrowing {
                std::mem::take(&mut self.shown)
            } else {
                (0..self.rows.len())
                    .filter(|&i| in_scope(&self.rows[i]))
                    .collect()
            };
            let q = fuzzy::Query::new(used);
            let mut scored: Vec<(fuzzy::Score, usize)> = candidates
                .into_iter()
                .filter_map(|i| Some((score(&q, &self.rows[i], &self.folded[i])?, i)))
                .collect();
            // best first; equals newest first (the rows' order)
            scored.sort_unstable_by_key(|&(s, i)| (std::cmp::Reverse(s), i));
            self.shown = scored.into_iter().map(|(_, i)| i).collect();
            self.filtered = Some((used.to_owned(), all));
        }
        self.cursor = self.cursor.min(self.shown.len().saturating_sub(1));
    }

    /// One key, the rows filtered after it.
    pub fn key(&mut self, k: KeyEvent) -> Option<Step> {
        let step = self.press(k);
        self.settle();
        step
    }

    /// One key of several read at once: a change to the query is made,
    /// the rows filtered for it only by the next key that needs them or by
    /// [`Finder::settle`] (a pasted text is filtered once, not per letter).
    pub fn press(&mut self, k: KeyEvent) -> Option<Step> {
        let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
        match k.code {
            KeyCode::Esc => return Some(Step::Cancel),
            KeyCode::Char('c') | KeyCode::Char('d') if ctrl => return Some(Step::Cancel),
            KeyCode::Backspace => {
                self.query.pop();
            }
            KeyCode::Char('u') if ctrl => self.query.clear(),
            KeyCode::Char(c) if !ctrl && !c.is_control() => self.query.push(c),
            _ => {
                self.settle();
                return self.act(k);
            }
        }
        self.cursor = 0;
        self.unsettled = true;
        Some(Step::Redraw)
    }

    /// Filter the rows for the query, if [`Finder::press`] changed it.
    pub fn settle(&mut self) {
        if self.unsettled {
            self.filter();
        }
    }

    /// A key other than one that edits the query or cancels.
    fn act(&mut self, k: KeyEvent) -> Option<Step> {
        let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
        match k.code {
            KeyCode::Enter if self.search_stale() => Some(Step::Search {
                text: self.query.clone(),
                all: self.all,
            }),
            KeyCode::Enter => self.selected().cloned().map(Step::Resume),
            KeyCode::Up => {
                self.cursor = self.cursor.saturating_sub(1);
                Some(Step::Redraw)
            }
            KeyCode::Char('p') if ctrl => self.key(KeyEvent::from(KeyCode::Up)),
            KeyCode::Down => {
                if self.cursor + 1 < self.shown.len() {
                    self.cursor += 1;
                }
                Some(Step::Redraw)
            }
            KeyCode::Char('n') if ctrl => self.key(KeyEvent::from(KeyCode::Down)),
            KeyCode::PageUp => {
                self.cursor = self.cursor.saturating_sub(PAGE);
                Some(Step::Redraw)
            }
            KeyCode::PageDown => {
                self.cursor = (self.cursor + PAGE).min(self.shown.len().saturating_sub(1));
                Some(Step::Redraw)
            }
            KeyCode::Char('a') if ctrl => {
                self.all = !self.all;
                let any_other = self.rows.iter().any(|r| !r.here);
                if self.all && !any_other {
                    return Some(Step::LoadAll);
                }
                self.found = None;
                self.filter();
                Some(Step::Redraw)
            }
            KeyCode::Tab => {
                self.full_text = !self.full_text;
                self.found = None;
                self.filter();
                Some(Step::Redraw)
            }
            _ => None,
        }
    }

    /// The drawing: a title line, the query, up to [`PAGE`] rows around
    /// the highlighted one, its last exchange, and the keys.
    pub fn lines(&self, style: Style, width: usize, now_ms: i64) -> Vec<String> {
        let width = width.max(30);
        let scope = if self.all {
            "every project"
        } else {
            "this directory"
        };
        let mode = if self.full_text {
            "search in conversations"
        } else {
            "filter"
        };
        let head = format!(
            "{} {}",
            style.bold("Resume a session"),
            style.dim(&format!(
                "· {scope} · {} of {}",
                self.shown.len(),
                self.rows.iter().filter(|r| self.all || r.here).count()
            ))
        );
        let mut out = wrap(&head, width, "", "");
        // the query, then what Enter does with it when that is not plain
        // a query cut for matching says so; the end of a long one is shown
        let (used, cut) = fuzzy::capped(&self.query);
        let note = match (self.full_text, cut) {
            (false, true) if used.split_whitespace().count() == fuzzy::MAX_WORDS => {
                format!("(first {} words used)", fuzzy::MAX_WORDS)
            }
            (false, true) => format!("(first {} characters used)", fuzzy::MAX_CHARS),
            _ => String::new(),
        };
        let room = width.saturating_sub(30 + note.chars().count());
        let mut query = format!(
            "{} {}",
            style.dim(&format!("{mode} ›")),
            tail_width(&undisputed(&Sanitizer::clean(&self.query)), room)
        );
        if !note.is_empty() {
            query.push_str(&format!("  {}", style.dim(&note)));
        }
        if self.search_stale() {
            query.push_str(&format!("  {}", style.dim("(Enter searches)")));
        }
        out.extend(wrap(&query, width, "  ", "    "));
        let start = self
            .cursor
            .saturating_sub(PAGE / 2)
            .min(self.shown.len().saturating_sub(PAGE));
        for (n, &i) in self.shown.iter().enumerate().skip(start).take(PAGE) {
            let r = &self.rows[i];
            let when = crate::cli::term::time::relative_time(now_ms, r.modified);
            let mut what = r.title.clone();
            if !r.branch.is_empty() {
                what.push_str(&format!("  ⎇ {}", r.branch));
            }
            if !r.tag.is_empty() {
                what.push_str(&format!("  #{}", r.tag));
            }
            // every project's sessions: which project, by its last
            // components (they tell projects apart)
            // on a narrow screen the project takes half the room the
            // title would have (it took its columns whatever the width,
            // and the row wrapped)
            let project = if self.all {
                let columns = PROJECT_COLUMNS.min(width.saturating_sub(26) / 2);
                format!("{}  ", project_cell(r.cwd.as_deref(), columns))
            } else {
                String::new()
            };
            // the project cell's columns (a wide character takes two)
            let room = width.saturating_sub(24 + crate::cli::term::text::width(&project));
            // what terminals count otherwise left out: a row wider on
            // the terminal than counted would wrap, and every redraw
            // after it would land a row off (threats.md class 11)
            let what = cut_width(&undisputed(&what), room);
            // what the filter matched, marked as fzf marks it
            let what = if self.full_text {
                what
            } else {
                highlight(&what, &self.query, style)
            };
            let text = format!("{:>9}  {}{}", when, style.dim(&project), what);
            let id: String = r.id.chars().take(8).collect();
            let line = if n == self.cursor {
                format!(
                    "{} {} {}",
                    style.cyan("›"),
                    style.cyan(&id),
                    style.bold(&text)
                )
            } else {
                format!("  {} {}", style.dim(&id), text)
            };
            out.push(line);
        }
        if self.shown.is_empty() {
            out.push(format!("  {}", style.dim("no session matches")));
        }
        if let (Some(row), Some((id, lines))) = (self.selected(), &self.preview) {
            if *id == row.id {
                for l in lines.iter().take(6) {
                    // a tab as the 4 columns it is drawn in (the terminal
                    // moved to its next tab stop, past the width counted)
                    let l = l.replace('\t', "    ");
                    out.push(format!(
                        "    {} {}",
                        style.dim("│"),
                        cut_width(&undisputed(&l), width.saturating_sub(8))
                    ));
                }
            }
        }
        out.extend(wrap(&style.dim(&self.keys()), width, "  ", "  "));
        out
    }

    /// What each key does now (short: one line at 80 columns).
    pub fn keys(&self) -> String {
        let mut parts = Vec::new();
        if !self.shown.is_empty() {
            parts.push("↑↓ move");
        }
        if self.search_stale() {
            parts.push("Enter search");
        } else if !self.shown.is_empty() {
            parts.push("Enter resume");
        }
        parts.push(if self.full_text {
            "Tab back to filter"
        } else {
            "Tab search text"
        });
        parts.push(if self.all {
            "Ctrl-A here only"
        } else {
            "Ctrl-A all projects"
        });
        parts.push("Esc cancel");
        parts.join(" · ")
    }
}

/// The end of `s` in at most `max` columns, `…` in front when cut (the end
/// of a long query is where one types).
fn tail_width(s: &str, max: usize) -> String {
    use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};
    if s.width() <= max {
        return s.to_owned();
    }
    let mut kept = Vec::new();
    let mut w = 0;
    for c in s.chars().rev() {
        let cw = c.width().unwrap_or(0);
        if w + cw + 1 > max {
            break;
        }
        kept.push(c);
        w += cw;
    }
    std::iter::once('…').chain(kept.into_iter().rev()).collect()
}

/// The last exchange of a conversation, as preview lines: the last prompt
/// and the start of the answer to it (inert).
pub fn last_exchange(prompt: Option<&str>, answer: Option<&str>) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(p) = prompt {
        out.push(format!("› {}", Sanitizer::clean(&first_line(p, 300))));
    }
    if let Some(a) = answer {
        let clean = Sanitizer::clean(a);
        out.extend(
            clean
                .lines()
                .filter(|l| !l.trim().is_empty())
                .take(4)
                .map(str::to_owned),
        );
    }
    out
}

/// A conversation's last prompt (a person's text, not a tool's result or a
/// note of the CLI's, without the `!` commands sent in front of it) and the
/// answer after it: the store's typed walk, from the end.
pub fn exchange(c: &claudio::store::Conversation) -> (Option<String>, Option<String>) {
    let mut answer = None;
    for e in c.entries.iter().rev() {
        if answer.is_none() {
            answer = e.answer();
        }
        if let Some(p) = e.prompt() {
            return (Some(p), answer);
        }
    }
    (None, answer)
}

/// The finder on the terminal: draws, reads keys, loads what a step asks
/// for. `None` when the person cancelled.
pub fn pick(
    store: &claudio::store::Store,
    cwd: &std::path::Path,
    style: Style,
) -> anyhow::Result<Option<Row>> {
    pick_from(store, cwd, style, &mut Crossterm)
}

/// Where the finder's keys come from: crossterm's reader (`claudio
/// sessions`), or the chat's one reader of the keyboard (`/resume`).
pub trait KeySource {
    /// Whether a key (or another event) is there within `within`.
    fn poll(&mut self, within: std::time::Duration) -> std::io::Result<bool>;
    /// The next event, waited for: `Some` for a key, `None` for another.
    fn read(&mut self) -> std::io::Result<Option<crossterm::event::KeyEvent>>;
}

/// The terminal read through crossterm.
struct Crossterm;

impl KeySource for Crossterm {
    fn poll(&mut self, within: std::time::Duration) -> std::io::Result<bool> {
        crossterm::event::poll(within)
    }

    fn read(&mut self) -> std::io::Result<Option<crossterm::event::KeyEvent>> {
        Ok(match crossterm::event::read()? {
            crossterm::event::Event::Key(k) => Some(k),
            _ => None,
        })
    }
}

/// [`pick`], its keys from `keys`.
pub fn pick_from(
    store: &claudio::store::Store,
    cwd: &std::path::Path,
    style: Style,
    keys: &mut dyn KeySource,
) -> anyhow::Result<Option<Row>> {
    use claudio::store::ListOptions;
    use std::io::Write;
    let here = store.list(&ListOptions::for_dir(cwd.to_path_buf()))?;
    let mut branches = RecordedBranches::default();
    let rows: Vec<Row> = here
        .sessions
        .iter()
        .map(|s| Row::from_info(s, true, &mut branches))
        .collect();
    let mut finder = Finder::new(rows);
    let now = super::time::now_ms();
    let mut out = super::console::out();
    super::console::enable_raw_mode()?;
    // raw mode ends on every way out
    struct Cooked;
    impl Drop for Cooked {
        fn drop(&mut self) {
            let _ = super::console::disable_raw_mode();
        }
    }
    let _cooked = Cooked;
    let mut drawn = 0;
    let picked = 'keys: loop {
        if let Some(id) = finder.wants_preview().map(str::to_owned) {
            let lines = match store.conversation(&id) {
                Ok((_, c)) => {
                    let (prompt, answer) = exchange(&c);
                    last_exchange(prompt.as_deref(), answer.as_deref())
                }
                Err(e) => vec![Sanitizer::clean(&e.to_string())],
            };
            finder.set_preview(&id, lines);
        }
        let width = super::console::size().map_or(80, |(w, _)| w as usize);
        let lines = finder.lines(style, width, now);
        write!(out, "{}", redraw(drawn, &lines))?;
        out.flush()?;
        drawn = lines.len();
        // the person stopped typing a search: it runs without Enter
        if let Some(Step::Search { text, all }) = finder.search_due() {
            if !keys.poll(SEARCH_PAUSE)? {
                let ids = search_ids(store, cwd, &text, all)?;
                finder.found(&text, ids);
                continue;
            }
        }
        // every key already waiting (a paste), the rows filtered once
        let mut pressed = Vec::new();
        loop {
            if let Some(k) = keys.read()? {
                if k.kind == crossterm::event::KeyEventKind::Press {
                    pressed.push(k);
                }
            }
            if pressed.len() >= BATCH || !keys.poll(std::time::Duration::ZERO)? {
                break;
            }
        }
        for k in pressed {
            match finder.press(k) {
                Some(Step::Resume(row)) => break 'keys Some(row),
                Some(Step::Cancel) => break 'keys None,
                Some(Step::LoadAll) => {
                    let all = store.list(&ListOptions::default())?;
                    let mine: HashSet<&str> = here
                        .sessions
                        .iter()
                        .map(|s| s.session_id.as_str())
                        .collect();
                    let rows = all
                        .sessions
                        .iter()
                        .map(|s| {
                            let here = mine.contains(s.session_id.as_str());
                            Row::from_info(s, here, &mut branches)
                        })
                        .collect();
                    finder.set_rows(rows);
                }
                Some(Step::Search { text, all }) => {
                    let ids = search_ids(store, cwd, &text, all)?;
                    finder.found(&text, ids);
                }
                Some(Step::Redraw) | None => {}
            }
        }
        finder.settle();
    };
    write!(out, "{}\r\n", redraw(drawn, &[]))?;
    out.flush()?;
    Ok(picked)
}

/// How long the typing must pause before a full-text search runs.
const SEARCH_PAUSE: std::time::Duration = std::time::Duration::from_millis(300);

/// The sessions whose conversations hold `text` (every project, or `cwd`'s).
fn search_ids(
    store: &claudio::store::Store,
    cwd: &std::path::Path,
    text: &str,
    all: bool,
) -> anyhow::Result<HashSet<String>> {
    use claudio::store::{Pattern, SearchOptions};
    let mut opts = SearchOptions::new(Pattern::Literal {
        text: text.to_owned(),
        ignore_case: true,
    });
    if !all {
        opts.dir = Some(cwd.to_path_buf());
    }
    let mut ids = HashSet::new();
    store.search(&opts, |found| {
        ids.insert(found.info.session_id);
        std::ops::ControlFlow::Continue(())
    })?;
    Ok(ids)
}

mod fuzzy;

#[cfg(test)]
mod tests;
