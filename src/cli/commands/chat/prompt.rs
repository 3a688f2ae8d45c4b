//! The chat's prompt side, as a small pure machine: what the next prompt
//! starts with (the line kept across Shift-Tab, a rewound prompt, the
//! line back from the editor, a pasted image's marker), what was typed
//! while Claude worked, Ctrl-D's end left over from a turn, and what the
//! next prompt owes (the `!` commands' output, the pasted images). The
//! prompt loop (`repl`) feeds it events and asks it what comes next; it
//! also keeps each prompt as typed, for rewind.

use super::images::Pending;
use super::keys::TermEvent;
use super::typeahead::TypeAhead;
use claudio::protocol::Image;
use std::collections::HashMap;

/// The input line, split at the cursor.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct CursorLine {
    pub before: String,
    pub after: String,
}

impl CursorLine {
    /// `text`, the cursor at its end.
    pub fn ending(text: String) -> CursorLine {
        CursorLine {
            before: text,
            after: String::new(),
        }
    }
}

/// What the prompt loop does next.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Next {
    /// A prompt typed while Claude worked: it goes before anything else.
    Queued(String),
    /// Background agents work and no line is owed: the prompt is the
    /// turn's own line under their spinners ([`PromptSide::start`] after).
    Agents,
    /// Read a line at the prompt, starting so.
    Read(Start),
    /// Ctrl-D on an empty line came in the instant the last turn ended
    /// (read with the keys left from it): the chat ends, as it would at
    /// the prompt.
    Eof,
}

/// How the line editor starts.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Start {
    pub line: CursorLine,
    /// The line typed during the last turn, when an owed line takes its
    /// place: it stays within reach in the history.
    pub to_history: Option<String>,
}

/// What a prompt takes with it when it goes.
#[derive(Debug, Default)]
pub(super) struct Owed {
    /// What `!` commands printed since the last prompt, oldest first.
    pub shell: Vec<String>,
    /// The images pasted with Ctrl-V into its line.
    pub pasted: Pending,
}

/// The prompt side of the chat.
#[derive(Debug, Default)]
pub(super) struct PromptSide {
    /// What was typed while Claude worked: the line, and the prompts queued.
    ahead: TypeAhead,
    /// The line the next prompt starts with, instead of the typed one.
    owed: Option<CursorLine>,
    /// Ctrl-D on an empty line came in the instant a turn ended: the chat
    /// ends ([`Next::Eof`]), or the wait for background agents after it.
    eof: bool,
    /// What `!` commands printed, sent with the next prompt.
    shell: Vec<String>,
    /// Images pasted with Ctrl-V into the line being typed.
    pasted: Pending,
    /// Prompts sent from this chat, by uuid, as typed (without the `!`
    /// context sent in front of them): what rewind lists and puts back.
    typed: HashMap<String, String>,
    /// The turn count when the status line was last brought up to date.
    status_at: Option<u64>,
}

impl PromptSide {
    /// What comes next (`agents`: background agents are at work).
    pub fn next(&mut self, agents: bool) -> Next {
        if let Some(queued) = self.ahead.queued.pop_front() {
            Next::Queued(queued)
        } else if agents && self.owed.is_none() {
            // the wait for the agents takes the Ctrl-D ([`Self::take_eof`])
            Next::Agents
        } else if std::mem::take(&mut self.eof)
            && self.owed.is_none()
            && self.ahead.typed.is_empty()
        {
            Next::Eof
        } else {
            Next::Read(self.start())
        }
    }

    /// What was typed while Claude works, for the machine at work.
    pub fn ahead_mut(&mut self) -> &mut TypeAhead {
        &mut self.ahead
    }

    /// The lines put aside (the line typed during the last turn, the
    /// queued commands an interrupt put aside), for the history; taken.
    pub fn take_held(&mut self) -> Vec<String> {
        std::mem::take(&mut self.ahead.held)
    }

    /// Shift-Tab at the prompt: one switch of mode is owed.
    pub fn cycle_pressed(&mut self) {
        self.ahead.cycles = 1;
    }

    /// Whether a switch of mode is owed (Shift-Tab pressed, here or while
    /// one was being confirmed); it is taken.
    pub fn take_cycle(&mut self) -> bool {
        let owed = self.ahead.cycles > 0;
        self.ahead.cycles = self.ahead.cycles.saturating_sub(1);
        owed
    }

    /// A switch failed: the presses owed are dropped.
    pub fn drop_cycles(&mut self) {
        self.ahead.cycles = 0;
    }

