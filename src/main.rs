//! The `claudio` command. Everything lives in `cli/`; this only runs it.

mod cli;

fn main() {
    std::process::exit(cli::app::main());
}
