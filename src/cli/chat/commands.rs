//! Slash commands of the chat: parsing them, and running the chat's own.

use super::core::{short_id, terminal_width, Chat};
use crate::cli::sanitize::Sanitizer;
use crate::cli::style::Style;

/// The chat's own commands; any other `/word` goes to Claude Code as typed.
pub const COMMANDS: &[(&str, &str)] = &[
    ("/help", "this list"),
    ("/model", "show or switch the model: /model [NAME]"),
    ("/mode", "show or switch the permission mode: /mode [MODE]"),
    ("/cost", "turns, cost and time of this session"),
    ("/context", "what fills the context window"),
    ("/mcp", "MCP servers and their status"),
    ("/new", "start a fresh session"),
    ("/resume", "resume a session: /resume ID"),
    ("/sessions", "recent sessions of this directory"),
    (
        "/rewind",
        "go back to before a prompt, files too (also Esc Esc)",
    ),
    ("/exit", "end the chat (also Ctrl-D)"),
    (
        "!",
        "run a shell command; its output goes to Claude with your next prompt: !cargo test",
    ),
];

/// The chat's keys, for `/help` (the README's table says the same).
pub const KEYS: &[(&str, &str)] = &[
    (
        "Enter",
        "send; while Claude works: queue the line for after the turn",
    ),
    (
        "Alt-Enter",
        "a new line; while Claude works: send the line now, cutting in",
    ),
    ("Tab", "complete a /command, or a file after @"),
    (
        "Shift-Tab",
        "next permission mode: default → acceptEdits → plan",
    ),
    ("Esc Esc", "rewind (at an empty prompt)"),
    (
        "Ctrl-C",
        "interrupt the turn (twice: quit); stop a !command",
    ),
    (
        "Ctrl-S/X",
        "while Claude works: send the oldest queued prompt now / drop the newest",
    ),
    ("Ctrl-D", "end the chat"),
];

/// A parsed line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// A prompt for Claude (including unknown `/commands`).
    Prompt(String),
    /// `!command`: run it in the shell.
    Shell(String),
    Help,
    Model(Option<String>),
    Mode(Option<String>),
    Cost,
    Context,
    Mcp,
    New,
    Resume(Option<String>),
    Sessions,
    Rewind,
    Exit,
}

/// Parse a line from the editor. Multi-line input keeps its newlines;
/// a trailing `\` that continued a line is removed.
pub fn parse(line: &str) -> Option<Input> {
    let text = join_continuations(line);
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return None;
    }
    if let Some(cmd) = trimmed.strip_prefix('!') {
        return Some(Input::Shell(cmd.trim().to_owned()));
    }
    let mut words = trimmed.splitn(2, char::is_whitespace);
    let head = words.next().unwrap_or("");
    let arg = words
        .next()
        .map(str::trim)
        .filter(|a| !a.is_empty())
        .map(str::to_owned);
    Some(match head {
        "/help" | "/?" => Input::Help,
        "/model" => Input::Model(arg),
        "/mode" => Input::Mode(arg),
        "/cost" => Input::Cost,
        "/context" => Input::Context,
        "/mcp" => Input::Mcp,
        "/new" | "/clear" => Input::New,
        "/resume" => Input::Resume(arg),
        "/sessions" => Input::Sessions,
        "/rewind" => Input::Rewind,
        "/exit" | "/quit" => Input::Exit,
        _ => Input::Prompt(text.trim_end().to_owned()),
    })
}

