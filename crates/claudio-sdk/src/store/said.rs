//! What a transcript's entries say, read once and typed: the one walk over a
//! conversation that the program's screens (`sessions inspect`, the chat's
//! resumed history, `/rewind`) share.

use super::chain::{is_js_space, js_trim, split_shell, Conversation, Entry, ShellRun};
use super::scan::is_cli_note;
use crate::protocol::{ContentBlock, Message, MessageContent};
use serde_json::Value;

/// What one transcript entry says ([`Entry::said`]).
///
/// ```
/// use claudio::store::{Entry, NoteKind, Said};
/// let typed = Entry::parse(r#"{"type":"user","message":{"content":"fix it"}}"#)?;
/// assert!(matches!(typed.said(), Said::You { prompt: Some(p), .. } if p == "fix it"));
/// let note = Entry::parse(r#"{"type":"user","message":{"content":"[Request interrupted by user]"}}"#)?;
/// assert!(matches!(note.said(), Said::Note { kind: NoteKind::Notice, .. }));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Said {
    /// The person: the `!` commands run or sent in front of a prompt (as
    /// the claude TUI and claudio's chat write them), then the prompt typed.
    You {
        /// The `!` commands, first to last (often none).
        shell: Vec<ShellRun>,
        /// The prompt: the message's text (its text blocks joined by a
        /// newline), the `!` commands left out. `None` when the commands
        /// came alone, or with a note of the CLI's after them.
        prompt: Option<String>,
        /// The message's content as sent: its images and documents among
        /// its text blocks.
        content: MessageContent,
    },
    /// A user entry the CLI wrote itself, not the person.
    Note {
        /// Which kind of note.
        kind: NoteKind,
        /// Its content (`None` when it has none the protocol reads).
        content: Option<MessageContent>,
    },
    /// Any other user message: tool results, or an image sent with no
    /// text.
    Results(MessageContent),
    /// The assistant's content blocks: text, thinking, tool calls.
    Answer(Vec<ContentBlock>),
    /// The line where the CLI compacted the conversation
    /// (`compact_boundary`).
    Compacted,
    /// A prompt the person typed while a turn ran, queued by the CLI (an
    /// attachment of type `queued_command`).
    Queued(String),
    /// Any other entry: progress, other attachments and system lines, a
    /// message with no content.
    Other,
}

/// The kinds of [`Said::Note`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum NoteKind {
    /// A meta entry (`isMeta`): a local command's caveat, a skill's text.
    Meta,
    /// The summary the CLI wrote when it compacted the conversation
    /// (`isCompactSummary`).
    CompactSummary,
    /// A note in the CLI's own tags ([`is_cli_note`]): a
    /// `<task-notification>`, a local command and its output, an
    /// interruption.
    Notice,
}

impl Said {
    /// Whether this is a user entry the CLI wrote, not the person: a
    /// [`Note`](Said::Note), or `!` commands with no prompt after them.
    pub fn is_note(&self) -> bool {
        matches!(self, Said::Note { .. } | Said::You { prompt: None, .. })
    }
}

/// One entry of a conversation, with what it says: the items of
/// [`Conversation::steps`] and [`steps`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Step<'e> {
    /// The entry.
    pub entry: &'e Entry,
    /// Its `uuid` (empty when it has none).
    pub uuid: &'e str,
    /// Its `timestamp`, if any.
    pub timestamp: Option<&'e str>,
    /// Whether it belongs to a side chain (`isSidechain`: a sub-agent's).
    pub sidechain: bool,
    /// Whether it belongs to a team member's chain (a non-empty
    /// `teamName`).
    pub team: bool,
    /// What it says.
    pub said: Said,
}

/// The entries read in order, each with what it says.
///
/// ```
/// use claudio::store::{steps, Entry, Said};
/// let e = [
///     Entry::parse(r#"{"type":"user","uuid":"u1","message":{"content":"hi"}}"#)?,
///     Entry::parse(r#"{"type":"assistant","uuid":"a1","message":{"content":[{"type":"text","text":"Hello."}]}}"#)?,
/// ];
/// let s: Vec<_> = steps(&e).collect();
/// assert_eq!(s[0].uuid, "u1");
/// assert!(matches!(&s[1].said, Said::Answer(blocks) if blocks.len() == 1));
/// # Ok::<(), serde_json::Error>(())
/// ```
pub fn steps(entries: &[Entry]) -> impl Iterator<Item = Step<'_>> + '_ {
    entries.iter().map(Entry::step)
}

