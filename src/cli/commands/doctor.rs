//! `claudio doctor`: is everything in place? Each problem comes with its fix.
//! Credentials are reported as present or absent, never shown.

use crate::cli::common::config::Config;
use crate::cli::common::exit::Exit;
use crate::cli::common::flags::SessionFlags;
use crate::cli::term::style::Style;
use claudio::transport::find_cli;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The oldest CLI version claudio supports (its real-CLI tests run against it).
pub const TESTED_CLI_VERSION: &str = "2.1.328";
/// The newest CLI version claudio is tested with (the one the TypeScript SDK
/// 0.3.336 bundles).
pub const NEWEST_TESTED_CLI_VERSION: &str = "2.1.336";

#[derive(Debug, PartialEq, Eq)]
enum Level {
    Ok,
    Warn,
    Problem,
}

struct Report {
    style: Style,
    problems: usize,
    out: String,
}

impl Report {
    fn line(&mut self, level: Level, what: &str, detail: &str, fix: Option<&str>) {
        let s = self.style;
        let mark = match level {
            Level::Ok => s.green("✓"),
            Level::Warn => s.yellow("!"),
            Level::Problem => {
                self.problems += 1;
                s.red("✗")
            }
        };
        self.out
            .push_str(&format!("{mark} {:<12} {detail}\n", s.bold(what)));
        if let Some(fix) = fix {
            self.out
                .push_str(&format!("  {:<12} {}\n", "", s.dim(&format!("fix: {fix}"))));
        }
    }
}

pub fn run(
    session: &SessionFlags,
    config: anyhow::Result<(Config, Option<PathBuf>)>,
    verbose: bool,
) -> Exit {
    let mut r = Report {
        style: Style::decide(
            session.color_choice(),
            std::io::IsTerminal::is_terminal(&std::io::stdout()),
        ),
        problems: 0,
        out: String::new(),
    };
    check_cli(&mut r, session, verbose);
    check_credentials(&mut r);
    check_store(&mut r);
    check_status_line(&mut r);
    // a bad CLAUDIO_ARCHIVE_DIR is its own problem, not the file's
    let archive_env = crate::cli::common::archive::archive_env();
    let config = match config {
        Err(_) if archive_env.is_err() => Config::load_file(),
        c => c,
    };
    let auto = matches!(&config, Ok((c, _)) if c.archive == Some(crate::cli::common::config::ArchiveMode::Auto));
    check_cleanup(&mut r, auto);
    if let Err(why) = archive_env {
        r.line(
            Level::Problem,
            "archive",
            &why.to_string(),
            Some("set CLAUDIO_ARCHIVE_DIR to an absolute path, or unset it for the default (claudio/archive under the XDG data folder)"),
        );
    }
    match config {
        Ok((_, Some(path))) => r.line(Level::Ok, "config", &path.display().to_string(), None),
        Ok((_, None)) => {
            let where_ = crate::cli::common::config::config_path()
                .map(|(p, _)| {
                    format!(
                        "none (looked for {})",
                        crate::cli::common::folder::shown(&p)
                    )
                })
                .unwrap_or_else(|| "none".into());
            r.line(Level::Ok, "config", &where_, None)
        }
        Err(e) => r.line(
            Level::Problem,
            "config",
            &format!("{e:#}"),
            Some("correct the file, or move it away to use the defaults"),
        ),
    }
    print!("{}", r.out);
    if r.problems == 0 {
        Exit::Success
    } else {
        Exit::Failure
    }
}

