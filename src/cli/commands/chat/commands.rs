//! Running the chat's own slash commands (the table and the parser are
//! [`super::slash`]).

use super::clipboard;
use super::connection::Connection;
use super::keys::Keys;
use super::reports::{context_chart, rules_list};
use super::screen::{terminal_width, Screen};
use super::slash::*;
use super::state::{short_id, Session};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio::runtime::Runtime;

/// The chat's own commands, run with what they read and change: the
/// runtime, the session's connection, the screen, what the session has
/// seen, the system clipboard, the chat's one reader of the keyboard (the
/// finder's keys) and the chat's folder. A command that goes on with
/// another session says so ([`Then`]); the chat switches.
pub(super) struct Commands<'a> {
    pub(super) rt: &'a Runtime,
    pub(super) conn: &'a mut Connection,
    pub(super) screen: &'a mut Screen,
    pub(super) session: &'a mut Session,
    pub(super) clipboard: &'a mut clipboard::System,
    pub(super) keys: &'a mut Option<Keys>,
    pub(super) cwd: &'a Path,
}

/// What the chat does after a command.
#[derive(Debug)]
pub(super) enum Then {
    /// Nothing more: the next prompt.
    Stay,
    /// `/new`: a fresh session.
    New,
    /// `/resume`: the recorded session `id`, in its folder `cwd`.
    Resume { id: String, cwd: PathBuf },
}

impl Commands<'_> {
    /// The session, waiting for the connection if it is still being made.
    fn client(&mut self) -> anyhow::Result<Arc<claudio::Client>> {
        self.conn.client(self.rt)
    }

    fn write(&mut self, s: &str) {
        self.screen.write(s);
    }

    fn info(&mut self, text: &str) {
        self.screen.info(text);
    }

    /// Run one of the chat's own commands (not a prompt, `!`, rewind or
    /// exit: the prompt loop does those).
    pub(super) fn run(&mut self, command: ChatCommand) -> anyhow::Result<Then> {
        match command {
            ChatCommand::Help => self.write(&help(self.screen.style(), terminal_width())),
            ChatCommand::Model(None) => {
                let m = self
                    .session
                    .state
                    .model
                    .clone()
                    .unwrap_or_else(|| "default".into());
                self.info(&format!("model: {m}"));
            }
            ChatCommand::Model(Some(name)) => {
                let rt = self.rt;
                let client = self.client()?;
                if let Err(e) = super::typos::check_model(&name, &client.server_info().models) {
                    self.info(&e.to_string());
                    return Ok(Then::Stay);
                }
                let target = (name != "default").then_some(name.as_str());
                rt.block_on(client.set_model(target))?;
                self.session.state.model = target.map(str::to_owned);
                self.session.state.chosen_model = target.map(str::to_owned);
                self.info(&format!("model: {name} (from the next request)"));
            }
            ChatCommand::Mode(None) => {
                let m = self.session.state.mode_name();
                self.info(&format!(
                    "permission mode: {m} (default, acceptEdits, plan, bypassPermissions, dontAsk, auto)"
                ));
            }
            ChatCommand::Mode(Some(name)) => {
                // a typo never reaches the CLI
                let mode: claudio::PermissionMode = name.parse()?;
                let rt = self.rt;
                rt.block_on(self.client()?.set_permission_mode(mode.clone()))?;
                self.session.state.mode = Some(mode.clone());
                self.info(&format!("permission mode: {mode}"));
            }
            ChatCommand::Cost => {
                let t = self.session.state.totals.clone();
                self.info(&cost_report(&t));
            }
            ChatCommand::Context => {
                let rt = self.rt;
                let usage = rt.block_on(self.client()?.context_usage())?;
                let chart = context_chart(&usage, self.screen.style());
                self.write(&chart);
            }
            ChatCommand::Mcp => {
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
            ChatCommand::Copy(arg) => {
                let terminal = crate::cli::term::console::output_is_terminal();
                let answers = &self.session.answers;
                match clipboard::copy(answers, arg.as_deref(), terminal, self.clipboard) {
                    Ok((seq, said)) => {
                        self.write(&seq);
                        self.info(&said);
                    }
                    Err(why) => self.info(&why.to_string()),
                }
            }
            ChatCommand::Todos => {
                match self
                    .session
                    .todos_text(self.screen.style(), self.screen.renderer().width())
                {
                    Some(list) => self.write(&list),
                    None => self.info("no task list in this session"),
                }
            }
            ChatCommand::Permissions => {
                let rt = self.rt;
                let rules = rt.block_on(self.client()?.permission_rules())?;
                let list = rules_list(&rules, self.screen.style());
                self.write(&list);
            }
            ChatCommand::New => return Ok(Then::New),
            ChatCommand::Resume(None) => {
                let store = claudio::store::Store::open(None)?;
                // the finder takes its keys from the chat's one reader (in
                // its own raw mode while it is shown)
                let style = self.screen.style();
                let rt = self.rt.handle().clone();
                let Some(keys) = self.keys.as_mut().filter(|k| k.has_terminal()) else {
                    anyhow::bail!("no terminal to choose on");
                };
                let mut source = super::keys::FinderKeys {
                    keys,
                    rt: &rt,
                    peeked: None,
                };
                if let Some(row) =
                    crate::cli::term::finder::pick_from(&store, self.cwd, style, &mut source)?
                {
                    return self.run(ChatCommand::Resume(Some(row.id)));
                }
                self.info("nothing resumed");
            }
            ChatCommand::Resume(Some(id)) => {
                // found in any project; the CLI runs where it was recorded
                // an archived session the CLI deleted is restored first
                let store = claudio::store::Store::open(None)?;
                let mut notes = Vec::new();
                let target = crate::cli::common::archive::resume_target(&store, &id, &mut |m| {
                    notes.push(m.to_owned())
                })?;
                for n in notes {
                    self.info(&n);
                }
                // a folder that is there and cannot be entered: the CLI
                // cannot start in it (one gone leaves the session to be
                // resumed in the chat's own); named, and why, before the
                // session the chat holds is closed
                if target.cwd.is_dir() {
                    if let Some(why) = crate::cli::common::folder::not_enterable(&target.cwd) {
                        anyhow::bail!(
                            "cannot resume {}: its working directory {} {why}",
                            target.id,
                            crate::cli::common::folder::shown(&target.cwd)
                        );
                    }
                }
                return Ok(Then::Resume {
                    id: target.id,
                    cwd: target.cwd,
                });
            }
            ChatCommand::Sessions => self.recent_sessions()?,
        }
        Ok(Then::Stay)
    }

    fn recent_sessions(&mut self) -> anyhow::Result<()> {
        let store = claudio::store::Store::open(None)?;
        let listing =
            store.list(&claudio::store::ListOptions::for_dir(self.cwd.to_owned()).limit(10))?;
        if listing.sessions.is_empty() {
            self.info("no sessions in this directory yet");
            return Ok(());
        }
        let now = crate::cli::term::time::now_ms();
        let width = terminal_width().saturating_sub(30).max(20);
        let mut text = String::new();
        for s in &listing.sessions {
            let when = crate::cli::term::time::relative_time(now, s.last_modified);
            // one row: a title's line breaks and tabs as spaces (a
            // compaction summary is kept as the CLI wrote it)
            let title =
                crate::cli::term::text::cut_width(&crate::cli::term::text::flat(&s.title), width);
            text.push_str(&format!(
                "  {}  {:>9}  {}\n",
                self.screen.style().cyan(&short_id(&s.session_id)),
                self.screen.style().dim(&when),
                title
            ));
        }
        text.push_str(&format!(
            "  {}\n",
            self.screen.style().dim("/resume ID to open one")
        ));
        self.write(&text);
        Ok(())
    }
}