fn join_continuations(line: &str) -> String {
    line.split('\n')
        .map(|l| l.strip_suffix('\\').unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Commands starting with `prefix` (for tab completion).
pub fn complete(prefix: &str) -> Vec<&'static str> {
    COMMANDS
        .iter()
        .map(|(c, _)| *c)
        .filter(|c| c.starts_with('/') && c.starts_with(prefix))
        .collect()
}

impl Chat<'_> {
    /// Run one of the chat's own commands (not a prompt, `!`, rewind or
    /// exit: the prompt loop does those).
    pub(super) fn command(&mut self, input: Input) -> anyhow::Result<()> {
        match input {
            Input::Help => {
                let mut text = String::new();
                for (c, what) in COMMANDS {
                    text.push_str(&format!(
                        "  {} {}\n",
                        self.style.bold(&format!("{c:<10}")),
                        what
                    ));
                }
                text.push_str(&format!(
                    "  {}\n\n",
                    self.style.dim(
                        "Other /commands go to Claude Code. A trailing \\ continues a line. @path mentions a file."
                    )
                ));
                for (k, what) in KEYS {
                    text.push_str(&format!(
                        "  {} {}\n",
                        self.style.bold(&format!("{k:<10}")),
                        what
                    ));
                }
                self.write(&text);
            }
            Input::Model(None) => {
                let m = self.state.model.clone().unwrap_or_else(|| "default".into());
                self.info(&format!("model: {m}"));
            }
            Input::Model(Some(name)) => {
                let rt = self.rt;
                let target = (name != "default").then_some(name.as_str());
                rt.block_on(self.client()?.set_model(target))?;
                self.state.model = target.map(str::to_owned);
                self.info(&format!("model: {name} (from the next request)"));
            }
            Input::Mode(None) => {
                let m = self.state.mode.clone().unwrap_or_else(|| "default".into());
                self.info(&format!(
                    "permission mode: {m} (default, acceptEdits, plan, bypassPermissions, dontAsk, auto)"
                ));
            }
            Input::Mode(Some(name)) => {
                // a typo never reaches the CLI
                let mode: claudio::PermissionMode = name.parse()?;
                let rt = self.rt;
                rt.block_on(self.client()?.set_permission_mode(mode.clone()))?;
                self.state.mode = Some(mode.to_string());
                self.info(&format!("permission mode: {mode}"));
            }
            Input::Cost => {
                let t = self.state.totals.clone();
                self.info(&format!(
                    "{} turn(s) · ${:.4} · {:.1}s ({:.1}s in the API)",
                    t.turns,
                    t.cost_usd,
                    t.duration.as_secs_f64(),
                    t.api_duration.as_secs_f64()
                ));
            }
            Input::Context => {
                let rt = self.rt;
                let usage = rt.block_on(self.client()?.context_usage())?;
                let chart = context_chart(&usage, self.style);
                self.write(&chart);
            }
            Input::Mcp => {
                let rt = self.rt;
                let status = rt.block_on(self.client()?.mcp_status())?;
                if status.servers.is_empty() {
                    self.info("no MCP servers");
                }
                for s in &status.servers {
                    let why = s
                        .error
                        .as_deref()
                        .map(|e| format!(" ({e})"))
                        .unwrap_or_default();
                    self.info(&format!("{}: {}{why}", s.name, s.status));
                }
            }
            Input::New => {
                self.close();
                let mut fresh = self.session.clone();
                fresh.resume = None;
                fresh.continue_session = false;
                self.state.session_id = None;
                self.start_connect(fresh)?;
                self.info("new session");
            }
            Input::Resume(None) => self.info("usage: /resume ID"),
            Input::Resume(Some(id)) => {
                // found in any project; the CLI runs where it was recorded
                let target = claudio::store::Store::from_env()?.resume_target(&id)?;
                self.close();
                let mut s = self.session.clone();
                s.resume = Some(target.id.clone());
                s.continue_session = false;
                if target.cwd.is_dir() {
                    self.cwd = target.cwd.clone();
                    s.cwd = Some(target.cwd);
                }
                self.state.session_id = Some(target.id.clone());
                self.start_connect(s)?;
                self.info(&format!("resuming {}", short_id(&target.id)));
            }
            Input::Sessions => self.recent_sessions()?,
            Input::Prompt(_) | Input::Shell(_) | Input::Rewind | Input::Exit => {}
        }
        Ok(())
    }

    fn recent_sessions(&mut self) -> anyhow::Result<()> {
        let store = claudio::store::Store::from_env()?;
        let listing =
            store.list(&claudio::store::ListOptions::for_dir(self.cwd.clone()).limit(10))?;
        if listing.sessions.is_empty() {
            self.info("no sessions in this directory yet");
            return Ok(());
        }
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0);
        let width = terminal_width().saturating_sub(30).max(20);
        let mut text = String::new();
        for s in &listing.sessions {
            let when = crate::cli::sessions::relative_time(now, s.last_modified);
            let title = crate::cli::summary::truncate_width(&Sanitizer::clean(&s.summary), width);
            text.push_str(&format!(
                "  {}  {:>9}  {}\n",
                self.style.cyan(&short_id(&s.session_id)),
                self.style.dim(&when),
                title
            ));
        }
        text.push_str(&format!("  {}\n", self.style.dim("/resume ID to open one")));
        self.write(&text);
        Ok(())
    }
}

