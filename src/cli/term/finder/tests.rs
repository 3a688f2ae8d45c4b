//! The finder, fed keys, with no terminal.

use super::*;

fn row(id: &str, title: &str, modified: i64, here: bool) -> Row {
    Row {
        id: id.into(),
        title: title.into(),
        prompt: format!("prompt of {title}"),
        branch: if id.starts_with('b') {
            "feature".into()
        } else {
            String::new()
        },
        tag: String::new(),
        cwd: None,
        modified,
        here,
    }
}

fn k(code: KeyCode) -> KeyEvent {
    KeyEvent::from(code)
}

fn typed(f: &mut Finder, text: &str) {
    for c in text.chars() {
        f.key(k(KeyCode::Char(c)));
    }
}

fn ids(f: &Finder) -> Vec<String> {
    f.shown.iter().map(|&i| f.rows[i].id.clone()).collect()
}

#[test]
fn newest_first_filtered_as_you_type_and_enter_resumes() {
    let mut f = Finder::new(vec![
        row("a1", "fix the parser", 10, true),
        row("b2", "write docs", 30, true),
        row("c3", "parser speed", 20, true),
        row("d4", "elsewhere", 40, false),
    ]);
    assert_eq!(ids(&f), ["b2", "c3", "a1"], "this directory, newest first");
    typed(&mut f, "parser");
    assert_eq!(ids(&f), ["c3", "a1"]);
    f.key(k(KeyCode::Down));
    assert_eq!(
        f.key(k(KeyCode::Enter)),
        Some(Step::Resume(row("a1", "fix the parser", 10, true)))
    );
    // words match any field: the branch here
    f.key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL));
    typed(&mut f, "feature");
    assert_eq!(ids(&f), ["b2"]);
    assert_eq!(f.key(k(KeyCode::Esc)), Some(Step::Cancel));
}

#[test]
fn ctrl_a_shows_every_project_loading_them_once() {
    let mut f = Finder::new(vec![row("a1", "here", 10, true)]);
    let ctrl_a = KeyEvent::new(KeyCode::Char('a'), KeyModifiers::CONTROL);
    assert_eq!(f.key(ctrl_a), Some(Step::LoadAll));
    f.set_rows(vec![
        row("a1", "here", 10, true),
        row("z9", "there", 50, false),
    ]);
    assert_eq!(ids(&f), ["z9", "a1"]);
    assert_eq!(f.selected().unwrap().id, "a1", "the highlighted row stays");
    assert_eq!(f.key(ctrl_a), Some(Step::Redraw));
    assert_eq!(ids(&f), ["a1"]);
    assert_eq!(f.key(ctrl_a), Some(Step::Redraw), "loaded once");
    assert_eq!(ids(&f), ["z9", "a1"]);
}

#[test]
fn tab_searches_inside_the_conversations() {
    let mut f = Finder::new(vec![row("a1", "one", 10, true), row("b2", "two", 20, true)]);
    f.key(k(KeyCode::Tab));
    typed(&mut f, "tokio");
    // the text is not in any title: Enter asks for a search first
    assert_eq!(
        f.key(k(KeyCode::Enter)),
        Some(Step::Search {
            text: "tokio".into(),
            all: false
        })
    );
    f.found("tokio", HashSet::from(["a1".to_owned()]));
    assert_eq!(ids(&f), ["a1"]);
    assert!(matches!(f.key(k(KeyCode::Enter)), Some(Step::Resume(r)) if r.id == "a1"));
    // typing more makes the results stale again
    typed(&mut f, "::spawn");
    assert!(matches!(
        f.key(k(KeyCode::Enter)),
        Some(Step::Search { .. })
    ));
}

