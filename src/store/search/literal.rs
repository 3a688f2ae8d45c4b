//! Finding a literal in decoded text, with or without case.

use std::ops::Range;

/// Every match of `needle` in `text`: byte ranges, not overlapping.
pub(super) fn find_literal(text: &str, needle: &str, ignore_case: bool) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    if needle.is_empty() {
        return out;
    }
    if !ignore_case {
        let mut from = 0;
        while let Some(i) = memchr::memmem::find(&text.as_bytes()[from..], needle.as_bytes()) {
            out.push(from + i..from + i + needle.len());
            from += i + needle.len();
        }
        return out;
    }
    let folded: Vec<char> = needle.chars().flat_map(char::to_lowercase).collect();
    let mut i = 0;
    while i < text.len() {
        let mut pat = folded.iter();
        let mut end = i;
        let mut ok = true;
        let mut want = pat.next();
        for (off, c) in text[i..].char_indices() {
            let Some(_) = want else { break };
            for lc in c.to_lowercase() {
                if want == Some(&lc) {
                    want = pat.next();
                } else {
                    ok = false;
                    break;
                }
            }
            if !ok {
                break;
            }
            end = i + off + c.len_utf8();
        }
        if ok && want.is_none() {
            out.push(i..end);
            i = end;
        } else {
            i += text[i..].chars().next().map_or(1, char::len_utf8);
        }
    }
    out
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
}
