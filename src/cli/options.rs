//! Turning command-line flags into library [`claudio::Options`].

use super::args::SessionFlags;
use super::sanitize::Sanitizer;
use claudio::Options;

/// The library [`Options`] the session's flags ask for; a bad value is an
/// error naming its flag.
pub fn build_options(a: &SessionFlags) -> anyhow::Result<Options> {
    let mut o = Options::default();
    o.cli_path = a.cli_path.clone();
    o.model = a.model.clone();
    o.permission_mode = a.permission_mode.map(Into::into);
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
    if let Some(cwd) = &a.cwd {
        anyhow::ensure!(cwd.is_dir(), "--cwd {}: not a directory", cwd.display());
        o.cwd = Some(cwd.clone());
    }
    if a.verbose {
        o = o.on_stderr(|line| eprintln!("{}", Sanitizer::clean(line)));
    }
    Ok(o)
}
