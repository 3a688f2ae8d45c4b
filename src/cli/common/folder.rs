//! Whether the CLI can start in a folder (a session's recorded working
//! directory, the current one): the folder is named, and why not, before
//! anything is started there. Left to the exec or the spawn, a folder that
//! cannot be entered came back as the program's failure ("cannot start
//! …/claude: Permission denied"), blaming the CLI. The current folder
//! removed while a shell was in it is said as such ([`current`]), not as
//! a bare "No such file or directory".

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};

/// A path (a folder's, a file's) as an error or a warning says it, on one
/// line and whole: an escape sequence in it shown as text (`\e]0;x\a`), a
/// newline as `\n`. The error printer takes sequences out of what it
/// prints (a CLI's stderr among it, its colours not to become text); a
/// name made visible here has none left to take, so the name said is the
/// file's real one.
pub fn shown(path: &Path) -> String {
    claudio::sanitize::Sanitizer::visible_line(&path.display().to_string())
}

/// The current folder, or an error that says why it cannot be had: one
/// removed while the shell was in it is said to no longer exist, named
/// when its name can be known ([`removed_current`]).
pub fn current() -> anyhow::Result<PathBuf> {
    std::env::current_dir().map_err(|e| {
        let name = match e.kind() {
            io::ErrorKind::NotFound => removed_current(
                std::fs::read_link("/proc/self/cwd").ok(),
                std::env::var_os("PWD"),
            ),
            _ => None,
        };
        anyhow::anyhow!(no_current(&e, name.as_deref()))
    })
}

/// What is said when the current folder cannot be had (`e`, from
/// `getcwd`): gone (`NotFound`), with its `name` when known.
fn no_current(e: &io::Error, name: Option<&Path>) -> String {
    match (e.kind(), name) {
        (io::ErrorKind::NotFound, Some(p)) => format!(
            "the current folder {} no longer exists: cd to a folder that exists",
            shown(p)
        ),
        (io::ErrorKind::NotFound, None) => {
            "the current folder no longer exists: cd to a folder that exists".into()
        }
        _ => format!("cannot tell the current folder: {e}"),
    }
}

/// The name of the current folder that was removed (`getcwd` said it is
/// gone): what the kernel kept of it (`/proc/self/cwd` links to `PATH
/// (deleted)` for a removed folder; `proc_cwd` is that link), else
/// `$PWD` (`pwd`) when it is an absolute path that names nothing. A
/// `$PWD` that names something is not the removed folder (a stale or
/// made-up one, or a folder made again since), and is not said.
fn removed_current(proc_cwd: Option<PathBuf>, pwd: Option<OsString>) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    if let Some(link) = proc_cwd {
        let bytes = link.as_os_str().as_bytes();
        if let Some(kept) = bytes.strip_suffix(b" (deleted)") {
            if kept.starts_with(b"/") {
                return Some(PathBuf::from(std::ffi::OsStr::from_bytes(kept)));
            }
        }
    }
    let pwd = PathBuf::from(pwd?);
    let gone = pwd.is_absolute()
        && matches!(std::fs::symlink_metadata(&pwd), Err(e) if e.kind() == io::ErrorKind::NotFound);
    gone.then_some(pwd)
}

/// Why `dir` cannot be worked in, as said after its name ("no longer
/// exists", "is not a folder", "cannot be entered: no permission"), or
/// `None` when the CLI can start there: it is a folder, and this process
/// may enter it (what the CLI's `chdir` needs).
pub fn not_enterable(dir: &Path) -> Option<String> {
    match std::fs::metadata(dir) {
        Err(e) => return Some(why(&e)),
        Ok(m) if !m.is_dir() => return Some("is not a folder".into()),
        Ok(_) => {}
    }
    let entered = rustix::fs::access(dir, rustix::fs::Access::EXEC_OK);
    entered.err().map(|e| why(&e.into()))
}

