//! The kept answer against a full one: [`recent_kept`] after every step of
//! generated histories (transcripts made, appended to by running sessions,
//! removed; sessions registered and ended; folders made; the clock moving
//! on, standing still or going back) equals [`Store::recent_usage`]'s.

use super::*;
use proptest::prelude::*;
use std::io::Write;
use std::time::{Duration, UNIX_EPOCH};

/// A virtual clock (ms) far from the real one: every time a test sets.
const T0: i64 = 1_900_000_000_000;

fn id(n: usize) -> String {
    format!("00000000-0000-4000-8000-{n:012x}")
}

/// What a listing of transcripts since `t` gives: each transcript with its
/// time and cost, in order, and what was skipped.
type View = (Vec<(PathBuf, Option<i64>, u64)>, Vec<PathBuf>);

fn view(r: &RecentUsage, t: i64) -> View {
    let (cands, timed, skipped) = r.parts();
    let files = cands
        .iter()
        .zip(timed)
        .filter(|(_, (at, _))| at.is_none_or(|at| at >= t))
        .map(|(c, (at, cost))| (c.path.clone(), *at, *cost))
        .collect();
    (files, skipped.iter().map(|s| s.path.clone()).collect())
}

struct World {
    _tmp: tempfile::TempDir,
    store: Store,
    kept: PathBuf,
    now: i64,
    folders: Vec<PathBuf>,
    /// Transcripts there now.
    files: Vec<PathBuf>,
    /// Registered pids and their session ids.
    running: Vec<(u32, String)>,
    next_pid: u32,
    /// Makes each response's ids new.
    tick: u64,
}

impl World {
    fn new() -> World {
        let tmp = tempfile::tempdir().unwrap();
        let config = tmp.path().join("config");
        std::fs::create_dir_all(config.join("projects")).unwrap();
        std::fs::create_dir_all(config.join("sessions")).unwrap();
        let mut w = World {
            store: Store::new(&config),
            kept: tmp.path().join("cache").join(FILE),
            _tmp: tmp,
            now: T0,
            folders: Vec::new(),
            files: Vec::new(),
            running: Vec::new(),
            next_pid: 100,
            tick: 0,
        };
        let (root, reg) = (
            w.store.projects_dir(),
            w.store.config_dir().join("sessions"),
        );
        w.date(&root);
        w.date(&reg);
        w
    }

    /// Set `path`'s time to the clock's, as the kernel does when it
    /// changes: a coarse clock (of milliseconds here), so that two changes
    /// in one tick leave the same time.
    fn date(&mut self, path: &Path) {
        let t = UNIX_EPOCH + Duration::from_millis(self.now as u64);
        let f = std::fs::File::open(path).unwrap();
        f.set_modified(t).unwrap();
    }

    fn new_folder(&mut self, n: usize) {
        let p = self.store.projects_dir().join(format!("-p{n}"));
        if std::fs::create_dir(&p).is_ok() {
            self.date(&p);
            let root = self.store.projects_dir();
            self.date(&root);
            self.folders.push(p);
        }
    }

    fn new_file(&mut self, folder: usize, n: usize) {
        let Some(dir) = self
            .folders
            .get(folder % self.folders.len().max(1))
            .cloned()
        else {
            return;
        };
        let p = dir.join(format!("{}.jsonl", id(n)));
        if p.exists() {
            return;
        }
        std::fs::write(&p, "{\"type\":\"user\"}\n").unwrap();
        self.date(&p);
        self.date(&dir);
        self.files.push(p);
    }

    /// An old transcript: written before the horizon.
    fn old_file(&mut self, folder: usize, n: usize) {
        let now = self.now;
        self.now -= KEPT_HORIZON_MS + 3_600_000;
        let before = self.files.len();
        self.new_file(folder, n);
        self.now = now;
        if self.files.len() > before {
            // the folder's time is now's: the file was moved in
            let dir = self.files[before].parent().unwrap().to_path_buf();
            self.date(&dir);
        }
    }

