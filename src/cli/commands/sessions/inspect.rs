//! `sessions inspect` (alias `show`): a conversation on the terminal, paged
//! when long; its stored lines with `--json`; the lines holding a pattern
//! with `--grep`.

use super::args::InspectArgs;
use super::conversation::{self, Chain};
use super::io::Output;
use super::io::{Io, JsonRows, SessionsOutcome};
use super::pager::{page, page_at};
use super::usage;
use crate::cli::common::exit::{usage_error, Exit};
use crate::cli::term::style::Style;
use crate::cli::term::text::flat;
use claudio::store::Store;
use std::io::Write;

pub(super) fn inspect(
    store: &Store,
    a: InspectArgs,
    io: &mut Io,
) -> anyhow::Result<SessionsOutcome> {
    let (file, conv) = store.conversation(&a.id)?;
    let agents = if a.subagents {
        store.subagents(&file.id)?
    } else {
        Vec::new()
    };
    let output = a.output();
    if output.is_json() && a.grep.is_some() {
        return Err(usage_error!(
            "--grep picks lines of the conversation as shown: it does not go with -o {}",
            if output == Output::Json {
                "json"
            } else {
                "ndjson"
            }
        ));
    }
    if a.grep.as_deref() == Some("") {
        return Err(usage_error!("--grep: the pattern is empty"));
    }
    let grep = a.grep.as_deref().map(|p| Grep::new(p, &a)).transpose()?;
    if output.is_json() {
        if file.is_archived() {
            // the entries are the bytes as stored: the mark goes to stderr
            io.warn(&format!(
                "session {} is read from claudio's archive (the CLI deleted it)",
                file.id
            ));
        }
        // each entry's bytes as stored, in either shape
        let mut rows = JsonRows::new(output);
        for e in &conv.entries {
            if matches!(e.kind(), "user" | "assistant" | "system") {
                rows.push(io, &e.raw)?;
            }
        }
        for agent in &agents {
            for e in store.subagent_messages(&file.id, &agent.agent_id)? {
                rows.push(io, &e.raw)?;
            }
        }
        rows.finish(io)?;
        io.out.flush()?;
        return Ok(SessionsOutcome::Done(Exit::Success));
    }
    let st = io.out_style;
    let info = match store.info_file(&file) {
        Ok(i) => Some(i),
        Err(e) => {
            // an unreadable file is said so; one with nothing to list is not news here
            if matches!(e, claudio::store::StoreError::Io { .. }) {
                io.warn(&format!("{:#}", anyhow::Error::new(e)));
            }
            None
        }
    };
    // on a terminal, lines broken at its width (less, when it pages, is
    // given them so); `--grep`'s lines stay whole, so that a match is not
    // broken across rows
    let width = io.size.filter(|_| grep.is_none()).map(|(w, _)| w);
    let mut text = conversation::head(&file.id, info.as_ref(), st);
    text.push_str(&conversation::body(&conv.entries, Chain::Main, st, width));
    if a.subagents && agents.is_empty() {
        text.push_str(&st.dim("(no sub-agents)\n"));
    }
    for agent in &agents {
        let mut head = format!("── sub-agent {}", agent.agent_id);
        if let Some(d) = &agent.description {
            head.push_str(&format!(" · {}", flat(d)));
        }
        if let Some(t) = &agent.agent_type {
            head.push_str(&format!(" ({})", flat(t)));
        }
        head.push_str(" ──");
        text.push('\n');
        text.push_str(&st.bold(&head));
        text.push('\n');
        let entries = store.subagent_messages(&file.id, &agent.agent_id)?;
        text.push_str(&conversation::body(&entries, Chain::SubAgent, st, width));
    }
    // what the session used, its sub-agents included, under its header line
    match claudio::store::session_usage(&file.path) {
        Ok(u) if u.messages().next().is_some() => {
            let pricer = usage::store_pricer(store, [&u]);
            let line = st.dim(&flat(&usage::summary_line(&u, &pricer)));
            let at = text.find('\n').map_or(text.len(), |i| i + 1);
            text.insert_str(at, &format!("{line}\n"));
        }
        Ok(_) => {}
        Err(e) => io.warn(&format!("usage not shown: {:#}", anyhow::Error::new(e))),
    }
    if let Some(w) = width {
        // the head's lines, and the usage line under them (the body's are
        // broken already: breaking them again changes nothing)
        text = text
            .lines()
            .map(|l| crate::cli::term::wrap::wrapped(&conversation::for_terminal(l), w, "", ""))
            .collect();
    }
    if let Some(grep) = grep {
        let (marked, hits, mut found) = grep_marks(&text, &grep, st);
        if !a.regex && !grep.ignore_case {
            // less looks for the text as typed (with case folded, for the
            // texts that matched: less does not fold `ſ` with `s`)
            found = a.grep.iter().cloned().collect();
        }
        if hits == 0 {
            let pattern = a.grep.as_deref().unwrap_or_default();
            io.warn(&format!("no line of this conversation holds {pattern:?}"));
            return Ok(SessionsOutcome::Done(Exit::Failure));
        }
        if !io.out_tty {
            io.out.write_all(marked.as_bytes())?;
            io.out.flush()?;
            return Ok(SessionsOutcome::Done(Exit::Success));
        }
        // the pager opens at the first marked line, every match marked:
        // less is given the text that matched, not our regex (another
        // pager, the lines that hold it)
        if page_at(&text, &marked, &found, grep.ignore_case && !a.regex).is_ok() {
            return Ok(SessionsOutcome::Done(Exit::Success));
        }
        io.out.write_all(marked.as_bytes())?;
        io.out.flush()?;
        return Ok(SessionsOutcome::Done(Exit::Success));
    }
    let long = io
        .size
        .is_some_and(|(_, rows)| text.lines().count() + 1 > rows);
    if io.out_tty && long && page(&text).is_ok() {
        return Ok(SessionsOutcome::Done(Exit::Success));
    }
    io.out.write_all(text.as_bytes())?;
    io.out.flush()?;
    Ok(SessionsOutcome::Done(Exit::Success))
}

