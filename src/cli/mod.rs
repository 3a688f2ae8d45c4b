//! The `claudio` program: argument parsing, `ask`, rendering, prompts.

pub mod app;
pub mod approve;
pub mod args;
pub mod ask;
pub mod asking;
pub mod chat;
pub mod config;
pub mod dedup;
pub mod diff;
pub mod doctor;
pub mod exit;
pub mod finder;
pub mod highlight;
pub mod markdown;
pub mod options;
pub mod picker;
pub mod reading;
pub mod retention;
pub mod sanitize;
pub mod sessions;
pub mod settings;
pub mod spinner;
pub mod style;
pub mod summary;
pub mod tasks;
pub mod todos;
