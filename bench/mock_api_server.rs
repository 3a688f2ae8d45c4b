//! The scripted Messages API as a standalone server, for benchmarks: every
//! conversation request gets a short text answer. Prints its base URL.
//!
//! `cargo run --release --example mock-api`

fn main() {
    let api = mock_api::MockApi::start();
    api.set_default_text("Hi! How can I help?");
    println!("{}", api.base_url());
    use std::io::Write;
    let _ = std::io::stdout().flush();
    loop {
        std::thread::park();
    }
}
