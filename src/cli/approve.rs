//! Asking the person at the terminal whether a tool may run.
//!
//! The question goes to the controlling terminal (`/dev/tty`), so it works
//! even when stdin and stdout are pipes, as ssh and sudo do. No terminal, a
//! closed terminal, or any error while asking means "deny": a tool never runs
//! unless the person said so.

use super::asking;
use super::diff;
use super::sanitize::Sanitizer;
use super::spinner::Spinner;
use super::style::Style;
use super::summary::tool_summary;
use claudio::protocol::ask::{answer_questions, questions, RequestKind};
use claudio::protocol::PermissionDestination;
use claudio::{CanUseToolRequest, PermissionResult, RequestContext};
use rustix::event::{poll, PollFd, PollFlags};
use std::fs::File;
use std::io::{self, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The message the model gets when nobody can be asked.
pub const NO_TERMINAL: &str =
    "no terminal to ask the user; pass --allowed-tools or --permission-mode";

/// A request's cancellation as a flag a blocking prompt can poll. It is
/// also set when this value is dropped (the request's future went away).
pub struct CancelFlag {
    pub flag: Arc<AtomicBool>,
    watcher: tokio::task::JoinHandle<()>,
}

impl CancelFlag {
    pub fn watch(c: &claudio::Cancellation) -> CancelFlag {
        let flag = Arc::new(AtomicBool::new(false));
        let (f, c) = (flag.clone(), c.clone());
        let watcher = tokio::spawn(async move {
            c.cancelled().await;
            f.store(true, Ordering::SeqCst);
        });
        CancelFlag { flag, watcher }
    }
}

impl Drop for CancelFlag {
    fn drop(&mut self) {
        self.watcher.abort();
        self.flag.store(true, Ordering::SeqCst);
    }
}

/// The denial for a request when no terminal can ask the person: never
/// allowed silently, and the model is told why.
pub fn nobody_to_ask(tool_name: &str) -> PermissionResult {
    match RequestKind::of_tool(tool_name) {
        RequestKind::Questions => PermissionResult::deny(asking::NOBODY_TO_ASK),
        RequestKind::Plan => PermissionResult::deny(asking::NOBODY_TO_APPROVE),
        _ => PermissionResult::deny(NO_TERMINAL),
    }
}

/// The person's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    AllowOnce,
    AllowSession,
    /// Always, in this project: the CLI keeps the rule in
    /// `.claude/settings.local.json`.
    AllowProject,
    /// Always, in every project: the CLI keeps the rule in
    /// `~/.claude/settings.json`.
    AllowUser,
    Deny(String),
}

impl Decision {
    /// Read an answer line: `y`, `a`, `p`, `u`, `n`, or a sentence (a denial
    /// with that reason).
    pub fn parse(line: &str) -> Decision {
        let t = line.trim();
        match t.to_ascii_lowercase().as_str() {
            "y" | "yes" => Decision::AllowOnce,
            "a" | "always" => Decision::AllowSession,
            "p" => Decision::AllowProject,
            "u" => Decision::AllowUser,
            "" | "n" | "no" => Decision::Deny("The user denied this tool call.".into()),
            _ => Decision::Deny(format!("The user denied this tool call: {t}")),
        }
    }

    pub fn into_result(self, req: &CanUseToolRequest) -> PermissionResult {
        match self {
            Decision::AllowOnce => PermissionResult::allow(),
            Decision::AllowSession => PermissionResult::allow_always(req.session_rules()),
            Decision::AllowProject => {
                PermissionResult::allow_always(req.rules_for(PermissionDestination::LocalSettings))
            }
            Decision::AllowUser => {
                PermissionResult::allow_always(req.rules_for(PermissionDestination::UserSettings))
            }
            Decision::Deny(m) => PermissionResult::deny(m),
        }
    }
}

/// Asks on `/dev/tty`, one question at a time.
pub struct TtyApprover {
    style: Style,
    /// Where relative paths in tool inputs point.
    cwd: std::path::PathBuf,
    one_at_a_time: tokio::sync::Mutex<()>,
    warned: AtomicBool,
    tty_path: std::path::PathBuf,
    /// `ask`'s spinner line, taken away before a question is written.
    spinner: std::sync::OnceLock<Spinner>,
}

