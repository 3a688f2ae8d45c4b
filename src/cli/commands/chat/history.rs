//! What the chat shows when it resumes a session: the last exchanges, so
//! the person sees where they left off. They are drawn as a live turn is
//! (`› ` and the prompt, the answer at its margin, a tool's line with its
//! mark, time and preview), by the same renderer fed the transcript's
//! entries, and dimmed: what is past reads as past.

use super::render::{Draw, Renderer};
use super::state::{short_id, Session};
use crate::cli::sanitize::Sanitizer;
use crate::cli::term::style::Style;
use crate::cli::term::text::cut_width;
use crate::cli::term::text::more_lines;
use crate::cli::term::wrap::wrap;
use crate::cli::turn::reading::Reading;
use crate::cli::turn::summary::Here;
use claudio::store::{Entry, Said};
use std::path::Path;
use std::time::{Duration, Instant};

/// How many of the last exchanges are shown.
const SHOWN: usize = 3;
/// At most this many of their lines (a pasted log in a prompt must not
/// flood the screen): the last ones, after a line saying how many went.
const MAX_LINES: usize = 60;

/// What resuming session `id` shows: the end of its conversation, its
/// paths from `cwd`, its rows within `width`, dimmed with `style`
/// (empty when no prompt was typed in it); `None` when the store does
/// not hold it or it cannot be read (the CLI still resumes it, and says
/// so if it cannot).
pub(super) fn last_exchanges(id: &str, cwd: &Path, width: usize, style: Style) -> Option<String> {
    let store = claudio::store::Store::open(None).ok()?;
    let (file, conv) = store.conversation(id).ok()?;
    let Some((first, earlier)) = last_prompts(&conv.entries, SHOWN) else {
        return Some(String::new());
    };
    let here = Here::new(cwd);
    let body = replay(&conv.entries[first..], &here, width);
    Some(framed(&body, earlier, &short_id(&file.id), style, width))
}

/// The entries (from a typed prompt on) as a live turn draws them, plain,
/// each row within `width`.
pub(in crate::cli::commands::chat) fn replay(
    entries: &[Entry],
    here: &Here,
    width: usize,
) -> String {
    let mut session = Session {
        reading: Reading::at(here.clone()),
        ..Session::default()
    };
    let mut r = Renderer::for_history(Style::plain(), width);
    let mut out = String::new();
    // the entries' own times: a tool's line says how long it took
    let start = Instant::now();
    let first = entries.iter().find_map(millis);
    let mut now = start;
    for s in claudio::store::steps(entries) {
        if s.sidechain || s.team {
            continue;
        }
        if let (Some(at), Some(first)) = (millis(s.entry), first) {
            now = now.max(start + Duration::from_millis(at.saturating_sub(first)));
        }
        match &s.said {
            Said::You { shell, prompt, .. } => {
                if !shell.is_empty() {
                    out.push_str(&r.draw(Draw::Suspend, &session, now));
                    for run in shell {
                        out.push_str(&shell_rows(run, width));
                    }
                }
                if let Some(prompt) = prompt {
                    out.push_str(&r.draw(Draw::Suspend, &session, now));
                    r.new_prompt();
                    let prompt = Sanitizer::clean(prompt.trim_end());
                    for (i, line) in prompt.lines().enumerate() {
                        let lead = if i == 0 { "› " } else { "  " };
                        // a tab as the answer's filler takes it: columns the
                        // row's width counts
                        let line = line.replace('\t', "    ");
                        for row in wrap(&line, width, lead, "  ") {
                            out.push_str(&row);
                            out.push('\n');
                        }
                    }
                    continue;
                }
            }
            Said::Compacted => {
                out.push_str(&r.draw(Draw::Notice("conversation compacted".into()), &session, now));
                continue;
            }
            _ => {}
        }
        if !matches!(s.entry.kind(), "user" | "assistant") || s.said.is_note() {
            continue;
        }
        let Some(m) = s.entry.message() else {
            continue;
        };
        untime_waited(&mut r, s.entry);
        let seen = session.see(&m, now);
        out.push_str(&r.draw(Draw::Seen(seen), &session, now));
    }
    out.push_str(&r.draw(Draw::Suspend, &session, now));
    out
}

