//! Claude Code's own settings files, read (never written) where claudio
//! follows what they say: the cleanup period `doctor` reports, the
//! `statusLine` command the chat runs (unless `disableAllHooks`), the
//! model the chat's prompt names before the CLI has said. The CLI
//! 2.1.328 merges them, later ones winning: the user's
//! (`$CLAUDE_CONFIG_DIR/settings.json`, else `~/.claude/settings.json`),
//! the project's (`.claude/settings.json` in the directory it starts in),
//! the local one (`.claude/settings.local.json`) and the managed one
//! (`/etc/claude-code/managed-settings.json`).

use serde_json::Value;
use std::collections::HashSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The settings files the CLI reads, lowest precedence first.
pub fn files(config_dir: &Path, cwd: Option<&Path>) -> Vec<PathBuf> {
    let mut out = vec![config_dir.join("settings.json")];
    if let Some(cwd) = cwd {
        out.push(cwd.join(".claude").join("settings.json"));
        out.push(cwd.join(".claude").join("settings.local.json"));
    }
    out.push(PathBuf::from("/etc/claude-code/managed-settings.json"));
    out
}

/// The CLI's own state file, where the claude TUI records the folders the
/// person trusted: `$CLAUDE_CONFIG_DIR/.claude.json`, else `~/.claude.json`.
pub fn state_file() -> Option<PathBuf> {
    state_file_in(
        std::env::var_os("CLAUDE_CONFIG_DIR"),
        std::env::var_os("HOME"),
    )
}

/// [`state_file`] given `CLAUDE_CONFIG_DIR` and `HOME`. A relative one
/// names none: resolved against the folder claudio runs in, it would be a
/// file the project itself could hold, trusting itself.
fn state_file_in(config_dir: Option<OsString>, home: Option<OsString>) -> Option<PathBuf> {
    let set = |v: Option<OsString>| v.filter(|v| !v.is_empty()).map(PathBuf::from);
    let dir = set(config_dir).or_else(|| set(home))?;
    dir.is_absolute().then(|| dir.join(".claude.json"))
}

/// The most of the CLI's state file read (it keeps every project's
/// history; a bigger or odd one is not trusted to say anything).
const MAX_STATE_FILE: u64 = 64 << 20;

/// Whether the person trusted `cwd` as the claude TUI records it: the
/// folder or one above it, up to the root of the git repository it is in
/// (for a linked worktree, also the main worktree's root, where the CLI
/// records it), has `hasTrustDialogAccepted` in `state` (see
/// [`state_file`]), the folder named with its links resolved.
/// `CLAUDE_CODE_SANDBOXED` trusts every folder and
/// `CLAUDE_CODE_IGNORE_PERSISTED_TRUST` ignores the record, as in the CLI.
pub fn trusted(state: Option<&Path>, cwd: &Path) -> bool {
    let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty());
    if set("CLAUDE_CODE_SANDBOXED") {
        return true;
    }
    if set("CLAUDE_CODE_IGNORE_PERSISTED_TRUST") {
        return false;
    }
    let Some(projects) = state.and_then(trusted_folders) else {
        return false;
    };
    let accepted = |dir: &Path| dir.to_str().is_some_and(|d| projects.contains(d));
    // the folder as getcwd names it, as the CLI started there sees and
    // records it: a `..` or a link in the name given must not lend it the
    // trust of a folder it passes through
    let Ok(real) = std::fs::canonicalize(cwd) else {
        return false;
    };
    // inside a git repository, as in the CLI, the walk stops at its root
    // (the first folder up holding `.git`): a repository cloned into a
    // trusted folder is not trusted by that folder's record
    for dir in real.ancestors() {
        if accepted(dir) {
            return true;
        }
        if std::fs::symlink_metadata(dir.join(".git")).is_ok() {
            // a linked worktree's trust is recorded for the repository's
            // main worktree, as the CLI records and reads it
            return main_worktree(dir).is_some_and(|m| accepted(&m));
        }
    }
    false
}

