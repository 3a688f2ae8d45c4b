//! Slash commands of the chat: the table, parsing a line, `/help` and
//! Tab completion.
//!
//! A new command is one entry in [`SLASH_COMMANDS`] and one handler: a
//! [`ChatCommand`] variant run by `Commands::run` (`commands.rs`).
//! The parser, `/help` and Tab completion read the table; a test checks
//! that the README's table says the same.

use crate::cli::term::style::Style;
use crate::cli::term::wrap::wrapped;

/// One slash command.
pub struct SlashCommand {
    /// Its name, with the `/`.
    pub name: &'static str,
    /// Other names for it. Tab offers one only when no name fits.
    pub aliases: &'static [&'static str],
    /// What may follow the name, for `/help`: `[NAME]`, `ID`, or nothing.
    pub arg: &'static str,
    /// What it does, for `/help`.
    pub about: &'static str,
    /// The input it makes of the words after its name.
    pub input: fn(Option<String>) -> Input,
}

/// The chat's slash commands; any other `/word` goes to Claude Code as typed.
pub const SLASH_COMMANDS: &[SlashCommand] = &[
    SlashCommand {
        name: "/help",
        aliases: &["/?"],
        arg: "",
        about: "this list",
        input: |_| Input::Command(ChatCommand::Help),
    },
    SlashCommand {
        name: "/model",
        aliases: &[],
        arg: "[NAME]",
        about: "show or switch the model",
        input: |arg| Input::Command(ChatCommand::Model(arg)),
    },
    SlashCommand {
        name: "/mode",
        aliases: &[],
        arg: "[MODE]",
        about: "show or switch the permission mode",
        input: |arg| Input::Command(ChatCommand::Mode(arg)),
    },
    SlashCommand {
        name: "/cost",
        aliases: &[],
        arg: "",
        about: "turns, cost and time of this session",
        input: |_| Input::Command(ChatCommand::Cost),
    },
    SlashCommand {
        name: "/context",
        aliases: &[],
        arg: "",
        about: "what fills the context window",
        input: |_| Input::Command(ChatCommand::Context),
    },
    SlashCommand {
        name: "/mcp",
        aliases: &[],
        arg: "",
        about: "MCP servers and their status",
        input: |_| Input::Command(ChatCommand::Mcp),
    },
    SlashCommand {
        name: "/permissions",
        aliases: &[],
        arg: "",
        about: "the permission rules in effect, and where each is kept",
        input: |_| Input::Command(ChatCommand::Permissions),
    },
    SlashCommand {
        name: "/new",
        aliases: &["/clear"],
        arg: "",
        about: "start a fresh session",
        input: |_| Input::Command(ChatCommand::New),
    },
    SlashCommand {
        name: "/resume",
        aliases: &[],
        arg: "[ID]",
        about: "resume a session (no id: pick one from a list)",
        input: |arg| Input::Command(ChatCommand::Resume(arg)),
    },
    SlashCommand {
        name: "/todos",
        aliases: &[],
        arg: "",
        about: "the model's task list (Ctrl-T shows or hides it while Claude works)",
        input: |_| Input::Command(ChatCommand::Todos),
    },
    SlashCommand {
        name: "/copy",
        aliases: &[],
        arg: "[N]",
        about: "copy the last answer (or the Nth last) as markdown to the clipboard",
        input: |arg| Input::Command(ChatCommand::Copy(arg)),
    },
    SlashCommand {
        name: "/sessions",
        aliases: &[],
        arg: "",
        about: "recent sessions of this directory",
        input: |_| Input::Command(ChatCommand::Sessions),
    },
    SlashCommand {
        name: "/rewind",
        aliases: &[],
        arg: "",
        about: "go back to before a prompt, files too (also Esc Esc)",
        input: |_| Input::Rewind,
    },
    SlashCommand {
        name: "/exit",
        aliases: &["/quit"],
        arg: "",
        about: "end the chat (also Ctrl-D)",
        input: |_| Input::Exit,
    },
];

