use super::*;
use crate::store::usage_types::{CliCost, MessageUsage, ModelCost, Tokens};
use serde_json::json;
use std::sync::atomic::AtomicI64;

/// These tests run one at a time: they share the process's one cache and
/// the cache folder's variable, and `cargo test` runs them in threads of
/// one process.
static ENV: std::sync::Mutex<()> = std::sync::Mutex::new(());

pub(crate) fn env_lock() -> std::sync::MutexGuard<'static, ()> {
    ENV.lock().unwrap_or_else(|e| e.into_inner())
}

/// [`RACY_NS`] in these tests: none, so that a file written just now is
/// taken from the index (each test that rewrites a file in place changes
/// its size, or waits, so that its times differ).
pub(super) static RACY: AtomicI64 = AtomicI64::new(0);

fn line(id: &str, input: u64, ts: &str) -> String {
    json!({"type":"assistant","requestId":format!("r{id}"),"timestamp":ts,
        "message":{"id":id,"model":"claude-sonnet-4-5","usage":{"input_tokens":input,"output_tokens":1}}})
    .to_string()
        + "\n"
}

fn prompt(text: &str) -> String {
    json!({"type":"user","timestamp":"2026-11-01T10:00:00.000Z","cwd":"/w","message":{"content":text}})
        .to_string()
        + "\n"
}

/// A full read of `path`, without any index.
fn full(path: &Path, prompts: bool) -> FileUsage {
    let mut u = super::super::usage::file_usage(path).unwrap();
    if !prompts {
        u.prompts = 0;
    }
    u
}

/// One read through the index at `file`: the answer, and how many files
/// were read whole and read on.
fn through(file: &Path, path: &Path, prompts: bool) -> (FileUsage, (usize, usize)) {
    let ix = Index::at(file.to_path_buf());
    let r = ix.read(path, prompts).unwrap();
    let counts = *Index::lock(&ix.counts);
    ix.finish(None, false);
    (r.usage, counts)
}

fn append(path: &Path, s: &str) {
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    f.write_all(s.as_bytes()).unwrap();
}

#[test]
fn a_record_round_trips() {
    let _env = env_lock();
    let u = FileUsage {
        messages: vec![
            MessageUsage {
                key: "m1\u{0}r1".into(),
                model: "claude-opus-4-5".into(),
                tokens: Tokens {
                    input: 1,
                    output: u64::MAX,
                    cache_write: 9,
                    cache_read: 300,
                    cache_write_1h: 4,
                },
                at: Some(-5),
                fast: true,
                us_only: false,
                web_searches: u64::MAX,
            },
            MessageUsage {
                key: "m2\u{0}".into(),
                model: "".into(),
                tokens: Tokens::default(),
                at: None,
                fast: false,
                us_only: true,
                web_searches: 0,
            },
        ],
        prompts: 7,
        cwd: Some("/wörk".into()),
        first: Some(i64::MIN),
        last: Some(i64::MAX),
        cli_cost: Some(CliCost {
            total_usd: 0.25,
            models: vec![ModelCost {
                model: "claude-opus-5-5".into(),
                tokens: Tokens {
                    input: 5,
                    output: 6,
                    cache_write: 7,
                    cache_read: 8,
                    cache_write_1h: 3,
                },
                web_search_requests: 2,
                cost_usd: 0.25,
            }],
            has_unknown_model_cost: true,
            until: Some(77),
            responses: 3,
            first: 1,
        }),
    };
    let h = Head {
        key: Key {
            dev: 1,
            ino: 2,
            size: 3,
            mtime: -4,
            mtime_ns: 5,
            ctime: 6,
            ctime_ns: 999_999_999,
        },
        read_at: 8,
        boundary: NOT_RESUMABLE,
        head_sum: 9,
        tail_sum: 10,
        mid_at: 11,
        mid_sum: 12,
        prompts: true,
    };
    let b = encode(&h, &u);
    assert_eq!(decode_head(&b), Some(h));
    // the CLI's figures read alone, as learning prices from every record
    // reads them (and a record without any says so)
    assert_eq!(decode_cli_cost(&b), Some(u.cli_cost.clone()));
    let none = encode(&h, &FileUsage::default());
    assert_eq!(decode_cli_cost(&none), Some(None));
    assert_eq!(decode_cli_cost(&b[..HEAD_LEN]), None);
    assert_eq!(decode_usage(&b), Some(u));
    // cut anywhere, or with a byte more: not a record
    for n in HEAD_LEN..b.len() {
        assert_eq!(decode_usage(&b[..n]), None, "cut at {n}");
    }
    let mut longer = b.to_vec();
    longer.push(0);
    assert_eq!(decode_usage(&longer), None);
}

#[test]
fn an_index_file_is_whole_or_ignored() {
    let _env = env_lock();
    let mut map = Map::new();
    map.insert(
        b"/a/b.jsonl".as_slice().into(),
        encode(
            &Head {
                key: Key {
                    dev: 1,
                    ino: 1,
                    size: 1,
                    mtime: 1,
                    mtime_ns: 1,
                    ctime: 1,
                    ctime_ns: 1,
                },
                read_at: 0,
                boundary: 0,
                head_sum: 0,
                tail_sum: 0,
                mid_at: NOT_RESUMABLE,
                mid_sum: 0,
                prompts: false,
            },
            &FileUsage::default(),
        ),
    );
    let data = serialize(&map);
    assert_eq!(parse(&data), Some(map.clone()));
    assert_eq!(parse(&serialize(&Map::new())), Some(Map::new()));
    for n in 0..data.len() {
        assert_eq!(parse(&data[..n]), None, "truncated to {n}");
    }
    for i in 0..data.len() {
        let mut bad = data.clone();
        bad[i] ^= 0x40;
        assert_eq!(parse(&bad), None, "byte {i} changed");
    }
    assert_eq!(parse(b"garbage"), None);
}

