//! A tool approval: may this tool call run? What is shown (the call, its
//! diff, what each choice allows), what an answer means, and what each
//! answer sends. Pure: the diff is read by the front end
//! ([`super::diff::proposed`]) and handed in.
//!
//! Every choice is a letter and Enter: `y` allows once, `a` for this
//! session (as far as the CLI's suggestion reaches, said on screen), `p` in
//! this project and `u` in every project (only when the CLI suggested a
//! rule to keep), `n` or Enter alone denies, `d` shows a folded diff. Any
//! other text is a reason, sent back with the denial: a reason that starts
//! with a choice's letter ("always ask first") is read whole, never as the
//! choice. In the chat, Esc (or Ctrl-C) denies and stops the turn.

use super::diff::{self, Change, Unavailable};
use crate::cli::sanitize::Sanitizer;
use crate::cli::term::style::Style;
use crate::cli::term::wrap::{wrap_exact, wrapped};
use crate::cli::turn::summary::{tool_summary_at, Here};
use claudio::protocol::{PermissionDestination, SessionScope};
use claudio::{CanUseToolRequest, PermissionResult};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::ops::Range;

/// The message the model gets when nobody can be asked.
pub const NO_TERMINAL: &str =
    "no terminal to ask the user; pass --allowed-tools or --permission-mode";

/// What the note says when a call is allowed because the same call was
/// allowed for this session.
pub const SAME_CALL: &str = "allowed: the same call was allowed for this session";

/// The denial when the person presses Esc (the turn stops too).
pub const DENIED_AND_STOPPED: &str = "The user denied this tool call and stopped the turn.";

/// The person's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    AllowOnce,
    /// For this session, as far as [`Offer::session`] reaches: the CLI's
    /// own rule, its own mode suggestion, or this exact call.
    AllowSession,
    /// Always, in this project: the CLI keeps the rule it suggested in
    /// `.claude/settings.local.json`. Offered only with a suggested rule.
    AllowProject,
    /// Always, in every project: the CLI keeps the rule it suggested in
    /// `~/.claude/settings.json`. Offered only with a suggested rule.
    AllowUser,
    Deny(String),
}

/// What the choices of one approval do, worked out before it is shown, so
/// what the person reads is what a key does. Never wider than what the CLI
/// suggested: with no suggested rule nothing is saved, and "this session"
/// covers the same call only.
#[derive(Debug, Clone, PartialEq)]
pub struct Offer {
    /// What `a` allows.
    pub session: SessionScope,
    /// The rules `p` and `u` keep, as shown (inert); empty: `p` and `u`
    /// are not offered.
    pub rules: Vec<String>,
}

impl Offer {
    pub fn of(req: &CanUseToolRequest) -> Offer {
        let rules = req
            .session_rules()
            .iter()
            .flat_map(|u| u.rules.iter().flatten())
            .map(|r| Sanitizer::visible(&r.to_string()))
            .collect();
        Offer {
            session: req.session_scope(),
            rules,
        }
    }

    /// Whether a rule can be kept past the session (`p`, `u`).
    pub fn can_keep(&self) -> bool {
        !self.rules.is_empty()
    }

    /// What `a` allows, in words.
    pub fn session_words(&self) -> String {
        match &self.session {
            SessionScope::Rules(_) => format!("{}, for this session", self.rules.join(", ")),
            SessionScope::Mode(_) => "every file edit, for this session (accept edits)".into(),
            _ => "this exact call again, for this session (the CLI suggested no rule)".into(),
        }
    }
}

/// Calls the person allowed "for this session" when the CLI suggested no
/// rule: the same tool with the same input is not asked again; anything
/// else is.
#[derive(Debug, Default, Clone)]
pub struct SessionGrants(std::collections::HashSet<(String, String)>);

impl SessionGrants {
    fn key(req: &CanUseToolRequest) -> (String, String) {
        (req.tool_name.clone(), req.input.to_string())
    }

    /// Remember `req`'s exact call; whether it was not remembered before.
    pub fn remember(&mut self, req: &CanUseToolRequest) -> bool {
        self.0.insert(Self::key(req))
    }

    /// Forget `req`'s exact call: the answer that allowed it for the
    /// session never reached the CLI (the deck's answer came first).
    pub fn forget(&mut self, req: &CanUseToolRequest) {
        self.0.remove(&Self::key(req));
    }

    /// Whether `req` is a call the person already allowed for the session.
    pub fn allows(&self, req: &CanUseToolRequest) -> bool {
        self.0.contains(&Self::key(req))
    }
}

/// `p` or `u` answered to a call the CLI suggested no rule for: there is
/// none to keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the CLI suggested no rule for this call, so there is none to keep: y, a or n")]
pub struct NoRuleToKeep;

impl Decision {
    /// Read an answer line: `y`, `a`, `p`, `u` (when `offer` can keep a
    /// rule), `n`, or a sentence (a denial with that reason). `Err` is what
    /// to tell the person when they chose what is not offered.
    pub fn parse(line: &str, offer: &Offer) -> Result<Decision, NoRuleToKeep> {
        let t = line.trim();
        Ok(match t.to_ascii_lowercase().as_str() {
            "y" | "yes" => Decision::AllowOnce,
            "a" | "always" => Decision::AllowSession,
            "p" | "u" if !offer.can_keep() => return Err(NoRuleToKeep),
            "p" => Decision::AllowProject,
            "u" => Decision::AllowUser,
            "" | "n" | "no" => Decision::Deny("The user denied this tool call.".into()),
            _ => Decision::Deny(format!("The user denied this tool call: {t}")),
        })
    }