fn check_cli(r: &mut Report, session: &SessionFlags, verbose: bool) {
    let path = match find_cli(session.cli_path.as_deref()) {
        Ok(p) => p,
        Err(claudio::Error::CliNotFound { searched }) => {
            // one line; the places only when asked for (`--verbose`)
            let detail = if verbose {
                format!(
                    "not found; looked in: {}",
                    searched
                        .iter()
                        .map(|p| p.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            } else {
                format!(
                    "not found (looked in {} places: $PATH and the usual installs; --verbose lists them)",
                    searched.len()
                )
            };
            r.line(
                Level::Problem,
                "claude",
                &detail,
                Some("npm install -g @anthropic-ai/claude-code, or name it with --cli-path or CLAUDIO_CLI"),
            );
            return;
        }
        Err(e) => {
            r.line(
                Level::Problem,
                "claude",
                &e.to_string(),
                Some("npm install -g @anthropic-ai/claude-code"),
            );
            return;
        }
    };
    match cli_version(&path) {
        Some(v) => {
            let older = version_tuple(&v) < version_tuple(TESTED_CLI_VERSION);
            let detail = format!("{} ({v})", crate::cli::common::folder::shown(&path));
            if older {
                r.line(
                    Level::Warn,
                    "claude",
                    &format!(
                        "{detail}; older than {TESTED_CLI_VERSION}, the oldest claudio supports (tested: {TESTED_CLI_VERSION} to {NEWEST_TESTED_CLI_VERSION})"
                    ),
                    Some("npm install -g @anthropic-ai/claude-code@latest"),
                );
            } else if version_tuple(&v) > version_tuple(NEWEST_TESTED_CLI_VERSION) {
                r.line(
                    Level::Ok,
                    "claude",
                    &format!(
                        "{detail}; newer than {NEWEST_TESTED_CLI_VERSION}, the newest claudio is tested with"
                    ),
                    None,
                );
            } else {
                r.line(Level::Ok, "claude", &detail, None);
            }
        }
        None => r.line(
            Level::Problem,
            "claude",
            &format!(
                "{} does not answer `--version`",
                crate::cli::common::folder::shown(&path)
            ),
            Some("reinstall it: npm install -g @anthropic-ai/claude-code"),
        ),
    }
}

fn cli_version(path: &Path) -> Option<String> {
    use claudio::child::{self, Ended};
    let mut cmd = Command::new(path);
    cmd.arg("--version");
    let done = child::run(
        cmd,
        child::Run::new(Duration::from_secs(15)).max_output(4096),
    )
    .ok()?;
    if !matches!(done.ended, Ended::Exited(_)) {
        return None;
    }
    let text = String::from_utf8_lossy(&done.output);
    let v = text.split_whitespace().next()?.to_owned();
    v.chars().next()?.is_ascii_digit().then_some(v)
}

fn version_tuple(v: &str) -> Vec<u64> {
    v.split(|c: char| !c.is_ascii_digit())
        .filter(|p| !p.is_empty())
        .take(3)
        .map(|p| p.parse().unwrap_or(0))
        .collect()
}

/// The CLI's configuration folder, found as the store finds it (one rule:
/// `$CLAUDE_CONFIG_DIR`, else `$HOME/.claude`).
fn claude_dir() -> Option<PathBuf> {
    claudio::store::default_config_dir().ok()
}

fn check_credentials(r: &mut Report) {
    let vars = [
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "CLAUDE_CODE_OAUTH_TOKEN",
        "CLAUDE_CODE_USE_BEDROCK",
        "CLAUDE_CODE_USE_VERTEX",
    ];
    let mut found: Vec<String> = vars
        .iter()
        .filter(|v| std::env::var_os(v).is_some_and(|x| !x.is_empty()))
        .map(|v| v.to_string())
        .collect();
    if let Some(dir) = claude_dir() {
        let f = dir.join(".credentials.json");
        if f.is_file() {
            found.push(f.display().to_string());
        }
    }
    if found.is_empty() {
        r.line(
            Level::Problem,
            "credentials",
            "none found",
            Some("run `claude` once and log in, or set ANTHROPIC_API_KEY"),
        );
    } else {
        r.line(
            Level::Ok,
            "credentials",
            &format!("present ({})", found.join(", ")),
            None,
        );
    }
}

fn check_store(r: &mut Report) {
    let Some(dir) = claudio::store::Store::open(None)
        .ok()
        .map(|s| s.projects_dir())
    else {
        r.line(Level::Warn, "transcripts", "no home directory", None);
        return;
    };
    match std::fs::metadata(&dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => r.line(
            Level::Ok,
            "transcripts",
            &format!(
                "{} (empty: no sessions yet)",
                crate::cli::common::folder::shown(&dir)
            ),
            None,
        ),
        Ok(m) if !m.is_dir() => r.line(
            Level::Problem,
            "transcripts",
            &format!(
                "{} is not a directory",
                crate::cli::common::folder::shown(&dir)
            ),
            Some("move the file away; Claude Code keeps a folder there"),
        ),
        other => match other.and_then(|_| store_size(&dir)) {
            Ok(c) if c.odd == 0 && c.passed.is_empty() => r.line(
                Level::Ok,
                "transcripts",
                &format!(
                    "{} ({} sessions, {})",
                    crate::cli::common::folder::shown(&dir),
                    c.sessions,
                    crate::cli::term::text::human_size(c.bytes)
                ),
                None,
            ),
            Ok(c) => {
                let mut detail = format!(
                    "{} ({} sessions, {}",
                    crate::cli::common::folder::shown(&dir),
                    c.sessions,
                    crate::cli::term::text::human_size(c.bytes)
                );
                if c.odd > 0 {
                    detail.push_str(&format!(
                        "; {} named like transcripts are not regular files",
                        c.odd
                    ));
                }
                if !c.passed.is_empty() {
                    let named: Vec<String> = c
                        .passed
                        .iter()
                        .take(3)
                        .map(|(p, why)| format!("{}: {why}", crate::cli::common::folder::shown(p)))
                        .collect();
                    let more = c.passed.len().saturating_sub(3);
                    detail.push_str(&format!(
                        "; {} project folder{} not read (so not archived): {}{}",
                        c.passed.len(),
                        if c.passed.len() == 1 { "" } else { "s" },
                        named.join("; "),
                        if more > 0 {
                            format!("; and {more} more")
                        } else {
                            String::new()
                        }
                    ));
                }
                detail.push(')');
                let fix = if c.passed.is_empty() {
                    "links, FIFOs and devices there are never read; `claudio sessions list --all` names them"
                } else {
                    "a folder claudio cannot read, or a link to a folder that is not yours, is never read: fix its permissions, or move the folder back into place"
                };
                r.line(Level::Warn, "transcripts", &detail, Some(fix))
            }
            Err(e) => r.line(
                Level::Problem,
                "transcripts",
                &format!("{}: {e}", crate::cli::common::folder::shown(&dir)),
                Some("check the folder's permissions"),
            ),
        },
    }
}

/// The CLI's cleanup: the period in effect, what goes within a week, and
/// whether claudio keeps it.
fn check_cleanup(r: &mut Report, auto: bool) {
    use super::doctor::retention::{at_risk, period, SOON_DAYS};
    let Ok(store) = claudio::store::Store::open(None) else {
        return;
    };
    let cwd = std::env::current_dir().ok();
    let p = period(&crate::cli::common::settings::files(
        store.config_dir(),
        cwd.as_deref(),
    ));
    let from = match &p.from {
        Some(f) => format!(
            "cleanupPeriodDays in {}",
            crate::cli::common::folder::shown(f)
        ),
        None => "cleanupPeriodDays, the CLI's default".to_owned(),
    };
    if p.days == 0 {
        r.line(Level::Ok, "cleanup", &format!("off (0: {from})"), None);
        return;
    }
    let archive = crate::cli::common::archive::archive_dir();
    let risk = at_risk(
        &store.projects_dir(),
        p.days,
        archive.as_deref(),
        std::time::SystemTime::now(),
    );
    let mut detail = format!(
        "the CLI deletes transcripts older than {} days ({from}); in the next {SOON_DAYS} days: {} session{} ({})",
        p.days,
        risk.sessions,
        if risk.sessions == 1 { "" } else { "s" },
        crate::cli::term::text::human_size(risk.bytes)
    );
    if risk.unarchived > 0 {
        detail.push_str(&format!(", {} not archived", risk.unarchived));
    } else if risk.sessions > 0 {
        detail.push_str(", all archived");
    }
    let archive_text = archive.as_ref().map_or_else(
        || "claudio's archive".to_owned(),
        |d| d.display().to_string(),
    );
    if auto {
        detail.push_str(&format!("; archived automatically into {archive_text}"));
        r.line(Level::Ok, "cleanup", &detail, None);
    } else if risk.unarchived == 0 {
        // nothing of yours goes unkept this week: no alarm; the way to keep
        // them is said once, unless there is nothing to keep
        let empty = store_size(&store.projects_dir()).map_or(true, |c| c.sessions == 0);
        if !empty {
            detail.push_str(&format!(
                "; to keep them past it: `archive = \"auto\"` in the config file, into {archive_text}"
            ));
        }
        r.line(Level::Ok, "cleanup", &detail, None);
    } else {
        r.line(
            Level::Warn,
            "cleanup",
            &detail,
            Some(&format!(
                "keep them: `archive = \"auto\"` in the config file (or `claudio sessions archive` now), into {archive_text}"
            )),
        );
    }
}

/// What the store holds, as doctor counts it.
#[derive(Debug, Default, PartialEq, Eq)]
struct Count {
    /// Sessions (regular `.jsonl` files), in the project folders the store
    /// reads (links to a folder of the person's own included).
    sessions: u64,
    /// Their bytes.
    bytes: u64,
    /// Other entries named like transcripts (links, FIFOs, devices: never
    /// read, not counted).
    odd: u64,
    /// Project folders not read, with why: unreadable ones, and links to a
    /// folder of another user or to nothing.
    passed: Vec<super::doctor::retention::Passed>,
}

fn store_size(dir: &Path) -> std::io::Result<Count> {
    let (folders, passed) = super::doctor::retention::project_folders(dir)?;
    let mut c = Count {
        passed,
        ..Count::default()
    };
    for project in folders {
        let files = match std::fs::read_dir(&project) {
            Ok(rd) => rd,
            Err(e) => {
                c.passed.push((project, format!("cannot read it: {e}")));
                continue;
            }
        };
        for f in files.flatten() {
            let name = f.file_name();
            if !name.to_string_lossy().ends_with(".jsonl") {
                continue;
            }
            // the entry itself (a link is not followed)
            let Ok(meta) = f.metadata() else { continue };
            if meta.is_file() {
                c.sessions += 1;
                c.bytes += meta.len();
            } else if !meta.is_dir() {
                c.odd += 1;
            }
        }
    }
    c.passed.sort();
    Ok(c)
}

/// What the person's Claude Code settings run as the TUI's status line.
fn check_status_line(r: &mut Report) {
    let Some(dir) = claude_dir() else { return };
    let file = dir.join("settings.json");
    // a regular file of a settings file's size only, opened without
    // waiting: a FIFO in its place hung doctor
    let settings = match std::fs::metadata(&file) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        _ => match crate::cli::common::settings::read_small_text(&file, 1 << 20) {
            Some(text) => Some(text),
            None => {
                r.line(
                    Level::Warn,
                    "status line",
                    "cannot read ~/.claude/settings.json: not a readable regular file of at most 1 MiB",
                    None,
                );
                return;
            }
        },
    };
    let (level, detail, fix) =
        status_line_verdict(settings.as_deref(), crate::cli::common::notify::on_path);
    r.line(level, "status line", &detail, fix);
}

/// What to say of the status line the settings (`settings`, the text of
/// `~/.claude/settings.json` if there is one) name: `claudio statusline`
/// gets the faster `claudio-statusline` suggested; `claudio-statusline`
/// must be a program the TUI finds (`on_path`, or a path to one).
fn status_line_verdict(
    settings: Option<&str>,
    on_path: impl Fn(&str) -> bool,
) -> (Level, String, Option<&'static str>) {
    const SET_IT: &str = "set \"statusLine\": {\"type\": \"command\", \"command\": \"claudio-statusline\"} in ~/.claude/settings.json";
    let none = || {
        (
            Level::Ok,
            "none set (`claudio-statusline` shows the session's cost and the 5-hour window in the claude TUI)".to_owned(),
            None,
        )
    };
    let Some(settings) = settings else {
        return none();
    };
    let Ok(v) = serde_json::from_str::<serde_json::Value>(settings) else {
        return (
            Level::Warn,
            "~/.claude/settings.json is not JSON: Claude Code runs no status line".to_owned(),
            None,
        );
    };
    let Some(command) = v["statusLine"]["command"].as_str() else {
        return none();
    };
    // the variables set before the program (`TOKEN=... program`, a value
    // quoted or with spaces) may hold secrets: never shown; nor what the
    // shell runs after the first command (`; curl -H "Authorization: …"`)
    let (first, more) = first_command(command);
    let at = first
        .iter()
        .position(|w| w.raw.split_once('=').is_none_or(|(k, _)| k.is_empty()))
        .unwrap_or(first.len());
    let from_program = &first[at..];
    let program = from_program.first().map_or("", |w| w.word.as_str());
    let name = Path::new(program)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("");
    let mut shown = from_program
        .iter()
        .map(|w| w.raw.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    if more {
        shown.push_str(" …");
    }
    let shown = crate::cli::term::text::cut_width(&crate::cli::term::text::flat(&shown), 60);
    let mut words = from_program.iter().skip(1).map(|w| w.word.as_str());
    match name {
        "claudio" if words.next() == Some("statusline") => (
            Level::Warn,
            format!("{shown} (`claudio-statusline` prints the same line and starts faster)"),
            Some(SET_IT),
        ),
        "claudio-statusline" => {
            // the TUI runs the command in a shell, which expands a
            // leading `~` and `$HOME` (`~/.cargo/bin/claudio-statusline`)
            let expanded;
            let program = match ["~/", "$HOME/", "${HOME}/"]
                .iter()
                .find_map(|p| program.strip_prefix(p))
                .zip(std::env::var_os("HOME").filter(|h| !h.is_empty()))
            {
                Some((rest, home)) => {
                    expanded = Path::new(&home).join(rest);
                    expanded.to_str().unwrap_or(program)
                }
                None => program,
            };
            let found = if program.contains('/') {
                std::fs::metadata(program).is_ok_and(|m| {
                    use std::os::unix::fs::PermissionsExt;
                    m.is_file() && m.permissions().mode() & 0o111 != 0
                })
            } else {
                on_path(program)
            };
            if found {
                (Level::Ok, shown, None)
            } else {
                (
                    Level::Problem,
                    format!("{shown}: no such program, so the claude TUI shows no status line"),
                    Some("`cargo install` installs claudio-statusline beside claudio; or name it by its whole path"),
                )
            }
        }
        // another program's arguments may hold a token: its name alone
        _ => {
            let more = if more || words.next().is_some() {
                " …"
            } else {
                ""
            };
            // a program named by what a command prints (`$(…)`) is that
            // command, which may hold a token too
            let name = if program.contains("$(") || program.contains('`') {
                "a command's output".to_owned()
            } else {
                crate::cli::term::text::cut_width(&crate::cli::term::text::flat(program), 60)
            };
            (Level::Ok, format!("{name}{more} (not claudio's)"), None)
        }
    }
}

/// A word of a shell command: as written (`raw`, quotes and all) and as
/// the shell passes it on (`word`: quotes gone, escapes taken).
struct ShellWord {
    raw: String,
    word: String,
}

/// The words of the first simple command of `command`, as a POSIX shell
/// splits them (quotes, escapes, `$(…)`, `${…}` and backquotes keep their
/// spaces; only a space or a tab splits), and whether more follows it
/// (`;`, `&`, `|`, a redirection, a newline, a parenthesis).
fn first_command(command: &str) -> (Vec<ShellWord>, bool) {
    let mut words = Vec::new();
    let mut raw = String::new();
    let mut word = String::new();
    let mut chars = command.chars().peekable();
    // open `$(` and backquotes, and the quote in effect
    let mut depth = 0usize;
    let mut backquoted = false;
    let mut quote: Option<char> = None;
    let end = |raw: &mut String, word: &mut String, words: &mut Vec<ShellWord>| {
        if !raw.is_empty() {
            words.push(ShellWord {
                raw: std::mem::take(raw),
                word: std::mem::take(word),
            });
        }
    };
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some('\''), '\'') => quote = None,
            (Some('\''), _) => word.push(c),
            (_, '\\') if quote != Some('\'') => {
                raw.push(c);
                if let Some(n) = chars.next() {
                    raw.push(n);
                    word.push(n);
                }
                continue;
            }
            (Some('"'), '"') if depth == 0 && !backquoted => quote = None,
            (None, '\'' | '"') if depth == 0 && !backquoted => quote = Some(c),
            // `$(…)`, and `${…}` as it keeps its spaces too
            // (`AUTH=${T:-Bearer sk-…} program`)
            (_, '$') if matches!(chars.peek(), Some('(' | '{')) => {
                raw.push(c);
                word.push(c);
                let open = chars.next().unwrap_or('(');
                raw.push(open);
                word.push(open);
                depth += 1;
                continue;
            }
            (_, ')' | '}') if depth > 0 => {
                depth -= 1;
                word.push(c);
            }
            (_, '`') => {
                // a backquote opens or closes a command of its own
                backquoted = !backquoted;
                word.push(c);
            }
            // a blank: a space or a tab, as the shell's (a no-break
            // space is a word's letter there)
            (None, ' ' | '\t') if depth == 0 && !backquoted => {
                end(&mut raw, &mut word, &mut words);
                continue;
            }
            // a comment (`#` starting a word) is not run but may hold a
            // token all the same
            (None, '#') if depth == 0 && !backquoted && raw.is_empty() => {
                end(&mut raw, &mut word, &mut words);
                return (words, true);
            }
            (None, ';' | '&' | '|' | '<' | '>' | '(' | ')' | '\n') if depth == 0 && !backquoted => {
                end(&mut raw, &mut word, &mut words);
                return (words, true);
            }
            _ => word.push(c),
        }
        raw.push(c);
    }
    end(&mut raw, &mut word, &mut words);
    (words, false)
}