#[test]
fn the_drawing_names_scope_rows_and_preview_inertly() {
    let mut f = Finder::new(vec![row("a1234567890", "fix \u{1b}[2Jit", 10, true)]);
    f.rows[0].title = Sanitizer::clean(&f.rows[0].title);
    assert_eq!(f.wants_preview(), Some("a1234567890"));
    f.set_preview(
        "a1234567890",
        last_exchange(Some("why?"), Some("because\n\nreasons\u{1b}]0;x\u{7}")),
    );
    assert_eq!(f.wants_preview(), None);
    let text = f.lines(Style::plain(), 80, 10 + 3_600_000).join("\n");
    assert!(text.contains("this directory · 1 of 1"), "{text}");
    assert!(text.contains("› a1234567"), "{text}");
    assert!(text.contains("fix it"), "{text}");
    assert!(
        text.contains("│ › why?") && text.contains("│ reasons"),
        "{text}"
    );
    assert!(!text.contains('\u{1b}'), "{text:?}");
    for line in text.lines() {
        assert!(unicode_width::UnicodeWidthStr::width(line) <= 80, "{line}");
    }
}

#[test]
fn the_filter_is_fuzzy_and_ranks_substrings_then_tight_matches_then_newest() {
    let mut f = Finder::new(vec![
        row("a1", "Write me a haiku", 10, true),
        row("a2", "wire the rate keeper hook unit", 50, true),
        row("a3", "nothing alike", 60, true),
        row("a4", "write a haiku again", 5, true),
    ]);
    typed(&mut f, "wrt hku");
    // both haiku rows match as tightly; the newer first; the scattered one last
    assert_eq!(ids(&f), ["a1", "a4", "a2"]);
    // a word as typed outranks any scattered match, however new
    f.key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL));
    typed(&mut f, "hook");
    assert_eq!(ids(&f), ["a2"]);
    f.key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL));
    typed(&mut f, "haiku");
    assert_eq!(ids(&f)[..2], ["a1", "a4"]);
    // smart case: a capital makes the case count
    f.key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL));
    typed(&mut f, "Wrt");
    assert_eq!(ids(&f), ["a1"]);
    // an id by its letters together, never scattered
    f.key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL));
    typed(&mut f, "a3");
    assert_eq!(ids(&f), ["a3"]);
    // no query: newest first again
    f.key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL));
    assert_eq!(ids(&f), ["a3", "a2", "a1", "a4"]);
}

#[test]
fn the_keys_line_says_what_each_key_does_now() {
    let mut f = Finder::new(vec![row("a1", "one", 10, true)]);
    assert_eq!(
        f.keys(),
        "↑↓ move · Enter resume · Tab search text · Ctrl-A all projects · Esc cancel"
    );
    typed(&mut f, "zzz");
    assert_eq!(
        f.keys(),
        "Tab search text · Ctrl-A all projects · Esc cancel",
        "nothing shown: nothing to move to or resume"
    );
    assert_eq!(f.key(k(KeyCode::Enter)), None);
    f.key(k(KeyCode::Tab));
    assert_eq!(
        f.keys(),
        "↑↓ move · Enter search · Tab back to filter · Ctrl-A all projects · Esc cancel"
    );
    assert!(matches!(
        f.key(k(KeyCode::Enter)),
        Some(Step::Search { .. })
    ));
    f.found("zzz", HashSet::from(["a1".to_owned()]));
    assert_eq!(
        f.keys(),
        "↑↓ move · Enter resume · Tab back to filter · Ctrl-A all projects · Esc cancel"
    );
    assert!(matches!(f.key(k(KeyCode::Enter)), Some(Step::Resume(_))));
    f.found("zzz", HashSet::new());
    assert_eq!(
        f.keys(),
        "Tab back to filter · Ctrl-A all projects · Esc cancel"
    );
    let ctrl = |c| KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL);
    f.key(ctrl('u'));
    assert_eq!(f.key(ctrl('a')), Some(Step::LoadAll));
    f.set_rows(vec![
        row("a1", "one", 10, true),
        row("z9", "two", 20, false),
    ]);
    assert_eq!(
        f.keys(),
        "↑↓ move · Enter resume · Tab back to filter · Ctrl-A here only · Esc cancel"
    );
    // each key does what the line says
    assert_eq!(ids(&f), ["z9", "a1"]);
    f.key(ctrl('a'));
    assert_eq!(ids(&f), ["a1"], "here only");
    f.key(k(KeyCode::Tab));
    assert!(f.keys().contains("Tab search text"), "{}", f.keys());
    assert_eq!(f.key(k(KeyCode::Esc)), Some(Step::Cancel));
    // every state's line fits 80 columns (with its indent)
    for line in [
        "↑↓ move · Enter search · Tab back to filter · Ctrl-A all projects · Esc cancel",
        "↑↓ move · Enter resume · Tab back to filter · Ctrl-A all projects · Esc cancel",
    ] {
        assert!(
            unicode_width::UnicodeWidthStr::width(line) + 2 <= 80,
            "{line}"
        );
    }
}