    fn remove(&mut self, n: usize) {
        if self.files.is_empty() {
            return;
        }
        let p = self.files.remove(n % self.files.len());
        std::fs::remove_file(&p).unwrap();
        self.date(p.parent().unwrap());
    }

    /// A running session writes: only the registered ones (and `current`) do.
    fn append(&mut self, n: usize, current: Option<&Path>) {
        let writers: Vec<PathBuf> = self
            .files
            .iter()
            .filter(|p| {
                Some(p.as_path()) == current
                    || self
                        .running
                        .iter()
                        .any(|(_, s)| p.ends_with(format!("{s}.jsonl")))
            })
            .cloned()
            .collect();
        if writers.is_empty() {
            return;
        }
        let p = &writers[n % writers.len()];
        self.tick += 1;
        let line = serde_json::json!({"type": "assistant", "requestId": format!("r{}", self.tick),
            "timestamp": crate::store::format_iso_millis(self.now),
            "message": {"id": format!("m{}", self.tick), "model": "claude-sonnet-4-5",
                "usage": {"input_tokens": 1 + n % 1000, "output_tokens": 1}}});
        let mut f = std::fs::OpenOptions::new().append(true).open(p).unwrap();
        f.write_all((line.to_string() + "\n").as_bytes()).unwrap();
        drop(f);
        self.date(p);
    }

    fn register(&mut self, n: usize) {
        let pid = self.next_pid;
        self.next_pid += 1;
        let reg = self.store.config_dir().join("sessions");
        let entry = serde_json::json!({"pid": pid, "sessionId": id(n), "kind": "interactive"});
        std::fs::write(reg.join(format!("{pid}.json")), entry.to_string()).unwrap();
        self.date(&reg);
        self.running.push((pid, id(n)));
    }

    /// A running CLI moves to another session (`/resume`): its file is
    /// written in place, the folder's time stays.
    fn switch(&mut self, k: usize, n: usize) {
        if self.running.is_empty() {
            return;
        }
        let i = k % self.running.len();
        let pid = self.running[i].0;
        let reg = self.store.config_dir().join("sessions");
        let entry = serde_json::json!({"pid": pid, "sessionId": id(n), "status": "busy"});
        std::fs::write(reg.join(format!("{pid}.json")), entry.to_string()).unwrap();
        self.running[i].1 = id(n);
    }

    fn end(&mut self, k: usize) {
        if self.running.is_empty() {
            return;
        }
        let (pid, _) = self.running.remove(k % self.running.len());
        let reg = self.store.config_dir().join("sessions");
        std::fs::remove_file(reg.join(format!("{pid}.json"))).unwrap();
        self.date(&reg);
    }

    /// The kept file damaged, by `n`: cut at a byte, a bit of a byte
    /// changed, or written as the JSON of the format before (which names
    /// no transcript: if it were read, a kept transcript would be missed).
    fn damage(&mut self, n: usize) {
        let Ok(mut bytes) = std::fs::read(&self.kept) else {
            return;
        };
        let at = n / 3 % bytes.len().max(1);
        match n % 3 {
            _ if bytes.is_empty() => {}
            0 => bytes.truncate(at),
            1 => bytes[at] ^= 1 << (n / 3 % 8),
            _ => bytes = old_json(&self.store.projects_dir(), self.now),
        }
        std::fs::write(&self.kept, bytes).unwrap();
    }

    /// The kept answer and a full one agree, for every time since the
    /// horizon; and a refresh that says it changed nothing kept has the
    /// bytes it was read from (the file is then not made again).
    fn check(&self, current: Option<&Path>) -> Result<(), TestCaseError> {
        if let Ok(old) = std::fs::read(&self.kept) {
            if let Some(mut k) = format::decode(&old) {
                let registry = self.store.config_dir().join("sessions");
                if k.refresh(&registry, self.now, current) == Some(false) {
                    prop_assert!(format::encode(&k) == old, "unchanged, other bytes");
                }
            }
        }
        let fast = recent_kept(&self.store, Some(&self.kept), self.now, current).unwrap();
        let full = self.store.recent_usage(None).unwrap();
        for back in [KEPT_HORIZON_MS, 86_400_000, 10 * 3_600_000, 60_000, 0] {
            let t = self.now - back;
            prop_assert_eq!(view(&fast, t), view(&full, t), "since now - {} ms", back);
        }
        // and what they read: the kept one through its own small index (the
        // process keeps one index loaded: not while the index's tests run)
        let _env = crate::store::usage_index::tests::env_lock();
        let t = self.now - 10 * 3_600_000;
        prop_assert_eq!(fast.since(t).sessions, full.since(t).sessions);
        Ok(())
    }
}

