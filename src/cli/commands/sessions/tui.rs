//! `claudio sessions resume ID --tui` and `claudio tui [ARGS...]`: the
//! claude TUI itself, on a session in the directory it was recorded in or
//! on a new one in the current directory, its permission requests
//! answerable from `claudio deck` with no edit to the person's files: the
//! one `PermissionRequest` hook `claudio deck hooks install` writes is
//! given to this session alone, through the CLI's `--settings`.
//!
//! When a settings file the TUI reads already holds that hook, none is
//! given (the TUI would run both, and the deck hold the request twice).
//! The TUI replaces claudio's process (`exec`): it owns the terminal, its
//! exit status is the command's, and nothing is left behind.

use crate::cli::commands::deck::install;
use crate::cli::requests::socket::PUBLISHED_BY_CLAUDIO;
use std::ffi::OsString;
use std::path::Path;
use std::process::Command;

/// Whether a settings file the TUI started in `cwd` reads holds our hook
/// already: the person's (`config_dir`'s), the project's, the local one
/// or the managed one.
pub fn hook_installed(config_dir: &Path, cwd: &Path) -> bool {
    crate::cli::common::settings::files(config_dir, Some(cwd))
        .iter()
        .any(|f| install::holds_a_working_hook(f))
}

/// The TUI's arguments: the session resumed (if any), our hook for the
/// program at `exe` in `--settings` unless `installed` says a settings
/// file holds it already, then the person's own arguments (`given`),
/// verbatim. A `--settings` of theirs beside ours is refused (a usage
/// error): the CLI would keep one of the two, and drop the other unsaid.
pub fn args(
    resume: Option<&str>,
    given: &[OsString],
    exe: &Path,
    installed: bool,
) -> anyhow::Result<Vec<OsString>> {
    let mut a: Vec<OsString> = Vec::new();
    if let Some(id) = resume {
        a.push("--resume".into());
        a.push(id.into());
    }
    if !installed {
        if gives_settings(given) {
            return Err(crate::cli::common::exit::usage_error!(
                "--settings: claudio gives the claude TUI the deck's hook in its own --settings, and the CLI would keep only one of the two; put yours in a settings file (~/.claude/settings.json, .claude/settings.json), or install the hook there (`claudio deck hooks install`) and claudio gives none"
            ));
        }
        a.push("--settings".into());
        a.push(install::settings_for_flag(exe).into());
    }
    a.extend(given.iter().cloned());
    Ok(a)
}

/// Whether the person's arguments hold a `--settings` of the CLI's (before
/// a `--`, after which all are its prompt).
fn gives_settings(given: &[OsString]) -> bool {
    given
        .iter()
        .take_while(|a| *a != "--")
        .any(|a| a == "--settings" || a.as_encoded_bytes().starts_with(b"--settings="))
}

/// The TUI's command: `cli` with [`args`], in `cwd`; with `config_dir`
/// (`sessions --config-dir`, absolute), the CLI reads that configuration
/// folder (`CLAUDE_CONFIG_DIR`), where the session was found. The hook
/// must act for it: the mark a claudio chat gives its CLI (whose requests
/// it publishes itself) is not passed on, even when this claudio runs
/// under such a chat.
pub fn command(cli: &Path, cwd: &Path, config_dir: Option<&Path>, args: Vec<OsString>) -> Command {
    let mut c = Command::new(cli);
    c.args(args)
        .current_dir(cwd)
        .env_remove(PUBLISHED_BY_CLAUDIO);
    if let Some(dir) = config_dir {
        c.env("CLAUDE_CONFIG_DIR", dir);
    }
    c
}

/// Start the claude TUI in `cwd`, in place of this process: on session
/// `resume`, or a new one, with the person's arguments `given` (see
/// [`args`]); `config_dir`: the configuration folder the session was
/// found in (`sessions --config-dir`), the CLI's too. `what` names the
/// command in the error when there is no terminal. Returns only when it
/// could not be started, with the reason.
pub fn exec(
    cli_path: Option<&Path>,
    what: &str,
    resume: Option<&str>,
    given: &[OsString],
    cwd: &Path,
    config_dir: Option<&Path>,
) -> anyhow::Error {
    match try_exec(cli_path, what, resume, given, cwd, config_dir) {
        Err(e) => e,
    }
}

