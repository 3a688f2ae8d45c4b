//! The committed completion scripts and man page are current, parse, and render.
//! Regenerate them with `CLAUDIO_UPDATE_GENERATED=1 cargo test --test it generated`.

use std::path::Path;
use std::process::Command;

fn claudio(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_claudio"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn check_current(file: &str, fresh: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    if std::env::var_os("CLAUDIO_UPDATE_GENERATED").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, fresh).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == fresh,
        "{file} is stale: run `CLAUDIO_UPDATE_GENERATED=1 cargo test --test it generated` and commit"
    );
}

fn have(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

#[test]
fn completions_are_current_and_parse() {
    for (shell, file) in [
        ("bash", "completions/claudio.bash"),
        ("zsh", "completions/_claudio"),
        ("fish", "completions/claudio.fish"),
        ("elvish", "completions/claudio.elv"),
        ("powershell", "completions/_claudio.ps1"),
    ] {
        let script = claudio(&["completions", shell]);
        assert!(script.contains("claudio"));
        // the flags --help shows, not the hidden old spellings
        assert!(script.contains("output-file"), "{shell}");
        assert!(!script.contains("old spelling"), "{shell}");
        check_current(file, &script);
    }
    let bash = Path::new(env!("CARGO_MANIFEST_DIR")).join("completions/claudio.bash");
    let st = Command::new("bash").arg("-n").arg(&bash).status().unwrap();
    assert!(st.success(), "bash -n failed");
    for (tool, file) in [
        ("zsh", "completions/_claudio"),
        ("fish", "completions/claudio.fish"),
    ] {
        if have(tool) {
            let p = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
            let st = Command::new(tool).arg("-n").arg(&p).status().unwrap();
            assert!(st.success(), "{tool} -n failed");
        } else {
            eprintln!("note: {tool} is not installed; its script was not parsed");
        }
    }
}

#[test]
fn man_page_is_current_and_renders() {
    let page = claudio(&["man"]);
    for needle in [
        "claudio",
        "ask",
        "doctor",
        "EXIT STATUS",
        "ENVIRONMENT",
        "FILES",
        "CLAUDIO_CLI",
    ] {
        assert!(page.contains(needle), "man page lacks {needle}");
    }
    check_current("man/claudio.1", &page);
    if have("groff") {
        let out = Command::new("groff")
            .args(["-man", "-Tutf8", "-ww"])
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("man/claudio.1"))
            .output()
            .unwrap();
        assert!(out.status.success());
        // drop overstrike (bold: "X\x08X", underline: "_\x08X")
        let raw = String::from_utf8_lossy(&out.stdout);
        let mut text = String::new();
        for c in raw.chars() {
            if c == '\u{8}' {
                text.pop();
            } else {
                text.push(c);
            }
        }
        assert!(text.contains("EXIT STATUS"), "{text}");
        let warnings = String::from_utf8_lossy(&out.stderr);
        assert!(warnings.trim().is_empty(), "groff warnings: {warnings}");
    } else {
        eprintln!("note: groff is not installed; the man page was not rendered");
    }
}

#[test]
fn every_command_has_help_and_version_works() {
    for args in [
        &["--help"][..],
        &["ask", "--help"],
        &["doctor", "--help"],
        &["config", "--help"],
        &["completions", "--help"],
        &["man", "--help"],
    ] {
        let text = claudio(args);
        assert!(text.contains("Usage:"), "{args:?}");
    }
    assert!(claudio(&["ask", "--help"]).contains("Examples:"));
    assert!(claudio(&["--version"]).starts_with("claudio "));
}

/// One spelling per concept in the help: `-o FORMAT` for what to print,
/// `-O FILE` for where; the old ones (`--json`, `-f`, `--output-format`,
/// `list --usage`) still parse but are not shown.
#[test]
fn help_shows_one_vocabulary_and_hides_the_old_spellings() {
    for (args, old) in [
        (&["ask", "--help"][..], &["--output-format", "--json "][..]),
        (&["sessions", "list", "--help"], &["--json", "--usage"]),
        (&["sessions", "search", "--help"], &["--json"]),
        (&["sessions", "usage", "--help"], &["--json"]),
        (&["sessions", "inspect", "--help"], &["--json"]),
        (&["sessions", "archive", "--help"], &["--json"]),
        (&["sessions", "export", "--help"], &["--format", "-f,"]),
    ] {
        let help = claudio(args);
        assert!(help.contains("-o, --output <FORMAT>"), "{args:?}: {help}");
        for o in old {
            let flags: Vec<&str> = help
                .lines()
                .filter(|l| l.trim_start().starts_with('-'))
                .collect();
            assert!(
                !flags.iter().any(|l| l.contains(o)),
                "{args:?} shows {o}: {flags:?}"
            );
        }
    }
    assert!(claudio(&["sessions", "export", "--help"]).contains("-O, --output-file <FILE>"));
    // documented once, at the top
    let top = claudio(&["--help"]);
    assert!(
        top.contains("-o FORMAT") && top.contains("camelCase"),
        "{top}"
    );
    // and the old spellings parse (their output is tested with each command)
    for args in [
        &["ask", "--json", "--help"][..],
        &["ask", "--output-format", "stream-json", "--help"],
        &["ask", "-o", "ndjson", "--help"],
        &["sessions", "list", "--json", "--usage", "--help"],
        &["sessions", "export", "x", "-f", "json", "--help"],
    ] {
        claudio(args);
    }
}
