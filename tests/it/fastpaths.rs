//! The store's byte-level fast paths (listing, search, usage, prompts,
//! timestamps, `cwd`) give the answer a full parse gives, whatever form the
//! JSON lines take: the CLI's compact form, the same lines re-serialised
//! with spaces, with their keys in another order, or with non-ASCII text
//! `\u`-escaped, as any JSON tool may rewrite a transcript. Differential
//! property tests: the same session written in each form, and each answer
//! compared with the compact form's and with one computed from a full
//! `serde_json` parse.

use claudio::store::{file_usage, ListOptions, Pattern, SearchOptions, Store};
use proptest::prelude::*;
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::ops::ControlFlow;

/// How a line is written.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Form {
    /// `", "` and `": "` between items (one line still).
    spaced: bool,
    /// Object keys in reverse order.
    reversed: bool,
    /// Non-ASCII characters as `\uXXXX` (surrogate pairs beyond the BMP).
    ascii: bool,
    /// Each key's first letter as a `\u00XX` escape (`"\u0075sage"`).
    keys: bool,
    /// Each line led by NUL and control bytes (a block a crash zero-filled
    /// before the line): every reader reads from the first byte past a
    /// blank, as the conversation's reader did.
    lead: bool,
}

const COMPACT: Form = Form {
    spaced: false,
    reversed: false,
    ascii: false,
    keys: false,
    lead: false,
};

const FORMS: [Form; 5] = [
    COMPACT,
    Form {
        lead: true,
        ..COMPACT
    },
    Form {
        spaced: true,
        reversed: false,
        ascii: false,
        keys: false,
        lead: false,
    },
    Form {
        spaced: false,
        reversed: true,
        ascii: false,
        keys: false,
        lead: false,
    },
    Form {
        spaced: false,
        reversed: false,
        ascii: true,
        keys: false,
        lead: false,
    },
];

/// Keys with `\u` escapes: the usage counts them as the same keys. (Not
/// one of [`FORMS`]: the listing follows the SDK's textual rules, which
/// do not read them.)
const KEYS: Form = Form {
    keys: true,
    ..COMPACT
};

fn emit_str(s: &str, f: Form, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            // a lone surrogate, as `JSON.stringify` writes a string cut
            // inside an emoji: every parse reads it as U+FFFD
            '\u{FFFD}' if f.reversed => out.push_str("\\udc00"),
            '\u{FFFD}' => out.push_str("\\ud83d"),
            c if f.ascii && !c.is_ascii() => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{u:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn emit(v: &Value, f: Form, out: &mut String) {
    let (comma, colon) = if f.spaced { (", ", ": ") } else { (",", ":") };
    match v {
        Value::Object(m) => {
            out.push('{');
            let mut keys: Vec<&String> = m.keys().collect();
            if f.reversed {
                keys.reverse();
            }
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push_str(comma);
                }
                if f.keys && k.starts_with(|c: char| c.is_ascii_alphabetic()) {
                    let mut rest = String::new();
                    emit_str(&k[1..], f, &mut rest);
                    out.push_str(&format!("\"\\u{:04x}{}", k.as_bytes()[0], &rest[1..]));
                } else {
                    emit_str(k, f, out);
                }
                out.push_str(colon);
                emit(&m[k], f, out);
            }
            out.push('}');
        }
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push_str(comma);
                }
                emit(x, f, out);
            }
            out.push(']');
        }
        Value::String(s) => emit_str(s, f, out),
        other => out.push_str(&other.to_string()),
    }
}

/// One generated session: its entries, in order.
#[derive(Debug, Clone)]
struct Session {
    entries: Vec<Value>,
    /// A word that occurs in one of its prompts (to search for).
    word: String,
    /// What each prompt holds in [`with_media`]'s session (an image, a
    /// document, a tool's result, a blank), in turn.
    media: Vec<usize>,
}

const ID: &str = "5e55105e-0000-4000-8000-000000000001";

