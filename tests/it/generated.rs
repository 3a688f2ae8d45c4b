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
        ("nushell", "completions/claudio.nu"),
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

/// Each script asks `claudio sessions complete-ids` for session ids where
/// one is asked for: the `sessions` subcommands' ID and `--resume`.
#[test]
fn completions_complete_session_ids() {
    let id_arg = "Session id or unique prefix";
    let bash = claudio(&["completions", "bash"]);
    assert!(bash.contains("complete -F _claudio_ids "), "bash");
    assert!(!bash.contains("complete -F _claudio "), "bash");
    assert!(bash.contains(r#"$(claudio sessions complete-ids -- "$cur" 2>/dev/null)"#));
    for verb in [
        "resume", "inspect", "show", "fork", "rename", "tag", "delete", "export",
    ] {
        assert!(
            bash.lines()
                .any(|l| l.trim_start().starts_with(&format!("{verb}|"))
                    || l.contains(&format!("|{verb}|"))
                    || l.contains(&format!("|{verb})"))),
            "bash: {verb}"
        );
    }
    let zsh = claudio(&["completions", "zsh"]);
    assert!(zsh.contains("_claudio_session_ids() {"));
    assert!(zsh.contains("complete-ids --describe"));
    assert_eq!(
        zsh.matches(&format!("':id -- {id_arg}:_claudio_session_ids'"))
            .count(),
        8,
        "zsh: the ID of inspect (and its alias show), export, resume, fork, rename, tag and delete"
    );
    assert!(!zsh.contains(&format!("':id -- {id_arg}:_default'")));
    assert!(zsh.contains("::ID:_claudio_session_ids'") && !zsh.contains("::ID:_default'"));
    let fish = claudio(&["completions", "fish"]);
    assert!(fish.contains("function __fish_claudio_session_ids"));
    assert!(fish.contains("__fish_seen_subcommand_from inspect show export resume fork rename tag delete; and __fish_claudio_wants_session_id\" -f -a \"(__fish_claudio_session_ids)\""));
    assert!(fish
        .lines()
        .filter(|l| l.contains(" -l resume "))
        .all(|l| l.ends_with("-r -f -a \"(__fish_claudio_session_ids)\"")));
    let nu = claudio(&["completions", "nushell"]);
    assert!(nu.contains("def \"nu-complete claudio session-ids\" [context: string]"));
    let ids: Vec<&str> = nu
        .lines()
        .filter(|l| l.ends_with(&format!("# {id_arg}")))
        .collect();
    assert!(ids.len() >= 7, "{ids:?}");
    for l in ids.iter().chain(
        nu.lines()
            .filter(|l| l.contains("--resume(-r)"))
            .collect::<Vec<_>>()
            .iter(),
    ) {
        assert!(
            l.contains(": string@\"nu-complete claudio session-ids\""),
            "{l}"
        );
    }
}

/// A store of two sessions, `aaaaaaaa-…` (the older) and `aaaabbbb-…`.
fn two_sessions() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("projects/-work-proj");
    std::fs::create_dir_all(&folder).unwrap();
    for (i, id) in [
        "aaaaaaaa-1111-4111-8111-111111111111",
        "aaaabbbb-2222-4222-8222-222222222222",
    ]
    .into_iter()
    .enumerate()
    {
        let line = serde_json::json!({"type":"user","sessionId":id,"cwd":"/work/proj",
            "message":{"role":"user","content":format!("prompt {i}")}});
        let p = folder.join(format!("{id}.jsonl"));
        std::fs::write(&p, format!("{line}\n")).unwrap();
        let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000 + i as u64);
        std::fs::File::options()
            .write(true)
            .open(&p)
            .unwrap()
            .set_modified(t)
            .unwrap();
    }
    dir
}

/// What bash's completion of `line` (the cursor at its end) offers, with
/// the committed script loaded and `claudio` on the PATH.
/// A shell's environment for completing from `store`: its folder, no
/// archive, and this build's `claudio` first on the `PATH`.
fn store_env(store: &Path) -> Vec<(&'static str, std::ffi::OsString)> {
    let bin = Path::new(env!("CARGO_BIN_EXE_claudio")).parent().unwrap();
    let mut path = bin.as_os_str().to_owned();
    path.push(":");
    path.push(std::env::var_os("PATH").unwrap_or_default());
    vec![
        ("CLAUDE_CONFIG_DIR", store.as_os_str().to_owned()),
        (
            "CLAUDIO_ARCHIVE_DIR",
            store.join("no-archive").into_os_string(),
        ),
        ("PATH", path),
    ]
}

