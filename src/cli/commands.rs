//! One room a command: what `claudio COMMAND` runs. A command imports the
//! library and the shared rooms below it (`requests`, `turn`, `common`,
//! `term`), never another command.

pub mod ask;
pub mod chat;
pub mod deck;
pub mod doctor;
pub mod sessions;
pub mod statusline;