/// Text people type: letters, digits, quotes, backslashes, newlines,
/// accents, CJK and emoji; an emoji cut in half (U+FFFD here, written as a
/// lone surrogate escape); a Kelvin sign and a long s (`K` lowercases to
/// an ASCII `k`, `ſ` to itself).
fn text() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            8 => "[a-z]{1,8}",
            1 => Just("\"quoted\"".to_owned()),
            1 => Just("back\\slash".to_owned()),
            1 => Just("\n".to_owned()),
            1 => Just("café".to_owned()),
            1 => Just("日本語".to_owned()),
            1 => Just("🦀".to_owned()),
            1 => Just("naïve ÉCOLE".to_owned()),
            1 => Just("\u{FFFD}".to_owned()),
            1 => Just("cut\u{FFFD}🦀".to_owned()),
            1 => Just("\u{212A}ey".to_owned()),
            1 => Just("\u{17F}ea".to_owned()),
        ],
        1..12,
    )
    .prop_map(|parts| parts.join(" "))
}

fn session() -> impl Strategy<Value = Session> {
    (
        proptest::collection::vec((text(), text(), 1u64..5000, 1u64..900, 0usize..3), 1..5),
        "[a-z]{4,10}",
        prop_oneof![Just("/work/p"), Just("/home/zoë/项目"), Just("/tmp/a b")],
        prop_oneof![Just("main"), Just("feature/ünï")],
        proptest::collection::vec(0usize..5, 1..5),
    )
        .prop_map(|(turns, word, cwd, branch, media)| {
            let models = ["claude-sonnet-4-5", "claude-opus-4-1", "claude-haiku-4-5"];
            let mut entries = Vec::new();
            let mut parent = Value::Null;
            for (i, (prompt, answer, input, output, model)) in turns.iter().enumerate() {
                let prompt = if i == 0 {
                    format!("{prompt} {word}")
                } else if *model == 1 {
                    // a person who typed the word: no tool's result
                    "tool_result".to_owned()
                } else {
                    prompt.clone()
                };
                let u = format!("00000000-0000-4000-8000-{:012}", 2 * i + 1);
                let a = format!("00000000-0000-4000-8000-{:012}", 2 * i + 2);
                entries.push(json!({
                    "parentUuid": parent, "isSidechain": false, "userType": "external",
                    "cwd": cwd, "sessionId": ID, "version": "2.1.328", "gitBranch": branch,
                    "type": "user", "message": {"role": "user", "content": prompt},
                    "uuid": u, "timestamp": format!("2026-11-0{}T10:00:00.000Z", i + 1)
                }));
                if *model == 2 {
                    // the word in a field of another name
                    entries.last_mut().unwrap()["slug"] = json!("tool_result");
                }
                entries.push(json!({
                    "parentUuid": u, "isSidechain": false, "userType": "external",
                    "cwd": cwd, "sessionId": ID, "version": "2.1.328", "gitBranch": branch,
                    "message": {"id": format!("msg_{i}"), "type": "message", "role": "assistant",
                        "model": models[*model],
                        "content": [{"type": "text", "text": answer}],
                        "usage": {"input_tokens": input, "output_tokens": output,
                                  "cache_creation_input_tokens": input / 3,
                                  "cache_read_input_tokens": input / 2}},
                    "requestId": format!("req_{i}"), "type": "assistant",
                    "uuid": a, "timestamp": format!("2026-11-0{}T10:00:05.000Z", i + 1)
                }));
                parent = Value::String(a);
            }
            Session {
                entries,
                word,
                media,
            }
        })
}

/// `s` with no prompt to show: each prompt an image, a document, a tool's
/// result holding an image, or a blank, some beside a field of the word
/// `tool_result` (as [`Session::media`] says, in turn). The listing then
/// labels it by its first image or document.
fn with_media(s: &Session) -> Session {
    let mut out = s.clone();
    let users = out.entries.iter_mut().filter(|e| e["type"] == "user");
    for (i, e) in users.enumerate() {
        let source = json!({"type": "base64", "media_type": "image/png", "data": "iVBORw0K"});
        let block = match s.media[i % s.media.len()] {
            0 => json!({"type": "image", "source": source}),
            1 => json!({"type": "image", "source": source, "name": "tool_result"}),
            2 => json!({"type": "document", "title": "tool_result", "source": source}),
            3 => json!({"type": "tool_result", "tool_use_id": "toolu_1",
                "content": [{"type": "image", "source": source}]}),
            _ => json!({"type": "text", "text": " "}),
        };
        e["message"]["content"] = json!([block]);
    }
    out
}