/// What the filter costs: ten thousand sessions, a query typed letter by
/// letter (run with `--ignored --nocapture`; a measurement, not a test of
/// time: nothing is asserted about it).
#[test]
#[ignore]
fn ten_thousand_sessions_measured() {
    let words = [
        "fix", "the", "parser", "write", "docs", "haiku", "tokio", "spawn", "rounding", "totals",
    ];
    let rows: Vec<Row> = (0..10_000)
        .map(|i| {
            let title: Vec<&str> = (0..8)
                .map(|j| words[(i * 7 + j * 3) % words.len()])
                .collect();
            let mut r = row(
                &format!("{i:08x}-0000-4000-8000-000000000000"),
                &title.join(" "),
                i as i64,
                true,
            );
            r.prompt = title.repeat(3).join(" ");
            r
        })
        .collect();
    let mut f = Finder::new(rows);
    let started = std::time::Instant::now();
    typed(&mut f, "wrt hku tot");
    let per_key = started.elapsed() / 11;
    println!(
        "10,000 sessions: {per_key:?} a keystroke, {} shown",
        f.shown.len()
    );
}

#[test]
fn the_query_line_wraps_at_a_word_never_cut() {
    let mut f = Finder::new(vec![row("a1", "one", 10, true)]);
    f.key(k(KeyCode::Tab));
    typed(&mut f, "rmb tpot");
    let lines = f.lines(Style::plain(), 40, 0);
    let at = lines
        .iter()
        .position(|l| l == "  search in conversations › rmb tpot")
        .unwrap_or_else(|| panic!("{lines:#?}"));
    assert_eq!(lines[at + 1], "    (Enter searches)", "{lines:#?}");
    for l in &lines {
        assert!(
            unicode_width::UnicodeWidthStr::width(l.as_str()) <= 40,
            "{l}"
        );
    }
}

#[test]
fn only_the_first_words_and_characters_of_a_query_are_used_and_the_line_says_so() {
    let mut f = Finder::new(vec![
        row("a1", "e e e e e e e e", 10, true),
        row("c2", "nothing", 20, true),
    ]);
    // 300 one-letter words: the first 8 are matched, the rest ignored
    typed(&mut f, &"e ".repeat(300));
    assert_eq!(ids(&f), ["a1"]);
    typed(&mut f, "zzz");
    assert_eq!(ids(&f), ["a1"], "a word past the eighth is not used");
    let text = f.lines(Style::plain(), 100, 0).join("\n");
    assert!(text.contains("› …e e e"), "{text}");
    assert!(text.contains("e e zzz  (first 8 words used)"), "{text}");
    // one long word: its first 256 characters are used
    f.key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL));
    assert!(!f
        .lines(Style::plain(), 100, 0)
        .join("\n")
        .contains("only the first"));
    typed(&mut f, "prompt");
    typed(&mut f, &"x".repeat(300));
    assert!(ids(&f).is_empty());
    assert_eq!(fuzzy::capped(&f.query).0.chars().count(), fuzzy::MAX_CHARS);
    assert!(fuzzy::capped(&f.query).1);
    let text = f.lines(Style::plain(), 100, 0).join("\n");
    assert!(text.contains("xxx  (first 256 characters used)"), "{text}");
    // under the caps, nothing is cut
    assert_eq!(fuzzy::capped("a b c "), ("a b c ", false));
    assert_eq!(
        fuzzy::capped("1 2 3 4 5 6 7 8 9"),
        ("1 2 3 4 5 6 7 8 ", true)
    );
    assert_eq!(
        fuzzy::capped("1 2 3 4 5 6 7 8   "),
        ("1 2 3 4 5 6 7 8   ", false)
    );
}

