//! `sessions delete`: removes a transcript, after asking on the terminal
//! unless `--yes`.

use super::args::DeleteArgs;
use super::io::{Io, SessionsOutcome};
use crate::cli::common::exit::{usage_error, Exit};
use crate::cli::sanitize::Sanitizer;
use crate::cli::term::text::{cut_width, flat, human_size};
use crate::cli::term::time::relative_time;
use anyhow::Context;
use claudio::store::Store;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

pub(super) fn delete(store: &Store, a: DeleteArgs, io: &mut Io) -> anyhow::Result<SessionsOutcome> {
    let file = store.find(&a.id)?;
    let archived = archived_copies(store, &file.id);
    if file.is_archived() && !a.archived_too {
        // the CLI deleted it: the archive's copy is all there is left
        let msg = format!(
            "not deleting {}: the session is only in claudio's archive (the CLI deleted it). To remove the archived copy: `claudio sessions delete {} --archived-too`, or {}",
            file.id,
            file.id,
            removal(&file.path)
        );
        io.warn(&msg);
        return Ok(SessionsOutcome::Done(Exit::Failure));
    }
    // the same session in other folders: said, and kept
    let others: Vec<_> = store
        .copies(&file.id)?
        .into_iter()
        .filter(|c| c.path != file.path && !c.is_archived())
        .collect();
    if !others.is_empty() {
        let list: Vec<String> = others
            .iter()
            .map(|c| c.project_dir().display().to_string())
            .collect();
        let msg = format!(
            "session {} also has {} in {}; only {} is deleted",
            file.id,
            if others.len() == 1 {
                "a copy"
            } else {
                "copies"
            },
            list.join(", "),
            crate::cli::common::folder::shown(&file.path)
        );
        io.warn(&msg);
    }
    // what goes: the CLI's transcript (unless the CLI deleted it), and
    // with --archived-too every archived copy
    let live = (!file.is_archived()).then(|| file.clone());
    let packed: Vec<PathBuf> = if a.archived_too {
        let mut p = archived.clone();
        if file.is_archived() && !p.contains(&file.path) {
            p.push(file.path.clone());
        }
        p
    } else {
        Vec::new()
    };
    if !a.yes {
        // without what it shows (a damaged file, say), the id alone
        let info = store.info_file(&file).ok();
        let what = match &info {
            Some(i) => format!(
                "{} “{}” ({}, {})",
                &file.id,
                cut_width(&flat(&i.title), 60),
                human_size(i.file_size),
                relative_time(io.now_ms, i.last_modified)
            ),
            None => file.id.clone(),
        };
        let mut tty = match std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&io.tty)
        {
            Ok(t) => t,
            Err(_) => {
                return Err(usage_error!(
                    "not deleting {}: no terminal to confirm on; pass --yes to delete without asking",
                    file.id
                ));
            }
        };
        let copies = |n: usize| if n == 1 { "copy" } else { "copies" };
        let which = match (live.is_some(), packed.len(), archived.len()) {
            (true, 0, 0) => String::new(),
            (true, 0, n) => format!(
                " (its {} in claudio's archive {} kept)",
                copies(n),
                if n == 1 { "is" } else { "are" }
            ),
            (true, n, _) => format!(" and its {} in claudio's archive", copies(n)),
            (false, n, _) => format!(
                " (its {} in claudio's archive: the CLI deleted its transcript)",
                copies(n)
            ),
        };
        let question = format!(
            "Delete session {}{which}? {} ",
            Sanitizer::clean(&what),
            io.err_style.bold("[y/N]")
        );
        tty.write_all(question.as_bytes())?;
        tty.flush()?;
        let answer = read_answer(&mut tty)?;
        if !matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes") {
            let msg = format!("kept {}", file.id);
            io.warn(&msg);
            return Ok(SessionsOutcome::Done(Exit::Failure));
        }
    }
    if let Some(live) = &live {
        // exactly the file shown: finding it again could give another copy
        store.delete_file(live)?;
        io.warn(&format!(
            "deleted {}",
            crate::cli::common::folder::shown(&live.path)
        ));
    }
    for copy in &packed {
        remove_archived(copy).with_context(|| {
            format!(
                "could not delete the archived copy {}",
                crate::cli::common::folder::shown(copy)
            )
        })?;
        io.warn(&format!(
            "deleted {} (archived)",
            crate::cli::common::folder::shown(copy)
        ));
    }
    if !a.archived_too {
        for copy in &archived {
            let msg = format!(
                "the session's archived copy remains: {} (listed as archived, and read by search, export and resume). To remove it too: `claudio sessions delete {} --archived-too`, or {}",
                crate::cli::common::folder::shown(copy),
                file.id,
                removal(copy)
            );
            io.warn(&msg);
        }
    }
    Ok(SessionsOutcome::Done(Exit::Success))
}

