//! The chat at work: the one loop that feeds the chat's machine
//! ([`Machine`], in `machine.rs`) its events (keys, messages, requests, ticks, signals) and
//! carries out its effects, for a turn and for the wait while background
//! agents work between prompts.
//!
//! A request from the CLI passes here once: taken in at once when no
//! dialog is open, or held in the [`Inbox`] among what the CLI said after
//! it until the dialog before it is answered; then its dialog is made
//! (its turn came: a proposed edit's diff is read against the file as the
//! edits allowed before it left it) and the machine is stepped with it
//! once ([`Event::Request`]).

use super::connection::Connection;
use super::dialog::{Dialog, PendingRequest};
use super::inbox::{Inbox, Said};
use super::keys::{Input, Keys, RawGuard, Sig, TermEvent};
use super::machine::{Effect, Event, Machine, Parts, WorkEnd};
use super::prompt::PromptSide;
use super::screen::{terminal_height, terminal_width, Screen};
use super::state::Session;
use crate::cli::common::notify::{Notice, Notifier, Trigger};
use crate::cli::requests;
use crate::cli::requests::publish;
use crate::cli::sanitize::Sanitizer;
use crate::cli::term::console;
use crate::cli::turn::events::{held_bytes, Happened, Signals, Source, Wait};
use crate::cli::turn::summary::Here;
use claudio::{
    Client, PermissionMode, PermissionResult, Priority, RequestBody, RequestState, Responder,
    UserInput,
};
use std::collections::VecDeque;
use std::future::pending;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};
use tokio::runtime::Runtime;

/// The chat's work with what it reads and changes: what the last work
/// held over (the connection), the screen, what the session has seen,
/// the prompt side (the type-ahead), the chat's one reader of the
/// keyboard (the work's while it runs), the notices and the session's
/// folder. How the work ended is the machine's [`WorkEnd`]; what follows
/// it (a restart, the end of the chat) is the chat's.
pub(super) struct Work<'a> {
    pub(super) conn: &'a mut Connection,
    pub(super) screen: &'a mut Screen,
    pub(super) session: &'a mut Session,
    pub(super) prompt: &'a mut PromptSide,
    pub(super) keys: &'a mut Option<Keys>,
    pub(super) notifier: &'a mut Notifier,
    pub(super) cwd: &'a Path,
}

