//! The interactive chat.

mod clipboard;
mod connection;
mod core;
mod dialog;
pub mod editor;
mod images;
pub mod keys;
pub mod live;
mod machine;
mod mentions;
pub mod pick;
mod prompt;
mod promptline;
pub mod render;
mod reports;
mod screen;
#[cfg(test)]
mod screens;
pub mod shell;
pub mod slash;
pub mod state;
pub(crate) mod statusline_runner;
pub mod typeahead;
pub(crate) mod typos;

// the chat and what works on its fields, in one room (`core/`): the
// only code that sees them
pub use self::core::repl;