fn try_exec(
    cli_path: Option<&Path>,
    what: &str,
    resume: Option<&str>,
    given: &[OsString],
    cwd: &Path,
    config_dir: Option<&Path>,
) -> anyhow::Result<std::convert::Infallible> {
    use std::io::IsTerminal;
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        return Err(crate::cli::common::exit::usage_error!(
            "{what} needs a terminal: the claude TUI runs on it"
        ));
    }
    let cli = claudio::transport::find_cli(cli_path)?;
    // a folder the TUI cannot start in is named, not blamed on the CLI
    if let Some(e) = unenterable(cwd) {
        return Err(e);
    }
    let exe = std::env::current_exe()?;
    install::nameable(&exe)?;
    // a relative folder is this process's: the TUI starts in another
    let given_dir = config_dir.map(std::path::absolute).transpose()?;
    let config_dir = match &given_dir {
        Some(d) => d.clone(),
        None => claudio::store::default_config_dir()?,
    };
    let installed = hook_installed(&config_dir, cwd);
    let args = args(resume, given, &exe, installed)?;
    let mut c = command(&cli, cwd, given_dir.as_deref(), args);
    use std::io::Write;
    let _ = std::io::stdout().flush();
    use std::os::unix::process::CommandExt;
    let e = c.exec();
    Err(exec_failed(&cli, cwd, &e))
}

/// The error for a TUI that cannot start in `cwd`, with why; `None` when
/// it can.
fn unenterable(cwd: &Path) -> Option<anyhow::Error> {
    let why = crate::cli::common::folder::not_enterable(cwd)?;
    Some(anyhow::anyhow!(
        "cannot start the claude TUI: its working directory {} {why}",
        crate::cli::common::folder::shown(cwd)
    ))
}