#[test]
fn an_unchanged_file_is_not_read_an_appended_one_only_from_where_it_was() {
    let _env = env_lock();
    let d = tempfile::tempdir().unwrap();
    let idx = d.path().join("cache/usage-index");
    let t = d.path().join("t.jsonl");
    std::fs::write(
        &t,
        prompt("hi") + &line("m1", 10, "2026-11-01T10:00:01.000Z"),
    )
    .unwrap();

    let (u, n) = through(&idx, &t, true);
    assert_eq!((u, n), (full(&t, true), (1, 0)), "the first time: read");
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&idx), 0o600);
    assert_eq!(mode(idx.parent().unwrap()), 0o700);
    let (u, n) = through(&idx, &t, true);
    assert_eq!((u, n), (full(&t, true), (0, 0)), "unchanged: not read");
    // without prompts: the same record, prompts 0
    let (u, n) = through(&idx, &t, false);
    assert_eq!((u, n), (full(&t, false), (0, 0)));

    // appended: the new lines only; the last line of a message wins
    append(
        &t,
        &(line("m1", 12, "2026-11-01T10:00:02.000Z") + &prompt("more")),
    );
    let (u, n) = through(&idx, &t, true);
    assert_eq!((u.clone(), n), (full(&t, true), (0, 1)));
    assert_eq!(u.prompts, 2);
    assert_eq!(u.tokens().input, 12);

    // a line being written (no newline yet): read on, but not from there
    append(&t, r#"{"type":"assistant","message":{"id":"m2"#);
    let (u, n) = through(&idx, &t, true);
    assert_eq!((u, n), (full(&t, true), (0, 1)));
    append(&t, "\"}}\n");
    append(&t, &line("m3", 5, "2026-11-01T10:00:03.000Z"));
    let (u, n) = through(&idx, &t, true);
    assert_eq!((u, n), (full(&t, true), (1, 0)), "read whole");

    // grown past 4 KiB, then appended to: read on
    for i in 0..40 {
        append(&t, &line(&format!("x{i}"), i, "2026-11-01T10:00:04.000Z"));
    }
    assert_eq!(through(&idx, &t, true), (full(&t, true), (0, 1)));
    append(&t, &line("y", 1, "2026-11-01T10:00:05.000Z"));
    assert_eq!(through(&idx, &t, true), (full(&t, true), (0, 1)));

    // rewritten, longer, at its start: read whole
    let text = std::fs::read_to_string(&t).unwrap();
    std::fs::write(&t, text.replacen("hi", "ho", 1) + &prompt("x")).unwrap();
    assert_eq!(through(&idx, &t, true), (full(&t, true), (1, 0)));
    // rewritten near its end (the same start), longer: read whole
    let text = std::fs::read_to_string(&t).unwrap();
    let cut = text.len() - 30;
    std::fs::write(&t, format!("{} {}", &text[..cut], &text[cut..])).unwrap();
    assert_eq!(through(&idx, &t, true), (full(&t, true), (1, 0)));
    // shrunk: read whole
    std::fs::write(&t, line("z", 3, "2026-11-01T10:00:06.000Z")).unwrap();
    assert_eq!(through(&idx, &t, true), (full(&t, true), (1, 0)));
    // replaced by another file: read whole
    let other = d.path().join("o.jsonl");
    std::fs::write(
        &other,
        line("w", 4, "2026-11-01T10:00:07.000Z") + &prompt("p"),
    )
    .unwrap();
    std::fs::rename(&other, &t).unwrap();
    assert_eq!(through(&idx, &t, true), (full(&t, true), (1, 0)));
}

/// Change, in place, the first digit of the `input_tokens` value after
/// byte `near` of `path` (the size kept), and move its modification time
/// a second on (so it is not the same version to its times).
fn edit_in_place(path: &Path, near: usize) {
    let mut text = std::fs::read(path).unwrap();
    let key = b"\"input_tokens\":";
    let at = near + memchr::memmem::find(&text[near..], key).unwrap() + key.len();
    text[at] = if text[at] == b'9' { b'8' } else { text[at] + 1 };
    let f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    f.write_all_at(&text[at..at + 1], at as u64).unwrap();
    let m = f.metadata().unwrap().modified().unwrap();
    f.set_modified(m + Duration::from_secs(1)).unwrap();
}

/// 200 messages: a file well past three samples of [`EDGE`] bytes.
fn long_transcript(path: &Path) {
    let text: String = (0..200)
        .map(|i| line(&format!("m{i}"), 100 + i, "2026-11-01T10:00:01.000Z"))
        .collect();
    std::fs::write(path, text).unwrap();
}

