//! The `claudio` program: argument parsing, `ask`, rendering, prompts.

pub mod app;
pub mod args;
pub mod ask;
pub mod billing;
pub mod chat;
pub mod config;
pub mod deck;
pub mod doctor;
pub mod exit;
pub mod finder;
pub mod highlight;
pub mod interrupt;
pub mod markdown;
pub mod notify;
pub mod options;
pub mod picker;
pub mod pricing;
pub mod reading;
pub mod requests;
pub mod retention;
// the terminal sanitizer is the library's (`claudio::sanitize`)
pub use claudio::sanitize;
pub mod sessions;
pub mod settings;
pub mod spinner;
pub mod statusline;
pub mod style;
pub mod summary;
pub mod tasks;
pub mod todos;
pub mod trust;
pub mod turn;
pub mod wrap;
