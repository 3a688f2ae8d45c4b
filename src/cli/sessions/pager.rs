//! Long output through a pager: `$PAGER` (else `less -R`), or less opened
//! at the first line holding a pattern.

use std::io::{self, Write};

/// Page `text` opened at the first line holding `pattern` (less's `-p`,
/// which also marks every one); errors if the pager cannot start.
pub(super) fn page_at(text: &str, pattern: &str) -> io::Result<()> {
    let mut escaped = String::new();
    if !pattern.chars().any(char::is_uppercase) {
        escaped.push_str("(?i)");
    }
    for c in pattern.chars() {
        if "\\.^$|?*+()[]{}".contains(c) {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    // less takes -i for case; a regex flag it may not know, so use -I
    let fold = escaped.starts_with("(?i)");
    let pat = escaped.trim_start_matches("(?i)");
    let mut cmd = std::process::Command::new("less");
    cmd.arg("-R");
    if fold {
        cmd.arg("-I");
    }
    cmd.arg(format!("-p{pat}"))
        .stdin(std::process::Stdio::piped());
    let mut child = cmd.spawn()?;
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(text.as_bytes());
    }
    child.wait()?;
    Ok(())
}

/// Send text through `$PAGER` (else `less -R`); errors if it cannot start.
pub(super) fn page(text: &str) -> io::Result<()> {
    let pager = std::env::var("PAGER")
        .ok()
        .filter(|p| !p.trim().is_empty())
        .unwrap_or_else(|| "less -R".into());
    let mut words = pager.split_whitespace();
    let prog = words.next().unwrap_or("less");
    let mut cmd = std::process::Command::new(prog);
    cmd.args(words).stdin(std::process::Stdio::piped());
    if std::env::var_os("LESS").is_none() {
        cmd.env("LESS", "FRX");
    }
    let mut child = cmd.spawn()?;
    if let Some(mut stdin) = child.stdin.take() {
        // A pager closed early (q) is not an error.
        let _ = stdin.write_all(text.as_bytes());
    }
    child.wait()?;
    Ok(())
}
