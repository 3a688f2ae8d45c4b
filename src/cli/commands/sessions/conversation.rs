//! A conversation as text for the terminal: who speaks and when, prompts,
//! answers, thinking (dimmed), each tool call on one line with the first
//! lines of its result. Transcript text is made inert on the way.

use crate::cli::sanitize::Sanitizer;
use crate::cli::term::style::Style;
use crate::cli::term::text::first_line;
use crate::cli::term::text::flat;
use crate::cli::term::text::more_lines;
use crate::cli::term::time::local_time;
use crate::cli::turn::summary::tool_summary;
use claudio::protocol::{ContentBlock, MessageContent, ToolResultBlock};
use claudio::store::{Entry, NoteKind, Said, SessionInfo};
use serde_json::Value;

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
/// when (with the date when it is a new day).
pub(super) fn body(entries: &[Entry], chain: Chain, st: Style) -> String {
    let mut w = Writer {
        out: String::new(),
        st,
        speaker: None,
        day: String::new(),
    };
    for s in claudio::store::steps(entries) {
        if (chain == Chain::Main && s.sidechain) || s.team {
            continue;
        }
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
                            w.tool_use(&t.name, &t.input);
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
}

impl Writer {
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
        self.out.push('\n');
        self.out.push_str(&name);
        if !when.is_empty() {
            self.out.push_str(&st.dim(&format!(" · {when}")));
        }
        self.out.push('\n');
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
            self.out.push_str(line);
            self.out.push('\n');
        }
    }

    /// A `!` command: `!command`, then what it printed under a `│` gutter.
    fn shell(&mut self, run: &claudio::store::ShellRun) {
        if let Some(cmd) = &run.command {
            for (i, line) in Sanitizer::clean(cmd).lines().enumerate() {
                self.out.push_str(if i == 0 { "!" } else { " " });
                self.out.push_str(line);
                self.out.push('\n');
            }
        }
        let printed = Sanitizer::clean(&format!("{}{}", run.stdout, run.stderr));
        for line in printed.trim_end().lines() {
            self.out.push_str(&self.st.dim(&format!("│ {line}")));
            self.out.push('\n');
        }
    }

    /// Thinking: marked `✻` and dimmed.
    fn thinking(&mut self, text: &str) {
        for (i, line) in Sanitizer::clean(text.trim_end()).lines().enumerate() {
            let mark = if i == 0 { "✻ " } else { "  " };
            self.out.push_str(&self.st.dim(&format!("{mark}{line}")));
            self.out.push('\n');
        }
    }

    /// An image or a document the person attached, as its marker.
    fn attached(&mut self, marker: &str) {
        self.out.push_str(&self.st.dim(marker));
        self.out.push('\n');
    }

    /// A tool call: its name and the gist of its input.
    fn tool_use(&mut self, name: &str, input: &Value) {
        let st = self.st;
        self.out.push_str(&format!(
            "  {} {} {}\n",
            st.dim("⏺"),
            st.bold(&flat(name)),
            flat(&tool_summary(name, input))
        ));
    }

    /// A tool result: its first lines, cut, red when it is an error.
    fn result(&mut self, r: &ToolResultBlock) {
        let st = self.st;
        let clean = Sanitizer::clean(&result_text(r));
        let lines: Vec<&str> = clean.lines().collect();
        let paint = |s: &str| if r.is_error() { st.red(s) } else { st.dim(s) };
        if lines.is_empty() {
            self.out
                .push_str(&format!("    {}\n", paint("⎿ (no output)")));
            return;
        }
        for (i, line) in lines.iter().take(RESULT_LINES).enumerate() {
            let mark = if i == 0 { "⎿ " } else { "  " };
            self.out.push_str(&format!(
                "    {}\n",
                paint(&format!("{mark}{}", first_line(line, RESULT_WIDTH)))
            ));
        }
        if lines.len() > RESULT_LINES {
            self.out.push_str(&format!(
                "    {}\n",
                st.dim(&format!("  {}", more_lines(lines.len() - RESULT_LINES)))
            ));
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
        let mut w = Writer {
            out: String::new(),
            st,
            speaker: None,
            day: String::new(),
        };
        for e in entries {
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
                                w.tool_use(&t.name, &t.input);
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
                let new = body(&conv.entries, Chain::Main, st);
                assert_eq!(
                    new,
                    old_body(&conv.entries, Chain::Main, st),
                    "{}",
                    f.display()
                );
                drawn += new.lines().count();
                let new = body(&lines, Chain::SubAgent, st);
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
            let new = body(&e, chain, Style::plain());
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
        let out = body(&e, Chain::Main, Style::plain());
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
        let out = body(&e, Chain::Main, Style::plain());
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
        let out = body(&e, Chain::Main, Style::plain());
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
}