impl Work<'_> {
    /// A turn: `text` sent to `client`, its answer drawn, its requests
    /// asked; a notice when a long one ended.
    pub(super) fn turn(
        &mut self,
        rt: &Runtime,
        client: &Client,
        text: UserInput,
    ) -> anyhow::Result<WorkEnd> {
        self.screen.renderer_mut().set_width(terminal_width());
        let started = Instant::now();
        let end = rt.block_on(async {
            client.send(text).await?;
            self.drive(client, Machine::turn).await
        });
        if matches!(end, Ok(WorkEnd::Done)) {
            let took = started.elapsed();
            let project = crate::cli::common::notify::project_name(self.cwd);
            let body = format!("claudio in {project}, after {} s", took.as_secs());
            let notice = Notice::new(
                Trigger::Turn,
                "Claude is done",
                &body,
                self.session.state.session_id.as_deref(),
            );
            self.notifier.turn_ended(took, &notice, self.screen.out());
        }
        end
    }

    /// Shift-Tab, the mode `next` asked of the CLI: what it sends is taken
    /// in until it confirms the switch (its requests meanwhile are asked,
    /// as in a turn).
    pub(super) fn mode(
        &mut self,
        rt: &Runtime,
        client: &Client,
        next: PermissionMode,
    ) -> anyhow::Result<WorkEnd> {
        rt.block_on(self.drive(client, |_, now| Machine::mode(next, now)))
    }

    /// Background agents are at work and nothing else is: show them live
    /// and take the next prompt on the turn's own line (after `prompt`;
    /// Enter sends it). Their requests are asked at once. Ends when they
    /// are done and the turn the CLI starts for their report has ended,
    /// when a prompt was typed, or with Ctrl-D on an empty line
    /// ([`WorkEnd::Quit`]).
    pub(super) fn agents(
        &mut self,
        rt: &Runtime,
        client: &Client,
        prompt: String,
    ) -> anyhow::Result<WorkEnd> {
        let eof = self.prompt.take_eof();
        rt.block_on(self.drive(client, |p, now| {
            let (mut work, mut out) = Machine::at_work(p, prompt, now);
            if eof {
                work.step_into(p, Event::Eof, now, &mut |e| out.push(e));
            }
            (work, out)
        }))
    }

    /// The parts of the chat its machine works on.
    fn parts(&mut self) -> Parts<'_> {
        Parts {
            renderer: self.screen.renderer_mut(),
            session: &mut *self.session,
            ahead: self.prompt.ahead_mut(),
        }
    }

    /// Run the chat's work ([`Machine`]) to its end: the one loop that feeds
    /// it events (the CLI's messages and ticks from the turn's [`Source`],
    /// and the chat's own keys and signals, from its one reader, and
    /// requests) and carries out its effects. The chat's one [`Keys`] is
    /// the work's while it runs, and the chat's again after.
    async fn drive(
        &mut self,
        client: &Client,
        start: impl FnOnce(
            &mut Parts<'_>,
            Instant,
        ) -> (Machine<PendingRequest>, Vec<Effect<PendingRequest>>),
    ) -> anyhow::Result<WorkEnd> {
        let Some(mut keys) = self.keys.take() else {
            anyhow::bail!("the keyboard's reader is in use");
        };
        let end = self.drive_with(client, &mut keys, start).await;
        // what was typed in the last instant joins the type-ahead (Ctrl-D
        // among it: for the wait after the turn); what comes after waits
        // in the reader for the prompt
        let left = if keys.has_terminal() {
            keys.ready()
        } else {
            Vec::new()
        };
        self.prompt.turn_ended(left);
        *self.keys = Some(keys);
        end
    }

    async fn drive_with(
        &mut self,
        client: &Client,
        keys: &mut Keys,
        start: impl FnOnce(
            &mut Parts<'_>,
            Instant,
        ) -> (Machine<PendingRequest>, Vec<Effect<PendingRequest>>),
    ) -> anyhow::Result<WorkEnd> {
        // whether keys are read (a terminal, not gone)
        let mut terminal = keys.has_terminal();
        // the chat's signals come from its one reader, beside its keys
        let mut source = Source::new(client, Signals::none()).ticking(TICK);
        // the live region is folded to the screen's rows
        self.screen.renderer_mut().set_height(terminal_height());
        let (mut work, first) = start(&mut self.parts(), Instant::now());
        // what the work before read and did not take in comes first
        let mut inbox = Inbox::new(self.conn.take_held());
        let mut effects: VecDeque<Effect<PendingRequest>> = first.into();
        // while a dialog is open: single keys, and its request's end
        let mut raw: Option<RawGuard> = None;
        let mut open: Option<Responder> = None;
        // the open request, offered to the deck while its dialog waits
        let mut published: Option<publish::Published> = None;
        loop {
            while let Some(effect) = effects.pop_front() {
                let event = match effect {
                    Effect::Write(text) => {
                        write_to(self.screen.out(), &text);
                        None
                    }
                    Effect::SendNow(text) => {
                        let input = UserInput::new(text).priority(Priority::Now);
                        client.send(input).await.is_ok().then_some(Event::SentNow)
                    }
                    Effect::Interrupt => {
                        source.interrupt();
                        None
                    }
                    Effect::Raw(on) => {
                        raw = if on && terminal {
                            Some(keys.raw())
                        } else {
                            None
                        };
                        None
                    }
                    Effect::Reply(a, result) => {
                        // whoever gave it (the dialog, or the deck: its
                        // answer comes back as the dialog's reply, already
                        // given), the main agent's turn stops (a sub-agent's
                        // "stop" may stop that agent only: what follows is
                        // asked)
                        let own = result.clone();
                        // withdrawn meanwhile, or the session gone: nothing
                        // to send; or the deck's answer reached the CLI first
                        let answered = a.responder.answer(result).await;
                        let sent = answered.is_ok();
                        let deck =
                            deck_first(&answered, published.as_ref().and_then(|p| p.given()));
                        let after = after_reply(&own, sent, deck.as_ref());
                        if after.hold && a.req.agent_id.is_none() {
                            inbox.stop_asked();
                            if after.interrupt {
                                source.interrupt();
                            }
                        }
                        self.notifier.answered();
                        open = None;
                        drop(published.take());
                        // the deck's answer reached the CLI first: the
                        // screen says what it decided, under the person's
                        overtaken(sent, deck)
                    }
                    Effect::RestoreKeys => {
                        keys.restore_char_mode();
                        None
                    }
                    Effect::End(end) => {
                        // read while a dialog was open, after the end: the
                        // next work's
                        self.conn.hold(inbox.held_over());
                        drop(raw);
                        return Ok(end);
                    }
                };
                if let Some(e) = event {
                    self.step(&mut work, e, &mut effects);
                }
            }
            let asking = work.asking();
            // what the CLI said while a dialog was open comes first, once
            // it is answered
            let said = match inbox.next(asking) {
                Some(held) => held,
                None => {
                    let front = front_input(keys, terminal, open.as_ref());
                    let wait = Wait {
                        asking,
                        hold: inbox.full(),
                        due: None,
                    };
                    let happened = source.next(front, wait).await;
                    let size = held_bytes(&happened);
                    // what the CLI says (held while a dialog is open)
                    let cli = matches!(
                        happened,
                        Happened::Request(_)
                            | Happened::Message(_)
                            | Happened::LongLine(_)
                            | Happened::Failed(_)
                            | Happened::Closed
                    );
                    let said = match happened {
                        Happened::Front(Front::Key(Some(Input::Term(input)))) => {
                            Said::Event(Event::Key(input))
                        }
                        Happened::Front(Front::Key(Some(Input::Signal(Sig::Interrupt)))) => {
                            // while someone is asked, its dialog answers it
                            // as its Ctrl-C key (the machine)
                            Said::Event(Event::CtrlC)
                        }
                        Happened::Front(Front::Key(Some(Input::Signal(Sig::Continue)))) => {
                            Said::Event(Event::Continued {
                                width: terminal_width(),
                            })
                        }
                        Happened::Front(Front::Stopped(n)) => {
                            // a signal ends the chat: the work stops here, the
                            // chat's loop closes the session
                            self.conn.hold(inbox.held_over());
                            drop(raw);
                            drop(published.take());
                            return Err(super::keys::Stopped(n).into());
                        }
                        Happened::Front(Front::Key(None)) => {
                            terminal = false;
                            Said::Event(Event::KeysGone)
                        }
                        Happened::Front(Front::Settled(how)) => {
                            // answered in the deck, withdrawn, or the session
                            // gone; the deck's answer means what it means in
                            // the dialog (its reply stops the turn, or not)
                            open = None;
                            let given = published.take().and_then(|p| p.given());
                            self.notifier.answered();
                            if how == RequestState::Answered {
                                Said::Event(Event::AnsweredElsewhere { given })
                            } else {
                                Said::Event(Event::Withdrawn)
                            }
                        }
                        Happened::Request(request) => {
                            let (body, responder) = request.into_parts();
                            match body {
                                RequestBody::CanUseTool(req) => Said::Asks(PendingRequest {
                                    req: *req,
                                    responder,
                                }),
                                // a kind the chat does not answer: dropped, it
                                // gets its default answer (an error)
                                _ => continue,
                            }
                        }
                        Happened::Withdrawn(id) => {
                            // the open dialog closes, saying so; a request held
                            // behind it is passed over when its turn comes
                            if open.as_ref().is_none_or(|r| r.request_id() != id) {
                                continue;
                            }
                            open = None;
                            drop(published.take());
                            self.notifier.answered();
                            Said::Event(Event::Withdrawn)
                        }
                        Happened::TurnStarted => {
                            // the reading counts the results owed from it
                            self.session.reading.turn_started();
                            continue;
                        }
                        Happened::TurnEnded => {
                            self.session.reading.turn_ended();
                            continue;
                        }
                        Happened::Message(m) => Said::Event(Event::Message(Box::new(m.message))),
                        Happened::LongLine(limit) => Said::Event(Event::LongLine(limit)),
                        Happened::Failed(e) => Said::Event(Event::Failed(e)),
                        Happened::Closed => Said::Event(Event::Closed),
                        Happened::Tick | Happened::Due => Said::Event(Event::Tick),
                        // the chat's signals are its one reader's (`Front`)
                        Happened::Signal(_) => continue,
                    };
                    // while a dialog is open, what the CLI says is held
                    let said = if cli {
                        match inbox.take_sized(said, size, asking) {
                            Some(said) => said,
                            None => continue,
                        }
                    } else {
                        said
                    };
                    if matches!(said, Said::Event(Event::Tick)) {
                        // a terminal made narrower whose SIGWINCH is not read
                        // yet: the tick would draw the spinners at the old
                        // width, the terminal would wrap them, and the resize
                        // that follows would erase too few rows; the new size
                        // is taken first
                        self.resize_if_changed(&mut work, &mut effects);
                    }
                    match &said {
                        Said::Event(Event::Key(TermEvent::Resize(_, rows))) => {
                            self.screen.renderer_mut().set_height(usize::from(*rows));
                        }
                        Said::Event(Event::Continued { .. }) => {
                            self.screen.renderer_mut().set_height(terminal_height())
                        }
                        _ => {}
                    }
                    said
                }
            };
            let event = match said {
                Said::Event(event) => event,
                Said::Asks(request) => {
                    // its turn came, no other dialog is open: its dialog is
                    // made now, and the machine told of it once
                    open = Some(request.responder.clone());
                    let (event, deck) = self.open(request, keys, terminal);
                    published = deck;
                    event
                }
            };
            self.step(&mut work, event, &mut effects);
        }
    }

    /// The dialog for `request`, made now that its turn came (no other is
    /// open), as the event that opens it in the machine; the person told
    /// (a notice) and the deck offered it when it asks them.
    fn open(
        &mut self,
        request: PendingRequest,
        keys: &mut Keys,
        terminal: bool,
    ) -> (Event<PendingRequest>, Option<publish::Published>) {
        let dialog = Box::new(self.dialog(&request, terminal));
        if dialog.asks() {
            let notice = self.notice_for(&request);
            self.notifier.needs_you(&notice, self.screen.out());
        }
        // what was typed before the dialog is drawn (the keys read
        // meanwhile: making it can take a while, a big file's diff) is the
        // type-ahead's, never its answer
        let typed_before = if terminal { keys.ready() } else { Vec::new() };
        let published = if dialog.asks() && terminal {
            self.publish(&request)
        } else {
            None
        };
        let event = Event::Request {
            typed_before,
            request,
            dialog,
        };
        (event, published)
    }

    /// The terminal's width is not the one drawn at (its resize still on
    /// the way): the machine is stepped with the resize now.
    fn resize_if_changed(
        &mut self,
        work: &mut Machine<PendingRequest>,
        effects: &mut VecDeque<Effect<PendingRequest>>,
    ) {
        if !console::output_is_terminal() {
            return;
        }
        let Ok((cols, rows)) = console::size() else {
            return;
        };
        if usize::from(cols) == self.screen.renderer().width() || cols == 0 {
            return;
        }
        self.screen.renderer_mut().set_height(usize::from(rows));
        self.step(work, Event::Key(TermEvent::Resize(cols, rows)), effects);
    }

    /// One step of the machine: what it writes goes to the screen as it
    /// is drawn (a message of 300,000 blocks is never held drawn whole),
    /// unless effects wait before it in `effects`; the other effects join
    /// them, in order.
    fn step(
        &mut self,
        work: &mut Machine<PendingRequest>,
        event: Event<PendingRequest>,
        effects: &mut VecDeque<Effect<PendingRequest>>,
    ) {
        let (renderer, screen) = self.screen.split();
        let mut parts = Parts {
            renderer,
            session: &mut *self.session,
            ahead: self.prompt.ahead_mut(),
        };
        work.step_into(
            &mut parts,
            event,
            Instant::now(),
            &mut |effect| match effect {
                Effect::Write(text) if effects.is_empty() => write_to(screen, &text),
                effect => effects.push_back(effect),
            },
        );
    }

    /// The dialog that asks the person about one request from the CLI: a
    /// tool to allow, the model's questions, or a plan (its text as the
    /// library hands it over). Without a terminal, nobody is asked: denied,
    /// never allowed silently.
    fn dialog(&self, a: &PendingRequest, keys: bool) -> Dialog {
        let style = self.screen.style();
        let req = &a.req;
        if a.responder.is_settled() {
            // withdrawn while another was asked: said, nothing to answer
            let note = format!(
                "  {} {} {}\n",
                style.dim("•"),
                Sanitizer::clean(&req.tool_name),
                style.dim("withdrawn before it was asked")
            );
            let result = PermissionResult::deny(requests::WITHDRAWN);
            return Dialog::decided(note, result, style);
        }
        if !keys {
            let note = format!(
                "  {} no terminal to ask on: denied {}\n",
                style.red("✗"),
                Sanitizer::clean(&req.tool_name)
            );
            let result = requests::nobody_to_ask(&req.tool_name);
            return Dialog::decided(note, result, style);
        }
        // a sub-agent's request names its agent (`agent_id`, its task id)
        let agent = req
            .agent_id
            .as_deref()
            .and_then(|t| self.session.agent_by_task(t))
            .or_else(|| {
                req.tool_use_id
                    .as_deref()
                    .and_then(|id| self.session.agent_of(id))
            });
        let (width, height) = console::size()
            .map(|(w, h)| (w as usize, h as usize))
            .unwrap_or((self.screen.renderer().width(), 24));
        // the very call the person allowed for this session (no rule was
        // suggested) is allowed and said; any other is asked
        let at = requests::Asking {
            cwd: self.cwd,
            agent,
            grants: &self.session.state.grants,
            style,
            width,
        };
        let dialog = Dialog::open(req, &at);
        dialog.size(width, height)
    }

    /// Offer the request its dialog asks about to the deck, if one runs
    /// or starts while it waits ([`publish`]): the first answer wins.
    fn publish(&self, a: &PendingRequest) -> Option<publish::Published> {
        let about = publish::About {
            program: "claudio chat",
            cwd: self.cwd.to_owned(),
            session_id: self.session.state.session_id.clone(),
            cost_usd: self.session.state.totals.session_cost_usd,
        };
        publish::start(
            crate::cli::requests::socket::path(),
            &a.req,
            &a.responder,
            &about,
        )
    }

    /// The notice for a request that asks the person: what waits, in which
    /// project.
    fn notice_for(&self, a: &PendingRequest) -> Notice {
        let req = &a.req;
        let project = crate::cli::common::notify::project_name(self.cwd);
        let session = self.session.state.session_id.as_deref();
        let (kind, title) = (requests::registered(req.kind()).notice)(req);
        let here = Here::new(self.cwd);
        let what = crate::cli::turn::summary::tool_summary_at(&req.tool_name, &req.input, &here);
        let body = if what.is_empty() {
            format!("claudio in {project}")
        } else {
            format!("{what} — claudio in {project}")
        };
        Notice::new(kind, &title, &body, session)
    }
}

