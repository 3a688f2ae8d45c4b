//! A conversation as text for the terminal: who speaks and when, prompts,
//! answers, thinking (dimmed), each tool call on one line with the first
//! lines of its result under it. Transcript text is made inert on the way.
//! On a terminal, lines are broken at spaces to its width, each keeping its
//! indent, and a result's lines are cut at it.

use crate::cli::sanitize::Sanitizer;
use crate::cli::term::style::Style;
use crate::cli::term::text::flat;
use crate::cli::term::text::more_lines;
use crate::cli::term::time::local_time;
use crate::cli::turn::summary::tool_summary;
use claudio::protocol::{ContentBlock, MessageContent, ToolResultBlock};
use claudio::store::{Entry, NoteKind, Said, SessionInfo, Step};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// Lines of a tool result shown, and the columns of each.
const RESULT_LINES: usize = 4;
const RESULT_WIDTH: usize = 160;

/// Which transcript the entries come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Chain {
    /// A session's own: entries of side chains are left out.
    Main,
    /// A sub-agent's: all side chain, all shown.
    SubAgent,
}

/// The first lines: the session's id, directory and branch, then its title.
pub(super) fn head(id: &str, info: Option<&SessionInfo>, st: Style) -> String {
    let mut head = format!("session {id}");
    if let Some(i) = info {
        if let Some(cwd) = &i.cwd {
            head.push_str(&format!(" · {}", flat(cwd)));
        }
        let branch = crate::cli::common::git::RecordedBranches::default()
            .shown(i.git_branch.as_deref(), i.cwd.as_deref());
        if let Some(b) = &branch {
            head.push_str(&format!(" · {}", flat(b)));
        }
        if i.from_archive {
            head.push_str(" · archived (the CLI deleted it)");
        }
    }
    let mut out = st.bold(&head);
    out.push('\n');
    if let Some(t) = info.and_then(|i| i.custom_title.as_deref()) {
        out.push_str(&st.bold(&flat(t)));
        out.push('\n');
    }
    out
}

/// The entries, oldest first: each turn under a line naming who speaks and
/// when (with the date when it is a new day). `width`: a terminal's, to
/// break lines at; none off a terminal.
pub(super) fn body(entries: &[Entry], chain: Chain, st: Style, width: Option<usize>) -> String {
    let mut w = Writer::new(entries, chain, st, width);
    for (at, s) in claudio::store::steps(entries).enumerate() {
        if skipped(&s, chain) {
            continue;
        }
        w.at = at;
        let ts = s.timestamp;
        match &s.said {
            // `!` commands, as the chat showed them, then the prompt sent
            // after them (it is the person's, not a note of the CLI's)
            Said::You { shell, prompt, .. } if !shell.is_empty() => {
                w.speaker(Speaker::You, ts);
                for run in shell {
                    w.shell(run);
                }
                // a side chain's entry is no prompt of the person's
                if let Some(p) = prompt.as_ref().filter(|_| !s.sidechain) {
                    w.text(p);
                }
            }
            Said::Note {
                kind: NoteKind::Meta,
                ..
            } => {}
            // the CLI telling the model a background task ended: no words
            // of the person's; the chat's history and export leave it out
            Said::Note {
                kind: NoteKind::Notice,
                content: Some(c),
            } if is_task_notification(c) => {}
            Said::You { content, .. }
            | Said::Note {
                content: Some(content),
                ..
            }
            | Said::Results(content) => w.user(content, ts),
            Said::Answer(blocks) => {
                for b in blocks {
                    match b {
                        ContentBlock::Text(t) => {
                            w.speaker(Speaker::Claude, ts);
                            w.text(&t.text);
                        }
                        ContentBlock::Thinking(t) if !t.thinking.trim().is_empty() => {
                            w.speaker(Speaker::Claude, ts);
                            w.thinking(&t.thinking);
                        }
                        ContentBlock::ToolUse(t) => {
                            w.speaker(Speaker::Claude, ts);
                            w.tool_use(&t.name, &t.input, &t.id);
                        }
                        _ => {}
                    }
                }
            }
            Said::Compacted => w.compacted(),
            Said::Queued(p) => {
                w.speaker(Speaker::You, ts);
                w.text(p);
            }
            _ => {}
        }
    }
    w.out
}