#[test]
fn a_file_rewritten_in_place_in_its_middle_is_read_whole() {
    let _env = env_lock();
    let d = tempfile::tempdir().unwrap();
    let idx = d.path().join("usage-index");
    let t = d.path().join("t.jsonl");
    long_transcript(&t);
    let size = std::fs::metadata(&t).unwrap().len() as usize;
    assert!(size > 8 * EDGE, "{size}");
    assert_eq!(through(&idx, &t, false).1, (1, 0));

    // the same size, other times: read whole (its ends are as they were)
    edit_in_place(&t, size / 3);
    assert_eq!(std::fs::metadata(&t).unwrap().len() as usize, size);
    let (u, n) = through(&idx, &t, false);
    assert_eq!(u, full(&t, false), "the edit is counted");
    assert_eq!(n, (1, 0), "read whole");

    // edited in its middle, then appended to: the middle sample tells
    edit_in_place(&t, size / 2 - 200);
    append(&t, &line("late", 7, "2026-11-01T10:00:02.000Z"));
    let (u, n) = through(&idx, &t, false);
    assert_eq!(u, full(&t, false), "the edit is counted");
    assert_eq!(n, (1, 0), "read whole");

    // edited at the end of what was read, then appended to: the last
    // EDGE bytes tell
    let size = std::fs::metadata(&t).unwrap().len() as usize;
    edit_in_place(&t, size - 300);
    append(&t, &line("later", 8, "2026-11-01T10:00:03.000Z"));
    assert_eq!(through(&idx, &t, false), (full(&t, false), (1, 0)));

    // only appended to: still read on from where it was read to
    append(&t, &line("last", 9, "2026-11-01T10:00:04.000Z"));
    assert_eq!(through(&idx, &t, false), (full(&t, false), (0, 1)));
}

#[test]
fn a_file_changed_lately_is_checked_again() {
    let _env = env_lock();
    RACY.store(RACY_NS, std::sync::atomic::Ordering::Relaxed);
    let d = tempfile::tempdir().unwrap();
    let idx = d.path().join("usage-index");
    let t = d.path().join("t.jsonl");
    std::fs::write(&t, line("a", 1, "2026-11-01T10:00:01.000Z")).unwrap();
    assert_eq!(through(&idx, &t, false).1, (1, 0));
    // the same size, at once (maybe within one tick of the clock)
    std::fs::write(&t, line("b", 2, "2026-11-01T10:00:01.000Z")).unwrap();
    let (u, n) = through(&idx, &t, false);
    assert_eq!(u, full(&t, false));
    assert_eq!(n, (1, 0), "checked again, and found changed");
    let (_, n) = through(&idx, &t, false);
    assert_eq!(n, (0, 1), "still checked: its ends, then nothing to read");
    RACY.store(0, std::sync::atomic::Ordering::Relaxed);
}

/// The index file as someone else may have left it: each time, the answer
/// is the full read's, nothing hangs, and the index is rebuilt as a file
/// of the user's own where it can be.
#[test]
fn a_hostile_index_file_is_ignored_and_rebuilt() {
    let _env = env_lock();
    let d = tempfile::tempdir().unwrap();
    let t = d.path().join("t.jsonl");
    std::fs::write(
        &t,
        prompt("hi") + &line("m1", 10, "2026-11-01T10:00:01.000Z"),
    )
    .unwrap();
    let want = full(&t, true);
    let cache = d.path().join("cache");
    std::fs::create_dir(&cache).unwrap();
    let idx = cache.join("usage-index");
    let rebuilt = |idx: &Path| {
        let m = std::fs::symlink_metadata(idx).unwrap();
        assert!(m.is_file(), "a regular file again");
        assert!(parse(&std::fs::read(idx).unwrap()).is_some());
    };
    let fresh = || *CACHE.lock().unwrap() = None; // as a new process

    // a FIFO: not waited on
    assert!(std::process::Command::new("mkfifo")
        .arg(&idx)
        .status()
        .unwrap()
        .success());
    fresh();
    assert_eq!(through(&idx, &t, true), (want.clone(), (1, 0)));
    rebuilt(&idx);

    // a link to a file elsewhere: not read, not written through
    let elsewhere = d.path().join("elsewhere");
    std::fs::copy(&idx, &elsewhere).unwrap();
    let before = std::fs::read(&elsewhere).unwrap();
    std::fs::remove_file(&idx).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &idx).unwrap();
    fresh();
    assert_eq!(through(&idx, &t, true), (want.clone(), (1, 0)), "not read");
    rebuilt(&idx);
    assert_eq!(
        std::fs::read(&elsewhere).unwrap(),
        before,
        "not written through"
    );
    // a link to /dev/zero
    std::fs::remove_file(&idx).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &idx).unwrap();
    fresh();
    assert_eq!(through(&idx, &t, true), (want.clone(), (1, 0)));
    rebuilt(&idx);

    // huge (sparse): not read
    std::fs::remove_file(&idx).unwrap();
    let f = std::fs::File::create(&idx).unwrap();
    f.set_len(MAX_INDEX + 1).unwrap();
    drop(f);
    fresh();
    assert_eq!(through(&idx, &t, true), (want.clone(), (1, 0)));
    rebuilt(&idx);

    // truncated, damaged, garbage
    let whole = std::fs::read(&idx).unwrap();
    let mut damaged = whole.clone();
    let last = damaged.len() - 20;
    damaged[last] ^= 1;
    for bad in [
        &whole[..whole.len() / 2],
        &damaged[..],
        b"garbage".as_slice(),
        b"",
    ] {
        std::fs::write(&idx, bad).unwrap();
        fresh();
        assert_eq!(through(&idx, &t, true), (want.clone(), (1, 0)));
        rebuilt(&idx);
    }
    // writable by others: not trusted
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&idx, std::fs::Permissions::from_mode(0o666)).unwrap();
    fresh();
    assert_eq!(through(&idx, &t, true), (want.clone(), (1, 0)));
    rebuilt(&idx);

    // a folder: used as none, left as it is
    std::fs::remove_file(&idx).unwrap();
    std::fs::create_dir(&idx).unwrap();
    fresh();
    assert_eq!(through(&idx, &t, true), (want.clone(), (1, 0)));
    assert_eq!(through(&idx, &t, true).0, want);
    assert!(idx.is_dir());
    std::fs::remove_dir(&idx).unwrap();

    // a folder that cannot be written: the answer still
    if !rustix::process::geteuid().is_root() {
        std::fs::set_permissions(&cache, std::fs::Permissions::from_mode(0o500)).unwrap();
        fresh();
        assert_eq!(through(&idx, &t, true), (want.clone(), (1, 0)));
        assert!(!idx.exists());
        std::fs::set_permissions(&cache, std::fs::Permissions::from_mode(0o700)).unwrap();
    } else {
        eprintln!("skipped the unwritable folder: root writes anywhere");
    }
    // no temporary file is left behind
    let left: Vec<_> = std::fs::read_dir(&cache)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(
        left.iter().all(|n| !n.to_string_lossy().ends_with(".tmp")),
        "{left:?}"
    );
}