impl Conversation {
    /// The conversation's entries in order, each with what it says
    /// ([`steps`]).
    pub fn steps(&self) -> impl Iterator<Item = Step<'_>> + '_ {
        steps(&self.entries)
    }
}

impl Entry {
    /// This entry, with what it says ([`Step`]).
    pub fn step(&self) -> Step<'_> {
        Step {
            entry: self,
            uuid: self.uuid(),
            timestamp: self.timestamp(),
            sidechain: self.is_sidechain(),
            team: self.is_team(),
            said: self.said(),
        }
    }

    /// Whether the entry belongs to a side chain (`isSidechain`).
    pub fn is_sidechain(&self) -> bool {
        self.value.get("isSidechain").and_then(Value::as_bool) == Some(true)
    }

    /// Whether the entry belongs to a team member's chain (a non-empty
    /// `teamName`).
    pub fn is_team(&self) -> bool {
        matches!(self.value.get("teamName"), Some(Value::String(s)) if !s.is_empty())
    }

    /// The entry as the protocol's [`Message`] (a user or assistant line
    /// reads as the CLI streams it); `None` when it does not read as one.
    pub fn message(&self) -> Option<Message> {
        Message::parse_str(&self.raw).ok()
    }

    /// What the entry says, typed ([`Said`]).
    pub fn said(&self) -> Said {
        match self.kind() {
            "user" => self.user_said(),
            "assistant" => match self.content() {
                Some(MessageContent::Blocks(blocks)) => Said::Answer(blocks),
                _ => Said::Other,
            },
            "system"
                if self.value.get("subtype").and_then(Value::as_str)
                    == Some("compact_boundary") =>
            {
                Said::Compacted
            }
            "attachment"
                if self
                    .value
                    .pointer("/attachment/type")
                    .and_then(Value::as_str)
                    == Some("queued_command") =>
            {
                match self
                    .value
                    .pointer("/attachment/prompt")
                    .and_then(Value::as_str)
                {
                    Some(p) => Said::Queued(p.to_owned()),
                    None => Said::Other,
                }
            }
            _ => Said::Other,
        }
    }

    fn user_said(&self) -> Said {
        let flag = |k: &str| truthy_bool(self.value.get(k));
        let content = self.content();
        if flag("isMeta") {
            return Said::Note {
                kind: NoteKind::Meta,
                content,
            };
        }
        let text = self.user_text();
        let content_or = |text: &str| {
            self.content()
                .unwrap_or_else(|| MessageContent::Text(text.to_owned()))
        };
        if let Some(t) = &text {
            let (shell, rest) = split_shell(t);
            if !shell.is_empty() {
                let rest_trim = js_trim(rest);
                let note =
                    flag("isCompactSummary") || rest_trim.is_empty() || is_cli_note(rest_trim);
                let prompt = if note {
                    None
                } else {
                    let rest = rest
                        .trim_start_matches(['\n', '\r'])
                        .trim_end_matches(is_js_space);
                    (!js_trim(rest).is_empty()).then(|| rest.to_owned())
                };
                return Said::You {
                    shell,
                    prompt,
                    content: content_or(t),
                };
            }
        }
        if flag("isCompactSummary") {
            return Said::Note {
                kind: NoteKind::CompactSummary,
                content,
            };
        }
        match text {
            Some(t) if is_cli_note(js_trim(&t)) => Said::Note {
                kind: NoteKind::Notice,
                content: Some(content_or(&t)),
            },
            Some(t) => Said::You {
                shell: Vec::new(),
                content: content_or(&t),
                prompt: Some(t),
            },
            None => match content {
                Some(c) => Said::Results(c),
                None => Said::Other,
            },
        }
    }
}