/// Whether a step is left out of `chain`'s drawing: a side chain's in the
/// session's own, a team member's in any.
fn skipped(s: &Step<'_>, chain: Chain) -> bool {
    (chain == Chain::Main && s.sidechain) || s.team
}

/// The tool results drawn, each by the id of the call it answers (the
/// first for an id), with the index of the entry that holds it. The CLI
/// writes a turn's calls before their results, so a result drawn where it
/// stands sat under the last call, not its own.
fn results_by_call(entries: &[Entry], chain: Chain) -> HashMap<String, (usize, ToolResultBlock)> {
    let mut found = HashMap::new();
    for (at, s) in claudio::store::steps(entries).enumerate() {
        if skipped(&s, chain) {
            continue;
        }
        let content = match &s.said {
            Said::You { shell, .. } if !shell.is_empty() => continue,
            Said::Note {
                kind: NoteKind::Meta,
                ..
            } => continue,
            Said::You { content, .. }
            | Said::Note {
                content: Some(content),
                ..
            }
            | Said::Results(content) => content,
            _ => continue,
        };
        if let MessageContent::Blocks(blocks) = content {
            for b in blocks {
                if let ContentBlock::ToolResult(r) = b {
                    found
                        .entry(r.tool_use_id.clone())
                        .or_insert_with(|| (at, (**r).clone()));
                }
            }
        }
    }
    found
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Speaker {
    You,
    Claude,
}

/// The text being written, and who spoke last on which day.
struct Writer {
    out: String,
    st: Style,
    speaker: Option<Speaker>,
    day: String,
    /// The terminal's width, when drawn for one.
    width: Option<usize>,
    /// The index of the entry being drawn.
    at: usize,
    /// The results not drawn yet, by their call's id ([`results_by_call`]).
    results: HashMap<String, (usize, ToolResultBlock)>,
    /// The calls whose result was drawn under them: it is not drawn again
    /// where it stands.
    drawn: HashSet<String>,
}

impl Writer {
    fn new(entries: &[Entry], chain: Chain, st: Style, width: Option<usize>) -> Writer {
        Writer {
            out: String::new(),
            st,
            speaker: None,
            day: String::new(),
            width,
            at: 0,
            results: results_by_call(entries, chain),
            drawn: HashSet::new(),
        }
    }

    /// A line of text, broken at spaces to the terminal's width (each row
    /// keeping the line's indent, later rows after `rest` too).
    fn line(&mut self, line: &str, rest: &str) {
        match self.width {
            Some(w) => {
                for row in crate::cli::term::wrap::wrap(&for_terminal(line), w, "", rest) {
                    self.out.push_str(&row);
                    self.out.push('\n');
                }
            }
            None => {
                self.out.push_str(line);
                self.out.push('\n');
            }
        }
    }

    /// A line naming the speaker and the time, unless they are still speaking.
    fn speaker(&mut self, who: Speaker, ts: Option<&str>) {
        if self.speaker == Some(who) {
            return;
        }
        self.speaker = Some(who);
        let st = self.st;
        let when = ts
            .and_then(claudio::store::parse_iso_millis)
            .map(|ms| {
                let (d, t) = local_time(ms);
                if d != self.day {
                    self.day = d.clone();
                    format!("{d} {t}")
                } else {
                    t
                }
            })
            .unwrap_or_default();
        let name = match who {
            Speaker::You => st.bold(&st.green("you")),
            Speaker::Claude => st.bold(&st.cyan("claude")),
        };
        let mut line = name;
        if !when.is_empty() {
            line.push_str(&st.dim(&format!(" · {when}")));
        }
        self.out.push('\n');
        self.line(&line, "");
    }

    /// A user message's content: its text, tool results, and what was
    /// attached, in order.
    fn user(&mut self, content: &MessageContent, ts: Option<&str>) {
        match content {
            MessageContent::Text(s) => self.said(s, ts),
            MessageContent::Blocks(blocks) => {
                for b in blocks {
                    match b {
                        ContentBlock::ToolResult(r) => self.result(r),
                        ContentBlock::Text(t) => self.said(&t.text, ts),
                        ContentBlock::Image(i) => {
                            self.speaker(Speaker::You, ts);
                            self.attached(&super::images::marker(&i.source.to_value()));
                        }
                        b if b.kind() == "document" => {
                            self.speaker(Speaker::You, ts);
                            self.attached("[document]");
                        }
                        _ => {}
                    }
                }
            }
        }
    }

    /// A user message's text: the person's, under their name; the CLI's
    /// note that the turn was interrupted, as its own line.
    fn said(&mut self, text: &str, ts: Option<&str>) {
        // white space alone is no prompt (the listing's, the export's and
        // the claude TUI's rule): no "you" over nothing
        if claudio::store::trim_prompt(text).is_empty() {
            return;
        }
        if is_interruption(text) {
            self.interrupted();
        } else {
            self.speaker(Speaker::You, ts);
            self.text(text);
        }
    }

    /// Text, made inert, line by line.
    fn text(&mut self, text: &str) {
        for line in Sanitizer::clean(text.trim_end()).lines() {
            self.line(line, "");
        }
    }

    /// A `!` command: `!command`, then what it printed under a `│` gutter.
    fn shell(&mut self, run: &claudio::store::ShellRun) {
        if let Some(cmd) = &run.command {
            for (i, line) in Sanitizer::clean(cmd).lines().enumerate() {
                let mark = if i == 0 { "!" } else { " " };
                self.line(&format!("{mark}{line}"), " ");
            }
        }
        let printed = Sanitizer::clean(&format!("{}{}", run.stdout, run.stderr));
        for line in printed.trim_end().lines() {
            let row = self.st.dim(&format!("│ {line}"));
            self.line(&row, "│ ");
        }
    }

    /// Thinking: marked `✻` and dimmed.
    fn thinking(&mut self, text: &str) {
        for (i, line) in Sanitizer::clean(text.trim_end()).lines().enumerate() {
            let mark = if i == 0 { "✻ " } else { "  " };
            let row = self.st.dim(&format!("{mark}{line}"));
            self.line(&row, "  ");
        }
    }

    /// An image or a document the person attached, as its marker.
    fn attached(&mut self, marker: &str) {
        self.out.push_str(&self.st.dim(marker));
        self.out.push('\n');
    }

    /// A tool call: its name and the gist of its input; then its result,
    /// when a later entry holds it.
    fn tool_use(&mut self, name: &str, input: &Value, id: &str) {
        let st = self.st;
        let row = format!(
            "  {} {} {}",
            st.dim("⏺"),
            st.bold(&flat(name)),
            flat(&tool_summary(name, input))
        );
        self.line(&row, "    ");
        let later = self.results.get(id).is_some_and(|(at, _)| *at > self.at);
        if let Some((_, r)) = later.then(|| self.results.remove(id)).flatten() {
            self.draw_result(&r);
            self.drawn.insert(id.to_owned());
        }
    }

    /// A tool result where it stands, unless it was drawn under its call.
    fn result(&mut self, r: &ToolResultBlock) {
        if !self.drawn.remove(&r.tool_use_id) {
            self.draw_result(r);
        }
    }

    /// A tool result: its first lines, each kept as indented and cut (at
    /// the terminal's width on one), red when it is an error.
    fn draw_result(&mut self, r: &ToolResultBlock) {
        let st = self.st;
        let clean = Sanitizer::clean(&result_text(r));
        let lines: Vec<&str> = clean.lines().collect();
        let paint = |s: &str| if r.is_error() { st.red(s) } else { st.dim(s) };
        let mut rows = Vec::new();
        if lines.is_empty() {
            rows.push(format!("    {}", paint("⎿ (no output)")));
        }
        for (i, line) in lines.iter().take(RESULT_LINES).enumerate() {
            let mark = if i == 0 { "⎿ " } else { "  " };
            rows.push(format!("    {}", paint(&format!("{mark}{}", cut(line)))));
        }
        if lines.len() > RESULT_LINES {
            rows.push(format!(
                "    {}",
                st.dim(&format!("  {}", more_lines(lines.len() - RESULT_LINES)))
            ));
        }
        for row in rows {
            match self.width {
                Some(w) => self.out.push_str(&crate::cli::term::wrap::fit_row(&row, w)),
                None => self.out.push_str(&row),
            }
            self.out.push('\n');
        }
    }

    /// Where the person interrupted a turn (the CLI's note
    /// `[Request interrupted by user]`): a line of no speaker's, worded
    /// as the chat says it; whoever speaks next is named again.
    fn interrupted(&mut self) {
        let line = self.st.dim("⏹ interrupted");
        self.out.push_str(&format!("  {line}\n"));
        self.speaker = None;
    }

    /// The line where the CLI compacted the conversation.
    fn compacted(&mut self) {
        let line = self.st.dim("── conversation compacted ──");
        self.out.push_str(&format!("\n{line}\n"));
        self.speaker = None;
    }
}

/// A line as a terminal is given it (threats.md class 11): tabs as
/// spaces, without the characters terminals count otherwise than claudio
/// ([`crate::cli::term::wrap::disputed`]). A tab counted as no column took
/// eight, and the terminal wrapped the row to its first column.
pub(super) fn for_terminal(line: &str) -> String {
    crate::cli::term::wrap::undisputed(line).replace('\t', "    ")
}

/// A result's line as shown: its indent kept, its end trimmed, tabs as
/// spaces, at most [`RESULT_WIDTH`] characters (`…` when more).
fn cut(line: &str) -> String {
    let line = line.trim_end();
    let mut out: String = line
        .chars()
        .take(RESULT_WIDTH)
        .map(|c| if c == '\t' { ' ' } else { c })
        .collect();
    if line.chars().count() > RESULT_WIDTH {
        out.push('…');
    }
    out
}

/// Whether a user message's text is the CLI's note that the person
/// interrupted the turn (`[Request interrupted by user]`, `… for tool
/// use]`), not words of theirs.
fn is_interruption(text: &str) -> bool {
    let t = text.trim();
    t.starts_with("[Request interrupted by user") && claudio::store::is_cli_note(t)
}

/// Whether a user message is the CLI's `<task-notification>` (a
/// background task or sub-agent ended), which it sends the model.
fn is_task_notification(content: &MessageContent) -> bool {
    let text = match content {
        MessageContent::Text(s) => s.as_str(),
        MessageContent::Blocks(b) => match b.first() {
            Some(ContentBlock::Text(t)) => t.text.as_str(),
            _ => return false,
        },
    };
    text.trim_start().starts_with("<task-notification>")
}

/// A tool result's text: the string, or its parts one per line, each one
/// that is not text shown as its kind (`[image]`).
fn result_text(r: &ToolResultBlock) -> String {
    match &r.content {
        Some(MessageContent::Text(s)) => s.clone(),
        Some(MessageContent::Blocks(parts)) => parts
            .iter()
            .map(|p| match p {
                ContentBlock::Text(t) => t.text.clone(),
                // no kind, or text of the wrong shape: nothing to show
                p if matches!(p.kind(), "" | "text") => String::new(),
                p => format!("[{}]", p.kind()),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The body as it was before the store's typed walk, kept as the
    /// oracle.
    fn old_body(entries: &[Entry], chain: Chain, st: Style) -> String {
        let mut w = Writer::new(entries, chain, st, None);
        for (at, e) in entries.iter().enumerate() {
            w.at = at;
            let v = &e.value;
            let side = chain == Chain::Main && v.get("isSidechain") == Some(&Value::Bool(true));
            if side || matches!(v.get("teamName"), Some(Value::String(s)) if !s.is_empty()) {
                continue;
            }
            let ts = e.timestamp();
            let runs = e.shell_runs();
            match e.kind() {
                // `!` commands, as the chat showed them, then the prompt sent
                // after them (it is the person's, not a note of the CLI's)
                "user" if !runs.is_empty() => {
                    w.speaker(Speaker::You, ts);
                    for run in &runs {
                        w.shell(run);
                    }
                    if let Some(p) = e.prompt() {
                        w.text(&p);
                    }
                }
                // changed from the old walk in two cases only: an
                // interruption note is drawn as its own line (`said`), and
                // a task notification is left out
                "user" if e.content().is_some_and(|c| is_task_notification(&c)) => {}
                "user" if v.get("isMeta") != Some(&Value::Bool(true)) => match e.content() {
                    Some(MessageContent::Text(s)) => w.said(&s, ts),
                    Some(MessageContent::Blocks(blocks)) => {
                        for b in &blocks {
                            match b {
                                ContentBlock::ToolResult(r) => w.result(r),
                                ContentBlock::Text(t) => w.said(&t.text, ts),
                                ContentBlock::Image(i) => {
                                    w.speaker(Speaker::You, ts);
                                    w.attached(&super::super::images::marker(&i.source.to_value()));
                                }
                                b if b.kind() == "document" => {
                                    w.speaker(Speaker::You, ts);
                                    w.attached("[document]");
                                }
                                _ => {}
                            }
                        }
                    }
                    None => {}
                },
                "assistant" => {
                    let Some(MessageContent::Blocks(blocks)) = e.content() else {
                        continue;
                    };
                    for b in &blocks {
                        match b {
                            ContentBlock::Text(t) => {
                                w.speaker(Speaker::Claude, ts);
                                w.text(&t.text);
                            }
                            ContentBlock::Thinking(t) if !t.thinking.trim().is_empty() => {
                                w.speaker(Speaker::Claude, ts);
                                w.thinking(&t.thinking);
                            }
                            ContentBlock::ToolUse(t) => {
                                w.speaker(Speaker::Claude, ts);
                                w.tool_use(&t.name, &t.input, &t.id);
                            }
                            _ => {}
                        }
                    }
                }
                "system"
                    if v.get("subtype").and_then(Value::as_str) == Some("compact_boundary") =>
                {
                    w.compacted();
                }
                "attachment"
                    if v.pointer("/attachment/type").and_then(Value::as_str)
                        == Some("queued_command") =>
                {
                    if let Some(p) = v.pointer("/attachment/prompt").and_then(Value::as_str) {
                        w.speaker(Speaker::You, ts);
                        w.text(p);
                    }
                }
                _ => {}
            }
        }
        w.out
    }

    /// `sessions inspect` draws each session under tests/fixtures (and its
    /// sub-agents' transcripts), and entries of every kind, as the old walk
    /// by key drew them.
    #[test]
    fn the_typed_walk_draws_as_the_old_one() {
        let files = crate::cli::commands::sessions::testing::fixture_transcripts();
        let mut drawn = 0;
        for f in &files {
            let conv = claudio::store::read_conversation(f).unwrap();
            let lines: Vec<Entry> = std::fs::read_to_string(f)
                .unwrap()
                .lines()
                .filter_map(|l| Entry::parse(l).ok())
                .collect();
            for st in [
                Style::plain(),
                Style::decide(crate::cli::args::ColorChoice::Always, false),
            ] {
                let new = body(&conv.entries, Chain::Main, st, None);
                assert_eq!(
                    new,
                    old_body(&conv.entries, Chain::Main, st),
                    "{}",
                    f.display()
                );
                drawn += new.lines().count();
                let new = body(&lines, Chain::SubAgent, st, None);
                assert_eq!(
                    new,
                    old_body(&lines, Chain::SubAgent, st),
                    "{}",
                    f.display()
                );
            }
        }
        assert!(drawn > 50, "{drawn} rows");
        let e: Vec<Entry> = [
            serde_json::json!({"type":"user","message":{"content":[{"type":"text","text":"look"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA"}},{"type":"document","source":{}}]}}),
            serde_json::json!({"type":"user","isMeta":true,"message":{"content":"caveat"}}),
            serde_json::json!({"type":"user","isCompactSummary":true,"message":{"content":"summary"}}),
            serde_json::json!({"type":"user","isCompactSummary":true}),
            serde_json::json!({"type":"user","message":{"content":"<task-notification>t</task-notification>"}}),
            serde_json::json!({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","is_error":true,"content":"bad"}]}}),
            serde_json::json!({"type":"user","message":{"content":"<bash-input>ls</bash-input>"}}),
            serde_json::json!({"type":"system","subtype":"compact_boundary"}),
            serde_json::json!({"type":"attachment","attachment":{"type":"queued_command","prompt":"next"}}),
            serde_json::json!({"type":"assistant","message":{"content":[{"type":"thinking","thinking":"hm"},{"type":"tool_use","id":"t","name":"Bash","input":{"command":"ls"}},{"type":"text","text":"ok"}]}}),
            serde_json::json!({"type":"assistant","message":{"content":"plain"}}),
            serde_json::json!({"type":"user","isSidechain":true,"message":{"content":"side"}}),
            serde_json::json!({"type":"user","teamName":"t","message":{"content":"team"}}),
            serde_json::json!({"type":"user","message":{"content":"[Request interrupted by user]"}}),
            serde_json::json!({"type":"user","message":{"content":[{"type":"text","text":"[Request interrupted by user for tool use]"}]}}),
        ]
        .iter()
        .map(|v| Entry::parse(&v.to_string()).unwrap())
        .collect();
        for chain in [Chain::Main, Chain::SubAgent] {
            let new = body(&e, chain, Style::plain(), None);
            assert_eq!(new, old_body(&e, chain, Style::plain()));
            assert!(new.contains("[document]") && new.contains("next"), "{new}");
            assert!(!new.contains("[Request interrupted"), "{new}");
        }
    }

    /// The CLI's `<task-notification>` (a background task ended) is left
    /// out, as the chat's history and export leave it out: it was shown
    /// under "you", as if the person had typed it.
    #[test]
    fn a_task_notification_is_not_the_persons_words() {
        let e: Vec<Entry> = [
            r#"{"type":"user","timestamp":"2020-01-02T10:00:00.000Z","message":{"content":"run the tests in the background"}}"#,
            r#"{"type":"assistant","timestamp":"2020-01-02T10:00:01.000Z","message":{"content":[{"type":"text","text":"Started."}]}}"#,
            r#"{"type":"user","timestamp":"2020-01-02T10:00:09.000Z","message":{"content":"<task-notification>\n<task-id>b1</task-id>\n<status>completed</status>\n<summary>Background command completed</summary>\n</task-notification>"}}"#,
            r#"{"type":"assistant","timestamp":"2020-01-02T10:00:10.000Z","message":{"content":[{"type":"text","text":"They passed."}]}}"#,
            r#"{"type":"user","timestamp":"2020-01-02T10:00:11.000Z","message":{"content":[{"type":"text","text":"<task-notification><status>failed</status></task-notification>"}]}}"#,
        ]
        .iter()
        .map(|l| Entry::parse(l).unwrap())
        .collect();
        let out = body(&e, Chain::Main, Style::plain(), None);
        assert!(!out.contains("task-notification"), "{out}");
        assert!(!out.contains("status"), "{out}");
        assert_eq!(
            out.lines().filter(|l| l.starts_with("you")).count(),
            1,
            "{out}"
        );
        assert!(
            out.contains(
                "Started.
They passed.
"
            ),
            "{out}"
        );
    }

    /// `sessions show` draws a `!` command as the chat did, and the prompt
    /// sent after it as a prompt (it printed the raw tags).
    #[test]
    fn shell_commands_are_shown_as_the_chat_showed_them() {
        let e: Vec<Entry> = [
            r#"{"type":"user","message":{"content":"<bash-input>ls</bash-input>\n<bash-stdout>a.txt\n</bash-stdout><bash-stderr></bash-stderr>\n\nwhy a.txt?"}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":"Because."}]}}"#,
            r#"{"type":"user","message":{"content":"<bash-input>pwd</bash-input>"}}"#,
            r#"{"type":"user","message":{"content":"<bash-stdout>/w</bash-stdout><bash-stderr></bash-stderr>"}}"#,
        ]
        .iter()
        .map(|l| Entry::parse(l).unwrap())
        .collect();
        let out = body(&e, Chain::Main, Style::plain(), None);
        assert!(!out.contains("<bash"), "{out}");
        assert!(out.contains("!ls\n│ a.txt\nwhy a.txt?\n"), "{out}");
        assert!(out.contains("!pwd\n│ /w\n"), "{out}");
    }

    /// An interrupted turn: the CLI's note is drawn as the chat draws an
    /// interruption, on a line of its own, not as words the person typed
    /// under "you"; the next prompt is under "you" again.
    #[test]
    fn an_interruption_is_its_own_line_not_the_persons_words() {
        let e: Vec<Entry> = [
            r#"{"type":"user","timestamp":"2020-01-02T10:00:00.000Z","message":{"content":"fix it"}}"#,
            r#"{"type":"assistant","timestamp":"2020-01-02T10:00:01.000Z","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"make"}}]}}"#,
            r#"{"type":"user","timestamp":"2020-01-02T10:00:02.000Z","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"The user doesn't want to proceed with this tool use."}]}}"#,
            r#"{"type":"user","timestamp":"2020-01-02T10:00:02.000Z","message":{"content":[{"type":"text","text":"[Request interrupted by user for tool use]"}]}}"#,
            r#"{"type":"user","timestamp":"2020-01-02T10:00:03.000Z","message":{"content":"now just read it"}}"#,
            r#"{"type":"assistant","timestamp":"2020-01-02T10:00:04.000Z","message":{"content":[{"type":"text","text":"Reading."}]}}"#,
            r#"{"type":"user","timestamp":"2020-01-02T10:00:05.000Z","message":{"content":"[Request interrupted by user]"}}"#,
            r#"{"type":"user","timestamp":"2020-01-02T10:00:06.000Z","message":{"content":"stop"}}"#,
        ]
        .iter()
        .map(|l| Entry::parse(l).unwrap())
        .collect();
        let out = body(&e, Chain::Main, Style::plain(), None);
        assert!(!out.contains("[Request interrupted"), "{out}");
        assert_eq!(out.matches("  ⏹ interrupted\n").count(), 2, "{out}");
        // each prompt after an interruption is under its own "you" line
        let you = |p: &str| {
            out.lines()
                .zip(out.lines().skip(1))
                .any(|(h, l)| h.starts_with("you") && l == p)
        };
        assert!(you("now just read it") && you("stop"), "{out}");
        assert_eq!(
            out.lines().filter(|l| l.starts_with("you")).count(),
            3,
            "{out}"
        );
        // the tool's refusal stays under the call it answered
        let refused = out.find("⎿ The user doesn't want").unwrap();
        assert!(refused < out.find("⏹ interrupted").unwrap(), "{out}");
    }

    fn entries(lines: &[&str]) -> Vec<Entry> {
        lines.iter().map(|l| Entry::parse(l).unwrap()).collect()
    }

    /// Calls made together are written before their results: each result
    /// is drawn under its own call (the first call's sat under the last
    /// call), once; a result whose call is not drawn stays where it is.
    #[test]
    fn each_result_is_under_its_own_call() {
        let e = entries(&[
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t0","content":"early"}]}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"a.py"}}]}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"make"}},{"type":"tool_use","id":"t0","name":"Bash","input":{"command":"late"}}]}}"#,
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"def f():"}]}}"#,
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t2","is_error":true,"content":"Exit code 2"},{"type":"tool_result","tool_use_id":"t9","content":"orphan"}]}}"#,
            r#"{"type":"user","isSidechain":true,"message":{"content":[{"type":"tool_result","tool_use_id":"t3","content":"side"}]}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t3","name":"Bash","input":{"command":"ls"}}]}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":"Done."}]}}"#,
        ]);
        let out = body(&e, Chain::Main, Style::plain(), None);
        let want = "    ⎿ early

claude
  ⏺ Read a.py
    ⎿ def f():
  ⏺ Bash make
    ⎿ Exit code 2
  ⏺ Bash late
    ⎿ orphan
  ⏺ Bash ls
Done.
";
        assert_eq!(out, want);
    }

    /// A prompt of white space alone (JavaScript's, as the claude TUI
    /// trims) is no prompt, as the listing and the export take it: no
    /// "you" line over nothing.
    #[test]
    fn a_prompt_of_white_space_alone_is_not_drawn() {
        let e = entries(&[
            r#"{"type":"user","message":{"content":" \n\t\ufeff"}}"#,
            r#"{"type":"user","message":{"content":[{"type":"text","text":"\u2028 "}]}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":"Hello."}]}}"#,
            r#"{"type":"user","message":{"content":" thanks "}}"#,
        ]);
        let out = body(&e, Chain::Main, Style::plain(), None);
        assert_eq!(out, "\nclaude\nHello.\n\nyou\n thanks\n");
    }

    /// A result's lines keep their indent (a traceback's lines were drawn
    /// flush), tabs as spaces, their ends trimmed.
    #[test]
    fn a_result_keeps_its_lines_indent() {
        let e = entries(&[
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"python3 t.py"}}]}}"#,
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"Traceback (most recent call last):\n  File \"t.py\", line 2  \n    assert f()\n1\tx"}]}}"#,
        ]);
        let out = body(&e, Chain::Main, Style::plain(), None);
        assert!(
            out.ends_with(
                "    ⎿ Traceback (most recent call last):\n        File \"t.py\", line 2\n          assert f()\n      1 x\n"
            ),
            "{out}"
        );
    }

    /// On a terminal every row fits its width, in colour or not: text is
    /// broken at spaces with its indent (a list item's under its text),
    /// nothing of it lost; a result's line is cut with `…`.
    #[test]
    fn on_a_terminal_every_row_fits_and_text_is_broken_at_spaces() {
        use crate::cli::term::wrap::{strip_sgr, visible_width};
        let long = "word ".repeat(40);
        let text = format!("{long}\n1. {long}\n");
        let e = entries(&[
            &serde_json::json!({"type":"user","timestamp":"2020-01-02T10:00:00.000Z","message":{"content":text}}).to_string(),
            &serde_json::json!({"type":"assistant","message":{"content":[{"type":"thinking","thinking":long},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":long}}]}}).to_string(),
            &serde_json::json!({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":format!("  {long}\n\tx")}]}}).to_string(),
            &serde_json::json!({"type":"assistant","message":{"content":[{"type":"text","text":format!("- {long}")}]}}).to_string(),
        ]);
        for st in [
            Style::plain(),
            Style::decide(crate::cli::args::ColorChoice::Always, false),
        ] {
            for width in [20, 33, 40, 80, 119] {
                let out = body(&e, Chain::Main, st, Some(width));
                for row in out.lines() {
                    assert!(visible_width(row) <= width, "{width}: {row:?}\n{out}");
                }
                let plain = strip_sgr(&out);
                // every word of the prompt is there, none broken
                let said = plain.split("\nclaude").next().unwrap().lines();
                let said =
                    said.filter(|l| l.trim_start().starts_with("word") || l.starts_with("1. "));
                let words: Vec<&str> = said.flat_map(str::split_whitespace).collect();
                assert_eq!(
                    words.iter().filter(|w| **w == "word").count(),
                    80,
                    "{plain}"
                );
                assert!(words.iter().all(|w| ["word", "1."].contains(w)), "{plain}");
                // a list item's later rows start under its text
                let item = plain.lines().position(|l| l.starts_with("1. ")).unwrap();
                assert!(
                    plain.lines().nth(item + 1).unwrap().starts_with("   word"),
                    "{plain}"
                );
                // the result's first line: one row, cut, its indent kept
                let first = plain.lines().find(|l| l.contains("⎿")).unwrap();
                assert!(
                    first.starts_with("    ⎿   word") && first.ends_with('…'),
                    "{first:?}"
                );
            }
        }
    }

    /// On a terminal, no row is wider than it as the terminal draws it
    /// (threats.md class 11): a tab in a prompt, a thought, a command's
    /// output or a tool's summary took no column in the count and eight on
    /// the screen, and a character terminals count otherwise was written,
    /// so that the terminal wrapped the row to its first column.
    #[test]
    fn on_a_terminal_no_row_wraps_with_tabs_or_disputed_characters() {
        let hard = super::super::testing::HARD_TITLES.join(" ");
        let tabbed = format!("a\tb\tc\td\te\tf\tg\th {hard}");
        let e = entries(&[
            &serde_json::json!({"type":"user","message":{"content":tabbed}}).to_string(),
            &serde_json::json!({"type":"assistant","message":{"content":[{"type":"thinking","thinking":tabbed},{"type":"text","text":tabbed},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":tabbed}}]}}).to_string(),
            &serde_json::json!({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":tabbed}]}}).to_string(),
        ]);
        for width in [20u16, 33, 80] {
            let out = body(&e, Chain::Main, Style::plain(), Some(usize::from(width)));
            let screen = super::super::testing::drawn_undisputed(&out, width);
            assert!(!out.contains('\t'), "{out}");
            for line in out.lines() {
                let mut one = vt100::Parser::new(4, width, 0);
                one.process(line.as_bytes());
                assert_eq!(one.screen().cursor_position().0, 0, "{width}: {line:?}");
            }
            drop(screen);
        }
    }
}