/// How often the spinners move.
const TICK: Duration = Duration::from_millis(80);

/// The chat's own input while it works, beside the CLI's events.
enum Front {
    /// A key or a signal (`None`: the terminal is gone).
    Key(Option<Input>),
    /// The request being asked is settled without its dialog: the CLI
    /// withdrew it (the event may still be on its way), the session
    /// ended, or another holder (the deck) answered.
    Settled(RequestState),
    /// A signal stops the chat ([`super::keys::stopped`]).
    Stopped(i32),
}

/// The next of the chat's own inputs: a key or a signal from its one
/// reader, or the end of the request `open` without its dialog.
async fn front_input(keys: &mut Keys, terminal: bool, open: Option<&Responder>) -> Front {
    let key = async {
        match keys.next().await {
            // no terminal: its end says nothing (the signals still come)
            None if !terminal => pending().await,
            k => k,
        }
    };
    tokio::select! {
        biased;
        n = super::keys::stopped() => Front::Stopped(n),
        k = key => Front::Key(k),
        how = settled(open) => Front::Settled(how),
    }
}

pub(in crate::cli::commands::chat) fn write_to(out: &mut impl Write, s: &str) {
    if !s.is_empty() {
        let _ = out.write_all(s.as_bytes());
        let _ = out.flush();
    }
}

