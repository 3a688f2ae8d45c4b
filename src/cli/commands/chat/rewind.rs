//! Rewind: go back to before one of this session's prompts, with the files
//! as they were then. What is listed and shown is worked out here, without
//! a terminal; the chat asks and acts.

use super::connection::Connection;
use super::keys::Keys;
use super::pick;
use super::screen::Screen;
use crate::cli::sanitize::Sanitizer;
use crate::cli::term::picker::{Choice, Picked, Picker};
use crate::cli::term::style::Style;
use anyhow::Context as _;
use claudio::store::{Conversation, Said, Step};
use claudio::RewindFiles;
use std::collections::HashMap;
use std::path::Path;
use tokio::runtime::Runtime;

/// A prompt the session can go back to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PastPrompt {
    /// The user message's uuid (what `rewind_files` takes).
    pub uuid: String,
    /// The prompt as typed.
    pub text: String,
    /// The entry before it on the main chain: the conversation is forked
    /// there (`None`: the prompt opened the session).
    pub before: Option<String>,
}

/// The prompts typed in a conversation, oldest first. `known` holds the
/// prompts this program sent, by uuid, as typed: their text is taken from
/// there rather than from the transcript.
pub fn past_prompts(conv: &Conversation, known: &HashMap<String, String>) -> Vec<PastPrompt> {
    prompts_in(conv.steps(), known)
}

/// The prompts among a conversation's entries (the main chain, in order):
/// what the person typed, trimmed, without the `!` commands sent in front
/// of it; not tool results, not the CLI's own notes.
fn prompts_in<'a>(
    steps: impl IntoIterator<Item = Step<'a>>,
    known: &HashMap<String, String>,
) -> Vec<PastPrompt> {
    let mut out = Vec::new();
    let mut before: Option<String> = None;
    for s in steps {
        let text = match (known.get(s.uuid), &s.said) {
            (Some(t), _) if s.entry.kind() == "user" => Some(t.clone()),
            (
                _,
                Said::You {
                    prompt: Some(p), ..
                },
            ) => Some(p.trim().to_owned()).filter(|t| !t.is_empty()),
            _ => None,
        };
        if s.uuid.is_empty() {
            continue;
        }
        if let Some(text) = text {
            out.push(PastPrompt {
                uuid: s.uuid.to_owned(),
                text,
                before: before.clone(),
            });
        }
        before = Some(s.uuid.to_owned());
    }
    out
}

/// What the chat says once it rewound to before `prompt`: its first line,
/// made inert before it is shortened (cutting first could leave half an
/// escape to be shown as text), each tab a space (the terminal moved to
/// its next tab stop, past the width counted).
pub fn rewound_notice(prompt: &str) -> String {
    let clean = Sanitizer::clean(prompt);
    let first = clean.lines().next().unwrap_or("").replace('\t', " ");
    format!(
        "rewound to before “{}”; it is back in the input line",
        crate::cli::term::text::cut_width(&first, 40)
    )
}

/// The picker over the prompts, newest last, the cursor on the newest.
pub fn prompt_picker(prompts: &[PastPrompt]) -> Picker {
    let choices = prompts
        .iter()
        .map(|p| {
            let first = p.text.lines().next().unwrap_or("");
            let more = p.text.lines().count().saturating_sub(1);
            let desc = if more > 0 {
                format!("+{more} lines")
            } else {
                String::new()
            };
            Choice::new(first, desc)
        })
        .collect();
    Picker::new(choices).start_at(prompts.len().saturating_sub(1))
}

/// What to do once a prompt is chosen, in order.
pub const ACTIONS: [(&str, &str); 4] = [
    (
        "Restore files and conversation",
        "as it was before this prompt",
    ),
    ("Restore the conversation only", "files stay as they are"),
    ("Restore files only", "the conversation goes on"),
    ("Never mind", ""),
];

