//! A search of the archive, which passes over the files whose grams filter
//! says they cannot match, finds what a search of the live store finds; a
//! filter that does not hold (stale, forged, damaged frames, missing) is
//! never believed.

use super::*;
use crate::store::open::PACKED_EXT;
use crate::store::search::grams::tests::{line, pattern};
use crate::store::{ArchiveOptions, Pattern, SearchOptions, Store};
use proptest::prelude::*;
use serde_json::json;
use std::ops::ControlFlow;
use std::path::PathBuf;

fn id(i: usize) -> String {
    format!("7c1d3a52-2222-4333-8444-{i:012}")
}

/// The first line of every transcript: a prompt that makes it a session.
fn opening(i: usize) -> String {
    json!({"type":"user","uuid":format!("00000000-0000-4000-8000-{i:012}"),"sessionId":id(i),
        "cwd":"/w","timestamp":"2026-11-01T00:00:00.000Z",
        "message":{"role":"user","content":"hello there"}})
    .to_string()
}

/// A store of the transcripts `bodies` (lines after the opening one) and
/// the archive of it: the folder, the live store, the archive's path.
fn archived(bodies: &[Vec<Vec<u8>>]) -> (tempfile::TempDir, Store, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let folder = d.path().join("cfg/projects/-w");
    std::fs::create_dir_all(&folder).unwrap();
    for (i, body) in bodies.iter().enumerate() {
        let mut text = opening(i).into_bytes();
        text.push(b'\n');
        for l in body {
            text.extend_from_slice(l);
            text.push(b'\n');
        }
        let path = folder.join(format!("{}.jsonl", id(i)));
        std::fs::write(&path, text).unwrap();
        let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000 + i as u64);
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(t)
            .unwrap();
    }
    let store = Store::new(d.path().join("cfg"));
    let archive = d.path().join("archive");
    let s = store.archive(&archive, ArchiveOptions::default()).unwrap();
    assert_eq!(s.archived, bodies.len(), "{s:?}");
    (d, store, archive)
}

/// The archive alone (a store whose transcripts are all gone).
fn archive_only(d: &tempfile::TempDir, archive: &Path) -> Store {
    let empty = d.path().join("empty");
    std::fs::create_dir_all(empty.join("projects")).unwrap();
    Store::new(empty).with_archive(archive)
}

/// Each session found: what a listing says of it (but where it was
/// found), its hits, whether there were more.
type Found = Vec<(serde_json::Value, Vec<crate::store::SearchHit>, bool)>;

fn search(store: &Store, p: &Pattern, tools: bool) -> (Found, usize) {
    search_hits(store, p, tools, 2)
}

fn search_hits(store: &Store, p: &Pattern, tools: bool, hits: usize) -> (Found, usize) {
    let opts = SearchOptions::new(p.clone())
        .tools(tools)
        .hits_per_session(hits);
    let mut out = Vec::new();
    let summary = store
        .search(&opts, |s| {
            let mut info = serde_json::to_value(&s.info).unwrap();
            info.as_object_mut().unwrap().remove("fromArchive");
            out.push((info, s.hits, s.more));
            ControlFlow::Continue(())
        })
        .unwrap();
    assert!(summary.unreadable.is_empty(), "{:?}", summary.unreadable);
    (out, summary.files)
}

fn packed_path(archive: &Path, i: usize) -> PathBuf {
    archive.join("-w").join(format!("{}{PACKED_EXT}", id(i)))
}

/// Where the grams frame of an archived file starts and ends (the summary
/// starts where it ends).
fn grams_span(packed: &Path) -> (usize, usize) {
    let b = std::fs::read(packed).unwrap();
    let n = b.len();
    let summary = u32::from_le_bytes(b[n - 12..n - 8].try_into().unwrap()) as usize;
    let end = n - summary;
    assert_eq!(&b[end - 8..end], GRAMS_TAG);
    let len = u32::from_le_bytes(b[end - 12..end - 8].try_into().unwrap()) as usize;
    (end - len, end)
}

