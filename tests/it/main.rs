//! claudio's integration tests, in one test binary: one link instead of
//! seventeen, and the shared scaffolding (`common`) compiled once. Each
//! module is one area; `cargo nextest run -E 'test(/^chat::/)'` runs one.

mod common;

mod archive;
mod ask;
mod attack_round5;
mod attack_round6;
mod attack_round7;
mod chat;
mod client;
mod config_doctor;
mod cost;
mod daily_driver;
mod deck;
mod deck_chat;
mod deck_tui;
mod e2e;
mod edit_matching;
mod events;
mod export;
mod fastpaths;
mod faults;
mod first_hour;
mod fuzz_regressions;
mod generated;
mod hostile;
mod images;
mod learnt_prices;
mod linking;
mod live_region;
mod mcp_secrets;
mod memory;
mod notify;
mod real_cli;
mod round_two;
mod screen_mends;
mod screens;
mod sdk_real_cli;
mod sdk_surface;
mod sdk_types;
mod search;
mod sessions;
mod statusline;
mod stream_consumers;
mod text_runs;
mod tidy_screen;
mod trust_approve;
mod trust_archive;
mod trust_images;
mod trust_status;
mod trust_workspace;
mod trust_workspace_attack;
mod usage;
mod usage_index;
mod usage_recount;