    /// The answer to send for `req`. "This session" with no rule suggested
    /// sends a plain allow: the front end remembers the call
    /// ([`Decision::grants_this_call`]).
    pub fn result(&self, req: &CanUseToolRequest) -> PermissionResult {
        use claudio::protocol::DecisionClassification as By;
        let keep = |dest| match req.rules_for(dest) {
            // never widened: nothing suggested, nothing kept
            rules if rules.is_empty() => PermissionResult::allow().classified(By::UserTemporary),
            rules => PermissionResult::allow_always(rules).classified(By::UserPermanent),
        };
        match self {
            Decision::AllowOnce => PermissionResult::allow().classified(By::UserTemporary),
            Decision::AllowSession => match req.session_scope() {
                scope @ (SessionScope::Rules(_) | SessionScope::Mode(_)) => {
                    PermissionResult::allow_always(scope.updates())
                }
                // remembered by the front end (SessionGrants): still for the session
                _ => PermissionResult::allow(),
            }
            .classified(By::UserPermanent),
            Decision::AllowProject => keep(PermissionDestination::LocalSettings),
            Decision::AllowUser => keep(PermissionDestination::UserSettings),
            Decision::Deny(m) => PermissionResult::deny(m.clone()).classified(By::UserReject),
        }
    }

    /// Whether this answer allows `req`'s exact call for the session,
    /// which the front end then remembers ([`SessionGrants`]): "this
    /// session" when the CLI suggested no rule or mode to keep it by.
    pub fn grants_this_call(&self, req: &CanUseToolRequest) -> bool {
        *self == Decision::AllowSession
            && !matches!(
                req.session_scope(),
                SessionScope::Rules(_) | SessionScope::Mode(_)
            )
    }

    /// What the screen says once it is decided.
    pub fn note(&self, offer: &Offer) -> String {
        match self {
            Decision::AllowOnce => "allowed once".into(),
            Decision::AllowSession => format!("allowed: {}", offer.session_words()),
            Decision::AllowProject => {
                format!(
                    "allowed from now on in this project: {}",
                    offer.rules.join(", ")
                )
            }
            Decision::AllowUser => {
                format!(
                    "allowed from now on in every project: {}",
                    offer.rules.join(", ")
                )
            }
            Decision::Deny(_) => "denied".into(),
        }
    }

    /// The note, green for an allow and red for a denial.
    pub fn styled_note(&self, offer: &Offer, style: Style) -> String {
        match self {
            Decision::Deny(_) => style.red(&self.note(offer)),
            _ => style.green(&self.note(offer)),
        }
    }
}

/// What one answer to a tool approval comes to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolChoice {
    Decided(Decision),
    /// Deny, and stop the turn (Esc in the chat).
    DenyAndStop,
    /// Show the folded part of the diff, then ask again.
    ShowWholeDiff,
    /// A choice that is not offered: say why (the text), then ask again
    /// ([`ask_again`]).
    NotOffered(String),
}

impl ToolChoice {
    /// Read a whole answer line: `d` shows the rest of a folded diff
    /// (`can_expand`), anything else is a [`Decision`], or what is not
    /// offered.
    pub fn of_line(line: &str, offer: &Offer, can_expand: bool) -> ToolChoice {
        if can_expand && line.trim().eq_ignore_ascii_case("d") {
            return ToolChoice::ShowWholeDiff;
        }
        match Decision::parse(line, offer) {
            Ok(d) => ToolChoice::Decided(d),
            Err(why) => ToolChoice::NotOffered(why.to_string()),
        }
    }
}

/// An answer typed key by key on a raw terminal (the chat): keys in, a
/// [`ToolChoice`] out at Enter (and what to echo).
#[derive(Debug)]
pub struct ToolAnswer {
    typed: String,
    /// A folded diff is shown: `d` expands it.
    can_expand: bool,
    offer: Offer,
}

impl ToolAnswer {
    /// A fresh answer to `offer`; `can_expand` when a folded diff is shown.
    pub fn new(offer: Offer, can_expand: bool) -> ToolAnswer {
        ToolAnswer {
            typed: String::new(),
            can_expand,
            offer,
        }
    }

    /// What the choices do.
    pub fn offer(&self) -> &Offer {
        &self.offer
    }

    /// What is typed so far (as it was echoed).
    pub fn typed(&self) -> &str {
        &self.typed
    }

    /// The same question again, nothing typed.
    pub fn reset(&mut self, can_expand: bool) {
        self.typed.clear();
        self.can_expand = can_expand;
    }

    /// Feed one key; returns the echo to write and, when decided, the choice.
    pub fn key(&mut self, key: KeyEvent) -> (String, Option<ToolChoice>) {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Esc => (String::new(), Some(ToolChoice::DenyAndStop)),
            KeyCode::Char('c') | KeyCode::Char('d') if ctrl => {
                (String::new(), Some(ToolChoice::DenyAndStop))
            }
            KeyCode::Enter => {
                let choice = ToolChoice::of_line(&self.typed, &self.offer, self.can_expand);
                (String::new(), Some(choice))
            }
            KeyCode::Backspace => {
                // the last character taken back whole: both columns of a
                // wide one, a combining mark with the one it marks
                let mut columns = 0;
                while let Some(c) = self.typed.pop() {
                    columns = crate::cli::term::wrap::columns(c);
                    if columns > 0 {
                        break;
                    }
                }
                let back = "\x08".repeat(columns);
                (format!("{back}{}{back}", " ".repeat(columns)), None)
            }
            KeyCode::Char(c) if !ctrl && !c.is_control() => {
                self.typed.push(c);
                (c.to_string(), None)
            }
            _ => (String::new(), None),
        }
    }

    /// Pasted text joins the reason (newlines become spaces).
    pub fn paste(&mut self, text: &str) -> String {
        let clean: String = Sanitizer::clean(text)
            .chars()
            .map(|c| if c == '\n' || c == '\t' { ' ' } else { c })
            .collect();
        self.typed.push_str(&clean);
        clean
    }
}

