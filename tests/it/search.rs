//! `sessions search`, on fixture stores: the library and the command.

use crate::common;

use common::copy_tree;

use claudio::store::{HitKind, Pattern, SearchOptions, SessionHits, Store};
use serde_json::{json, Value};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

const A: &str = "aaaaaaaa-1111-4111-8111-111111111111";
const B: &str = "bbbbbbbb-2222-4222-8222-222222222222";
const C: &str = "cccccccc-3333-4333-8333-333333333333";

fn entry(kind: &str, id: &str, n: usize, content: Value) -> String {
    let role = if kind == "user" { "user" } else { "assistant" };
    json!({"type":kind,"message":{"role":role,"content":content},"uuid":format!("{id}-{n}"),
        "parentUuid": if n == 0 { Value::Null } else { json!(format!("{id}-{}", n - 1)) },
        "sessionId":id,"cwd":"/work/shop","timestamp":"2026-11-01T10:00:00.000Z","isSidechain":false})
    .to_string()
}

struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        let f = Fixture {
            dir: tempfile::tempdir().unwrap(),
        };
        std::fs::create_dir_all(f.folder()).unwrap();
        f
    }

    fn folder(&self) -> PathBuf {
        self.dir.path().join("projects/-work-shop")
    }

    fn store(&self) -> Store {
        Store::new(self.dir.path())
    }

    fn write(&self, id: &str, lines: &[String], mtime_secs: u64) -> PathBuf {
        let p = self.folder().join(format!("{id}.jsonl"));
        std::fs::write(&p, lines.join("\n") + "\n").unwrap();
        let f = std::fs::File::options().write(true).open(&p).unwrap();
        f.set_modified(UNIX_EPOCH + Duration::from_secs(mtime_secs))
            .unwrap();
        p
    }

    /// Three sessions, C newest.
    fn standard() -> Fixture {
        let f = Fixture::new();
        f.write(
            A,
            &[
                entry("user", A, 0, json!("why does the Checkout fail?")),
                entry("assistant", A, 1, json!([{"type":"text","text":"The **checkout** test fails:\nthe discount is negative."}])),
                entry("assistant", A, 2, json!([{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"cargo test checkout_zebra"}}])),
                entry("user", A, 3, json!([{"type":"tool_result","tool_use_id":"t1","content":"test checkout_zebra ... FAILED"}])),
            ],
            1_800_000_000,
        );
        f.write(
            B,
            &[
                entry("user", B, 0, json!("say \"hi\" to the team\nand then stop")),
                entry(
                    "assistant",
                    B,
                    1,
                    json!([{"type":"text","text":"I said \"hi\".\nNothing about checkouts."}]),
                ),
            ],
            1_800_000_100,
        );
        f.write(
            C,
            &[
                entry("user", C, 0, json!("rename the crate")),
                entry(
                    "assistant",
                    C,
                    1,
                    json!([{"type":"text","text":"Renamed; no CHECKOUT here."}]),
                ),
            ],
            1_800_000_200,
        );
        f
    }
}

fn search(store: &Store, opts: SearchOptions) -> Vec<SessionHits> {
    let mut out = Vec::new();
    store
        .search(&opts, |s| {
            out.push(s);
            ControlFlow::Continue(())
        })
        .unwrap();
    out
}

fn ids(found: &[SessionHits]) -> Vec<&str> {
    found.iter().map(|s| &s.info.session_id[..8]).collect()
}

#[test]
fn smart_case_literal_newest_first() {
    let f = Fixture::standard();
    let found = search(&f.store(), SearchOptions::new(Pattern::smart("checkout")));
    assert_eq!(ids(&found), ["cccccccc", "bbbbbbbb", "aaaaaaaa"]);
    let a = &found[2];
    assert_eq!(a.hits.len(), 2, "{:?}", a.hits);
    assert_eq!(a.hits[0].kind, HitKind::Prompt);
    assert_eq!(a.hits[0].line, "why does the Checkout fail?");
    assert_eq!(a.hits[0].ranges, vec![13..21]);
    assert_eq!(a.hits[1].kind, HitKind::Answer);
    assert_eq!(a.hits[1].line, "The **checkout** test fails:");
    assert_eq!(a.hits[1].uuid.as_deref(), Some(&*format!("{A}-1")));
    // an upper-case letter: case matters
    let found = search(&f.store(), SearchOptions::new(Pattern::smart("CHECKOUT")));
    assert_eq!(ids(&found), ["cccccccc"]);
}

