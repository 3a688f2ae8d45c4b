//! The listing index: what the two ends of each transcript said
//! ([`EndsFacts`]), kept between listings so that a transcript that did
//! not change is not read again (a listing then costs one `lstat` a
//! transcript, fewer bytes than any reading of them).
//!
//! One file for every store, `list-index` beside the usage index in
//! claudio's cache folder (`$CLAUDIO_CACHE_DIR`, else
//! `$XDG_CACHE_HOME/claudio`, else `~/.cache/claudio`; a relative
//! `$CLAUDIO_CACHE_DIR` turns both off). It is a cache: deleting it costs
//! one reading of every transcript's ends, and one that cannot be used
//! (a link, not a regular file, someone else's or writable by others, too
//! big, damaged, of another version) is done without and rebuilt.
//!
//! A record is keyed by the transcript's path and checked against its
//! `lstat`: device, inode, size, modification and change times. It is
//! used only when all of them are the same; it was made only if the file
//! had not changed for [`RACY_NS`] when it was read, and its `lstat` was
//! the same before and after the reading (so a change made during the
//! reading, or two changes within one tick of the file system's clock,
//! are not kept). What lies beside a transcript (a title, the archive
//! mark) and what the listing's directory decides are looked at anew
//! each time; an archive mark that says archived, whose answer depends on
//! the prompts in the ends, is held against the latest prompt's time,
//! kept with the rest once a mark asked for it (a record made before the
//! mark has the ends read again, once).
//!
//! The file is written to a temporary file beside it (mode 0600, in a
//! folder made 0700) and renamed over the old one, so a reader sees the
//! old index or the new one; it is written only when a record was made
//! or dropped.

use super::either::with_ends;
use super::info::{
    archive_state_kept, scan_ends_facts_from, scan_facts, scan_file, EndsFacts, Project, Scanned,
    Seen,
};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fs::Metadata;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

/// The index file's name in the cache folder.
const FILE_NAME: &str = "list-index";

/// The format's version: an index of another is rebuilt (2 since a first
/// prompt of the word `tool_result`, or a line led by NUL bytes, is read;
/// 3 since an image or a document is told by a full parse; 4 since a
/// prompt sent after a `!` command in the same entry is the title; 5 since
/// the claude TUI's entry of a `!` command's output is read to its last
/// closing tag, so no part of the output is taken for a prompt; 6 since
/// such an entry ends with its last part, so a prompt typed after tags of
/// its own is a prompt; 7 since the title's first prompt is the full
/// read's, so a prompt holding `<bash-input>` or `<command-name>` is
/// itself, not `! x` or passed over; 8 since that prompt is looked for
/// past the head when the head holds none; 9 since that prompt is read
/// from the file's start when the head holds none, not from the tail of a
/// file its two ends hold, in an archived file too, and is the first entry
/// the full read calls a prompt: not a side chain's, its text blocks
/// joined, however its JSON is written; 10 since a prompt of several text
/// blocks is titled by its first that is a prompt on its own; 11 since that
/// prompt is looked for however far in the file it lies, not in its first
/// 16 MiB alone; 12 since blank text is JavaScript's white space, as the
/// TUI's: a prompt of U+0085 is one, one of U+FEFF alone is not; 13
/// since how far a transcript was read past its head for that prompt, none
/// found, is kept, so a grown one has only what was appended read).
const VERSION: u32 = 13;

/// An index file bigger than this is not read (and is rebuilt).
const MAX_INDEX: u64 = 256 << 20;

/// A transcript changed less than this before it was read is not kept
/// (two changes within one tick of the file system's clock leave the
/// same times).
const RACY_NS: i64 = super::usage_index::RACY_NS;

/// What identifies a transcript's contents as they were read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Key {
    dev: u64,
    ino: u64,
    size: u64,
    mtime_ns: i64,
    ctime_ns: i64,
}

