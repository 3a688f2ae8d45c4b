//! Asking the person at the terminal whether a tool may run.
//!
//! The question goes to the controlling terminal (`/dev/tty`), so it works
//! even when stdin and stdout are pipes, as ssh and sudo do. No terminal, a
//! closed terminal, or any error while asking means "deny": a tool never runs
//! unless the person said so.

use super::diff;
use super::sanitize::Sanitizer;
use super::style::Style;
use super::summary::tool_summary;
use claudio::{CanUseToolRequest, PermissionResult, RequestContext};
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::AsRawFd;
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

    pub fn is_set(&self) -> bool {
        self.flag.load(Ordering::SeqCst)
    }
}

impl Drop for CancelFlag {
    fn drop(&mut self) {
        self.watcher.abort();
        self.flag.store(true, Ordering::SeqCst);
    }
}

/// The person's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    AllowOnce,
    AllowSession,
    Deny(String),
}

impl Decision {
    /// Read an answer line: `y`, `a`, `n`, or a sentence (a denial with that reason).
    pub fn parse(line: &str) -> Decision {
        let t = line.trim();
        match t.to_ascii_lowercase().as_str() {
            "y" | "yes" => Decision::AllowOnce,
            "a" | "always" => Decision::AllowSession,
            "" | "n" | "no" => Decision::Deny("The user denied this tool call.".into()),
            _ => Decision::Deny(format!("The user denied this tool call: {t}")),
        }
    }

    pub fn into_result(self, req: &CanUseToolRequest) -> PermissionResult {
        match self {
            Decision::AllowOnce => PermissionResult::allow(),
            Decision::AllowSession => PermissionResult::allow_always(req.session_rules()),
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
}

impl TtyApprover {
    pub fn new(style: Style, cwd: std::path::PathBuf) -> Arc<Self> {
        let tty_path = std::env::var_os("CLAUDIO_TTY")
            .map(Into::into)
            .unwrap_or_else(|| "/dev/tty".into());
        Arc::new(TtyApprover {
            style,
            cwd,
            one_at_a_time: tokio::sync::Mutex::new(()),
            warned: AtomicBool::new(false),
            tty_path,
        })
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
            Ok(Ok(d)) => d.into_result(&req),
            Ok(Err(e)) if e.kind() == io::ErrorKind::Interrupted => {
                PermissionResult::deny("The request was withdrawn.")
            }
            Ok(Err(e)) => {
                if !self.warned.swap(true, Ordering::SeqCst) {
                    eprintln!(
                        "claudio: denied {}: cannot ask on the terminal ({e}); pass --allowed-tools or --permission-mode to allow tools in advance",
                        Sanitizer::clean(&req.tool_name)
                    );
                }
                PermissionResult::deny(NO_TERMINAL)
            }
            Err(_) => PermissionResult::deny("The permission prompt failed."),
        }
    }

    fn ask_blocking(
        &self,
        req: &CanUseToolRequest,
        cancelled: &AtomicBool,
    ) -> io::Result<Decision> {
        let mut tty = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&self.tty_path)?;
        let mut expanded = false;
        loop {
            let (question, folded) = self.render(req, expanded);
            tty.write_all(question.as_bytes())?;
            tty.flush()?;
            let line = read_line_cancellable(&mut tty, cancelled)?;
            if folded && line.trim() == "d" {
                expanded = true;
                continue;
            }
            return Ok(Decision::parse(&line));
        }
    }

    /// The question, made safe for the terminal; `true` when a long diff
    /// was folded (`d` shows all of it).
    pub fn render(&self, req: &CanUseToolRequest, expanded: bool) -> (String, bool) {
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
        out.push_str(&format!(
            "\n  {} {}  {}{counts}\n",
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
        out.push_str(&format!(
            "  {} Allow?  {} yes  {} always this session  {} no  or type why not › ",
            s.yellow("└"),
            s.bold("[y]"),
            s.bold("[a]"),
            s.bold("[n]")
        ));
        (out, folded)
    }
}

/// Read one line from the terminal, giving up when `cancelled` is set.
/// End of file (a closed terminal) is an error.
fn read_line_cancellable(tty: &mut File, cancelled: &AtomicBool) -> io::Result<String> {
    let fd = tty.as_raw_fd();
    let mut line = Vec::new();
    loop {
        if cancelled.load(Ordering::SeqCst) {
            let _ = tty.write_all(b"\n  (withdrawn)\n");
            return Err(io::Error::new(io::ErrorKind::Interrupted, "withdrawn"));
        }
        let mut pfd = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd.
        let n = unsafe { libc::poll(&mut pfd, 1, Duration::from_millis(100).as_millis() as i32) };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
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
    fn answers() {
        assert_eq!(Decision::parse("y\n"), Decision::AllowOnce);
        assert_eq!(Decision::parse(" YES "), Decision::AllowOnce);
        assert_eq!(Decision::parse("a"), Decision::AllowSession);
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
        let (text, _) = a.render(&req, false);
        assert!(!text.contains('\u{1b}'), "{text:?}");
        assert!(!text.contains('\u{7}'));
        assert!(text.contains("echo hi"));
        assert!(text.contains("/etc/x"));
        assert!(text.contains("[a] always this session"));
    }
}
