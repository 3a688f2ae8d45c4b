//! The interactive chat: one persistent session, a line editor, streamed
//! answers, spinners, approvals on the terminal.

use super::approval::{self, Outcome};
use super::asks::{self, Approval};
use super::commands::{self, Input, COMMANDS};
use super::editor::{self, ChatEditor, PromptAction};
use super::keys::{Keys, TermEvent};
use super::picker::Picked;
use super::render::{RenderOptions, Renderer};
use super::rewind;
use super::shell;
use super::typeahead::{Action, TypeAhead};
use crate::cli::approve::TtyApprover;
use crate::cli::args::SessionArgs;
use crate::cli::exit::Exit;
use crate::cli::sanitize::Sanitizer;
use crate::cli::session::build_options;
use crate::cli::style::Style;
use anyhow::Context as _;
use claudio::protocol::ask::{ASK_USER_QUESTION, EXIT_PLAN_MODE};
use claudio::{Client, Message, Options, PermissionResult, Priority, UserInput};
use futures_util::FutureExt;
use rustyline::error::ReadlineError;
use std::future::{pending, Future};
use std::io::{self, IsTerminal, Write};
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::runtime::Runtime;
use tokio::signal::unix::{signal, SignalKind};
use tokio::sync::{mpsc, oneshot};

type Slot = Arc<std::sync::Mutex<Option<Arc<Client>>>>;

fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// On SIGTERM or SIGHUP (the terminal closed), close the session gracefully
/// (its transcript complete), put the terminal back, and exit 128+N.
fn watch_signals(rt: &Runtime, slot: Slot) -> anyhow::Result<()> {
    // SAFETY: tcgetattr fills a plain struct; failure leaves `saved` None.
    let saved = unsafe {
        let mut t: libc::termios = std::mem::zeroed();
        (libc::tcgetattr(0, &mut t) == 0).then_some(t)
    };
    let _guard = rt.enter();
    let mut term = signal(SignalKind::terminate())?;
    let mut hup = signal(SignalKind::hangup())?;
    rt.spawn(async move {
        let sig = tokio::select! {
            _ = term.recv() => libc::SIGTERM,
            _ = hup.recv() => libc::SIGHUP,
        };
        let current = lock(&slot).clone();
        if let Some(c) = current {
            let _ = c.close().await;
        }
        shell::kill_running();
        if let Some(t) = saved {
            // SAFETY: restores the settings read at start.
            unsafe {
                libc::tcsetattr(0, libc::TCSANOW, &t);
            }
        }
        // a picker may have hidden the cursor; styles end
        let mut out = io::stdout();
        let _ = out.write_all(b"\x1b[?25h\x1b[0m");
        let _ = out.flush();
        std::process::exit(128 + sig);
    });
    Ok(())
}

pub struct ChatSettings {
    pub show_thinking: bool,
    pub history_size: usize,
}

/// How a turn ended.
enum TurnEnd {
    Done,
    /// The CLI is gone; a fresh session is needed.
    SessionLost,
    /// Leave the program (second Ctrl-C).
    Quit(Exit),
}

struct Chat<'a> {
    rt: &'a Runtime,
    session: SessionArgs,
    style: Style,
    renderer: Renderer,
    /// The live session; shared with the signal watcher, which closes it
    /// gracefully on SIGTERM or SIGHUP (a closed terminal).
    client: Slot,
    /// A connection being made in the background (the prompt shows at once).
    connecting: Option<tokio::task::JoinHandle<claudio::Result<Client>>>,
    approvals_tx: mpsc::Sender<Approval>,
    approvals: mpsc::Receiver<Approval>,
    out: io::Stdout,
    /// What was typed while Claude worked.
    ahead: TypeAhead,
    /// The session's working directory (for diffs of relative paths).
    cwd: std::path::PathBuf,
    /// The input line to start the next prompt with (before and after the
    /// cursor): kept across Shift-Tab, or a rewound prompt to edit.
    initial: Option<(String, String)>,
    /// What `!` commands printed, sent with the next prompt.
    shell_context: Vec<String>,
    /// What Shift-Tab and Esc Esc leave for the loop.
    actions: editor::Actions,
    /// Prompts sent from this chat, by uuid, as typed (without the `!`
    /// context sent in front of them): what rewind lists and puts back.
    typed_prompts: std::collections::HashMap<String, String>,
}

/// How a stretch of background work at the prompt ended.
enum AtWork {
    /// Back to the line editor (or a prompt was typed: it is queued).
    Done,
    /// Ctrl-D on an empty line.
    Quit,
}