/// `--grep`'s pattern: literal text or (with `--regex`) a regex, smart
/// case unless `-s` or `-i` says.
struct Grep {
    find: Find,
    ignore_case: bool,
}

enum Find {
    Literal(String),
    Regex(regex_automata::meta::Regex),
}

impl Grep {
    fn new(pattern: &str, a: &InspectArgs) -> anyhow::Result<Grep> {
        let has_upper = pattern.chars().any(char::is_uppercase);
        let ignore_case = a.ignore_case || (!a.case_sensitive && !has_upper);
        let find = if a.regex {
            Find::Regex(super::search::build_regex(pattern, ignore_case)?)
        } else if ignore_case {
            // the literal as a regex: case folded as `search` and ripgrep
            // fold it (`ſecret` holds "secret"; lower-casing both did not)
            let escaped = regex_syntax::escape(pattern);
            Find::Regex(super::search::build_regex(&escaped, true)?)
        } else {
            Find::Literal(pattern.to_owned())
        };
        Ok(Grep { find, ignore_case })
    }

    /// Whether `line` holds the pattern (a regex: a match that is not empty).
    fn holds(&self, line: &str) -> bool {
        match &self.find {
            Find::Regex(re) => re.find_iter(line).any(|m| !m.is_empty()),
            Find::Literal(want) => line.contains(want.as_str()),
        }
    }
}

/// At most this many different matched texts are given to the pager to mark.
const MARKED_MAX: usize = 64;