/// The answers to a tool's question, as one line: `p` and `u` only when
/// there is a suggested rule to keep. Every choice ends with Enter, so a
/// reason that starts with one of the letters is read whole.
pub fn choices(s: &Style, offer: &Offer) -> String {
    let keep = if offer.can_keep() {
        format!("{} project · {} everywhere · ", s.bold("p"), s.bold("u"))
    } else {
        String::new()
    };
    format!(
        "Allow?  {} once · {} session · {keep}{} no · or why not; Enter › ",
        s.bold("y"),
        s.bold("a"),
        s.bold("n"),
    )
}

/// [`choices`] by their keys alone, on a screen too small for the words
/// (what each "always" allows is said above them, and `d` shows all).
pub fn compact_choices(s: &Style, offer: &Offer) -> String {
    let keep = if offer.can_keep() {
        format!("{}/{}/", s.bold("p"), s.bold("u"))
    } else {
        String::new()
    };
    format!(
        "Allow? {}/{}/{keep}{} or why, Enter › ",
        s.bold("y"),
        s.bold("a"),
        s.bold("n"),
    )
}

/// The question again after a choice that is not offered (`why`), on two
/// lines, the answer typed after the last.
pub fn ask_again(why: &str, offer: &Offer, style: Style) -> String {
    format!("  {}\n  {}", style.yellow(why), choices(&style, offer))
}

/// What a tool approval shows: the question with a long diff folded and,
/// when something was folded, with all of it (`d` shows it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    pub folded: String,
    pub whole: Option<String>,
}

impl Shown {
    /// The question for `req`, each row within `width`; `change` is the
    /// proposed edit, as [`diff::proposed`] read it; `agent`, the sub-agent
    /// that asks; its paths shown from `here`.
    pub fn new(
        req: &CanUseToolRequest,
        change: Option<&Result<Change, Unavailable>>,
        agent: Option<&str>,
        here: &Here,
        style: Style,
        width: usize,
    ) -> Shown {
        Frame::new(req, change, agent, here, style).shown(req, width)
    }
}

/// What a tool approval's question is drawn from, at any width: the
/// proposed change's diff rendered once (or why there is none), folded and
/// whole, and who asks. The chat draws the question again from it when the
/// terminal changes width while it waits.
#[derive(Debug, Clone)]
pub struct Frame {
    first: Body,
    all: Body,
    agent: Option<String>,
    here: Here,
    style: Style,
}

impl Frame {
    /// The question's parts for `req`; `change` is the proposed edit, as
    /// [`diff::proposed`] read it; `agent`, the sub-agent that asks; its
    /// paths shown from `here`.
    pub fn new(
        req: &CanUseToolRequest,
        change: Option<&Result<Change, Unavailable>>,
        agent: Option<&str>,
        here: &Here,
        style: Style,
    ) -> Frame {
        // the diff is made once (a big one takes a while), and folded;
        // when there is none, what the CLI will act on is shown as it is
        let rendered = match change {
            Some(Ok(c)) => Ok(diff::render(c, style, Some(diff::SHOW_AT_MOST))),
            Some(Err(why)) => Err((
                why.to_string(),
                diff::raw(&req.tool_name, &req.input, style, Some(diff::SHOW_AT_MOST)),
            )),
            None => Err((String::new(), None)),
        };
        let first = match &rendered {
            Ok(r) => Ok(r.folded_at(diff::FOLD_AT)),
            Err((why, raw)) => Err((
                why.clone(),
                raw.as_ref().map(|r| r.folded_at(diff::FOLD_AT)),
            )),
        };
        Frame {
            first,
            all: rendered,
            agent: agent.map(str::to_owned),
            here: here.clone(),
            style,
        }
    }

    /// The question, each row within `width`: folded, and whole when
    /// something was folded.
    pub fn shown(&self, req: &CanUseToolRequest, width: usize) -> Shown {
        let (folded, was_folded, _) = self.screen(req, false, width, false);
        let whole = was_folded.then(|| self.screen(req, true, width, false).0);
        Shown { folded, whole }
    }

    /// The question folded (or, `expanded`, whole) within `width`,
    /// whether something was folded, and where its parts are (`compact`:
    /// see [`screen`]).
    fn screen(
        &self,
        req: &CanUseToolRequest,
        expanded: bool,
        width: usize,
        compact: bool,
    ) -> (String, bool, Parts) {
        let body = if expanded { &self.all } else { &self.first };
        let agent = self.agent.as_deref();
        let at = (width, compact);
        screen(req, body, expanded, agent, &self.here, self.style, at)
    }