/// `!`, for `/help`: not a slash command, but typed at the same prompt.
const SHELL: (&str, &str) = (
    "!COMMAND",
    "run a shell command; its output goes to Claude with your next prompt",
);

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
    ("Esc", "while Claude works: interrupt the turn"),
    ("Esc Esc", "rewind (at an empty prompt)"),
    (
        "Ctrl-G",
        "edit the line in $VISUAL/$EDITOR (also Ctrl-X Ctrl-E)",
    ),
    (
        "Ctrl-R",
        "search the history backwards (Enter sends what it found)",
    ),
    ("Ctrl-T", "while Claude works: show or hide the task list"),
    ("Ctrl-V", "paste the clipboard's image as [Image #N]"),
    (
        "Ctrl-C",
        "interrupt the turn (twice: quit; queued prompts come back to the line); stop a !command",
    ),
    (
        "Ctrl-S/X",
        "while Claude works: send the oldest queued prompt now / drop the newest",
    ),
    (
        "Up",
        "while Claude works, on an empty line: the newest queued prompt back to edit",
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
    /// One of the chat's own commands, run by `Commands::run`.
    Command(ChatCommand),
    /// `/rewind`: the prompt loop picks a prompt to go back to.
    Rewind,
    /// `/exit`: the prompt loop ends the chat.
    Exit,
}

/// The commands `Commands::run` runs, with the words after their name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChatCommand {
    Help,
    Model(Option<String>),
    Mode(Option<String>),
    Cost,
    Context,
    Mcp,
    Permissions,
    New,
    Resume(Option<String>),
    Sessions,
    Copy(Option<String>),
    Todos,
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
    let Some(command) = SLASH_COMMANDS
        .iter()
        .find(|c| c.name == head || c.aliases.contains(&head))
    else {
        return Some(Input::Prompt(text.trim_end().to_owned()));
    };
    let arg = words
        .next()
        .map(str::trim)
        .filter(|a| !a.is_empty())
        .map(str::to_owned);
    Some((command.input)(arg))
}

