//! Whether the CLI can start in a folder (a session's recorded working
//! directory, the current one): the folder is named, and why not, before
//! anything is started there. Left to the exec or the spawn, a folder that
//! cannot be entered came back as the program's failure ("cannot start
//! …/claude: Permission denied"), blaming the CLI.

use std::io;
use std::path::Path;

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