pub fn run(rt: &Runtime, session: &SessionArgs, settings: ChatSettings) -> anyhow::Result<Exit> {
    // No CLI: say so at once (exit 127), not after the first prompt.
    claudio::transport::find_cli(session.cli_path.as_deref())?;
    approval::install_panic_restore();
    let style = Style::decide(session.color_choice(), io::stdout().is_terminal());
    let (approvals_tx, approvals) = mpsc::channel(16);
    let width = terminal_width();
    let renderer = Renderer::new(RenderOptions {
        style,
        live: io::stdout().is_terminal(),
        show_thinking: settings.show_thinking,
        width,
    });
    let mut chat = Chat {
        rt,
        session: session.clone(),
        style,
        renderer,
        client: Slot::default(),
        connecting: None,
        approvals_tx,
        approvals,
        out: io::stdout(),
        ahead: TypeAhead::default(),
        initial: None,
        shell_context: Vec::new(),
        actions: editor::Actions::default(),
        typed_prompts: Default::default(),
        cwd: match &session.cwd {
            Some(d) => d.clone(),
            None => std::env::current_dir()?,
        },
    };
    chat.renderer.model = session.model.clone();
    chat.renderer.mode = session.permission_mode.clone();
    chat.header();
    watch_signals(rt, chat.client.clone())?;
    chat.start_connect(session.clone())?;

    let mut ed = editor::new_editor(
        settings.history_size,
        chat.cwd.clone(),
        chat.actions.clone(),
    )?;
    let actions = chat.actions.clone();
    let exit = loop {
        chat.set_prompt(&mut ed);
        // Prompts typed ahead during the last turn go first, in order.
        if let Some(next) = chat.ahead.queued.pop_front() {
            let echo = format!("{}{}\n", chat.style.bold("› "), Sanitizer::clean(&next));
            chat.write(&echo);
            let _ = ed.add_history_entry(next.trim_end());
            if let Some(input) = commands::parse(&next) {
                match chat.handle(input) {
                    Ok(None) => {}
                    Ok(Some(exit)) => break exit,
                    Err(e) => chat.error(&e),
                }
            }
            continue;
        }
        // While background agents work, the prompt is the turn's own line
        // under the live spinners: their progress, requests and report show
        // as they come.
        if chat.renderer.agents_running() > 0 && chat.initial.is_none() {
            match chat.agents_at_work() {
                Ok(AtWork::Done) => {}
                Ok(AtWork::Quit) => break Exit::Success,
                Err(e) => chat.error(&e),
            }
            if !chat.ahead.queued.is_empty() {
                continue;
            }
        }
        let draft = std::mem::take(&mut chat.ahead.typed);
        let (before, after) = match chat.initial.take() {
            Some(initial) => {
                // a line typed during the last turn stays within reach
                if !draft.trim().is_empty() {
                    let _ = ed.add_history_entry(draft.trim_end());
                }
                initial
            }
            None => (draft, String::new()),
        };
        let prompt = chat.plain_prompt();
        let (back, read) = chat.read_line(ed, prompt.clone(), before, after)?;
        ed = back;
        let action = match &read {
            Err(ReadlineError::Interrupted) => editor::take_action(&actions),
            _ => None,
        };
        match &action {
            Some(PromptAction::CycleMode { before, after }) => {
                chat.erase_prompt(&prompt, &format!("{before}{after}"))
            }
            Some(PromptAction::Rewind) => chat.erase_prompt(&prompt, ""),
            None => {}
        }
        let line = match read {
            Ok(l) => l,
            Err(ReadlineError::Interrupted) => {
                match action {
                    Some(PromptAction::CycleMode { before, after }) => {
                        if let Err(e) = chat.cycle_mode() {
                            chat.error(&e);
                        }
                        chat.initial = Some((before, after));
                    }
                    Some(PromptAction::Rewind) => match chat.rewind() {
                        Ok(Some(text)) => chat.initial = Some((text, String::new())),
                        Ok(None) => {}
                        Err(e) => chat.error(&e),
                    },
                    None => {}
                }
                continue;
            }
            Err(ReadlineError::Eof) => break Exit::Success,
            Err(e) => return Err(e.into()),
        };
        let Some(input) = commands::parse(&line) else {
            continue;
        };
        let _ = ed.add_history_entry(line.trim_end());
        match chat.handle(input) {
            Ok(None) => {}
            Ok(Some(exit)) => break exit,
            Err(e) => chat.error(&e),
        }
    };
    editor::save_history(&mut ed);
    chat.close();
    Ok(exit)
}