#[derive(Debug, Clone)]
enum Op {
    Folder(usize),
    File(usize, usize),
    OldFile(usize, usize),
    Remove(usize),
    Append(usize),
    Register(usize),
    Switch(usize, usize),
    End(usize),
    /// The clock moves on (ms), or back.
    Clock(i64),
    /// The kept file is cut, has a byte changed, or is replaced by one of
    /// another format (see [`World::damage`]).
    Damage(usize),
    Check,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        1 => (0..4usize).prop_map(Op::Folder),
        3 => (0..4usize, 0..12usize).prop_map(|(f, n)| Op::File(f, n)),
        1 => (0..4usize, 0..12usize).prop_map(|(f, n)| Op::OldFile(f, n)),
        1 => any::<usize>().prop_map(Op::Remove),
        4 => any::<usize>().prop_map(Op::Append),
        2 => (0..12usize).prop_map(Op::Register),
        1 => (any::<usize>(), 0..12usize).prop_map(|(k, n)| Op::Switch(k, n)),
        1 => any::<usize>().prop_map(Op::End),
        3 => prop_oneof![
            Just(0i64), Just(1), Just(RACY_MS), Just(RACY_MS + 1), Just(30_000),
            Just(FULL_CHECK_MS + 1), Just(5 * 3_600_000), Just(KEPT_HORIZON_MS),
            Just(-1), Just(-3_600_000),
        ].prop_map(Op::Clock),
        4 => Just(Op::Check),
        1 => any::<usize>().prop_map(Op::Damage),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn the_kept_answer_is_a_full_ones(ops in proptest::collection::vec(op(), 1..40),
                                      current in proptest::option::of(0..12usize)) {
        play(&ops, current)?;
    }
}

/// `ops` played on a new world whose first folder holds the `current`
/// session's transcript (if any): the kept answer checked against a full
/// one where they say, and at the end.
fn play(ops: &[Op], current: Option<usize>) -> Result<(), TestCaseError> {
    let mut w = World::new();
    w.new_folder(0);
    let current = current.map(|n| w.folders[0].join(format!("{}.jsonl", id(n))));
    for op in ops.iter().cloned() {
        match op {
            Op::Folder(n) => w.new_folder(n),
            Op::File(f, n) => w.new_file(f, n),
            Op::OldFile(f, n) => w.old_file(f, n),
            Op::Remove(n) => w.remove(n),
            Op::Append(n) => w.append(n, current.as_deref()),
            Op::Register(n) => w.register(n),
            Op::Switch(k, n) => w.switch(k, n),
            Op::End(k) => w.end(k),
            Op::Damage(n) => w.damage(n),
            Op::Clock(d) => {
                w.now += d;
                // a clock set back is seen by the next call (a change
                // made after it could bear a time kept before)
                if d < 0 {
                    w.check(current.as_deref())?;
                }
            }
            Op::Check => w.check(current.as_deref())?,
        }
    }
    w.check(current.as_deref())
}

