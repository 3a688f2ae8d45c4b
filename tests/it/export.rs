//! `sessions export` on the real CLI's transcripts (a sub-agent among them).

use crate::common;

use common::copy_tree;
use serde_json::Value;
use std::path::Path;
use std::process::Command;

const AGENT: &str = "37af4a00-8d92-4edb-b3d6-bee2f6caa2d7";

fn store() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sessions/real/projects"),
        &dir.path().join("projects"),
    );
    dir
}

fn export(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_claudio"))
        .args(["sessions", "--config-dir"])
        .arg(dir)
        .args(["export", &AGENT[..8]])
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn markdown_html_and_json_of_a_session_with_a_sub_agent() {
    let d = store();
    let md = export(d.path(), &[]);
    assert_eq!(md.status.code(), Some(0), "{md:?}");
    let md = String::from_utf8(md.stdout).unwrap();
    assert!(md.starts_with("# "), "{md}");
    assert!(md.contains("## You"), "{md}");
    assert!(md.contains("## Claude"), "{md}");
    // the sub-agent's run, under the call that started it
    assert!(md.contains("> Check that all is good."), "{md}");

    let out = d.path().join("page.html");
    let html = export(d.path(), &["-o", "html", "-O", out.to_str().unwrap()]);
    assert_eq!(html.status.code(), Some(0), "{html:?}");
    assert!(html.stdout.is_empty(), "-O writes the file, not stdout");
    assert!(html.stderr.is_empty(), "{html:?}");
    let page = std::fs::read_to_string(&out).unwrap();
    assert!(page.starts_with("<!doctype html>"));
    assert!(!page.contains("<script"));
    assert!(page.contains("Check that all is good."));

    let json = export(d.path(), &["--output", "json"]);
    let v: Value = serde_json::from_slice(&json.stdout).unwrap();
    let items = v.as_array().unwrap();
    assert!(items.iter().any(|i| i["kind"] == "prompt"));
    assert!(items
        .iter()
        .any(|i| i["kind"] == "tool" && i["agent"].is_array()));
    // field names are camelCase, as in every other JSON output
    let tool = items.iter().find(|i| i["kind"] == "tool").unwrap();
    assert_eq!(tool["isError"], false, "{tool}");
    assert!(!String::from_utf8_lossy(&json.stdout).contains("\"is_error\""));
}

#[test]
fn the_old_spellings_still_work() {
    let d = store();
    let new = export(d.path(), &["-o", "json"]).stdout;
    // -f FORMAT was the format
    for old in [
        &["-f", "json"][..],
        &["--format", "json"],
        &["-f", "json", "-o", "json"],
    ] {
        let o = export(d.path(), old);
        assert_eq!(o.status.code(), Some(0), "{old:?}: {o:?}");
        assert_eq!(o.stdout, new, "{old:?}");
    }
    // -o FILE was the file: still written, with a word on the new spelling
    let out = d.path().join("old.html");
    let o = export(d.path(), &["-f", "html", "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    assert!(o.stdout.is_empty());
    assert!(std::fs::read_to_string(&out)
        .unwrap()
        .starts_with("<!doctype html>"));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("-O "), "{err}");
    // two formats, or two files, are a usage error
    for clash in [
        &["-o", "md", "-f", "html"][..],
        &["-o", "x.md", "-O", "y.md"],
    ] {
        let o = export(d.path(), clash);
        assert_eq!(o.status.code(), Some(2), "{clash:?}: {o:?}");
    }
    assert!(!d.path().join("x.md").exists() && !d.path().join("y.md").exists());
}

#[test]
fn a_wrong_id_is_a_clear_error() {
    let d = store();
    let o = Command::new(env!("CARGO_BIN_EXE_claudio"))
        .args(["sessions", "--config-dir"])
        .arg(d.path())
        .args(["export", "ffffffff"])
        .output()
        .unwrap();
    assert_ne!(o.status.code(), Some(0));
    assert!(!String::from_utf8_lossy(&o.stderr).is_empty());
}

#[test]
fn sub_agents_are_listed_shown_and_deleted_with_their_session() {
    let d = store();
    let store = claudio::store::Store::new(d.path());
    let agents = store.subagents(&AGENT[..8]).unwrap();
    assert_eq!(agents.len(), 1);
    assert_eq!(agents[0].agent_id, "a307f301b44dc750f");
    assert_eq!(agents[0].description.as_deref(), Some("Check things"));
    assert_eq!(agents[0].agent_type.as_deref(), Some("general-purpose"));
    let msgs = store.subagent_messages(AGENT, "a307f301b44dc750f").unwrap();
    assert!(msgs
        .iter()
        .any(|e| e.raw.contains("Check that all is good.")));
    assert!(msgs
        .iter()
        .all(|e| matches!(e.kind(), "user" | "assistant")));
    // an agent id is never a path
    assert!(store.subagent_messages(AGENT, "../x").is_err());
    assert!(store.subagent_messages(AGENT, "nope").is_err());
    let o = Command::new(env!("CARGO_BIN_EXE_claudio"))
        .args(["sessions", "--config-dir"])
        .arg(d.path())
        .args(["inspect", &AGENT[..8], "--subagents"])
        .env("NO_COLOR", "1")
        .env("CLAUDIO_CACHE_DIR", d.path().join(".claudio-cache"))
        .output()
        .unwrap();
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(
        out.contains("── sub-agent a307f301b44dc750f · Check things (general-purpose) ──"),
        "{out}"
    );
    assert!(out.contains("Sub-agent report: all good."), "{out}");
    // delete removes the folder beside the transcript
    let file = store.find(AGENT).unwrap();
    let side = file.path.with_extension("");
    assert!(side.is_dir());
    assert_eq!(store.delete(&AGENT[..8]).unwrap(), file);
    assert!(!side.exists() && !file.path.exists());
}

#[test]
fn inspect_grep_prints_the_lines_that_hold_the_pattern() {
    let d = store();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_claudio"))
            .args(["sessions", "--config-dir"])
            .arg(d.path())
            .args(["inspect", &AGENT[..8]])
            .args(args)
            .env("NO_COLOR", "1")
            .env("CLAUDIO_CACHE_DIR", d.path().join(".claudio-cache"))
            .output()
            .unwrap()
    };
    // an empty pattern is a usage error, as in search
    let o = run(&["--grep", ""]);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    let o = run(&["--subagents", "--grep", "report: ALL"]);
    assert_eq!(o.status.code(), Some(1), "case matters with a capital");
    let o = run(&["--subagents", "--grep", "report: all"]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(
        out.lines()
            .any(|l| l.starts_with("claude · ") && l.ends_with("› Sub-agent report: all good.")),
        "{out}"
    );
    assert!(
        !out.contains("Check that all is good"),
        "only hit lines: {out}"
    );
}

/// `-O FILE` writes the file whole or not at all (an old file is replaced
/// only by a whole new one, a link is replaced and not written through), a
/// FIFO is refused at once rather than hanging, and `-O -` is stdout.
#[test]
fn output_file_is_written_whole_never_through_a_link_or_into_a_fifo() {
    use std::os::unix::fs::symlink;
    let d = store();
    let stdout = export(d.path(), &["-o", "md"]).stdout;
    assert!(!stdout.is_empty());
    // -O - is stdout
    let o = export(d.path(), &["-o", "md", "-O", "-"]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    assert_eq!(o.stdout, stdout);
    assert!(!d.path().join("-").exists());
    // an old file is replaced, with no temporary file left beside it
    let out = d.path().join("notes.md");
    std::fs::write(&out, "old notes").unwrap();
    let o = export(d.path(), &["-o", "md", "-O", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    assert_eq!(std::fs::read(&out).unwrap(), stdout);
    let left: Vec<_> = std::fs::read_dir(d.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    // a link: replaced by the file, its target untouched
    let target = d.path().join("target.txt");
    std::fs::write(&target, "keep me").unwrap();
    let link = d.path().join("link.md");
    symlink(&target, &link).unwrap();
    let o = export(d.path(), &["-o", "md", "-O", link.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep me");
    assert!(!std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read(&link).unwrap(), stdout);
    // a FIFO with no reader: refused at once, not a hang
    let fifo = d.path().join("pipe");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_claudio"));
    c.args(["sessions", "--config-dir"])
        .arg(d.path())
        .args(["export", &AGENT[..8], "-o", "md", "-O"])
        .arg(&fifo);
    let mut child = c
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let st = common::wait_with_deadline(&mut child, 20);
    assert_eq!(st.code(), Some(1));
    let err = common::read_all(child.stderr.take());
    assert!(err.contains("not a regular file"), "{err}");
}

/// With a `$PAGER` that is not less (`cat`, `most`), which cannot be
/// opened at a line, `inspect --grep` pages the lines that hold the
/// pattern, as it prints them off a terminal: it paged the whole
/// conversation, and the hits were nowhere to be seen.
#[test]
fn inspect_grep_through_another_pager_shows_the_hits() {
    let d = store();
    let term = common::term::Term::open();
    let mut c = Command::new(env!("CARGO_BIN_EXE_claudio"));
    c.args(["sessions", "--config-dir"])
        .arg(d.path())
        .args(["inspect", &AGENT[..8], "--grep", "whether all"])
        .env("NO_COLOR", "1")
        .env("CLAUDIO_CACHE_DIR", d.path().join(".claudio-cache"))
        .env("PAGER", "cat")
        .env("CLAUDIO_TEST_TTY", term.slave_path())
        .stdin(std::process::Stdio::null())
        .stdout(term.slave())
        .stderr(term.slave());
    let mut child = c.spawn().unwrap();
    drop(c);
    let status = common::wait_with_deadline(&mut child, 30);
    assert_eq!(status.code(), Some(0));
    let out = term.output_to_end();
    assert!(
        out.contains("› ask a sub-agent whether all is good"),
        "{out}"
    );
    assert!(!out.contains("The sub-agent says all is good."), "{out}");
}

/// A file to write whose folder's name holds a terminal's title sequence
/// and a newline (and does not exist): the error names it whole and on
/// one line, the sequence shown as text, nothing raw on stderr.
#[test]
fn a_path_it_cannot_write_is_named_whole_on_one_line() {
    let d = store();
    let out = d.path().join("no\x1b]0;x\x07\nsuch").join("page.md");
    let o = export(d.path(), &["-O", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    let err = String::from_utf8(o.stderr).unwrap();
    let shown = format!("{}/no\\e]0;x\\a\\nsuch/page.md", d.path().display());
    assert!(err.contains(&format!("could not write {shown}")), "{err}");
    assert!(!err.contains(['\x1b', '\x07']), "{err:?}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}