impl Chat<'_> {
    fn header(&mut self) {
        let s = self.style;
        let cwd = self
            .session
            .cwd
            .clone()
            .or_else(|| std::env::current_dir().ok())
            .map(|p| tilde(&p))
            .unwrap_or_default();
        let mut parts = vec![format!("claudio {}", env!("CARGO_PKG_VERSION"))];
        if let Some(m) = &self.session.model {
            parts.push(m.clone());
        }
        parts.push(cwd);
        if let Some(id) = &self.session.resume {
            parts.push(format!("resuming {}", short_id(id)));
        }
        let _ = writeln!(self.out, "{}", s.dim(&Sanitizer::clean(&parts.join(" · "))));
        let _ = writeln!(
            self.out,
            "{}\n",
            s.dim("/help for commands · Ctrl-C interrupts · Ctrl-D exits")
        );
    }

    fn plain_prompt(&self) -> String {
        let mut parts = Vec::new();
        if let Some(m) = &self.renderer.model {
            parts.push(short_model(m));
        }
        if let Some(mode) = self.renderer.mode.as_deref().filter(|m| *m != "default") {
            parts.push(mode.to_owned());
        }
        let label = Sanitizer::clean(&parts.join(" · "));
        if label.is_empty() {
            "› ".into()
        } else {
            format!("{label} › ")
        }
    }

    fn set_prompt(&self, ed: &mut ChatEditor) {
        let plain = self.plain_prompt();
        let styled = match plain.rsplit_once("› ") {
            Some((label, _)) if !label.is_empty() => {
                format!("{}{}", self.style.dim(label), self.style.bold("› "))
            }
            _ => self.style.bold(&plain),
        };
        if let Some(h) = ed.helper_mut() {
            h.styled_prompt = styled;
            if h.cwd != self.cwd {
                h.cwd = self.cwd.clone();
            }
        }
    }

    fn start_connect(&mut self, session: SessionArgs) -> anyhow::Result<()> {
        let tx = self.approvals_tx.clone();
        let options: Options = build_options(&session)?
            .include_partial_messages(true)
            // checkpoints make /rewind able to restore files
            .file_checkpointing(true)
            .can_use_tool(move |req, ctx| {
                let tx = tx.clone();
                async move {
                    let (reply, answer) = oneshot::channel();
                    let denied =
                        || PermissionResult::deny("The permission prompt is not available.");
                    if tx.send(Approval { req, ctx, reply }).await.is_err() {
                        return Ok(denied());
                    }
                    Ok(answer.await.unwrap_or_else(|_| denied()))
                }
            });
        self.connecting = Some(self.rt.spawn(Client::connect(options)));
        Ok(())
    }

    /// The session, waiting for the connection if it is still being made.
    fn client(&mut self) -> anyhow::Result<Arc<Client>> {
        if let Some(handle) = self.connecting.take() {
            let client = self.rt.block_on(handle)??;
            *lock(&self.client) = Some(Arc::new(client));
        }
        lock(&self.client)
            .clone()
            .ok_or_else(|| anyhow::anyhow!("no session; /new starts one"))
    }

    fn write(&mut self, s: &str) {
        if !s.is_empty() {
            let _ = self.out.write_all(s.as_bytes());
            let _ = self.out.flush();
        }
    }

    fn error(&mut self, e: &anyhow::Error) {
        let text = Sanitizer::clean(&format!("{e:#}"));
        let line = format!("  {} {}\n", self.style.red("✗"), text);
        self.write(&line);
    }

    fn info(&mut self, text: &str) {
        let line = format!("  {}\n", Sanitizer::clean(text));
        self.write(&line);
    }

    fn handle(&mut self, input: Input) -> anyhow::Result<Option<Exit>> {
        match input {
            Input::Exit => return Ok(Some(Exit::Success)),
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
                for (k, what) in commands::KEYS {
                    text.push_str(&format!(
                        "  {} {}\n",
                        self.style.bold(&format!("{k:<10}")),
                        what
                    ));
                }
                self.write(&text);
            }
            Input::Prompt(typed) => {
                let text = shell::with_context(&std::mem::take(&mut self.shell_context), &typed);
                // the uuid is what /rewind names the prompt by
                let uuid = claudio::store::new_uuid();
                self.typed_prompts.insert(uuid.clone(), typed);
                return self.turn(UserInput::new(text).uuid(uuid));
            }
            Input::Shell(cmd) if cmd.is_empty() => self.info(
                "usage: !COMMAND (runs in the shell; Claude sees the output with your next prompt)",
            ),
            Input::Shell(cmd) => self.shell(&cmd)?,
            Input::Model(None) => {
                let m = self
                    .renderer
                    .model
                    .clone()
                    .unwrap_or_else(|| "default".into());
                self.info(&format!("model: {m}"));
            }
            Input::Model(Some(name)) => {
                let rt = self.rt;
                let target = (name != "default").then_some(name.as_str());
                rt.block_on(self.client()?.set_model(target))?;
                self.renderer.model = target.map(str::to_owned);
                self.info(&format!("model: {name} (from the next request)"));
            }
            Input::Mode(None) => {
                let m = self
                    .renderer
                    .mode
                    .clone()
                    .unwrap_or_else(|| "default".into());
                self.info(&format!(
                    "permission mode: {m} (default, acceptEdits, plan, bypassPermissions, dontAsk, auto)"
                ));
            }
            Input::Mode(Some(mode)) => {
                let rt = self.rt;
                rt.block_on(self.client()?.set_permission_mode(&mode))?;
                self.renderer.mode = Some(mode.clone());
                self.info(&format!("permission mode: {mode}"));
            }
            Input::Cost => {
                let t = self.renderer.totals.clone();
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
                let servers = status["mcpServers"].as_array().cloned().unwrap_or_default();
                if servers.is_empty() {
                    self.info("no MCP servers");
                }
                for s in servers {
                    let name = s["name"].as_str().unwrap_or("?");
                    let st = s["status"].as_str().unwrap_or("?");
                    self.info(&format!("{name}: {st}"));
                }
            }
            Input::New => {
                self.close();
                let mut fresh = self.session.clone();
                fresh.resume = None;
                fresh.continue_session = false;
                self.renderer.session_id = None;
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
                self.renderer.session_id = Some(target.id.clone());
                self.start_connect(s)?;
                self.info(&format!("resuming {}", short_id(&target.id)));
            }
            Input::Sessions => self.recent_sessions()?,
            Input::Rewind => {
                if let Some(text) = self.rewind()? {
                    self.initial = Some((text, String::new()));
                }
            }
        }
        Ok(None)
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

    fn close(&mut self) {
        self.renderer.forget_session();
        if let Some(h) = self.connecting.take() {
            h.abort();
        }
        let current = lock(&self.client).take();
        if let Some(c) = current {
            let _ = self.rt.block_on(c.close());
        }
    }

    fn turn(&mut self, text: UserInput) -> anyhow::Result<Option<Exit>> {
        let rt = self.rt;
        let client = self.client()?;
        self.renderer.set_width(terminal_width());
        let end = rt.block_on(self.run_turn(&client, text));
        match end {
            Ok(TurnEnd::Done) => Ok(None),
            Ok(TurnEnd::Quit(exit)) => {
                client.kill();
                *lock(&self.client) = None;
                Ok(Some(exit))
            }
            Ok(TurnEnd::SessionLost) | Err(_) => {
                let out = self.renderer.abandon_turn();
                self.write(&out);
                if let Err(e) = end {
                    self.error(&e);
                }
                // Keep the conversation: the next prompt resumes it.
                let id = self.renderer.session_id.clone();
                self.renderer.forget_session();
                *lock(&self.client) = None;
                let mut s = self.session.clone();
                s.permission_mode = self.renderer.mode.clone();
                if let Some(id) = id {
                    s.resume = Some(id);
                    s.continue_session = false;
                }
                self.start_connect(s)?;
                self.info("the session ended; the next prompt starts it again");
                Ok(None)
            }
        }
    }

    async fn run_turn(&mut self, client: &Client, text: UserInput) -> anyhow::Result<TurnEnd> {
        let mut sigint = signal(SignalKind::interrupt())?;
        client.send(text).await?;
        self.ahead.eof = false;
        let mut ticker = tokio::time::interval(Duration::from_millis(80));
        let mut last_ctrl_c: Option<Instant> = None;
        let mut interrupt: Pin<Box<dyn Future<Output = ()> + Send + '_>> = Box::pin(pending());
        // Keys typed while the turn runs (only on a terminal).
        let mut keys = if io::stdin().is_terminal() && io::stdout().is_terminal() {
            Keys::start()
        } else {
            None
        };
        let mut cont = signal(SignalKind::from_raw(libc::SIGCONT))?;
        // Each interjection is answered with a turn of its own.
        let mut results_due = 1usize;
        let footer = self
            .renderer
            .set_footer(self.ahead.footer(), Instant::now());
        write_to(&mut self.out, &footer);
        loop {
            tokio::select! {
                Some(input) = next_input(&mut keys) => {
                    if let TermEvent::Resize(w, _) = input {
                        let r = self.renderer.resize(w as usize, Instant::now());
                        write_to(&mut self.out, &r);
                    }
                    if let Some(Action::SendNow(text)) = self.ahead.input(&input) {
                        let input = UserInput::new(text).priority(Priority::Now);
                        if client.send(input).await.is_ok() {
                            results_due += 1;
                            let n = self.renderer.notice("sent now, cutting in");
                            write_to(&mut self.out, &n);
                        }
                    }
                    let f = self.renderer.set_footer(self.ahead.footer(), Instant::now());
                    write_to(&mut self.out, &f);
                }
                Some(()) = cont.recv() => {
                    // back from Ctrl-Z: the shell wrote below the spinners
                    if let Some(k) = &keys {
                        k.restore_char_mode();
                    }
                    let r = self.renderer.resume_after_stop(terminal_width(), Instant::now());
                    write_to(&mut self.out, &r);
                }
                m = client.next_message() => {
                    let m = match m {
                        None => return Ok(TurnEnd::SessionLost),
                        Some(Err(claudio::Error::LineTooLong { limit })) => {
                            let n = self.renderer.notice(&format!("skipped a message longer than {limit} bytes"));
                            write_to(&mut self.out, &n);
                            continue;
                        }
                        Some(Err(e)) => return Err(e.into()),
                        Some(Ok(m)) => m,
                    };
                    if self.show(&m) && !is_automatic(&m) {
                        results_due = results_due.saturating_sub(1);
                        if results_due == 0 {
                            let f = self.renderer.suspend();
                            write_to(&mut self.out, &f);
                            // Stop reading, then keep what was typed in the
                            // last instant.
                            self.finish_keys(keys);
                            return Ok(TurnEnd::Done);
                        }
                    }
                }
                Some(a) = self.approvals.recv() => {
                    // Show what the CLI wrote before it asked (the tool call,
                    // and the plan an ExitPlanMode request refers to).
                    let mut ended = false;
                    while let Some(Some(m)) = client.next_message().now_or_never() {
                        if let Ok(m) = m {
                            if self.show(&m) && !is_automatic(&m) {
                                results_due = results_due.saturating_sub(1);
                                ended |= results_due == 0;
                            }
                        }
                    }
                    let text = self.renderer.suspend();
                    write_to(&mut self.out, &text);
                    let interrupt_now = self.answer(a, keys.as_mut()).await;
                    if interrupt_now {
                        let n = self.renderer.notice("denied; interrupting the turn");
                        write_to(&mut self.out, &n);
                    }
                    if ended {
                        let f = self.renderer.suspend();
                        write_to(&mut self.out, &f);
                        self.finish_keys(keys);
                        return Ok(TurnEnd::Done);
                    }
                    let f = self.renderer.set_footer(self.ahead.footer(), Instant::now());
                    write_to(&mut self.out, &f);
                }
                _ = ticker.tick() => {
                    let text = self.renderer.tick(Instant::now());
                    write_to(&mut self.out, &text);
                }
                _ = &mut interrupt => {
                    interrupt = Box::pin(pending());
                }
                _ = sigint.recv() => {
                    let now = Instant::now();
                    if last_ctrl_c.is_some_and(|t| now.duration_since(t) < Duration::from_secs(2)) {
                        let n = self.renderer.notice("killed");
                        write_to(&mut self.out, &n);
                        return Ok(TurnEnd::Quit(Exit::Interrupted));
                    }
                    last_ctrl_c = Some(now);
                    let n = self.renderer.notice("interrupting… (Ctrl-C again to quit)");
                    write_to(&mut self.out, &n);
                    interrupt = Box::pin(async move {
                        let _ = tokio::time::timeout(Duration::from_secs(10), client.interrupt()).await;
                    });
                }
            }
        }
    }
}