/// Resolves when the request `open` is settled, with how; never without
/// one.
async fn settled(open: Option<&Responder>) -> RequestState {
    match open {
        Some(r) => r.settled().await,
        None => pending().await,
    }
}

/// What a reply leaves to do: hold the requests behind it until the turn
/// ends, and interrupt the turn.
#[derive(Debug, PartialEq, Eq)]
struct AfterReply {
    hold: bool,
    interrupt: bool,
}

/// After the chat's reply `own` (`sent`: it reached the CLI; `deck`: the
/// deck's answer, when the deck answered the request). A reply that stops
/// the turn ("no, and stop") holds what is queued behind it until the
/// turn's end. When the deck's answer reached the CLI first and does not
/// stop the turn (an allow, a plain denial), the CLI goes on: the person's
/// stop then interrupts the turn, or the requests held would wait for an
/// end that never comes. When the deck's "no, and stop" reached it first,
/// the CLI stops the turn itself: what is queued is held for that end,
/// whatever the person answered.
fn after_reply(own: &PermissionResult, sent: bool, deck: Option<&PermissionResult>) -> AfterReply {
    use super::dialog::stops_the_turn;
    // what reached the CLI: the person's reply, or the deck's before it
    let deck_first = deck.filter(|_| !sent);
    let hold = stops_the_turn(own) || deck_first.is_some_and(stops_the_turn);
    let interrupt = stops_the_turn(own) && deck_first.is_some_and(|d| !stops_the_turn(d));
    AfterReply { hold, interrupt }
}

