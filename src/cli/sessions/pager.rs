//! Long output through a pager: `$PAGER` (else `less -R`), or less opened
//! at the first line holding a pattern.

use std::io::{self, Write};

/// Page `text` opened at the first line holding one of `needles` (less's
/// `-p`, which also marks every one), case folded when `fold`; errors if
/// the pager cannot start.
pub(super) fn page_at(text: &str, needles: &[String], fold: bool) -> io::Result<()> {
    if needles.is_empty() {
        return page(text);
    }
    let mut cmd = std::process::Command::new("less");
    cmd.arg("-R");
    if fold {
        // less takes -i for case; a regex flag it may not know, so use -I
        cmd.arg("-I");
    }
    cmd.arg(format!("-p{}", less_pattern(needles)))
        .stdin(std::process::Stdio::piped());
    let mut child = cmd.spawn()?;
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(text.as_bytes());
    }
    child.wait()?;
    Ok(())
}

/// A regex for less that finds any of `needles` as text: each escaped,
/// joined by `|`.
fn less_pattern(needles: &[String]) -> String {
    let escape = |n: &str| {
        let mut e = String::new();
        for c in n.chars() {
            if "\\.^$|?*+()[]{}".contains(c) {
                e.push('\\');
            }
            e.push(c);
        }
        e
    };
    needles
        .iter()
        .map(|n| escape(n))
        .collect::<Vec<_>>()
        .join("|")
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

#[cfg(test)]
mod tests {
    #[test]
    fn less_is_given_the_texts_escaped() {
        let p = super::less_pattern(&["a.b".into(), "(x|y)".into(), r"c:\d".into()]);
        assert_eq!(p, r"a\.b|\(x\|y\)|c:\\d");
    }
}
