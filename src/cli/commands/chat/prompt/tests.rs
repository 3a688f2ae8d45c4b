use super::*;
use crate::cli::commands::chat::images;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

fn line(before: &str, after: &str) -> CursorLine {
    CursorLine {
        before: before.into(),
        after: after.into(),
    }
}

fn read(next: Next) -> Start {
    match next {
        Next::Read(start) => start,
        other => panic!("not a read: {other:?}"),
    }
}

fn image() -> Image {
    let mut b = b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR".to_vec();
    b.extend_from_slice(&4u32.to_be_bytes());
    b.extend_from_slice(&3u32.to_be_bytes());
    b.extend_from_slice(&[8, 6, 0, 0, 0]);
    Image::from_bytes(b).unwrap()
}

fn key(c: char, modifiers: KeyModifiers) -> TermEvent {
    TermEvent::Key(KeyEvent::new(KeyCode::Char(c), modifiers))
}

fn enter() -> TermEvent {
    TermEvent::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE))
}

/// The images an owed set attaches to `text` (its markers).
fn attached(owed: &Owed, text: &str) -> Vec<String> {
    images::attach(text, &owed.pasted, None, |_| unreachable!("no paths"))
        .images
        .into_iter()
        .map(|(name, _)| name)
        .collect()
}

#[test]
fn a_fresh_prompt_starts_empty() {
    let mut p = PromptSide::default();
    let start = read(p.next(false));
    assert_eq!(start.line, CursorLine::default());
    assert_eq!(start.to_history, None);
}

#[test]
fn queued_prompts_go_first_in_order_whatever_else_is_owed() {
    let mut p = PromptSide::default();
    p.ahead.queued.extend(["one".to_owned(), "two".to_owned()]);
    p.rewound("back".into());
    assert!(p.has_queued());
    assert_eq!(p.next(true), Next::Queued("one".into()));
    assert_eq!(p.next(false), Next::Queued("two".into()));
    assert!(!p.has_queued());
    assert_eq!(read(p.next(true)).line, line("back", ""));
}

#[test]
fn background_agents_are_waited_for_unless_a_line_is_owed() {
    let mut p = PromptSide::default();
    p.ahead.typed = "half".into();
    assert_eq!(p.next(true), Next::Agents);
    assert_eq!(p.ahead.typed, "half", "the typed line waits with them");
    // after the wait: the line typed meanwhile is the prompt's
    let start = p.start();
    assert_eq!(start.line, line("half", ""));
    assert_eq!(p.ahead.typed, "");
    // an owed line is edited at once, agents or not
    p.mode_cycled(line("a", "b"));
    assert_eq!(read(p.next(true)).line, line("a", "b"));
}

#[test]
fn the_line_typed_during_a_turn_starts_the_next_prompt() {
    let mut p = PromptSide::default();
    p.ahead.typed = "typed ahead".into();
    let start = read(p.next(false));
    assert_eq!(start.line, line("typed ahead", ""));
    assert_eq!(start.to_history, None);
    assert_eq!(
        read(p.next(false)).line,
        CursorLine::default(),
        "taken once"
    );
}

#[test]
fn an_owed_line_takes_the_place_of_the_typed_one_which_goes_to_history() {
    let mut p = PromptSide::default();
    p.ahead.typed = "typed ahead".into();
    p.rewound("rewound".into());
    let start = read(p.next(false));
    assert_eq!(start.line, line("rewound", ""));
    assert_eq!(start.to_history.as_deref(), Some("typed ahead"));
    // a blank typed line is not worth a history entry
    p.ahead.typed = "  ".into();
    p.edited("edited".into());
    let start = read(p.next(false));
    assert_eq!(start.line, line("edited", ""));
    assert_eq!(start.to_history, None);
    assert_eq!(read(p.next(false)).line, CursorLine::default(), "owed once");
}

#[test]
fn shift_tab_keeps_the_line_split_at_the_cursor() {
    let mut p = PromptSide::default();
    p.mode_cycled(line("fix ", "the bug"));
    assert_eq!(read(p.next(false)).line, line("fix ", "the bug"));
}

#[test]
fn the_editor_s_text_and_a_rewound_prompt_come_back_with_the_cursor_at_the_end() {
    let mut p = PromptSide::default();
    p.edited("from the editor".into());
    assert_eq!(read(p.next(false)).line, line("from the editor", ""));
    p.rewound("write notes".into());
    assert_eq!(read(p.next(false)).line, line("write notes", ""));
}