/// The mode after `mode` in Shift-Tab's cycle, as in the claude TUI.
fn next_mode(mode: &str) -> &'static str {
    match mode {
        "default" => "acceptEdits",
        "acceptEdits" => "plan",
        _ => "default",
    }
}

/// The result of a turn the CLI started by itself (a background agent
/// reporting: `origin.kind` `task-notification`), not one of the person's.
fn is_automatic(m: &Message) -> bool {
    matches!(m, Message::Result(r) if r.extra.contains_key("origin"))
}

fn is_mode_status(m: &Message) -> Option<&str> {
    match m {
        Message::System(s) => match &**s {
            claudio::SystemMessage::Status(s) => {
                s.extra.get("permissionMode").and_then(|v| v.as_str())
            }
            _ => None,
        },
        _ => None,
    }
}

impl Chat<'_> {
    /// Remove the prompt line the line editor left when a key stopped it.
    fn erase_prompt(&mut self, prompt: &str, line: &str) {
        use unicode_width::UnicodeWidthStr;
        if !io::stdout().is_terminal() {
            return;
        }
        let cols = terminal_width().max(1);
        // as rustyline lays it out: a row is full at `cols` columns, and the
        // cursor after a full last row sits on the next one
        let text = format!("{prompt}{line}");
        let segments: Vec<&str> = text.split('\n').collect();
        let last = segments.len() - 1;
        let rows: usize = segments
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let w = l.width();
                if i == last {
                    w / cols + 1
                } else {
                    w.max(1).div_ceil(cols)
                }
            })
            .sum();
        self.write(&format!("\x1b[{rows}A\r\x1b[J"));
    }

    /// Shift-Tab: switch to the next permission mode; the CLI confirms it
    /// with a `system`/`status` message.
    fn cycle_mode(&mut self) -> anyhow::Result<()> {
        let next = next_mode(self.renderer.mode_name());
        let client = self.client()?;
        let rt = self.rt;
        let confirmed = rt.block_on(async {
            client.set_permission_mode(next).await?;
            // the answer says yes; the status line confirms the switch
            let wait = tokio::time::sleep(Duration::from_secs(1));
            tokio::pin!(wait);
            loop {
                tokio::select! {
                    m = client.next_message() => match m {
                        Some(Ok(m)) => {
                            let mode = is_mode_status(&m).map(str::to_owned);
                            self.show(&m);
                            if let Some(mode) = mode {
                                return Ok::<_, anyhow::Error>(Some(mode));
                            }
                        }
                        Some(Err(_)) => {}
                        None => return Ok(None),
                    },
                    _ = &mut wait => return Ok(None),
                }
            }
        })?;
        let out = self.renderer.suspend();
        self.write(&out);
        if confirmed.is_none() {
            // the CLI said yes but sent no status line (mode unchanged)
            self.renderer.mode = Some(next.to_owned());
        }
        Ok(())
    }

    /// `!command`: run it, show its output, keep it for the next prompt.
    fn shell(&mut self, cmd: &str) -> anyhow::Result<()> {
        let rt = self.rt;
        let (style, cwd) = (self.style, self.cwd.clone());
        let mut out = io::stdout();
        let ran = rt.block_on(shell::run(cmd, &cwd, style, &mut out))?;
        let mark = if ran.ok {
            style.green("✓")
        } else {
            style.red("✗")
        };
        let note = format!(
            "{} · {:.1}s · Claude sees this with your next prompt",
            ran.status,
            ran.elapsed.as_secs_f64()
        );
        // `\r`: over the terminal's `^C` echo, if any
        self.write(&format!("\r  {mark} {}\n", style.dim(&note)));
        self.shell_context.push(ran.context);
        Ok(())
    }

    /// Choose from `picker` now (between turns).
    fn pick_now(&mut self, picker: super::picker::Picker) -> anyhow::Result<Option<Picked>> {
        if !io::stdin().is_terminal() || !io::stdout().is_terminal() {
            anyhow::bail!("rewind needs a terminal to choose on");
        }
        let (style, width) = (self.style, self.renderer.width());
        self.rt.block_on(async {
            let mut keys = Keys::start().context("no terminal to choose on")?;
            Ok(approval::pick(&mut keys, None, picker, style, width).await?)
        })
    }

    /// Esc Esc or `/rewind`: back to before one of this session's prompts.
    /// Nothing changes until the person confirms. Returns the prompt's text,
    /// for the input line, when the conversation went back.
    fn rewind(&mut self) -> anyhow::Result<Option<String>> {
        let Some(id) = self.renderer.session_id.clone() else {
            self.info("nothing to rewind yet");
            return Ok(None);
        };
        let store = claudio::store::Store::from_env()?;
        let file = store.find(&id)?;
        let prompts = rewind::past_prompts(
            &claudio::store::read_conversation(&file.path)?,
            &self.typed_prompts,
        );
        if prompts.is_empty() {
            self.info("nothing to rewind yet");
            return Ok(None);
        }
        let s = self.style;
        self.write(&format!(
            "\n  {} {}\n",
            s.yellow("⟲"),
            s.bold("Rewind to before which prompt?")
        ));
        let Some(Picked::Chosen(i, _)) = self.pick_now(rewind::prompt_picker(&prompts))? else {
            self.info("rewind cancelled; nothing changed");
            return Ok(None);
        };
        let Some(p) = i.first().and_then(|&i| prompts.get(i)).cloned() else {
            return Ok(None);
        };
        let rt = self.rt;
        let client = self.client()?;
        let preview = rt
            .block_on(client.preview_rewind_files(&p.uuid))
            .unwrap_or_else(|e| serde_json::json!({"canRewind": false, "error": e.to_string()}));
        let text = rewind::preview_text(&preview, &self.cwd, s);
        self.write(&text);
        let files = rewind::can_restore(&preview);
        let actions: Vec<usize> = (0..rewind::ACTIONS.len())
            .filter(|&a| files || a == 1 || a == 3)
            .collect();
        let choices = actions
            .iter()
            .map(|&a| super::picker::Choice::new(rewind::ACTIONS[a].0, rewind::ACTIONS[a].1))
            .collect();
        let picked = self.pick_now(super::picker::Picker::new(choices))?;
        let action = match picked {
            Some(Picked::Chosen(i, _)) => i.first().map(|&i| actions[i]).unwrap_or(3),
            _ => 3,
        };
        let (restore_files, restore_talk) = match action {
            0 => (true, true),
            1 => (false, true),
            2 => (true, false),
            _ => {
                self.info("rewind cancelled; nothing changed");
                return Ok(None);
            }
        };
        if restore_files {
            rt.block_on(client.rewind_files(&p.uuid))?;
            self.info("files restored");
        }
        if !restore_talk {
            return Ok(None);
        }
        // The transcript is complete once the CLI has closed; the fork ends
        // just before the prompt, and the session goes on from there.
        drop(client);
        self.close();
        let mut next = self.session.clone();
        next.continue_session = false;
        // the mode the session is in now, not the one it started with
        next.permission_mode = self.renderer.mode.clone();
        next.cwd = Some(self.cwd.clone());
        let forked = match &p.before {
            Some(before) => store.fork(&id, Some(before)).map(Some),
            None => Ok(None),
        };
        let forked = match forked {
            Ok(f) => f,
            Err(e) => {
                // go on with the session as it was
                next.resume = Some(id.clone());
                self.start_connect(next)?;
                let files = if restore_files {
                    " (the files were restored)"
                } else {
                    ""
                };
                return Err(anyhow::Error::new(e).context(format!(
                    "could not rewind the conversation{files}; it goes on as it was"
                )));
            }
        };
        next.resume = forked;
        self.renderer.session_id = next.resume.clone();
        self.start_connect(next)?;
        self.info(&format!(
            "rewound to before “{}”; it is back in the input line",
            crate::cli::summary::truncate_width(p.text.lines().next().unwrap_or(""), 40)
        ));
        Ok(Some(Sanitizer::clean(&p.text)))
    }

    /// Background agents are at work and nothing else is: show them live
    /// and take the next prompt on the turn's own line (Enter sends it).
    /// Their requests are asked at once. Ends when they are done and the
    /// turn the CLI starts for their report has ended, when a prompt was
    /// typed, or with Ctrl-D on an empty line.
    fn agents_at_work(&mut self) -> anyhow::Result<AtWork> {
        let Some(client) = lock(&self.client).clone() else {
            return Ok(AtWork::Done);
        };
        if !io::stdin().is_terminal() || !io::stdout().is_terminal() {
            return Ok(AtWork::Done);
        }
        let rt = self.rt;
        rt.block_on(self.at_work(&client))
    }

    async fn at_work(&mut self, client: &Client) -> anyhow::Result<AtWork> {
        let mut sigint = signal(SignalKind::interrupt())?;
        let mut ticker = tokio::time::interval(Duration::from_millis(80));
        let mut keys = Keys::start();
        let mut cont = signal(SignalKind::from_raw(libc::SIGCONT))?;
        // a turn the CLI started by itself (an agent reporting)
        let mut turn_open = false;
        // once the agents are done: a moment for the report's turn to start
        let mut settle: Option<Instant> = None;
        let prompt = self.plain_prompt();
        let footer = |ahead: &TypeAhead| {
            let mut lines: Vec<String> = ahead
                .footer()
                .into_iter()
                .filter(|l| !l.starts_with("› "))
                .collect();
            lines.push(format!("{prompt}{}", ahead.typed.replace('\n', " ")));
            lines
        };
        let f = self
            .renderer
            .set_footer(footer(&self.ahead), Instant::now());
        write_to(&mut self.out, &f);
        let end = loop {
            // Ctrl-D on the empty line (also at the very end of the turn)
            if std::mem::take(&mut self.ahead.eof) {
                break AtWork::Quit;
            }
            if self.renderer.agents_running() == 0 && !turn_open {
                let at = *settle.get_or_insert_with(|| Instant::now() + Duration::from_millis(400));
                if Instant::now() >= at {
                    break AtWork::Done;
                }
            } else {
                settle = None;
            }
            tokio::select! {
                Some(input) = next_input(&mut keys) => {
                    if let TermEvent::Resize(w, _) = input {
                        let r = self.renderer.resize(w as usize, Instant::now());
                        write_to(&mut self.out, &r);
                    }
                    if let Some(Action::SendNow(text)) = self.ahead.input(&input) {
                        self.ahead.queued.push_front(text);
                    }
                    if !self.ahead.queued.is_empty() {
                        break AtWork::Done;
                    }
                    let f = self.renderer.set_footer(footer(&self.ahead), Instant::now());
                    write_to(&mut self.out, &f);
                }
                m = client.next_message() => match m {
                    None => break AtWork::Done,
                    Some(Err(_)) => {}
                    Some(Ok(m)) => {
                        if matches!(&m, Message::System(s) if matches!(&**s, claudio::SystemMessage::Init(_))) {
                            turn_open = true;
                        }
                        if self.show(&m) {
                            turn_open = false;
                        }
                    }
                },
                Some(a) = self.approvals.recv() => {
                    let text = self.renderer.suspend();
                    write_to(&mut self.out, &text);
                    self.answer(a, keys.as_mut()).await;
                    let f = self.renderer.set_footer(footer(&self.ahead), Instant::now());
                    write_to(&mut self.out, &f);
                }
                Some(()) = cont.recv() => {
                    if let Some(k) = &keys {
                        k.restore_char_mode();
                    }
                    let r = self.renderer.resume_after_stop(terminal_width(), Instant::now());
                    write_to(&mut self.out, &r);
                }
                _ = ticker.tick() => {
                    let text = self.renderer.tick(Instant::now());
                    write_to(&mut self.out, &text);
                }
                _ = sigint.recv() => {
                    // Ctrl-C clears the line, as at the prompt
                    self.ahead.typed.clear();
                    let f = self.renderer.set_footer(footer(&self.ahead), Instant::now());
                    write_to(&mut self.out, &f);
                }
            }
        };
        let f = self.renderer.suspend();
        write_to(&mut self.out, &f);
        self.finish_keys(keys);
        Ok(end)
    }

    /// Read a line at the prompt.
    fn read_line(
        &mut self,
        mut ed: ChatEditor,
        prompt: String,
        before: String,
        after: String,
    ) -> anyhow::Result<(ChatEditor, rustyline::Result<String>)> {
        let r = if before.is_empty() && after.is_empty() {
            ed.readline(&prompt)
        } else {
            ed.readline_with_initial(&prompt, (&before, &after))
        };
        Ok((ed, r))
    }

    /// Ask the person about one request from the CLI: a question, a plan,
    /// or a tool to allow; true when the turn is to be interrupted.
    async fn answer(&mut self, a: Approval, keys: Option<&mut Keys>) -> bool {
        let Some(keys) = keys else {
            // nobody to ask: never allow silently
            write_to(
                &mut self.out,
                &format!(
                    "  {} no terminal to ask on: denied {}\n",
                    self.style.red("✗"),
                    Sanitizer::clean(&a.req.tool_name)
                ),
            );
            let _ = a
                .reply
                .send(crate::cli::approve::nobody_to_ask(&a.req.tool_name));
            return false;
        };
        let width = self.renderer.width();
        // a sub-agent's request names its agent (`agent_id`, its task id)
        let agent = a
            .req
            .extra
            .get("agent_id")
            .and_then(|v| v.as_str())
            .and_then(|t| self.renderer.agent_by_task(t))
            .or_else(|| {
                a.req
                    .tool_use_id
                    .as_deref()
                    .and_then(|id| self.renderer.agent_of(id))
            });
        match a.req.tool_name.as_str() {
            ASK_USER_QUESTION => {
                asks::questions_in_chat(keys, a, self.style, width, agent).await;
                false
            }
            EXIT_PLAN_MODE => {
                let plan = claudio::protocol::ask::plan_text(&a.req.input)
                    .or_else(|| {
                        a.req
                            .tool_use_id
                            .as_deref()
                            .and_then(|id| self.renderer.plan(id))
                    })
                    .map(str::to_owned);
                // the new mode shows once the CLI confirms it (system/status)
                asks::plan_in_chat(keys, a, plan, self.style, width, agent).await;
                false
            }
            _ => ask(keys, a, self.style, self.cwd.clone(), agent).await,
        }
    }

    /// Stop reading keys; what was typed in the last instant joins the
    /// type-ahead.
    fn finish_keys(&mut self, keys: Option<Keys>) {
        if let Some(k) = keys {
            self.ahead.drain_after_turn(k.finish());
        }
    }

    /// Render one message; true for a `result`.
    fn show(&mut self, m: &Message) -> bool {
        let text = self.renderer.message(m, Instant::now());
        write_to(&mut self.out, &text);
        m.is_result()
    }
}

