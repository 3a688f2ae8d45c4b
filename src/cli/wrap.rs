//! Lines that are longer than the terminal is wide, broken at spaces by
//! claudio itself: each row keeps the line's indent (and a box's side), and
//! nothing is cut. Left to the terminal, a long line wraps mid-word (or
//! mid-path) to the first column; cut to the width, it loses what the
//! person must read.
//!
//! Colours (SGR sequences) count for nothing and are never split; a colour
//! open at a break is closed at the end of the row and opened again after
//! the next row's indent.

use unicode_width::UnicodeWidthChar;

/// The fewest columns a row leaves for text, however narrow the terminal.
const MIN_ROOM: usize = 8;

/// `text` (one line) in rows of at most `width` columns, broken at spaces:
/// the first row starts with `first`, every later one with `rest`, and the
/// line's own indent (its leading spaces, and a list marker such as `1. `
/// or `- `) is kept on every row. A word longer than a row is broken where
/// the row ends.
pub fn wrap(text: &str, width: usize, first: &str, rest: &str) -> Vec<String> {
    let hang = " ".repeat(hang_width(text));
    wrap_exact(text, width, first, &format!("{rest}{hang}"))
}

/// [`wrap`] with every later row starting with `rest` and nothing more
/// (for text whose indent is not its own, such as a diff's line numbers).
pub fn wrap_exact(text: &str, width: usize, first: &str, rest: &str) -> Vec<String> {
    let room_of = |prefix: &str| width.saturating_sub(visible_width(prefix)).max(MIN_ROOM);
    let mut rows = Vec::new();
    let mut row = first.to_owned();
    let mut room = room_of(first);
    let mut used = 0;
    // the colours open where the text has got to
    let mut open = String::new();
    // the line's own indent, colours before it included, stays as it is
    let mut lead = 0;
    for unit in units(text) {
        if unit == " " {
            used += 1;
        } else if unit.starts_with('\x1b') {
            note_colour(unit, &mut open);
        } else {
            break;
        }
        lead += unit.len();
    }
    row.push_str(&text[..lead]);
    let mut break_row = |row: &mut String, used: &mut usize, room: &mut usize, open: &str| {
        // the space the break takes is not drawn
        row.truncate(row.trim_end_matches(' ').len());
        if !open.is_empty() {
            row.push_str("\x1b[0m");
        }
        rows.push(std::mem::replace(row, format!("{rest}{open}")));
        *used = 0;
        *room = room_of(rest);
    };
    for (i, word) in text[lead..].split(' ').enumerate() {
        let w = visible_width(word);
        if i > 0 {
            if used > 0 && used + 1 + w <= room {
                row.push(' ');
                used += 1;
            } else if used > 0 && w > 0 {
                break_row(&mut row, &mut used, &mut room, &open);
            } else if used > 0 && used < room {
                // a second space in a row
                row.push(' ');
                used += 1;
                continue;
            }
        }
        for unit in units(word) {
            let uw = unit_width(unit);
            if used + uw > room && used > 0 {
                break_row(&mut row, &mut used, &mut room, &open);
            }
            if unit.starts_with('\x1b') {
                note_colour(unit, &mut open);
            }
            row.push_str(unit);
            used += uw;
        }
    }
    rows.push(row);
    rows
}

/// Keep track of the colours open: a reset closes them all.
fn note_colour(unit: &str, open: &mut String) {
    if unit == "\x1b[0m" || unit == "\x1b[m" {
        open.clear();
    } else if unit.ends_with('m') {
        open.push_str(unit);
    }
}

/// [`wrap`], each row ended with a newline.
pub fn wrapped(text: &str, width: usize, first: &str, rest: &str) -> String {
    wrap(text, width, first, rest)
        .into_iter()
        .map(|r| r + "\n")
        .collect()
}

/// The columns `s` takes on the screen (colour sequences take none).
pub fn visible_width(s: &str) -> usize {
    units(s).map(unit_width).sum()
}

/// The text's own indent: its leading spaces and a list marker after them.
fn hang_width(text: &str) -> usize {
    let plain = crate::cli::markdown::strip_sgr(text);
    let body = plain.trim_start_matches(' ');
    let lead = plain.len() - body.len();
    let marker = if ["- ", "* ", "• ", "+ "].iter().any(|m| body.starts_with(m)) {
        2
    } else {
        let digits = body.chars().take_while(char::is_ascii_digit).count();
        if digits > 0 && body[digits..].starts_with(". ") {
            digits + 2
        } else {
            0
        }
    };
    lead + marker
}

/// Characters, and escape sequences whole.
fn units(s: &str) -> impl Iterator<Item = &str> {
    let mut at = 0;
    std::iter::from_fn(move || {
        let rest = &s[at..];
        let mut chars = rest.char_indices();
        let (_, c) = chars.next()?;
        let len = if c == '\x1b' && rest[1..].starts_with('[') {
            rest[2..]
                .find(|d: char| d.is_ascii_alphabetic() || d == '~')
                .map_or(rest.len(), |end| end + 3)
        } else {
            c.len_utf8()
        };
        at += len;
        Some(&rest[..len])
    })
}

fn unit_width(unit: &str) -> usize {
    match unit.chars().next() {
        Some('\x1b') | None => 0,
        Some(c) => c.width().unwrap_or(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn breaks_at_spaces_and_keeps_the_indent() {
        let rows = wrap(
            "Which database should we use for the store?",
            20,
            "  ",
            "  ",
        );
        assert_eq!(
            rows,
            ["  Which database", "  should we use for", "  the store?"]
        );
        for r in &rows {
            assert!(visible_width(r) <= 20, "{r:?}");
        }
    }

    #[test]
    fn a_list_item_hangs_under_its_text_and_a_box_keeps_its_side() {
        let rows = wrap(
            "1. Add a test for /src/billing/totals.rs",
            24,
            "  │ ",
            "  │ ",
        );
        assert_eq!(
            rows,
            [
                "  │ 1. Add a test for",
                "  │    /src/billing/tota",
                "  │    ls.rs"
            ]
        );
    }

    #[test]
    fn nothing_is_cut_and_a_short_line_is_untouched() {
        let long = "x".repeat(30);
        let rows = wrap(&long, 12, "", "");
        assert_eq!(rows.concat(), long);
        assert!(rows.iter().all(|r| r.len() <= 12), "{rows:?}");
        assert_eq!(wrap("  short  one", 80, "", ""), ["  short  one"]);
        assert_eq!(wrap("", 80, "> ", ""), ["> "]);
    }

    #[test]
    fn an_indent_after_a_colour_is_kept() {
        let rows = wrap_exact("\x1b[31m    3 -  one two\x1b[0m", 14, "", "         ");
        assert_eq!(
            rows,
            ["\x1b[31m    3 -  one\x1b[0m", "         \x1b[31mtwo\x1b[0m"]
        );
    }

    #[test]
    fn colours_take_no_room_and_are_reopened_after_a_break() {
        let text = "\x1b[2mone two three four\x1b[0m five";
        let rows = wrap(text, 10, "", "");
        assert_eq!(
            rows,
            ["\x1b[2mone two\x1b[0m", "\x1b[2mthree four\x1b[0m", "five"]
        );
    }
}