/// The error for the exec of `cli` in `cwd` that failed with `e`: the
/// folder's when it cannot be entered now (removed or replaced since it
/// was checked: the exec's `chdir` failed, and the OS error alone blamed
/// the CLI), else the CLI's.
fn exec_failed(cli: &Path, cwd: &Path, e: &std::io::Error) -> anyhow::Error {
    unenterable(cwd).unwrap_or_else(|| {
        anyhow::anyhow!(
            "cannot start {}: {e}",
            crate::cli::common::folder::shown(cli)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    const ID: &str = "aaaaaaaa-1111-4111-8111-111111111111";

    /// A folder removed between its check and the exec: the exec's own
    /// error (its `chdir` failed: "No such file or directory") is the
    /// folder's, named with why, not the CLI's.
    #[test]
    fn a_folder_removed_before_the_exec_is_named_not_the_cli() {
        let d = tempfile::tempdir().unwrap();
        let dir = d.path().join("went");
        std::fs::create_dir(&dir).unwrap();
        assert!(unenterable(&dir).is_none());
        std::fs::remove_dir(&dir).unwrap();
        let cli = Path::new("/bin/true");
        let e = command(cli, &dir, None, vec![]).spawn().unwrap_err();
        let said = exec_failed(cli, &dir, &e).to_string();
        assert_eq!(
            said,
            format!(
                "cannot start the claude TUI: its working directory {} no longer exists",
                dir.display()
            )
        );
        // the folder there: the CLI's error, as before
        let e = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        let said = exec_failed(cli, d.path(), &e).to_string();
        assert!(said.starts_with("cannot start /bin/true: "), "{said}");
    }

    #[test]
    fn the_settings_hold_the_hook_install_writes_and_nothing_else() {
        let exe = Path::new("/opt/my tools/claudio");
        let a = args(Some(ID), &[], exe, false).unwrap();
        assert_eq!(a.len(), 4, "{a:?}");
        assert_eq!((a[0].to_str(), a[1].to_str()), (Some("--resume"), Some(ID)));
        assert_eq!(a[2], "--settings");
        let v: Value = serde_json::from_str(a[3].to_str().unwrap()).unwrap();
        assert_eq!(
            v,
            json!({"hooks": {"PermissionRequest": [{
                "matcher": "*",
                "hooks": [{"type": "command", "command": "'/opt/my tools/claudio' deck hook",
                    "timeout": install::TIMEOUT_SECS}]
            }]}})
        );
        // the same entry `deck hooks install` writes into a settings file
        let written = install::with_hook(None, &install::command_for(exe)).unwrap();
        let written: Value = serde_json::from_str(&written).unwrap();
        assert_eq!(v, written);
        // installed already: the session is resumed, no second hook given
        let a = args(Some(ID), &[], exe, true).unwrap();
        assert_eq!(a, ["--resume", ID]);
    }

    fn os(a: &[&str]) -> Vec<OsString> {
        a.iter().map(OsString::from).collect()
    }

    /// `claudio tui`: a new session (no `--resume`), our `--settings`
    /// first, then the person's arguments verbatim and in order (after ours:
    /// a `--` of theirs makes all after it the TUI's prompt).
    #[test]
    fn a_new_session_gets_the_hook_then_the_person_s_arguments_verbatim() {
        let exe = Path::new("/c/claudio");
        let given = os(&["--model", "opus", "fix the \"tests\"", "--", "--settings"]);
        let a = args(None, &given, exe, false).unwrap();
        assert_eq!(a[0], "--settings");
        assert_eq!(a[1], OsString::from(install::settings_for_flag(exe)));
        assert_eq!(a[2..], given[..]);
        // installed already: the person's arguments alone
        assert_eq!(args(None, &given, exe, true).unwrap(), given);
        assert_eq!(args(None, &[], exe, true).unwrap(), Vec::<OsString>::new());
        // resumed with arguments: the session first
        let a = args(Some(ID), &os(&["--model", "opus"]), exe, true).unwrap();
        assert_eq!(a, ["--resume", ID, "--model", "opus"]);
    }

    /// A `--settings` of the person's beside ours is refused, never one of
    /// the two dropped; with the hook installed none of ours is given, and
    /// theirs goes through.
    #[test]
    fn the_person_s_own_settings_are_refused_beside_ours() {
        let exe = Path::new("/c/claudio");
        for given in [
            &["--settings", "my.json"][..],
            &["--model", "opus", "--settings={\"model\":\"x\"}"],
        ] {
            let e = args(None, &os(given), exe, false).unwrap_err();
            assert!(
                e.downcast_ref::<crate::cli::common::exit::UsageError>()
                    .is_some(),
                "{e}"
            );
            assert!(e.to_string().contains("--settings"), "{e}");
            let a = args(None, &os(given), exe, true).unwrap();
            assert_eq!(a, os(given));
        }
        // a prompt after `--` that says --settings is no flag
        assert!(args(None, &os(&["--", "--settings"]), exe, false).is_ok());
        // nor is a flag whose name merely begins so
        assert!(args(None, &os(&["--settings-x"]), exe, false).is_ok());
    }

    #[test]
    fn the_tui_is_started_where_the_session_ran_and_its_hook_acts() {
        let cwd = tempfile::tempdir().unwrap();
        let c = command(
            Path::new("/bin/claude"),
            cwd.path(),
            None,
            args(Some(ID), &[], Path::new("/c/claudio"), false).unwrap(),
        );
        assert_eq!(c.get_program(), "/bin/claude");
        assert_eq!(c.get_current_dir(), Some(cwd.path()));
        let envs: Vec<_> = c.get_envs().collect();
        assert_eq!(
            envs,
            [(std::ffi::OsStr::new(PUBLISHED_BY_CLAUDIO), None)],
            "the chat's mark is taken away"
        );
    }

    #[test]
    fn a_hook_in_any_settings_file_the_tui_reads_is_found() {
        let config = tempfile::tempdir().unwrap();
        let cwd = tempfile::tempdir().unwrap();
        let exe = cwd.path().join("claudio");
        std::fs::write(&exe, "").unwrap();
        let ours = install::with_hook(None, &install::command_for(&exe)).unwrap();
        assert!(!hook_installed(config.path(), cwd.path()));
        // another hook, not ours: still none
        let other = json!({"hooks": {"PermissionRequest": [{"matcher": "*",
            "hooks": [{"type": "command", "command": "my-hook"}]}]}});
        std::fs::write(config.path().join("settings.json"), other.to_string()).unwrap();
        assert!(!hook_installed(config.path(), cwd.path()));
        std::fs::write(config.path().join("settings.json"), &ours).unwrap();
        assert!(hook_installed(config.path(), cwd.path()));
        std::fs::write(config.path().join("settings.json"), "{}").unwrap();
        std::fs::create_dir(cwd.path().join(".claude")).unwrap();
        std::fs::write(cwd.path().join(".claude/settings.local.json"), &ours).unwrap();
        assert!(hook_installed(config.path(), cwd.path()));
    }

    /// A hook of a claudio since removed (or moved) runs nothing: the TUI
    /// is given ours, or the deck would never be asked. It was counted as
    /// installed, whatever program it named.
    #[test]
    fn a_removed_claudio_s_hook_is_not_counted_as_installed() {
        let config = tempfile::tempdir().unwrap();
        let cwd = tempfile::tempdir().unwrap();
        let gone = cwd.path().join("o'ld bin/claudio");
        let stale = install::with_hook(None, &install::command_for(&gone)).unwrap();
        std::fs::write(config.path().join("settings.json"), &stale).unwrap();
        assert!(!hook_installed(config.path(), cwd.path()));
        // there again (its quoted path read back): counted
        std::fs::create_dir(gone.parent().unwrap()).unwrap();
        std::fs::write(&gone, "").unwrap();
        assert!(hook_installed(config.path(), cwd.path()));
    }

    /// A claudio whose own path is not UTF-8 cannot be named in a settings
    /// file: said, rather than a hook naming another path.
    #[test]
    fn a_path_that_is_not_utf8_cannot_be_named() {
        use std::os::unix::ffi::OsStrExt;
        let odd = Path::new(std::ffi::OsStr::from_bytes(b"/opt/\xff/claudio"));
        let e = install::nameable(odd).unwrap_err().to_string();
        assert!(e.contains("not UTF-8"), "{e}");
        assert!(install::nameable(Path::new("/opt/bin/claudio")).is_ok());
    }
}
