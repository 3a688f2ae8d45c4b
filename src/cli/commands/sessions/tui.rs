//! `claudio sessions resume ID --tui`: the claude TUI itself on a session,
//! in the directory it was recorded in, its permission requests answerable
//! from `claudio deck` with no edit to the person's files: the one
//! `PermissionRequest` hook `claudio deck hooks install` writes is given
//! to this session alone, through the CLI's `--settings`.
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
        .any(|f| install::holds_our_hook(f))
}

/// The TUI's arguments: the session resumed, and our hook for the program
/// at `exe` in `--settings` unless `installed` says a settings file holds
/// it already.
pub fn args(id: &str, exe: &Path, installed: bool) -> Vec<OsString> {
    let mut a: Vec<OsString> = vec!["--resume".into(), id.into()];
    if !installed {
        a.push("--settings".into());
        a.push(install::settings_for_flag(exe).into());
    }
    a
}

/// The TUI's command: `cli` with [`args`], in `cwd`. The hook must act
/// for it: the mark a claudio chat gives its CLI (whose requests it
/// publishes itself) is not passed on, even when this claudio runs
/// under such a chat.
pub fn command(cli: &Path, cwd: &Path, args: Vec<OsString>) -> Command {
    let mut c = Command::new(cli);
    c.args(args)
        .current_dir(cwd)
        .env_remove(PUBLISHED_BY_CLAUDIO);
    c
}

/// Start the claude TUI on session `id` in `cwd`, in place of this
/// process. Returns only when it could not be started, with the reason.
pub fn exec(cli_path: Option<&Path>, id: &str, cwd: &Path) -> anyhow::Error {
    match try_exec(cli_path, id, cwd) {
        Err(e) => e,
    }
}

fn try_exec(
    cli_path: Option<&Path>,
    id: &str,
    cwd: &Path,
) -> anyhow::Result<std::convert::Infallible> {
    use std::io::IsTerminal;
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        return Err(crate::cli::common::exit::usage_error!(
            "--tui needs a terminal: the claude TUI runs on it"
        ));
    }
    let cli = claudio::transport::find_cli(cli_path)?;
    let exe = std::env::current_exe()?;
    let config_dir = claudio::store::default_config_dir()?;
    let installed = hook_installed(&config_dir, cwd);
    let mut c = command(&cli, cwd, args(id, &exe, installed));
    use std::io::Write;
    let _ = std::io::stdout().flush();
    use std::os::unix::process::CommandExt;
    let e = c.exec();
    Err(anyhow::anyhow!("cannot start {}: {e}", cli.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    const ID: &str = "aaaaaaaa-1111-4111-8111-111111111111";

    #[test]
    fn the_settings_hold_the_hook_install_writes_and_nothing_else() {
        let exe = Path::new("/opt/my tools/claudio");
        let a = args(ID, exe, false);
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
        let a = args(ID, exe, true);
        assert_eq!(a, ["--resume", ID]);
    }

    #[test]
    fn the_tui_is_started_where_the_session_ran_and_its_hook_acts() {
        let cwd = tempfile::tempdir().unwrap();
        let c = command(
            Path::new("/bin/claude"),
            cwd.path(),
            args(ID, Path::new("/c/claudio"), false),
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
        let ours = install::with_hook(None, "/usr/bin/claudio deck hook").unwrap();
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
}