/// The deck's answer `given` when it is what reached the CLI before the
/// chat's reply (`answered`: how the reply fared): only when the reply
/// found the request answered. Withdrawn by the CLI, or the session
/// gone, neither answer reached it: the deck's, seen in the moment it
/// was being tried (it is set before it is tried, and taken back when it
/// fails), is not said to have run the tool, nor to stop the turn.
fn deck_first(
    answered: &Result<(), claudio::AnswerError>,
    given: Option<PermissionResult>,
) -> Option<PermissionResult> {
    given.filter(|_| matches!(answered, Err(claudio::AnswerError::AlreadyAnswered)))
}

/// The event that says the chat's reply lost to the deck's answer
/// (`sent`: the reply reached the CLI; `deck`: the deck's answer, when the
/// deck answered): the screen is told what happened instead.
fn overtaken<R>(sent: bool, deck: Option<PermissionResult>) -> Option<Event<R>> {
    deck.filter(|_| !sent)
        .map(|given| Event::Overtaken { given })
}

#[cfg(test)]
mod after_reply_tests {
    use super::*;

    fn stop() -> PermissionResult {
        PermissionResult::deny_and_interrupt("stop")
    }

    #[test]
    fn a_stop_holds_the_queue_and_the_cli_s_own_end_releases_it() {
        let after = after_reply(&stop(), true, None);
        assert_eq!(
            after,
            AfterReply {
                hold: true,
                interrupt: false
            }
        );
        // the deck said the same, first: the CLI stops the turn itself
        let after = after_reply(&stop(), false, Some(&stop()));
        assert_eq!(
            after,
            AfterReply {
                hold: true,
                interrupt: false
            }
        );
    }

