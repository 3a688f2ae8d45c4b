//! The interactive chat.

mod clipboard;
mod commands;
mod connection;
mod core;
mod dialog;
pub mod editor;
mod history;
mod images;
mod inbox;
pub mod keys;
mod label;
pub mod live;
mod machine;
mod mentions;
mod outgoing;
pub mod pick;
mod prompt;
mod promptline;
pub mod render;
pub mod repl;
mod reports;
mod rewind;
mod screen;
#[cfg(test)]
mod screens;
pub mod shell;
pub mod slash;
pub mod state;
pub(crate) mod statusline_runner;
mod trust_question;
pub mod typeahead;
pub(crate) mod typos;
mod work;