/// What the error met on the way into a folder says of it.
fn why(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::NotFound => "no longer exists".into(),
        io::ErrorKind::NotADirectory => "is not a folder: a part of its path is a file".into(),
        io::ErrorKind::PermissionDenied => "cannot be entered: no permission".into(),
        _ => format!("cannot be entered: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_that_cannot_be_entered_is_named_with_why() {
        let d = tempfile::tempdir().unwrap();
        assert_eq!(not_enterable(d.path()), None);
        // a path through a regular file (ENOTDIR)
        let file = d.path().join("file");
        std::fs::write(&file, "x").unwrap();
        let through = file.join("proj");
        assert_eq!(
            not_enterable(&through).as_deref(),
            Some("is not a folder: a part of its path is a file")
        );
        // the file itself
        assert_eq!(not_enterable(&file).as_deref(), Some("is not a folder"));
        // a removed folder
        let gone = d.path().join("gone");
        std::fs::create_dir(&gone).unwrap();
        std::fs::remove_dir(&gone).unwrap();
        assert_eq!(not_enterable(&gone).as_deref(), Some("no longer exists"));
    }

    /// The current folder removed: named from what the kernel kept of it
    /// (the link `/proc/self/cwd` ends in ` (deleted)`), else from `$PWD`
    /// when that names nothing; never a `$PWD` that names something (it
    /// is not the removed folder), nor a relative one.
    #[test]
    fn a_removed_current_folder_is_named_when_its_name_can_be_known() {
        let d = tempfile::tempdir().unwrap();
        let gone = d.path().join("gone \x1b]0;t\x07");
        let kept = |p: &Path| {
            let mut s = p.as_os_str().to_owned();
            s.push(" (deleted)");
            Some(PathBuf::from(s))
        };
        let pwd = |p: &Path| Some(p.as_os_str().to_owned());
        // the kernel's name, kept exact (the sanitizer is the printer's)
        assert_eq!(removed_current(kept(&gone), None), Some(gone.clone()));
        // a folder named "x (deleted)", itself removed
        let odd = d.path().join("x (deleted)");
        assert_eq!(removed_current(kept(&odd), None), Some(odd.clone()));
        // a link that is not a removed folder's: $PWD, when it names nothing
        let here = Some(d.path().to_owned());
        assert_eq!(
            removed_current(here.clone(), pwd(&gone)),
            Some(gone.clone())
        );
        assert_eq!(removed_current(None, pwd(&gone)), Some(gone.clone()));
        assert_eq!(removed_current(here, pwd(d.path())), None, "exists");
        assert_eq!(removed_current(None, Some("gone".into())), None, "relative");
        assert_eq!(removed_current(None, None), None);
        let e = io::Error::from(io::ErrorKind::NotFound);
        assert_eq!(
            no_current(&e, Some(Path::new("/w/proj"))),
            "the current folder /w/proj no longer exists: cd to a folder that exists"
        );
        assert_eq!(
            no_current(&e, None),
            "the current folder no longer exists: cd to a folder that exists"
        );
        let e = io::Error::from(io::ErrorKind::PermissionDenied);
        assert!(no_current(&e, None).starts_with("cannot tell the current folder: "));
    }

    /// A name with a terminal's title sequence and a newline in it: said
    /// whole, on one line, nothing live in it, and the error printer's
    /// filter leaves it as it is (it named `proj` for `proj<ESC>]0;x<BEL>`,
    /// and a newline split the error over two lines).
    #[test]
    fn a_folder_s_name_is_said_whole_on_one_line() {
        let e = io::Error::from(io::ErrorKind::NotFound);
        let said = no_current(&e, Some(Path::new("/w/proj\x1b]0;x\x07\nrm -rf")));
        assert_eq!(
            said,
            "the current folder /w/proj\\e]0;x\\a\\nrm -rf no longer exists: cd to a folder that exists"
        );
        assert_eq!(claudio::sanitize::Sanitizer::clean(&said), said);
        assert_eq!(shown(Path::new("/w/plain ü")), "/w/plain ü");
        use std::os::unix::ffi::OsStrExt;
        let bytes = Path::new(std::ffi::OsStr::from_bytes(b"/w/\xff\x9b2J"));
        let said = shown(bytes);
        assert!(
            !said.contains('\u{9b}') && !said.contains('\x1b'),
            "{said:?}"
        );
        assert_eq!(shown(Path::new("/w/\u{9b}2J")), "/w/\\u{9b}2J");
    }

    /// No permission (EACCES, which root, running the tests, never meets):
    /// said by the error's kind, as the check's other errors are.
    #[test]
    fn each_error_on_the_way_in_says_why() {
        let said = |e: rustix::io::Errno| why(&e.into());
        assert_eq!(
            said(rustix::io::Errno::ACCESS),
            "cannot be entered: no permission"
        );
        assert_eq!(said(rustix::io::Errno::NOENT), "no longer exists");
        assert_eq!(
            said(rustix::io::Errno::NOTDIR),
            "is not a folder: a part of its path is a file"
        );
        let e = said(rustix::io::Errno::LOOP);
        assert!(e.starts_with("cannot be entered: "), "{e}");
    }
}