/// Where the claude TUI records the trust of the folder `real` (links
/// resolved): the root of the git repository it is in (the first folder
/// up holding `.git`; for a linked worktree, its main worktree's root),
/// else `real` itself. As the CLI 2.1.332 writes it when its trust dialog
/// is accepted (`projects[<git root ?? cwd>]`).
pub fn trust_root(real: &Path) -> PathBuf {
    for dir in real.ancestors() {
        if std::fs::symlink_metadata(dir.join(".git")).is_ok() {
            return main_worktree(dir).unwrap_or_else(|| dir.to_owned());
        }
    }
    real.to_owned()
}

/// The folders the state file records as trusted; `None` when it cannot
/// be read (missing, no regular file, too big, no JSON). The file keeps
/// every project's history and can be tens of megabytes, and the chat asks
/// before each prompt: it is read again only when it changed.
fn trusted_folders(state: &Path) -> Option<Arc<HashSet<String>>> {
    use std::os::unix::fs::MetadataExt;
    type Seen = Option<(PathBuf, [i64; 7], Arc<HashSet<String>>)>;
    static LAST: Mutex<Seen> = Mutex::new(None);
    let m = std::fs::metadata(state).ok()?;
    let id = [
        m.dev() as i64,
        m.ino() as i64,
        m.size() as i64,
        m.mtime(),
        m.mtime_nsec(),
        m.ctime(),
        m.ctime_nsec(),
    ];
    let mut last = LAST.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((p, seen, folders)) = last.as_ref() {
        if p == state && *seen == id {
            return Some(folders.clone());
        }
    }
    /// Only what is needed of the file: the rest is skipped, not built.
    #[derive(serde::Deserialize)]
    struct State {
        #[serde(default)]
        projects: std::collections::HashMap<String, Project>,
    }
    #[derive(serde::Deserialize)]
    struct Project {
        #[serde(rename = "hasTrustDialogAccepted", default)]
        accepted: Value,
    }
    let text = read_small_text(state, MAX_STATE_FILE)?;
    let parsed: State = serde_json::from_str(&text).ok()?;
    let folders: Arc<HashSet<String>> = Arc::new(
        parsed
            .projects
            .into_iter()
            .filter(|(_, p)| p.accepted == Value::Bool(true))
            .map(|(k, _)| k)
            .collect(),
    );
    *last = Some((state.to_owned(), id, folders.clone()));
    Some(folders)
}

/// The root of the main worktree of the linked worktree at `root`, as git
/// links them both ways: its `.git` file names `<main>/.git/worktrees/<n>`,
/// whose `gitdir` names that `.git` file back (a `.git` file written to
/// point at another repository is not its worktree). None for anything
/// else: a main worktree, a bare repository, a link that does not hold.
fn main_worktree(root: &Path) -> Option<PathBuf> {
    let real = |p: &Path| std::fs::canonicalize(p).ok();
    let dotgit = root.join(".git");
    let text = read_small_text(&dotgit, 4096)?;
    let gitdir = root.join(text.trim().strip_prefix("gitdir:")?.trim());
    let back = read_small_text(&gitdir.join("gitdir"), 4096)?;
    if real(&gitdir.join(back.trim())) != real(&dotgit) {
        return None;
    }
    let common = read_small_text(&gitdir.join("commondir"), 4096)?;
    let common = real(&gitdir.join(common.trim()))?;
    // git keeps a linked worktree's record in the repository's
    // `.git/worktrees`: one anywhere else (an unpacked archive can carry
    // its own, naming any repository) is no worktree of it
    if real(&gitdir)?.parent()? != common.join("worktrees") {
        return None;
    }
    (common.file_name()? == ".git").then(|| common.parent().map(Path::to_path_buf))?
}