/// Tell the renderer which results of a user entry came after a wait that
/// may include the person's answer to their permission: their calls' time
/// (from the call's entry to the result's) is not shown. The CLI (2.1.328
/// and on) records how the check ended in `permissionDecision`: `source`
/// `config` or `classifier` is the settings, the mode or the auto-mode
/// classifier, and a `reasonType` is there only when the check decided by
/// itself (a rule of the person's is `user_temporary` with one); with
/// neither, a person or the host answered (`user_temporary` alone, after
/// the chat's dialog). A hook may wait too, and an entry with no record
/// (older CLIs) may hold a wait: neither is timed.
fn untime_waited(r: &mut Renderer, e: &Entry) {
    use serde_json::Value;
    if e.kind() != "user" {
        return;
    }
    if let Some(d) = e.value.get("permissionDecision") {
        let source = d.get("source").and_then(Value::as_str);
        let reason = d
            .get("reasonType")
            .and_then(Value::as_str)
            .is_some_and(|t| !t.is_empty());
        let by_itself =
            matches!(source, Some("config" | "classifier")) || (reason && source != Some("hook"));
        if by_itself {
            return;
        }
    }
    if let Some(claudio::protocol::MessageContent::Blocks(blocks)) = e.content() {
        for b in &blocks {
            if let claudio::protocol::ContentBlock::ToolResult(t) = b {
                r.untimed(&t.tool_use_id);
            }
        }
    }
}

/// The most output lines of one `!` command a resumed history shows.
const SHELL_LINES: usize = 12;

/// A `!` command as the chat showed it: `› !command`, then what it printed
/// under a `│` gutter (its first [`SHELL_LINES`] lines, the rest counted).
fn shell_rows(run: &claudio::store::ShellRun, width: usize) -> String {
    let mut out = String::new();
    if let Some(cmd) = &run.command {
        let cmd = Sanitizer::clean(cmd).replace('\t', "    ");
        for (i, line) in cmd.lines().enumerate() {
            let lead = if i == 0 { "› !" } else { "  " };
            for row in wrap(line, width, lead, "  ") {
                out.push_str(&row);
                out.push('\n');
            }
        }
    }
    let printed = Sanitizer::clean(&format!("{}{}", run.stdout, run.stderr));
    let lines: Vec<&str> = printed.lines().collect();
    let room = width.saturating_sub(4).max(1);
    for line in lines.iter().take(SHELL_LINES) {
        let line = line.replace('\t', "    ");
        out.push_str(&format!("  │ {}\n", cut_width(&line, room)));
    }
    if lines.len() > SHELL_LINES {
        out.push_str(&format!("  │ {}\n", more_lines(lines.len() - SHELL_LINES)));
    }
    out
}

/// An entry's time, in milliseconds since the epoch.
fn millis(e: &Entry) -> Option<u64> {
    e.timestamp()
        .and_then(claudio::store::parse_iso_millis)
        .and_then(|ms| u64::try_from(ms).ok())
}

/// The replayed exchanges between their head and `resumed here`, dimmed
/// row by row, the earliest rows left out past [`MAX_LINES`]; the head
/// and the note of what was left out wrapped to `width`.
fn framed(body: &str, earlier: usize, id: &str, s: Style, width: usize) -> String {
    let dim_rows = |text: &str| -> String {
        crate::cli::term::wrap::wrap(text, width, "", "")
            .iter()
            .map(|row| format!("{}\n", s.dim(row)))
            .collect()
    };
    let head = if earlier == 0 {
        "── the conversation so far ──".to_owned()
    } else {
        format!(
            "── the last exchanges ({earlier} earlier prompt{}: claudio sessions inspect {id}) ──",
            if earlier == 1 { "" } else { "s" },
        )
    };
    let lines: Vec<&str> = body.trim_end_matches('\n').lines().collect();
    let mut out = dim_rows(&head);
    let cut = lines.len().saturating_sub(MAX_LINES);
    if cut > 0 {
        let more = format!("… {cut} lines above (claudio sessions inspect {id})");
        out.push_str(&dim_rows(&more));
    }
    for line in &lines[cut..] {
        if line.is_empty() {
            out.push('\n');
        } else {
            out.push_str(&format!("{}\n", s.dim(line)));
        }
    }
    out.push_str(&format!("{}\n", s.dim("── resumed here ──")));
    out
}