impl Key {
    pub(crate) fn of(m: &Metadata) -> Key {
        Key {
            dev: m.dev(),
            ino: m.ino(),
            size: m.size(),
            mtime_ns: m.mtime().saturating_mul(1_000_000_000) + m.mtime_nsec(),
            ctime_ns: m.ctime().saturating_mul(1_000_000_000) + m.ctime_nsec(),
        }
    }

    /// Whether a file of these times, read at `now`, may be kept.
    fn settled(&self, now: i64, racy: i64) -> bool {
        now.saturating_sub(self.mtime_ns.max(self.ctime_ns)) >= racy
    }
}

#[derive(Debug, Serialize, Deserialize)]
struct Record {
    key: Key,
    seen: Seen,
    facts: EndsFacts,
    /// Looked up by this listing (not kept in the file).
    #[serde(skip)]
    used: std::sync::atomic::AtomicBool,
}

#[derive(Serialize, Deserialize)]
struct OnDisk {
    version: u32,
    records: HashMap<String, Record>,
}

/// The index as loaded, and what a listing learnt.
pub(crate) struct ListIndex {
    file: PathBuf,
    old: HashMap<String, Record>,
    fresh: Mutex<Vec<(String, Record)>>,
    now: i64,
    racy: i64,
}

fn now_ns() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i64)
}

/// The index file, if the cache folder can be used.
fn index_path() -> Option<PathBuf> {
    Some(super::usage_index::index_path()?.with_file_name(FILE_NAME))
}

/// The records in `file`, none when it cannot be used (see
/// [`read_private`](super::cache_file::read_private)).
fn load(file: &Path) -> HashMap<String, Record> {
    let Some(data) = super::cache_file::read_private(file, MAX_INDEX) else {
        return HashMap::new();
    };
    match serde_json::from_slice::<OnDisk>(&data) {
        Ok(d) if d.version == VERSION => d.records,
        _ => HashMap::new(),
    }
}

/// Write `records` to `file`, whole or not at all.
fn save(file: &Path, records: HashMap<String, Record>) -> std::io::Result<()> {
    let data = serde_json::to_vec(&OnDisk {
        version: VERSION,
        records,
    })
    .map_err(std::io::Error::other)?;
    if data.len() as u64 > MAX_INDEX {
        return Err(std::io::Error::other("the index would be too big"));
    }
    super::cache_file::write_private(file, &data)
}

impl ListIndex {
    /// The index, if the cache folder can be used.
    pub(crate) fn open() -> Option<ListIndex> {
        Some(ListIndex::at(index_path()?))
    }

    /// The index kept in `file`.
    pub(crate) fn at(file: PathBuf) -> ListIndex {
        ListIndex::with_racy(file, RACY_NS)
    }

    /// [`at`](Self::at), keeping files settled for `racy` ns (the tests
    /// change files faster than [`RACY_NS`]).
    pub(crate) fn with_racy(file: PathBuf, racy: i64) -> ListIndex {
        let old = load(&file);
        ListIndex {
            file,
            old,
            fresh: Mutex::new(Vec::new()),
            now: now_ns(),
            racy,
        }
    }

    /// What the ends of the transcript at `path`, whose `lstat` is `meta`,
    /// said when it was last read, if it has not changed since.
    pub(crate) fn get(&self, path: &Path, meta: &Metadata) -> Option<(&EndsFacts, Seen)> {
        let name = path.to_str()?;
        let rec = self.old.get(name)?;
        (rec.key == Key::of(meta)).then(|| {
            rec.used.store(true, std::sync::atomic::Ordering::Relaxed);
            (&rec.facts, rec.seen)
        })
    }