/// The files a rewind would change, from the CLI's dry run.
fn cannot_restore(why: &str, style: Style) -> String {
    format!(
        "  {}\n",
        style.yellow(&format!(
            "files cannot be restored: {}",
            Sanitizer::clean(why)
        ))
    )
}

pub fn preview_text(
    preview: &Result<RewindFiles, claudio::Error>,
    cwd: &Path,
    style: Style,
) -> String {
    let preview = match preview {
        Ok(p) => p,
        // the dry run failed: say why (its own words), the conversation
        // alone can still be rewound
        Err(e) => return cannot_restore(&crate::cli::common::exit::with_causes(e), style),
    };
    if !preview.can_rewind {
        let why = preview
            .error
            .as_deref()
            .unwrap_or("the CLI cannot rewind files here");
        return cannot_restore(why, style);
    }
    let files = &preview.files_changed;
    if files.is_empty() {
        return format!("  {}\n", style.dim("no files changed since this prompt"));
    }
    let mut out = format!(
        "  {} {}\n",
        style.bold(&format!(
            "{} {} back",
            files.len(),
            if files.len() == 1 {
                "file goes"
            } else {
                "files go"
            }
        )),
        style.dim(&format!(
            "(+{} −{})",
            preview.insertions.unwrap_or(0),
            preview.deletions.unwrap_or(0)
        ))
    );
    for f in files {
        let shown = f.strip_prefix(cwd).unwrap_or(f).display().to_string();
        out.push_str(&format!("    {}\n", Sanitizer::clean(&shown)));
    }
    out
}

/// Rewind's choices, made between turns: which prompt, then what goes
/// back. It sees only what it asks with: the runtime, the session's
/// connection (for the CLI's dry run and the files' restore), the
/// screen, the chat's one reader of the keyboard, the session's folder
/// and the prompts as this chat typed them. The conversation itself goes
/// back in the chat, which switches the session ([`Chosen`]).
pub(super) struct Rewind<'a> {
    pub(super) rt: &'a Runtime,
    pub(super) conn: &'a mut Connection,
    pub(super) screen: &'a mut Screen,
    pub(super) keys: &'a mut Option<Keys>,
    pub(super) cwd: &'a Path,
    /// The prompts this chat sent, by uuid, as typed.
    pub(super) typed: &'a HashMap<String, String>,
}

/// The conversation is to go back to before `prompt` (the files restored
/// first when `files_restored`): the session `id` is forked in `store`.
pub(super) struct Chosen {
    store: claudio::store::Store,
    pub(super) prompt: PastPrompt,
    files_restored: bool,
}

impl Chosen {
    /// The session `id` forked just before the prompt (`None`: before the
    /// first, a fresh session). Its transcript is complete once its CLI
    /// has closed.
    pub(super) fn fork(&self, id: &str) -> Result<Option<String>, claudio::store::StoreError> {
        match &self.prompt.before {
            Some(before) => self
                .store
                .fork(id, &claudio::store::ForkOptions::new().at(before.as_str()))
                .map(Some),
            None => Ok(None),
        }
    }

    /// The fork failed with `e`: the session goes on as it was.
    pub(super) fn not_forked(&self, e: claudio::store::StoreError) -> anyhow::Error {
        let files = if self.files_restored {
            " (the files were restored)"
        } else {
            ""
        };
        anyhow::Error::new(e).context(format!(
            "could not rewind the conversation{files}; it goes on as it was"
        ))
    }
}