mod retention;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_compare() {
        assert!(version_tuple("2.1.9") < version_tuple("2.1.328"));
        assert!(version_tuple("2.2.0") > version_tuple("2.1.328"));
        assert_eq!(version_tuple("2.1.328"), vec![2, 1, 328]);
        // the supported range: oldest to newest tested
        assert!(version_tuple(TESTED_CLI_VERSION) < version_tuple(NEWEST_TESTED_CLI_VERSION));
        assert_eq!(NEWEST_TESTED_CLI_VERSION, "2.1.336");
    }

    /// The status line the settings name: none, claudio's slower spelling
    /// (the faster program suggested), claudio's program found or not on
    /// PATH or by its path, another program, settings that are not JSON.
    #[test]
    fn the_status_line_check_says_what_the_settings_run() {
        let on_path = |name: &str| name == "claudio-statusline";
        let nowhere = |_: &str| false;
        let verdict = |settings: Option<&str>, found: &dyn Fn(&str) -> bool| {
            let (level, detail, fix) = status_line_verdict(settings, found);
            (level, detail, fix.is_some())
        };
        let line =
            |c: &str| format!(r#"{{"statusLine": {{"type": "command", "command": "{c}"}}}}"#);
        let (l, d, fix) = verdict(None, &on_path);
        assert_eq!((l, fix), (Level::Ok, false));
        assert!(d.starts_with("none set"), "{d}");
        let (l, d, _) = verdict(Some(r#"{"model": "x"}"#), &on_path);
        assert!(l == Level::Ok && d.starts_with("none set"), "{d}");
        let (l, d, fix) = verdict(Some(&line("claudio statusline")), &on_path);
        assert_eq!((l, fix), (Level::Warn, true));
        assert!(
            d.starts_with("claudio statusline (`claudio-statusline`"),
            "{d}"
        );
        let (l, _, _) = verdict(
            Some(&line("/usr/local/bin/claudio statusline --format x")),
            &on_path,
        );
        assert_eq!(l, Level::Warn);
        assert_eq!(
            verdict(Some(&line("claudio-statusline")), &on_path),
            (Level::Ok, "claudio-statusline".to_owned(), false)
        );
        let (l, d, fix) = verdict(Some(&line("claudio-statusline --format {model}")), &nowhere);
        assert_eq!((l, fix), (Level::Problem, true));
        assert!(d.contains("no such program"), "{d}");
        let (l, _, _) = verdict(Some(&line("/nonexistent/claudio-statusline")), &on_path);
        assert_eq!(l, Level::Problem);
        let sh = std::path::Path::new("/bin/sh");
        if sh.is_file() {
            // a path to a program (any will do for the check)
            let dir = tempfile::tempdir().unwrap();
            let p = dir.path().join("claudio-statusline");
            std::os::unix::fs::symlink(sh, &p).unwrap();
            let (l, _, _) = verdict(Some(&line(&p.display().to_string())), &nowhere);
            assert_eq!(l, Level::Ok);
        }
        let (l, d, fix) = verdict(Some(&line("ccusage statusline")), &on_path);
        assert_eq!(
            (l, d.as_str(), fix),
            (Level::Ok, "ccusage … (not claudio's)", false)
        );
        // a token in another program's command line or in a variable set
        // before a program is never shown
        let (_, d, _) = verdict(
            Some(&line(
                "GH_TOKEN=ghp_secret1 npx ccusage statusline --token sk-ant-secret2",
            )),
            &on_path,
        );
        assert_eq!(d, "npx … (not claudio's)");
        assert_eq!(
            verdict(Some(&line("NO_COLOR=1 claudio-statusline")), &on_path),
            (Level::Ok, "claudio-statusline".to_owned(), false)
        );
        assert_eq!(
            verdict(
                Some(&line("K=x-claudio-statusline claudio-statusline")),
                &on_path
            ),
            (Level::Ok, "claudio-statusline".to_owned(), false)
        );
        // nor in a value quoted or with spaces, a program named by a
        // command's output, or a command after the first
        let json = |c: &str| serde_json::json!({"statusLine": {"command": c}}).to_string();
        for (command, want) in [
            (
                r#"AUTH="Bearer sk-ant-secret3" npx ccusage"#,
                "npx … (not claudio's)",
            ),
            ("T=$(echo sk-ant-secret4 x) npx", "npx (not claudio's)"),
            (
                "T='sk-ant-secret4 x' T2=`echo sk-ant-secret4 y` npx",
                "npx (not claudio's)",
            ),
            (
                "$(echo sk-ant-secret4) statusline",
                "a command's output … (not claudio's)",
            ),
            (
                "claudio-statusline; curl -H 'Authorization: Bearer sk-ant-secret5' x",
                "claudio-statusline …",
            ),
            (
                "claudio-statusline --format {model} # sk-ant-secret6",
                "claudio-statusline --format {model} …",
            ),
            (
                "claudio-statusline --format {model}|K=sk-ant-secret6 tee x",
                "claudio-statusline --format {model} …",
            ),
            // a parameter expansion keeps its spaces as `$(…)` does, and
            // only a space or a tab splits words (a no-break space does
            // not, an ideographic one neither)
            (
                "AUTH=${TOKEN:-Bearer sk-ant-secret8} npx ccusage",
                "npx … (not claudio's)",
            ),
            (
                "AUTH=${TOKEN:-${A:-x} sk-ant-secret8} npx",
                "npx (not claudio's)",
            ),
            (
                "AUTH=Bearer\u{a0}sk-ant-secret9 npx ccusage",
                "npx … (not claudio's)",
            ),
            (
                "AUTH=Bearer\u{3000}sk-ant-secret9 npx",
                "npx (not claudio's)",
            ),
            ("NO_COLOR=1\tclaudio-statusline", "claudio-statusline"),
        ] {
            let (_, d, _) = verdict(Some(&json(command)), &on_path);
            assert_eq!(d, want, "{command}");
        }
        let (l, d, _) = verdict(
            Some(&json("claudio statusline && x --api-key=sk-ant-secret7")),
            &on_path,
        );
        assert_eq!(l, Level::Warn);
        assert!(d.starts_with("claudio statusline … ("), "{d}");
        if sh.is_file() {
            // a quoted path with a space is the one program
            let dir = tempfile::tempdir().unwrap();
            let p = dir.path().join("my bin").join("claudio-statusline");
            std::fs::create_dir(p.parent().unwrap()).unwrap();
            std::os::unix::fs::symlink(sh, &p).unwrap();
            let (l, d, _) = verdict(Some(&json(&format!("'{}'", p.display()))), &nowhere);
            assert_eq!(l, Level::Ok, "{d}");
        }
        // a command's escape sequences are not shown
        let (_, d, _) = verdict(Some(&line("\\u001b]0;x\\u0007evil")), &on_path);
        assert!(!d.contains('\u{1b}') && !d.contains('\u{7}'), "{d:?}");
        let (l, _, _) = verdict(Some("{not json"), &on_path);
        assert_eq!(l, Level::Warn);
    }
}
