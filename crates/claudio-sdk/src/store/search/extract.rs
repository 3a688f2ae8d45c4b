//! The texts of a transcript entry that are searched, and the hits in them.

use super::{HitKind, MatchFn, SearchHit};
use serde_json::Value;
use std::borrow::Cow;
use std::ops::Range;

/// The texts of one transcript entry that are searched, with their kind.
pub(super) fn texts_of(v: &Value, tools: bool) -> Vec<(HitKind, Cow<'_, str>)> {
    let mut out = Vec::new();
    let kind = v.get("type").and_then(Value::as_str).unwrap_or("");
    if v.get("isMeta").and_then(Value::as_bool) == Some(true) {
        return out;
    }
    let content = v.get("message").and_then(|m| m.get("content"));
    match (kind, content) {
        ("user", Some(Value::String(s))) => out.push((HitKind::Prompt, Cow::Borrowed(s.as_str()))),
        ("user", Some(Value::Array(blocks))) => {
            for b in blocks {
                match b.get("type").and_then(Value::as_str) {
                    Some("text") => {
                        if let Some(t) = b.get("text").and_then(Value::as_str) {
                            out.push((HitKind::Prompt, Cow::Borrowed(t)));
                        }
                    }
                    Some("tool_result") if tools => {
                        out.push((
                            HitKind::ToolOutput,
                            Cow::Owned(result_text(b.get("content"))),
                        ));
                    }
                    _ => {}
                }
            }
        }
        ("assistant", Some(Value::Array(blocks))) => {
            for b in blocks {
                match b.get("type").and_then(Value::as_str) {
                    Some("text") => {
                        if let Some(t) = b.get("text").and_then(Value::as_str) {
                            out.push((HitKind::Answer, Cow::Borrowed(t)));
                        }
                    }
                    Some("tool_use") if tools => {
                        let name = b.get("name").and_then(Value::as_str).unwrap_or("");
                        let mut text = name.to_owned();
                        strings_of(b.get("input").unwrap_or(&Value::Null), &mut text);
                        out.push((HitKind::ToolInput, Cow::Owned(text)));
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
    out
}

/// The string values of a tool input, a line each.
pub(super) fn strings_of(v: &Value, out: &mut String) {
    match v {
        Value::String(s) => {
            out.push('\n');
            out.push_str(s);
        }
        Value::Array(a) => a.iter().for_each(|x| strings_of(x, out)),
        Value::Object(o) => o.values().for_each(|x| strings_of(x, out)),
        _ => {}
    }
}

/// A tool result's text, as the protocol reads it (the string, or its text
/// blocks joined by newlines).
pub(super) fn result_text(content: Option<&Value>) -> String {
    content
        .and_then(|c| serde_json::from_value::<crate::protocol::MessageContent>(c.clone()).ok())
        .map(|c| c.text())
        .unwrap_or_default()
}

/// The longest [`SearchHit::line`], in bytes: a longer line is cut to this
/// much around its first match, and the cuts are marked with `…`.
pub const MAX_HIT_LINE: usize = 2048;

/// A hit's line, cut to [`MAX_HIT_LINE`] around its first match (the
/// ranges moved with it, and cut to what is kept).
pub(super) fn window(line: &str, ranges: Vec<Range<usize>>) -> (String, Vec<Range<usize>>) {
    if line.len() <= MAX_HIT_LINE {
        return (line.to_owned(), ranges);
    }
    let first = ranges.first().map_or(0, |r| r.start);
    let floor = |mut i: usize| {
        while !line.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let start = floor(first.saturating_sub(MAX_HIT_LINE / 4));
    let end = floor((start + MAX_HIT_LINE).min(line.len()));
    let mut out = String::with_capacity(end - start + 8);
    let shift = if start > 0 {
        out.push('…');
        '…'.len_utf8()
    } else {
        0
    };
    out.push_str(&line[start..end]);
    if end < line.len() {
        out.push('…');
    }
    let ranges = ranges
        .into_iter()
        .filter(|r| r.start >= start && r.start < end)
        .map(|r| r.start - start + shift..r.end.min(end) - start + shift)
        .collect();
    (out, ranges)
}

pub(super) fn hits_in_entry(v: &Value, tools: bool, matcher: &MatchFn) -> Vec<SearchHit> {
    let mut hits = Vec::new();
    let field = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
    for (kind, text) in texts_of(v, tools) {
        // the whole text is matched (a pattern may span lines); a hit is
        // the line where a match starts, its matches clipped to that line
        let mut lines: Vec<(Range<usize>, Vec<Range<usize>>)> = Vec::new();
        for m in matcher(&text) {
            if m.start >= text.len() {
                continue;
            }
            let ls = text[..m.start].rfind('\n').map_or(0, |i| i + 1);
            let le = text[m.start..]
                .find('\n')
                .map_or(text.len(), |i| m.start + i);
            let r = m.start - ls..m.end.min(le).max(m.start) - ls;
            match lines.last_mut() {
                Some((line, ranges)) if line.start == ls => ranges.push(r),
                _ => lines.push((ls..le, vec![r])),
            }
        }
        for (line, ranges) in lines {
            let (line, ranges) = window(&text[line], ranges);
            hits.push(SearchHit {
                kind,
                line,
                ranges,
                uuid: field("uuid"),
                timestamp: field("timestamp"),
            });
        }
    }
    hits
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::search::literal::find_literal;
    use serde_json::json;
    use std::sync::Arc;

    #[test]
    #[allow(clippy::single_range_in_vec_init)]
    fn long_hit_lines_are_cut_around_the_first_match() {
        let short = "a needle here";
        assert_eq!(window(short, vec![2..8]), (short.to_owned(), vec![2..8]));
        let line = format!("{}needle{}", "é".repeat(5000), "x".repeat(5000));
        let at = line.find("needle").unwrap();
        let (cut, ranges) = window(&line, vec![at..at + 6]);
        assert!(
            cut.len() <= MAX_HIT_LINE + 2 * '…'.len_utf8(),
            "{}",
            cut.len()
        );
        assert!(cut.starts_with('…') && cut.ends_with('…'));
        assert_eq!(&cut[ranges[0].clone()], "needle");
        // a match at the start: nothing cut before it
        let line = format!("needle{}", "x".repeat(10_000));
        let (cut, ranges) = window(&line, vec![0..6]);
        assert!(cut.starts_with("needle") && cut.ends_with('…'));
        assert_eq!(ranges, vec![0..6]);
    }

    #[test]
    fn entries_give_prompts_answers_and_tools() {
        let m: MatchFn = Arc::new(|t: &str| find_literal(t, "needle", true));
        let user = json!({"type":"user","uuid":"u","timestamp":"t","message":{"content":"line one\nthe NEEDLE here"}});
        let h = hits_in_entry(&user, false, &m);
        assert_eq!(h.len(), 1);
        assert_eq!(h[0].kind, HitKind::Prompt);
        assert_eq!(h[0].line, "the NEEDLE here");
        assert_eq!(h[0].ranges, vec![4..10]);
        assert_eq!(h[0].uuid.as_deref(), Some("u"));
        let tool = json!({"type":"assistant","message":{"content":[{"type":"tool_use","name":"Bash","input":{"command":"grep needle"}},{"type":"text","text":"a needle"}]}});
        assert_eq!(hits_in_entry(&tool, false, &m).len(), 1);
        let both = hits_in_entry(&tool, true, &m);
        assert_eq!(both.len(), 2);
        assert_eq!(both[0].kind, HitKind::ToolInput);
        let result = json!({"type":"user","message":{"content":[{"type":"tool_result","content":"found needle"}]}});
        assert!(hits_in_entry(&result, false, &m).is_empty());
        assert_eq!(
            hits_in_entry(&result, true, &m)[0].kind,
            HitKind::ToolOutput
        );
        let meta = json!({"type":"user","isMeta":true,"message":{"content":"needle"}});
        assert!(hits_in_entry(&meta, true, &m).is_empty());
        // a pattern across lines: the hit is the line it starts on
        let two: MatchFn = Arc::new(|t: &str| find_literal(t, "end\nnext", false));
        let v = json!({"type":"user","message":{"content":"first\nthe end\nnext line"}});
        let h = hits_in_entry(&v, false, &two);
        assert_eq!(h.len(), 1);
        assert_eq!(h[0].line, "the end");
        assert_eq!(h[0].ranges, vec![4..7]);
    }
}