/// One session id with a transcript in two folders: an old one, not kept,
/// and a new one, kept. The session, running (the one named, or one in
/// the registry), writes the old one: it is seen, though its id was kept
/// in the other folder (it was not: found by the proptest above).
#[test]
fn a_running_session_s_old_transcript_is_seen_beside_a_kept_one_of_its_id() {
    let ops = |run: &[Op]| {
        [
            &[
                Op::Folder(1),
                Op::OldFile(0, 10),
                Op::Clock(RACY_MS + 1),
                Op::File(1, 10),
                Op::Check,
            ][..],
            run,
            &[Op::Append(0), Op::Check],
        ]
        .concat()
    };
    // the session the call names
    play(&ops(&[]), Some(10)).unwrap();
    // a session of the registry (its time settled first: a change of the
    // registry is a full check)
    play(
        &ops(&[Op::Register(10), Op::Clock(RACY_MS + 1), Op::Check]),
        None,
    )
    .unwrap();
}

/// A registered session writes its old transcript, then its CLI moves to
/// another session (its registry entry rewritten in place, the folder's
/// time unchanged) before the next call: what it wrote is seen (it was
/// not, the session no longer named: found by the proptest above).
#[test]
fn what_a_session_wrote_before_its_cli_moved_to_another_is_seen() {
    play(
        &[
            Op::Register(2),
            Op::OldFile(0, 2),
            Op::Clock(RACY_MS + 1),
            Op::Check,
            Op::Append(0),
            Op::Switch(0, 0),
            Op::Check,
        ],
        None,
    )
    .unwrap();
}

/// A writer in no registry is seen by the full check: at most
/// [`FULL_CHECK_MS`] late.
#[test]
fn a_writer_outside_the_registry_is_seen_by_the_full_check() {
    let mut w = World::new();
    w.new_folder(0);
    w.new_file(0, 1);
    w.now += RACY_MS + 1;
    w.check(None).unwrap();
    // appended by nobody registered
    let p = w.files[0].clone();
    std::fs::write(&p, "{\"type\":\"user\"}\n and more\n").unwrap();
    w.now += 1;
    w.date(&p);
    let fast = recent_kept(&w.store, Some(&w.kept), w.now, None).unwrap();
    let full = w.store.recent_usage(None).unwrap();
    assert_ne!(view(&fast, 0), view(&full, 0), "kept: not looked at");
    w.now += FULL_CHECK_MS + 1;
    w.check(None).unwrap();
}

/// A kept answer is used: a warm call lists no folder whose time stayed.
#[test]
fn a_warm_call_lists_no_folder_again() {
    let mut w = World::new();
    w.new_folder(0);
    w.new_file(0, 1);
    w.now += RACY_MS + 1;
    w.check(None).unwrap();
    let kept = std::fs::read(&w.kept).unwrap();
    // a transcript slipped in with the folder's time put back: a kept
    // answer does not see it, a listing would
    let dir = w.folders[0].clone();
    let before = std::fs::metadata(&dir).unwrap().modified().unwrap();
    std::fs::write(dir.join(format!("{}.jsonl", id(2))), "{}\n").unwrap();
    std::fs::File::open(&dir)
        .unwrap()
        .set_modified(before)
        .unwrap();
    let fast = recent_kept(&w.store, Some(&w.kept), w.now, None).unwrap();
    assert_eq!(view(&fast, 0).0.len(), 1);
    assert_eq!(std::fs::read(&w.kept).unwrap(), kept, "nothing changed");
}

/// A FIFO among the registry's entries is never opened to wait on (the
/// status line would hang): it is a problem, and every transcript is
/// looked at; without it, the entries' sessions are read.
#[test]
fn a_fifo_in_the_registry_is_never_waited_on() {
    let d = tempfile::tempdir().unwrap();
    let pid = std::process::id();
    std::fs::write(
        d.path().join(format!("{pid}.json")),
        format!(r#"{{"pid":{pid},"sessionId":"s1"}}"#),
    )
    .unwrap();
    let fifo = d.path().join("2.json");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.unwrap().success());
    assert_eq!(super::registered(d.path()), None);
    std::fs::remove_file(&fifo).unwrap();
    assert_eq!(super::registered(d.path()), Some(vec!["s1".to_owned()]));
}