/// A small text file of the person's (a settings file, `.git/HEAD`):
/// `None` when it is missing, not a regular file or over `max` bytes.
pub fn read_small_text(file: &Path, max: u64) -> Option<String> {
    read_regular(file, max).ok()
}

/// [`read_small_text`], saying why not: the file's own error (not found,
/// no permission), or that it is no regular file or is over `max` bytes.
pub fn read_regular(file: &Path, max: u64) -> std::io::Result<String> {
    use std::io::{Error, ErrorKind, Read};
    // one open: what is checked is what is read (a link is followed, as
    // the CLI follows it)
    // non-blocking: a FIFO put in its place opens at once (and is then
    // refused as no regular file) instead of hanging
    let f = std::os::unix::fs::OpenOptionsExt::custom_flags(
        std::fs::OpenOptions::new().read(true),
        libc::O_NONBLOCK | libc::O_NOCTTY,
    )
    .open(file)?;
    let too_big = || {
        let most = match max {
            m if m >= 1 << 20 && m % (1 << 20) == 0 => format!("{} MiB", m >> 20),
            m => format!("{m} bytes"),
        };
        Error::new(ErrorKind::InvalidInput, format!("over {most}"))
    };
    let meta = f.metadata()?;
    if !meta.is_file() {
        return Err(Error::new(ErrorKind::InvalidInput, "not a regular file"));
    }
    if meta.len() > max {
        return Err(too_big());
    }
    let mut text = String::new();
    f.take(max + 1).read_to_string(&mut text)?;
    if text.len() as u64 > max {
        return Err(too_big());
    }
    Ok(text)
}

/// One settings file as JSON: `None` when it is missing, not a regular
/// file, over 1 MiB (a settings file is small; a huge or odd one is not
/// read) or not JSON.
pub fn read(file: &Path) -> Option<Value> {
    serde_json::from_str(&read_small_text(file, 1 << 20)?).ok()
}

/// The value of `key` in effect, and the file it comes from (the last file
/// that sets it).
pub fn lookup(files: &[PathBuf], key: &str) -> Option<(Value, PathBuf)> {
    files
        .iter()
        .rev()
        .find_map(|f| Some((read(f)?.get(key)?.clone(), f.clone())))
}