#[test]
fn a_relative_cache_folder_is_no_index() {
    let _env = env_lock();
    // the one test here that reads the environment; nextest gives each
    // test its own process
    std::env::set_var(CACHE_ENV, "relative/dir");
    assert_eq!(index_path(), None);
    std::env::set_var(CACHE_ENV, "");
    assert_eq!(index_path(), None);
    std::env::set_var(CACHE_ENV, "/abs/dir");
    assert_eq!(index_path(), Some(PathBuf::from("/abs/dir/usage-index")));
    std::env::remove_var(CACHE_ENV);
}

#[test]
fn the_index_forgets_transcripts_that_are_gone_and_only_those() {
    let _env = env_lock();
    let d = tempfile::tempdir().unwrap();
    let cache = d.path().join("cache");
    std::env::set_var(CACHE_ENV, &cache);
    let idx = cache.join(FILE_NAME);
    let ids = [
        "aaaaaaaa-1111-4111-8111-111111111111",
        "bbbbbbbb-2222-4222-8222-222222222222",
    ];
    let write = |config: &Path, id: &str| {
        let p = config.join("projects/-p").join(format!("{id}.jsonl"));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, line(id, 5, "2026-11-01T10:00:01.000Z")).unwrap();
        p
    };
    let names = || {
        let mut v: Vec<String> = load(&idx)
            .keys()
            .map(|k| String::from_utf8_lossy(k).into_owned())
            .collect();
        v.sort();
        v
    };
    let one = d.path().join("one");
    let other = d.path().join("other");
    let a = write(&one, ids[0]);
    let b = write(&one, ids[1]);
    let c = write(&other, ids[0]);
    let store = super::super::Store::new(&one);
    assert_eq!(store.usage(None).unwrap().sessions.len(), 2);
    super::super::Store::new(&other).usage(None).unwrap();
    let s = |p: &Path| p.to_string_lossy().into_owned();
    assert_eq!(names(), {
        let mut v = vec![s(&a), s(&b), s(&c)];
        v.sort();
        v
    });
    // one deleted, the other store gone: both forgotten, the rest kept
    std::fs::remove_file(&b).unwrap();
    std::fs::remove_dir_all(&other).unwrap();
    std::fs::write(&a, line("x", 6, "2026-11-01T10:00:02.000Z") + "\n").unwrap();
    assert_eq!(store.usage(None).unwrap().sessions.len(), 1);
    assert_eq!(names(), [s(&a)]);
    // a listing of recent transcripts keeps the older ones' records
    let b = write(&one, ids[1]);
    store.usage(None).unwrap();
    let old = UNIX_EPOCH + Duration::from_secs(1_000_000_000);
    for p in [&a, &b] {
        let f = std::fs::File::options().write(true).open(p).unwrap();
        f.set_modified(old).unwrap();
    }
    let c = write(&one, "cccccccc-3333-4333-8333-333333333333");
    let recent = store.usage_since(None, 1_500_000_000_000).unwrap();
    assert_eq!(recent.sessions.len(), 1);
    let mut want = vec![s(&a), s(&b), s(&c)];
    want.sort();
    assert_eq!(names(), want);
    std::env::remove_var(CACHE_ENV);
}