    /// How far the transcript at `path`, whose `lstat` is `meta`, was
    /// read with no prompt typed as one in its whole lines, when it has
    /// grown since (the same file, larger; transcripts only grow: the CLI
    /// appends): only what was appended needs reading for one. 0 when
    /// nothing is known.
    pub(crate) fn read_before(&self, path: &Path, meta: &Metadata) -> u64 {
        let Some(rec) = path.to_str().and_then(|name| self.old.get(name)) else {
            return 0;
        };
        let now = Key::of(meta);
        match rec.facts.past_head_read {
            Some(at)
                if rec.key.dev == now.dev
                    && rec.key.ino == now.ino
                    && rec.key.size < now.size
                    && at <= rec.key.size =>
            {
                at
            }
            _ => 0,
        }
    }

    /// Keep what the ends of `path` said, read between the two `lstat`s
    /// `before` and `after` (kept only if they are the same and the file
    /// had settled).
    pub(crate) fn put(
        &self,
        path: &Path,
        before: &Metadata,
        after: &Metadata,
        facts: EndsFacts,
        seen: Seen,
    ) {
        let Some(name) = path.to_str() else { return };
        let key = Key::of(before);
        if key != Key::of(after) || !key.settled(self.now, self.racy) {
            return;
        }
        self.fresh.lock().unwrap_or_else(|p| p.into_inner()).push((
            name.to_owned(),
            Record {
                key,
                seen,
                facts,
                used: Default::default(),
            },
        ));
    }

    /// Write the index if a record was made, or (`prune`) if a record not
    /// used is of a transcript that is no longer there.
    pub(crate) fn finish(self, prune: bool) {
        let ListIndex {
            file,
            mut old,
            fresh,
            ..
        } = self;
        let fresh = fresh.into_inner().unwrap_or_else(|p| p.into_inner());
        let mut changed = !fresh.is_empty();
        if prune {
            let before = old.len();
            old.retain(|name, rec| {
                *rec.used.get_mut()
                    || !matches!(std::fs::symlink_metadata(name),
                        Err(e) if e.kind() == std::io::ErrorKind::NotFound)
            });
            changed |= old.len() != before;
        }
        if !changed {
            return;
        }
        for (name, rec) in fresh {
            old.insert(name, rec);
        }
        if save(&file, old).is_err() {
            tracing::debug!(index = %file.display(), "the listing index was not written");
        }
    }
}

/// [`scan_file`](super::info::scan_file) with the listing index: what the ends of an unchanged
/// transcript said, kept, else its ends read (and what they said kept).
/// The same answer as [`scan_file`](super::info::scan_file).
pub(crate) fn scan_file_indexed(
    path: &Path,
    session_id: &str,
    project: Option<Project<'_>>,
    side: bool,
    index: &ListIndex,
) -> Scanned {
    let Ok(before) = std::fs::symlink_metadata(path) else {
        return scan_file(path, session_id, project, side);
    };
    if !before.is_file() {
        return scan_file(path, session_id, project, side);
    }
    if let Some((facts, seen)) = index.get(path, &before) {
        // a mark that says archived is held against the prompts kept
        let archived = if side {
            archive_state_kept(path, session_id, facts)
        } else {
            Some(None)
        };
        if let Some(archived) = archived {
            return scan_facts(path, session_id, facts, seen, project, side, archived);
        }
    }
    let from = index.read_before(path, &before);
    let (scanned, facts) = with_ends(path, |ends| {
        scan_ends_facts_from(path, session_id, ends, project, side, from)
    });
    if let (Some((facts, seen)), Ok(after)) = (facts, std::fs::symlink_metadata(path)) {
        index.put(path, &before, &after, facts, seen);
    }
    scanned
}

#[cfg(test)]
mod tests {
    use super::super::list::{all_candidates, candidates_in, list_candidates_with};
    use super::super::ListOptions;
    use super::*;
    use proptest::prelude::*;
    use std::sync::Arc;

    const IDS: [&str; 4] = [
        "11111111-1111-4111-8111-111111111111",
        "22222222-2222-4222-8222-222222222222",
        "33333333-3333-4333-8333-333333333333",
        "44444444-4444-4444-8444-444444444444",
    ];