/// The lines of a rendered conversation that hold `grep`'s pattern, each
/// after who said it (`you`, `claude`, or a sub-agent's line); how many
/// there were; and the texts that matched (for the pager to find).
fn grep_marks(text: &str, grep: &Grep, st: Style) -> (String, usize, Vec<String>) {
    let mut speaker = String::new();
    let mut out = String::new();
    let mut hits = 0;
    let mut found: Vec<String> = Vec::new();
    for line in text.lines() {
        let plain = crate::cli::term::wrap::strip_sgr(line);
        let head = plain.split(" · ").next().unwrap_or("");
        if matches!(head, "you" | "claude") || plain.starts_with("── sub-agent") {
            speaker = plain.clone();
            continue;
        }
        if !grep.holds(&plain) {
            continue;
        }
        hits += 1;
        if let Find::Regex(re) = &grep.find {
            for m in re.find_iter(&plain).filter(|m| !m.is_empty()) {
                let text = &plain[m.range()];
                if found.len() < MARKED_MAX && !found.iter().any(|f| f == text) {
                    found.push(text.to_owned());
                }
            }
        }
        out.push_str(&format!(
            "{} {}\n",
            st.dim(&format!("{speaker} ›")),
            plain.trim_start()
        ));
    }
    (out, hits, found)
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;

    /// `inspect --grep`, `show --grep` and `search` fold case as `search
    /// -e` and ripgrep do: `secret` is in `ſecret`, `σίσυφος` in `ΣΊΣΥΦΟΣ`
    /// (lower-casing both found neither: the fourth attack round).
    #[test]
    fn grep_and_search_fold_case_as_ripgrep() {
        let d = store();
        let c = "cccccccc-3333-4333-8333-333333333333";
        let line = serde_json::json!({"type":"user","uuid":"30000000-0000-4000-8000-000000000001",
            "parentUuid":null,"sessionId":c,"cwd":"/work/proj","timestamp":"2026-01-03T10:00:00.000Z",
            "message":{"role":"user","content":"the \u{17F}ecret of \u{3A3}\u{38A}\u{3A3}\u{3A5}\u{3A6}\u{39F}\u{3A3}"}});
        std::fs::write(
            d.path().join(format!("projects/-work-proj/{c}.jsonl")),
            format!("{line}\n"),
        )
        .unwrap();
        let dir = cfg(&d);
        let run = |args: &[&str]| {
            let args = [&["--config-dir", dir.as_str()][..], args].concat();
            let r = run_args(&args, "/nonexistent".as_ref(), "/".as_ref());
            let found = matches!(
                r.outcome,
                Ok(super::SessionsOutcome::Done(
                    crate::cli::common::exit::Exit::Success
                ))
            );
            (found, r.out.text())
        };
        for cmd in ["inspect", "show"] {
            for grep in [&["secret"][..], &["SECRET", "-i"], &["σίσυφος"]] {
                let args = [&[cmd, &c[..8], "--grep"][..], grep].concat();
                let (found, out) = run(&args);
                assert!(found && out.contains("\u{17F}ecret"), "{args:?}: {out}");
            }
            // case matters: not found
            let (found, _) = run(&[cmd, &c[..8], "--grep", "SECRET"]);
            assert!(!found);
        }
        for args in [
            &["search", "--all", "secret"][..],
            &["search", "--all", "-i", "SECRET"],
            &["search", "--all", "σίσυφος"],
        ] {
            let (found, out) = run(args);
            assert!(found && out.contains("cccccccc"), "{args:?}: {out}");
        }
    }

    #[test]
    fn inspect_renders_and_json_keeps_the_bytes() {
        let d = store();
        let r = run_args(
            &["--config-dir", &cfg(&d), "inspect", "aaaaaaaa"],
            "/nonexistent".as_ref(),
            "/".as_ref(),
        );
        r.outcome.unwrap();
        let out = r.out.text();
        for want in [
            "session aaaaaaaa-1111-4111-8111-111111111111 · /work/proj · main",
            "you · ",
            "fix the bug",
            "claude · ",
            "✻ let me look",
            "⏺ Bash cargo test",
            "⎿ 1",
            "… 2 more lines",
            "Fixed it.",
        ] {
            assert!(out.contains(want), "{want:?} missing in:\n{out}");
        }
        assert!(!out.contains('\u{1b}'), "{out:?}");
        let r = run_args(
            &["--config-dir", &cfg(&d), "show", A, "--json"],
            "/nonexistent".as_ref(),
            "/".as_ref(),
        );
        r.outcome.unwrap();
        let file = std::fs::read_to_string(d.path().join(format!("projects/-work-proj/{A}.jsonl")))
            .unwrap();
        assert_eq!(r.out.text(), file);
    }
}
