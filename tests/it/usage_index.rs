//! The usage index gives the answers a full read gives. A differential
//! property test: a store (and its archive) changed by random steps (lines
//! appended, a line half written, a transcript rewritten, shrunk, replaced,
//! archived, deleted, edited in place (the same size, or then appended
//! to); a sub-agent's transcript appended to), and after
//! each step `Store::usage`, `Store::usage_since` and `session_usage`
//! through the index (kept in a cache folder across the steps) compared
//! with the same calls without one (`CLAUDIO_CACHE_DIR` set to a relative
//! path, which turns the index off).
//!
//! The index is this process's copy and two files on disk: the steps go
//! through two cache folders in turn, so each answer also comes from an
//! index read back from disk one step late.

use claudio::store::{session_usage, ArchiveOptions, SessionUsage, Store, UsageListing};
use proptest::prelude::*;
use serde_json::json;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

const IDS: [&str; 3] = [
    "aaaaaaaa-1111-4111-8111-111111111111",
    "bbbbbbbb-2222-4222-8222-222222222222",
    "cccccccc-3333-4333-8333-333333333333",
];

#[derive(Debug, Clone)]
enum Step {
    /// Lines appended to session `s` (created if missing).
    Append { s: usize, lines: Vec<Line> },
    /// A line's first part, without its newline (being written).
    Partial { s: usize, line: Line, cut: usize },
    /// Rewritten in place with other lines (the same inode).
    Rewrite { s: usize, lines: Vec<Line> },
    /// Cut to its first `keep` bytes.
    Shrink { s: usize, keep: usize },
    /// Replaced by a renamed file (another inode).
    Replace { s: usize, lines: Vec<Line> },
    /// Every live transcript copied into the archive.
    Archive,
    /// The live transcript deleted (an archived copy stays).
    Delete { s: usize },
    /// A line appended to the sub-agent transcript of session `s`.
    Agent { s: usize, line: Line },
    /// Many messages appended (a file past the index's samples).
    Bulk { s: usize, seed: u8 },
    /// A digit changed in place at `at`/256 of the file (the same size),
    /// its modification time a second on.
    Edit { s: usize, at: u8 },
    /// Edited so in its first 4 KiB (`at` < 128) or its last (else), then
    /// appended to: where an edit of a file that grew is always seen (the
    /// index samples what it read at both ends and in the middle; an
    /// edit between the samples of a file that then grew is not seen, by
    /// design: the CLI only appends).
    EditAppend { s: usize, at: u8, lines: Vec<Line> },
}

#[derive(Debug, Clone)]
enum Line {
    Prompt(u8),
    Usage {
        msg: u8,
        input: u16,
        output: u16,
        minute: u8,
    },
    Garbage,
}

fn render(l: &Line, s: usize) -> String {
    match l {
        Line::Prompt(n) => json!({"type":"user","sessionId":IDS[s],"cwd":format!("/work/p{s}"),
            "timestamp":format!("2026-11-01T10:{:02}:00.000Z", n % 60),
            "message":{"role":"user","content":format!("prompt {n}")}})
        .to_string(),
        Line::Usage {
            msg,
            input,
            output,
            minute,
        } => json!({"type":"assistant","sessionId":IDS[s],"requestId":format!("r{msg}"),
            "timestamp":format!("2026-11-01T11:{:02}:00.000Z", minute % 60),
            "message":{"id":format!("m{msg}"),"model":if msg % 2 == 0 {"claude-sonnet-4-5"} else {"claude-opus-4-5"},
            "usage":{"input_tokens":input,"output_tokens":output,"cache_read_input_tokens":7}}})
        .to_string(),
        Line::Garbage => "{\"type\":\"assistant\",\"usage\"".to_owned(),
    }
}

fn line() -> impl Strategy<Value = Line> {
    prop_oneof![
        any::<u8>().prop_map(Line::Prompt),
        (0u8..6, any::<u16>(), any::<u16>(), any::<u8>()).prop_map(
            |(msg, input, output, minute)| {
                Line::Usage {
                    msg,
                    input,
                    output,
                    minute,
                }
            }
        ),
        Just(Line::Garbage),
    ]
}

fn lines() -> impl Strategy<Value = Vec<Line>> {
    proptest::collection::vec(line(), 1..6)
}

