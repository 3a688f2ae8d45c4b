//! Turning command-line flags into library [`claudio::Options`].

use crate::cli::common::flags::SessionFlags;
use crate::cli::sanitize::Sanitizer;
use claudio::Options;

/// The library [`Options`] the session's flags ask for; a bad value is an
/// error naming its flag.
pub fn build_options(a: &SessionFlags) -> anyhow::Result<Options> {
    // the session's requests reach a deck from claudio itself: a deck hook
    // in the person's settings stands aside for it
    let mut o = Options::default().env(crate::cli::requests::socket::PUBLISHED_BY_CLAUDIO, "1");
    o.cli_path = a.cli_path.clone();
    o.model = a.model.clone();
    o.permission_mode = a.permission_mode.clone();
    o.allowed_tools = a.allowed_tools.clone();
    o.disallowed_tools = a.disallowed_tools.clone();
    o.max_turns = a.max_turns;
    o.effort = a
        .effort
        .as_deref()
        .map(claudio::protocol::Effort::from_name);
    o.fallback_models = a.fallback_model.clone();
    if let Some(usd) = a.max_budget_usd {
        anyhow::ensure!(
            usd.is_finite() && usd > 0.0,
            "--max-budget-usd {usd}: must be a positive amount"
        );
        o.max_budget_usd = Some(usd);
    }
    o.system_prompt = a.system_prompt.clone();
    o.append_system_prompt = a.append_system_prompt.clone();
    o.add_dirs = a.add_dir.clone();
    o.resume = a.resume.clone();
    o.continue_conversation = a.continue_session;
    o.mcp_config = a.mcp_config.clone();
    if a.mcp_config.iter().any(|c| inline_secrets(c)) {
        warn_inline_secrets();
    }
    if let Some(cwd) = &a.cwd {
        anyhow::ensure!(
            cwd.is_dir(),
            "--cwd {}: not a directory",
            crate::cli::common::folder::shown(cwd)
        );
        o.cwd = Some(cwd.clone());
    }
    if a.without_project_settings {
        // no `.claude/settings*.json` of the project, and no `.mcp.json`
        o.setting_sources = vec![claudio::protocol::SettingSource::User];
    }
    if a.verbose {
        o = o.on_stderr(|line| eprintln!("{}", Sanitizer::clean(line)));
    }
    Ok(o)
}

/// Whether an `--mcp-config` value is JSON text (not a file) that gives a
/// server `env` or `headers`: the usual home of tokens. claudio keeps it off
/// the CLI's command line, but claudio's own command line, where the person
/// typed it, is readable by every user of the machine (`ps`) for as long as
/// the session runs.
fn inline_secrets(config: &str) -> bool {
    let Ok(serde_json::Value::Object(top)) = serde_json::from_str(config.trim_start()) else {
        return false;
    };
    let Some(serde_json::Value::Object(servers)) = top.get("mcpServers") else {
        return false;
    };
    servers.values().any(|server| {
        ["env", "headers"].iter().any(
            |key| matches!(server.get(*key), Some(serde_json::Value::Object(m)) if !m.is_empty()),
        )
    })
}

/// Says once per run (a chat connects again on `/resume`) that secrets given
/// as text can be read by others, and how to keep them in a file. The value
/// itself is never printed.
fn warn_inline_secrets() {
    static SAID: std::sync::Once = std::sync::Once::new();
    SAID.call_once(|| {
        eprintln!(
            "claudio: warning: --mcp-config text with `env` or `headers` can be read by \
             other users of this machine (`ps`) while claudio runs; put it in a file \
             readable only by you and pass its path: --mcp-config servers.json"
        );
    });
}

#[cfg(test)]
mod tests {
    use super::inline_secrets;

    #[test]
    fn text_with_env_or_headers_is_flagged_and_files_are_not() {
        let env = r#"{"mcpServers":{"gh":{"command":"gh-mcp","env":{"GITHUB_TOKEN":"ghp_x"}}}}"#;
        let headers = r#" {"mcpServers":{"api":{"type":"http","url":"https://x","headers":{"Authorization":"Bearer t"}}}}"#;
        assert!(inline_secrets(env));
        assert!(inline_secrets(headers));
        // No secrets given, or a path: nothing to say.
        assert!(!inline_secrets(
            r#"{"mcpServers":{"e":{"command":"echo","env":{}}}}"#
        ));
        assert!(!inline_secrets(
            r#"{"mcpServers":{"e":{"command":"echo"}}}"#
        ));
        assert!(!inline_secrets("servers.json"));
        assert!(!inline_secrets("/home/me/.config/mcp.json"));
        assert!(!inline_secrets("{not json"));
    }
}