    /// Esc at the terminal as the deck's "allow" reached the CLI: the tool
    /// runs and the turn goes on, so the person's stop interrupts it (the
    /// requests held behind it waited for a turn's end that never came).
    #[test]
    fn a_stop_that_lost_to_the_deck_s_allow_interrupts_the_turn() {
        let allow = PermissionResult::allow();
        let after = after_reply(&stop(), false, Some(&allow));
        assert_eq!(
            after,
            AfterReply {
                hold: true,
                interrupt: true
            }
        );
        let deny = PermissionResult::deny("no");
        let after = after_reply(&stop(), false, Some(&deny));
        assert_eq!(
            after,
            AfterReply {
                hold: true,
                interrupt: true
            }
        );
        // withdrawn, not answered by the deck: nothing goes on
        let after = after_reply(&stop(), false, None);
        assert_eq!(
            after,
            AfterReply {
                hold: true,
                interrupt: false
            }
        );
    }

    /// The deck's answer reached the CLI first: the machine is told what
    /// it was; a reply that went out, or one withdrawn, says nothing more.
    #[test]
    fn a_reply_the_deck_overtook_is_said() {
        let allow = PermissionResult::allow();
        let said = overtaken::<()>(false, Some(allow.clone()));
        assert!(
            matches!(&said, Some(Event::Overtaken { given }) if *given == allow),
            "{said:?}"
        );
        assert!(overtaken::<()>(true, Some(allow)).is_none());
        assert!(overtaken::<()>(false, None).is_none());
    }