#[test]
fn tools_only_when_asked() {
    let f = Fixture::standard();
    let found = search(&f.store(), SearchOptions::new(Pattern::smart("zebra")));
    assert!(found.is_empty());
    let found = search(
        &f.store(),
        SearchOptions::new(Pattern::smart("zebra")).tools(true),
    );
    assert_eq!(ids(&found), ["aaaaaaaa"]);
    let kinds: Vec<HitKind> = found[0].hits.iter().map(|h| h.kind).collect();
    assert_eq!(kinds, [HitKind::ToolInput, HitKind::ToolOutput]);
    // a tool's input is searched as its name and strings joined by
    // newlines: a pattern across them is found, though no line holds it
    let found = search(
        &f.store(),
        SearchOptions::new(Pattern::smart("Bash\ncargo test")).tools(true),
    );
    assert_eq!(ids(&found), ["aaaaaaaa"]);
    assert_eq!(found[0].hits[0].kind, HitKind::ToolInput);
}

/// `JSON.stringify` writes a string cut inside an emoji with a lone
/// surrogate escape (`\ud83d`); serde_json refuses such a line, which was
/// skipped: the tool result, the prompt, the whole session in the listing.
#[test]
fn a_lone_surrogate_escape_loses_no_line() {
    let f = Fixture::new();
    let lines = [
        entry("user", A, 0, json!("find the PLACEHOLDER")),
        entry(
            "assistant",
            A,
            1,
            json!([{"type":"tool_use","id":"t1","name":"Grep","input":{"pattern":"zebra"}}]),
        ),
        entry(
            "user",
            A,
            2,
            json!([{"type":"tool_result","tool_use_id":"t1","content":"zebra PLACEHOLDER"}]),
        ),
        entry(
            "assistant",
            A,
            3,
            json!([{"type":"text","text":"found it"}]),
        ),
    ]
    .map(|l| l.replace("PLACEHOLDER", "\\ud83d"));
    f.write(A, &lines, 1_800_000_000);
    let found = search(
        &f.store(),
        SearchOptions::new(Pattern::smart("zebra")).tools(true),
    );
    assert_eq!(ids(&found), ["aaaaaaaa"]);
    let kinds: Vec<HitKind> = found[0].hits.iter().map(|h| h.kind).collect();
    assert_eq!(kinds, [HitKind::ToolInput, HitKind::ToolOutput]);
    assert_eq!(found[0].hits[1].line, "zebra \u{FFFD}");
    // the only prompt has one: the session is still listed, with it
    assert_eq!(
        found[0].info.first_prompt.as_deref(),
        Some("find the \u{FFFD}")
    );
    let listing = f.store().list(&claudio::store::ListOptions::all()).unwrap();
    assert_eq!(listing.sessions.len(), 1, "{:?}", listing.skipped);
    // export keeps the whole conversation
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_claudio"))
        .args(["sessions", "--config-dir"])
        .arg(f.dir.path())
        .args(["export", &A[..8], "-f", "json"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(out.contains("find the \u{FFFD}"), "{out}");
    assert!(out.contains("zebra \u{FFFD}"), "{out}");
    assert!(out.contains("found it"), "{out}");
}

#[test]
fn escaped_quotes_and_newlines_match_as_written() {
    let f = Fixture::standard();
    let found = search(
        &f.store(),
        SearchOptions::new(Pattern::smart("say \"hi\" to")),
    );
    assert_eq!(ids(&found), ["bbbbbbbb"]);
    let found = search(
        &f.store(),
        SearchOptions::new(Pattern::smart("the team\nand then")),
    );
    assert_eq!(ids(&found), ["bbbbbbbb"]);
    assert_eq!(found[0].hits[0].line, "say \"hi\" to the team");
}

#[test]
fn since_limit_and_hits_per_session() {
    let f = Fixture::standard();
    let ms = 1_800_000_050_000;
    let found = search(
        &f.store(),
        SearchOptions::new(Pattern::smart("checkout")).since(ms),
    );
    assert_eq!(ids(&found), ["cccccccc", "bbbbbbbb"]);
    let found = search(
        &f.store(),
        SearchOptions::new(Pattern::smart("checkout")).limit(1),
    );
    assert_eq!(ids(&found), ["cccccccc"]);
    let found = search(
        &f.store(),
        SearchOptions::new(Pattern::smart("checkout")).hits_per_session(1),
    );
    assert_eq!(found[2].hits.len(), 1);
    assert!(found[2].more);
}

#[test]
fn a_damaged_file_is_searched_as_far_as_it_reads() {
    let f = Fixture::new();
    let p = f.write(
        A,
        &[
            entry("user", A, 0, json!("first prompt")),
            "{not json at all".to_owned(),
            "\u{0}\u{1}garbage needle".to_owned(),
            entry(
                "assistant",
                A,
                1,
                json!([{"type":"text","text":"the needle is here"}]),
            ),
        ],
        1_800_000_000,
    );
    // and a half-written last line
    use std::io::Write;
    let mut file = std::fs::OpenOptions::new().append(true).open(&p).unwrap();
    file.write_all(
        br#"{"type":"assistant","message":{"content":[{"type":"text","text":"needle cut"#,
    )
    .unwrap();
    let found = search(&f.store(), SearchOptions::new(Pattern::smart("needle")));
    assert_eq!(ids(&found), ["aaaaaaaa"]);
    assert_eq!(found[0].hits.len(), 1, "{:?}", found[0].hits);
    assert_eq!(found[0].hits[0].line, "the needle is here");
}

#[test]
fn an_unreadable_transcript_is_named_with_its_reason_once() {
    let f = Fixture::standard();
    // a folder where a transcript should be: refused, never read
    let dir = f
        .folder()
        .join("dddddddd-4444-4444-8444-444444444444.jsonl");
    std::fs::create_dir(&dir).unwrap();
    let summary = f
        .store()
        .search(&SearchOptions::new(Pattern::smart("checkout")), |_| {
            ControlFlow::Continue(())
        })
        .unwrap();
    assert_eq!(summary.unreadable.len(), 1, "{:?}", summary.unreadable);
    let (path, why) = &summary.unreadable[0];
    assert_eq!(path, &dir);
    assert_eq!(why, "not a regular file");
    assert!(
        !why.contains(&*dir.to_string_lossy()),
        "the path twice: {why}"
    );
}

#[test]
fn the_real_cli_s_transcripts_are_searched() {
    let fixtures =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sessions/real/projects");
    let dir = tempfile::tempdir().unwrap();
    let to = dir.path().join("projects");
    copy_tree(&fixtures, &to);
    let store = Store::new(dir.path());
    let listed = store.list(&claudio::store::ListOptions::all()).unwrap();
    let first = listed.sessions.last().expect("fixtures");
    let prompt = first.first_prompt.clone().expect("a first prompt");
    let word: String = prompt.split_whitespace().next().unwrap().to_owned();
    let found = search(
        &store,
        SearchOptions::new(Pattern::smart(word.to_lowercase())),
    );
    assert!(
        found.iter().any(|s| s.info.session_id == first.session_id),
        "{word} not found in {}",
        first.session_id
    );
}

// ---- the command ----------------------------------------------------------

fn claudio_search(f: &Fixture, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_claudio"))
        .args(["sessions", "--config-dir"])
        .arg(f.dir.path())
        .args(["search"])
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

#[test]
fn the_command_prints_sessions_and_hits() {
    let f = Fixture::standard();
    let o = claudio_search(&f, &["--all", "checkout"]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let out = String::from_utf8(o.stdout).unwrap();
    let order: Vec<usize> = ["cccccccc", "bbbbbbbb", "aaaaaaaa"]
        .iter()
        .map(|id| {
            out.find(id)
                .unwrap_or_else(|| panic!("{id} missing:\n{out}"))
        })
        .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{out}");
    assert!(
        out.contains("  you    why does the Checkout fail?"),
        "{out}"
    );
    assert!(
        out.contains("  claude The **checkout** test fails:"),
        "{out}"
    );
    assert!(
        out.contains("(/work/shop)"),
        "--all names the directory: {out}"
    );
    // every id printed resolves
    let id = "aaaaaaaa";
    let o2 = std::process::Command::new(env!("CARGO_BIN_EXE_claudio"))
        .args(["sessions", "--config-dir"])
        .arg(f.dir.path())
        .args(["inspect", id])
        .env("CLAUDIO_CACHE_DIR", f.dir.path().join(".claudio-cache"))
        .output()
        .unwrap();
    assert_eq!(o2.status.code(), Some(0), "{o2:?}");
}

#[test]
fn the_command_s_regex_json_and_no_match() {
    let f = Fixture::standard();
    let o = claudio_search(&f, &["--all", "--regex", "--json", r"discount is \w+"]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let out = String::from_utf8(o.stdout).unwrap();
    let lines: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 1, "{out}");
    assert_eq!(lines[0]["sessionId"], A);
    assert_eq!(lines[0]["hits"][0]["kind"], "answer");
    assert_eq!(lines[0]["hits"][0]["line"], "the discount is negative.");
    assert_eq!(lines[0]["hits"][0]["ranges"][0]["start"], 4);
    // a regex across an escaped quote and a newline (tried on whole lines
    // first), and an anchored one (every message parsed): the same rules
    let o = claudio_search(
        &f,
        &["--all", "--regex", "--json", r#"said "hi"\.\nnothing"#],
    );
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["sessionId"], B, "{v}");
    let o = claudio_search(&f, &["--all", "--regex", "--json", "^the discount"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["sessionId"], A, "{v}");
    let o = claudio_search(&f, &["--all", "nothing-like-this"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no matches in 3 sessions"));
    let o = claudio_search(&f, &["--all", "--regex", "("]);
    assert_ne!(o.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a valid regex"));
}

#[test]
fn output_json_is_one_array_and_ndjson_a_session_a_line() {
    let f = Fixture::standard();
    let o = claudio_search(&f, &["--all", "-o", "ndjson", "checkout"]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let nd = String::from_utf8(o.stdout).unwrap();
    let lines: Vec<Value> = nd
        .lines()
        .map(|l| serde_json::from_str(l).expect("one object a line"))
        .collect();
    assert!(lines.len() >= 2, "{nd}");
    // the old spelling is NDJSON, as it was
    let old = claudio_search(&f, &["--all", "--json", "checkout"]);
    assert_eq!(String::from_utf8(old.stdout).unwrap(), nd);
    let o = claudio_search(&f, &["--all", "-o", "json", "checkout"]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc.as_array().unwrap(), &lines);
    // no match: still a document (and exit 1, as grep)
    let o = claudio_search(&f, &["--all", "-o", "json", "nothing-like-this"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(String::from_utf8(o.stdout).unwrap(), "[]\n");
    let o = claudio_search(&f, &["--all", "-o", "ndjson", "nothing-like-this"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
    // a reader that stops early is no error
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_claudio"))
        .args(["sessions", "--config-dir"])
        .arg(f.dir.path())
        .args(["search", "--all", "-o", "json", "checkout"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert!(matches!(out.status.code(), Some(0)), "{out:?}");
}

#[test]
fn hostile_text_is_inert_on_a_terminal_and_exact_in_json() {
    let f = Fixture::new();
    f.write(
        A,
        &[entry(
            "user",
            A,
            0,
            json!("find \u{1b}]52;c;QUFB\u{7}the needle\u{1b}[2J now"),
        )],
        1_800_000_000,
    );
    let o = claudio_search(&f, &["--all", "needle"]);
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(out.contains("the needle"), "{out:?}");
    assert!(!out.contains('\u{1b}'), "{out:?}");
    let o = claudio_search(&f, &["--all", "--json", "needle"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        v["hits"][0]["line"],
        "find \u{1b}]52;c;QUFB\u{7}the needle\u{1b}[2J now"
    );
}