#[test]
fn the_query_line_shows_the_end_of_a_long_query() {
    let mut f = Finder::new(vec![row("a1", "x", 10, true)]);
    let query = format!("START{}THE-END", "m".repeat(200));
    typed(&mut f, &query);
    let lines = f.lines(Style::plain(), 80, 0);
    let line = lines.iter().find(|l| l.contains("filter ›")).unwrap();
    assert!(line.contains("…mmm"), "{line}");
    assert!(line.contains("THE-END"), "{line}");
    assert!(!line.contains("START"), "{line}");
    // the line still fits
    assert!(
        unicode_width::UnicodeWidthStr::width(line.as_str()) <= 80,
        "{line}"
    );
}

#[test]
fn keys_pressed_together_are_filtered_once_and_esc_still_cancels() {
    let rows = || {
        vec![
            row("a1", "fix the parser", 10, true),
            row("b2", "write docs", 30, true),
            row("c3", "parser speed", 20, true),
        ]
    };
    let mut f = Finder::new(rows());
    for c in "parser".chars() {
        assert_eq!(f.press(k(KeyCode::Char(c))), Some(Step::Redraw));
    }
    assert!(f.unsettled, "not filtered per letter");
    // a key that needs the rows filters first
    f.key(k(KeyCode::Down));
    assert!(!f.unsettled);
    assert_eq!(ids(&f), ["c3", "a1"]);
    assert_eq!(f.selected().map(|r| r.id.as_str()), Some("a1"));
    for c in " spd".chars() {
        f.press(k(KeyCode::Char(c)));
    }
    assert_eq!(f.press(k(KeyCode::Esc)), Some(Step::Cancel));
    f.settle();
    assert_eq!(ids(&f), ["c3"]);
}

proptest::proptest! {
    /// Filtering only the rows the shorter query matched (as typing
    /// does) shows the same rows, in the same order, as filtering all.
    #[test]
    fn filtering_as_you_type_matches_a_fresh_filter(
        titles in proptest::collection::vec("[abcAB é-]{0,12}", 0..12),
        // `<`: Backspace
        keys in "[abcAB é<<-]{0,30}",
        ctrl_a_at in 0usize..40,
    ) {
        let rows: Vec<Row> = titles
            .iter()
            .enumerate()
            .map(|(n, t)| row(&format!("{n:x}"), t, (n % 4) as i64, n % 3 != 0))
            .collect();
        let mut f = Finder::new(rows);
        for (n, key) in keys.chars().enumerate() {
            if n == ctrl_a_at {
                f.key(KeyEvent::new(KeyCode::Char('a'), KeyModifiers::CONTROL));
            }
            match key {
                '<' => f.key(k(KeyCode::Backspace)),
                c => f.key(k(KeyCode::Char(c))),
            };
            let typed = ids(&f);
            f.filtered = None;
            f.filter();
            proptest::prop_assert_eq!(typed, ids(&f), "query {:?}", f.query);
        }
    }
}