#[test]
fn a_pasted_image_is_a_marker_at_the_cursor_and_goes_with_the_next_prompt() {
    let mut p = PromptSide::default();
    let marker = p.pasted(line("see ", " here"), Some(image()));
    assert_eq!(marker.as_deref(), Some("[Image #1]"));
    let start = read(p.next(false));
    assert_eq!(start.line, line("see [Image #1]", " here"));
    let marker = p.pasted(line("and ", ""), Some(image()));
    assert_eq!(marker.as_deref(), Some("[Image #2]"), "numbered on");
    read(p.next(false));
    let typed = "see [Image #1] here and [Image #2]";
    let owed = p.send("u1".into(), typed);
    assert_eq!(attached(&owed, typed), ["[Image #1]", "[Image #2]"]);
    // sent: the next prompt owes none, and numbers from 1 again
    let owed = p.send("u2".into(), typed);
    assert!(attached(&owed, typed).is_empty());
    assert_eq!(
        p.pasted(line("", ""), Some(image())).as_deref(),
        Some("[Image #1]")
    );
}

#[test]
fn no_image_on_the_clipboard_leaves_the_line_as_it_was() {
    let mut p = PromptSide::default();
    assert_eq!(p.pasted(line("see ", " here"), None), None);
    assert_eq!(read(p.next(false)).line, line("see ", " here"));
    assert!(attached(&p.send("u".into(), "[Image #1]"), "[Image #1]").is_empty());
}

#[test]
fn shell_output_goes_with_the_next_prompt_only() {
    let mut p = PromptSide::default();
    p.shell_ran("<bash-input>a</bash-input>".into());
    p.shell_ran("<bash-input>b</bash-input>".into());
    let owed = p.send("u1".into(), "what now?");
    assert_eq!(
        owed.shell,
        ["<bash-input>a</bash-input>", "<bash-input>b</bash-input>"]
    );
    assert!(p.send("u2".into(), "and then?").shell.is_empty());
}

#[test]
fn each_prompt_is_kept_as_typed_by_its_uuid() {
    let mut p = PromptSide::default();
    p.shell_ran("context".into());
    p.send("u1".into(), "first /a/b.png");
    p.send("u2".into(), "second");
    assert_eq!(p.typed().len(), 2);
    assert_eq!(p.typed()["u1"], "first /a/b.png", "without the context");
    assert_eq!(p.typed()["u2"], "second");
}

#[test]
fn keys_left_by_a_turn_join_the_type_ahead_and_ctrl_d_is_kept_once() {
    let mut p = PromptSide::default();
    let mut left: Vec<TermEvent> = "next".chars().map(|c| key(c, KeyModifiers::NONE)).collect();
    left.push(enter());
    p.turn_ended(left);
    assert!(!p.take_eof());
    assert_eq!(p.next(false), Next::Queued("next".into()));
    p.turn_ended(vec![key('d', KeyModifiers::CONTROL)]);
    assert!(p.take_eof(), "Ctrl-D on an empty line");
    assert!(!p.take_eof(), "asked once");
    // a turn without keys left clears it
    p.turn_ended(vec![key('d', KeyModifiers::CONTROL)]);
    p.turn_ended(Vec::new());
    assert!(!p.take_eof());
}

/// Ctrl-D on an empty line typed the instant a turn ended (read with the
/// keys it left) ends the chat at the next prompt, once; it was lost
/// when no background agent worked.
#[test]
fn ctrl_d_left_by_a_turn_ends_the_chat_at_the_next_prompt() {
    let mut p = PromptSide::default();
    p.turn_ended(vec![key('d', KeyModifiers::CONTROL)]);
    assert_eq!(p.next(false), Next::Eof);
    assert!(matches!(p.next(false), Next::Read(_)), "once");
    // with background agents at work, their wait takes it
    p.turn_ended(vec![key('d', KeyModifiers::CONTROL)]);
    assert_eq!(p.next(true), Next::Agents);
    assert!(p.take_eof());
    // a line owed (a rewound prompt) is read, not ended
    p.turn_ended(vec![key('d', KeyModifiers::CONTROL)]);
    p.rewound("edit me".into());
    assert!(matches!(p.next(false), Next::Read(_)));
}

#[test]
fn the_status_line_is_due_once_after_each_turn() {
    let mut p = PromptSide::default();
    assert!(!p.status_due(0), "not before the first turn");
    assert!(p.status_due(1));
    assert!(!p.status_due(1), "once per turn");
    assert!(p.status_due(2));
    assert!(!p.status_due(2));
}
