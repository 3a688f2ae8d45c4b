//! Finding a literal in decoded text, with or without case.
//!
//! Case is folded as ripgrep folds it (`rg -i`, and `regex-syntax`'s
//! case-insensitive matching, which `sessions search --regex` uses): Unicode
//! simple case folding, one character for one. A character of the pattern
//! matches every character of its folding class: `s` matches `S` and the
//! long s `ſ`, `k` the Kelvin sign `K`, `ς` matches `σ` and `Σ`. So a literal
//! and the regex of the same text find the same matches.

use regex_syntax::hir::{ClassUnicode, ClassUnicodeRange};
use std::ops::Range;

/// The characters that `c` matches when case is folded (`c` included), in
/// order: its class under Unicode simple case folding.
pub(super) fn fold_class(c: char) -> Vec<char> {
    let mut class = ClassUnicode::new([ClassUnicodeRange::new(c, c)]);
    // with the `unicode-case` tables built in, this cannot fail
    if class.try_case_fold_simple().is_err() {
        return vec![c];
    }
    class
        .ranges()
        .iter()
        .flat_map(|r| (r.start()..=r.end()).take(16))
        .collect()
}

/// A literal to find, its folding classes worked out once.
#[derive(Debug, Clone)]
pub(super) struct Literal {
    needle: String,
    /// With case folded: the class of each character of the needle.
    classes: Option<Vec<Vec<char>>>,
}

impl Literal {
    pub(super) fn new(needle: &str, ignore_case: bool) -> Literal {
        Literal {
            needle: needle.to_owned(),
            classes: ignore_case.then(|| needle.chars().map(fold_class).collect()),
        }
    }

    /// Every match in `text`: byte ranges, leftmost first, not overlapping.
    pub(super) fn find(&self, text: &str) -> Vec<Range<usize>> {
        let mut out = Vec::new();
        if self.needle.is_empty() {
            return out;
        }
        let Some(classes) = &self.classes else {
            let needle = self.needle.as_bytes();
            let mut from = 0;
            while let Some(i) = memchr::memmem::find(&text.as_bytes()[from..], needle) {
                out.push(from + i..from + i + needle.len());
                from += i + needle.len();
            }
            return out;
        };
        let mut i = 0;
        while i < text.len() {
            let mut chars = text[i..].char_indices();
            let mut end = i;
            let whole = classes.iter().all(|class| match chars.next() {
                Some((off, c)) if class.contains(&c) => {
                    end = i + off + c.len_utf8();
                    true
                }
                _ => false,
            });
            if whole {
                out.push(i..end);
                i = end;
            } else {
                i += text[i..].chars().next().map_or(1, char::len_utf8);
            }
        }
        out
    }
}

/// Every match of `needle` in `text`: byte ranges, not overlapping.
#[cfg(test)]
pub(super) fn find_literal(text: &str, needle: &str, ignore_case: bool) -> Vec<Range<usize>> {
    Literal::new(needle, ignore_case).find(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_fold_case_and_keep_offsets() {
        assert_eq!(
            find_literal("a Rust crab, rust", "rust", true),
            vec![2..6, 13..17]
        );
        assert_eq!(find_literal("a Rust crab, rust", "Rust", false), vec![2..6]);
        assert_eq!(
            find_literal("ÉCOLE école", "école", true),
            vec![0..6, 7..13]
        );
        assert!(find_literal("abc", "", true).is_empty());
    }

    /// ripgrep's folding, as `search -e` and `rg -i` have it: the long s
    /// is an s, a final sigma a sigma, in both directions (a literal found
    /// none of these: the fourth attack round).
    #[test]
    fn case_is_folded_as_ripgrep_folds_it() {
        assert_eq!(find_literal("ſecret", "secret", true), vec![0..7]);
        assert_eq!(find_literal("ſecret", "SECRET", true), vec![0..7]);
        assert_eq!(find_literal("SECRET", "ſecret", true), vec![0..6]);
        assert_eq!(
            find_literal("ΣΊΣΥΦΟΣ", "σίσυφος", true),
            vec![0.."ΣΊΣΥΦΟΣ".len()]
        );
        assert_eq!(
            find_literal("σίσυφος", "ΣΊΣΥΦΟΣ", true),
            vec![0.."σίσυφος".len()]
        );
        assert_eq!(find_literal("\u{212A}elvin", "kelvin", true), vec![0..8]);
        // not folded: exact bytes only
        assert!(find_literal("ſecret", "secret", false).is_empty());
        // simple folding maps one character to one: ß is not "ss", İ not "i̇"
        assert!(find_literal("strasse", "straße", true).is_empty());
        assert_eq!(fold_class('k'), ['K', 'k', '\u{212A}']);
    }
}