/// Every project's view names each row's project by its last components
/// (it had no project column: the same title in two projects read alike).
#[test]
fn every_project_s_view_names_the_project() {
    let mut there = row("z9", "fix tests", 50, false);
    there.cwd = Some("/home/me/work/clients/acme-shop".into());
    let mut here = row("a1", "fix tests", 10, true);
    here.cwd = Some("/home/me/code/claudio".into());
    let mut f = Finder::new(vec![here.clone()]);
    let plain = f.lines(Style::plain(), 80, 100).join("\n");
    assert!(
        !plain.contains("claudio  "),
        "no column for one project: {plain}"
    );
    let ctrl_a = KeyEvent::new(KeyCode::Char('a'), KeyModifiers::CONTROL);
    f.key(ctrl_a);
    f.set_rows(vec![here, there]);
    let all = f.lines(Style::plain(), 80, 100).join("\n");
    assert!(all.contains("…clients/acme-shop  fix tests"), "{all}");
    assert!(all.contains("…e/me/code/claudio  fix tests"), "{all}");
    for l in f.lines(Style::plain(), 80, 100) {
        assert!(crate::cli::term::wrap::visible_width(&l) <= 80, "{l}");
    }
}

/// Every project's view on a narrow screen (under 43 columns): no row is
/// wider than the screen, and each keeps a column or more of its title.
/// The project took its 18 columns whatever the width, a row came to 43,
/// wrapped, and every redraw after it landed a row off (copies of the
/// title line stacked up as the person moved or typed).
#[test]
fn every_project_s_view_fits_a_narrow_screen() {
    let mut there = row("z9876543", "fix tests", 50, false);
    there.cwd = Some("/home/me/work/clients/acme-shop".into());
    let mut here = row("a1234567", "fix tests", 10, true);
    here.cwd = Some("/home/me/code/claudio".into());
    let mut f = Finder::new(vec![here.clone()]);
    f.key(KeyEvent::new(KeyCode::Char('a'), KeyModifiers::CONTROL));
    f.set_rows(vec![here, there]);
    for width in 30..=90 {
        let lines = f.lines(Style::plain(), width, 3_600_000);
        for l in &lines {
            assert!(
                crate::cli::term::wrap::visible_width(l) <= width,
                "{width}: {l:?}"
            );
        }
        let rows: Vec<&String> = lines.iter().filter(|l| l.contains("z9")).collect();
        assert_eq!(rows.len(), 1, "{width}: {lines:#?}");
        assert!(rows[0].contains("  f"), "{width}: {:?}", rows[0]);
    }
}

/// The full-text search follows the typing: once the query is 2
/// characters or more and the person pauses, it is due (it waited for
/// Enter); searched, it is not due again until the query changes.
#[test]
fn the_full_text_search_is_due_when_the_typing_pauses() {
    let mut f = Finder::new(vec![row("a1", "one", 10, true)]);
    typed(&mut f, "to");
    assert_eq!(f.search_due(), None, "filtering, not searching");
    f.key(k(KeyCode::Tab));
    assert_eq!(
        f.search_due(),
        Some(Step::Search {
            text: "to".into(),
            all: false
        })
    );
    f.found("to", HashSet::new());
    assert_eq!(f.search_due(), None);
    typed(&mut f, "k");
    assert!(f.search_due().is_some());
    let mut g = Finder::new(vec![row("a1", "one", 10, true)]);
    g.key(k(KeyCode::Tab));
    typed(&mut g, "t");
    assert_eq!(g.search_due(), None, "one character is not enough");
}

/// What the filter matched is marked in the rows, as fzf marks it: a
/// substring whole, else the letters in order; nothing without colour.
#[test]
fn matches_are_marked_as_the_person_types() {
    let color = Style::decide(crate::cli::term::style::ColorChoice::Always, true);
    assert_eq!(
        highlight("Fix the Parser", "parser", color),
        "Fix the \u{1b}[33mParser\u{1b}[39m"
    );
    assert_eq!(
        highlight("write docs", "wd", color),
        "\u{1b}[33mw\u{1b}[39mrite \u{1b}[33md\u{1b}[39mocs"
    );
    assert_eq!(highlight("write docs", "wd", Style::plain()), "write docs");
    let mut f = Finder::new(vec![row("a1", "fix the parser", 10, true)]);
    typed(&mut f, "pars");
    let shown = f.lines(color, 80, 100).join("\n");
    assert!(shown.contains("\u{1b}[33mpars\u{1b}[39m"), "{shown:?}");
}