/// `true` given as JSON (`isMeta`, `isCompactSummary` are booleans).
fn truthy_bool(v: Option<&Value>) -> bool {
    v.and_then(Value::as_bool) == Some(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The walk as it was before [`Said`], kept as the oracle: each entry
    /// read by key.
    mod old {
        use super::super::super::chain::{split_shell, Entry, ShellRun};
        use serde_json::Value;

        fn user_text(e: &Entry) -> Option<String> {
            e.user_text()
        }

        pub(super) fn is_note(e: &Entry) -> bool {
            if e.kind() != "user" {
                return false;
            }
            let flag = |k: &str| e.value.get(k).and_then(Value::as_bool) == Some(true);
            flag("isMeta")
                || flag("isCompactSummary")
                || user_text(e).is_some_and(|t| {
                    let (runs, rest) = split_shell(&t);
                    let rest = rest.trim();
                    if rest.is_empty() {
                        !runs.is_empty() || crate::store::is_cli_note(t.trim())
                    } else {
                        crate::store::is_cli_note(rest)
                    }
                })
        }

        pub(super) fn prompt(e: &Entry) -> Option<String> {
            if is_note(e) || e.value.get("isSidechain").and_then(Value::as_bool) == Some(true) {
                return None;
            }
            let text = user_text(e)?;
            let (runs, rest) = split_shell(&text);
            if runs.is_empty() {
                return Some(text);
            }
            let rest = rest.trim_start_matches(['\n', '\r']).trim_end();
            (!rest.trim().is_empty()).then(|| rest.to_owned())
        }

        pub(super) fn shell_runs(e: &Entry) -> Vec<ShellRun> {
            if e.kind() != "user" || e.value.get("isMeta").and_then(Value::as_bool) == Some(true) {
                return Vec::new();
            }
            user_text(e).map(|t| split_shell(&t).0).unwrap_or_default()
        }
    }

    /// User entries of every shape the walk tells apart: prompts, notes,
    /// `!` commands (whole, cut, alone, before a prompt or a note), tool
    /// results, images, flags.
    fn generated() -> Vec<Entry> {
        let texts = [
            "fix it",
            "  \n",
            "",
            "\nlead\n",
            "<task-notification>done</task-notification>",
            "[Request interrupted by user]",
            "[Request interrupted by user for tool use]",
            "<command-name>/model</command-name>",
            "<local-command-stdout>x</local-command-stdout>",
            "<bash-input>ls</bash-input>",
            "<bash-input>ls</bash-input>\n<bash-stdout>a\n</bash-stdout><bash-stderr></bash-stderr>",
            "<bash-input>ls</bash-input>\n<bash-stdout>a\n</bash-stdout><bash-stderr></bash-stderr>\n\nwhy a?\n",
            "<bash-input>ls</bash-input>\n<bash-stdout>a</bash-stdout><bash-stderr></bash-stderr>\n<task-notification>t</task-notification>",
            "<bash-stdout>/w</bash-stdout><bash-stderr></bash-stderr>",
            "<bash-input>cut",
            "<div>pasted</div>",
            "[structured-output-enforce] call it",
        ];
        let mut contents: Vec<Value> = Vec::new();
        for t in texts {
            contents.push(json!(t));
            contents.push(json!([{"type":"text","text":t}]));
            contents.push(json!([{"type":"text","text":t},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA"}}]));
            contents.push(json!([{"type":"text","text":t},{"type":"text","text":"more"}]));
        }
        contents.push(json!([{"type":"tool_result","tool_use_id":"t","content":"ok"}]));
        contents
            .push(json!([{"type":"tool_result","tool_use_id":"t"},{"type":"text","text":"and"}]));
        contents.push(json!([{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA"}}]));
        contents.push(json!([{"type":"text","text":1}]));
        contents.push(json!([]));
        contents.push(json!(7));
        contents.push(Value::Null);
        let flags = [
            json!({}),
            json!({"isMeta":true}),
            json!({"isCompactSummary":true}),
            json!({"isSidechain":true}),
            json!({"isMeta":false,"isSidechain":false}),
            json!({"isMeta":"yes"}),
        ];
        let mut out = Vec::new();
        for (i, c) in contents.iter().enumerate() {
            for f in &flags {
                let mut v = json!({"type":"user","uuid":format!("u{i}"),"message":{"role":"user"}});
                if !c.is_null() {
                    v["message"]["content"] = c.clone();
                }
                for (k, x) in f.as_object().unwrap() {
                    v[k] = x.clone();
                }
                out.push(Entry::parse(&v.to_string()).unwrap());
            }
        }
        for v in [
            json!({"type":"assistant","message":{"content":[{"type":"text","text":"a"}]}}),
            json!({"type":"assistant","message":{"content":"a"}}),
            json!({"type":"system","subtype":"compact_boundary"}),
            json!({"type":"attachment","attachment":{"type":"queued_command","prompt":"q"}}),
            json!({"type":"attachment","attachment":{"type":"queued_command"}}),
            json!({"type":"progress"}),
            json!({"message":{"content":"no type"}}),
        ] {
            out.push(Entry::parse(&v.to_string()).unwrap());
        }
        out
    }

    /// Every line of the transcripts under tests/fixtures.
    fn fixtures() -> Vec<Entry> {
        fn walk(dir: &std::path::Path, out: &mut Vec<Entry>) {
            for e in std::fs::read_dir(dir).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    walk(&p, out);
                } else if p.extension().is_some_and(|x| x == "jsonl") {
                    let text = std::fs::read_to_string(&p).unwrap();
                    out.extend(text.lines().filter_map(|l| Entry::parse(l).ok()));
                }
            }
        }
        let mut out = Vec::new();
        walk(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures"),
            &mut out,
        );
        out
    }

    /// The typed walk reads every entry as the old walk by key did: the
    /// same prompts, notes and `!` commands.
    #[test]
    fn the_typed_walk_reads_as_the_old_walk() {
        let fixtures = fixtures();
        assert!(fixtures.len() > 50, "{} fixture lines", fixtures.len());
        let all: Vec<Entry> = generated().into_iter().chain(fixtures).collect();
        let mut prompts = 0;
        for e in &all {
            assert_eq!(e.prompt(), old::prompt(e), "{}", e.raw);
            assert_eq!(e.is_note(), old::is_note(e), "{}", e.raw);
            assert_eq!(e.shell_runs(), old::shell_runs(e), "{}", e.raw);
            prompts += usize::from(e.prompt().is_some());
        }
        assert!(prompts > 20, "{prompts} prompts");
    }

    /// What each kind of entry says, told apart.
    #[test]
    fn each_kind_of_entry_is_told_apart() {
        let said = |v: Value| Entry::parse(&v.to_string()).unwrap().said();
        assert!(matches!(
            said(json!({"type":"user","message":{"content":[{"type":"text","text":"look"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA"}}]}})),
            Said::You { prompt: Some(p), content: MessageContent::Blocks(b), .. } if p == "look" && b.len() == 2
        ));
        assert!(matches!(
            said(json!({"type":"user","message":{"content":"<bash-input>ls</bash-input>"}})),
            Said::You { prompt: None, shell, .. } if shell.len() == 1
        ));
        assert!(matches!(
            said(json!({"type":"user","isMeta":true,"message":{"content":"caveat"}})),
            Said::Note {
                kind: NoteKind::Meta,
                content: Some(_)
            }
        ));
        assert!(matches!(
            said(json!({"type":"user","isCompactSummary":true,"message":{"content":"summary"}})),
            Said::Note {
                kind: NoteKind::CompactSummary,
                ..
            }
        ));
        assert!(matches!(
            said(
                json!({"type":"user","message":{"content":"<command-name>/model</command-name>"}})
            ),
            Said::Note {
                kind: NoteKind::Notice,
                ..
            }
        ));
        assert!(matches!(
            said(json!({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":"ok"}]}})),
            Said::Results(MessageContent::Blocks(b)) if b.len() == 1
        ));
        assert!(matches!(
            said(json!({"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"Bash","input":{}}]}})),
            Said::Answer(b) if matches!(&b[0], ContentBlock::ToolUse(t) if t.name == "Bash")
        ));
        assert_eq!(
            said(json!({"type":"system","subtype":"compact_boundary"})),
            Said::Compacted
        );
        assert_eq!(
            said(
                json!({"type":"attachment","attachment":{"type":"queued_command","prompt":"next"}})
            ),
            Said::Queued("next".into())
        );
        let e = Entry::parse(r#"{"type":"user","uuid":"u","timestamp":"t","isSidechain":true,"teamName":"x","message":{"content":"hi"}}"#).unwrap();
        let s = e.step();
        assert_eq!(
            (s.uuid, s.timestamp, s.sidechain, s.team),
            ("u", Some("t"), true, true)
        );
        assert!(matches!(e.message(), Some(Message::User(_))));
    }
}
