//! Text as a terminal's cells take it: a whole text on one inert line
//! (`flat`), a text's first line (`first_line`), its width in columns, cut
//! (`cut_width`, `cut_left`) and padded to a column; sizes in bytes; the
//! edit distance that a "did you mean" picks by.

use crate::cli::sanitize::Sanitizer;
use crate::cli::term::wrap::{columns, uncertain, undisputed};

/// One line of inert text: controls and escape sequences removed, line
/// breaks and tabs made spaces.
pub(crate) fn flat(s: &str) -> String {
    Sanitizer::clean(s)
        .chars()
        .map(|c| if c == '\n' || c == '\t' { ' ' } else { c })
        .collect()
}

/// Columns a string takes (wide East Asian characters count two), as
/// claudio counts them on a terminal: character by character, one whose
/// width a terminal may give otherwise the most any gives it
/// ([`columns`]).
pub(crate) fn width(s: &str) -> usize {
    crate::cli::term::wrap::visible_width(s)
}

/// What a preview cut after its first lines says of the rest: `… 1 more
/// line`, `… 3 more lines`.
pub fn more_lines(n: usize) -> String {
    if n == 1 {
        "… 1 more line".to_owned()
    } else {
        format!("… {n} more lines")
    }
}

/// Cut `s` to `max` display columns, with an ellipsis.
pub fn cut_width(s: &str, max: usize) -> String {
    if width(s) <= max {
        return s.to_owned();
    }
    let mut out = String::new();
    let mut w = 0;
    for c in s.chars() {
        let cw = columns(c);
        if w + cw + 1 > max {
            break;
        }
        out.push(c);
        w += cw;
    }
    out.push('…');
    out
}

/// The first line of `s`, cut to `max` characters with an ellipsis; a
/// multi-line text says so with `…`. A tab is a space: the row's width
/// counts it as one column (the terminal moved what followed to its next
/// tab stop, past the width of a tool's line). Trimmed as a title is
/// ([`claudio::store::trim_prompt`]), so a session's title in the finder is the one the
/// store made (U+0085 at its end is kept, for the sanitizer to drop as
/// the listing's row drops it).
pub fn first_line(s: &str, max: usize) -> String {
    let trimmed = claudio::store::trim_prompt(s);
    let mut lines = trimmed.lines();
    let first = lines.next().unwrap_or("");
    let more = lines.next().is_some();
    let mut out: String = first
        .chars()
        .take(max)
        .map(|c| if c == '\t' { ' ' } else { c })
        .collect();
    if first.chars().count() > max || more {
        out.push('…');
    }
    out
}

/// Levenshtein distance, by characters.
pub fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let here = row[j + 1];
            row[j + 1] = if ca == *cb {
                prev
            } else {
                1 + prev.min(row[j]).min(here)
            };
            prev = here;
        }
    }
    row[b.len()]
}

/// At most `max` columns, cut from the left with `…` when too long: a
/// path's last components, which tell projects apart.
pub(crate) fn cut_left(s: &str, max: usize) -> String {
    if width(s) <= max {
        return s.to_owned();
    }
    if max == 0 {
        return String::new();
    }
    let mut kept: Vec<char> = Vec::new();
    let mut used = 1; // the `…`
    for c in s.chars().rev() {
        let w = columns(c);
        if used + w > max {
            break;
        }
        used += w;
        kept.push(c);
    }
    kept.reverse();
    format!("…{}", kept.into_iter().collect::<String>())
}

/// One row of a table for a terminal, written from its first column
/// (threats.md class 11): the characters terminals count differently
/// ([`crate::cli::term::wrap::disputed`]) left out, and after a character
/// whose width a terminal may give otherwise ([`uncertain`]) the cursor
/// put at the column claudio counted (CHA), so that the cells after it
/// start where the header's do on any terminal; not at or past the
/// terminal's last column (`cols`), where the cursor cannot wait.
pub(crate) fn table_row(row: &str, cols: usize) -> String {
    let row = undisputed(row);
    if !row.chars().any(uncertain) {
        return row.into_owned();
    }
    let mut out = String::with_capacity(row.len() + 16);
    let mut used = 0;
    let mut chars = row.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c == '\x1b' && row[i + 1..].starts_with('[') {
            // a colour: no room; copied whole
            let end = row[i + 2..]
                .find(|d: char| d.is_ascii_alphabetic() || d == '~')
                .map_or(row.len(), |e| i + 2 + e + 1);
            out.push_str(&row[i..end]);
            while chars.peek().is_some_and(|&(j, _)| j < end) {
                chars.next();
            }
            continue;
        }
        out.push(c);
        used += columns(c);
        if uncertain(c) && used < cols {
            out.push_str(&format!("\x1b[{}G", used + 1));
        }
    }
    out
}

pub(crate) fn pad(s: &str, w: usize) -> String {
    if w == usize::MAX {
        return s.to_owned();
    }
    format!("{s}{}", " ".repeat(w.saturating_sub(width(s))))
}

pub(crate) fn pad_left(s: &str, w: usize) -> String {
    format!("{}{s}", " ".repeat(w.saturating_sub(width(s))))
}

/// A size in bytes, short: `10B`, `158K`, `1.5M`.
pub(crate) fn human_size(n: u64) -> String {
    const UNITS: [&str; 4] = ["K", "M", "G", "T"];
    if n < 1024 {
        return format!("{n}B");
    }
    let mut v = n as f64 / 1024.0;
    let mut unit = 0;
    while v >= 1024.0 && unit < UNITS.len() - 1 {
        v /= 1024.0;
        unit += 1;
    }
    if v < 10.0 {
        format!("{v:.1}{}", UNITS[unit])
    } else {
        format!("{v:.0}{}", UNITS[unit])
    }
}

/// Token counts in short: 950, 12.3k, 4.1M.
pub fn short(n: u64) -> String {
    match n {
        n if n >= 1_000_000 => format!("{:.1}M", n as f64 / 1e6),
        n if n >= 10_000 => format!("{:.0}k", n as f64 / 1e3),
        n if n >= 1_000 => format!("{:.1}k", n as f64 / 1e3),
        n => n.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_cuts() {
        assert_eq!(human_size(10), "10B");
        assert_eq!(human_size(158 * 1024), "158K");
        assert_eq!(human_size(1536 * 1024), "1.5M");
        assert_eq!(cut_width("hello world", 6), "hello…");
        assert_eq!(cut_width("日本語です", 5), "日本…");
        assert_eq!(flat("a\nb\tc\u{1b}[2J"), "a b c");
    }

    /// A title's first line is trimmed as the store trims the title and
    /// the claude TUI its prompt (JavaScript's white space): U+FEFF goes,
    /// U+0085 stays (for the sanitizer, which drops it everywhere).
    #[test]
    fn a_first_line_is_trimmed_as_a_title_is() {
        assert_eq!(
            first_line("\u{feff}\u{3000}fix it\u{85}\u{feff}", 200),
            "fix it\u{85}"
        );
        assert_eq!(first_line("\u{85}", 200), "\u{85}");
    }
}