fn step() -> impl Strategy<Value = Step> {
    let s = 0..IDS.len();
    prop_oneof![
        4 => (s.clone(), lines()).prop_map(|(s, lines)| Step::Append { s, lines }),
        1 => (s.clone(), line(), 1usize..40).prop_map(|(s, line, cut)| Step::Partial { s, line, cut }),
        1 => (s.clone(), lines()).prop_map(|(s, lines)| Step::Rewrite { s, lines }),
        1 => (s.clone(), 0usize..400).prop_map(|(s, keep)| Step::Shrink { s, keep }),
        1 => (s.clone(), lines()).prop_map(|(s, lines)| Step::Replace { s, lines }),
        1 => Just(Step::Archive),
        1 => s.clone().prop_map(|s| Step::Delete { s }),
        1 => (s.clone(), line()).prop_map(|(s, line)| Step::Agent { s, line }),
        1 => (s.clone(), any::<u8>()).prop_map(|(s, seed)| Step::Bulk { s, seed }),
        2 => (s.clone(), any::<u8>()).prop_map(|(s, at)| Step::Edit { s, at }),
        2 => (s, any::<u8>(), lines()).prop_map(|(s, at, lines)| Step::EditAppend { s, at, lines }),
    ]
}

struct World {
    dir: tempfile::TempDir,
}

impl World {
    fn config(&self) -> PathBuf {
        self.dir.path().join("config")
    }
    fn archive(&self) -> PathBuf {
        self.dir.path().join("archive")
    }
    fn transcript(&self, s: usize) -> PathBuf {
        self.config()
            .join("projects/-work-p")
            .join(format!("{}.jsonl", IDS[s]))
    }
    fn store(&self) -> Store {
        Store::new(self.config()).with_archive(self.archive())
    }

    fn text(lines: &[Line], s: usize) -> String {
        lines.iter().map(|l| render(l, s) + "\n").collect()
    }

    fn append(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .unwrap();
        f.write_all(text.as_bytes()).unwrap();
    }

    /// Change one digit of `path` at or after `at`/256 of it (else before)
    /// to another, in place, and move its modification time a second on.
    fn edit(path: &Path, at: u8) {
        Self::edit_in(path, |len| (0, len, len * at as usize / 256));
    }

    /// [`edit`](Self::edit) in the first 4 KiB (`at` < 128) or the last.
    fn edit_end(path: &Path, at: u8) {
        const K4: usize = 4096;
        Self::edit_in(path, |len| {
            if at < 128 {
                (0, len.min(K4), len.min(K4) * at as usize / 128)
            } else {
                let lo = len.saturating_sub(K4);
                (lo, len, lo + (len - lo) * (at as usize - 128) / 128)
            }
        });
    }

    /// Change one digit in `range(len)` = (low, high, from): the first at
    /// or after `from`, else the last before it.
    fn edit_in(path: &Path, range: impl Fn(usize) -> (usize, usize, usize)) {
        use std::os::unix::fs::FileExt;
        let Ok(mut text) = std::fs::read(path) else {
            return;
        };
        let (lo, hi, from) = range(text.len());
        let Some(i) = (from..hi)
            .chain((lo..from).rev())
            .find(|&i| text[i].is_ascii_digit())
        else {
            return;
        };
        // never a leading 0: a number stays a number
        text[i] = if text[i] == b'9' { b'8' } else { text[i] + 1 };
        let f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
        f.write_all_at(&text[i..i + 1], i as u64).unwrap();
        let m = f.metadata().unwrap().modified().unwrap();
        f.set_modified(m + std::time::Duration::from_secs(1))
            .unwrap();
    }

    fn apply(&self, st: &Step) {
        match st {
            Step::Bulk { s, seed } => {
                let lines: Vec<Line> = (0..60u16)
                    .map(|i| Line::Usage {
                        msg: (i as u8).wrapping_add(*seed) % 6,
                        input: i.wrapping_mul(*seed as u16 + 1),
                        output: i,
                        minute: seed.wrapping_add(i as u8),
                    })
                    .collect();
                Self::append(&self.transcript(*s), &Self::text(&lines, *s))
            }
            Step::Edit { s, at } => Self::edit(&self.transcript(*s), *at),
            Step::EditAppend { s, at, lines } => {
                let p = self.transcript(*s);
                if p.exists() {
                    Self::edit_end(&p, *at);
                    Self::append(&p, &Self::text(lines, *s));
                }
            }
            Step::Append { s, lines } => Self::append(&self.transcript(*s), &Self::text(lines, *s)),
            Step::Partial { s, line, cut } => {
                let text = render(line, *s);
                Self::append(&self.transcript(*s), &text[..(*cut).min(text.len())]);
            }
            Step::Rewrite { s, lines } => {
                let p = self.transcript(*s);
                if p.exists() {
                    std::fs::write(&p, Self::text(lines, *s)).unwrap();
                }
            }
            Step::Shrink { s, keep } => {
                let p = self.transcript(*s);
                if let Ok(f) = std::fs::OpenOptions::new().write(true).open(&p) {
                    let len = f.metadata().unwrap().len();
                    f.set_len(len.min(*keep as u64)).unwrap();
                }
            }
            Step::Replace { s, lines } => {
                let p = self.transcript(*s);
                std::fs::create_dir_all(p.parent().unwrap()).unwrap();
                let tmp = p.with_extension("tmp");
                std::fs::write(&tmp, Self::text(lines, *s)).unwrap();
                std::fs::rename(&tmp, &p).unwrap();
            }
            Step::Archive => {
                let _ = self
                    .store()
                    .archive_to(
                        self.archive(),
                        ArchiveOptions::default(),
                        &AtomicBool::new(false),
                    )
                    .unwrap();
            }
            Step::Delete { s } => {
                let _ = std::fs::remove_file(self.transcript(*s));
            }
            Step::Agent { s, line } => {
                let p = self
                    .config()
                    .join("projects/-work-p")
                    .join(IDS[*s])
                    .join("subagents/agent-a1.jsonl");
                Self::append(&p, &(render(line, *s) + "\n"));
            }
        }
    }
}