#[test]
fn writers_at_once_leave_one_whole_index() {
    let _env = env_lock();
    let d = tempfile::tempdir().unwrap();
    let idx = d.path().join("cache/usage-index");
    let maps: Vec<Map> = (0..4u8)
        .map(|w| {
            (0..200u32)
                .map(|i| {
                    let path: Box<[u8]> = format!("/p/{w}/{i}.jsonl").into_bytes().into();
                    let rec = encode(
                        &Head {
                            key: Key {
                                dev: w as u64,
                                ino: i as u64,
                                size: 0,
                                mtime: 0,
                                mtime_ns: 0,
                                ctime: 0,
                                ctime_ns: 0,
                            },
                            read_at: 0,
                            boundary: NOT_RESUMABLE,
                            head_sum: 0,
                            tail_sum: 0,
                            mid_at: NOT_RESUMABLE,
                            mid_sum: 0,
                            prompts: false,
                        },
                        &FileUsage::default(),
                    );
                    (path, rec)
                })
                .collect()
        })
        .collect();
    let (maps, idx) = (&maps, &idx);
    std::thread::scope(|s| {
        for m in maps {
            s.spawn(move || {
                for _ in 0..20 {
                    save(idx, m).unwrap();
                    // a reader meanwhile sees a whole index, never a part
                    let seen = load(idx);
                    assert!(maps.contains(&seen), "{} records", seen.len());
                }
            });
        }
    });
    assert!(maps.contains(&load(idx)));
    let names: Vec<_> = std::fs::read_dir(idx.parent().unwrap())
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(names, ["usage-index"], "no temporary file left");
}

/// A process that died while writing the index left its temporary file:
/// the next write removes it (a process that is gone, or a file more than
/// an hour old), and leaves a live process's and any other file.
#[test]
fn a_dead_writers_temporary_file_is_swept() {
    let _env = env_lock();
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("cache");
    std::fs::create_dir_all(&dir).unwrap();
    let idx = dir.join("usage-index");
    // a process that is gone: a child, waited for
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    let me = std::process::id();
    let tmp = |pid: u32, n: u32| dir.join(format!(".usage-index.{pid}.123.{n}.tmp"));
    let junk = |p: &Path| std::fs::write(p, vec![0u8; 4096]).unwrap();
    let (of_dead, of_mine, of_mine_old, garbled, other) = (
        tmp(dead, 0),
        tmp(me, 1),
        tmp(me, 2),
        dir.join(".usage-index.x.tmp"),
        dir.join(".something.1.tmp"),
    );
    for p in [&of_dead, &of_mine, &of_mine_old, &garbled, &other] {
        junk(p);
    }
    let f = std::fs::File::options()
        .write(true)
        .open(&of_mine_old)
        .unwrap();
    f.set_modified(SystemTime::now() - Duration::from_secs(7200))
        .unwrap();

    save(&idx, &Map::new()).unwrap();
    assert!(!of_dead.exists(), "a dead process's");
    assert!(!of_mine_old.exists(), "more than an hour old");
    assert!(!garbled.exists(), "no process's");
    assert!(of_mine.exists(), "a live process's, new");
    assert!(other.exists(), "not the index's");
    assert_eq!(load(&idx), Map::new());

    // a write that fails (the index is a folder) fails no read
    let d2 = tempfile::tempdir().unwrap();
    let idx2 = d2.path().join("usage-index");
    std::fs::create_dir_all(idx2.join("x")).unwrap();
    let t = d2.path().join("t.jsonl");
    std::fs::write(&t, line("m", 3, "2026-11-01T10:00:01.000Z")).unwrap();
    assert_eq!(through(&idx2, &t, false).0, full(&t, false));
    assert!(idx2.is_dir());
}

/// A listing that shows each session's usage reads them with one
/// `sessions_usage` call: the index is written once, at its end, with all
/// of them, so that the next listing (another process) reads none.
#[test]
fn a_listing_of_every_sessions_usage_indexes_them_all() {
    let _env = env_lock();
    let d = tempfile::tempdir().unwrap();
    let cache = d.path().join("cache");
    std::env::set_var(CACHE_ENV, &cache);
    let idx = cache.join(FILE_NAME);
    let paths: Vec<PathBuf> = (0..40)
        .map(|i| {
            let p = d.path().join(format!("s{i}.jsonl"));
            std::fs::write(&p, line(&format!("m{i}"), i, "2026-11-01T10:00:01.000Z")).unwrap();
            p
        })
        .collect();
    let first = super::super::usage_read::sessions_usage(&paths);
    assert_eq!(first.len(), 40);
    for (i, u) in first.iter().enumerate() {
        assert_eq!(u.as_ref().unwrap().total().tokens().input, i as u64);
    }
    // another process: only what is on disk
    *super::cache() = None;
    assert_eq!(load(&idx).len(), 40, "every session indexed");
    let mut reads = (0, 0);
    for p in &paths {
        let (u, n) = through(&idx, p, true);
        assert_eq!(u, full(p, true));
        reads = (reads.0 + n.0, reads.1 + n.1);
    }
    assert_eq!(reads, (0, 0), "none read again");
    std::env::remove_var(CACHE_ENV);
}