/// The next key from the terminal, or never when there is none.
async fn next_input(keys: &mut Option<Keys>) -> Option<TermEvent> {
    match keys {
        Some(k) => k.next().await,
        None => pending().await,
    }
}

fn write_to(out: &mut io::Stdout, s: &str) {
    if !s.is_empty() {
        let _ = out.write_all(s.as_bytes());
        let _ = out.flush();
    }
}

/// Ask the person about one tool; true when they chose to interrupt.
async fn ask(
    keys: &mut Keys,
    a: Approval,
    style: Style,
    cwd: std::path::PathBuf,
    agent: Option<String>,
) -> bool {
    if a.ctx.cancellation.is_cancelled() {
        return false;
    }
    let approver = TtyApprover::new(style, cwd);
    let cancel = a.ctx.cancellation.clone();
    let mut expanded = false;
    let outcome = loop {
        let (question, folded) = approver.render(&a.req, expanded, agent.as_deref());
        write_to(&mut io::stdout(), &question);
        let answer = approval::read_answer(keys, &cancel, folded).await;
        if let Ok(Some(Outcome::ShowAll)) = answer {
            expanded = true;
            write_to(&mut io::stdout(), "\r\n");
            continue;
        }
        break answer;
    };
    let (result, note, interrupt) = match outcome {
        Ok(Some(Outcome::Decision(d))) => {
            let note = match &d {
                crate::cli::approve::Decision::AllowOnce => style.green("allowed once"),
                crate::cli::approve::Decision::AllowSession => {
                    style.green("allowed for this session")
                }
                crate::cli::approve::Decision::Deny(_) => style.red("denied"),
            };
            (d.into_result(&a.req), note, false)
        }
        Ok(Some(Outcome::DenyAndInterrupt)) => (
            PermissionResult::deny_and_interrupt(
                "The user denied this tool call and stopped the turn.",
            ),
            style.red("denied"),
            true,
        ),
        Ok(None) if cancel.is_cancelled() => (
            PermissionResult::deny("The request was withdrawn."),
            style.dim("withdrawn"),
            false,
        ),
        Ok(Some(Outcome::ShowAll)) | Ok(None) | Err(_) => (
            PermissionResult::deny("The permission prompt failed; nothing was allowed."),
            style.red("denied (the prompt failed)"),
            false,
        ),
    };
    write_to(&mut io::stdout(), &format!("\r\n  {}\n", note));
    let _ = a.reply.send(result);
    interrupt
}

