//! The git branch a folder is on, for the chat's status line and `claudio
//! statusline`; and the branch a session's transcript names, as the
//! listings show it.

use crate::cli::common::settings;
use crate::cli::sanitize::Sanitizer;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// Where a repository's HEAD is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Head {
    /// On this branch.
    Branch(String),
    /// Detached, at this commit (its first 7 characters).
    Detached(String),
}

/// The HEAD of `dir`'s repository (or of the repository above it): read
/// from `.git/HEAD`, no git process. `None`: no repository.
pub fn head(dir: &Path) -> Option<Head> {
    head_above(dir, &mut |_| false)
}

/// [`head`], the walk up stopped at a folder `known_bare` says has no
/// repository at or above it.
fn head_above(dir: &Path, known_bare: &mut dyn FnMut(&Path) -> bool) -> Option<Head> {
    let mut at = Some(dir);
    while let Some(d) = at {
        if known_bare(d) {
            return None;
        }
        let git = d.join(".git");
        let meta = std::fs::symlink_metadata(&git).ok();
        let git_dir = match meta {
            Some(m) if m.is_dir() => Some(git),
            // a worktree or submodule: `gitdir: <path>`
            Some(m) if m.is_file() => {
                let text = settings::read_small_text(&git, 4096)?;
                let rel = text.strip_prefix("gitdir:")?.trim();
                Some(d.join(rel))
            }
            _ => None,
        };
        if let Some(g) = git_dir {
            let head = settings::read_small_text(&g.join("HEAD"), 4096)?;
            let head = head.trim();
            return Some(match head.strip_prefix("ref: refs/heads/") {
                Some(branch) => Head::Branch(Sanitizer::clean(branch)),
                None => Head::Detached(Sanitizer::clean(head.get(..7)?)),
            });
        }
        at = d.parent();
    }
    None
}

/// The git branch of `dir` (or of the repository above it): read from
/// `.git/HEAD`, no git process. A detached head shows as its short hash.
pub fn git_branch(dir: &Path) -> Option<String> {
    match head(dir)? {
        Head::Branch(b) | Head::Detached(b) => Some(b),
    }
}

/// What a detached HEAD a transcript recorded is shown as.
pub const DETACHED: &str = "detached HEAD";

/// The branches sessions' transcripts name, as the listings show them
/// (`sessions list`, `show`, the finder, an export's heading).
///
/// The CLI records `gitBranch: "HEAD"` for a folder that is no git
/// repository, as for a detached HEAD (2.1.332): shown as it is, a session
/// of a plain folder was said to be on a branch named HEAD. So `HEAD` is
/// no branch, unless the session's folder is a repository whose HEAD is
/// detached when it is listed: then it is shown as [`DETACHED`]. Only
/// sessions that recorded `HEAD` cost a look, once per folder: one `stat`
/// for a folder that is gone, else one a level up to the repository's
/// root, or to a folder known to have none above it. A listing of 10,000
/// sessions in a few folders looks a few times.
#[derive(Debug, Default)]
pub struct RecordedBranches {
    /// Whether each folder looked at is a repository with a detached HEAD.
    detached: HashMap<String, bool>,
    /// Folders with no repository at or above them.
    bare: HashSet<PathBuf>,
}

impl RecordedBranches {
    /// The branch a session in `cwd` recorded, as shown; `None`: none.
    pub fn shown(&mut self, branch: Option<&str>, cwd: Option<&str>) -> Option<String> {
        let branch = branch?;
        if branch != "HEAD" {
            return Some(branch.to_owned());
        }
        let cwd = cwd.filter(|c| Path::new(c).is_absolute())?;
        let detached = match self.detached.get(cwd) {
            Some(d) => *d,
            None => {
                let d = self.detached_now(Path::new(cwd));
                self.detached.insert(cwd.to_owned(), d);
                d
            }
        };
        detached.then(|| DETACHED.to_owned())
    }

    /// Whether `dir` is a repository with a detached HEAD now.
    fn detached_now(&mut self, dir: &Path) -> bool {
        if !dir.is_dir() {
            return false;
        }
        let mut walked = Vec::new();
        let bare = &self.bare;
        let found = head_above(dir, &mut |d| {
            let known = bare.contains(d);
            if !known {
                walked.push(d.to_owned());
            }
            known
        });
        if found.is_none() {
            // (a `.git` that could not be read counts as none too)
            self.bare.extend(walked);
        }
        matches!(found, Some(Head::Detached(_)))
    }

