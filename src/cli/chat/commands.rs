//! Slash commands of the chat.

/// The chat's own commands; any other `/word` goes to Claude Code as typed.
pub const COMMANDS: &[(&str, &str)] = &[
    ("/help", "this list"),
    ("/model", "show or switch the model: /model [NAME]"),
    ("/mode", "show or switch the permission mode: /mode [MODE]"),
    ("/cost", "turns, cost and time of this session"),
    ("/context", "what fills the context window"),
    ("/mcp", "MCP servers and their status"),
    ("/new", "start a fresh session"),
    ("/resume", "resume a session: /resume ID"),
    ("/sessions", "recent sessions of this directory"),
    (
        "/rewind",
        "go back to before a prompt, files too (also Esc Esc)",
    ),
    ("/exit", "end the chat (also Ctrl-D)"),
    (
        "!",
        "run a shell command; its output goes to Claude with your next prompt: !cargo test",
    ),
];

/// The chat's keys, for `/help` (the README's table says the same).
pub const KEYS: &[(&str, &str)] = &[
    (
        "Enter",
        "send; while Claude works: queue the line for after the turn",
    ),
    (
        "Alt-Enter",
        "a new line; while Claude works: send the line now, cutting in",
    ),
    ("Tab", "complete a /command, or a file after @"),
    (
        "Shift-Tab",
        "next permission mode: default → acceptEdits → plan",
    ),
    ("Esc Esc", "rewind (at an empty prompt)"),
    (
        "Ctrl-C",
        "interrupt the turn (twice: quit); stop a !command",
    ),
    (
        "Ctrl-S/X",
        "while Claude works: send the oldest queued prompt now / drop the newest",
    ),
    ("Ctrl-D", "end the chat"),
];

/// A parsed line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// A prompt for Claude (including unknown `/commands`).
    Prompt(String),
    /// `!command`: run it in the shell.
    Shell(String),
    Help,
    Model(Option<String>),
    Mode(Option<String>),
    Cost,
    Context,
    Mcp,
    New,
    Resume(Option<String>),
    Sessions,
    Rewind,
    Exit,
}

/// Parse a line from the editor. Multi-line input keeps its newlines;
/// a trailing `\` that continued a line is removed.
pub fn parse(line: &str) -> Option<Input> {
    let text = join_continuations(line);
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return None;
    }
    if let Some(cmd) = trimmed.strip_prefix('!') {
        return Some(Input::Shell(cmd.trim().to_owned()));
    }
    let mut words = trimmed.splitn(2, char::is_whitespace);
    let head = words.next().unwrap_or("");
    let arg = words
        .next()
        .map(str::trim)
        .filter(|a| !a.is_empty())
        .map(str::to_owned);
    Some(match head {
        "/help" | "/?" => Input::Help,
        "/model" => Input::Model(arg),
        "/mode" => Input::Mode(arg),
        "/cost" => Input::Cost,
        "/context" => Input::Context,
        "/mcp" => Input::Mcp,
        "/new" | "/clear" => Input::New,
        "/resume" => Input::Resume(arg),
        "/sessions" => Input::Sessions,
        "/rewind" => Input::Rewind,
        "/exit" | "/quit" => Input::Exit,
        _ => Input::Prompt(text.trim_end().to_owned()),
    })
}

fn join_continuations(line: &str) -> String {
    line.split('\n')
        .map(|l| l.strip_suffix('\\').unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Commands starting with `prefix` (for tab completion).
pub fn complete(prefix: &str) -> Vec<&'static str> {
    COMMANDS
        .iter()
        .map(|(c, _)| *c)
        .filter(|c| c.starts_with('/') && c.starts_with(prefix))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_commands_and_prompts() {
        assert_eq!(parse("  "), None);
        assert_eq!(parse("/help"), Some(Input::Help));
        assert_eq!(
            parse("/model opus"),
            Some(Input::Model(Some("opus".into())))
        );
        assert_eq!(parse("/model"), Some(Input::Model(None)));
        assert_eq!(
            parse("/mode  plan "),
            Some(Input::Mode(Some("plan".into())))
        );
        assert_eq!(parse("/exit"), Some(Input::Exit));
        assert_eq!(
            parse("/compact now"),
            Some(Input::Prompt("/compact now".into()))
        );
        assert_eq!(
            parse("fix it\\\nplease"),
            Some(Input::Prompt("fix it\nplease".into()))
        );
        assert_eq!(parse("a\nb"), Some(Input::Prompt("a\nb".into())));
        assert_eq!(
            parse(" !cargo test 2>&1 "),
            Some(Input::Shell("cargo test 2>&1".into()))
        );
        assert_eq!(parse("!"), Some(Input::Shell(String::new())));
    }

    #[test]
    fn help_names_every_key_and_command() {
        let keys: Vec<&str> = KEYS.iter().map(|(k, _)| *k).collect();
        for k in ["Shift-Tab", "Esc Esc", "Tab", "Ctrl-C", "Alt-Enter"] {
            assert!(keys.contains(&k), "{k}");
        }
        for c in ["/rewind", "/mode", "!"] {
            assert!(COMMANDS.iter().any(|(n, _)| *n == c), "{c}");
        }
    }

    #[test]
    fn completion() {
        assert_eq!(complete("/mo"), vec!["/model", "/mode"]);
        assert_eq!(complete("/x"), Vec::<&str>::new());
    }
}