/// A warm call does not look again for a running session's transcript in
/// a folder whose time stayed: the listing (or the last look) found it was
/// not there, and no name was made there since. A transcript slipped in
/// with the folder's time put back is so not seen; it was, each call
/// looking for every running session in every folder (a `stat` of each:
/// most of the line's own time at 50 folders).
#[test]
fn a_warm_call_looks_for_no_running_session_in_a_folder_again() {
    let mut w = World::new();
    w.new_folder(0);
    w.new_folder(1);
    w.new_file(0, 5);
    w.register(5);
    w.now += RACY_MS + 1;
    w.check(None).unwrap();
    w.check(None).unwrap();
    let kept = std::fs::read(&w.kept).unwrap();
    let dir = w.folders[1].clone();
    let before = std::fs::metadata(&dir).unwrap().modified().unwrap();
    std::fs::write(dir.join(format!("{}.jsonl", id(5))), "{}\n").unwrap();
    std::fs::File::open(&dir)
        .unwrap()
        .set_modified(before)
        .unwrap();
    let fast = recent_kept(&w.store, Some(&w.kept), w.now, None).unwrap();
    assert_eq!(view(&fast, 0).0.len(), 1);
    assert_eq!(std::fs::read(&w.kept).unwrap(), kept, "nothing changed");
}

/// A session first named by a warm call (the transcript a status line is
/// given) is looked for in every folder: its old transcript, not kept by
/// the listing, is found, kept, and what it writes next is seen.
#[test]
fn a_session_named_after_the_listing_is_looked_for() {
    let mut w = World::new();
    w.new_folder(0);
    w.old_file(0, 7);
    w.now += RACY_MS + 1;
    w.check(None).unwrap();
    let current = w.folders[0].join(format!("{}.jsonl", id(7)));
    w.check(Some(&current)).unwrap();
    w.append(0, Some(&current));
    w.check(Some(&current)).unwrap();
}

/// A kept file of format 1 (JSON) that says nothing changed since `now`
/// and that no folder holds a transcript.
fn old_json(projects: &Path, now: i64) -> Vec<u8> {
    serde_json::json!({"version": 1, "projects": projects, "full_at": now,
        "root": [0, 0], "registry": [0, 0], "named": [], "folders": [], "passed": []})
    .to_string()
    .into_bytes()
}

fn stamp_strategy() -> impl Strategy<Value = Option<Stamp>> {
    proptest::option::of(prop_oneof![
        Just(MISSING),
        (any::<i64>(), 0..1_000_000_000i64)
    ])
}

fn path_strategy() -> impl Strategy<Value = PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    proptest::collection::vec(any::<u8>(), 0..12)
        .prop_map(|b| PathBuf::from(std::ffi::OsStr::from_bytes(&b)))
}

fn text_strategy() -> impl Strategy<Value = String> {
    "\\PC{0,8}"
}

fn kept_strategy() -> impl Strategy<Value = Kept<'static>> {
    let file = (
        text_strategy(),
        any::<bool>(),
        proptest::option::of(any::<i64>()),
        any::<u64>(),
    )
        .prop_map(|(id, side, at, cost)| KeptFile {
            id: id.into(),
            side,
            at,
            cost,
        });
    let folder = (
        path_strategy(),
        stamp_strategy(),
        proptest::option::of(text_strategy()),
        proptest::collection::vec(file, 0..4),
        proptest::collection::vec(text_strategy(), 0..3),
    )
        .prop_map(|(path, stamp, unreadable, files, looked_for)| KeptFolder {
            path: path.into(),
            stamp,
            unreadable,
            files,
            looked_for: looked_for.into_iter().map(Cow::Owned).collect(),
        });
    (
        path_strategy(),
        any::<i64>(),
        stamp_strategy(),
        stamp_strategy(),
        proptest::option::of(proptest::collection::vec(text_strategy(), 0..3)),
        proptest::collection::vec(folder, 0..4),
        proptest::collection::vec((path_strategy(), text_strategy()), 0..3),
    )
        .prop_map(
            |(projects, full_at, root, registry, named, folders, passed)| Kept {
                projects: projects.into(),
                full_at,
                root,
                registry,
                named: named.map(|n| n.into_iter().map(Cow::Owned).collect()),
                folders,
                passed,
            },
        )
}