fn needs(word: &str) -> Needs {
    Needs::of(&Pattern::smart(word)).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// The differential property: searching the archive alone (files that
    /// cannot match passed over) finds the sessions and hits that
    /// searching the live store finds, tools searched or not.
    #[test]
    fn a_search_of_the_archive_finds_what_the_live_store_holds(
        bodies in proptest::collection::vec(proptest::collection::vec(line(), 0..6), 1..5),
        p in pattern(),
        tools in any::<bool>(),
    ) {
        let (d, live, archive) = archived(&bodies);
        let packed = archive_only(&d, &archive);
        let (want, n) = search(&live, &p, tools);
        let (got, m) = search(&packed, &p, tools);
        prop_assert_eq!(n, m);
        prop_assert_eq!(got, want, "{:?}", p);
    }
}

/// Three transcripts, one with the word.
fn three() -> (tempfile::TempDir, Store, PathBuf) {
    let say = |t: &str| {
        vec![
            json!({"type":"assistant","message":{"content":[{"type":"text","text":t}]}})
                .to_string()
                .into_bytes(),
        ]
    };
    archived(&[
        say("where did the Frog go"),
        say("nothing here"),
        say("more of nothing"),
    ])
}

/// An archived file that cannot match is passed over, one that may is
/// read; the search finds the same either way.
#[test]
fn a_file_that_cannot_match_is_passed_over() {
    let (d, live, archive) = three();
    for i in 0..3 {
        let p = packed_path(&archive, i);
        assert!(cannot_hold(&p, &needs("quokka")).unwrap(), "{i}");
        assert_eq!(cannot_hold(&p, &needs("frog")).unwrap(), i != 0, "{i}");
        let (f, h) = open_packed(&p).unwrap();
        assert!(has_grams(&f, &h));
    }
    let packed = archive_only(&d, &archive);
    let frog = Pattern::smart("frog");
    let (want, _) = search(&live, &frog, false);
    assert_eq!(want.len(), 1);
    assert_eq!(search(&packed, &frog, false).0, want);
}

/// A filter that says "no" to everything, put in place of the true one
/// without the summary's checksum made anew (a damaged or forged frame):
/// not believed, the file is read and its match found.
#[test]
fn a_forged_filter_is_not_believed() {
    let (d, live, archive) = three();
    let p = packed_path(&archive, 0);
    let (start, end) = grams_span(&p);
    let mut b = std::fs::read(&p).unwrap();
    // the filter's bits, all cleared: it holds no gram
    for x in &mut b[start + 8 + 16..end - 12] {
        *x = 0;
    }
    std::fs::write(&p, &b).unwrap();
    let frog = Pattern::smart("frog");
    assert!(!cannot_hold(&p, &needs("frog")).unwrap());
    let packed = archive_only(&d, &archive);
    assert_eq!(
        search(&packed, &frog, false).0,
        search(&live, &frog, false).0
    );
    // a filter moved from another file (which lacks the word), same length
    let other = std::fs::read(packed_path(&archive, 1)).unwrap();
    let (s1, e1) = grams_span(&packed_path(&archive, 1));
    if e1 - s1 == end - start {
        let mut b = std::fs::read(&p).unwrap();
        b[start..end].copy_from_slice(&other[s1..e1]);
        std::fs::write(&p, &b).unwrap();
        assert!(!cannot_hold(&p, &needs("frog")).unwrap());
        assert_eq!(
            search(&packed, &frog, false).0,
            search(&live, &frog, false).0
        );
    }
}

/// Frames changed under a kept filter and summary: the checksum does not
/// hold, the filter is not believed.
#[test]
fn a_filter_over_changed_frames_is_not_believed() {
    let (_d, _live, archive) = three();
    let p = packed_path(&archive, 1);
    assert!(cannot_hold(&p, &needs("frog")).unwrap());
    let (start, _) = grams_span(&p);
    let mut b = std::fs::read(&p).unwrap();
    b[start - 3] ^= 0x20; // inside the last compressed frame
    std::fs::write(&p, &b).unwrap();
    assert!(!cannot_hold(&p, &needs("frog")).unwrap());
}