/// `usage_since` over a few small recent transcripts (a status line's)
/// reads them without loading a big index: loading it would cost more
/// than the reads it saves. The answers are the same.
#[test]
fn a_few_recent_transcripts_are_read_without_loading_a_big_index() {
    let _env = env_lock();
    let d = tempfile::tempdir().unwrap();
    let cache = d.path().join("cache");
    std::env::set_var(CACHE_ENV, &cache);
    let idx = cache.join(FILE_NAME);
    let folder = d.path().join("config/projects/-w");
    std::fs::create_dir_all(&folder).unwrap();
    for i in 0..3 {
        let id = format!("eeeeeeee-000{i}-4444-8444-444444444444");
        let p = folder.join(format!("{id}.jsonl"));
        std::fs::write(&p, line(&format!("m{i}"), i, "2026-11-01T10:00:01.000Z")).unwrap();
    }
    let store = crate::store::Store::new(d.path().join("config"));
    let full = store.usage(None).unwrap();
    // the index of a big store: many other transcripts' records
    *super::cache() = None;
    let mut map = load(&idx);
    assert_eq!(map.len(), 3);
    let (_, rec) = map
        .iter()
        .next()
        .map(|(k, v)| (k.clone(), v.clone()))
        .unwrap();
    for i in 0..5000 {
        map.insert(format!("/other/{i}.jsonl").into_bytes().into(), rec.clone());
    }
    save(&idx, &map).unwrap();
    // other tests of this process load their own indexes meanwhile: only
    // this test's file counts
    let loaded = || super::LOADED.lock().unwrap().contains(&idx);
    super::LOADED.lock().unwrap().retain(|f| *f != idx);
    let since = store.usage_since(None, 0).unwrap();
    assert!(!loaded(), "the index was not loaded");
    assert_eq!(since.sessions, full.sessions);
    // an index smaller than what reading them costs: through it
    *super::cache() = None;
    map.retain(|k, _| !k.starts_with(b"/other/"));
    save(&idx, &map).unwrap();
    let since = store.usage_since(None, 0).unwrap();
    assert!(loaded(), "the index was loaded");
    assert_eq!(since.sessions, store.usage(None).unwrap().sessions);
    std::env::remove_var(CACHE_ENV);
}

/// [`Store::recent_usage`] looks at the folders once; each
/// [`RecentUsage::since`] then gives what `usage_since` gives for that
/// time: the transcripts written since, read now (an append after the
/// look is read, as `usage_since` called then would read it).
///
/// [`Store::recent_usage`]: crate::store::Store::recent_usage
/// [`RecentUsage::since`]: crate::store::RecentUsage::since
#[test]
fn recent_usage_since_equals_usage_since_at_each_time() {
    let _env = env_lock();
    let d = tempfile::tempdir().unwrap();
    std::env::set_var(CACHE_ENV, d.path().join("cache"));
    let folder = d.path().join("config/projects/-w");
    std::fs::create_dir_all(&folder).unwrap();
    let day = 86_400_000i64;
    let base = 1_700_000_000_000i64;
    let mut paths = Vec::new();
    for i in 0..12u64 {
        let id = format!("dddddddd-00{i:02}-4444-8444-444444444444");
        let p = folder.join(format!("{id}.jsonl"));
        std::fs::write(
            &p,
            line(&format!("m{i}"), i + 1, "2026-11-01T10:00:01.000Z"),
        )
        .unwrap();
        let at = std::time::UNIX_EPOCH + Duration::from_millis((base + i as i64 * day) as u64);
        std::fs::File::options()
            .write(true)
            .open(&p)
            .unwrap()
            .set_modified(at)
            .unwrap();
        paths.push(p);
    }
    let store = crate::store::Store::new(d.path().join("config"));
    let recent = store.recent_usage(None).unwrap();
    let ids = |l: &crate::store::UsageListing| -> Vec<String> {
        l.sessions.iter().map(|s| s.session_id.clone()).collect()
    };
    for k in [-1i64, 0, 3, 7, 11, 12] {
        let since = base + k * day;
        let a = recent.since(since);
        let b = store.usage_since(None, since).unwrap();
        assert_eq!(a.sessions, b.sessions, "since day {k}");
        let n = (12 - k.clamp(0, 12)) as usize;
        assert_eq!(ids(&a).len(), n, "since day {k}: {:?}", ids(&a));
    }
    // an append to a recent transcript after the look: read
    append(&paths[11], &line("late", 500, "2026-11-01T10:00:02.000Z"));
    let a = recent.since(base + 11 * day);
    let b = store.usage_since(None, base + 11 * day).unwrap();
    assert_eq!(a.sessions, b.sessions);
    assert_eq!(a.sessions[0].total().tokens().input, 12 + 500);
    std::env::remove_var(CACHE_ENV);
}

/// A usage record (an index's, or the summary at the end of an archived
/// file) names each model once and each message by the model's number: a
/// few bytes could name a long model for millions of messages, and each
/// message holds a copy of its name. Such a record is not what a
/// transcript writes (its lines hold each name in full); decoding it must
/// not make copies past a bound of its size (the file is read whole
/// instead), never gigabytes from a 64 MiB summary.
#[cfg(feature = "archive")]
#[test]
fn a_usage_record_naming_a_long_model_for_many_messages_is_not_decoded_into_copies() {
    let msg = |i: usize, model: &str| MessageUsage {
        key: format!("m{i}\u{0}r"),
        model: model.to_owned(),
        tokens: Tokens::default(),
        at: None,
        fast: false,
        us_only: false,
        web_searches: 0,
    };
    let long = "x".repeat(32 << 10);
    let bomb = FileUsage {
        messages: (0..1000).map(|i| msg(i, &long)).collect(),
        ..FileUsage::default()
    };
    let bytes = usage_bytes(&bomb);
    // 32 MiB of copies from under 64 KiB
    assert!(bytes.len() < 64 << 10, "{}", bytes.len());
    assert_eq!(usage_from_bytes(&bytes), None);
    // what a transcript records still reads back whole
    let real = FileUsage {
        messages: (0..1000)
            .map(|i| msg(i, "claude-sonnet-4-5-20250929"))
            .collect(),
        prompts: 3,
        ..FileUsage::default()
    };
    assert_eq!(usage_from_bytes(&usage_bytes(&real)), Some(real));
}

