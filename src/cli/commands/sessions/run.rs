//! Running a `sessions` command: open the store, do the action, and turn a
//! bad id or an empty title into a usage error.

use super::args::{SessionsAction, SessionsCommand};
use super::io::{Io, SessionsOutcome};
use super::{archive, delete, export, inspect, list, search, usage};
use crate::cli::common::exit::Exit;
use crate::cli::term::style::ColorChoice;
use anyhow::Context;
use claudio::store::{Store, StoreError};
use std::io::Write;

/// Run `claudio sessions ...`.
pub async fn run(args: SessionsCommand, color: ColorChoice) -> anyhow::Result<SessionsOutcome> {
    tokio::task::spawn_blocking(move || run_with(args, &mut Io::real(color)))
        .await
        .context("the sessions command stopped unexpectedly")?
}

pub(super) fn run_with(args: SessionsCommand, io: &mut Io) -> anyhow::Result<SessionsOutcome> {
    if let SessionsAction::CompleteIds(a) = &args.action {
        super::complete::complete_ids(args.config_dir.as_deref(), args.no_archive, a, &mut *io.out);
        return Ok(SessionsOutcome::Done(Exit::Success));
    }
    let mut store = Store::open(args.config_dir.as_deref())?;
    // `sessions archive` writes it; `--no-archive` leaves it out
    if args.no_archive || matches!(args.action, SessionsAction::Archive(_)) {
        store = store.without_archives();
    }
    let result = match args.action {
        SessionsAction::List(a) => list::list(&store, a, io),
        SessionsAction::Inspect(a) => inspect::inspect(&store, a, io),
        SessionsAction::Search(a) => search::search(&store, a, io),
        SessionsAction::Export(a) => export::export(&store, a, io),
        SessionsAction::Usage(a) => usage::usage(&store, a, io),
        SessionsAction::Resume(a) => resume(&store, &a.id, a.tui, io),
        SessionsAction::Archive(a) => archive::archive(&store, a.output().is_json(), io),
        SessionsAction::Fork(a) => store
            .fork(&a.id, &fork_options(a.at.as_deref(), a.title.as_deref()))
            .map_err(Into::into)
            .and_then(|id| {
                writeln!(io.out, "{id}")?;
                Ok(SessionsOutcome::Done(Exit::Success))
            }),
        SessionsAction::Rename(a) => store
            .rename(&a.id, &a.title)
            .map(|_| SessionsOutcome::Done(Exit::Success))
            .map_err(Into::into),
        SessionsAction::Tag(a) => {
            let tag = if a.clear { None } else { a.tag.as_deref() };
            store
                .tag(&a.id, tag)
                .map(|_| SessionsOutcome::Done(Exit::Success))
                .map_err(Into::into)
        }
        SessionsAction::Delete(a) => delete::delete(&store, a, io),
        // answered above, before the store is opened
        SessionsAction::CompleteIds(_) => Ok(SessionsOutcome::Done(Exit::Success)),
    };
    if let Some(note) = crate::cli::term::time::zone_note() {
        io.warn(&note);
    }
    // a bad id or an empty title is a usage error: `exit::for_error` says so
    match result {
        Err(e) => match e.downcast_ref::<StoreError>() {
            // the error itself: one under a context is left as it is
            Some(StoreError::OnlyInArchive(id)) if e.chain().count() == 1 => {
                let hint = format!("`claudio sessions resume {id}` restores it");
                let error = StoreError::OnlyInArchive(id.clone());
                Err(crate::cli::common::exit::Hinted { error, hint }.into())
            }
            _ => Err(e),
        },
        ok => ok,
    }
}

fn resume(store: &Store, id: &str, tui: bool, io: &mut Io) -> anyhow::Result<SessionsOutcome> {
    // the CLI deleted it: back into the store first, so it can resume
    let t = crate::cli::common::archive::resume_target(store, id, &mut |msg| io.warn(msg))?;
    // the CLI records where it ran whole; a relative folder (a transcript
    // written elsewhere) would be taken from wherever this is run
    if !t.cwd.is_absolute() {
        anyhow::bail!(
            "cannot resume {}: its recorded working directory {} is not an absolute path",
            t.id,
            crate::cli::common::folder::shown(&t.cwd)
        );
    }
    // named, and why, before the CLI is started there
    if let Some(why) = crate::cli::common::folder::not_enterable(&t.cwd) {
        anyhow::bail!(
            "cannot resume {}: its working directory {} {why}",
            t.id,
            crate::cli::common::folder::shown(&t.cwd)
        );
    }
    Ok(SessionsOutcome::Resume {
        id: t.id,
        cwd: t.cwd,
        tui,
    })
}