/// Everything a listing answers, comparable.
fn listing(l: UsageListing) -> (Vec<SessionUsage>, Vec<String>) {
    let mut skipped: Vec<String> = l.skipped.iter().map(|k| format!("{k:?}")).collect();
    skipped.sort();
    (l.sessions, skipped)
}

type Answers = (
    (Vec<SessionUsage>, Vec<String>),
    (Vec<SessionUsage>, Vec<String>),
    Vec<Result<SessionUsage, String>>,
);

fn answers(w: &World, cache: &str) -> Answers {
    // nextest runs each test in a process of its own: this is the only
    // thread reading the environment
    std::env::set_var("CLAUDIO_CACHE_DIR", cache);
    let store = w.store();
    let all = listing(store.usage(None).unwrap());
    let since = listing(store.usage_since(Some(Path::new("/work/p0")), 0).unwrap());
    let each = all
        .0
        .iter()
        .map(|s| session_usage(&s.path).map_err(|e| e.to_string()))
        .collect();
    (all, since, each)
}

fn check(steps: &[Step]) -> Result<(), TestCaseError> {
    let w = World {
        dir: tempfile::tempdir().unwrap(),
    };
    std::fs::create_dir_all(w.config().join("projects")).unwrap();
    let caches = [w.dir.path().join("cache-a"), w.dir.path().join("cache-b")];
    for (i, st) in steps.iter().enumerate() {
        // an edit in place is made where both indexes are up to date, and
        // both see it before the file can grow: an edit between the
        // samples of a file that grew since an index last saw it is the
        // case left out by design (see `Step::EditAppend`)
        let edit = matches!(st, Step::Edit { .. });
        if edit {
            let full = answers(&w, "off");
            for c in &caches {
                let seen = answers(&w, c.to_str().unwrap());
                prop_assert_eq!(&seen, &full, "before step {} of {:?}", i, steps);
            }
        }
        w.apply(st);
        let cache = caches[i % 2].to_str().unwrap().to_owned();
        let indexed = answers(&w, &cache);
        let full = answers(&w, "off");
        prop_assert_eq!(&indexed, &full, "after step {} of {:?}", i, steps);
        // and again, now that the index holds every file
        let again = answers(&w, &cache);
        prop_assert_eq!(&again, &full, "again after step {} of {:?}", i, steps);
        if edit {
            let other = caches[(i + 1) % 2].to_str().unwrap().to_owned();
            let seen = answers(&w, &other);
            prop_assert_eq!(
                &seen,
                &full,
                "the other index after step {} of {:?}",
                i,
                steps
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn the_index_answers_as_a_full_read_does(steps in proptest::collection::vec(step(), 1..14)) {
        check(&steps)?;
    }
}

/// The steps named in the issue, in one fixed order.
#[test]
fn appended_rewritten_shrunk_archived_and_deleted() {
    let u = |msg, input| Line::Usage {
        msg,
        input,
        output: 3,
        minute: msg,
    };
    check(&[
        Step::Append {
            s: 0,
            lines: vec![Line::Prompt(1), u(1, 10), u(2, 20)],
        },
        Step::Append {
            s: 1,
            lines: vec![u(3, 30)],
        },
        Step::Agent {
            s: 0,
            line: u(4, 40),
        },
        Step::Append {
            s: 0,
            lines: vec![u(1, 11), Line::Prompt(2)],
        },
        Step::Partial {
            s: 0,
            line: u(5, 50),
            cut: 20,
        },
        Step::Append {
            s: 0,
            lines: vec![u(5, 51)],
        },
        Step::Archive,
        Step::Rewrite {
            s: 1,
            lines: vec![u(3, 31)],
        },
        Step::Shrink { s: 0, keep: 150 },
        Step::Delete { s: 1 },
        Step::Replace {
            s: 2,
            lines: vec![u(0, 1), Line::Garbage],
        },
        Step::Agent {
            s: 0,
            line: u(4, 41),
        },
        Step::Delete { s: 0 },
    ])
    .unwrap();
}

/// The case the generator once made that the design leaves out (an edit
/// between the samples, unseen by the index that then saw the file grow):
/// each index now sees an edit in place before anything else happens.
#[test]
fn an_edit_in_place_is_seen_by_both_indexes_before_an_append() {
    check(&[
        Step::Bulk { s: 1, seed: 126 },
        Step::Bulk { s: 1, seed: 4 },
        Step::Edit { s: 1, at: 47 },
        Step::Append {
            s: 1,
            lines: vec![Line::Prompt(0)],
        },
    ])
    .unwrap();
    check(&[
        Step::Bulk { s: 1, seed: 17 },
        Step::EditAppend {
            s: 1,
            at: 0,
            lines: vec![Line::Prompt(10), Line::Garbage],
        },
        Step::Bulk { s: 1, seed: 0 },
        Step::Edit { s: 1, at: 42 },
    ])
    .unwrap();
}

/// Edited in place in the middle of a long transcript, the same size or
/// then appended to: read whole each time, never carried on from the old
/// totals.
#[test]
fn edited_in_place_then_appended() {
    check(&[
        Step::Bulk { s: 0, seed: 3 },
        Step::Bulk { s: 0, seed: 4 },
        Step::Edit { s: 0, at: 128 },
        Step::Edit { s: 0, at: 60 },
        Step::EditAppend {
            s: 0,
            at: 128,
            lines: vec![Line::Prompt(1)],
        },
        Step::EditAppend {
            s: 0,
            at: 250,
            lines: vec![Line::Garbage],
        },
        Step::Append {
            s: 0,
            lines: vec![Line::Prompt(2)],
        },
    ])
    .unwrap();
}

/// `sessions list -l` (and `-o json -l`) writes the usage index once, at
/// its end, with every session: a second listing finds each transcript
/// as it was indexed and writes nothing (a listing that indexed only some
/// would read the rest whole, and write the index again).
#[test]
fn a_long_listing_indexes_every_session_at_once() {
    use std::os::unix::fs::MetadataExt;
    let d = tempfile::tempdir().unwrap();
    let config = d.path().join("config");
    let folder = config.join("projects/-work-p");
    std::fs::create_dir_all(&folder).unwrap();
    for i in 0..30u16 {
        let id = format!("dddddddd-{i:04}-4444-8444-444444444444");
        let lines = [
            Line::Prompt(i as u8),
            Line::Usage {
                msg: 1,
                input: 100 + i,
                output: i,
                minute: 1,
            },
        ];
        let text: String = lines.iter().map(|l| render(l, 0) + "\n").collect();
        std::fs::write(folder.join(format!("{id}.jsonl")), text).unwrap();
    }
    // the transcripts older than the index's window for a file changed
    // just before it was read (3 s): such a record is checked again, and
    // written again once the file is older, at whichever listing a loaded
    // machine has reached by then; older, each is indexed once, for good
    let changed_ns = |e: std::fs::DirEntry| {
        let m = e.metadata().unwrap();
        m.ctime() as i128 * 1_000_000_000 + m.ctime_nsec() as i128
    };
    let newest = std::fs::read_dir(&folder)
        .unwrap()
        .map(|e| changed_ns(e.unwrap()))
        .max()
        .unwrap();
    let now_ns = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as i128
    };
    while now_ns() < newest + 3_500_000_000 {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let cache = d.path().join("cache");
    let run = |args: &[&str]| {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_claudio"))
            .args(["sessions", "--config-dir"])
            .arg(&config)
            .args(args)
            .env("CLAUDIO_CACHE_DIR", &cache)
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{o:?}");
        o.stdout
    };
    let stamp = || {
        let m = std::fs::metadata(cache.join("usage-index")).unwrap();
        (m.ino(), m.mtime(), m.mtime_nsec(), m.len())
    };
    let first = run(&["list", "--all", "-l"]);
    let written = stamp();
    for _ in 0..2 {
        assert_eq!(run(&["list", "--all", "-l"]), first);
        assert_eq!(stamp(), written, "nothing new to write");
    }
    let json: serde_json::Value =
        serde_json::from_slice(&run(&["list", "--all", "-o", "json", "-l"])).unwrap();
    assert_eq!(json.as_array().unwrap().len(), 30);
    assert_eq!(stamp(), written, "nothing new to write");
}