    /// A line of a transcript: each shape a listing reads something from.
    fn line(kind: u8, n: u8, next: &str) -> String {
        let ts = format!("2026-11-0{}T10:00:00.000Z", 1 + n % 9);
        match kind % 20 {
            0 => format!(
                r#"{{"type":"user","message":{{"role":"user","content":"prompt {n}"}},"cwd":"/w/p{n}","gitBranch":"b{n}","timestamp":"{ts}","parentUuid":null}}"#
            ),
            1 => format!(r#"{{"type":"custom-title","customTitle":"mine {n}"}}"#),
            2 => format!(r#"{{"type":"ai-title","aiTitle":"ai {n}"}}"#),
            3 => format!(r#"{{"type":"last-prompt","lastPrompt":"last {n}"}}"#),
            4 => format!(r#"{{"type":"summary","summary":"sum {n}","leafUuid":"x"}}"#),
            5 => format!(r#"{{"type":"tag","tag":"t{n}"}}"#),
            6 => format!(r#"{{"type":"relocated","relocatedCwd":"/moved/{n}"}}"#),
            7 => format!(r#"{{"type":"continued-in","continuedInSessionId":"{next}"}}"#),
            8 => format!(
                r#"{{"type":"assistant","message":{{"role":"assistant","content":[{{"type":"text","text":"ok"}}],"stop_reason":"end_turn"}},"parentUuid":"a","timestamp":"{ts}"}}"#
            ),
            9 => r#"{"type":"user","message":{"role":"user","content":"<bash-input>ls</bash-input>"}}"#.into(),
            10 => r#"{"type":"user","message":{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA"}}]}}"#.into(),
            11 => format!(r#"{{"type":"user","isSidechain":true,"message":{{"content":"side {n}"}}}}"#),
            12 => format!(r#"{{"type":"queue-operation","operation":"enqueue","timestamp":"{ts}"}}"#),
            13 => r#"{"type":"custom-title","customTitle":""}"#.into(),
            14 => "not json {".into(),
            // a `!` command's output as the claude TUI writes it (a tag
            // inside, escaped), tags a person typed before a prompt, a
            // prompt holding a tag, claudio's chat's run and prompt (CRLF)
            15 => r#"{"type":"user","message":{"role":"user","content":"<bash-stdout>a &lt;/bash-stdout&gt; -&gt; b</bash-stdout><bash-stderr>e</bash-stderr>"}}"#.into(),
            16 => format!(
                r#"{{"type":"user","message":{{"role":"user","content":"<bash-stdout>a -&gt; b</bash-stdout>\n\nwhat is {n}?"}}}}"#
            ),
            17 => format!(
                r#"{{"type":"user","message":{{"role":"user","content":"why <bash-input>x{n}</bash-input>?"}}}}"#
            ),
            18 => format!(
                r#"{{"type":"user","message":{{"role":"user","content":"<bash-input>ls</bash-input>\r\n<bash-stdout>a\r\n</bash-stdout><bash-stderr></bash-stderr>\r\n\r\nwhy {n}"}}}}"#
            ),
            _ => format!(
                r#"{{"type":"user","message":{{"role":"user","content":"{}"}}}}"#,
                "x".repeat(20_000 + 997 * n as usize)
            ),
        }
    }

    /// One session's lines and what lies beside it.
    #[derive(Debug, Clone)]
    struct Session {
        lines: Vec<(u8, u8)>,
        side_title: Option<u8>,
        archived: Option<(bool, u8)>,
    }

    fn session() -> impl Strategy<Value = Session> {
        (
            proptest::collection::vec((0u8..20, 0u8..9), 0..14),
            proptest::option::of(0u8..9),
            proptest::option::of((any::<bool>(), 0u8..9)),
        )
            .prop_map(|(lines, side_title, archived)| Session {
                lines,
                side_title,
                archived,
            })
    }

    fn write_session(folder: &Path, i: usize, s: &Session) {
        let id = IDS[i];
        let next = IDS[(i + 1) % IDS.len()];
        let text: String = s
            .lines
            .iter()
            .map(|&(k, n)| line(k, n, next) + "\n")
            .collect();
        std::fs::write(folder.join(format!("{id}.jsonl")), text).unwrap();
        write_beside(folder, i, s);
    }

    /// What lies beside session `i`'s transcript, the transcript untouched.
    fn write_beside(folder: &Path, i: usize, s: &Session) {
        let id = IDS[i];
        let side = folder.join(id);
        let _ = std::fs::remove_dir_all(&side);
        if s.side_title.is_some() || s.archived.is_some() {
            std::fs::create_dir_all(&side).unwrap();
        }
        if let Some(n) = s.side_title {
            std::fs::write(
                side.join("custom-title.json"),
                format!(r#"{{"customTitle":"beside {n}"}}"#),
            )
            .unwrap();
        }
        if let Some((a, n)) = s.archived {
            std::fs::write(
                side.join("archived.json"),
                format!(
                    r#"{{"archived":{a},"at":"2026-11-0{}T12:00:00.000Z"}}"#,
                    1 + n % 9
                ),
            )
            .unwrap();
        }
    }

    /// The listings that the index must not change: of every project (all,
    /// and a page), and of one directory (whose folder a recorded `cwd`
    /// may say belongs elsewhere).
    fn listings(projects: &Path, index: impl Fn() -> Option<ListIndex>) -> Vec<String> {
        let folder = projects.join("-w-p1");
        let all = || all_candidates(projects, false).unwrap();
        let dir = || {
            let p: Arc<str> = "/w/p1".into();
            candidates_in(&folder, Some(&p), None, false)
        };
        vec![
            format!(
                "{:?}",
                list_candidates_with(all(), &ListOptions::all(), index())
            ),
            format!(
                "{:?}",
                list_candidates_with(all(), &ListOptions::all().offset(1).limit(2), index())
            ),
            format!(
                "{:?}",
                list_candidates_with(dir(), &ListOptions::all(), index())
            ),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]
        /// A listing with the index (cold, warm, and after transcripts
        /// grew and what lies beside them changed) is the listing that
        /// reads every transcript's ends.
        #[test]
        fn a_listing_with_the_index_is_the_full_reading_s(
            sessions in proptest::collection::vec(session(), 1..=4),
            grow in proptest::collection::vec(proptest::option::of((0u8..20, 0u8..9)), 4),
            beside in proptest::collection::vec(session(), 4),
            marks in proptest::collection::vec(session(), 4),
        ) {
            let dir = tempfile::tempdir().unwrap();
            let projects = dir.path().join("projects");
            let folder = projects.join("-w-p1");
            std::fs::create_dir_all(&folder).unwrap();
            let file = dir.path().join("cache").join(FILE_NAME);
            let index = || Some(ListIndex::with_racy(file.clone(), 0));
            for (i, s) in sessions.iter().enumerate() {
                write_session(&folder, i, s);
            }
            let want = listings(&projects, || None);
            prop_assert_eq!(&listings(&projects, index), &want, "cold");
            prop_assert!(file.exists() || sessions.iter().all(|s| s.lines.is_empty()));
            prop_assert_eq!(&listings(&projects, index), &want, "warm");
            // transcripts grow (a new size), what lies beside them changes
            for i in 0..sessions.len() {
                let path = folder.join(format!("{}.jsonl", IDS[i]));
                if let Some((k, n)) = grow[i] {
                    use std::io::Write as _;
                    let mut f = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
                    writeln!(f, "{}", line(k, n, IDS[(i + 1) % IDS.len()])).unwrap();
                }
                let text = std::fs::read(&path).unwrap();
                let moved = Session { lines: Vec::new(), ..beside[i].clone() };
                write_session(&folder, i, &moved);
                std::fs::write(&path, text).unwrap();
            }
            let want = listings(&projects, || None);
            prop_assert_eq!(&listings(&projects, index), &want, "changed");
            prop_assert_eq!(&listings(&projects, index), &want, "changed, warm");
            // what lies beside changes again, the transcripts untouched (a
            // mark made or moved over a record kept)
            for (i, s) in marks.iter().enumerate().take(sessions.len()) {
                write_beside(&folder, i, s);
            }
            let want = listings(&projects, || None);
            prop_assert_eq!(&listings(&projects, index), &want, "beside");
            prop_assert_eq!(&listings(&projects, index), &want, "beside, warm");
        }
    }

    /// A listing of every project drops the records of transcripts gone,
    /// and keeps the others'; a listing of one directory drops none.
    #[test]
    fn the_records_of_transcripts_gone_are_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let projects = dir.path().join("projects");
        let folder = projects.join("-w-p1");
        std::fs::create_dir_all(&folder).unwrap();
        let file = dir.path().join("cache").join(FILE_NAME);
        let paths: Vec<PathBuf> = IDS[..3]
            .iter()
            .map(|id| folder.join(format!("{id}.jsonl")))
            .collect();
        for (i, p) in paths.iter().enumerate() {
            std::fs::write(p, line(0, i as u8, IDS[3]) + "\n").unwrap();
        }
        let list = |opts: &ListOptions| {
            list_candidates_with(
                all_candidates(&projects, false).unwrap(),
                opts,
                Some(ListIndex::with_racy(file.clone(), 0)),
            )
        };
        list(&ListOptions::all());
        let kept = || {
            load(&file)
                .into_keys()
                .collect::<std::collections::BTreeSet<_>>()
        };
        assert_eq!(kept().len(), 3);
        std::fs::remove_file(&paths[0]).unwrap();
        // a page of the listing: nothing dropped
        list(&ListOptions::all().limit(1));
        assert_eq!(kept().len(), 3);
        list(&ListOptions::all());
        let want: std::collections::BTreeSet<String> = paths[1..]
            .iter()
            .map(|p| p.to_str().unwrap().to_owned())
            .collect();
        assert_eq!(kept(), want);
    }

    /// A temporary file that a killed writer left is removed at the next
    /// write once it is an hour old; a recent one (being written) is left.
    #[test]
    fn a_killed_writer_s_temporary_file_is_swept() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(FILE_NAME);
        let stale = dir
            .path()
            .join(format!(".{FILE_NAME}.{}.2.3.tmp", std::process::id()));
        // a live writer's (this process's) file, written now
        let recent = dir
            .path()
            .join(format!(".{FILE_NAME}.{}.5.6.tmp", std::process::id()));
        let other = dir.path().join(".usage-index.1.2.3.tmp");
        for p in [&stale, &recent, &other] {
            std::fs::write(p, "x").unwrap();
        }
        let hours_ago = SystemTime::now() - std::time::Duration::from_secs(7200);
        for p in [&stale, &other] {
            let f = std::fs::File::options().write(true).open(p).unwrap();
            f.set_modified(hours_ago).unwrap();
        }
        save(&file, HashMap::new()).unwrap();
        assert!(!stale.exists());
        assert!(recent.exists() && other.exists() && file.exists());
    }

    /// A store of one project folder, its first session's transcript (not
    /// written yet) and an index file: the listing of it with the index.
    struct OneSession {
        _dir: tempfile::TempDir,
        projects: PathBuf,
        folder: PathBuf,
        file: PathBuf,
        path: PathBuf,
    }

    impl OneSession {
        fn new() -> OneSession {
            let dir = tempfile::tempdir().unwrap();
            let projects = dir.path().join("projects");
            let folder = projects.join("-w-p1");
            std::fs::create_dir_all(&folder).unwrap();
            OneSession {
                file: dir.path().join("cache").join(FILE_NAME),
                path: folder.join(format!("{}.jsonl", IDS[0])),
                _dir: dir,
                projects,
                folder,
            }
        }

        fn list(&self) -> Vec<super::super::SessionInfo> {
            list_candidates_with(
                all_candidates(&self.projects, false).unwrap(),
                &ListOptions::all(),
                Some(ListIndex::with_racy(self.file.clone(), 0)),
            )
            .sessions
        }
    }

    /// A session marked archived is listed from the index too: the mark is
    /// held against the latest prompt's time kept with the ends' facts, so
    /// the ends (and a past-head read for the title) are not read again at
    /// every listing; a record made before the mark is read once more.
    #[test]
    fn a_session_marked_archived_is_listed_from_the_index() {
        let one = OneSession::new();
        let (folder, file, path) = (one.folder.clone(), one.file.clone(), one.path.clone());
        // a prompt at 2026-11-02T10:00
        std::fs::write(&path, line(0, 1, IDS[1]) + "\n").unwrap();
        let mark = |day: u8| {
            let side = folder.join(IDS[0]);
            std::fs::create_dir_all(&side).unwrap();
            std::fs::write(
                side.join("archived.json"),
                format!(r#"{{"archived":true,"at":"2026-11-0{day}T12:00:00.000Z"}}"#),
            )
            .unwrap();
        };
        let list = || {
            one.list()
                .into_iter()
                .map(|s| (s.summary, s.archived))
                .collect::<Vec<_>>()
        };
        let tamper = || {
            let kept = std::fs::read_to_string(&file).unwrap();
            assert!(kept.contains("\"prompt 1\""), "{kept}");
            std::fs::write(&file, kept.replace("\"prompt 1\"", "\"from the index\"")).unwrap();
        };
        // a record made before the mark: the ends are read once more
        assert_eq!(list(), [("prompt 1".to_owned(), None)]);
        tamper();
        mark(5);
        assert_eq!(list(), [("prompt 1".to_owned(), Some(true))]);
        // then the index, for the mark and for a mark moved
        tamper();
        assert_eq!(list(), [("from the index".to_owned(), Some(true))]);
        mark(1);
        assert_eq!(list(), [("from the index".to_owned(), Some(false))]);
        mark(2);
        assert_eq!(list(), [("from the index".to_owned(), Some(true))]);
    }

    /// The index is what an unchanged transcript's listing comes from, and
    /// only while the transcript is unchanged; an index writable by others
    /// is not used.
    #[test]
    fn an_unchanged_transcript_is_listed_from_the_index_only() {
        let one = OneSession::new();
        let (file, path) = (one.file.clone(), one.path.clone());
        std::fs::write(&path, line(0, 1, IDS[1]) + "\n").unwrap();
        let list = || {
            one.list()
                .into_iter()
                .map(|s| s.summary)
                .collect::<Vec<_>>()
        };
        assert_eq!(list(), ["prompt 1"]);
        let kept = std::fs::read_to_string(&file).unwrap();
        assert!(kept.contains("\"prompt 1\""), "{kept}");
        std::fs::write(&file, kept.replace("\"prompt 1\"", "\"from the index\"")).unwrap();
        assert_eq!(list(), ["from the index"]);
        // writable by others: not used
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o666)).unwrap();
        assert_eq!(list(), ["prompt 1"]);
        std::fs::write(&file, kept.replace("\"prompt 1\"", "\"from the index\"")).unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert_eq!(list(), ["from the index"]);
        // the transcript grew: read again
        use std::io::Write as _;
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        writeln!(f, "{}", line(3, 2, IDS[1])).unwrap();
        assert_eq!(list(), ["last 2"]);
        // a transcript changed within RACY_NS of its reading is not kept
        let fresh = ListIndex::at(file.clone());
        let m = std::fs::symlink_metadata(&path).unwrap();
        let seen = Seen {
            size: 1,
            modified_ms: 1,
        };
        fresh.put(&path, &m, &m, EndsFacts::default(), seen);
        assert!(fresh.fresh.lock().unwrap().is_empty());
    }
}