    /// The question as the chat draws it on a screen `height` rows tall,
    /// `width` wide ([`fit`]), with the whole of it (what `d` shows) and
    /// how many rows are cut. What runs (the command, the diff) stays next
    /// to the choices: on a screen too small for it, the rules each
    /// "always" keeps and the choices in words, the rows after what runs
    /// are drawn compact (one row each, the choices by their keys) when
    /// that shows what the whole form cuts of it; where the whole form
    /// shows all of it, or the compact one shows no more, nothing changes
    /// (a person choosing `p` reads the rule whole).
    fn bounded(
        &self,
        req: &CanUseToolRequest,
        expanded: bool,
        (width, height): (usize, usize),
        hint: &str,
    ) -> (Fitted, String) {
        use crate::cli::term::picker::screen_rows;
        let (whole, _, parts) = self.screen(req, expanded, width, false);
        let fitted = fit(
            &whole,
            width,
            height,
            hint,
            self.style,
            (2, 0, parts.choices),
        );
        let runs = &parts.runs;
        // all of what runs is shown: kept at the top (the head, when the
        // command is all in it) or in the tail
        let shows_all = |f: &Fitted| runs.end <= f.top || f.from <= runs.start;
        let shows_choices = fitted.from <= parts.choices;
        if fitted.cut == 0 || runs.is_empty() || (shows_all(&fitted) && shows_choices) {
            return (fitted, whole);
        }
        let (compact, _, small_parts) = self.screen(req, expanded, width, true);
        let shortened = screen_rows(&whole, width).saturating_sub(screen_rows(&compact, width));
        let keep = (shortened, small_parts.choices);
        let compact_fit = |top| {
            fit(
                &compact,
                width,
                height,
                hint,
                self.style,
                (top, keep.0, keep.1),
            )
        };
        // a command the head shows whole keeps the head's rows, when they
        // fit with the choices
        let mut small = compact_fit(if runs.start == 1 { runs.end } else { 2 });
        if small.from > small_parts.choices || !shows_all(&small) {
            small = compact_fit(2);
        }
        let shows_none = fitted.from >= runs.end && fitted.top <= runs.start;
        if shows_none || !shows_choices || shows_all(&small) {
            (small, whole)
        } else {
            (fitted, whole)
        }
    }
}

/// A tool approval's body: the proposed change's diff, or why there is
/// none with, for a tool that changes a file, the raw input the CLI will
/// act on ([`diff::raw`]).
type Body = Result<diff::Rendered, (String, Option<diff::Rendered>)>;

/// The question, made safe for the terminal, each row within `width` (a
/// long line wraps inside the box, under its label); `rendered` is the
/// proposed change's diff, or why there is none and the raw input; `true`
/// when the diff or the raw input was folded (`d` shows the rest:
/// `expanded`), and where its parts are: the lines that show what runs
/// (the diff, the command, the input; the head's, when it shows it
/// whole), and the choices' first line. `compact`: every row after what
/// runs (the reason, what each "always" allows) is one row, cut, and the
/// choices are their keys ([`compact_choices`]), for a screen too small
/// for them all.
fn screen(
    req: &CanUseToolRequest,
    rendered: &Body,
    expanded: bool,
    agent: Option<&str>,
    here: &Here,
    style: Style,
    (width, compact): (usize, bool),
) -> (String, bool, Parts) {
    let s = &style;
    // what the person says yes to is shown whole: a control sequence
    // is made visible, never removed with what it holds
    let clean = Sanitizer::visible;
    let mut out = String::new();
    let summary = tool_summary_at(&req.tool_name, &req.input, here);
    // the head line shows the first 120 characters of one line
    let cut = summary.ends_with('…');
    let counts = match rendered {
        Ok(r) => format!("  {}", s.dim(&format!("(+{} −{})", r.added, r.removed))),
        Err(_) => String::new(),
    };
    let from = agent
        .map(|a| format!("  {}", s.dim(&format!("(from {})", clean(a)))))
        .unwrap_or_default();
    let side = format!("  {} ", s.yellow("│"));
    let head = format!(
        "{}  {}{counts}{from}",
        s.bold(&clean(&req.tool_name)),
        clean(&summary)
    );
    out.push('\n');
    out.push_str(&wrapped(
        &head,
        width,
        &format!("  {} ", s.yellow("┌")),
        &side,
    ));
    // the line `out` is on
    let at = |out: &String| out.matches('\n').count();
    // a command the head shows whole runs in it
    let mut runs = 1..at(&out);
    let mut folded = false;
    let (why, lines) = match rendered {
        Ok(r) => (None, Some(r)),
        Err((why, raw)) => (Some(why), raw.as_ref()),
    };
    if let Some(why) = why.filter(|w| !w.is_empty()) {
        out.push_str(&wrapped(&s.dim(&clean(why)), width, &side, &side));
        if lines.is_some() {
            let given = "so here is what the CLI is given, as it is:";
            out.push_str(&wrapped(&s.dim(given), width, &side, &side));
        }
    }
    if let Some(r) = lines {
        runs = at(&out)..at(&out);
        // a long line of code wraps under the code, past the numbers
        let code = format!("{side}{:9}", "");
        for line in &r.lines {
            for row in wrap_exact(line, width, &side, &code) {
                out.push_str(&row);
                out.push('\n');
            }
        }
        if r.folded > 0 && expanded {
            let more = format!("… {} more lines, too many to show", r.folded);
            out.push_str(&wrapped(&s.dim(&more), width, &side, &side));
        } else if r.folded > 0 {
            folded = true;
            let more = format!("… {} more lines — d then Enter shows all", r.folded);
            out.push_str(&wrapped(&s.dim(&more), width, &side, &side));
        }
        runs.end = at(&out);
    }
    let detail = |out: &mut String, label: &str, text: &str, one_row: bool| {
        if one_row {
            // its first words on one row, cut: `d` shows all of it
            let text = text.lines().collect::<Vec<_>>().join(" ");
            let row = format!("{side}{} {}", s.dim(label), clean(&text));
            out.push_str(&crate::cli::term::wrap::fit_row(&row, width));
            out.push('\n');
            return;
        }
        if width < 4 + 8 + 8 {
            // too narrow for the label's column beside 8 columns of text
            // (its rows would be wider than the screen, wrapped to its
            // first column): the label on a row of its own, the text under
            // the side alone
            let row = format!("{side}{}", s.dim(label));
            out.push_str(&crate::cli::term::wrap::fit_row(&row, width));
            out.push('\n');
            for line in text.lines() {
                for row in wrap_exact(&clean(line), width, &side, &side) {
                    out.push_str(&row);
                    out.push('\n');
                }
            }
            return;
        }
        let under = format!("{side}{:8}", "");
        for (i, line) in text.lines().enumerate() {
            let label = if i == 0 { label } else { "" };
            let first = format!("{side}{}", s.dim(&format!("{label:<8}")));
            for row in wrap_exact(&clean(line), width, &first, &under) {
                out.push_str(&row);
                out.push('\n');
            }
        }
    };
    // the model's words come before what runs, so that when the question
    // is bounded to the screen (its middle cut, [`fit`]) the cut takes
    // them first and what is approved stays next to the choices: a long
    // description after a long command showed only its own tail, looking
    // like the command
    if let Some(d) = &req.description {
        // a file tool's description is the CLI's name for the file (its
        // path), not a reason: "why  checkout.py" read as one
        if !file_tool(&req.tool_name) {
            detail(&mut out, "why", d, false);
        } else if !(cut && file_tool(&req.tool_name)) {
            detail(&mut out, "file", d, compact && !runs.is_empty());
        }
    }
    // whatever the head line could not show, in full, before any choice
    match req.input.get("command").and_then(|v| v.as_str()) {
        Some(cmd) if req.tool_name == "Bash" && (cut || cmd.lines().count() > 1) => {
            let from = at(&out);
            detail(&mut out, "command", cmd, false);
            runs = from..at(&out);
        }
        Some(_) if req.tool_name == "Bash" => {}
        // a file tool's text is the diff's or the raw input's (bounded,
        // folded): only its path is told whole here
        _ if cut && file_tool(&req.tool_name) => {
            let path = ["file_path", "notebook_path"]
                .iter()
                .find_map(|k| req.input.get(*k).and_then(|v| v.as_str()))
                .unwrap_or("");
            detail(&mut out, "file", path, false);
        }
        _ if cut => {
            let full = serde_json::to_string_pretty(&req.input).unwrap_or_default();
            let from = at(&out);
            detail(&mut out, "input", &full, false);
            runs = from..at(&out);
        }
        _ => {}
    }
    // after what runs, compact: one row each
    let one_row = compact && !runs.is_empty();
    if let Some(r) = req.reason() {
        detail(&mut out, "reason", &r, one_row);
    }
    if let Some(p) = &req.blocked_path {
        detail(&mut out, "path", p, one_row);
    }
    // what each "always" would allow, in full, before the person chooses
    let offer = Offer::of(req);
    detail(&mut out, "a", &offer.session_words(), one_row);
    if offer.can_keep() {
        let kept = format!(
            "{}, kept in this project / in every project",
            offer.rules.join(", ")
        );
        detail(&mut out, "p / u", &kept, one_row);
    }
    // the answer is typed after the last row
    let choices = if one_row {
        compact_choices(s, &offer)
    } else {
        choices(s, &offer)
    };
    let choices_at = at(&out);
    let end = wrap_exact(&choices, width, &format!("  {} ", s.yellow("└")), "    ");
    out.push_str(&end.join("\n"));
    let parts = Parts {
        runs,
        choices: choices_at,
    };
    (out, folded, parts)
}

