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
    typed(&mut f, "PARSER");
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
