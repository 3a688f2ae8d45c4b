//! The trust question, asked in the chat before its CLI starts in a
//! folder not trusted yet (the CLI's stream-json mode would load its
//! project settings unasked).

use super::keys::Keys;
use super::promptline::Read;
use super::screen::Screen;
use crate::cli::common::trust;
use std::io::Write;
use tokio::runtime::Runtime;

/// The trust question with what it asks with: the runtime, the screen and
/// the chat's one reader of the keyboard.
pub(super) struct TrustQuestion<'a> {
    pub(super) rt: &'a Runtime,
    pub(super) screen: &'a mut Screen,
    pub(super) keys: &'a mut Option<Keys>,
}

impl TrustQuestion<'_> {
    /// The trust question, asked on the terminal before the CLI starts;
    /// the answer is recorded where the claude TUI records it.
    ///
    /// The answer is read as a line at the prompt is, from the chat's one
    /// reader of the keyboard (#42.1), its signals with it: Ctrl-C (or a
    /// signal that stops the chat) ends the chat before its CLI starts
    /// ([`Interrupted`]); Ctrl-D, or no terminal to ask on, is "no", said.
    /// A line that is neither yes nor no (a prompt typed while the
    /// question was shown) answers nothing: the question is asked again,
    /// and the line is kept for the prompt ([`Trusted::typed`]).
    pub(super) fn ask(mut self, folder: &trust::Folder) -> Result<Trusted, Interrupted> {
        let s = self.screen.style();
        let width = super::screen::terminal_width();
        let question = trust::question_rows(folder, width);
        let ask = trust::ask_for(width);
        let plain = format!("  {ask} ");
        let styled = format!("  {} ", s.bold(ask));
        let mut typed = None;
        let answer = loop {
            match self.read_answer(&question, &styled, &plain)? {
                Ok(line) if !trust::yes(&line) && !trust::no(&line) => {
                    typed = Some(line);
                    self.screen.info(NO_ANSWER);
                }
                answer => break answer,
            }
        };
        let loads = self.settle(folder, answer);
        Ok(Trusted { loads, typed })
    }

    /// The answer recorded and said: whether the folder's settings load.
    fn settle(&mut self, folder: &trust::Folder, answer: std::io::Result<String>) -> bool {
        match answer {
            Ok(line) if trust::yes(&line) => {
                if let Err(e) = trust::record_trust(folder) {
                    self.screen.info(&format!(
                        "trusted for this session only: the trust could not be recorded ({e})"
                    ));
                } else if folder.home {
                    self.screen.info("trusted for this session");
                } else {
                    self.screen.info("trusted");
                }
                true
            }
            Ok(_) => {
                self.screen.info(&trust::left_out(
                    folder,
                    "claudio asks again next time, or trust it in claude",
                ));
                false
            }
            Err(e) => {
                self.screen
                    .info(&trust::left_out(folder, &format!("could not ask ({e})")));
                false
            }
        }
    }

    /// The trust question shown, and its answer read from the chat's one
    /// reader (the end of the input: an empty answer); keys typed before
    /// the question was shown answer nothing (they are dropped).
    fn read_answer(
        &mut self,
        question: &str,
        styled: &str,
        plain: &str,
    ) -> Result<std::io::Result<String>, Interrupted> {
        let Some(keys) = self.keys.as_mut().filter(|k| k.has_terminal()) else {
            return Ok(Err(std::io::Error::other("no terminal to ask on")));
        };
        keys.discard_typed();
        self.screen.write(question);
        let _ = self.screen.out().flush();
        match super::editor::read_answer(self.rt.handle(), keys, styled, plain) {
            Read::Interrupted => Err(Interrupted),
            _ if super::keys::stopped_by().is_some() => Err(Interrupted),
            Read::Line(line) => Ok(Ok(line)),
            Read::Eof | Read::Action(_) => Ok(Ok(String::new())),
        }
    }
}

/// Said under a line that answers the trust question neither way.
const NO_ANSWER: &str =
    "that is not y or n: the question again, and what you typed waits on the prompt line";

/// The trust question's answer.
#[derive(Debug)]
pub(super) struct Trusted {
    /// Whether the folder's project settings load.
    pub(super) loads: bool,
    /// The last line typed that answered nothing (a prompt typed while the
    /// question was shown): the prompt line's text once it is answered.
    pub(super) typed: Option<String>,
}

/// Ctrl-C at the trust question: the chat ends before its CLI starts.
#[derive(Debug, thiserror::Error)]
#[error("interrupted")]
pub(super) struct Interrupted;
