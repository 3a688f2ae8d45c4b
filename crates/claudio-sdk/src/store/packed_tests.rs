//! The usage summary at the end of an archived file: what it answers is
//! what decompressing the transcript answers, and a summary that does not
//! hold (stale, forged, cut, of another format) is never believed.

use super::*;
use crate::store::lines::Transcript;
use crate::store::open::PACKED_EXT;
use crate::store::usage::file_usage_of;
use crate::store::usage::read_usage;
use crate::store::usage_types::FileUsage;
use crate::store::{ArchiveOptions, Store};
use proptest::prelude::*;
use serde_json::json;
use std::path::PathBuf;

const ID: &str = "7c1d3a52-2222-4333-8444-555566667777";

/// One line of a generated transcript.
#[derive(Debug, Clone)]
enum Line {
    /// An API response's line: message and request ids from a few (so
    /// that lines repeat a message, as streamed blocks and resumed files
    /// do), its model, counts, time and flags.
    Usage {
        msg: u8,
        req: u8,
        model: u8,
        counts: [u64; 5],
        at: Option<u8>,
        fast: bool,
        us: bool,
        searches: u8,
    },
    /// A prompt (with the working directory), or a tool's result.
    User { prompt: bool, cwd: u8 },
    /// The CLI's `cost-state`.
    Cost { usd: u16, unknown: bool },
    /// A damaged line.
    Damaged,
    /// Text that is nothing to usage, to make the file long (two frames).
    Filler(u16),
}

fn count() -> impl Strategy<Value = u64> {
    prop_oneof![8 => 0u64..2_000_000, 1 => Just(u64::MAX), 1 => Just(0u64)]
}

fn line() -> impl Strategy<Value = Line> {
    prop_oneof![
        6 => (
            0u8..6,
            0u8..3,
            0u8..3,
            [count(), count(), count(), count(), count()],
            proptest::option::of(0u8..48),
            any::<bool>(),
            any::<bool>(),
            0u8..3,
        )
            .prop_map(|(msg, req, model, counts, at, fast, us, searches)| Line::Usage {
                msg,
                req,
                model,
                counts,
                at,
                fast,
                us,
                searches,
            }),
        2 => (any::<bool>(), 0u8..3).prop_map(|(prompt, cwd)| Line::User { prompt, cwd }),
        1 => (0u16..5000, any::<bool>()).prop_map(|(usd, unknown)| Line::Cost { usd, unknown }),
        1 => Just(Line::Damaged),
        1 => (0u16..6000).prop_map(Line::Filler),
    ]
}