/// The last exchange as read before the store's typed walk, kept as the
/// oracle.
fn old_exchange(c: &claudio::store::Conversation) -> (Option<String>, Option<String>) {
    use claudio::protocol::{ContentBlock, MessageContent};
    let texts = |content: &MessageContent| -> Option<String> {
        let t = match content {
            MessageContent::Text(t) => t.clone(),
            MessageContent::Blocks(blocks) => {
                if blocks
                    .iter()
                    .any(|b| matches!(b, ContentBlock::ToolResult(_)))
                {
                    return None;
                }
                let parts: Vec<&str> = blocks
                    .iter()
                    .filter_map(|b| match b {
                        ContentBlock::Text(t) => Some(t.text.as_str()),
                        _ => None,
                    })
                    .collect();
                parts.join("\n")
            }
        };
        (!t.trim().is_empty()).then_some(t)
    };
    let mut answer = None;
    for e in c.entries.iter().rev() {
        let Some(content) = e.content() else {
            continue;
        };
        match e.kind() {
            "assistant" if answer.is_none() => answer = texts(&content),
            "user" => {
                if let Some(p) = texts(&content).filter(|p| !claudio::store::is_cli_note(p)) {
                    return (Some(p), answer);
                }
            }
            _ => {}
        }
    }
    (None, answer)
}

/// The last prompt and answer of each session under tests/fixtures are the
/// ones the old walk found.
#[test]
fn the_typed_walk_finds_the_exchange_the_old_one_did() {
    let files = crate::cli::commands::sessions::testing::fixture_transcripts();
    let mut found = 0;
    // the finder lists sessions, not their sub-agents' transcripts
    for f in files
        .iter()
        .filter(|f| !f.to_string_lossy().contains("/subagents/"))
    {
        let c = claudio::store::read_conversation(f).unwrap();
        let new = exchange(&c);
        assert_eq!(new, old_exchange(&c), "{}", f.display());
        found += usize::from(new.0.is_some());
    }
    assert!(found > 2, "{found} prompts");
}