/// The label a full parse gives [`with_media`]'s session: the first
/// user entry's content blocks, not a tool's result, with an image or a
/// document; none: no label (and nothing to list the session by).
fn media_by_full_parse(s: &Session) -> Option<&'static str> {
    for e in s.entries.iter().filter(|e| e["type"] == "user") {
        let types: Vec<&str> = e["message"]["content"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|b| b["type"].as_str())
            .collect();
        if types.contains(&"tool_result") {
            continue;
        }
        if types.contains(&"image") {
            return Some("Image");
        }
        if types.contains(&"document") {
            return Some("Document");
        }
    }
    None
}

/// The title the listing gives the one session of `d`, if it lists it.
fn listed_title(d: &tempfile::TempDir) -> Option<String> {
    let listing = Store::new(d.path()).list(&ListOptions::all()).unwrap();
    listing.sessions.first().map(|s| s.title.clone())
}

/// A store holding `s` written in form `f`.
fn store_of(s: &Session, f: Form) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let folder = d.path().join("projects/-work-p");
    std::fs::create_dir_all(&folder).unwrap();
    let mut text = String::new();
    for e in &s.entries {
        if f.lead {
            text.push_str("\0\0\u{1}\u{b}");
        }
        emit(e, f, &mut text);
        text.push('\n');
    }
    std::fs::write(folder.join(format!("{ID}.jsonl")), text).unwrap();
    d
}

/// The uuids of the conversation `claudio::store::read_conversation` reads.
fn conversation_of(d: &tempfile::TempDir) -> Vec<String> {
    let path = d.path().join(format!("projects/-work-p/{ID}.jsonl"));
    claudio::store::read_conversation(&path)
        .unwrap()
        .entries
        .iter()
        .map(|e| e.uuid().to_owned())
        .collect()
}

/// What a full parse says the session's usage is: per model, the four
/// token counts, the last line per message id and request id counting.
fn usage_by_full_parse(s: &Session) -> HashMap<String, [u64; 4]> {
    let mut last: HashMap<(String, String), &Value> = HashMap::new();
    for e in &s.entries {
        if let Some(id) = e["message"]["id"].as_str() {
            let req = e["requestId"].as_str().unwrap_or("").to_owned();
            last.insert((id.to_owned(), req), e);
        }
    }
    let mut out: HashMap<String, [u64; 4]> = HashMap::new();
    for e in last.values() {
        let u = &e["message"]["usage"];
        let t = out
            .entry(e["message"]["model"].as_str().unwrap().to_owned())
            .or_default();
        for (i, k) in [
            "input_tokens",
            "output_tokens",
            "cache_creation_input_tokens",
            "cache_read_input_tokens",
        ]
        .iter()
        .enumerate()
        {
            t[i] += u[k].as_u64().unwrap_or(0);
        }
    }
    out
}

type UsageSeen = (
    HashMap<String, [u64; 4]>,
    u64,
    Option<String>,
    [Option<i64>; 2],
);

fn usage_of(d: &tempfile::TempDir) -> UsageSeen {
    let path = d.path().join(format!("projects/-work-p/{ID}.jsonl"));
    let u = file_usage(&path).unwrap();
    let by_model = u
        .by_model()
        .into_iter()
        .map(|(m, t)| (m, [t.input, t.output, t.cache_write, t.cache_read]))
        .collect();
    (by_model, u.prompts, u.cwd, [u.first, u.last])
}

/// The listing's fields that do not depend on the bytes' form (the size
/// and time of the file do).
fn listing_of(d: &tempfile::TempDir) -> Map<String, Value> {
    let listing = Store::new(d.path()).list(&ListOptions::all()).unwrap();
    assert_eq!(listing.sessions.len(), 1, "{:?}", listing.skipped);
    let mut v = serde_json::to_value(&listing.sessions[0]).unwrap();
    let o = v.as_object_mut().unwrap();
    o.remove("fileSize");
    o.remove("lastModified");
    o.clone()
}

fn hits_of(d: &tempfile::TempDir, pattern: Pattern) -> Vec<Value> {
    let mut hits = Vec::new();
    Store::new(d.path())
        .search(&SearchOptions::new(pattern).hits_per_session(100), |s| {
            hits.extend(s.hits.iter().map(|h| serde_json::to_value(h).unwrap()));
            ControlFlow::Continue(())
        })
        .unwrap();
    hits
}