/// Where the parts of a question are, by line: what runs, the choices.
#[derive(Debug, Clone)]
struct Parts {
    runs: Range<usize>,
    choices: usize,
}

/// The question as the chat draws it on a screen `height` rows tall,
/// `width` wide: when it takes more rows than the screen can hold (a row
/// kept for the answer), rows in its middle are cut: its head row stays,
/// and its tail (what each choice allows, the choices, where the answer is
/// typed) is always shown; a row in their place says how many rows are
/// cut, and `hint`: that `d` then Enter shows them all (written once, to
/// scroll back through), or that they were. So every redraw erases what
/// it drew: a row that scrolled off the top of the screen cannot be
/// erased, and a copy of it stayed in the scrollback at each resize.
/// `top` lines are kept at its top (the empty row and the head's first
/// row: 2); `shortened`, rows already left out of it (a compact form of
/// its rows, [`Frame::bounded`]), are counted with the cut and always
/// said. The lines from `choices` on are the choices, where the answer is
/// typed: on a screen with no room for them whole beside the `top` lines
/// and the marker, the empty row it begins with gives its room, so the
/// keys are never cut from `Enter ›` (the head's row stays: what is asked
/// about).
fn fit(
    question: &str,
    width: usize,
    height: usize,
    hint: &str,
    style: Style,
    (top, shortened, choices): (usize, usize, usize),
) -> Fitted {
    use crate::cli::term::wrap::{fit_row, terminal_rows};
    let budget = height.saturating_sub(1).max(1);
    let lines: Vec<&str> = question.split('\n').collect();
    let rows: Vec<usize> = lines.iter().map(|l| terminal_rows(l, width)).collect();
    let total: usize = rows.iter().sum();
    if total <= budget && shortened == 0 {
        let (top, from) = (lines.len(), lines.len());
        return Fitted {
            text: question.to_owned(),
            cut: 0,
            top,
            from,
        };
    }
    // the empty row it begins with, and its head's first row (or the
    // `top` lines asked for), when there is room for them beside the
    // marker and the choices
    let head = top.min(lines.len());
    let head = if budget >= head + 2 { head } else { 0 };
    let rows_of = |lines: Range<usize>| rows[lines].iter().sum::<usize>();
    let need = rows_of(choices.min(lines.len())..lines.len());
    let first = usize::from(
        head > 0
            && lines[0].is_empty()
            && rows_of(0..head) + 1 + need > budget
            && rows_of(1..head) + 1 + need <= budget,
    );
    let head_rows = rows_of(first..head);
    let room = budget.saturating_sub(head_rows + 1).max(1);
    // the tail, from the last row up, as much as fits
    let (mut tail, mut tail_rows) = (lines.len(), 0);
    while tail > head && tail_rows + rows[tail - 1] <= room {
        tail -= 1;
        tail_rows += rows[tail];
    }
    if tail == lines.len() {
        // its last line alone is taller than the screen: its last rows
        let last = lines[lines.len() - 1];
        // cut as the terminal wraps it (a wrap at spaces keeps eight
        // columns at least: wider than a narrower screen)
        let cut = crate::cli::term::wrap::terminal_cut(last, width);
        let kept = cut[cut.len().saturating_sub(budget)..].join("\n");
        let cut = total.saturating_sub(budget) + shortened;
        let (top, from) = (0, lines.len() - 1);
        return Fitted {
            text: kept,
            cut,
            top,
            from,
        };
    }
    let cut: usize = rows[head..tail].iter().sum::<usize>() + shortened;
    let side = format!("  {} ", style.yellow("│"));
    let more = format!("… {cut} more rows{hint}");
    let marker = fit_row(&format!("{side}{}", style.dim(&more)), width);
    let mut out: Vec<&str> = lines[first..head].to_vec();
    out.push(&marker);
    out.extend(&lines[tail..]);
    Fitted {
        text: out.join("\n"),
        cut,
        top: head,
        from: tail,
    }
}