    /// Ctrl-C at the prompt: whether it is the second of a double press
    /// whose first interrupted the turn that just ended (within
    /// [`DOUBLE_PRESS`](crate::cli::turn::interrupt::DOUBLE_PRESS)), which
    /// quits as it does during the turn. Asked once per interrupt.
    pub fn second_ctrl_c(&mut self, now: std::time::Instant) -> bool {
        self.ahead.interrupted_at.take().is_some_and(|at| {
            now.saturating_duration_since(at) < crate::cli::turn::interrupt::DOUBLE_PRESS
        })
    }

    /// The prompt took something other than a Ctrl-C (a line: a `!`
    /// command, a slash command, a prompt; or an action): a Ctrl-C after it
    /// is no second press of the interrupt's.
    pub fn took_input(&mut self) {
        self.ahead.interrupted_at = None;
    }

    /// Whether a prompt waits in the queue.
    pub fn has_queued(&self) -> bool {
        !self.ahead.queued.is_empty()
    }

    /// How the line editor starts: the owed line if there is one, else
    /// what was typed during the last turn. Either way both are taken.
    pub fn start(&mut self) -> Start {
        let typed = std::mem::take(&mut self.ahead.typed);
        match self.owed.take() {
            Some(line) => Start {
                line,
                to_history: (!typed.trim().is_empty()).then_some(typed),
            },
            None => Start {
                line: CursorLine::ending(typed),
                to_history: None,
            },
        }
    }

    /// Shift-Tab: the mode changes; the line stays as it was.
    pub fn mode_cycled(&mut self, line: CursorLine) {
        self.owed = Some(line);
    }

    /// What was typed while a switch of mode was being confirmed goes on
    /// the line kept at Shift-Tab, at its cursor (typed right after the
    /// press: it continues that line).
    pub fn typed_onto_owed(&mut self) {
        if let Some(line) = &mut self.owed {
            line.before.push_str(&std::mem::take(&mut self.ahead.typed));
        }
    }

    /// Rewind went back to before a prompt: it is the next line, to edit.
    pub fn rewound(&mut self, text: String) {
        self.owed = Some(CursorLine::ending(text));
    }

    /// The editor gave the line back (changed or not).
    pub fn edited(&mut self, text: String) {
        self.owed = Some(CursorLine::ending(text));
    }

    /// Ctrl-V: the clipboard's image, when there was one, goes in as a
    /// marker at the cursor; the line stays either way. The marker.
    pub fn pasted(&mut self, line: CursorLine, image: Option<Image>) -> Option<String> {
        let marker = image.map(|image| self.pasted.add(image));
        let before = match &marker {
            Some(m) => format!("{}{m}", line.before),
            None => line.before,
        };
        self.owed = Some(CursorLine {
            before,
            after: line.after,
        });
        marker
    }

    /// A `!` command ran: what it printed goes with the next prompt.
    pub fn shell_ran(&mut self, context: String) {
        self.shell.push(context);
    }

    /// A turn ended with these keys still unread: they join the
    /// type-ahead, and Ctrl-D on an empty line among them is kept for
    /// [`PromptSide::take_eof`].
    pub fn turn_ended(&mut self, left: Vec<TermEvent>) {
        self.eof = self.ahead.drain_after_turn(left);
    }

    /// Whether Ctrl-D was left from the last turn (asked once).
    pub fn take_eof(&mut self) -> bool {
        std::mem::take(&mut self.eof)
    }

    /// A prompt goes, under `uuid`, as typed: it takes what is owed, and
    /// is kept as typed for rewind.
    pub fn send(&mut self, uuid: String, typed: &str) -> Owed {
        // a Ctrl-C at a later prompt is no second press of the last turn's
        self.ahead.interrupted_at = None;
        self.typed.insert(uuid, typed.to_owned());
        Owed {
            shell: std::mem::take(&mut self.shell),
            pasted: std::mem::take(&mut self.pasted),
        }
    }

    /// The prompts sent from this chat, by uuid, as typed.
    pub fn typed(&self) -> &HashMap<String, String> {
        &self.typed
    }

    /// Whether the status line is due before this prompt: once after each
    /// turn (`turns`: how many so far), not before the first.
    pub fn status_due(&mut self, turns: u64) -> bool {
        self.status_at.replace(turns) != Some(turns) && turns != 0
    }
}

#[cfg(test)]
mod tests;