    #[test]
    fn an_answer_that_does_not_stop_holds_nothing() {
        let allow = PermissionResult::allow();
        let after = after_reply(&allow, true, None);
        assert_eq!(
            after,
            AfterReply {
                hold: false,
                interrupt: false
            }
        );
        let after = after_reply(&allow, true, Some(&stop()));
        assert_eq!(
            after,
            AfterReply {
                hold: false,
                interrupt: false
            }
        );
    }

    /// The deck's answer counts as the one that reached the CLI only
    /// when the chat's reply found the request answered: a request the
    /// CLI withdrew (or a session gone) while the deck's answer was being
    /// tried took neither, and no note says the deck's answer ran the
    /// tool, nor is the queue held for a stop that never reached the CLI.
    #[test]
    fn only_an_answer_taken_first_is_the_deck_s() {
        use claudio::AnswerError;
        let allow = PermissionResult::allow();
        let lost = Err(AnswerError::AlreadyAnswered);
        assert_eq!(deck_first(&lost, Some(allow.clone())), Some(allow.clone()));
        assert_eq!(deck_first(&lost, None), None);
        for answered in [
            Ok(()),
            Err(AnswerError::Withdrawn),
            Err(AnswerError::Closed),
        ] {
            let deck = deck_first(&answered, Some(allow.clone()));
            assert_eq!(deck, None, "{answered:?}");
            let said: Option<Event<()>> = overtaken(answered.is_ok(), deck);
            assert!(said.is_none(), "{answered:?}");
            let deck = deck_first(&answered, Some(stop()));
            let after = after_reply(&allow, answered.is_ok(), deck.as_ref());
            assert_eq!(
                after,
                AfterReply {
                    hold: false,
                    interrupt: false
                },
                "{answered:?}"
            );
        }
    }

    /// The person allowed as the deck's "no, and stop" reached the CLI:
    /// the CLI stops the turn, so the requests behind it are held for its
    /// end (asked, each would be drawn and then withdrawn), and nothing
    /// more is interrupted.
    #[test]
    fn an_allow_that_lost_to_the_deck_s_stop_holds_the_queue() {
        for own in [PermissionResult::allow(), PermissionResult::deny("no")] {
            let after = after_reply(&own, false, Some(&stop()));
            assert_eq!(
                after,
                AfterReply {
                    hold: true,
                    interrupt: false
                }
            );
        }
    }
}