fn render(l: &Line, i: usize) -> String {
    match l {
        Line::Usage {
            msg,
            req,
            model,
            counts,
            at,
            fast,
            us,
            searches,
        } => {
            let mut v = json!({"type":"assistant","uuid":format!("a{i}"),"sessionId":ID,
                "requestId":format!("req_{req}"),
                "message":{"id":format!("msg_{msg}"),"model":format!("claude-m{model}"),
                    "role":"assistant","content":[{"type":"text","text":"ok"}],
                    "usage":{"input_tokens":counts[0],"output_tokens":counts[1],
                        "cache_creation_input_tokens":counts[2],"cache_read_input_tokens":counts[3],
                        "cache_creation":{"ephemeral_1h_input_tokens":counts[4]},
                        "server_tool_use":{"web_search_requests":searches}}}});
            if let Some(h) = at {
                v["timestamp"] = json!(format!("2026-11-{:02}T{:02}:00:00.000Z", 1 + h / 24, h % 24));
            }
            if *fast {
                v["message"]["usage"]["speed"] = json!("fast");
            }
            if *us {
                v["message"]["usage"]["inference_geo"] = json!("us");
            }
            v.to_string()
        }
        Line::User { prompt: true, cwd } => json!({"type":"user","uuid":format!("u{i}"),
            "sessionId":ID,"cwd":format!("/w/{cwd}"),"timestamp":"2026-11-01T00:00:00.000Z",
            "message":{"role":"user","content":format!("prompt {i}")}})
        .to_string(),
        Line::User { prompt: false, cwd } => json!({"type":"user","uuid":format!("u{i}"),
            "sessionId":ID,"cwd":format!("/w/{cwd}"),
            "message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"usage"}]}})
        .to_string(),
        Line::Cost { usd, unknown } => json!({"type":"cost-state","totalCostUSD":f64::from(*usd) / 100.0,
            "hasUnknownModelCost":unknown,
            "modelUsage":{"claude-m0":{"inputTokens":usd,"outputTokens":3,"costUSD":f64::from(*usd) / 100.0}}})
        .to_string(),
        Line::Damaged => "{\"type\":\"assistant\",\"message\":{\"usage\":{\"input_tokens\":".into(),
        Line::Filler(n) => json!({"type":"system","uuid":format!("s{i}"),"sessionId":ID,
            "content":"z".repeat(*n as usize * 7 % 9000)})
        .to_string(),
    }
}

fn text_of(lines: &[Line]) -> String {
    lines
        .iter()
        .enumerate()
        .map(|(i, l)| render(l, i) + "\n")
        .collect()
}

/// A store holding `text` as one transcript, archived: the folder, the
/// transcript and its archived copy.
fn archived(text: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let folder = d.path().join("cfg/projects/-w");
    std::fs::create_dir_all(&folder).unwrap();
    let path = folder.join(format!("{ID}.jsonl"));
    std::fs::write(&path, text).unwrap();
    let store = Store::new(d.path().join("cfg"));
    let archive = d.path().join("archive");
    let s = store.archive(&archive, ArchiveOptions::default()).unwrap();
    assert_eq!(s.archived, 1, "{s:?}");
    let packed = archive.join("-w").join(format!("{ID}{PACKED_EXT}"));
    (d, path, packed)
}

/// What decompressing the archived file whole gives.
fn decompressed(packed: &Path, prompts: bool) -> crate::store::StoreResult<FileUsage> {
    read_usage(Transcript::open(packed)?, prompts)
}

/// [`has_summary`] of the archived file at `path`.
fn summarized(path: &Path) -> bool {
    let (f, h) = open_packed(path).unwrap();
    has_summary(&f, &h)
}

/// Where the summary frame starts, from the file's last bytes.
fn summary_at(packed: &Path) -> u64 {
    let b = std::fs::read(packed).unwrap();
    let n = b.len();
    assert_eq!(&b[n - 8..], SUMMARY_TAG);
    let len = u32::from_le_bytes(b[n - 12..n - 8].try_into().unwrap());
    (n - len as usize) as u64
}

/// Where the compressed frames end: the grams frame, before the summary,
/// ends with its length and tag.
fn frames_end(packed: &Path) -> usize {
    let b = std::fs::read(packed).unwrap();
    let at = summary_at(packed) as usize;
    assert_eq!(&b[at - 8..at], b"claudioG");
    at - u32::from_le_bytes(b[at - 12..at - 8].try_into().unwrap()) as usize
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// The differential property: the usage an archived file's summary
    /// gives equals what decompressing it and reading it whole gives (and
    /// what the live transcript gives), prompts counted or not.
    #[test]
    fn the_summary_equals_a_full_read(lines in proptest::collection::vec(line(), 0..60)) {
        let text = text_of(&lines);
        prop_assume!(!text.is_empty());
        let (_d, live, packed) = archived(&text);
        prop_assert!(summarized_usage(&packed).unwrap().is_some(), "it has a summary that holds");
        for prompts in [true, false] {
            let (from_summary, _) = file_usage_of(&packed, prompts).unwrap();
            let whole = decompressed(&packed, prompts).unwrap();
            prop_assert_eq!(&from_summary, &whole);
            let plain = read_usage(Transcript::open(&live).unwrap(), prompts).unwrap();
            prop_assert_eq!(&from_summary, &plain);
        }
    }
}

/// Usage with messages, prompts and a cost: a summary worth checking.
fn sample(n: usize) -> String {
    let lines: Vec<Line> = (0..n)
        .map(|i| match i % 4 {
            0 => Line::User {
                prompt: true,
                cwd: 1,
            },
            1 | 2 => Line::Usage {
                msg: (i % 7) as u8,
                req: 0,
                model: (i % 2) as u8,
                counts: [i as u64, 2 * i as u64, 3, 4, 5],
                at: Some((i % 40) as u8),
                fast: false,
                us: i % 3 == 0,
                searches: 1,
            },
            _ => Line::Filler(300),
        })
        .chain([Line::Cost {
            usd: 123,
            unknown: false,
        }])
        .collect();
    text_of(&lines)
}

/// A summary moved onto other frames (the transcript archived before it
/// grew, its summary kept on the copy of the longer one) is stale: not
/// believed, the file read whole.
#[test]
fn a_stale_summary_is_not_believed() {
    let short = sample(40);
    let long = format!("{short}{}", sample(80));
    let (_a, _, old) = archived(&short);
    let (_b, _, new) = archived(&long);
    let old_summary = std::fs::read(&old).unwrap()[summary_at(&old) as usize..].to_vec();
    let mut grafted = std::fs::read(&new).unwrap();
    grafted.truncate(summary_at(&new) as usize);
    grafted.extend_from_slice(&old_summary);
    std::fs::write(&new, &grafted).unwrap();
    assert!(summarized_usage(&new).unwrap().is_none());
    let (got, _) = file_usage_of(&new, true).unwrap();
    assert_eq!(got, decompressed(&new, true).unwrap());
    assert_ne!(
        got,
        decompressed(&old, true).unwrap(),
        "the longer one's, not the summary's"
    );
}

/// Frames of the same length but other bytes (one byte changed in the
/// compressed data) do not have the checksum the summary records.
#[test]
fn a_summary_over_changed_frames_is_not_believed() {
    let text = sample(60);
    let (_d, _, packed) = archived(&text);
    let at = frames_end(&packed);
    let mut b = std::fs::read(&packed).unwrap();
    b[at - 5] ^= 0x40; // inside the last frame
    std::fs::write(&packed, &b).unwrap();
    assert!(summarized_usage(&packed).unwrap().is_none());
    // read whole: whatever that says (here the frame's damage is an error
    // or other text), never the summary's totals
    match (file_usage_of(&packed, true), decompressed(&packed, true)) {
        (Ok((a, _)), Ok(b)) => assert_eq!(a, b),
        (Err(_), Err(_)) => {}
        (a, b) => panic!("the two reads differ: {:?} / {:?}", a.is_ok(), b.is_ok()),
    }
}

/// A file cut short: its summary (at the end) is gone or does not match,
/// and the transcript is read whole; cut into its frames, that read
/// fails rather than giving part of the totals as the whole.
#[test]
fn a_truncated_file_is_read_whole() {
    let text = sample(200);
    let (_d, live, packed) = archived(&text);
    let full = read_usage(Transcript::open(&live).unwrap(), true).unwrap();
    let whole = std::fs::read(&packed).unwrap();
    let at = summary_at(&packed) as usize;
    let frames = frames_end(&packed);
    // the summary alone cut (by one byte, or whole): the frames are read
    for cut in [whole.len() - 1, at + 30, at] {
        std::fs::write(&packed, &whole[..cut]).unwrap();
        assert!(summarized_usage(&packed).unwrap().is_none(), "{cut}");
        assert_eq!(file_usage_of(&packed, true).unwrap().0, full, "{cut}");
    }
    // cut into the frames: an error, never short totals
    std::fs::write(&packed, &whole[..frames - 10]).unwrap();
    assert!(summarized_usage(&packed).unwrap().is_none());
    assert!(file_usage_of(&packed, true).is_err());
}

/// A summary whose own fields do not match the file (another length,
/// another size or time of the original, another format) is not
/// believed, however well formed.
#[test]
fn a_forged_summary_is_not_believed() {
    let text = sample(60);
    let (_d, live, packed) = archived(&text);
    let full = read_usage(Transcript::open(&live).unwrap(), true).unwrap();
    let at = summary_at(&packed);
    let data = std::fs::read(&packed).unwrap()[..at as usize].to_vec();
    let f = File::open(&packed).unwrap();
    let header = Header::read(&f).unwrap().unwrap();
    let sum = checksum_of(&f, at).unwrap();
    drop(f);
    let mut forged_usage = full.clone();
    forged_usage.prompts += 1000;
    let put = |frame: Vec<u8>| {
        let mut b = data.clone();
        b.extend_from_slice(&frame);
        std::fs::write(&packed, &b).unwrap();
    };
    // as written (the forged counts, everything else right): believed
    // (a writer of the archive can write anything: the summary is tied
    // to the frames, not signed)
    put(summary_frame(&header, at, sum, &forged_usage).unwrap());
    assert_eq!(summarized_usage(&packed).unwrap().unwrap().0, forged_usage);
    // another length of the original
    let longer = Header {
        size: header.size + 1,
        ..header
    };
    put(summary_frame(&longer, at, sum, &forged_usage).unwrap());
    assert!(summarized_usage(&packed).unwrap().is_none());
    assert_eq!(file_usage_of(&packed, true).unwrap().0, full);
    // another time
    let later = Header {
        mtime: header.mtime + std::time::Duration::from_nanos(1),
        ..header
    };
    put(summary_frame(&later, at, sum, &forged_usage).unwrap());
    assert!(summarized_usage(&packed).unwrap().is_none());
    // where the frames end: another length of the archived file
    put(summary_frame(&header, at - 1, sum, &forged_usage).unwrap());
    assert!(summarized_usage(&packed).unwrap().is_none());
    let mut padded = data.clone();
    padded.push(0);
    padded.extend_from_slice(&summary_frame(&header, at, sum, &forged_usage).unwrap());
    std::fs::write(&packed, &padded).unwrap();
    assert!(summarized_usage(&packed).unwrap().is_none());
    assert_eq!(file_usage_of(&packed, true).unwrap().0, full);
    // another checksum of the frames
    put(summary_frame(&header, at, sum ^ 1, &forged_usage).unwrap());
    assert!(summarized_usage(&packed).unwrap().is_none());
    // a frame whose length field lies, or another format's version, or
    // its own checksum broken
    let good = summary_frame(&header, at, sum, &forged_usage).unwrap();
    let n = good.len();
    let mut lying = good.clone();
    lying[n - 12..n - 8].copy_from_slice(&((n + 8) as u32).to_le_bytes());
    put(lying);
    assert!(summarized_usage(&packed).unwrap().is_none());
    let mut other_version = good.clone();
    other_version[8] ^= 0x7f;
    put(other_version);
    assert!(summarized_usage(&packed).unwrap().is_none());
    let mut broken = good;
    broken[SUMMARY_FIXED] ^= 1;
    put(broken);
    assert!(summarized_usage(&packed).unwrap().is_none());
    assert_eq!(file_usage_of(&packed, true).unwrap().0, full);
}

/// An archive written before there were summaries is read whole, and the
/// next pass writes the file again, with one.
#[test]
fn an_archive_without_a_summary_is_read_whole_and_given_one() {
    let text = sample(60);
    let (d, live, packed) = archived(&text);
    let full = read_usage(Transcript::open(&live).unwrap(), true).unwrap();
    let at = summary_at(&packed);
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(&packed)
        .unwrap();
    let mtime = f.metadata().unwrap().modified().unwrap();
    f.set_len(at).unwrap();
    f.set_modified(mtime).unwrap();
    drop(f);
    assert!(!summarized(&packed));
    assert!(summarized_usage(&packed).unwrap().is_none());
    assert_eq!(file_usage_of(&packed, true).unwrap().0, full);
    let store = Store::new(d.path().join("cfg"));
    let s = store
        .archive(d.path().join("archive"), ArchiveOptions::default())
        .unwrap();
    assert_eq!((s.archived, s.unchanged), (1, 0), "written again");
    assert!(summarized(&packed));
    assert_eq!(summarized_usage(&packed).unwrap().unwrap().0, full);
    let s = store
        .archive(d.path().join("archive"), ArchiveOptions::default())
        .unwrap();
    assert_eq!((s.archived, s.unchanged), (0, 1), "then left as it is");
}

/// A session's usage (the CLI having deleted its transcript) read from
/// the archive equals the live one's, read from the summary.
#[test]
fn a_session_read_from_the_archive_equals_the_live_one() {
    let text = sample(120);
    let (_d, live, packed) = archived(&text);
    let read = |p: &Path| crate::store::usage_read::read_session(p, true, None, true).unwrap();
    let before = read(&live);
    std::fs::remove_file(&live).unwrap();
    let after = read(&packed);
    assert!(summarized_usage(&packed).unwrap().is_some());
    assert_eq!(after.total(), before.total());
    assert_eq!(after.last_modified, before.last_modified);
}

/// Strip the summary of an archived file (as one written before there
/// were summaries), its time kept; the bytes left.
fn strip_summary(packed: &Path) -> Vec<u8> {
    let at = summary_at(packed);
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(packed)
        .unwrap();
    let mtime = f.metadata().unwrap().modified().unwrap();
    f.set_len(at).unwrap();
    f.set_modified(mtime).unwrap();
    drop(f);
    std::fs::read(packed).unwrap()
}

/// An archived transcript the store no longer holds, written before there
/// were summaries, is given one in place by the next pass: its bytes
/// before it and its time as they were, its usage then the full read's.
#[test]
fn an_archived_file_whose_transcript_is_gone_is_given_a_summary_in_place() {
    let text = sample(60);
    let (d, live, packed) = archived(&text);
    let full = read_usage(Transcript::open(&live).unwrap(), true).unwrap();
    let before = strip_summary(&packed);
    let mtime = std::fs::metadata(&packed).unwrap().modified().unwrap();
    std::fs::remove_file(&live).unwrap();
    assert!(!summarized(&packed));
    let store = Store::new(d.path().join("cfg"));
    let s = store
        .archive(d.path().join("archive"), ArchiveOptions::default())
        .unwrap();
    assert_eq!(s.archived, 0);
    assert!(summarized(&packed), "given one");
    let after = std::fs::read(&packed).unwrap();
    assert!(after.len() > before.len() && after.starts_with(&before));
    assert_eq!(
        std::fs::metadata(&packed).unwrap().modified().unwrap(),
        mtime
    );
    assert_eq!(summarized_usage(&packed).unwrap().unwrap().0, full);
    assert_eq!(decompressed(&packed, true).unwrap(), full);
    // the next pass leaves it as it is
    store
        .archive(d.path().join("archive"), ArchiveOptions::default())
        .unwrap();
    assert_eq!(std::fs::read(&packed).unwrap(), after);
}

/// A file cut at the end of one of its frames decompresses without an
/// error from zstd, to fewer bytes than its header records: it is given
/// no summary, and reading it is an error, never part of its totals.
#[test]
fn a_file_cut_at_a_frames_end_is_never_summarised_nor_counted_short() {
    let text = sample(600);
    let (d, live, packed) = archived(&text);
    let header = Header::read(&File::open(&packed).unwrap())
        .unwrap()
        .unwrap();
    assert!(header.tail_at > 0, "two frames at least");
    strip_summary(&packed);
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(&packed)
        .unwrap();
    f.set_len(header.tail_at).unwrap();
    drop(f);
    std::fs::remove_file(&live).unwrap();
    assert!(file_usage_of(&packed, true).is_err());
    let store = Store::new(d.path().join("cfg"));
    store
        .archive(d.path().join("archive"), ArchiveOptions::default())
        .unwrap();
    assert!(!summarized(&packed), "no summary of part of it");
    assert_eq!(std::fs::metadata(&packed).unwrap().len(), header.tail_at);
    assert!(file_usage_of(&packed, true).is_err());
}

/// An archived transcript of a session that began with a `!` command,
/// its first prompt past the head (the claude TUI writes a request's
/// copies of the system prompt between the two): its title is that
/// prompt, as the live one's and the full read's, not the tail's first.
#[test]
fn an_archived_session_s_title_is_its_first_prompt_past_the_head() {
    titled_by_its_first_prompt_past(100_000);
}

/// An archived transcript whose first prompt lies past 16 MiB, where the
/// listing once stopped looking for it: its title is that prompt, as the
/// live one's, not the tail's first (`later`).
#[test]
fn an_archived_session_s_first_prompt_past_16_mib_is_its_title() {
    titled_by_its_first_prompt_past(17 << 20);
}

/// A session begun with a `!` command, `gap` bytes of a request's copies
/// of the system prompt before its first prompt, then another: live and
/// archived, its title is the first prompt (not the tail's, `later`).
fn titled_by_its_first_prompt_past(gap: usize) {
    let user = |content: &str| {
        json!({"type": "user", "sessionId": ID, "cwd": "/w",
            "message": {"role": "user", "content": content}})
        .to_string()
    };
    let blob = |n: usize| {
        json!({"type": "api-request-blob", "sessionId": ID,
            "message": {"content": [{"type": "text", "text": "x".repeat(n)}]}})
        .to_string()
    };
    let text = [
        user("<bash-input>ls</bash-input>"),
        user("<bash-stdout>a</bash-stdout><bash-stderr></bash-stderr>"),
        blob(gap),
        user("what did it print"),
        blob(150_000),
        user("later"),
        json!({"type": "last-prompt", "lastPrompt": "later"}).to_string(),
    ]
    .join("\n")
        + "\n";
    let (_d, path, packed) = archived(&text);
    let live = crate::store::info::session_info(&path, ID).unwrap();
    assert_eq!(live.title, "what did it print");
    let kept = crate::store::info::session_info(&packed, ID).unwrap();
    assert!(kept.from_archive);
    assert_eq!(kept.title, "what did it print");
}

/// An archived transcript whose first message lies past 16 MiB holds
/// messages, and one holding none after 16 MiB of other lines holds none,
/// as the live one's: the continued session it is read for is decompressed
/// as it is read, to its end (the listing once stopped at 16 MiB and said
/// it held messages).
#[test]
fn an_archived_session_s_messages_past_16_mib_are_read_for() {
    let blob = |n: usize| {
        json!({"type": "api-request-blob", "sessionId": ID,
            "message": {"content": [{"type": "text", "text": "x".repeat(n)}]}})
        .to_string()
    };
    let message = json!({"type": "user", "sessionId": ID, "cwd": "/w", "uuid": "u1",
        "parentUuid": null, "message": {"role": "user", "content": "hello"}})
    .to_string();
    for with in [false, true] {
        let mut lines = vec![blob(17 << 20)];
        if with {
            lines.push(message.clone());
        }
        lines.push(blob(150_000));
        // a prompt typed (no message: no parent) so that it is archived
        lines.push(json!({"type": "last-prompt", "lastPrompt": "later"}).to_string());
        let text = lines.join("\n") + "\n";
        let (_d, path, packed) = archived(&text);
        assert_eq!(crate::store::info::has_messages(&path), with, "live");
        assert_eq!(crate::store::info::has_messages(&packed), with, "archived");
    }
}
