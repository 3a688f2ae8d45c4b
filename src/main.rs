fn main() {
    std::process::exit(claudio_cli_placeholder());
}
fn claudio_cli_placeholder() -> i32 { 0 }