/// The model the person chose, as they named it, before the CLI says
/// which one it resolved: `ANTHROPIC_MODEL` (`env`), else the settings'
/// `model` (the CLI's order, below `--model` and `/model`).
pub fn chosen_model(files: &[PathBuf], env: Option<String>) -> Option<String> {
    env.filter(|m| !m.is_empty())
        .or_else(|| match lookup(files, "model")?.0 {
            Value::String(m) if !m.is_empty() => Some(m),
            _ => None,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_file_that_sets_a_key_wins_and_odd_files_are_passed_over() {
        let d = tempfile::tempdir().unwrap();
        let (user, local, odd) = (
            d.path().join("u.json"),
            d.path().join("l.json"),
            d.path().join("dir"),
        );
        std::fs::create_dir(&odd).unwrap();
        std::fs::write(&user, r#"{"a": 1, "b": 1}"#).unwrap();
        std::fs::write(&local, r#"{"a": 2} trailing"#).unwrap();
        let files = [user.clone(), local.clone(), odd];
        assert_eq!(
            lookup(&files, "a"),
            Some((1.into(), user.clone())),
            "bad JSON is not read"
        );
        std::fs::write(&local, r#"{"a": 2}"#).unwrap();
        assert_eq!(lookup(&files, "a"), Some((2.into(), local)));
        assert_eq!(lookup(&files, "b"), Some((1.into(), user)));
        assert_eq!(lookup(&files, "c"), None);
    }

    fn trusting(state: &Path, dirs: &[&Path]) {
        let projects: serde_json::Map<String, Value> = dirs
            .iter()
            .map(|d| {
                let key = d.to_str().unwrap().to_owned();
                (key, serde_json::json!({"hasTrustDialogAccepted": true}))
            })
            .collect();
        let config = serde_json::json!({ "projects": projects });
        std::fs::write(state, config.to_string()).unwrap();
    }

    /// The folder is named as getcwd names it (as the CLI started there
    /// sees it): a `..` or a link in the name given (`--cwd`, a
    /// transcript's recorded folder) does not lend it the trust of a
    /// folder it passes through.
    #[test]
    fn trust_is_of_the_folder_itself_not_of_the_way_it_is_named() {
        let d = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(d.path()).unwrap();
        let (mine, clone) = (root.join("mine"), root.join("clone"));
        std::fs::create_dir_all(&mine).unwrap();
        std::fs::create_dir_all(&clone).unwrap();
        let state = root.join(".claude.json");
        trusting(&state, &[&mine]);
        assert!(trusted(Some(&state), &mine));
        assert!(trusted(Some(&state), &mine.join("../mine")));
        assert!(!trusted(Some(&state), &clone));
        assert!(
            !trusted(Some(&state), &mine.join("../clone")),
            "a sibling named through the trusted folder"
        );
        std::os::unix::fs::symlink(&clone, mine.join("link")).unwrap();
        assert!(
            !trusted(Some(&state), &mine.join("link")),
            "a link in the trusted folder to one outside it"
        );
        // a link to the trusted folder is that folder
        std::os::unix::fs::symlink(&mine, root.join("to-mine")).unwrap();
        assert!(trusted(Some(&state), &root.join("to-mine")));
    }

    /// Inside a git repository the walk up stops at its root, as in the
    /// CLI: a repository cloned into a trusted folder (or under a record
    /// of `/`) is not trusted by it; a folder that is no repository is.
    #[test]
    fn a_repository_cloned_into_a_trusted_folder_is_not_trusted_by_it() {
        let d = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(d.path()).unwrap();
        let (src, plain, repo) = (
            root.join("src"),
            root.join("src/notes"),
            root.join("src/clone"),
        );
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join("sub")).unwrap();
        std::fs::create_dir_all(&plain).unwrap();
        let state = root.join(".claude.json");
        for above in [&src, &root, Path::new("/")] {
            trusting(&state, &[above]);
            assert!(trusted(Some(&state), &plain), "{above:?}");
            assert!(!trusted(Some(&state), &repo), "{above:?}");
            assert!(!trusted(Some(&state), &repo.join("sub")), "{above:?}");
        }
        // its own record, or a `.git` file's (a linked worktree) root's
        trusting(&state, &[&repo]);
        assert!(trusted(Some(&state), &repo.join("sub")));
        std::fs::remove_dir(repo.join(".git")).unwrap();
        std::fs::write(repo.join("sub/.git"), "gitdir: /elsewhere\n").unwrap();
        assert!(!trusted(Some(&state), &repo.join("sub")));
        trusting(&state, &[&repo.join("sub")]);
        assert!(trusted(Some(&state), &repo.join("sub")));
    }

    /// A relative `CLAUDE_CONFIG_DIR` (or `HOME`) would name a state file
    /// in the chat's folder, which a repository could ship trusting
    /// itself: it names none, and nothing is trusted.
    #[test]
    fn a_relative_config_dir_names_no_state_file() {
        let s =
            |c: Option<&str>, h: Option<&str>| state_file_in(c.map(Into::into), h.map(Into::into));
        assert_eq!(
            s(None, Some("/home/me")),
            Some("/home/me/.claude.json".into())
        );
        assert_eq!(
            s(Some("/cfg dir"), Some("/home/me")),
            Some("/cfg dir/.claude.json".into())
        );
        assert_eq!(
            s(Some(""), Some("/home/me")),
            Some("/home/me/.claude.json".into())
        );
        assert_eq!(s(Some(".claude"), Some("/home/me")), None);
        assert_eq!(s(Some("cfg/"), None), None);
        assert_eq!(s(None, Some("home")), None);
        assert_eq!(s(None, None), None);
    }

    /// The CLI records (and reads) a linked worktree's trust under the
    /// repository's main worktree: trusted there, the worktree is trusted
    /// (it never was: the note asked for a trust the person had given). A
    /// `.git` file merely naming that repository is not its worktree.
    #[test]
    fn a_linked_worktree_is_trusted_by_its_repository_s_record() {
        let d = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(d.path()).unwrap();
        let (repo, wt, forged) = (root.join("repo"), root.join("wt"), root.join("forged"));
        std::fs::create_dir_all(&repo).unwrap();
        std::fs::create_dir_all(&forged).unwrap();
        let git = |args: &[&str]| {
            let out = std::process::Command::new("git")
                .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
                .args(args)
                .current_dir(&repo)
                .output()
                .unwrap();
            assert!(out.status.success(), "{out:?}");
        };
        git(&["init", "-q", "-b", "main"]);
        git(&["commit", "-q", "--allow-empty", "-m", "init"]);
        git(&["worktree", "add", "-q", "-b", "wt", wt.to_str().unwrap()]);
        std::fs::create_dir_all(wt.join("sub")).unwrap();
        let link = std::fs::read_to_string(wt.join(".git")).unwrap();
        std::fs::write(forged.join(".git"), &link).unwrap();
        let state = root.join(".claude.json");
        assert!(!trusted(Some(&state), &wt));
        trusting(&state, &[&repo]);
        assert!(trusted(Some(&state), &wt));
        assert!(trusted(Some(&state), &wt.join("sub")));
        assert!(!trusted(Some(&state), &forged), "a .git file naming it");
        // a folder (an unpacked archive) carrying its own worktree record
        // that names the trusted repository as its common dir, with the
        // link back to itself: git's worktree records live in the
        // repository's `.git/worktrees`, and this one is not there
        let fake = root.join("unpacked");
        std::fs::create_dir_all(fake.join("meta")).unwrap();
        std::fs::write(fake.join(".git"), "gitdir: meta\n").unwrap();
        std::fs::write(
            fake.join("meta/gitdir"),
            format!("{}\n", fake.join(".git").display()),
        )
        .unwrap();
        std::fs::write(
            fake.join("meta/commondir"),
            format!("{}\n", repo.join(".git").display()),
        )
        .unwrap();
        assert!(
            !trusted(Some(&state), &fake),
            "a worktree record of its own naming the trusted repository"
        );
        assert_eq!(trust_root(&fake), fake);
        // the worktree's own record is not the one the CLI reads, but it
        // is the folder's: it counts too
        trusting(&state, &[&wt]);
        assert!(trusted(Some(&state), &wt.join("sub")));
    }

    #[test]
    fn a_fifo_or_a_big_file_is_passed_over_at_once() {
        let d = tempfile::tempdir().unwrap();
        let fifo = d.path().join("settings.json");
        assert!(std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        assert_eq!(read_small_text(&fifo, 100), None);
        let big = d.path().join("big.json");
        std::fs::write(&big, "x".repeat(101)).unwrap();
        assert_eq!(read_small_text(&big, 100), None);
        assert_eq!(read_small_text(&big, 101).map(|t| t.len()), Some(101));
    }

    #[test]
    fn the_chosen_model_is_the_environments_else_the_settings() {
        let d = tempfile::tempdir().unwrap();
        let user = d.path().join("u.json");
        std::fs::write(&user, r#"{"model": "sonnet"}"#).unwrap();
        let files = [user.clone()];
        assert_eq!(chosen_model(&files, None).as_deref(), Some("sonnet"));
        assert_eq!(
            chosen_model(&files, Some("opus".into())).as_deref(),
            Some("opus")
        );
        assert_eq!(
            chosen_model(&files, Some(String::new())).as_deref(),
            Some("sonnet")
        );
        std::fs::write(&user, r#"{"model": 3}"#).unwrap();
        assert_eq!(chosen_model(&files, None), None);
    }
}