    /// The folders looked at so far.
    #[cfg(test)]
    pub fn looked(&self) -> usize {
        self.detached.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_branch_comes_from_head_in_a_repository_a_worktree_or_detached() {
        let d = tempfile::tempdir().unwrap();
        let repo = d.path().join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join("src/deep")).unwrap();
        std::fs::write(repo.join(".git/HEAD"), "ref: refs/heads/feature/x\n").unwrap();
        assert_eq!(
            git_branch(&repo.join("src/deep")).as_deref(),
            Some("feature/x")
        );
        std::fs::write(repo.join(".git/HEAD"), "0123456789abcdef\n").unwrap();
        assert_eq!(git_branch(&repo).as_deref(), Some("0123456"));
        // a worktree: .git is a file naming the real folder
        let wt = d.path().join("wt");
        std::fs::create_dir_all(wt.join("gd")).unwrap();
        std::fs::write(wt.join(".git"), "gitdir: gd\n").unwrap();
        std::fs::write(wt.join("gd/HEAD"), "ref: refs/heads/evil\u{1b}[2J\n").unwrap();
        assert_eq!(git_branch(&wt).as_deref(), Some("evil"));
        assert_eq!(git_branch(Path::new("/")), None);
    }

    /// `HEAD` as a transcript records it is no branch for a folder that is
    /// no repository, or one on a branch now; a folder whose HEAD is
    /// detached shows it as detached; a folder is looked at once.
    #[test]
    fn a_recorded_head_is_a_detached_head_only_in_a_detached_repository() {
        let d = tempfile::tempdir().unwrap();
        // a temporary folder inside a repository (TMPDIR in a checkout,
        // whose HEAD a CI leaves detached) has no plain folder in it
        if head(d.path()).is_some() {
            eprintln!(
                "SKIPPED a_recorded_head_is_a_detached_head_only_in_a_detached_repository: the temporary folder {} is inside a git repository",
                d.path().display()
            );
            return;
        }
        let plain = d.path().join("plain");
        std::fs::create_dir_all(&plain).unwrap();
        let repo = d.path().join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::write(repo.join(".git/HEAD"), "0123456789abcdef\n").unwrap();
        let on_branch = d.path().join("on");
        std::fs::create_dir_all(on_branch.join(".git")).unwrap();
        std::fs::write(on_branch.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
        let (plain, repo, on_branch) = (
            plain.to_str().unwrap(),
            repo.to_str().unwrap(),
            on_branch.to_str().unwrap(),
        );
        let mut b = RecordedBranches::default();
        assert_eq!(b.shown(Some("main"), Some(plain)).as_deref(), Some("main"));
        assert_eq!(b.looked(), 0, "a branch's name costs no look");
        assert_eq!(b.shown(Some("HEAD"), Some(plain)), None);
        assert_eq!(b.shown(Some("HEAD"), Some(on_branch)), None);
        assert_eq!(b.shown(Some("HEAD"), Some(repo)).as_deref(), Some(DETACHED));
        assert_eq!(b.shown(Some("HEAD"), Some("relative/x")), None);
        assert_eq!(b.shown(Some("HEAD"), None), None);
        assert_eq!(b.shown(None, Some(repo)), None);
        for _ in 0..1000 {
            b.shown(Some("HEAD"), Some(repo));
            b.shown(Some("HEAD"), Some(plain));
        }
        assert_eq!(b.looked(), 3, "each folder once");
        // a folder beside one looked at: only itself is looked at; a
        // folder that is gone: nothing above it
        let beside = d.path().join("beside");
        std::fs::create_dir_all(&beside).unwrap();
        let bare = b.bare.len();
        assert_eq!(b.shown(Some("HEAD"), beside.to_str()), None);
        assert_eq!(b.bare.len(), bare + 1);
        let gone = d.path().join("gone/deep/er");
        assert_eq!(b.shown(Some("HEAD"), gone.to_str()), None);
        assert_eq!(b.bare.len(), bare + 1);
    }
}
