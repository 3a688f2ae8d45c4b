//! The interactive chat: one persistent session, a line editor, streamed
//! answers, spinners, approvals on the terminal.

use super::approval;
use super::commands::{self, Input};
use super::core::{lock, terminal_width, Chat, Slot};
use super::dialog::{Approval, Dialog};
use super::editor::{self, ChatEditor, PromptAction};
use super::keys::{Keys, RawGuard, TermEvent};
use super::machine::{Effect, End, Event, Parts, Work};
use super::render::{RenderOptions, Renderer};
use super::rewind;
use super::shell;
use super::state::SessionState;
use super::typeahead::TypeAhead;
use crate::cli::approve::TtyApprover;
use crate::cli::args::SessionArgs;
use crate::cli::exit::Exit;
use crate::cli::picker::Picked;
use crate::cli::sanitize::Sanitizer;
use crate::cli::style::Style;
use anyhow::Context as _;
use claudio::protocol::ask::RequestKind;
use claudio::{Client, Message, PermissionMode, PermissionResult, Priority, UserInput};
use futures_util::FutureExt;
use rustyline::error::ReadlineError;
use std::collections::VecDeque;
use std::future::{pending, Future};
use std::io::{self, IsTerminal, Write};
use std::pin::Pin;
use std::time::{Duration, Instant};
use tokio::runtime::Runtime;
use tokio::signal::unix::{signal, SignalKind};
use tokio::sync::mpsc;