/// Where the `n`th-last typed prompt is, and how many prompts come before
/// it; `None` when no prompt was typed.
pub(crate) fn last_prompts(entries: &[Entry], n: usize) -> Option<(usize, usize)> {
    let prompts: Vec<usize> = entries
        .iter()
        .enumerate()
        .filter(|(_, e)| e.prompt().is_some())
        .map(|(i, _)| i)
        .collect();
    let k = prompts.len().saturating_sub(n.max(1));
    Some((*prompts.get(k)?, k))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_exchanges_start_at_a_typed_prompt() {
        let e: Vec<Entry> = [
            r#"{"type":"user","message":{"content":"first"}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":"one"}]}}"#,
            r#"{"type":"user","message":{"content":"second"}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"Bash","input":{"command":"ls"}}]}}"#,
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":"a"}]}}"#,
            r#"{"type":"user","isMeta":true,"message":{"content":"caveat"}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":"two"}]}}"#,
        ]
        .iter()
        .map(|l| Entry::parse(l).unwrap())
        .collect();
        assert_eq!(last_prompts(&e, 1), Some((2, 1)));
        assert_eq!(last_prompts(&e, 5), Some((0, 0)));
        assert_eq!(last_prompts(&e[3..], 3), None, "no typed prompt");
        // a `!` command's prompt, sent after it, is a typed prompt
        let shell = [
            r#"{"type":"user","message":{"content":"<bash-input>ls</bash-input>\n<bash-stdout>a.txt\n</bash-stdout><bash-stderr></bash-stderr>\n\nwhy a.txt?"}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":"Because."}]}}"#,
        ]
        .map(|l| Entry::parse(l).unwrap());
        assert_eq!(
            last_prompts(&shell, 1),
            Some((0, 0)),
            "the prompt after `!ls`"
        );
    }

    /// The head and the note of rows left out keep to the width (they ran
    /// past 40 columns).
    #[test]
    fn the_frame_s_own_lines_keep_to_the_width() {
        let body: String = (0..100).map(|i| format!("row {i}\n")).collect();
        let out = framed(&body, 12, "5c0e3e11", Style::plain(), 40);
        for row in out.lines() {
            assert!(
                crate::cli::term::wrap::visible_width(row) <= 40,
                "{row:?} in\n{out}"
            );
        }
        let joined = out.replace('\n', " ");
        assert!(
            joined.contains("(12 earlier prompts: claudio sessions inspect 5c0e3e11) ──"),
            "{out}"
        );
        assert!(
            joined.contains("lines above (claudio sessions inspect 5c0e3e11)"),
            "{out}"
        );
    }

    /// The replay as it was before the store's typed walk, kept as the
    /// oracle.
    fn old_replay(entries: &[Entry], here: &Here, width: usize) -> String {
        use claudio::Message;
        use serde_json::Value;
        let mut session = Session {
            reading: Reading::at(here.clone()),
            ..Session::default()
        };
        let mut r = Renderer::for_history(Style::plain(), width);
        let mut out = String::new();
        let start = Instant::now();
        let first = entries.iter().find_map(millis);
        let mut now = start;
        for e in entries {
            let v = &e.value;
            let side = v.get("isSidechain") == Some(&Value::Bool(true));
            if side || matches!(v.get("teamName"), Some(Value::String(s)) if !s.is_empty()) {
                continue;
            }
            if let (Some(at), Some(first)) = (millis(e), first) {
                now = now.max(start + Duration::from_millis(at.saturating_sub(first)));
            }
            let runs = e.shell_runs();
            if !runs.is_empty() {
                out.push_str(&r.draw(Draw::Suspend, &session, now));
                for run in &runs {
                    out.push_str(&shell_rows(run, width));
                }
            }
            if let Some(prompt) = e.prompt() {
                out.push_str(&r.draw(Draw::Suspend, &session, now));
                r.new_prompt();
                let prompt = Sanitizer::clean(prompt.trim_end());
                for (i, line) in prompt.lines().enumerate() {
                    let lead = if i == 0 { "› " } else { "  " };
                    // a tab as the answer's filler takes it: columns the
                    // row's width counts
                    let line = line.replace('\t', "    ");
                    for row in wrap(&line, width, lead, "  ") {
                        out.push_str(&row);
                        out.push('\n');
                    }
                }
                continue;
            }
            if v.get("subtype").and_then(Value::as_str) == Some("compact_boundary") {
                out.push_str(&r.draw(Draw::Notice("conversation compacted".into()), &session, now));
                continue;
            }
            if !matches!(e.kind(), "user" | "assistant") || e.is_note() {
                continue;
            }
            let Ok(m) = Message::parse(v.to_string().as_bytes()) else {
                continue;
            };
            // changed from the old walk in one case only: a call whose
            // permission may have waited for an answer shows no time
            untime_waited(&mut r, e);
            let seen = session.see(&m, now);
            out.push_str(&r.draw(Draw::Seen(seen), &session, now));
        }
        out.push_str(&r.draw(Draw::Suspend, &session, now));
        out
    }

    /// The resumed history of each session under tests/fixtures, and of
    /// the entries of this module's tests, is drawn as the old walk by key
    /// drew it.
    #[test]
    fn the_typed_walk_replays_as_the_old_one() {
        let files = crate::cli::commands::sessions::testing::fixture_transcripts();
        let here = Here::with_home(std::path::Path::new("/tmp"), None);
        let mut drawn = 0;
        for f in &files {
            let conv = claudio::store::read_conversation(f).unwrap();
            for width in [20, 80] {
                let new = replay(&conv.entries, &here, width);
                assert_eq!(
                    new,
                    old_replay(&conv.entries, &here, width),
                    "{}",
                    f.display()
                );
                drawn += new.lines().count();
            }
        }
        assert!(drawn > 50, "{drawn} rows");
        let e = entries(&[
            serde_json::json!({"type":"user","message":{"role":"user","content":"first"}}),
            serde_json::json!({"type":"user","isMeta":true,"message":{"role":"user","content":"caveat"}}),
            serde_json::json!({"type":"user","message":{"role":"user","content":"<bash-input>ls</bash-input>"}}),
            serde_json::json!({"type":"user","message":{"role":"user","content":"<bash-stdout>a</bash-stdout><bash-stderr></bash-stderr>"}}),
            serde_json::json!({"type":"system","subtype":"compact_boundary","content":"x"}),
            serde_json::json!({"type":"user","isCompactSummary":true,"message":{"role":"user","content":"summary"}}),
            serde_json::json!({"type":"user","isSidechain":true,"message":{"role":"user","content":"side"}}),
            serde_json::json!({"type":"user","teamName":"t","message":{"role":"user","content":"team"}}),
            serde_json::json!({"type":"user","message":{"role":"user","content":"[Request interrupted by user]"}}),
            serde_json::json!({"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"One."}]}}),
        ]);
        let new = replay(&e, &here, 40);
        assert_eq!(new, old_replay(&e, &here, 40));
        assert!(new.contains("› first") && new.contains("› !ls"), "{new}");
    }

    fn entries(lines: &[serde_json::Value]) -> Vec<Entry> {
        lines
            .iter()
            .map(|l| Entry::parse(&l.to_string()).unwrap())
            .collect()
    }

    /// Drawn as a live turn is: the prompt after `›`, the answer at its
    /// margin and filled to the width, a tool's line with its mark, file
    /// relative to the working directory, time and preview; no TUI glyphs.
    #[test]
    fn the_last_exchanges_are_drawn_as_a_live_turn() {
        let e = entries(&[
            serde_json::json!({"type":"user","timestamp":"2020-01-02T10:00:00.000Z","message":{"role":"user","content":"fix the rounding"}}),
            serde_json::json!({"type":"assistant","timestamp":"2020-01-02T10:00:01.000Z","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"Let me look at the totals, which are rounded in one place only."}]}}),
            serde_json::json!({"type":"assistant","timestamp":"2020-01-02T10:00:01.000Z","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/home/u/proj/src/totals.rs"}}]}}),
            serde_json::json!({"type":"user","timestamp":"2020-01-02T10:00:03.500Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"fn total() {}\n"}]},
                "permissionDecision":{"decision":"accept","source":"config","reasonType":"rule"}}),
            serde_json::json!({"type":"assistant","timestamp":"2020-01-02T10:00:04.000Z","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"Fixed."}]}}),
        ]);
        let here = Here::with_home(std::path::Path::new("/home/u/proj"), None);
        let out = replay(&e, &here, 40);
        assert_eq!(
            out,
            "› fix the rounding\n  Let me look at the totals, which are\n  rounded in one place only.\n  ✓ Read  src/totals.rs  2.5s\n    │ fn total() {}\n\n  Fixed.\n"
        );
        assert!(!out.contains('⏺') && !out.contains('⎿'));
        let framed = framed(&out, 0, "5c0e3e11", Style::plain(), 80);
        assert!(framed.starts_with("── the conversation so far ──\n› fix"));
        assert!(framed.ends_with("  Fixed.\n── resumed here ──\n"));
    }

    /// A call's time is shown only where it cannot hold the wait for an
    /// answer to its permission: the transcript has the call's time and
    /// its result's, not when the person answered (a call allowed after
    /// 10 s of thought, which ran 0.1 s, was drawn as taking 10.1 s). The
    /// CLI's `permissionDecision` says whether the check decided by itself.
    #[test]
    fn a_call_s_time_never_holds_the_wait_for_its_approval() {
        let call = |id: &str, at: &str| {
            serde_json::json!({"type":"assistant","timestamp":at,"message":{"id":id,"role":"assistant",
                "content":[{"type":"tool_use","id":id,"name":"Bash","input":{"command":format!("make {id}")}}]}})
        };
        let result = |id: &str, at: &str, decision: serde_json::Value| {
            let mut v = serde_json::json!({"type":"user","timestamp":at,"message":{"role":"user",
                "content":[{"type":"tool_result","tool_use_id":id,"content":"ok"}]}});
            if !decision.is_null() {
                v["permissionDecision"] = decision;
            }
            v
        };
        let e = entries(&[
            serde_json::json!({"type":"user","timestamp":"2020-01-02T10:00:00.000Z","message":{"role":"user","content":"build"}}),
            // allowed in the chat's dialog after 10 s: the CLI 2.1.332's record
            call("asked", "2020-01-02T10:00:01.000Z"),
            result(
                "asked",
                "2020-01-02T10:00:11.100Z",
                serde_json::json!({"decision":"accept","source":"user_temporary","grantScope":"once","reasonCode":"unknown"}),
            ),
            // allowed by a rule of the session's: no wait
            call("rule", "2020-01-02T10:00:12.000Z"),
            result(
                "rule",
                "2020-01-02T10:00:12.300Z",
                serde_json::json!({"decision":"accept","source":"user_temporary","reasonType":"rule"}),
            ),
            // allowed by the settings or the mode: no wait
            call("config", "2020-01-02T10:00:13.000Z"),
            result(
                "config",
                "2020-01-02T10:00:13.200Z",
                serde_json::json!({"decision":"accept","source":"config"}),
            ),
            // a hook decided: it may have waited for the deck
            call("hook", "2020-01-02T10:00:14.000Z"),
            result(
                "hook",
                "2020-01-02T10:00:20.000Z",
                serde_json::json!({"decision":"accept","source":"hook","reasonType":"hook"}),
            ),
            // no record (an older CLI): it may have waited
            call("old", "2020-01-02T10:00:21.000Z"),
            result("old", "2020-01-02T10:00:29.000Z", serde_json::Value::Null),
        ]);
        let out = replay(&e, &Here::default(), 80);
        let line = |id: &str| {
            out.lines()
                .find(|l| l.contains(&format!("make {id}")))
                .unwrap_or_else(|| panic!("{id}: {out}"))
                .trim_end()
                .to_owned()
        };
        assert_eq!(line("asked"), "  ✓ Bash  make asked", "{out}");
        assert_eq!(line("rule"), "  ✓ Bash  make rule  0.3s", "{out}");
        assert_eq!(line("config"), "  ✓ Bash  make config  0.2s", "{out}");
        assert_eq!(line("hook"), "  ✓ Bash  make hook", "{out}");
        assert_eq!(line("old"), "  ✓ Bash  make old", "{out}");
        assert!(!out.contains("10.1s") && !out.contains("8.0s"), "{out}");
    }

    /// Each prompt's answer follows it at once, as in the live chat, and
    /// the text after a call is a paragraph of its own: a blank line went
    /// before every answer after the first (no `result` line in a
    /// transcript ended the answer), and none after a call in a turn with
    /// no text before it.
    #[test]
    fn each_answer_follows_its_prompt_and_text_after_a_call_is_a_paragraph() {
        let e = entries(&[
            serde_json::json!({"type":"user","message":{"role":"user","content":"first"}}),
            serde_json::json!({"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"One."}]}}),
            serde_json::json!({"type":"user","message":{"role":"user","content":"second"}}),
            serde_json::json!({"type":"assistant","message":{"id":"m2","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"true"}}]}}),
            serde_json::json!({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}),
            serde_json::json!({"type":"assistant","message":{"id":"m3","role":"assistant","content":[{"type":"text","text":"Two."}]}}),
            serde_json::json!({"type":"user","message":{"role":"user","content":"third"}}),
            serde_json::json!({"type":"assistant","message":{"id":"m4","role":"assistant","content":[{"type":"text","text":"Three."}]}}),
        ]);
        let out = replay(&e, &Here::default(), 40);
        assert!(
            out.starts_with("› first\n  One.\n› second\n  ✓ Bash  true"),
            "{out}"
        );
        assert!(
            out.contains("    │ ok\n\n  Two.\n› third\n  Three.\n"),
            "{out}"
        );
    }

    /// A prompt sent after a `!` command is drawn, after the command and
    /// what it printed, as the chat showed them; it vanished, and its
    /// answer ran on from the one before.
    #[test]
    fn a_prompt_sent_after_a_shell_command_is_drawn() {
        let e = entries(&[
            serde_json::json!({"type":"user","message":{"role":"user","content":"first"}}),
            serde_json::json!({"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"One."}]}}),
            serde_json::json!({"type":"user","message":{"role":"user","content":"<bash-input>ls</bash-input>\n<bash-stdout>a.txt\n</bash-stdout><bash-stderr></bash-stderr>\n\nwhy is a.txt here?"}}),
            serde_json::json!({"type":"assistant","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"Two."}]}}),
        ]);
        let out = replay(&e, &Here::default(), 40);
        // drawn as a second prompt typed alone is
        let plain = entries(&[
            serde_json::json!({"type":"user","message":{"role":"user","content":"first"}}),
            serde_json::json!({"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"One."}]}}),
            serde_json::json!({"type":"user","message":{"role":"user","content":"why is a.txt here?"}}),
            serde_json::json!({"type":"assistant","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"Two."}]}}),
        ]);
        let plain = replay(&plain, &Here::default(), 40);
        assert_eq!(
            out,
            plain.replace("› why", "› !ls\n  │ a.txt\n› why"),
            "{out}"
        );
        assert!(out.contains("› why is a.txt here?\n"), "{out}");
    }

    /// A prompt with tabs is drawn within the width: the rows counted a
    /// tab as nothing and the terminal moved what followed past the edge.
    #[test]
    fn a_prompt_with_tabs_stays_within_the_width() {
        let e = entries(&[
            serde_json::json!({"type":"user","message":{"role":"user","content":"one\ttwo\tthree\tfour\tfive"}}),
        ]);
        let out = replay(&e, &Here::default(), 20);
        assert_eq!(out, "› one    two\n  three    four\n  five\n");
    }
}