/// The samples' checksum changes when any one byte of a sample changes,
/// wherever it is (each of the four lanes and the tail after them), and
/// with the sample's length.
#[test]
fn any_one_byte_changed_changes_the_sample_s_checksum() {
    use super::record::edge_sum;
    let base: Vec<u8> = (0..super::EDGE + 13).map(|i| (i * 7 % 251) as u8).collect();
    let sum = edge_sum(&base);
    for i in 0..base.len() {
        for flip in [1u8, 0x80] {
            let mut b = base.clone();
            b[i] ^= flip;
            assert_ne!(edge_sum(&b), sum, "byte {i} ^ {flip}");
        }
    }
    let mut seen = std::collections::HashSet::new();
    for n in 0..=base.len() {
        assert!(seen.insert(edge_sum(&base[..n])), "length {n}");
    }
}

/// An index whose every transcript was looked up forgets none, and the
/// set of what the listing found (every path: a status line's largest
/// piece of work after its lookups) is not made.
#[test]
fn no_scope_is_made_when_every_transcript_was_looked_up() {
    let _env = env_lock();
    let d = tempfile::tempdir().unwrap();
    let idx = d.path().join("cache/usage-index");
    let t = d.path().join("t.jsonl");
    std::fs::write(&t, line("m1", 10, "2026-11-01T10:00:01.000Z")).unwrap();
    through(&idx, &t, false);
    let ix = Index::at(idx.clone());
    ix.read(&t, false).unwrap();
    let asked = std::cell::Cell::new(false);
    let scope = || {
        asked.set(true);
        Scope {
            folders: HashSet::new(),
            found: HashSet::new(),
        }
    };
    ix.finish(Some(&scope), false);
    assert!(!asked.get(), "the scope was made");
    assert_eq!(load(&idx).len(), 1, "nothing forgotten");
    // one not looked up: the scope is made, and what it does not hold
    // (its folder among the scope's, itself not found) is forgotten
    let u = d.path().join("u.jsonl");
    std::fs::write(&u, line("m2", 10, "2026-11-01T10:00:01.000Z")).unwrap();
    through(&idx, &u, false);
    let ix = Index::at(idx.clone());
    ix.read(&t, false).unwrap();
    let folder = |p: &Path| p.parent().unwrap().as_os_str().as_bytes().into();
    let scope = || {
        asked.set(true);
        Scope {
            folders: [folder(&t)].into_iter().collect(),
            found: [t.as_os_str().as_bytes().into()].into_iter().collect(),
        }
    };
    ix.finish(Some(&scope), false);
    assert!(asked.get());
    assert_eq!(load(&idx).len(), 1, "the other forgotten");
}

/// The records looked up, each once or twice and in an order not their
/// names', are the ones kept; of those not looked up only the ones the
/// scope says are gone are forgotten. A name looked up that differs from
/// a record's by case keeps that record no more than any other name.
#[test]
fn records_looked_up_twice_and_in_any_order_are_kept() {
    let _env = env_lock();
    let d = tempfile::tempdir().unwrap();
    let idx = d.path().join("cache/usage-index");
    let write = |name: &str| {
        let p = d.path().join(name);
        std::fs::write(&p, line(name, 10, "2026-11-01T10:00:01.000Z")).unwrap();
        p
    };
    let files: Vec<PathBuf> = (0..24).map(|i| write(&format!("t{i:02}.jsonl"))).collect();
    let ix = Index::at(idx.clone());
    for f in &files {
        ix.read(f, false).unwrap();
    }
    ix.finish(None, false);
    assert_eq!(load(&idx).len(), 24);
    // looked up: all but every third, from the last, the even ones twice;
    // of the others, the even ones are removed; and `T00.jsonl` is read
    let looked: Vec<usize> = (0..24).rev().filter(|i| i % 3 != 1).collect();
    let gone: Vec<usize> = (0..24).filter(|i| i % 3 == 1 && i % 2 == 0).collect();
    for &i in &gone {
        std::fs::remove_file(&files[i]).unwrap();
    }
    let upper = write("T00.jsonl");
    let ix = Index::at(idx.clone());
    for &i in looked.iter().chain(looked.iter().filter(|i| *i % 2 == 0)) {
        ix.read(&files[i], false).unwrap();
    }
    ix.read(&upper, false).unwrap();
    std::fs::remove_file(&files[0]).unwrap();
    let bytes = |p: &Path| -> Box<[u8]> { p.as_os_str().as_bytes().into() };
    let scope = || Scope {
        folders: [bytes(d.path())].into_iter().collect(),
        found: files
            .iter()
            .chain([&upper])
            .filter(|p| p.exists())
            .map(|p| bytes(p))
            .collect(),
    };
    ix.finish(Some(&scope), false);
    let mut kept: Vec<Box<[u8]>> = load(&idx).keys().cloned().collect();
    kept.sort();
    let mut want: Vec<Box<[u8]>> = (0..24)
        .filter(|i| !gone.contains(i))
        .map(|i| bytes(&files[i]))
        .chain([bytes(&upper)])
        .collect();
    want.sort();
    assert_eq!(kept, want);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

    /// The middle sample taken from the blocks as they are read is the
    /// one read from the file before (where it starts, its checksum):
    /// files of lines of every length around three samples' size, read
    /// in blocks that end at any line's end, the sample within one block
    /// or across several; none for a file too small to hold one, and
    /// none when a line was passed over.
    #[test]
    fn the_middle_sample_taken_from_the_blocks_is_the_one_read_from_the_file(
        lens in proptest::collection::vec(0usize..3000, 1..40),
        cuts in proptest::collection::vec(proptest::bool::weighted(0.4), 40),
        skip in proptest::option::of(0usize..40),
    ) {
        let mut data = Vec::new();
        let mut ends = Vec::new();
        for (i, &n) in lens.iter().enumerate() {
            data.extend((0..n).map(|j| b'a' + ((i * 7 + j) % 26) as u8));
            data.push(b'\n');
            ends.push(data.len());
        }
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("t.jsonl");
        std::fs::write(&path, &data).unwrap();
        let file = File::open(&path).unwrap();
        let size = data.len() as u64;
        let want = mid_sample(&file, size);
        proptest::prop_assert_eq!(want.map(|(at, _)| at), mid_start(size));
        // blocks of whole lines, as the reader hands them out (a line
        // passed over when `skip` names it)
        let mut cap = Capture::seeded(0, Vec::new(), Vec::new());
        cap.mid_at = mid_start(size);
        let mut at = 0;
        for (i, &e) in ends.iter().enumerate() {
            if e == data.len() || cuts[i] {
                if skip == Some(i) {
                    at = e; // a line passed over: not handed out
                    continue;
                }
                cap.block(0, Block { bytes: &data[at..e], offset: at as u64 });
                at = e;
            }
        }
        let got = cap.mid_sample();
        // what the record keeps: a sample within what was read whole
        let kept = |s: Option<(u64, u64)>| {
            s.filter(|&(m, _)| {
                cap.contiguous && cap.boundary == cap.next && m + EDGE as u64 <= cap.boundary
            })
        };
        proptest::prop_assert_eq!(kept(got), kept(want));
        if skip.is_none() {
            proptest::prop_assert_eq!(got, want);
        }
    }
}