/// A question bounded to the screen ([`fit`]): what is drawn, how many
/// rows are cut, and which of its lines are: those before `top` are
/// kept, then those from `from` on (all of them: both its line count).
struct Fitted {
    text: String,
    cut: usize,
    top: usize,
    from: usize,
}

/// The columns a question is drawn in on `at`: on a terminal that
/// re-wraps its rows ([`super::Screen::reflows`]), one less than the
/// screen's, so no row of it fills the screen's width: narrowed a column
/// at a time (a window's edge dragged), the terminal re-wraps none of its
/// rows, and a question bounded to the screen never grows past its top,
/// where the rows the terminal pushes are out of any redraw's reach (a
/// copy of them stayed in the scrollback at each narrowing).
fn drawn_width(at: &super::Screen) -> usize {
    if at.reflows {
        at.width.saturating_sub(1).max(1)
    } else {
        at.width
    }
}

/// What the cut rows of a question bounded to the screen say ([`fit`]):
/// `d` shows them, or they were shown (written above).
const SHOWS_ALL: &str = " — d then Enter shows all";
const SHOWN_ABOVE: &str = ", shown above";

/// The last lines of `text` that take at most `max` rows at `width`.
fn last_rows(text: &str, width: usize, max: usize) -> String {
    let lines: Vec<&str> = text.split('\n').collect();
    let (mut from, mut rows) = (lines.len(), 0);
    while from > 0 {
        let r = crate::cli::term::wrap::terminal_rows(lines[from - 1], width);
        if rows + r > max {
            break;
        }
        rows += r;
        from -= 1;
    }
    lines[from.min(lines.len() - 1)..].join("\n")
}

/// The tool approval, registered ([`super::registered`]).
pub static KIND: super::Registered = super::Registered {
    nobody_to_ask: NO_TERMINAL,
    cannot_ask: "denied",
    notice: |req| {
        let title = format!("{} waits for you", req.tool_name);
        (crate::cli::common::notify::Trigger::Permission, title)
    },
    open,
    #[cfg(test)]
    sample: tests::sample,
};

/// A tool approval, opened: the very call allowed for this session before
/// is allowed and said, not asked; any other is asked, with its diff read
/// from the disk here (a regular file only, bounded), once.
fn open(req: &CanUseToolRequest, at: &super::Asking<'_>) -> super::Opened {
    if at.grants.allows(req) {
        let style = at.style;
        let note = format!(
            "  {} {}  {}\n",
            style.green("✓"),
            Sanitizer::clean(&req.tool_name),
            style.dim(SAME_CALL)
        );
        let result = super::granted_before();
        return super::Opened::Decided { note, result };
    }
    let change = diff::proposed(&req.tool_name, &req.input, at.cwd);
    let here = Here::new(at.cwd);
    let agent = at.agent.as_deref();
    let frame = Frame::new(req, change.as_ref(), agent, &here, at.style);
    let shown = frame.shown(req, at.width);
    let approval = Approval::new(req.clone(), shown).drawn_from(frame);
    super::Opened::Ask(Box::new(approval))
}

/// A tool approval being asked: `y`, `a`, `p`, `u`, `n` or a reason, each
/// with Enter; `d` for the whole diff; in the chat, Esc denies and stops.
#[derive(Debug)]
pub struct Approval {
    req: Box<CanUseToolRequest>,
    answer: ToolAnswer,
    /// The question with the whole diff, when the first one folds it.
    whole: Option<String>,
    /// What to show next: the question, then (`ask`) the question again.
    next: String,
    /// What the question is drawn from, to draw it again at another width
    /// (the chat's terminal resized while it waits); `None`: it is not.
    frame: Option<Frame>,
    /// What the chat's dialog drew since its question began, bar the
    /// answer being typed, and the width it was drawn at: what a resize
    /// erases before the question is drawn again.
    drawn: String,
    drawn_at: usize,
    /// The question asked again under it after a choice not offered:
    /// what was typed, and why it is not offered. Drawn again under it
    /// (once, however often it was asked again).
    again: Option<(String, String)>,
    /// The whole diff is shown (`d`).
    expanded: bool,
    /// What is on the screen is no longer known (the chat was stopped and
    /// brought back): a resize draws the question anew below, erasing
    /// nothing.
    lost: bool,
}