/// The first prompt as a full parse reads it (no tags or commands are
/// generated): its text, newlines as spaces, trimmed, cut to 200 UTF-16
/// units.
fn first_prompt_by_full_parse(s: &Session) -> String {
    let p = s.entries[0]["message"]["content"].as_str().unwrap();
    let flat = p.replace('\n', " ");
    let t = flat.trim();
    let units: Vec<u16> = t.encode_utf16().collect();
    if units.len() <= 200 {
        return t.to_owned();
    }
    let mut cut = String::from_utf16_lossy(&units[..200]);
    if cut.ends_with('\u{FFFD}') {
        cut.pop();
    }
    format!("{}…", cut.trim())
}

/// Where `word` (lowercase) occurs in `line` in any case, as ripgrep folds
/// case (Unicode simple case folding, one character for one: a Kelvin sign
/// is a `k`, a long s an `s`): byte ranges.
fn caseless_ranges(line: &str, word: &str) -> Vec<[u64; 2]> {
    let classes: Vec<Vec<char>> =
        word.chars()
            .map(|c| {
                let mut class = regex_syntax::hir::ClassUnicode::new([
                    regex_syntax::hir::ClassUnicodeRange::new(c, c),
                ]);
                class.case_fold_simple();
                class
                    .ranges()
                    .iter()
                    .flat_map(|r| r.start()..=r.end())
                    .collect()
            })
            .collect();
    let mut ranges = Vec::new();
    let mut i = 0;
    while i < line.len() {
        let mut chars = line[i..].char_indices();
        let mut end = i;
        let whole = classes.iter().all(|class| match chars.next() {
            Some((off, c)) if class.contains(&c) => {
                end = i + off + c.len_utf8();
                true
            }
            _ => false,
        });
        if whole {
            ranges.push([i as u64, end as u64]);
            i = end;
        } else {
            i += line[i..].chars().next().map_or(1, char::len_utf8);
        }
    }
    ranges
}

/// The hits a full parse gives for a lowercase word (matched in any case):
/// each line of a prompt or an answer where it occurs, with every match in
/// it, in transcript order.
fn hits_by_full_parse(s: &Session, word: &str) -> Vec<(String, String, Vec<[u64; 2]>, String)> {
    let mut out = Vec::new();
    for e in &s.entries {
        let texts: Vec<(&str, &str)> = match e["type"].as_str() {
            Some("user") => e["message"]["content"]
                .as_str()
                .map(|t| ("prompt", t))
                .into_iter()
                .collect(),
            _ => e["message"]["content"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|b| b["type"] == "text")
                .filter_map(|b| b["text"].as_str().map(|t| ("answer", t)))
                .collect(),
        };
        for (kind, text) in texts {
            for line in text.split('\n') {
                let ranges = caseless_ranges(line, word);
                if !ranges.is_empty() {
                    let uuid = e["uuid"].as_str().unwrap_or("").to_owned();
                    out.push((kind.to_owned(), line.to_owned(), ranges, uuid));
                }
            }
        }
    }
    out
}

