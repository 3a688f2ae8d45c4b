//! Finding the `claude` executable.

use crate::error::{Error, Result};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Find the CLI: `explicit` (final: never a fallback), else `$PATH`, then
/// the usual install places. The error lists every place that was checked.
/// The library reads no variable of its own: a program that offers one
/// passes its value as `explicit` (as `claudio` does with `CLAUDIO_CLI`).
///
/// ```no_run
/// use claudio::transport::find_cli;
/// match find_cli(None) {
///     Ok(path) => println!("using {}", path.display()),
///     Err(e) => eprintln!("{e}"), // names every place it looked in
/// }
/// ```
pub fn find_cli(explicit: Option<&Path>) -> Result<PathBuf> {
    find_cli_in(explicit, std::env::var_os("PATH"), home_dir())
}

fn home_dir() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}

pub(crate) fn find_cli_in(
    explicit: Option<&Path>,
    path: Option<OsString>,
    home: Option<PathBuf>,
) -> Result<PathBuf> {
    let mut searched = Vec::new();
    // An explicit choice is final: falling back would run a CLI the caller did not ask for.
    let named = explicit
        .filter(|p| !p.as_os_str().is_empty())
        .map(Path::to_path_buf);
    if let Some(p) = named {
        if is_executable(&p) {
            return Ok(p);
        }
        if p.exists() {
            return Err(Error::CliNotExecutable { path: p });
        }
        searched.push(p);
        return Err(Error::CliNotFound { searched });
    }
    if let Some(path) = path {
        for dir in std::env::split_paths(&path) {
            if dir.as_os_str().is_empty() {
                continue;
            }
            let p = dir.join("claude");
            if is_executable(&p) {
                return Ok(p);
            }
        }
        searched.push(PathBuf::from("$PATH"));
    }
    let mut candidates = Vec::new();
    if let Some(h) = &home {
        for rel in [
            ".claude/local/claude",
            ".local/bin/claude",
            ".npm-global/bin/claude",
            ".npm/bin/claude",
            "node_modules/.bin/claude",
            ".yarn/bin/claude",
            ".bun/bin/claude",
            ".volta/bin/claude",
        ] {
            candidates.push(h.join(rel));
        }
    }
    if let Some(prefix) = std::env::var_os("NPM_CONFIG_PREFIX") {
        candidates.push(PathBuf::from(prefix).join("bin/claude"));
    }
    for abs in [
        "/usr/local/bin/claude",
        "/usr/bin/claude",
        "/opt/homebrew/bin/claude",
    ] {
        candidates.push(PathBuf::from(abs));
    }
    for c in candidates {
        if is_executable(&c) {
            return Ok(c);
        }
        searched.push(c);
    }
    Err(Error::CliNotFound { searched })
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn exe(dir: &Path, name: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    }

    #[test]
    fn order_explicit_path_home() {
        let t = tempfile::tempdir().unwrap();
        let a = exe(t.path(), "a/claude");
        let c = exe(t.path(), "c/claude");
        let home = t.path().join("home");
        let d = exe(&home, ".local/bin/claude");
        let path = Some(OsString::from(c.parent().unwrap()));
        let r = |e: Option<&Path>, path: Option<OsString>| find_cli_in(e, path, Some(home.clone()));
        assert_eq!(r(Some(&a), path.clone()).unwrap(), a);
        assert_eq!(r(None, path.clone()).unwrap(), c);
        assert_eq!(r(None, None).unwrap(), d);
        // an empty name is no name
        assert_eq!(r(Some(Path::new("")), path.clone()).unwrap(), c);
    }

    #[test]
    fn explicit_missing_is_an_error_not_a_fallback() {
        let t = tempfile::tempdir().unwrap();
        let c = exe(t.path(), "c/claude");
        let missing = t.path().join("nope/claude");
        let err = find_cli_in(Some(&missing), Some(c.parent().unwrap().into()), None).unwrap_err();
        assert!(err.to_string().contains("nope/claude"), "{err}");
    }

    #[test]
    fn a_named_file_that_is_not_executable_is_said_to_be_so() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("claude");
        std::fs::write(&p, "").unwrap();
        let err = find_cli_in(Some(&p), None, None).unwrap_err();
        assert!(
            matches!(&err, Error::CliNotExecutable { path } if path == &p),
            "{err:?}"
        );
        // a directory is not executable as a program either
        let err = find_cli_in(Some(t.path()), None, None).unwrap_err();
        assert!(matches!(err, Error::CliNotExecutable { .. }), "{err:?}");
        // a missing one is not found
        let missing = t.path().join("nope");
        let err = find_cli_in(Some(&missing), None, None).unwrap_err();
        assert!(
            matches!(&err, Error::CliNotFound { searched } if searched == &vec![missing]),
            "{err:?}"
        );
    }

    #[test]
    fn non_executable_files_are_skipped_and_listed() {
        let t = tempfile::tempdir().unwrap();
        let home = t.path().join("home");
        let p = home.join(".local/bin/claude");
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, "").unwrap();
        let err = find_cli_in(None, Some(OsString::from(t.path())), Some(home)).unwrap_err();
        let Error::CliNotFound { searched } = &err else {
            panic!()
        };
        assert!(searched.contains(&p));
        assert!(searched.contains(&PathBuf::from("$PATH")));
    }
}
