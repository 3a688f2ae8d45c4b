//! The program's plumbing, shared by the commands: the config file, exit
//! codes, the session's flags into `Options`, Claude Code's settings, the
//! workspace trust, prices and billing windows, times, notices, whether a
//! folder can be started in.

pub mod archive;
pub mod billing;
pub mod config;
pub mod exit;
pub mod flags;
pub mod folder;
pub mod git;
pub mod notify;
pub mod options;
pub mod parallel;
pub mod pricing;
pub mod settings;
pub mod stdin;
pub mod trust;
