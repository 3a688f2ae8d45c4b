//! Slash commands of the chat: the table, parsing a line, `/help`, Tab
//! completion, and running the chat's own.
//!
//! A new command is one entry in [`SLASH_COMMANDS`] and one handler: a
//! [`ChatCommand`] variant run by `Chat::command`. The parser, `/help` and
//! Tab completion read the table; a test checks that the README's table
//! says the same.

use super::clipboard;
use super::core::{short_id, terminal_width, Chat, Switch};
use super::reports::{context_chart, rules_list};
use crate::cli::sanitize::Sanitizer;
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
    /// One of the chat's own commands, run by `Chat::command`.
    Command(ChatCommand),
    /// `/rewind`: the prompt loop picks a prompt to go back to.
    Rewind,
    /// `/exit`: the prompt loop ends the chat.
    Exit,
}

/// The commands `Chat::command` runs, with the words after their name.
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

impl Chat<'_> {
    /// Run one of the chat's own commands (not a prompt, `!`, rewind or
    /// exit: the prompt loop does those).
    pub(super) fn command(&mut self, command: ChatCommand) -> anyhow::Result<()> {
        match command {
            ChatCommand::Help => self.write(&help(self.screen.style(), terminal_width())),
            ChatCommand::Model(None) => {
                let m = self
                    .session
                    .state
                    .model
                    .clone()
                    .unwrap_or_else(|| "default".into());
                self.info(&format!("model: {m}"));
            }
            ChatCommand::Model(Some(name)) => {
                let rt = self.rt;
                let client = self.client()?;
                if let Err(e) = super::typos::check_model(&name, &client.server_info().models) {
                    self.info(&e.to_string());
                    return Ok(());
                }
                let target = (name != "default").then_some(name.as_str());
                rt.block_on(client.set_model(target))?;
                self.session.state.model = target.map(str::to_owned);
                self.session.state.chosen_model = target.map(str::to_owned);
                self.info(&format!("model: {name} (from the next request)"));
            }
            ChatCommand::Mode(None) => {
                let m = self.session.state.mode_name();
                self.info(&format!(
                    "permission mode: {m} (default, acceptEdits, plan, bypassPermissions, dontAsk, auto)"
                ));
            }
            ChatCommand::Mode(Some(name)) => {
                // a typo never reaches the CLI
                let mode: claudio::PermissionMode = name.parse()?;
                let rt = self.rt;
                rt.block_on(self.client()?.set_permission_mode(mode.clone()))?;
                self.session.state.mode = Some(mode.clone());
                self.info(&format!("permission mode: {mode}"));
            }
            ChatCommand::Cost => {
                let t = self.session.state.totals.clone();
                self.info(&cost_report(&t));
            }
            ChatCommand::Context => {
                let rt = self.rt;
                let usage = rt.block_on(self.client()?.context_usage())?;
                let chart = context_chart(&usage, self.screen.style());
                self.write(&chart);
            }
            ChatCommand::Mcp => {
                let rt = self.rt;
                let status = rt.block_on(self.client()?.mcp_status())?;
                if status.servers.is_empty() {
                    self.info("no MCP servers");
                }
                for s in &status.servers {
                    let why = s
                        .error
                        .as_deref()
                        .map(|e| format!(" ({e})"))
                        .unwrap_or_default();
                    self.info(&format!("{}: {}{why}", s.name, s.status));
                }
            }
            ChatCommand::Copy(arg) => {
                let terminal = std::io::IsTerminal::is_terminal(&std::io::stdout());
                let answers = &self.session.answers;
                match clipboard::copy(answers, arg.as_deref(), terminal, &mut self.clipboard) {
                    Ok((seq, said)) => {
                        self.write(&seq);
                        self.info(&said);
                    }
                    Err(why) => self.info(&why.to_string()),
                }
            }
            ChatCommand::Todos => {
                match self
                    .session
                    .todos_text(self.screen.style(), self.screen.renderer().width())
                {
                    Some(list) => self.write(&list),
                    None => self.info("no task list in this session"),
                }
            }
            ChatCommand::Permissions => {
                let rt = self.rt;
                let rules = rt.block_on(self.client()?.permission_rules())?;
                let list = rules_list(&rules, self.screen.style());
                self.write(&list);
            }
            ChatCommand::New => {
                self.switch(Switch::New)?;
                self.info("new session");
            }
            ChatCommand::Resume(None) => {
                let store = claudio::store::Store::open(None)?;
                // the finder takes its keys from the chat's one reader (in
                // its own raw mode while it is shown)
                let style = self.screen.style();
                let rt = self.rt.handle().clone();
                let Some(keys) = self.keys.as_mut().filter(|k| k.has_terminal()) else {
                    anyhow::bail!("no terminal to choose on");
                };
                let mut source = super::keys::FinderKeys {
                    keys,
                    rt: &rt,
                    peeked: None,
                };
                if let Some(row) =
                    crate::cli::term::finder::pick_from(&store, &self.cwd, style, &mut source)?
                {
                    return self.command(ChatCommand::Resume(Some(row.id)));
                }
                self.info("nothing resumed");
            }
            ChatCommand::Resume(Some(id)) => {
                // found in any project; the CLI runs where it was recorded
                // an archived session the CLI deleted is restored first
                let store = claudio::store::Store::open(None)?;
                let mut notes = Vec::new();
                let target = crate::cli::common::archive::resume_target(&store, &id, &mut |m| {
                    notes.push(m.to_owned())
                })?;
                for n in notes {
                    self.info(&n);
                }
                self.switch(Switch::Resume {
                    id: target.id.clone(),
                    cwd: target.cwd,
                })?;
                self.info(&format!("resuming {}", short_id(&target.id)));
                self.show_history(&target.id);
            }
            ChatCommand::Sessions => self.recent_sessions()?,
        }
        Ok(())
    }

    fn recent_sessions(&mut self) -> anyhow::Result<()> {
        let store = claudio::store::Store::open(None)?;
        let listing =
            store.list(&claudio::store::ListOptions::for_dir(self.cwd.clone()).limit(10))?;
        if listing.sessions.is_empty() {
            self.info("no sessions in this directory yet");
            return Ok(());
        }
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0);
        let width = terminal_width().saturating_sub(30).max(20);
        let mut text = String::new();
        for s in &listing.sessions {
            let when = crate::cli::term::time::relative_time(now, s.last_modified);
            let title = crate::cli::term::text::cut_width(&Sanitizer::clean(&s.title), width);
            text.push_str(&format!(
                "  {}  {:>9}  {}\n",
                self.screen.style().cyan(&short_id(&s.session_id)),
                self.screen.style().dim(&when),
                title
            ));
        }
        text.push_str(&format!(
            "  {}\n",
            self.screen.style().dim("/resume ID to open one")
        ));
        self.write(&text);
        Ok(())
    }
}