fn bash_completes(store: &Path, line: &str) -> Vec<String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("completions/claudio.bash");
    let program = r#"source "$SCRIPT"
COMP_LINE="$LINE"; COMP_POINT=${#COMP_LINE}
read -ra COMP_WORDS <<< "$COMP_LINE"
[[ "$COMP_LINE" == *" " ]] && COMP_WORDS+=("")
COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
_claudio_ids claudio "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\n' "${COMPREPLY[@]}""#;
    let out = Command::new("bash")
        .args(["--norc", "--noprofile", "-c", program])
        .env("SCRIPT", &script)
        .env("LINE", line)
        .envs(store_env(store))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{line}");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect()
}

#[test]
fn bash_completes_session_ids_where_one_is_asked_for() {
    let d = two_sessions();
    let (a, b) = (
        "aaaaaaaa-1111-4111-8111-111111111111",
        "aaaabbbb-2222-4222-8222-222222222222",
    );
    for line in [
        "claudio sessions resume aaaab",
        "claudio sessions show aaaab",
        "claudio sessions delete --yes aaaab",
        "claudio sessions export -o md aaaab",
        "claudio --resume aaaab",
        "claudio -r aaaab",
        "claudio --color never sessions fork aaaab",
    ] {
        assert_eq!(bash_completes(d.path(), line), [b], "{line}");
    }
    // newest first, every id for an empty word
    assert_eq!(bash_completes(d.path(), "claudio sessions tag "), [b, a]);
    // not where no id is asked for: a title, a subcommand, a flag's value
    for line in [
        &format!("claudio sessions rename {a} aaaa")[..],
        "claudio sessions list aaaa",
        "claudio sessions aaaa",
        "claudio sessions inspect --grep aaaa",
    ] {
        let got = bash_completes(d.path(), line);
        assert!(!got.iter().any(|c| c == a || c == b), "{line}: {got:?}");
    }
}

/// The fish script run by fish (skipped, loudly, where fish is missing):
/// what it offers for `line`.
fn fish_completes(store: &Path, line: &str) -> Option<Vec<String>> {
    if !have("fish") {
        eprintln!("SKIPPED: fish is not installed");
        return None;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("completions/claudio.fish");
    let out = Command::new("fish")
        .args(["--no-config", "-c", "source $SCRIPT; complete -C $LINE"])
        .env("SCRIPT", &script)
        .env("LINE", line)
        .envs(store_env(store))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| l.split('\t').next().unwrap_or("").to_owned())
            .filter(|l| !l.is_empty())
            .collect(),
    )
}

/// fish offers the session ids after `-r` too: clap's script gave files
/// there, its parse of the words failing on the flag still waiting for
/// its value.
#[test]
fn fish_completes_session_ids_where_one_is_asked_for() {
    let d = two_sessions();
    let b = "aaaabbbb-2222-4222-8222-222222222222";
    for line in [
        "claudio sessions resume aaaab",
        "claudio sessions delete --yes aaaab",
        "claudio --resume aaaab",
        "claudio -r aaaab",
        "claudio ask -r aaaab",
    ] {
        let Some(got) = fish_completes(d.path(), line) else {
            return;
        };
        assert_eq!(got, [b], "{line}");
    }
    let Some(got) = fish_completes(d.path(), "claudio -r ") else {
        return;
    };
    assert_eq!(got.len(), 2, "{got:?}");
}

/// The zsh script's session ids, each with its title, as `_describe`
/// is handed them (run by zsh where it is installed; skipped, loudly,
/// where it is not).
#[test]
fn zsh_offers_session_ids_with_their_titles() {
    if !have("zsh") {
        eprintln!("SKIPPED: zsh is not installed");
        return;
    }
    let d = two_sessions();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("completions/_claudio");
    let program = r#"compdef() { :; }
_describe() { shift 3; print -l -- "${(@P)1}"; }
source "$SCRIPT"
PREFIX=aaaab
_claudio_session_ids
PREFIX=
_claudio_session_ids"#;
    let out = Command::new("zsh")
        .args(["-f", "-c", program])
        .env("SCRIPT", &script)
        .envs(store_env(d.path()))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.split(':').next().unwrap_or("").to_owned())
        .collect();
    assert_eq!(
        got,
        [
            "aaaabbbb-2222-4222-8222-222222222222",
            "aaaabbbb-2222-4222-8222-222222222222",
            "aaaaaaaa-1111-4111-8111-111111111111",
        ],
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
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