impl Rewind<'_> {
    /// Choose from `picker` now (between turns).
    fn pick_now(
        &mut self,
        picker: crate::cli::term::picker::Picker,
    ) -> anyhow::Result<Option<Picked>> {
        if !crate::cli::term::console::input_is_terminal()
            || !crate::cli::term::console::output_is_terminal()
        {
            anyhow::bail!("rewind needs a terminal to choose on");
        }
        let (style, width) = (self.screen.style(), self.screen.renderer().width());
        let keys = self
            .keys
            .as_mut()
            .filter(|k| k.has_terminal())
            .context("no terminal to choose on")?;
        self.rt
            .block_on(async { Ok(pick::pick(keys, None, picker, style, width).await?) })
    }

    /// Esc Esc or `/rewind` in session `id`: the prompt to go back to
    /// before, and what goes back. Nothing changes until the person
    /// confirms; the files are restored here. `Some` when the conversation
    /// goes back too.
    pub(super) fn choose(mut self, id: &str) -> anyhow::Result<Option<Chosen>> {
        let store = claudio::store::Store::open(None)?;
        let file = store.find(id)?;
        let prompts = past_prompts(&claudio::store::read_conversation(&file.path)?, self.typed);
        if prompts.is_empty() {
            self.screen.info("nothing to rewind yet");
            return Ok(None);
        }
        let s = self.screen.style();
        self.screen.write(&format!(
            "\n  {} {}\n",
            s.yellow("⟲"),
            s.bold("Rewind to before which prompt?")
        ));
        let Some(Picked::Chosen(i, _)) = self.pick_now(prompt_picker(&prompts))? else {
            self.screen.info("rewind cancelled; nothing changed");
            return Ok(None);
        };
        let Some(p) = i.first().and_then(|&i| prompts.get(i)).cloned() else {
            return Ok(None);
        };
        let rt = self.rt;
        let client = self.conn.client(rt)?;
        let preview = rt.block_on(client.preview_rewind_files(&p.uuid));
        let text = preview_text(&preview, self.cwd, s);
        self.screen.write(&text);
        // a failed dry run offers the conversation only
        let files = preview.as_ref().is_ok_and(|p| p.can_rewind);
        let actions: Vec<usize> = (0..ACTIONS.len())
            .filter(|&a| files || a == 1 || a == 3)
            .collect();
        let choices = actions
            .iter()
            .map(|&a| crate::cli::term::picker::Choice::new(ACTIONS[a].0, ACTIONS[a].1))
            .collect();
        let picked = self.pick_now(crate::cli::term::picker::Picker::new(choices))?;
        let action = match picked {
            Some(Picked::Chosen(i, _)) => i.first().map(|&i| actions[i]).unwrap_or(3),
            _ => 3,
        };
        let (restore_files, restore_talk) = match action {
            0 => (true, true),
            1 => (false, true),
            2 => (true, false),
            _ => {
                self.screen.info("rewind cancelled; nothing changed");
                return Ok(None);
            }
        };
        if restore_files {
            rt.block_on(client.rewind_files(&p.uuid))?;
            self.screen.info("files restored");
        }
        Ok(restore_talk.then_some(Chosen {
            store,
            prompt: p,
            files_restored: restore_files,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::term::picker::Picked;
    use claudio::store::{steps, Entry};
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use serde_json::{json, Value};

    fn entries(lines: &[Value]) -> Vec<Entry> {
        lines
            .iter()
            .map(|l| Entry::parse(&l.to_string()).unwrap())
            .collect()
    }

    /// The walk rewind did by key before the store's typed one, kept as
    /// the oracle.
    mod old {
        use super::{HashMap, PastPrompt, Value};

        pub(in crate::cli::commands::chat) fn prompts_in<'a>(
            entries: impl IntoIterator<Item = &'a Value>,
            known: &HashMap<String, String>,
        ) -> Vec<PastPrompt> {
            let mut out = Vec::new();
            let mut before: Option<String> = None;
            for v in entries {
                let uuid = v
                    .get("uuid")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned();
                let is_user = v.get("type").and_then(Value::as_str) == Some("user");
                let text = match known.get(&uuid) {
                    Some(t) if is_user => Some(t.clone()),
                    _ => typed_text(v),
                };
                if let Some(text) = text {
                    if !uuid.is_empty() {
                        out.push(PastPrompt {
                            uuid: uuid.clone(),
                            text,
                            before: before.clone(),
                        });
                    }
                }
                if !uuid.is_empty() {
                    before = Some(uuid);
                }
            }
            out
        }

        fn typed_text(v: &Value) -> Option<String> {
            if v.get("type").and_then(Value::as_str) != Some("user")
                || v.get("isMeta").and_then(Value::as_bool) == Some(true)
                || v.get("isCompactSummary").and_then(Value::as_bool) == Some(true)
            {
                return None;
            }
            let content = v.get("message")?.get("content")?;
            let text = match content {
                Value::String(s) => s.clone(),
                Value::Array(blocks) => {
                    let mut parts = Vec::new();
                    for b in blocks {
                        match b.get("type").and_then(Value::as_str) {
                            Some("tool_result") => return None,
                            Some("text") => parts.push(b.get("text")?.as_str()?.to_owned()),
                            _ => {}
                        }
                    }
                    parts.join("\n")
                }
                _ => return None,
            };
            let text = strip_shell_context(&text).trim().to_owned();
            let notice = claudio::store::is_cli_note(&text);
            (!text.is_empty() && !notice).then_some(text)
        }

        fn strip_shell_context(text: &str) -> &str {
            let mut rest = text;
            while rest.trim_start().starts_with("<bash-input>") {
                let Some(end) = rest.find("</bash-stderr>") else {
                    break;
                };
                rest = &rest[end + "</bash-stderr>".len()..];
            }
            rest.trim_start_matches('\n')
        }
    }

    /// The prompts listed from the sessions under tests/fixtures are the
    /// ones the old walk by key listed.
    #[test]
    fn the_typed_walk_lists_the_prompts_the_old_one_did() {
        let files = crate::cli::commands::sessions::testing::fixture_transcripts();
        let mut listed = 0;
        for f in &files {
            let conv = claudio::store::read_conversation(f).unwrap();
            let known = HashMap::new();
            let new = past_prompts(&conv, &known);
            let old = old::prompts_in(conv.entries.iter().map(|e| &e.value), &known);
            assert_eq!(new, old, "{}", f.display());
            listed += new.len();
        }
        assert!(listed > 5, "{listed} prompts in {} files", files.len());
    }

    /// A prompt sent after a `!` command whose stderr block is missing is
    /// listed (the whole entry was taken for a note); the command alone is
    /// not.
    #[test]
    fn shell_commands_with_no_stderr_block_are_read_as_commands() {
        let c = [
            json!({"type":"user","uuid":"u1","message":{"content":"<bash-input>ls</bash-input>"}}),
            json!({"type":"user","uuid":"u2","message":{"content":"<bash-input>ls</bash-input>\n<bash-stdout>a</bash-stdout>\n\nwhy a?"}}),
        ];
        let p = prompts_in(steps(&entries(&c)), &HashMap::new());
        // the old walk took both for notes
        let was = old::prompts_in(&c, &HashMap::new());
        assert!(was.is_empty(), "{was:?}");
        assert_eq!(
            p,
            vec![PastPrompt {
                uuid: "u2".into(),
                text: "why a?".into(),
                before: Some("u1".into())
            }]
        );
    }

    #[test]
    fn the_rewind_notice_shows_no_fragment_of_an_escape() {
        let prompt = format!("{}\u{1b}]0;a long title to hide\u{7}tail", "x".repeat(36));
        let notice = rewound_notice(&prompt);
        assert_eq!(
            notice,
            format!(
                "rewound to before “{}tail”; it is back in the input line",
                "x".repeat(36)
            )
        );
    }

    /// A prompt's tabs are spaces in the notice: a tab went to the
    /// terminal, which moved to its next tab stop past the width the wrap
    /// counted (none, for a tab), as a sub-agent's summary did
    /// (threats.md class 11).
    #[test]
    fn the_rewind_notice_draws_no_tab() {
        let notice = rewound_notice("fix\tthe\t\tparser\nand more");
        assert_eq!(
            notice,
            "rewound to before “fix the  parser”; it is back in the input line"
        );
        let long = rewound_notice(&format!("{}x", "\t".repeat(60)));
        assert!(!long.contains('\t'), "{long:?}");
        assert!(
            crate::cli::term::wrap::visible_width(&long) <= 100,
            "{long:?}"
        );
    }

    #[test]
    fn prompts_with_what_comes_before_them() {
        let c = [
            json!({"type":"user","uuid":"u1","message":{"role":"user","content":"first"}}),
            json!({"type":"assistant","uuid":"a1","message":{"content":[{"type":"tool_use","id":"t"}]}}),
            json!({"type":"user","uuid":"r1","message":{"content":[{"type":"tool_result","tool_use_id":"t"}]}}),
            json!({"type":"assistant","uuid":"a2","message":{"content":[{"type":"text","text":"done"}]}}),
            json!({"type":"user","uuid":"m1","isMeta":true,"message":{"content":"<local-command-caveat>"}}),
            json!({"type":"user","uuid":"u2","message":{"content":"<bash-input>ls</bash-input>\n<bash-stdout>a\n</bash-stdout><bash-stderr></bash-stderr>\n\nfix it\nnow"}}),
            json!({"type":"user","uuid":"i1","message":{"content":[{"type":"text","text":"[Request interrupted by user]"}]}}),
        ];
        let e = entries(&c);
        let p = prompts_in(steps(&e), &HashMap::new());
        assert_eq!(p.len(), 2, "{p:?}");
        assert_eq!(p[0].uuid, "u1");
        assert_eq!(p[0].before, None);
        assert_eq!(p[1].text, "fix it\nnow");
        assert_eq!(p[1].before.as_deref(), Some("m1"));
        let mut picker = prompt_picker(&p);
        let lines = picker.lines(Style::plain(), 80);
        assert!(lines[1].contains("› 2. fix it"), "{lines:?}");
        assert!(lines[1].contains("+1 lines"), "{lines:?}");
        let enter = KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE);
        assert_eq!(picker.key(enter), Some(Picked::Chosen(vec![1], None)));
        // a prompt this chat sent is listed as typed, whatever it looks like
        let known = HashMap::from([("u2".to_owned(), "<b>fix</b> it".to_owned())]);
        let p = prompts_in(steps(&e), &known);
        assert_eq!(p[1].text, "<b>fix</b> it");
    }

    #[test]
    fn preview_lists_files_relative_to_the_session() {
        let cwd = Path::new("/w");
        let typed = |v| Ok(serde_json::from_value::<RewindFiles>(v).unwrap());
        let p = typed(
            json!({"canRewind":true,"filesChanged":["/w/new.txt","/elsewhere/x\u{1b}[2J"],"insertions":1,"deletions":5}),
        );
        let t = preview_text(&p, cwd, Style::plain());
        assert!(t.contains("2 files go back (+1 −5)"), "{t}");
        assert!(t.contains("    new.txt\n"), "{t}");
        assert!(!t.contains('\u{1b}'));
        let none = typed(json!({"canRewind":true,"filesChanged":[],"insertions":0,"deletions":0}));
        assert!(preview_text(&none, cwd, Style::plain()).contains("no files changed"));
        let off = typed(json!({"canRewind":false,"error":"File rewinding is not enabled."}));
        assert!(preview_text(&off, cwd, Style::plain()).contains("not enabled"));
        // a dry run that failed says its error, the OS reason kept
        let failed = Err(claudio::Error::Io(std::io::Error::from_raw_os_error(32)));
        let t = preview_text(&failed, cwd, Style::plain());
        assert!(
            t.contains("files cannot be restored: ") && t.contains("Broken pipe"),
            "{t}"
        );
    }
}
