//! The interactive chat.

pub mod approval;
pub mod commands;
pub mod editor;
pub mod highlight;
pub mod markdown;
pub mod render;
pub mod repl;
pub mod typeahead;