fn context_chart(usage: &claudio::ContextUsage, style: Style) -> String {
    let max = usage.max_tokens as f64;
    let total = usage.total_tokens as f64;
    let mut out = String::new();
    let cats = &usage.categories;
    let name_w = cats
        .iter()
        .map(|c| c.name.chars().count())
        .max()
        .unwrap_or(8)
        .min(28);
    const BAR: usize = 24;
    for c in cats {
        let name = Sanitizer::clean(&c.name);
        let tokens = c.tokens as f64;
        if tokens <= 0.0 {
            continue;
        }
        let filled = if max > 0.0 {
            ((tokens / max) * BAR as f64).ceil() as usize
        } else {
            0
        }
        .min(BAR);
        let bar = format!(
            "{}{}",
            "█".repeat(filled),
            style.dim(&"░".repeat(BAR - filled))
        );
        let name: String = name.chars().take(name_w).collect();
        out.push_str(&format!(
            "  {name:<name_w$} {bar} {}\n",
            tokens_short(tokens)
        ));
    }
    let pct = if max > 0.0 { total / max * 100.0 } else { 0.0 };
    out.push_str(&format!(
        "  {}\n",
        style.bold(&format!(
            "{} of {} tokens ({pct:.0}%)",
            tokens_short(total),
            tokens_short(max)
        ))
    ));
    out
}

fn tokens_short(t: f64) -> String {
    if t >= 1_000_000.0 {
        format!("{:.1}M", t / 1_000_000.0)
    } else if t >= 1000.0 {
        format!("{:.0}k", t / 1000.0)
    } else {
        format!("{t:.0}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_commands_and_prompts() {
        assert_eq!(parse("  "), None);
        assert_eq!(parse("/help"), Some(Input::Help));
        assert_eq!(
            parse("/model opus"),
            Some(Input::Model(Some("opus".into())))
        );
        assert_eq!(parse("/model"), Some(Input::Model(None)));
        assert_eq!(
            parse("/mode  plan "),
            Some(Input::Mode(Some("plan".into())))
        );
        assert_eq!(parse("/exit"), Some(Input::Exit));
        assert_eq!(
            parse("/compact now"),
            Some(Input::Prompt("/compact now".into()))
        );
        assert_eq!(
            parse("fix it\\\nplease"),
            Some(Input::Prompt("fix it\nplease".into()))
        );
        assert_eq!(parse("a\nb"), Some(Input::Prompt("a\nb".into())));
        assert_eq!(
            parse(" !cargo test 2>&1 "),
            Some(Input::Shell("cargo test 2>&1".into()))
        );
        assert_eq!(parse("!"), Some(Input::Shell(String::new())));
    }

    #[test]
    fn help_names_every_key_and_command() {
        let keys: Vec<&str> = KEYS.iter().map(|(k, _)| *k).collect();
        for k in ["Shift-Tab", "Esc Esc", "Tab", "Ctrl-C", "Alt-Enter"] {
            assert!(keys.contains(&k), "{k}");
        }
        for c in ["/rewind", "/mode", "!"] {
            assert!(COMMANDS.iter().any(|(n, _)| *n == c), "{c}");
        }
    }

    #[test]
    fn completion() {
        assert_eq!(complete("/mo"), vec!["/model", "/mode"]);
        assert_eq!(complete("/x"), Vec::<&str>::new());
    }

    #[test]
    fn context_chart_draws_bars() {
        let u = serde_json::from_value(serde_json::json!({"categories":[{"name":"messages","tokens":41000},{"name":"system prompt","tokens":3000},{"name":"free","tokens":0}],
                       "totalTokens":44000,"maxTokens":200000})).unwrap();
        let c = context_chart(&u, crate::cli::style::Style::plain());
        assert!(c.contains("messages"), "{c}");
        assert!(c.contains("█"), "{c}");
        assert!(c.contains("41k"), "{c}");
        assert!(c.contains("44k of 200k tokens (22%)"), "{c}");
        assert!(!c.contains("free"));
        assert_eq!(tokens_short(1_500_000.0), "1.5M");
    }
}