/// `sessions fork --at --title` as the library takes them.
fn fork_options(at: Option<&str>, title: Option<&str>) -> claudio::store::ForkOptions {
    let mut o = claudio::store::ForkOptions::new();
    if let Some(at) = at {
        o = o.at(at);
    }
    if let Some(title) = title {
        o = o.title(title);
    }
    o
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;
    use serde_json::json;

    /// `list`, `search` and `export` title a session by one rule: a `!`
    /// command sent last is not its title (it was: `! python3 -m
    /// unittest 2>&1 | tail -3`).
    #[test]
    fn a_shell_command_sent_last_is_not_the_title() {
        let d = tempfile::tempdir().unwrap();
        let folder = d.path().join("projects/-work-proj");
        std::fs::create_dir_all(&folder).unwrap();
        let line = |v: serde_json::Value| format!("{v}\n");
        let mut t = String::new();
        t += &line(
            json!({"type":"user","uuid":U1,"parentUuid":null,"sessionId":A,"cwd":"/work/proj",
            "timestamp":"2026-01-01T10:00:00.000Z","message":{"role":"user","content":"fix the big discount test"}}),
        );
        t += &line(
            json!({"type":"assistant","uuid":A1,"parentUuid":U1,"sessionId":A,"timestamp":"2026-01-01T10:00:05.000Z",
            "message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"Done."}]}}),
        );
        t += &line(
            json!({"type":"user","uuid":U9,"parentUuid":A1,"sessionId":A,"timestamp":"2026-01-01T10:01:00.000Z",
            "message":{"role":"user","content":"<bash-input>python3 -m unittest 2>&1 | tail -3</bash-input>"}}),
        );
        t += &line(
            json!({"type":"last-prompt","lastPrompt":"! python3 -m unittest 2>&1 | tail -3","sessionId":A}),
        );
        std::fs::write(folder.join(format!("{A}.jsonl")), t).unwrap();
        let c = cfg(&d);
        let tty = std::path::Path::new("/nonexistent/tty");
        for args in [
            &["--config-dir", &c, "list", "--all"][..],
            &["--config-dir", &c, "search", "discount", "--all"],
            &["--config-dir", &c, "export", A],
        ] {
            let r = run_args(args, tty, "/".as_ref());
            let out = r.out.text();
            assert!(r.outcome.is_ok(), "{args:?}: {}", r.err.text());
            assert!(out.contains("fix the big discount test"), "{args:?}: {out}");
            if args[2] != "export" {
                assert!(!out.contains("unittest"), "{args:?}: {out}");
            } else {
                assert!(out.starts_with("# fix the big discount test"), "{out}");
            }
        }
    }

    #[test]
    fn bad_and_ambiguous_ids() {
        let d = store();
        let r = run_args(
            &["--config-dir", &cfg(&d), "show", "../../etc"],
            "/nonexistent".as_ref(),
            "/".as_ref(),
        );
        let e = r.outcome.unwrap_err();
        assert_eq!(crate::cli::common::exit::for_error(&e), Exit::Usage);
        assert!(e.to_string().contains("invalid session id"), "{e}");
        let r = run_args(
            &["--config-dir", &cfg(&d), "show", "aaaa"],
            "/nonexistent".as_ref(),
            "/".as_ref(),
        );
        let e = r.outcome.unwrap_err().to_string();
        assert!(
            e.contains("ambiguous") && e.contains(A) && e.contains(B),
            "{e}"
        );
        let r = run_args(
            &["--config-dir", &cfg(&d), "rename", A, "  "],
            "/nonexistent".as_ref(),
            "/".as_ref(),
        );
        let e = r.outcome.unwrap_err();
        assert_eq!(crate::cli::common::exit::for_error(&e), Exit::Usage);
    }

    #[test]
    fn rename_tag_fork() {
        let d = store();
        let c = cfg(&d);
        let ok = |args: &[&str]| {
            let r = run_args(args, "/nonexistent".as_ref(), "/".as_ref());
            assert_eq!(r.outcome.unwrap(), SessionsOutcome::Done(Exit::Success));
            r.out.text()
        };
        ok(&["--config-dir", &c, "rename", B, "Second"]);
        ok(&["--config-dir", &c, "tag", B, "wip"]);
        let info = Store::new(d.path())
            .info_file(&Store::new(d.path()).find(B).unwrap())
            .unwrap();
        assert_eq!(
            (info.summary.as_str(), info.tag.as_deref()),
            ("Second", Some("wip"))
        );
        ok(&["--config-dir", &c, "tag", B, "--clear"]);
        let info = Store::new(d.path())
            .info_file(&Store::new(d.path()).find(B).unwrap())
            .unwrap();
        assert_eq!(info.tag, None);
        let r = run_args(
            &["--config-dir", &c, "fork", A, "--at", &A1[..12]],
            "/n".as_ref(),
            "/".as_ref(),
        );
        assert!(r.outcome.unwrap_err().to_string().contains("is ambiguous"));
        let new = ok(&["--config-dir", &c, "fork", A, "--at", A1]);
        let new = new.trim();
        assert!(claudio::store::is_uuid(new), "{new}");
        let (_, conv) = Store::new(d.path()).conversation(new).unwrap();
        assert_eq!(conv.entries.len(), 2);
        // a fork with a title of its own
        let titled = ok(&["--config-dir", &c, "fork", A, "--title", "the other road"]);
        let s = Store::new(d.path());
        let info = s.info_file(&s.find(titled.trim()).unwrap()).unwrap();
        assert_eq!(info.custom_title.as_deref(), Some("the other road"));
    }

    #[test]
    fn resume_gives_the_recorded_directory() {
        let d = store();
        let work = tempfile::tempdir().unwrap();
        let folder = d.path().join("projects/x");
        std::fs::create_dir_all(&folder).unwrap();
        let id = "cccccccc-3333-4333-8333-333333333333";
        let line = json!({"type":"user","uuid":"u","parentUuid":null,"cwd":work.path(),"message":{"content":"hi"}});
        std::fs::write(folder.join(format!("{id}.jsonl")), format!("{line}\n")).unwrap();
        let r = run_args(
            &["--config-dir", &cfg(&d), "resume", "cccc"],
            "/nonexistent".as_ref(),
            "/".as_ref(),
        );
        assert_eq!(
            r.outcome.unwrap(),
            SessionsOutcome::Resume {
                id: id.into(),
                cwd: work.path().to_path_buf(),
                tui: false
            }
        );
        let r = run_args(
            &["--config-dir", &cfg(&d), "resume", A],
            "/nonexistent".as_ref(),
            "/".as_ref(),
        );
        let e = r.outcome.unwrap_err().to_string();
        assert!(e.contains("/work/proj no longer exists"), "{e}");
    }

    /// A recorded folder the CLI cannot start in is named, with why,
    /// before anything starts there (with `--tui` too): one under a
    /// regular file (ENOTDIR), a file, one removed. Before, the TUI's exec
    /// said "cannot start …/claude: Not a directory", blaming the CLI.
    /// (No permission, EACCES, goes through the same check: root, running
    /// the tests, cannot be refused; its words are `folder`'s test's.)
    #[test]
    fn resume_names_a_recorded_folder_it_cannot_enter() {
        let d = store();
        let work = tempfile::tempdir().unwrap();
        let file = work.path().join("file");
        std::fs::write(&file, "x").unwrap();
        let gone = work.path().join("gone");
        std::fs::create_dir(&gone).unwrap();
        std::fs::remove_dir(&gone).unwrap();
        let folder = d.path().join("projects/x");
        std::fs::create_dir_all(&folder).unwrap();
        let cases = [
            (
                file.join("proj"),
                "is not a folder: a part of its path is a file",
            ),
            (file.clone(), "is not a folder"),
            (gone, "no longer exists"),
        ];
        for (n, (cwd, why)) in cases.iter().enumerate() {
            let id = format!("eeeeeeee-3333-4333-8333-33333333333{n}");
            let line = json!({"type":"user","uuid":"u","parentUuid":null,"cwd":cwd,"message":{"content":"hi"}});
            std::fs::write(folder.join(format!("{id}.jsonl")), format!("{line}\n")).unwrap();
            for tui in [&[][..], &["--tui"][..]] {
                let c = cfg(&d);
                let mut args = vec!["--config-dir", c.as_str(), "resume", id.as_str()];
                args.extend_from_slice(tui);
                let r = run_args(&args, "/nonexistent".as_ref(), "/".as_ref());
                let e = r.outcome.unwrap_err().to_string();
                let said = format!("its working directory {} {why}", cwd.display());
                assert!(e.ends_with(&said), "{e}");
            }
        }
    }

    /// A transcript whose recorded folder is relative (the CLI writes it
    /// whole) is not resumed in a folder of that name under wherever
    /// claudio runs: `.` was this process's own folder, the chat or the
    /// claude TUI started there.
    #[test]
    fn resume_refuses_a_relative_recorded_directory() {
        let d = store();
        let folder = d.path().join("projects/x");
        std::fs::create_dir_all(&folder).unwrap();
        for (n, cwd) in [".", "projects", "x/../.."].iter().enumerate() {
            let id = format!("dddddddd-3333-4333-8333-33333333333{n}");
            let line = json!({"type":"user","uuid":"u","parentUuid":null,"cwd":cwd,"message":{"content":"hi"}});
            std::fs::write(folder.join(format!("{id}.jsonl")), format!("{line}\n")).unwrap();
            let r = run_args(
                &["--config-dir", &cfg(&d), "resume", &id, "--tui"],
                "/nonexistent".as_ref(),
                d.path(),
            );
            let e = r.outcome.unwrap_err().to_string();
            assert!(e.contains("is not an absolute path"), "{cwd}: {e}");
        }
    }
}