/// `/cost`: the session as the end-of-turn line says it, then this chat.
fn cost_report(t: &super::state::Totals) -> String {
    let plural = |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let session = t
        .session_cost_usd
        .map_or("no cost reported yet".to_owned(), |c| format!("${c:.4}"));
    let mut line = format!("session {session}");
    let chat = format!(
        "{} · {} · {:.1}s ({:.1}s in the API)",
        plural(t.prompts, "prompt", "prompts"),
        plural(t.api_calls, "API call", "API calls"),
        t.duration.as_secs_f64(),
        t.api_duration.as_secs_f64()
    );
    if t.session_cost_usd
        .is_some_and(|c| (c - t.cost_usd).abs() > 5e-5)
    {
        line.push_str(&format!(" · this chat ${:.4}, {chat}", t.cost_usd));
    } else {
        line.push_str(&format!(" · this chat: {chat}"));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cost_says_the_session_as_the_end_line_does_then_the_chat() {
        let mut t = super::super::state::Totals::default();
        (t.prompts, t.api_calls, t.cost_usd) = (2, 5, 0.021);
        t.session_cost_usd = Some(0.021);
        t.duration = std::time::Duration::from_millis(3100);
        t.api_duration = std::time::Duration::from_millis(2000);
        assert_eq!(
            cost_report(&t),
            "session $0.0210 · this chat: 2 prompts · 5 API calls · 3.1s (2.0s in the API)"
        );
        t.session_cost_usd = Some(0.5);
        t.prompts = 1;
        t.api_calls = 1;
        assert_eq!(
            cost_report(&t),
            "session $0.5000 · this chat $0.0210, 1 prompt · 1 API call · 3.1s (2.0s in the API)"
        );
    }

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
