//! Every input a fuzz target ever crashed on (`fuzz/regressions/TARGET/`)
//! stays fixed: the same checks as the targets, as ordinary tests.

use std::path::Path;

fn inputs(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/regressions")
        .join(target);
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        out.push((
            e.file_name().to_string_lossy().into_owned(),
            std::fs::read(e.path()).unwrap(),
        ));
    }
    out
}

#[test]
fn decode_regressions() {
    let cases = inputs("decode");
    assert!(!cases.is_empty(), "the decode regressions are missing");
    for (name, data) in cases {
        let is_object = matches!(
            serde_json::from_slice::<serde_json::Value>(&data),
            Ok(serde_json::Value::Object(_))
        );
        let line = data.strip_suffix(b"\n").unwrap_or(&data);
        let parsed = claudio::Message::parse(line);
        assert!(
            !is_object || parsed.is_ok(),
            "{name}: a JSON object failed to decode"
        );
        // the kind is the `type` serde_json reads (given twice: the last)
        if let (Ok(m), Ok(v)) = (&parsed, serde_json::from_slice::<serde_json::Value>(line)) {
            assert_eq!(m.kind(), v["type"].as_str().unwrap_or(""), "{name}");
        }
        if let Ok(text) = std::str::from_utf8(line) {
            let general = claudio::__private::parse_general(text);
            assert_eq!(
                parsed.as_ref().ok(),
                general.as_ref().ok(),
                "{name}: the fast and general decoders differ"
            );
        }
    }
}

#[tokio::test]
async fn framing_regressions() {
    for (name, data) in inputs("framing") {
        let mut r = claudio::__private::LineReader::new(&data[..], 64);
        while let Some(line) = r.next_line().await.unwrap() {
            if let claudio::__private::Line::Data(d) = line {
                assert!(d.len() <= 64, "{name}");
            }
        }
    }
}

#[test]
fn transcript_regressions() {
    let dir = tempfile::tempdir().unwrap();
    for (name, data) in inputs("transcript") {
        let p = dir
            .path()
            .join("0b7d4e8a-9c55-4f0e-8d3c-4b5a3f2a9c1e.jsonl");
        std::fs::write(&p, &data).unwrap();
        let _ = claudio::__private::read_head_tail(&p);
        let _ = claudio::store::read_conversation(&p);
        let _ = name;
    }
}

/// The sanitize target's checks for one input (the first byte picks the
/// chunk sizes, the rest is the text).
fn check_sanitize(name: &str, data: &[u8]) {
    use claudio::sanitize::{is_dropped, Sanitizer, MAX_STRING};
    let Some((&k, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(&rest[(k as usize % 16).min(rest.len())..]);
    let once = Sanitizer::clean(&text);
    assert!(
        !once.chars().any(is_dropped),
        "{name}: a control character survived"
    );
    assert_eq!(Sanitizer::clean(&once), once, "{name}: not idempotent");
    let mut s = Sanitizer::new();
    let mut out = String::new();
    for c in text.chars() {
        s.push(c.encode_utf8(&mut [0; 4]), &mut out);
    }
    s.finish(&mut out);
    assert_eq!(out, once, "{name}: chunking changed the output");
    // text after a sequence cut off survives the end of its block, and the
    // cap without an end
    for opener in ["\u{1b}]", "\u{1b}_", "\u{1b}[1;", "\u{1b} "] {
        let cut = format!("{text}{opener}§MARK§");
        assert!(
            Sanitizer::clean(&cut).contains("§MARK§"),
            "{name}: text after {opener:?} was lost"
        );
        let mut s = Sanitizer::new();
        let mut out = String::new();
        s.push(&cut, &mut out);
        s.push(&"x".repeat(MAX_STRING + 1), &mut out);
        assert!(
            out.contains("§MARK§"),
            "{name}: text after {opener:?} was held past the cap"
        );
    }
}

#[test]
fn sanitize_regressions() {
    for (name, data) in inputs("sanitize") {
        check_sanitize(&name, &data);
    }
}

/// The sanitize corpus too: the fuzz target needs nightly, these checks do
/// not.
#[test]
fn sanitize_corpus() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/sanitize");
    let mut n = 0;
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        check_sanitize(
            &e.file_name().to_string_lossy(),
            &std::fs::read(e.path()).unwrap(),
        );
        n += 1;
    }
    assert!(n > 0, "the sanitize corpus is missing");
}