/// An archive written before there were filters (a summary and no grams
/// frame) is searched whole, and gets its filter at the next archiving
/// pass: in place for a transcript the store no longer holds, written
/// anew for one it still holds.
#[test]
fn an_archive_without_filters_is_read_whole_and_given_them() {
    let (d, live, archive) = three();
    for i in 0..3 {
        // the file as archived before: frames, then the summary over them
        let p = packed_path(&archive, i);
        let (start, _) = grams_span(&p);
        let mut b = std::fs::read(&p).unwrap();
        b.truncate(start);
        let f = std::fs::File::open(&p).unwrap();
        let h = Header::read(&f).unwrap().unwrap();
        drop(f);
        std::fs::write(&p, &b).unwrap();
        let f = std::fs::File::open(&p).unwrap();
        let sum = super::super::packed::checksum_of(&f, start as u64).unwrap();
        let t = super::super::lines::Transcript::open(&p).unwrap();
        let usage = super::super::usage::read_usage(t, true).unwrap();
        let frame = super::super::packed::summary_frame(&h, start as u64, sum, &usage).unwrap();
        b.extend_from_slice(&frame);
        std::fs::write(&p, &b).unwrap();
        let f = std::fs::File::open(&p).unwrap();
        assert!(super::super::packed::has_summary(&f, &h));
        assert!(!has_grams(&f, &h));
        assert!(!cannot_hold(&p, &needs("frog")).unwrap(), "{i}");
    }
    let frog = Pattern::smart("frog");
    let packed = archive_only(&d, &archive);
    let (want, _) = search(&live, &frog, false);
    assert_eq!(search(&packed, &frog, false).0, want);
    // the store no longer holds the second: it is given its filter in
    // place; the others are archived anew
    let gone = d.path().join(format!("cfg/projects/-w/{}.jsonl", id(1)));
    std::fs::remove_file(&gone).unwrap();
    let s = live.archive(&archive, ArchiveOptions::default()).unwrap();
    assert_eq!(s.archived, 2, "{s:?}");
    for i in 0..3 {
        let p = packed_path(&archive, i);
        let (f, h) = open_packed(&p).unwrap();
        assert!(has_grams(&f, &h), "{i}");
        assert_eq!(cannot_hold(&p, &needs("frog")).unwrap(), i != 0, "{i}");
    }
    assert_eq!(search(&packed, &frog, false).0, want);
    // and nothing more to do at the next pass
    let s = live.archive(&archive, ArchiveOptions::default()).unwrap();
    assert_eq!((s.archived, s.unchanged), (0, 2), "{s:?}");
}

/// A long transcript (in two frames) with its matches near its end, and a
/// short one: the sessions found in the archive are the live ones, what a
/// listing says of them included (taken from the transcript as it was
/// read whole, or from its two frames when the reading stopped at the
/// hits asked for).
#[test]
fn a_long_transcript_found_in_the_archive_is_the_same_session() {
    let say = |t: String| {
        json!({"type":"assistant","message":{"content":[{"type":"text","text":t}]}})
            .to_string()
            .into_bytes()
    };
    let mut long: Vec<Vec<u8>> = (0..400)
        .map(|i| say(format!("{i} {}", "lorem ipsum ".repeat(40))))
        .collect();
    long.push(say("the frog".into()));
    long.push(say("a second frog".into()));
    // what a listing takes from the tail: a title
    long.push(br#"{"type":"custom-title","customTitle":"Pond life"}"#.to_vec());
    let short = vec![say("one frog".into())];
    let (d, live, archive) = archived(&[long, short]);
    let p = packed_path(&archive, 0);
    let (f, h) = open_packed(&p).unwrap();
    assert!(h.tail_at > 0, "two frames");
    drop(f);
    let packed = archive_only(&d, &archive);
    let frog = Pattern::smart("frog");
    for hits in [1, 2, 3] {
        let (want, _) = search_hits(&live, &frog, false, hits);
        assert_eq!(want.len(), 2);
        assert!(want[1].0.to_string().contains("Pond life"), "{want:?}");
        assert_eq!(search_hits(&packed, &frog, false, hits).0, want, "{hits}");
    }
}