/// `k` with texts and paths of its own (not the bytes it was read from).
fn owned(k: &Kept<'_>) -> Kept<'static> {
    let texts = |t: &[Cow<'_, str>]| t.iter().map(|s| Cow::Owned(s.to_string())).collect();
    Kept {
        projects: Cow::Owned(k.projects.to_path_buf()),
        full_at: k.full_at,
        root: k.root,
        registry: k.registry,
        named: k.named.as_deref().map(texts),
        folders: k
            .folders
            .iter()
            .map(|f| KeptFolder {
                path: Cow::Owned(f.path.to_path_buf()),
                stamp: f.stamp,
                unreadable: f.unreadable.clone(),
                files: f
                    .files
                    .iter()
                    .map(|x| KeptFile {
                        id: Cow::Owned(x.id.to_string()),
                        side: x.side,
                        at: x.at,
                        cost: x.cost,
                    })
                    .collect(),
                looked_for: f
                    .looked_for
                    .iter()
                    .map(|s| Cow::Owned(s.to_owned()))
                    .collect(),
            })
            .collect(),
        passed: k.passed.clone(),
    }
}

/// `body` with its checksum after it: a whole file, whatever it says.
fn summed(mut body: Vec<u8>) -> Vec<u8> {
    let sum = crate::store::usage_index::record::checksum(&body);
    body.extend_from_slice(&sum.to_le_bytes());
    body
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// A kept answer's bytes are read back as it was, and no shorter run of
    /// them, nor one with a bit changed, is read at all.
    #[test]
    fn kept_bytes_are_read_back_whole_or_not_at_all(k in kept_strategy(), at in any::<usize>(),
                                                    bit in 0..8u32) {
        let bytes = format::encode(&k);
        prop_assert_eq!(format::decode(&bytes), Some(k));
        let n = at % bytes.len();
        prop_assert_eq!(format::decode(&bytes[..n]), None);
        let mut changed = bytes.clone();
        changed[n] ^= 1 << bit;
        prop_assert_eq!(format::decode(&changed), None);
    }
}

/// Whole files (their checksum right) that are of another format, build
/// or store, or hold a byte out of range or bytes too many, are not read.
#[test]
fn a_kept_file_of_another_format_or_build_is_not_read() {
    let mut w = World::new();
    w.new_folder(0);
    w.new_file(0, 1);
    w.now += RACY_MS + 1;
    w.check(None).unwrap();
    let bytes = std::fs::read(&w.kept).unwrap();
    let kept = format::decode(&bytes).expect("a kept file of this build");
    assert_eq!(kept.folders[0].files.len(), 1);
    let body = &bytes[..bytes.len() - 8];
    assert_eq!(summed(body.to_vec()), bytes);
    // the header: magic (16), format (4), the build's length (8) and text
    let build = env!("CARGO_PKG_VERSION");
    assert_eq!(&body[28..28 + build.len()], build.as_bytes());
    let edit = |f: &dyn Fn(&mut Vec<u8>)| {
        let mut b = body.to_vec();
        f(&mut b);
        format::decode(&summed(b)).map(|k| owned(&k))
    };
    assert_eq!(edit(&|_| {}), Some(kept.clone()));
    // another magic, another format
    assert_eq!(edit(&|b| b[0] = b'C'), None);
    assert_eq!(edit(&|b| b[16] += 1), None);
    // another build (a version of another length)
    let other = edit(&|b| {
        let rest = b.split_off(20 + 8 + build.len());
        b.truncate(20);
        let v = b"0.0.0-another";
        b.extend_from_slice(&(v.len() as u64).to_le_bytes());
        b.extend_from_slice(v);
        b.extend_from_slice(&rest);
    });
    assert_eq!(other, None);
    // a byte too many; an option's tag out of range (the projects folder's
    // time, after the projects folder and the time of the full check)
    assert_eq!(edit(&|b| b.push(0)), None);
    let tag = 28 + build.len() + 8 + kept.projects.as_os_str().len() + 8;
    assert_eq!(body[tag], 1, "the root's time is kept");
    assert_eq!(edit(&|b| b[tag] = 2), None);
    // the JSON of format 1 is not read, and its answer is not taken:
    // the file is made anew
    std::fs::write(&w.kept, old_json(&w.store.projects_dir(), w.now)).unwrap();
    w.check(None).unwrap();
    assert!(format::decode(&std::fs::read(&w.kept).unwrap()).is_some());
    // a kept file of another store is not read either
    let mut elsewhere = kept;
    elsewhere.projects = PathBuf::from("/elsewhere/projects").into();
    std::fs::write(&w.kept, format::encode(&elsewhere)).unwrap();
    w.check(None).unwrap();
    let again = std::fs::read(&w.kept).unwrap();
    let again = format::decode(&again).unwrap();
    assert_eq!(again.projects, w.store.projects_dir());
}

/// The allocator of this crate's tests, which notes on each thread the
/// largest block asked for since [`largest_block`] last asked.
struct Noting;

thread_local! {
    static LARGEST: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

// SAFETY: every call is the system allocator's; the note is a const
// thread-local cell, which allocates nothing
unsafe impl std::alloc::GlobalAlloc for Noting {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        let _ = LARGEST.try_with(|l| l.set(l.get().max(layout.size())));
        unsafe { std::alloc::System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new: usize) -> *mut u8 {
        let _ = LARGEST.try_with(|l| l.set(l.get().max(new)));
        unsafe { std::alloc::System.realloc(ptr, layout, new) }
    }
}

#[global_allocator]
static NOTING: Noting = Noting;

/// The largest block this thread asked for since the last call.
fn largest_block() -> usize {
    LARGEST.with(|l| l.replace(0))
}

/// A whole file (its checksum right) whose count of folders, of a
/// folder's transcripts, of the ids named or of the links passed over is
/// far more than its bytes can hold is not read, and what is made to read
/// it is at most a few times its size (it was up to 120 times: 64 MiB
/// read could ask for 7.5 GiB, which a small machine refuses, killing
/// every status line while the file stayed).
#[test]
fn a_kept_file_s_counts_make_no_more_than_its_size() {
    let none = Kept {
        projects: PathBuf::new().into(),
        full_at: 0,
        root: None,
        registry: None,
        named: None,
        folders: Vec::new(),
        passed: Vec::new(),
    };
    let bytes = format::encode(&none);
    // the header and the fields before the folders' count (which is
    // followed by the links' count and the checksum)
    let head = &bytes[..bytes.len() - 24];
    let le = |n: u64| n.to_le_bytes().to_vec();
    let huge = le(u64::MAX >> 8);
    let filler = vec![0u8; 1 << 20];
    let named = [&head[..head.len() - 1], &[1], &huge].concat();
    let folders = [head, &huge].concat();
    // one folder: no path, no time, readable, then its transcripts' count
    let files = [head, &le(1), &le(0), &[0, 0], &huge].concat();
    let passed = [head, &le(0), &huge].concat();
    for (what, start) in [
        ("named", named),
        ("folders", folders),
        ("files", files),
        ("passed", passed),
    ] {
        let file = summed([start, filler.clone()].concat());
        largest_block();
        assert_eq!(format::decode(&file), None, "{what}");
        let largest = largest_block();
        assert!(
            largest <= 8 * file.len(),
            "{what}: a block of {largest} bytes for a file of {}",
            file.len()
        );
    }
}

/// Paths of a few components, of the bytes that make a path's parts
/// differ: `/`, `.`, a letter.
fn path_bytes() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(
        prop_oneof![Just(b'/'), Just(b'.'), Just(b'a'), Just(b'b')],
        0..12,
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2048, ..ProptestConfig::default() })]

    /// The folder's name taken from the bytes is the one `Path` gives: a
    /// name [`name_in`] finds is `path`'s file name and its parent is
    /// `dir`; and where `dir` has no `/` at its end and no `.` or empty
    /// part, it finds every name `Path` does (else the caller walks the
    /// whole path, which gives the same time).
    #[test]
    fn a_folder_s_name_from_its_bytes_is_path_s(dir in path_bytes(), path in path_bytes(),
                                                 join in any::<bool>()) {
        let path = if join {
            [dir.as_slice(), b"/", path.as_slice()].concat()
        } else {
            path
        };
        let (d, p) = (Path::new(OsStr::from_bytes(&dir)), Path::new(OsStr::from_bytes(&path)));
        let by_path = p.file_name().filter(|_| p.parent() == Some(d));
        let by_bytes = name_in(&dir, &path);
        if let Some(name) = by_bytes {
            prop_assert_eq!(Some(name), by_path);
        }
        let plain = !dir.ends_with(b"/")
            && OsStr::from_bytes(&dir).to_str().is_some_and(|s| {
                s.split('/').skip(1).all(|c| !c.is_empty() && c != "." && c != "..")
            });
        let plain_name = by_path.is_some_and(|n| {
            path.ends_with(n.as_bytes()) && path.len() == dir.len() + 1 + n.len()
        });
        if plain && plain_name {
            prop_assert_eq!(by_bytes, by_path);
        }
    }

    /// A kept transcript's path is the folder joined with `<id>.jsonl`.
    #[test]
    fn a_kept_transcript_s_path_is_its_folder_s_and_name(dir in path_bytes(),
                                                          id in "[a-f0-9./-]{0,12}") {
        let folder = Path::new(OsStr::from_bytes(&dir));
        let k = KeptFile { id: id.clone().into(), side: false, at: None, cost: 0 };
        prop_assert_eq!(candidate(folder, &k).path, folder.join(format!("{id}.jsonl")));
    }
}