/// `/cost`: the session as the end-of-turn line says it, then this chat.
fn cost_report(t: &super::state::Totals) -> String {
    let plural = |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let session = t
        .session_cost_usd
        .map_or("no cost reported yet".to_owned(), |c| format!("${c:.4}"));
    let mut line = format!("session {session}");
    let chat = format!(
        "{} · {} · {:.1}s ({:.1}s in the API)",
        plural(t.prompts, "prompt", "prompts"),
        plural(t.api_calls, "API call", "API calls"),
        t.duration.as_secs_f64(),
        t.api_duration.as_secs_f64()
    );
    if t.session_cost_usd
        .is_some_and(|c| (c - t.cost_usd).abs() > 5e-5)
    {
        line.push_str(&format!(" · this chat ${:.4}, {chat}", t.cost_usd));
    } else {
        line.push_str(&format!(" · this chat: {chat}"));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cost_says_the_session_as_the_end_line_does_then_the_chat() {
        let mut t = super::super::state::Totals::default();
        (t.prompts, t.api_calls, t.cost_usd) = (2, 5, 0.021);
        t.session_cost_usd = Some(0.021);
        t.duration = std::time::Duration::from_millis(3100);
        t.api_duration = std::time::Duration::from_millis(2000);
        assert_eq!(
            cost_report(&t),
            "session $0.0210 · this chat: 2 prompts · 5 API calls · 3.1s (2.0s in the API)"
        );
        t.session_cost_usd = Some(0.5);
        t.prompts = 1;
        t.api_calls = 1;
        assert_eq!(
            cost_report(&t),
            "session $0.5000 · this chat $0.0210, 1 prompt · 1 API call · 3.1s (2.0s in the API)"
        );
    }
}