/// Remove an archived copy and its sub-agents' folder beside it (a link
/// in its place is removed, never followed).
fn remove_archived(copy: &Path) -> io::Result<()> {
    std::fs::remove_file(copy)?;
    if let Some(side) = copy
        .to_str()
        .and_then(|p| p.strip_suffix(".jsonl.zst"))
        .map(PathBuf::from)
    {
        if std::fs::symlink_metadata(&side).is_ok_and(|m| m.is_dir()) {
            std::fs::remove_dir_all(&side)?;
        }
    }
    Ok(())
}

/// The archived copies of session `id` (`<archive>/<folder>/<id>.jsonl.zst`)
/// in the archives the store reads and in claudio's own archive (read
/// even with `--no-archive`: a delete that leaves a copy says so).
fn archived_copies(store: &Store, id: &str) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = store.archive_dirs().to_vec();
    roots.extend(crate::cli::common::archive::archive_dir());
    roots.sort();
    roots.dedup();
    let mut out = Vec::new();
    for root in roots {
        let Ok(rd) = std::fs::read_dir(&root) else {
            continue;
        };
        for folder in rd.flatten() {
            let copy = folder.path().join(format!("{id}.jsonl.zst"));
            if std::fs::symlink_metadata(&copy).is_ok_and(|m| m.is_file()) {
                out.push(copy);
            }
        }
    }
    out.sort();
    out
}

/// The command that removes an archived copy and its sub-agents' folder.
fn removal(copy: &Path) -> String {
    let quote = |p: &Path| format!("'{}'", p.display().to_string().replace('\'', r"'\''"));
    let side = copy
        .to_str()
        .and_then(|p| p.strip_suffix(".jsonl.zst"))
        .map(PathBuf::from)
        .filter(|d| std::fs::symlink_metadata(d).is_ok_and(|m| m.is_dir()));
    match side {
        Some(d) => format!("rm {} && rm -r {}", quote(copy), quote(&d)),
        None => format!("rm {}", quote(copy)),
    }
}

/// One line from the terminal (up to 1 KiB).
fn read_answer(tty: &mut std::fs::File) -> io::Result<String> {
    let mut line = Vec::new();
    let mut byte = [0u8; 1];
    while line.len() < 1024 {
        match tty.read(&mut byte) {
            Ok(0) => break,
            Ok(_) if byte[0] == b'\n' => break,
            Ok(_) => line.push(byte[0]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(String::from_utf8_lossy(&line).into_owned())
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;

    // Asking on a terminal: tests/it/sessions.rs, on a pseudo-terminal.
    #[test]
    fn without_a_terminal_only_yes_deletes() {
        let d = store();
        let c = cfg(&d);
        let path = d.path().join(format!("projects/-work-proj/{A}.jsonl"));
        let r = run_args(
            &["--config-dir", &c, "delete", A],
            "/nonexistent/tty".as_ref(),
            "/".as_ref(),
        );
        let e = r.outcome.unwrap_err();
        assert_eq!(crate::cli::common::exit::for_error(&e), Exit::Usage);
        assert!(e.to_string().contains("pass --yes"), "{e}");
        assert!(path.exists());
        let r = run_args(
            &["--config-dir", &c, "delete", A, "--yes"],
            "/nonexistent/tty".as_ref(),
            "/".as_ref(),
        );
        assert_eq!(r.outcome.unwrap(), SessionsOutcome::Done(Exit::Success));
        assert!(!path.exists());
    }
}
