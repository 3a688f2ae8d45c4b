//! Long output through a pager: `$PAGER` (else `less -R`), or less opened
//! at the first line holding a pattern.

use std::io::{self, Write};

/// Page `text` opened at the first line holding one of `needles` (less's
/// `-p`, which also marks every one), case folded when `fold`, when the
/// pager is less (`$PAGER`, else `less -R`). Another `$PAGER` cannot be
/// opened at a line: it gets `hits`, the lines that hold them, as they are
/// printed off a terminal. Errors if the pager cannot start.
pub(super) fn page_at(text: &str, hits: &str, needles: &[String], fold: bool) -> io::Result<()> {
    let argv = argv(pager_var(), needles, fold);
    run(&argv, if is_less(&argv) { text } else { hits })
}

/// Whether the pager `argv` starts is less.
fn is_less(argv: &[String]) -> bool {
    argv.first()
        .and_then(|p| std::path::Path::new(p).file_name())
        .is_some_and(|n| n == "less")
}

/// `$PAGER` when set to something.
fn pager_var() -> Option<String> {
    std::env::var("PAGER").ok().filter(|p| !p.trim().is_empty())
}

/// The pager's words: `pager` (else `less -R`), and when it is less and
/// there is something to find, the options that open it there.
fn argv(pager: Option<String>, needles: &[String], fold: bool) -> Vec<String> {
    let pager = pager.unwrap_or_else(|| "less -R".into());
    let mut words: Vec<String> = pager.split_whitespace().map(str::to_owned).collect();
    if words.is_empty() {
        words.push("less".into());
    }
    if is_less(&words) && !needles.is_empty() {
        if fold {
            // less takes -i for case; a regex flag it may not know, so use -I
            words.push("-I".into());
        }
        words.push(format!("-p{}", less_pattern(needles)));
    }
    words
}

/// Start `argv` with `text` on its stdin and wait for it.
fn run(argv: &[String], text: &str) -> io::Result<()> {
    let mut cmd = std::process::Command::new(&argv[0]);
    cmd.args(&argv[1..]).stdin(std::process::Stdio::piped());
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
    let pattern = needles
        .iter()
        .map(|n| escape(n))
        .collect::<Vec<_>>()
        .join("|");
    // at its start `!` and `@` are less's search modifiers (`!`: the lines
    // NOT matching), not text: a bracket makes them text
    match pattern.chars().next() {
        Some(c @ ('!' | '@')) => format!("[{c}]{}", &pattern[1..]),
        _ => pattern,
    }
}

/// Send text through `$PAGER` (else `less -R`); errors if it cannot start.
pub(super) fn page(text: &str) -> io::Result<()> {
    run(&argv(pager_var(), &[], false), text)
}

#[cfg(test)]
mod tests {
    #[test]
    fn less_is_given_the_texts_escaped() {
        let p = super::less_pattern(&["a.b".into(), "(x|y)".into(), r"c:\d".into()]);
        assert_eq!(p, r"a\.b|\(x\|y\)|c:\\d");
    }

    /// A text starting with `!` opened less at the first line NOT holding
    /// it (`-p!x` is less's "lines not matching x"); `@` is a modifier too.
    #[test]
    fn a_leading_search_modifier_is_text_for_less() {
        let p = |n: &str| super::less_pattern(&[n.to_owned(), "b!".into()]);
        assert_eq!(p("!important"), "[!]important|b!");
        assert_eq!(p("@me"), "[@]me|b!");
        assert_eq!(p("a!"), "a!|b!");
    }

    /// `inspect --grep` opens less at the first hit; a `$PAGER` of the
    /// person's that is not less is used as it is (it was ignored).
    #[test]
    fn the_person_s_pager_is_used_and_less_is_opened_at_the_hit() {
        let hits = ["frog".to_owned()];
        let argv = |pager: Option<&str>, fold| super::argv(pager.map(str::to_owned), &hits, fold);
        assert_eq!(argv(None, false), ["less", "-R", "-pfrog"]);
        assert_eq!(argv(None, true), ["less", "-R", "-I", "-pfrog"]);
        assert_eq!(argv(Some("most"), false), ["most"]);
        assert_eq!(
            argv(Some("bat --paging=always"), false),
            ["bat", "--paging=always"]
        );
        assert_eq!(
            argv(Some("/usr/bin/less -S"), false),
            ["/usr/bin/less", "-S", "-pfrog"]
        );
        assert_eq!(super::argv(Some("cat".into()), &[], false), ["cat"]);
        assert_eq!(super::argv(None, &[], false), ["less", "-R"]);
    }
}