fn join_continuations(line: &str) -> String {
    line.split('\n')
        .map(|l| l.strip_suffix('\\').unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Commands starting with `prefix`, for Tab: the names, or the aliases
/// when no name fits.
pub fn complete(prefix: &str) -> Vec<&'static str> {
    let names: Vec<&'static str> = SLASH_COMMANDS
        .iter()
        .map(|c| c.name)
        .filter(|n| n.starts_with(prefix))
        .collect();
    if !names.is_empty() {
        return names;
    }
    SLASH_COMMANDS
        .iter()
        .flat_map(|c| c.aliases.iter().copied())
        .filter(|a| a.starts_with(prefix))
        .collect()
}

/// What a command is called in `/help`: its name, what may follow it, and
/// its aliases (`/model [NAME]`, `/new, /clear`).
fn usage(c: &SlashCommand) -> String {
    let mut text = c.name.to_owned();
    if !c.arg.is_empty() {
        text.push(' ');
        text.push_str(c.arg);
    }
    for a in c.aliases {
        text.push_str(", ");
        text.push_str(a);
    }
    text
}

/// `/help`: the commands, `!`, and the keys, in two columns within `cols`.
pub fn help(style: Style, cols: usize) -> String {
    let commands: Vec<(String, &str)> = SLASH_COMMANDS
        .iter()
        .map(|c| (usage(c), c.about))
        .chain([(SHELL.0.to_owned(), SHELL.1)])
        .collect();
    let keys: Vec<(String, &str)> = KEYS
        .iter()
        .map(|(k, what)| (k.to_string(), *what))
        .collect();
    let width = commands
        .iter()
        .chain(&keys)
        .map(|(left, _)| left.chars().count())
        .max()
        .unwrap_or(0);
    let hang = " ".repeat(width + 3);
    let row = |(left, right): &(String, &str)| {
        let first = format!("  {} ", style.bold(&format!("{left:<width$}")));
        wrapped(right, cols, &first, &hang)
    };
    let mut text: String = commands.iter().map(row).collect();
    let note = "Claude Code's own /commands and skills go to it as typed; a /word neither \
                knows is caught. A trailing \\ continues a line. @path mentions a file.";
    text.push_str(&(wrapped(&style.dim(note), cols, "  ", "  ") + "\n"));
    text.extend(keys.iter().map(row));
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_commands_and_prompts() {
        assert_eq!(parse("  "), None);
        assert_eq!(parse("/help"), Some(Input::Command(ChatCommand::Help)));
        assert_eq!(
            parse("/model opus"),
            Some(Input::Command(ChatCommand::Model(Some("opus".into()))))
        );
        assert_eq!(
            parse("/model"),
            Some(Input::Command(ChatCommand::Model(None)))
        );
        assert_eq!(
            parse("/mode  plan "),
            Some(Input::Command(ChatCommand::Mode(Some("plan".into()))))
        );
        assert_eq!(parse("/exit"), Some(Input::Exit));
        assert_eq!(parse("/quit now"), Some(Input::Exit));
        assert_eq!(parse("/clear"), Some(Input::Command(ChatCommand::New)));
        assert_eq!(
            parse("/compact now"),
            Some(Input::Prompt("/compact now".into()))
        );
        assert_eq!(parse("/help2"), Some(Input::Prompt("/help2".into())));
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

    /// Each name and alias in the table parses to its command's input, with
    /// or without words after it; no two commands make the same input.
    #[test]
    fn the_parser_reads_the_table() {
        let mut made: Vec<Input> = Vec::new();
        let mut names: Vec<&str> = Vec::new();
        for c in SLASH_COMMANDS {
            let bare = (c.input)(None);
            assert!(
                !matches!(bare, Input::Prompt(_) | Input::Shell(_)),
                "{}",
                c.name
            );
            assert!(!made.contains(&bare), "{} repeats a command", c.name);
            for n in std::iter::once(&c.name).chain(c.aliases) {
                assert!(n.starts_with('/') && !names.contains(n), "{n}");
                names.push(n);
                assert_eq!(parse(n), Some(bare.clone()), "{n}");
                assert_eq!(
                    parse(&format!(" {n}  some words ")),
                    Some((c.input)(Some("some words".into()))),
                    "{n}"
                );
            }
            made.push(bare);
        }
    }

    /// `/help` names every command, with what may follow it and its
    /// aliases, `!`, and every key.
    #[test]
    fn help_names_every_command_and_key() {
        let text = help(Style::plain(), 1000);
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        let has = |left: &str, right: &str| {
            lines
                .iter()
                .any(|l| l.starts_with(&format!("{left} ")) && l.ends_with(right))
        };
        for c in SLASH_COMMANDS {
            assert!(has(&usage(c), c.about), "{}: {text}", c.name);
        }
        assert!(has("/model [NAME]", "show or switch the model"), "{text}");
        assert!(has("/exit, /quit", "end the chat (also Ctrl-D)"), "{text}");
        assert!(has(SHELL.0, SHELL.1), "{text}");
        for (k, what) in KEYS {
            assert!(has(k, what), "{k}: {text}");
        }
        let keys: Vec<&str> = KEYS.iter().map(|(k, _)| *k).collect();
        for k in ["Shift-Tab", "Esc Esc", "Tab", "Ctrl-C", "Alt-Enter"] {
            assert!(keys.contains(&k), "{k}");
        }
        assert!(keys.contains(&"Ctrl-V"));
    }

    /// The README's table of slash commands lists the table's commands, in
    /// its order, each with what may follow it and its aliases.
    #[test]
    fn the_readme_lists_the_table() {
        let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
            .expect("README.md");
        let start = readme
            .find("\nSlash commands")
            .expect("the README's slash commands");
        let rows: Vec<(String, String, Vec<String>)> = readme[start..]
            .lines()
            .skip_while(|l| !l.starts_with('|'))
            .take_while(|l| l.starts_with('|'))
            .filter(|l| l.starts_with("| `/"))
            .map(|l| {
                let cell = l.split('|').nth(1).unwrap_or("");
                // the code spans of the first cell: the usage, then the aliases
                let spans: Vec<&str> = cell.split('`').skip(1).step_by(2).collect();
                let (name, arg) = spans[0].split_once(' ').unwrap_or((spans[0], ""));
                let aliases = spans[1..].iter().map(|a| a.to_string()).collect();
                (name.to_owned(), arg.to_owned(), aliases)
            })
            .collect();
        let table: Vec<(String, String, Vec<String>)> = SLASH_COMMANDS
            .iter()
            .map(|c| {
                let aliases = c.aliases.iter().map(|a| a.to_string()).collect();
                (c.name.to_owned(), c.arg.to_owned(), aliases)
            })
            .collect();
        assert_eq!(rows, table);
    }

    #[test]
    fn completion() {
        assert_eq!(complete("/mo"), vec!["/model", "/mode"]);
        assert_eq!(complete("/x"), Vec::<&str>::new());
        // aliases only when no name fits
        assert_eq!(complete("/q"), vec!["/quit"]);
        assert_eq!(complete("/c"), vec!["/cost", "/context", "/copy"]);
        assert_eq!(complete("/cl"), vec!["/clear"]);
        assert_eq!(complete("/").len(), SLASH_COMMANDS.len());
    }
}