/// A message of a generated record: its key, its model (one of a few, so
/// that messages share them), tokens, time and flags.
fn any_message() -> impl proptest::strategy::Strategy<Value = MessageUsage> {
    use proptest::prelude::*;
    let model = prop_oneof![
        Just(String::new()),
        Just("claude-opus-4-5".to_owned()),
        Just("claude-haiku-4-5-20251001".to_owned()),
        "\\PC{0,12}",
    ];
    (
        "\\PC{0,24}",
        model,
        proptest::array::uniform5(any::<u64>()),
        proptest::option::of(any::<i64>()),
        0u8..4,
        any::<u64>(),
    )
        .prop_map(|(key, model, t, at, flags, web_searches)| MessageUsage {
            key,
            model,
            tokens: Tokens {
                input: t[0],
                output: t[1],
                cache_write: t[2],
                cache_read: t[3],
                cache_write_1h: t[4],
            },
            at,
            fast: flags & 1 != 0,
            us_only: flags & 2 != 0,
            web_searches,
        })
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

    /// Any usage a record holds is decoded as it was: each message's model
    /// its own copy of the name the record holds once (the names read
    /// borrowed from the record's bytes), whatever the names, how many
    /// messages share one, and in what order; a record whose table of
    /// models holds a name that is not UTF-8 is no record.
    #[test]
    fn any_usage_round_trips_through_a_record(
        messages in proptest::collection::vec(any_message(), 0..12),
        prompts in 0u64..1000,
        cwd in proptest::option::of("\\PC{0,16}"),
        first in proptest::option::of(proptest::prelude::any::<i64>()),
        last in proptest::option::of(proptest::prelude::any::<i64>()),
    ) {
        let u = FileUsage {
            messages,
            prompts,
            cwd,
            first,
            last,
            cli_cost: None,
        };
        let h = Head {
            key: Key { dev: 1, ino: 2, size: 3, mtime: 4, mtime_ns: 5, ctime: 6, ctime_ns: 7 },
            read_at: 8,
            boundary: 9,
            head_sum: 10,
            tail_sum: 11,
            mid_at: NOT_RESUMABLE,
            mid_sum: 0,
            prompts: true,
        };
        let b = encode(&h, &u);
        proptest::prop_assert_eq!(decode_usage(&b), Some(u.clone()));
        // the first name of the table (after the head, the CLI's figures'
        // tag, the prompts, the folder, the first and last times and the
        // table's count) made not UTF-8: no record
        // (a name of four bytes or more: its length and bytes found in the
        // record are its, not a number's by chance)
        if let Some(m) = u.messages.iter().find(|m| m.model.len() >= 4) {
            let name = m.model.as_bytes();
            let at = b
                .windows(name.len() + 1)
                .position(|w| w[0] as usize == name.len() && &w[1..] == name)
                .filter(|_| name.len() < 0x80);
            if let Some(at) = at.filter(|&a| a > HEAD_LEN) {
                let mut bad = b.to_vec();
                bad[at + 1] = 0xff;
                let d = decode_usage(&bad);
                // 0xff is never UTF-8: the damaged name, wherever it was
                // found, is refused (a key's or the table's)
                proptest::prop_assert!(d.is_none(), "{:?}", d);
            }
        }
    }
}
