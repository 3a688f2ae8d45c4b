//! The git branch a folder is on, for the chat's status line and `claudio
//! statusline`.

use crate::cli::common::settings;
use crate::cli::sanitize::Sanitizer;
use std::path::Path;

/// The git branch of `dir` (or of the repository above it): read from
/// `.git/HEAD`, no git process. A detached head shows as its short hash.
pub fn git_branch(dir: &Path) -> Option<String> {
    let mut at = Some(dir);
    while let Some(d) = at {
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
            let name = match head.strip_prefix("ref: refs/heads/") {
                Some(branch) => branch.to_owned(),
                None => head.get(..7)?.to_owned(),
            };
            return Some(Sanitizer::clean(&name));
        }
        at = d.parent();
    }
    None
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
}