/// A search's hits in the shape of [`hits_by_full_parse`].
fn hits_seen(hits: &[Value]) -> Vec<(String, String, Vec<[u64; 2]>, String)> {
    hits.iter()
        .map(|h| {
            let ranges = h["ranges"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| [r["start"].as_u64().unwrap(), r["end"].as_u64().unwrap()])
                .collect();
            (
                h["kind"].as_str().unwrap().to_owned(),
                h["line"].as_str().unwrap().to_owned(),
                ranges,
                h["uuid"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 48,
        // a failure is reported with its minimal input, not kept in a file
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn every_form_gives_the_full_parse_s_answer(s in session()) {
        let forms: Vec<_> = FORMS.iter().map(|f| (*f, store_of(&s, *f))).collect();
        let want_usage = usage_by_full_parse(&s);
        let time = |e: &Value| claudio::store::parse_iso_millis(e["timestamp"].as_str().unwrap());
        let want_times = [time(&s.entries[0]), time(s.entries.last().unwrap())];
        // prompts a person typed: user entries with text to show
        let turns = s
            .entries
            .iter()
            .filter(|e| e["type"] == "user")
            .filter(|e| !e["message"]["content"].as_str().unwrap_or("").trim().is_empty())
            .count() as u64;
        let cwd = s.entries[0]["cwd"].as_str().map(str::to_owned);
        let word_hits = hits_of(&forms[0].1, Pattern::smart(s.word.clone()));
        prop_assert!(!word_hits.is_empty(), "the word is in the first prompt");
        // the prefilter's candidate lines and the classification hide no hit
        prop_assert_eq!(hits_seen(&word_hits), hits_by_full_parse(&s, &s.word));
        let upper = s.word.to_uppercase();
        prop_assert_eq!(
            hits_seen(&hits_of(&forms[0].1, Pattern::Literal { text: upper, ignore_case: true })),
            hits_by_full_parse(&s, &s.word)
        );
        // a sub-agent's transcript (its first entry on a side chain) is no
        // session: its hits are not shown, in any form
        let mut side = s.clone();
        side.entries[0]["isSidechain"] = json!(true);
        for f in FORMS {
            prop_assert!(hits_of(&store_of(&side, f), Pattern::smart(s.word.clone())).is_empty());
        }
        let (by_model, prompts, ucwd, times) = usage_of(&store_of(&s, KEYS));
        prop_assert_eq!(
            (&by_model, prompts, &ucwd, times),
            (&want_usage, turns, &cwd, want_times),
            "usage with escaped keys"
        );
        // the conversation: every entry, each the previous one's child
        let chain: Vec<String> =
            s.entries.iter().map(|e| e["uuid"].as_str().unwrap().to_owned()).collect();
        prop_assert_eq!(conversation_of(&store_of(&s, KEYS)), chain.clone(), "conversation with escaped keys");
        for (f, d) in &forms {
            prop_assert_eq!(conversation_of(d), chain.clone(), "conversation in {:?}", f);
        }
        // the listing's "Image" / "Document" label, in every form
        let media = with_media(&s);
        let label = media_by_full_parse(&media).map(str::to_owned);
        for f in FORMS {
            prop_assert_eq!(listed_title(&store_of(&media, f)), label.clone(), "media in {:?}", f);
        }
        let compact_listing = listing_of(&forms[0].1);
        let first = first_prompt_by_full_parse(&s);
        prop_assert_eq!(
            compact_listing.get("firstPrompt").and_then(Value::as_str),
            Some(first.as_str())
        );
        prop_assert_eq!(compact_listing.get("cwd").and_then(Value::as_str), cwd.as_deref());
        for (f, d) in &forms {
            let (by_model, prompts, ucwd, times) = usage_of(d);
            prop_assert_eq!(times, want_times, "first and last times in {:?}", f);
            prop_assert_eq!(&by_model, &want_usage, "usage in {:?}", f);
            prop_assert_eq!(prompts, turns, "prompts in {:?}", f);
            prop_assert_eq!(&ucwd, &cwd, "usage's cwd in {:?}", f);
            prop_assert_eq!(&listing_of(d), &compact_listing, "listing in {:?}", f);
            prop_assert_eq!(
                &hits_of(d, Pattern::smart(s.word.clone())),
                &word_hits,
                "search in {:?}",
                f
            );
            // a word with a `k` found in `Key` and one with an `s` in `ſea`
            // (the raw bytes have neither), a cut emoji (a lone surrogate
            // escape on disk) found as U+FFFD
            for w in ["key", "sea", "\u{FFFD}"] {
                prop_assert_eq!(
                    hits_seen(&hits_of(d, Pattern::smart(w))),
                    hits_by_full_parse(&s, w),
                    "search for {:?} in {:?}",
                    w,
                    f
                );
            }
            prop_assert_eq!(
                hits_seen(&hits_of(d, Pattern::Literal { text: "KEY".into(), ignore_case: true })),
                hits_by_full_parse(&s, "key"),
                "search for KEY in {:?}",
                f
            );
            // non-ASCII patterns, either case
            for p in ["café", "Café", "ÉCOLE", "naïve", "日本語", "🦀", "école", "\"quoted\""] {
                prop_assert_eq!(
                    hits_of(d, Pattern::smart(p)),
                    hits_of(&forms[0].1, Pattern::smart(p)),
                    "search for {:?} in {:?}",
                    p,
                    f
                );
            }
        }
    }
}