/// On SIGTERM or SIGHUP (the terminal closed), close the session gracefully
/// (its transcript complete), put the terminal back, and exit 128+N.
fn watch_signals(rt: &Runtime, slot: Slot) -> anyhow::Result<()> {
    let saved = rustix::termios::tcgetattr(io::stdin()).ok();
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
            let _ =
                rustix::termios::tcsetattr(io::stdin(), rustix::termios::OptionalActions::Now, &t);
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
        state: SessionState::default(),
        client: Slot::default(),
        connecting: None,
        approvals_tx,
        approvals,
        out: io::stdout(),
        ahead: TypeAhead::default(),
        initial: None,
        shell_context: Vec::new(),
        typed_prompts: Default::default(),
        cwd: match &session.cwd {
            Some(d) => d.clone(),
            None => std::env::current_dir()?,
        },
    };
    chat.state.model = session.model.clone();
    chat.state.mode = session.permission_mode.clone();
    chat.header();
    watch_signals(rt, chat.client.clone())?;
    chat.start_connect(session.clone())?;

    // what Shift-Tab and Esc Esc leave for the loop
    let actions = editor::Actions::default();
    let mut ed = editor::new_editor(settings.history_size, chat.cwd.clone(), actions.clone())?;
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

    fn handle(&mut self, input: Input) -> anyhow::Result<Option<Exit>> {
        match input {
            Input::Exit => return Ok(Some(Exit::Success)),
            // the chat's own commands
            Input::Help
            | Input::Model(_)
            | Input::Mode(_)
            | Input::Cost
            | Input::Context
            | Input::Mcp
            | Input::New
            | Input::Resume(_)
            | Input::Sessions => self.command(input)?,
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
            Input::Rewind => {
                if let Some(text) = self.rewind()? {
                    self.initial = Some((text, String::new()));
                }
            }
        }
        Ok(None)
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
                let id = self.state.session_id.clone();
                self.renderer.forget_session();
                *lock(&self.client) = None;
                let mut s = self.session.clone();
                s.permission_mode = self.state.mode.clone();
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
        client.send(text).await?;
        // Keys typed while the turn runs (only on a terminal).
        let keys = if io::stdin().is_terminal() && io::stdout().is_terminal() {
            Keys::start()
        } else {
            None
        };
        let end = self.drive(client, keys, Work::turn).await?;
        Ok(match end {
            End::Done => TurnEnd::Done,
            End::SessionLost => TurnEnd::SessionLost,
            End::Quit(exit) => TurnEnd::Quit(exit),
            End::Failed(e) => anyhow::bail!("{e}"),
        })
    }

    /// The parts of the chat its machine works on.
    fn parts(&mut self) -> Parts<'_> {
        Parts {
            renderer: &mut self.renderer,
            state: &mut self.state,
            ahead: &mut self.ahead,
        }
    }

    /// Run the chat's work ([`Work`]) to its end: the one loop that feeds
    /// it events (keys, messages, requests, ticks, signals) and carries out
    /// its effects.
    async fn drive(
        &mut self,
        client: &Client,
        mut keys: Option<Keys>,
        start: impl FnOnce(&mut Parts<'_>, Instant) -> (Work<Approval>, Vec<Effect<Approval>>),
    ) -> anyhow::Result<End> {
        let mut sigint = signal(SignalKind::interrupt())?;
        let mut cont = signal(SignalKind::from_raw(libc::SIGCONT))?;
        let mut ticker = tokio::time::interval(Duration::from_millis(80));
        let mut interrupt: Pin<Box<dyn Future<Output = ()> + Send + '_>> = Box::pin(pending());
        let (mut work, first) = start(&mut self.parts(), Instant::now());
        let mut effects: VecDeque<Effect<Approval>> = first.into();
        // while a dialog is open: single keys, and its request's withdrawal
        let mut raw: Option<RawGuard> = None;
        let mut open: Option<claudio::Cancellation> = None;
        loop {
            while let Some(effect) = effects.pop_front() {
                let event = match effect {
                    Effect::Write(text) => {
                        write_to(&mut self.out, &text);
                        None
                    }
                    Effect::SendNow(text) => {
                        let input = UserInput::new(text).priority(Priority::Now);
                        client.send(input).await.is_ok().then_some(Event::SentNow)
                    }
                    Effect::Interrupt => {
                        interrupt = Box::pin(async move {
                            let _ =
                                tokio::time::timeout(Duration::from_secs(10), client.interrupt())
                                    .await;
                        });
                        None
                    }
                    Effect::Raw(on) => {
                        raw = if on {
                            keys.as_ref().map(Keys::raw)
                        } else {
                            None
                        };
                        None
                    }
                    Effect::Reply(a, result) => {
                        let _ = a.reply.send(result);
                        open = None;
                        None
                    }
                    Effect::RestoreKeys => {
                        if let Some(k) = &keys {
                            k.restore_char_mode();
                        }
                        None
                    }
                    Effect::End(end) => {
                        drop(raw);
                        // what was typed in the last instant joins the type-ahead
                        self.finish_keys(keys);
                        return Ok(end);
                    }
                };
                if let Some(e) = event {
                    effects.extend(work.step(&mut self.parts(), e, Instant::now()));
                }
            }
            let asking = work.asking();
            let event = tokio::select! {
                input = next_input(&mut keys) => match input {
                    Some(input) => Event::Key(input),
                    None => {
                        keys = None;
                        Event::KeysGone
                    }
                },
                _ = withdrawn(open.as_ref()) => Event::Withdrawn,
                Some(()) = cont.recv() => Event::Continued { width: terminal_width() },
                m = client.next_message(), if !asking => match m {
                    None => Event::Closed,
                    Some(Err(claudio::Error::LineTooLong { limit })) => Event::LongLine(limit),
                    Some(Err(e)) => Event::Failed(e),
                    Some(Ok(m)) => Event::Message(Box::new(m)),
                },
                Some(request) = self.approvals.recv(), if !asking => {
                    // what the CLI wrote before it asked (the tool call, and
                    // the plan an ExitPlanMode request refers to)
                    let mut before = Vec::new();
                    while let Some(Some(m)) = client.next_message().now_or_never() {
                        if let Ok(m) = m {
                            before.push(m);
                        }
                    }
                    let dialog = Box::new(self.dialog(&request, &before, keys.is_some()));
                    open = Some(request.ctx.cancellation.clone());
                    Event::Request { before, request, dialog }
                }
                _ = ticker.tick(), if !asking => Event::Tick,
                _ = &mut interrupt => {
                    interrupt = Box::pin(pending());
                    continue;
                }
                _ = sigint.recv(), if !asking => Event::CtrlC,
            };
            effects.extend(work.step(&mut self.parts(), event, Instant::now()));
        }
    }
}