/// `ids` as the kept file writes them: the bytes an [`Ids::Kept`] reads.
fn ids_bytes(ids: &[String]) -> Vec<u8> {
    let mut b = Vec::new();
    for id in ids {
        b.extend_from_slice(&(id.len() as u64).to_le_bytes());
        b.extend_from_slice(id.as_bytes());
    }
    b
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// A folder's ids read from the kept file's bytes when asked are the
    /// list they were written from, and what `retain` and `push` make of
    /// them is what they make of that list (a differential test: the
    /// bytes against a list of their own); a `retain` that keeps every id
    /// leaves the bytes as they are (no list made).
    #[test]
    fn kept_ids_are_the_list_they_were_written_from(
        ids in proptest::collection::vec(text_strategy(), 0..5),
        keep in proptest::collection::vec(any::<bool>(), 5),
        pushed in proptest::option::of(text_strategy()),
    ) {
        let bytes = ids_bytes(&ids);
        let mut kept = Ids::Kept { bytes: &bytes, n: ids.len() };
        let mut own: Vec<Cow<'_, str>> = ids.iter().map(|s| Cow::Borrowed(s.as_str())).collect();
        prop_assert_eq!(kept.len(), own.len());
        prop_assert!(kept.iter().eq(own.iter().map(|s| &**s)));
        prop_assert!(kept.bytes().eq(own.iter().map(|s| s.as_bytes())));
        // an id kept by the flag of its first place in the list
        let pred = |id: &[u8]| {
            ids.iter()
                .position(|x| x.as_bytes() == id)
                .is_some_and(|i| keep[i])
        };
        let all = ids.iter().all(|id| pred(id.as_bytes()));
        kept.retain(pred);
        own.retain(|s| pred(s.as_bytes()));
        prop_assert_eq!(matches!(kept, Ids::Kept { .. }), all);
        prop_assert_eq!(kept.len(), own.len());
        prop_assert!(kept.iter().eq(own.iter().map(|s| &**s)));
        prop_assert!(kept.bytes().eq(own.iter().map(|s| s.as_bytes())));
        if let Some(p) = pushed {
            kept.push(Cow::Owned(p.clone()));
            own.push(Cow::Owned(p));
        }
        prop_assert_eq!(kept.len(), own.len());
        prop_assert_eq!(kept, Ids::Own(own));
    }
}