/// A prompt sent after a `!` command is the last prompt, without the
/// command (the entry was taken for a note, and an older prompt shown); a
/// compaction's summary is not a prompt.
#[test]
fn the_last_prompt_is_the_person_s() {
    let conv = |lines: &[serde_json::Value]| {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("s.jsonl");
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(&p, text).unwrap();
        claudio::store::read_conversation(&p).unwrap()
    };
    let c = conv(&[
        serde_json::json!({"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"first"}}),
        serde_json::json!({"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"One."}]}}),
        serde_json::json!({"type":"user","uuid":"u2","parentUuid":"a1","message":{"role":"user","content":"<bash-input>ls</bash-input>\n<bash-stdout>a</bash-stdout><bash-stderr></bash-stderr>\n\nwhy a?"}}),
        serde_json::json!({"type":"assistant","uuid":"a2","parentUuid":"u2","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"Two."}]}}),
    ]);
    assert_eq!(old_exchange(&c).0.as_deref(), Some("first"));
    assert_eq!(exchange(&c), (Some("why a?".into()), Some("Two.".into())));
    let c = conv(&[
        serde_json::json!({"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"first"}}),
        serde_json::json!({"type":"user","uuid":"s1","parentUuid":"u1","isCompactSummary":true,"message":{"role":"user","content":"This session is being continued"}}),
    ]);
    assert_eq!(exchange(&c).0.as_deref(), Some("first"));
}

/// Titles, branches and previews holding what terminals count otherwise
/// than claudio (threats.md class 11) are drawn without the characters
/// terminals dispute (a ZWJ sequence or a variation selector a terminal
/// may draw wider than counted, wrapping the row and landing every redraw
/// after it a row off), and no row is wider than the screen as claudio
/// counts it, whatever the width.
#[test]
fn the_drawing_leaves_out_what_terminals_count_otherwise() {
    let hard = [
        "heart ❤\u{fe0f}❤\u{fe0f}❤\u{fe0f}❤\u{fe0f}❤\u{fe0f}❤\u{fe0f} at the edge of the row",
        "family 👨\u{200d}👩\u{200d}👧 soft\u{ad}hyphen skin 👍🏽 \u{3164}filler",
        "new \u{1fae8}\u{1fa77} emoji and ｗｉｄｅ 漢字",
    ];
    let mut rows: Vec<Row> = hard
        .iter()
        .enumerate()
        .map(|(i, t)| row(&format!("{i}234567890"), t, 10 + i as i64, true))
        .collect();
    rows[0].branch = "main❤\u{fe0f}".into();
    let mut f = Finder::new(rows);
    f.set_preview(
        "2234567890",
        last_exchange(
            Some("why ❤\u{fe0f}?"),
            Some("because 👨\u{200d}👩\u{200d}👧"),
        ),
    );
    for width in 30..=90 {
        for line in f.lines(Style::plain(), width, 3_600_000) {
            let bad: Vec<char> = line
                .chars()
                .filter(|&c| crate::cli::term::wrap::disputed(c))
                .collect();
            assert!(bad.is_empty(), "{width}: {bad:?} in {line:?}");
            assert!(
                crate::cli::term::wrap::visible_width(&line) <= width,
                "{width}: {line:?}"
            );
        }
    }
}

/// In every project's view a project of wide characters takes the room it
/// is drawn in: the title's room was counted by the project cell's
/// characters, not its columns, and a row of a project named in Chinese
/// was wider than the screen (it wrapped, and every redraw after it landed
/// a row off).
#[test]
fn a_project_of_wide_characters_leaves_the_row_within_the_screen() {
    let mut there = row("z9999999-0000", &"long title words ".repeat(8), 50, false);
    there.cwd = Some("/home/me/项目/客户端/网上商店".into());
    let mut here = row("a1111111-0000", "fix tests", 10, true);
    here.cwd = Some("/home/me/code/claudio".into());
    let mut f = Finder::new(vec![here.clone()]);
    f.key(KeyEvent::new(KeyCode::Char('a'), KeyModifiers::CONTROL));
    f.set_rows(vec![here, there]);
    // (from where a row holds its project cell and some of its title)
    for width in 45..=120 {
        let lines = f.lines(Style::plain(), width, 100);
        assert!(lines.iter().any(|l| l.contains("网上商店")), "{lines:?}");
        for l in &lines {
            assert!(
                crate::cli::term::wrap::visible_width(l) <= width,
                "{width}: {l}"
            );
        }
    }
}

/// The preview's answer lines have each tab drawn as 4 spaces: a model's
/// code (Go, a Makefile) kept its tabs, which the terminal moved to its
/// next tab stop past the width the cut counted, so the line wrapped and
/// every redraw after it landed a row off (threats.md class 11).
#[test]
fn a_preview_with_tabs_fits_the_screen() {
    let mut f = Finder::new(vec![row("a1234567", "go code", 10, true)]);
    let code = format!(
        "```go\nfunc main() {{\n\t\t\tfmt.Println(\"{}\")\n}}",
        "x".repeat(200)
    );
    f.set_preview("a1234567", last_exchange(Some("write\tit"), Some(&code)));
    for width in 30..=90 {
        let lines = f.lines(Style::plain(), width, 3_600_000);
        assert!(lines.iter().any(|l| l.contains("fmt.Print")), "{lines:?}");
        for l in &lines {
            assert!(!l.contains('\t'), "{width}: {l:?}");
            assert!(
                crate::cli::term::wrap::visible_width(l) <= width,
                "{width}: {l:?}"
            );
        }
    }
}