impl TtyApprover {
    pub fn new(style: Style, cwd: std::path::PathBuf) -> Arc<Self> {
        // A test seam, not a setting: tests point the question at a file
        // that is no terminal (the answer must then be "deny").
        let tty_path = std::env::var_os("CLAUDIO_TEST_TTY")
            .map(Into::into)
            .unwrap_or_else(|| "/dev/tty".into());
        Arc::new(TtyApprover {
            style,
            cwd,
            one_at_a_time: tokio::sync::Mutex::new(()),
            warned: AtomicBool::new(false),
            tty_path,
            spinner: std::sync::OnceLock::new(),
        })
    }

    /// Take `spinner` off the screen before each question.
    pub fn hide_while_asking(&self, spinner: Spinner) {
        let _ = self.spinner.set(spinner);
    }

    /// Answer one `can_use_tool` request.
    pub async fn decide(
        self: Arc<Self>,
        req: CanUseToolRequest,
        ctx: RequestContext,
    ) -> PermissionResult {
        let _turn = self.one_at_a_time.lock().await;
        let cancel = CancelFlag::watch(&ctx.cancellation);
        let cancelled = cancel.flag.clone();
        let me = self.clone();
        let req2 = req.clone();
        let answer = tokio::task::spawn_blocking(move || me.ask_blocking(&req2, &cancelled)).await;
        drop(cancel);
        match answer {
            Ok(Ok(r)) => r,
            Ok(Err(e)) if e.kind() == io::ErrorKind::Interrupted => {
                PermissionResult::deny(asking::WITHDRAWN)
            }
            Ok(Err(e)) => {
                let what = match req.kind() {
                    RequestKind::Questions => "could not ask the model's question",
                    RequestKind::Plan => "could not show the plan for approval",
                    _ => "denied",
                };
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

    fn ask_blocking(
        &self,
        req: &CanUseToolRequest,
        cancelled: &AtomicBool,
    ) -> io::Result<PermissionResult> {
        let _paused = self.spinner.get().map(Spinner::pause);
        let mut tty = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&self.tty_path)?;
        match req.kind() {
            RequestKind::Questions => return self.questions_blocking(&mut tty, req, cancelled),
            RequestKind::Plan => return self.plan_blocking(&mut tty, req, cancelled),
            _ => {}
        }
        let mut expanded = false;
        loop {
            let (question, folded) = self.render(req, expanded, None);
            tty.write_all(question.as_bytes())?;
            tty.flush()?;
            let line = read_line_cancellable(&mut tty, cancelled)?;
            if folded && line.trim() == "d" {
                expanded = true;
                continue;
            }
            return Ok(Decision::parse(&line).into_result(req));
        }
    }

    /// The model's questions, one at a time, answered with a typed line.
    fn questions_blocking(
        &self,
        tty: &mut File,
        req: &CanUseToolRequest,
        cancelled: &AtomicBool,
    ) -> io::Result<PermissionResult> {
        let s = self.style;
        let Some(qs) = questions(&req.input) else {
            return Ok(PermissionResult::deny(
                "The questions could not be read: each needs a `question` and `options`.",
            ));
        };
        let mut answers = Vec::new();
        for (i, q) in qs.iter().enumerate() {
            let text = format!(
                "{}{}  {} ",
                asking::question_head(q, i, qs.len(), None, s),
                asking::numbered_options(q, s),
                s.dim(if q.multi_select {
                    "numbers (1,3), or your own answer; Enter alone declines ›"
                } else {
                    "a number, or your own answer; Enter alone declines ›"
                })
            );
            tty.write_all(text.as_bytes())?;
            tty.flush()?;
            let line = read_line_cancellable(tty, cancelled)?;
            match asking::answer_from_line(q, &line) {
                Some(a) => answers.push((q.question.as_str(), a)),
                None => {
                    tty.write_all(format!("  {}\n", s.dim("declined")).as_bytes())?;
                    return Ok(PermissionResult::deny(asking::DECLINED));
                }
            }
        }
        Ok(answer_questions(&req.input, answers))
    }

    /// A plan to approve, answered with a typed line.
    fn plan_blocking(
        &self,
        tty: &mut File,
        req: &CanUseToolRequest,
        cancelled: &AtomicBool,
    ) -> io::Result<PermissionResult> {
        let s = self.style;
        // the library hands over the plan of the call this request is for
        let plan = req.plan().map(str::to_owned);
        let mut text = asking::plan_block(plan.as_deref(), None, s);
        for (i, (label, what)) in asking::PLAN_CHOICES.iter().enumerate() {
            text.push_str(&format!("    {}. {label}  {}\n", i + 1, s.dim(what)));
        }
        text.push_str(&format!(
            "  {} ",
            s.dim("1, 2, 3, or what to change; Enter alone rejects the plan ›")
        ));
        tty.write_all(text.as_bytes())?;
        tty.flush()?;
        let line = read_line_cancellable(tty, cancelled)?;
        Ok(asking::plan_result(&asking::plan_from_line(&line), &req.input).0)
    }

    /// The question, made safe for the terminal; `true` when a long diff
    /// was folded (`d` shows all of it).
    pub fn render(
        &self,
        req: &CanUseToolRequest,
        expanded: bool,
        agent: Option<&str>,
    ) -> (String, bool) {
        let s = &self.style;
        let clean = Sanitizer::clean;
        let mut out = String::new();
        let summary = tool_summary(&req.tool_name, &req.input);
        let change = diff::proposed(&req.tool_name, &req.input, &self.cwd);
        let rendered = match &change {
            Some(Ok(c)) => Ok(diff::render(c, *s, (!expanded).then_some(diff::FOLD_AT))),
            Some(Err(why)) => Err(why.clone()),
            None => Err(String::new()),
        };
        let counts = match &rendered {
            Ok(r) => format!("  {}", s.dim(&format!("(+{} −{})", r.added, r.removed))),
            Err(_) => String::new(),
        };
        let from = agent
            .map(|a| format!("  {}", s.dim(&format!("(from {})", clean(a)))))
            .unwrap_or_default();
        out.push_str(&format!(
            "\n  {} {}  {}{counts}{from}\n",
            s.yellow("┌"),
            s.bold(&clean(&req.tool_name)),
            clean(&summary)
        ));
        let mut folded = false;
        match &rendered {
            Ok(r) => {
                for line in &r.lines {
                    out.push_str(&format!("  {} {line}\n", s.yellow("│")));
                }
                if r.folded > 0 {
                    folded = true;
                    out.push_str(&format!(
                        "  {} {}\n",
                        s.yellow("│"),
                        s.dim(&format!("… {} more lines — [d] show all", r.folded))
                    ));
                }
            }
            Err(why) if !why.is_empty() => {
                out.push_str(&format!("  {} {}\n", s.yellow("│"), s.dim(&clean(why))));
            }
            Err(_) => {}
        }
        let mut detail = |label: &str, text: &str| {
            for (i, line) in text.lines().enumerate() {
                let label = if i == 0 { label } else { "" };
                out.push_str(&format!(
                    "  {} {}{}\n",
                    s.yellow("│"),
                    s.dim(&format!("{label:<8}")),
                    clean(line)
                ));
            }
        };
        if req.tool_name == "Bash" {
            if let Some(cmd) = req.input.get("command").and_then(|v| v.as_str()) {
                if cmd.lines().count() > 1 {
                    detail("command", cmd);
                }
            }
        }
        if let Some(d) = &req.description {
            detail("why", d);
        }
        if let Some(r) = req.reason() {
            detail("reason", &r);
        }
        if let Some(p) = &req.blocked_path {
            detail("path", p);
        }
        // what "always" would keep, before the person chooses
        detail("rule", &rule_text(req));
        out.push_str(&format!("  {} {}", s.yellow("└"), choices(s)));
        (out, folded)
    }
}

/// The rules "always" keeps for this call: the CLI's own suggestion
/// (`Bash(cargo test *)`), else the whole tool. Inert.
pub fn rule_text(req: &CanUseToolRequest) -> String {
    let rules = req.session_rules();
    let shown: Vec<String> = rules
        .iter()
        .flat_map(|u| u.rules.iter().flatten())
        .map(|r| Sanitizer::clean(&r.to_string()))
        .collect();
    shown.join(", ")
}

/// The answers to a tool's question, as one line.
pub fn choices(s: &Style) -> String {
    format!(
        "Allow?  {} once  {} session  {} project  {} everywhere  {} no  or why not › ",
        s.bold("[y]"),
        s.bold("[a]"),
        s.bold("[p⏎]"),
        s.bold("[u⏎]"),
        s.bold("[n]")
    )
}

/// Read one line from the terminal, giving up when `cancelled` is set.
/// End of file (a closed terminal) is an error.
fn read_line_cancellable(tty: &mut File, cancelled: &AtomicBool) -> io::Result<String> {
    let mut line = Vec::new();
    loop {
        if cancelled.load(Ordering::SeqCst) {
            let _ = tty.write_all(b"\n  (withdrawn)\n");
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
        if let Some(i) = line.iter().position(|&b| b == b'\n') {
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
    use super::*;
    use serde_json::json;

    #[test]
    fn always_keeps_the_cli_s_own_rule_where_the_person_chose() {
        let req: CanUseToolRequest = serde_json::from_value(serde_json::json!({
            "tool_name": "Bash", "input": {"command": "cargo test"},
            "permission_suggestions": [
                {"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"cargo test *"}],
                 "behavior":"allow","destination":"localSettings"},
                {"type":"setMode","mode":"acceptEdits","destination":"session"}]
        }))
        .unwrap();
        assert_eq!(rule_text(&req), "Bash(cargo test *)");
        for (d, dest) in [
            (Decision::AllowSession, "session"),
            (Decision::AllowProject, "localSettings"),
            (Decision::AllowUser, "userSettings"),
        ] {
            let sent = d.into_result(&req).to_response(&req.input);
            assert_eq!(
                sent["updatedPermissions"],
                serde_json::json!([{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"cargo test *"}],
                    "behavior":"allow","destination":dest}]),
                "{sent}"
            );
        }
        let once = Decision::AllowOnce
            .into_result(&req)
            .to_response(&req.input);
        assert!(once.get("updatedPermissions").is_none(), "{once}");
        // no suggestion: the whole tool, shown as such
        let bare: CanUseToolRequest =
            serde_json::from_value(serde_json::json!({"tool_name":"Read\u{1b}[2J","input":{}}))
                .unwrap();
        assert_eq!(rule_text(&bare), "Read");
    }

    #[test]
    fn answers() {
        assert_eq!(Decision::parse("y\n"), Decision::AllowOnce);
        assert_eq!(Decision::parse(" YES "), Decision::AllowOnce);
        assert_eq!(Decision::parse("a"), Decision::AllowSession);
        assert_eq!(Decision::parse("p"), Decision::AllowProject);
        assert_eq!(Decision::parse(" U"), Decision::AllowUser);
        assert!(matches!(Decision::parse("user"), Decision::Deny(_)));
        assert!(matches!(Decision::parse(""), Decision::Deny(_)));
        assert!(matches!(Decision::parse("n"), Decision::Deny(_)));
        assert_eq!(
            Decision::parse("use ripgrep instead"),
            Decision::Deny("The user denied this tool call: use ripgrep instead".into())
        );
    }

    #[test]
    fn render_is_inert() {
        let req: CanUseToolRequest = serde_json::from_value(json!({
            "tool_name":"Bash","input":{"command":"echo \u{1b}]52;c;AAAA\u{7}hi"},
            "description":"say \u{1b}[2Jhi","blocked_path":"/etc/x"
        }))
        .unwrap();
        let a = TtyApprover::new(Style::plain(), std::env::temp_dir());
        let (text, _) = a.render(&req, false, None);
        assert!(!text.contains('\u{1b}'), "{text:?}");
        assert!(!text.contains('\u{7}'));
        assert!(text.contains("echo hi"));
        assert!(text.contains("/etc/x"));
        assert!(text.contains("[a] session  [p⏎] project  [u⏎] everywhere"));
        assert!(text.contains("│ rule    Bash"), "{text}");
    }
}