/// The mode after `mode` in Shift-Tab's cycle, as in the claude TUI.
fn next_mode(mode: &str) -> PermissionMode {
    match mode {
        "default" => PermissionMode::AcceptEdits,
        "acceptEdits" => PermissionMode::Plan,
        _ => PermissionMode::Default,
    }
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
        let next = next_mode(self.state.mode_name());
        let client = self.client()?;
        let rt = self.rt;
        let confirmed = rt.block_on(async {
            client.set_permission_mode(next.clone()).await?;
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
            self.state.mode = Some(next.to_string());
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
    fn pick_now(&mut self, picker: crate::cli::picker::Picker) -> anyhow::Result<Option<Picked>> {
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
        let Some(id) = self.state.session_id.clone() else {
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
            .unwrap_or_else(|e| {
                // the dry run failed: say why, and offer the conversation only
                serde_json::from_value(
                    serde_json::json!({"canRewind": false, "error": e.to_string()}),
                )
                .unwrap_or_default()
            });
        let text = rewind::preview_text(&preview, &self.cwd, s);
        self.write(&text);
        let files = preview.can_rewind;
        let actions: Vec<usize> = (0..rewind::ACTIONS.len())
            .filter(|&a| files || a == 1 || a == 3)
            .collect();
        let choices = actions
            .iter()
            .map(|&a| crate::cli::picker::Choice::new(rewind::ACTIONS[a].0, rewind::ACTIONS[a].1))
            .collect();
        let picked = self.pick_now(crate::cli::picker::Picker::new(choices))?;
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
        next.permission_mode = self.state.mode.clone();
        next.cwd = Some(self.cwd.clone());
        let forked = match &p.before {
            Some(before) => store.fork(&id, Some(before), None).map(Some),
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
        self.state.session_id = next.resume.clone();
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
        let prompt = self.plain_prompt();
        let end = self
            .drive(client, Keys::start(), |p, now| {
                Work::at_work(p, prompt, now)
            })
            .await?;
        Ok(match end {
            End::Quit(_) => AtWork::Quit,
            _ => AtWork::Done,
        })
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

    /// The dialog that asks the person about one request from the CLI: a
    /// tool to allow, the model's questions, or a plan (its text from the
    /// request, else from the call the model wrote, among `before` or
    /// earlier). Without a terminal, nobody is asked: denied, never allowed
    /// silently.
    fn dialog(&self, a: &Approval, before: &[Message], keys: bool) -> Dialog {
        let style = self.style;
        let req = &a.req;
        if a.ctx.cancellation.is_cancelled() {
            let result = PermissionResult::deny("The request was withdrawn.");
            return Dialog::decided(String::new(), result, style);
        }
        if !keys {
            let note = format!(
                "  {} no terminal to ask on: denied {}\n",
                style.red("✗"),
                Sanitizer::clean(&req.tool_name)
            );
            let result = crate::cli::approve::nobody_to_ask(&req.tool_name);
            return Dialog::decided(note, result, style);
        }
        // a sub-agent's request names its agent (`agent_id`, its task id)
        let agent = req
            .extra
            .get("agent_id")
            .and_then(|v| v.as_str())
            .and_then(|t| self.renderer.agent_by_task(t))
            .or_else(|| {
                req.tool_use_id
                    .as_deref()
                    .and_then(|id| self.renderer.agent_of(id))
            });
        let (width, height) = crossterm::terminal::size()
            .map(|(w, h)| (w as usize, h as usize))
            .unwrap_or((self.renderer.width(), 24));
        let dialog = match req.kind() {
            RequestKind::Questions => Dialog::questions(req, agent, style),
            RequestKind::Plan => {
                let plan = claudio::protocol::ask::plan_text(&req.input)
                    .map(str::to_owned)
                    .or_else(|| {
                        let id = req.tool_use_id.as_deref()?;
                        plan_in(before, id).or_else(|| self.renderer.plan(id).map(str::to_owned))
                    });
                Dialog::plan(req, plan, agent.as_deref(), style)
            }
            _ => {
                let approver = TtyApprover::new(style, self.cwd.clone());
                let (question, folded) = approver.render(req, false, agent.as_deref());
                let full = if folded {
                    approver.render(req, true, agent.as_deref()).0
                } else {
                    String::new()
                };
                Dialog::tool(req.clone(), (question, folded), full, style)
            }
        };
        dialog.size(width, height)
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
        self.state.observe(m);
        let text = self.renderer.message(m, &self.state, Instant::now());
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

/// The plan of the `ExitPlanMode` call `id`, among `messages`.
fn plan_in(messages: &[Message], id: &str) -> Option<String> {
    messages.iter().rev().find_map(|m| match m {
        Message::Assistant(a) => a.message.content.iter().find_map(|b| match b {
            claudio::ContentBlock::ToolUse(t) if t.id == id => {
                claudio::protocol::ask::plan_text(&t.input).map(str::to_owned)
            }
            _ => None,
        }),
        _ => None,
    })
}

/// Resolves when the request `open` is withdrawn; never without one.
async fn withdrawn(open: Option<&claudio::Cancellation>) {
    match open {
        Some(c) => c.cancelled().await,
        None => pending().await,
    }
}