fn context_chart(usage: &serde_json::Value, style: Style) -> String {
    let max = usage["maxTokens"].as_f64().unwrap_or(0.0);
    let total = usage["totalTokens"].as_f64().unwrap_or(0.0);
    let mut out = String::new();
    let cats = usage["categories"].as_array().cloned().unwrap_or_default();
    let name_w = cats
        .iter()
        .filter_map(|c| c["name"].as_str())
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(8)
        .min(28);
    const BAR: usize = 24;
    for c in &cats {
        let name = Sanitizer::clean(c["name"].as_str().unwrap_or("?"));
        let tokens = c["tokens"].as_f64().unwrap_or(0.0);
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

fn terminal_width() -> usize {
    crossterm::terminal::size()
        .map(|(w, _)| w as usize)
        .unwrap_or(80)
}

fn tilde(p: &std::path::Path) -> String {
    if let Some(home) = dirs::home_dir() {
        if let Ok(rest) = p.strip_prefix(&home) {
            return format!("~/{}", rest.display());
        }
    }
    p.display().to_string()
}

fn short_id(id: &str) -> String {
    id.chars().take(8).collect()
}

/// `claude-opus-5-5` → `opus-5-5`.
fn short_model(m: &str) -> String {
    m.strip_prefix("claude-").unwrap_or(m).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn context_chart_draws_bars() {
        let u = json!({"categories":[{"name":"messages","tokens":41000},{"name":"system prompt","tokens":3000},{"name":"free","tokens":0}],
                       "totalTokens":44000,"maxTokens":200000});
        let c = context_chart(&u, Style::plain());
        assert!(c.contains("messages"), "{c}");
        assert!(c.contains("█"), "{c}");
        assert!(c.contains("41k"), "{c}");
        assert!(c.contains("44k of 200k tokens (22%)"), "{c}");
        assert!(!c.contains("free"));
    }

    #[test]
    fn prompt_labels() {
        assert_eq!(short_model("claude-opus-5-5"), "opus-5-5");
        assert_eq!(tokens_short(1_500_000.0), "1.5M");
    }
}