impl Approval {
    /// Ask for `req`, showing `shown`.
    pub fn new(req: CanUseToolRequest, shown: Shown) -> Approval {
        let offer = Offer::of(&req);
        Approval {
            answer: ToolAnswer::new(offer, shown.whole.is_some()),
            req: Box::new(req),
            whole: shown.whole,
            next: shown.folded,
            frame: None,
            drawn: String::new(),
            drawn_at: 0,
            again: None,
            expanded: false,
            lost: false,
        }
    }

    /// Drawn again from `frame` when the chat's terminal changes width
    /// while it waits.
    pub fn drawn_from(mut self, frame: Frame) -> Approval {
        self.frame = Some(frame);
        self
    }

    /// What is drawn under the question at `at`'s size: the question
    /// asked again, after what was typed. Its words and its choices each
    /// wrap under their indent; where they would take more than a third
    /// of the screen, the words are one row, cut, and the choices their
    /// keys ([`compact_choices`]).
    fn under(&self, at: &super::Screen) -> String {
        let Some((typed, why)) = &self.again else {
            return String::new();
        };
        let (s, width) = (&at.style, drawn_width(at));
        let offer = self.answer.offer();
        let mut rows = wrap_exact(&s.yellow(why), width, "  ", "  ");
        rows.extend(wrap_exact(&choices(s, offer), width, "  ", "    "));
        if rows.len() > at.height / 3 {
            let why = crate::cli::term::wrap::fit_row(&format!("  {}", s.yellow(why)), width);
            rows = vec![why];
            rows.extend(wrap_exact(&compact_choices(s, offer), width, "  ", "    "));
        }
        format!("{typed}\r\n{}", rows.join("\r\n"))
    }

    /// The answer's line written again from its first row after a
    /// character was taken back from `before` (what was typed): a
    /// backspace cannot climb to the row above when what was typed wrapped,
    /// and the screen would show what is no longer typed.
    fn typed_again(&self, before: &str, width: usize) -> String {
        if before == self.answer.typed() {
            return String::new();
        }
        // the question's last line: the choices, the answer typed after it
        let line = self.drawn.rsplit('\n').next().unwrap_or_default();
        let rows = crate::cli::term::wrap::terminal_rows(&format!("{line}{before}"), width);
        let mut out = String::from("\r");
        if rows > 1 {
            out.push_str(&format!("\x1b[{}A", rows - 1));
        }
        out.push_str("\x1b[J");
        out.push_str(line);
        out.push_str(self.answer.typed());
        out
    }

    /// The question drawn again at `at`'s size, bounded to the screen
    /// beside what is drawn under it ([`Approval::under`]), with what is
    /// typed: the old one, and `typed` after it, erased from its first row
    /// to the end of the screen (its rows counted at `now` columns).
    fn redraw(&mut self, at: &super::Screen, now: usize, typed: &str) -> String {
        let Some(frame) = &self.frame else {
            return String::new();
        };
        let under = self.under(at);
        let rows = crate::cli::term::picker::screen_rows;
        // what was typed goes on the question's last row (a `p`, a `u`):
        // the rows under it are the others
        let below = rows(&under, at.width).saturating_sub(1);
        let height = at.height.saturating_sub(below);
        let hint = if self.expanded {
            SHOWN_ABOVE
        } else {
            SHOWS_ALL
        };
        let size = (drawn_width(at), height);
        let (fitted, whole) = frame.bounded(&self.req, self.expanded, size, hint);
        let (question, cut) = (fitted.text, fitted.cut);
        if !self.expanded && (cut > 0 || self.whole.is_some()) {
            // what `d` shows, at the width drawn now (kept at the old
            // one, its rows wrapped to the first column on a narrower
            // terminal): the whole diff, or the whole question
            let (_, folded, _) = frame.screen(&self.req, false, size.0, false);
            self.whole = Some(if folded {
                frame.screen(&self.req, true, size.0, false).0
            } else {
                whole
            });
            self.answer.can_expand = true;
        }
        let mut out = String::new();
        if std::mem::take(&mut self.lost) {
            out.push_str("\r\n");
        } else {
            let on_screen = format!("{}{typed}", self.drawn);
            let rows = rows(&on_screen, now);
            if rows > 1 {
                out.push_str(&format!("\x1b[{}A", rows - 1));
            }
            out.push_str("\r\x1b[J");
        }
        let question = question.replace('\n', "\r\n");
        out.push_str(&question);
        out.push_str(&under);
        out.push_str(self.answer.typed());
        self.drawn = format!("{question}{under}");
        self.drawn_at = at.width;
        out
    }

    /// The answer a decision sends, with the note that says it.
    fn decided(&self, d: &Decision, style: Style) -> (super::Done, String) {
        let grant = d.grants_this_call(&self.req).then(|| self.req.clone());
        let done = super::Done {
            result: d.result(&self.req),
            interrupt: false,
            grant,
        };
        (done, d.styled_note(self.answer.offer(), style))
    }

    /// Esc in the chat: denied, and the turn stops.
    fn stopped() -> super::Done {
        super::Done {
            result: PermissionResult::deny_and_interrupt(DENIED_AND_STOPPED)
                .classified(claudio::protocol::DecisionClassification::UserReject),
            interrupt: true,
            grant: None,
        }
    }
}

impl super::Kind for Approval {
    fn start(&mut self, at: &super::Screen) -> super::Step {
        let question = std::mem::take(&mut self.next);
        let size = (drawn_width(at), at.height);
        let (fitted, question) = match &self.frame {
            Some(frame) => frame.bounded(&self.req, false, size, SHOWS_ALL),
            None => {
                let plain = (2, 0, usize::MAX);
                let fitted = fit(&question, at.width, at.height, SHOWS_ALL, at.style, plain);
                (fitted, question)
            }
        };
        let write = fitted.text;
        if fitted.cut > 0 && self.whole.is_none() {
            // what the screen cannot hold is shown by `d`
            self.whole = Some(question);
            self.answer.can_expand = true;
        }
        self.drawn = write.clone();
        self.drawn_at = at.width;
        super::Step { write, done: None }
    }

    /// The question drawn again at the new width, with what was typed:
    /// the old one erased from its first row to the end of the screen (its
    /// rows as the terminal shows them now: re-wrapped to the new width,
    /// or as drawn at the old one on a terminal that cuts rows).
    fn resized(&mut self, at: &super::Screen) -> String {
        if self.frame.is_none() || (at.width == self.drawn_at && !self.lost) {
            return String::new();
        }
        // the rows it takes now: re-wrapped at the new width, or as they
        // were drawn on a terminal that cuts them
        let now = if at.reflows { at.width } else { self.drawn_at };
        let typed = self.answer.typed().to_owned();
        self.redraw(at, now, &typed)
    }

    fn screen_changed(&mut self, size: Option<(usize, usize)>) {
        if size.is_none() {
            self.lost = true;
        }
    }

    fn input(&mut self, input: super::Input, at: &super::Screen) -> super::Step {
        let style = at.style;
        let (echo, choice) = match input {
            super::Input::Key(k) if k.code == KeyCode::Backspace => {
                let before = self.answer.typed().to_owned();
                let (_, choice) = self.answer.key(k);
                (self.typed_again(&before, at.width), choice)
            }
            super::Input::Key(k) => self.answer.key(k),
            super::Input::Paste(text) => (self.answer.paste(&text), None),
        };
        let mut step = super::Step {
            write: echo,
            done: None,
        };
        let (done, note) = match choice {
            None => return step,
            Some(ToolChoice::ShowWholeDiff) => {
                // the whole diff, and the question again
                if let Some(all) = self.whole.take() {
                    // written once, to scroll back through; what a resize
                    // erases and draws again (the whole question, bounded
                    // to the screen) is only the rows the screen still
                    // shows of it
                    step.write.push_str("\r\n");
                    step.write.push_str(&all);
                    self.drawn = last_rows(&all, at.width, at.height.saturating_sub(1).max(1));
                    self.expanded = true;
                    self.again = None;
                }
                self.answer.reset(false);
                return step;
            }
            Some(ToolChoice::NotOffered(why)) => {
                // the question asked again once under it, what was typed
                // kept, and bounded with it to the screen: drawn again
                // over the last time it was (each answer not offered added
                // its rows, and the question outgrew the screen)
                let typed = self.answer.typed().to_owned();
                self.answer.reset(self.whole.is_some());
                self.again = Some((typed.clone(), why));
                if self.frame.is_some() {
                    step.write = self.redraw(at, at.width, &typed);
                } else {
                    let under = self.under(at);
                    self.drawn.push_str(&under);
                    step.write.push_str(&under[typed.len()..]);
                }
                return step;
            }
            Some(ToolChoice::Decided(d)) => self.decided(&d, style),
            Some(ToolChoice::DenyAndStop) => (Approval::stopped(), style.red("denied")),
        };
        // a long note wraps under its indent, never to column 0
        for line in crate::cli::term::wrap::wrap(&note, at.width, "  ", "    ") {
            step.write.push_str("\r\n");
            step.write.push_str(&line);
        }
        step.write.push_str("\r\n");
        step.done = Some(done);
        step
    }

    fn close(&mut self) -> String {
        "\r\n".into()
    }

    fn prompt(&mut self, _at: &super::Screen) -> String {
        std::mem::take(&mut self.next)
    }

    fn line(&mut self, line: &str, at: &super::Screen) -> super::Step {
        let offer = self.answer.offer().clone();
        let mut step = super::Step::default();
        match ToolChoice::of_line(line, &offer, self.whole.is_some()) {
            ToolChoice::ShowWholeDiff => self.next = self.whole.take().unwrap_or_default(),
            ToolChoice::NotOffered(why) => self.next = ask_again(&why, &offer, at.style),
            ToolChoice::Decided(d) => {
                let (done, note) = self.decided(&d, at.style);
                step.write = format!("  {note}\n");
                step.done = Some(done);
            }
            ToolChoice::DenyAndStop => step.done = Some(Approval::stopped()),
        }
        step
    }

    fn failed(&self) -> &'static str {
        "The permission prompt failed; nothing was allowed."
    }

    fn call(&self) -> Option<&str> {
        self.req.tool_use_id.as_deref()
    }
}

/// A tool whose approval shows a diff, or the raw text it writes.
fn file_tool(name: &str) -> bool {
    matches!(name, "Edit" | "MultiEdit" | "Write" | "NotebookEdit")
}

#[cfg(test)]
mod tests;
