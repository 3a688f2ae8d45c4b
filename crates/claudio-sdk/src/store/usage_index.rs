//! The usage index: what each transcript records about usage, kept between
//! runs so that a transcript is read again only when it changed, and an
//! appended one only from where it was read to.
//!
//! One file for every store, `usage-index` in claudio's cache folder
//! (`$CLAUDIO_CACHE_DIR`, else `$XDG_CACHE_HOME/claudio`, else
//! `~/.cache/claudio`). It is a cache: deleting it costs one full read,
//! and any fault with it (a relative `$CLAUDIO_CACHE_DIR`, a folder that
//! cannot be made or written, an index file that is a link, a FIFO, a
//! folder, someone else's, bigger than [`MAX_INDEX`], truncated or
//! damaged) means the transcripts are read as if there were none; the
//! command never fails for it.
//!
//! A record is keyed by the transcript's path and checked against its
//! `fstat`: device, inode, size, modification and change times. It is
//! used as it is only when all of them are the same and the file had not
//! changed for [`RACY_NS`] when it was read (a file changed twice within
//! one tick of the file system's clock keeps its times: "racily clean", as
//! git calls it). Otherwise, a plain transcript that grew (the same inode,
//! bigger than it was, and the same first [`EDGE`] bytes, the last
//! [`EDGE`] bytes before where it was read to and [`EDGE`] bytes from its
//! middle) is read on from where it was read to, the totals carried on;
//! any other change reads it whole: a file of the same size with other
//! times (rewritten in place), smaller, another inode, or a sample that
//! differs. The CLI only appends to a transcript; what is not detected is
//! a rewrite by something else that both grows the file and leaves the
//! three samples as they were (an edit elsewhere in what was read, then
//! an append), or that keeps the size and every time (within one tick of
//! the file system's clock, and [`RACY_NS`] of the read before). An
//! archived transcript (compressed) is never appended to: it is used as it
//! is or read whole.
//!
//! The file is written to a temporary file beside it (mode 0600, in a
//! folder made 0700) and renamed over the old one, so a reader sees the old
//! index or the new one; two processes writing at once both succeed and the
//! last one's stays; a temporary file left by a process that died while
//! writing is removed at the next write. A header (magic, version) and a
//! trailer (the records' count and a checksum) make a torn or foreign file
//! be ignored and rebuilt: so the file is not flushed to disk before the
//! rename (a crash costs at most one full read; a flush would cost every
//! status line a disk write).

use super::error::StoreResult;
use super::lines::{Block, Transcript};
use super::usage_types::FileUsage;
use std::collections::{HashMap, HashSet};
use std::fs::{File, Metadata};
use std::io::Seek;
#[cfg(test)]
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

pub(super) mod record;
use record::*;

/// The environment variable naming claudio's cache folder (absolute).
pub(crate) const CACHE_ENV: &str = "CLAUDIO_CACHE_DIR";

/// The index file's name in the cache folder.
const FILE_NAME: &str = "usage-index";

/// An index file bigger than this is not read (and is rebuilt).
pub(crate) const MAX_INDEX: u64 = 256 << 20;

/// How much of each end of what was read is compared before an appended
/// transcript is read on from where it was read to.
pub(crate) const EDGE: usize = 4096;

/// A transcript changed less than this before it was read is checked
/// again next time, whatever its times say (two changes within one tick
/// of the file system's clock leave the same times).
pub(crate) const RACY_NS: i64 = 3_000_000_000;

/// Between two writes of the index by [`session_usage`] calls, at least
/// this long (a listing that asks for each session's usage in turn
/// writes it a few times, not once per session).
///
/// [`session_usage`]: super::usage::session_usage
const SAVE_EVERY: Duration = Duration::from_secs(1);

/// The index file, if the cache folder can be used.
pub(crate) fn index_path() -> Option<PathBuf> {
    let abs = |v: std::ffi::OsString| Some(PathBuf::from(v)).filter(|p| p.is_absolute());
    let dir = match std::env::var_os(CACHE_ENV) {
        Some(v) => abs(v)?,
        // the unit tests never touch the developer's cache
        #[cfg(test)]
        None => std::env::temp_dir().join("claudio-test-cache"),
        #[cfg(not(test))]
        None => match std::env::var_os("XDG_CACHE_HOME").and_then(abs) {
            Some(x) => x.join("claudio"),
            None => {
                let home = std::env::var_os("HOME").and_then(abs)?;
                if cfg!(target_os = "macos") {
                    home.join("Library/Caches/claudio")
                } else {
                    home.join(".cache/claudio")
                }
            }
        },
    };
    Some(dir.join(FILE_NAME))
}

/// A record made anew: the path's bytes and the record's.
type Entry = (Box<[u8]>, Box<[u8]>);

/// What reading a file gave: its usage, when it was written (ms since
/// the epoch), and its new record if it was read.
type FileRead = (FileUsage, i64, Option<Box<[u8]>>);

/// The index at `file`, or an empty one when it cannot be used: not
/// there, a link, not a regular file, not the user's own or writable by
/// others, too big ([`read_private`](super::cache_file::read_private)),
/// or not a whole index.
fn load(file: &Path) -> Map {
    super::cache_file::read_private(file, MAX_INDEX)
        .and_then(|data| parse(&data))
        .unwrap_or_default()
}

/// Write `map` to `file`, whole or not at all (a torn file after a crash
/// fails its checksum and is rebuilt).
fn save(file: &Path, map: &Map) -> std::io::Result<()> {
    let data = serialize(map);
    if data.len() as u64 > MAX_INDEX {
        return Err(std::io::Error::other("the index would be too big"));
    }
    super::cache_file::write_private(file, &data)
}

/// [`RACY_NS`], which the unit tests set lower (they change files faster).
fn racy_ns() -> i64 {
    #[cfg(test)]
    return tests::RACY.load(std::sync::atomic::Ordering::Relaxed);
    #[cfg(not(test))]
    RACY_NS
}

// ---- the process's copy

struct Cached {
    file: PathBuf,
    map: Arc<Map>,
    saved: Option<Instant>,
}

/// The index as this process last loaded or wrote it.
static CACHE: Mutex<Option<Cached>> = Mutex::new(None);

fn cache() -> std::sync::MutexGuard<'static, Option<Cached>> {
    CACHE.lock().unwrap_or_else(|p| p.into_inner())
}

/// The index files loaded from disk, in the tests: the one cache is the
/// process's, and other tests' reads of the store (in threads of the same
/// process under `cargo test`) put their own index in it at any moment.
#[cfg(test)]
pub(crate) static LOADED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// What a read of many transcripts may drop from the index: the records
/// of transcripts in `folders` (and of their sub-agents) that were not
/// among the transcripts found there (`found`).
pub(crate) struct Scope {
    /// The folders' paths, as bytes.
    pub(crate) folders: HashSet<Box<[u8]>>,
    /// The transcripts' paths, as bytes.
    pub(crate) found: HashSet<Box<[u8]>>,
}

/// The index for one read of the store: lookups, and what was read anew.
pub(crate) struct Index {
    file: PathBuf,
    map: std::sync::OnceLock<Arc<Map>>,
    /// Started (ns since the epoch): a file changed after this less
    /// [`RACY_NS`] is read again next time.
    now: i64,
    fresh: Mutex<Vec<Entry>>,
    visited: Mutex<Vec<Box<[u8]>>>,
    /// Files read whole, and read on from where they were read to.
    #[cfg(test)]
    counts: Mutex<(usize, usize)>,
}

/// What the index gave for one file.
pub(crate) struct Indexed {
    pub(crate) usage: FileUsage,
    /// When the file was last written (ms since the epoch).
    pub(crate) modified_ms: i64,
}

fn now_ns() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i64)
}

fn modified_ms(m: &Metadata) -> i64 {
    m.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_millis() as i64)
}

impl Index {
    /// The index, if the cache folder can be used.
    pub(crate) fn open() -> Option<Index> {
        let file = index_path()?;
        Some(Index::at(file))
    }

    /// The index kept in `file`.
    pub(crate) fn at(file: PathBuf) -> Index {
        Index {
            file,
            map: std::sync::OnceLock::new(),
            now: now_ns(),
            fresh: Mutex::new(Vec::new()),
            visited: Mutex::new(Vec::new()),
            #[cfg(test)]
            counts: Mutex::new((0, 0)),
        }
    }

    /// The records: loaded at the first lookup (a read of recent
    /// transcripts that finds none does not load them).
    fn map(&self) -> &Arc<Map> {
        self.map.get_or_init(|| {
            let mut c = cache();
            match c.as_ref() {
                Some(c) if c.file == self.file => c.map.clone(),
                _ => {
                    let map = Arc::new(load(&self.file));
                    #[cfg(test)]
                    LOADED
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .push(self.file.clone());
                    *c = Some(Cached {
                        file: self.file.clone(),
                        map: map.clone(),
                        saved: None,
                    });
                    map
                }
            }
        })
    }

    fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
        m.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// What the transcript at `path` records: from the index when it still
    /// holds, else read (whole, or from where it was read to).
    pub(crate) fn read(&self, path: &Path, prompts: bool) -> StoreResult<Indexed> {
        // the name copied once, for the visited list (and again only for
        // a record made anew)
        let name = path.as_os_str().as_bytes();
        Self::lock(&self.visited).push(name.into());
        let rec = self
            .map()
            .get(name)
            .and_then(|b| Some((decode_head(b)?, &b[..])));
        // unchanged: one lstat, the file not opened (a change of its mode
        // or owner changes its ctime, and so its key)
        if let Some((h, b)) = rec {
            if let Ok(m) = std::fs::symlink_metadata(path) {
                if m.is_file() && self.holds(&h, &Key::of(&m), prompts) {
                    if let Some(mut usage) = decode_usage(b) {
                        if !prompts {
                            usage.prompts = 0;
                        }
                        return Ok(Indexed {
                            usage,
                            modified_ms: modified_ms(&m),
                        });
                    }
                }
            }
        }
        let (usage, modified_ms, new) = if super::open::is_packed(path) {
            self.read_packed(path, prompts, rec)?
        } else {
            self.read_plain(path, prompts, rec)?
        };
        if let Some(new) = new {
            Self::lock(&self.fresh).push((name.into(), new));
        }
        let mut usage = usage;
        if !prompts {
            usage.prompts = 0;
        }
        Ok(Indexed { usage, modified_ms })
    }

    /// The CLI's `cost-state` figures the record of the transcript at
    /// `path` holds (`Some(None)`: it has none), as the transcript was last
    /// read, whether or not it changed since; `None` when there is no
    /// record of it. The file is not looked at.
    pub(crate) fn cost_state(&self, path: &Path) -> Option<Option<super::usage_types::CliCost>> {
        decode_cli_cost(self.map().get(path.as_os_str().as_bytes())?)
    }

    /// Whether a record may be used as it is for a file of key `key`.
    fn holds(&self, h: &Head, key: &Key, prompts: bool) -> bool {
        h.key == *key
            && (h.prompts || !prompts)
            && key.ctime_total_ns() < h.read_at as i128 - racy_ns() as i128
    }

    fn read_packed(
        &self,
        path: &Path,
        prompts: bool,
        rec: Option<(Head, &[u8])>,
    ) -> StoreResult<FileRead> {
        let _ = rec; // an archived transcript is used as it is or read whole
        #[cfg(test)]
        {
            Self::lock(&self.counts).0 += 1;
        }
        // from its usage summary, when it holds
        let (u, meta) = super::usage::file_usage_of(path, prompts)?;
        let key = Key::of(&meta);
        let ms = modified_ms(&meta);
        let head = Head {
            key,
            read_at: self.now,
            boundary: NOT_RESUMABLE,
            head_sum: 0,
            tail_sum: 0,
            mid_at: NOT_RESUMABLE,
            mid_sum: 0,
            prompts,
        };
        let rec = encode(&head, &u);
        Ok((u, ms, Some(rec)))
    }

    fn read_plain(
        &self,
        path: &Path,
        prompts: bool,
        rec: Option<(Head, &[u8])>,
    ) -> StoreResult<FileRead> {
        let (mut file, meta) = super::open::open_regular(path)?;
        let key = Key::of(&meta);
        let ms = modified_ms(&meta);
        let (mut start, mut was) = (None, None);
        if let Some((h, b)) = rec {
            if self.holds(&h, &key, prompts) {
                if let Some(u) = decode_usage(b) {
                    return Ok((u, ms, None));
                }
            }
            // read on only from a file that grew (or is as it was, but
            // was changed too lately to be trusted): one of the same size
            // with other times was rewritten in place
            if h.key.dev == key.dev
                && h.key.ino == key.ino
                && h.boundary != NOT_RESUMABLE
                && (key.size > h.key.size || key == h.key)
                && key.size >= h.boundary
                && (h.prompts || !prompts)
            {
                if let (Some(edges), Some(u)) = (edges(&file, &h), decode_usage(b)) {
                    if file.seek(std::io::SeekFrom::Start(h.boundary)).is_ok() {
                        start = Some((h.boundary, edges, u, h.prompts));
                        was = Some(h);
                    }
                }
            }
        }
        let (from, mut cap, carried, count_prompts) = match start {
            Some((at, (head, tail), u, p)) => (at, Capture::seeded(at, head, tail), Some(u), p),
            None => (0, Capture::seeded(0, Vec::new(), Vec::new()), None, prompts),
        };
        // the middle sample: taken from the blocks as they are read, or,
        // when it starts before where the read starts, read before it (a
        // change after that only makes it not match next time)
        let mid_at = mid_start(key.size);
        let mid_before = match mid_at {
            Some(m) if m < from => mid_sample(&file, key.size),
            _ => None,
        };
        cap.mid_at = mid_at.filter(|&m| m >= from);
        #[cfg(test)]
        {
            let mut c = Self::lock(&self.counts);
            if carried.is_some() {
                c.1 += 1
            } else {
                c.0 += 1
            }
        }
        let t = Transcript::from_parts(Box::new(file), meta, path);
        let (u, _) = super::usage::scan_usage(t, count_prompts, carried, |b| cap.block(from, b))?;
        let resumable = cap.contiguous && cap.boundary == cap.next;
        let (mid_at, mid_sum) = match mid_before.or_else(|| cap.mid_sample()) {
            Some((at, sum)) if resumable && at + EDGE as u64 <= cap.boundary => (at, sum),
            _ => (NOT_RESUMABLE, 0),
        };
        // checked, unchanged, and still too new to be trusted without a
        // check: the record stays as it is (nothing to write)
        if was.is_some_and(|h: Head| {
            h.key == key
                && resumable
                && cap.next == h.boundary
                && key.ctime_total_ns() >= self.now as i128 - racy_ns() as i128
        }) {
            return Ok((u, ms, None));
        }
        let head = Head {
            key,
            read_at: self.now,
            boundary: if resumable {
                cap.boundary
            } else {
                NOT_RESUMABLE
            },
            head_sum: edge_sum(&cap.head[..cap.head.len().min(cap.boundary as usize)]),
            tail_sum: edge_sum(&cap.tail),
            mid_at,
            mid_sum,
            prompts: count_prompts,
        };
        let rec = encode(&head, &u);
        Ok((u, ms, Some(rec)))
    }

    /// Put what was read anew into the index, drop what `scope` says is
    /// gone, and write the index if it changed (for a single session's
    /// read, `throttle`: at most once per [`SAVE_EVERY`]).
    pub(crate) fn finish(self, scope: Option<&dyn Fn() -> Scope>, throttle: bool) {
        let Index {
            file,
            map,
            fresh,
            visited,
            ..
        } = self;
        // nothing looked up: nothing learnt
        let Some(map) = map.into_inner() else {
            return;
        };
        let fresh = fresh.into_inner().unwrap_or_else(|p| p.into_inner());
        // sorted, each name looked for by a few comparisons (a set would
        // hash every name twice: a sixtieth of a warm status line)
        let mut visited = visited.into_inner().unwrap_or_else(|p| p.into_inner());
        visited.sort_unstable();
        visited.dedup();
        let seen = |k: &[u8]| visited.binary_search_by(|v| (**v).cmp(k)).is_ok();
        let mut c = cache();
        let mut base = match c.take() {
            Some(c) if c.file == file => {
                drop(map); // the one copy left is changed in place
                c
            }
            _ => Cached {
                file: file.clone(),
                map,
                saved: None,
            },
        };
        let mut missing = HashMap::new();
        // what may be forgotten is among what was not looked up: none (a
        // status line looks up every transcript its index holds), no scope
        // to make (a set of every path the listing found)
        let unvisited = || base.map.keys().any(|k| !seen(k));
        let scope = scope.filter(|_| unvisited()).map(|f| f());
        let gone: Vec<Box<[u8]>> = scope
            .as_ref()
            .map(|s| {
                base.map
                    .keys()
                    .filter(|k| !seen(k) && is_gone(k, s, &mut missing))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default();
        let changed = !fresh.is_empty() || !gone.is_empty();
        if changed {
            let m = Arc::make_mut(&mut base.map);
            for k in &gone {
                m.remove(k);
            }
            m.extend(fresh);
        }
        let due = !throttle || base.saved.is_none_or(|t| t.elapsed() >= SAVE_EVERY);
        if changed && due {
            if save(&file, &base.map).is_ok() {
                base.saved = Some(Instant::now());
            } else {
                tracing::debug!(index = %file.display(), "the usage index was not written");
            }
        }
        *c = Some(base);
    }
}

/// Whether the record of `name` is of a transcript that `scope` shows is
/// gone: in one of its folders (itself, or its session's for a sub-agent's
/// transcript), and not found there.
fn is_gone(name: &[u8], scope: &Scope, missing: &mut HashMap<PathBuf, bool>) -> bool {
    let path = Path::new(std::ffi::OsStr::from_bytes(name));
    let Some(parent) = path.parent() else {
        return false;
    };
    let b = |p: &Path| p.as_os_str().as_bytes().to_vec().into_boxed_slice();
    if scope.folders.contains(parent.as_os_str().as_bytes()) {
        return !scope.found.contains(name);
    }
    // <folder>/<session>/subagents/agent-<id>.jsonl
    if parent.file_name().is_some_and(|n| n == "subagents") {
        if let Some(side) = parent.parent() {
            if side
                .parent()
                .is_some_and(|f| scope.folders.contains(f.as_os_str().as_bytes()))
            {
                let mut plain = b(side).into_vec();
                plain.extend_from_slice(b".jsonl");
                let mut packed = b(side).into_vec();
                packed.extend_from_slice(super::open::PACKED_EXT.as_bytes());
                return !scope.found.contains(plain.as_slice())
                    && !scope.found.contains(packed.as_slice());
            }
        }
    }
    // another store's: gone with its folder (one lstat a folder)
    *missing.entry(parent.to_path_buf()).or_insert_with(|| {
        matches!(std::fs::symlink_metadata(parent),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound)
    })
}

/// The first and last [`EDGE`] bytes before `h.boundary` of `file`, if
/// they are still what was read.
fn edges(file: &File, h: &Head) -> Option<(Vec<u8>, Vec<u8>)> {
    let b = h.boundary;
    let head_len = (b.min(EDGE as u64)) as usize;
    let mut head = vec![0u8; head_len];
    file.read_exact_at(&mut head, 0).ok()?;
    if edge_sum(&head) != h.head_sum {
        return None;
    }
    let tail_from = b.saturating_sub(EDGE as u64);
    let tail = if tail_from == 0 {
        head.clone()
    } else {
        let mut t = vec![0u8; (b - tail_from) as usize];
        file.read_exact_at(&mut t, tail_from).ok()?;
        t
    };
    if edge_sum(&tail) != h.tail_sum {
        return None;
    }
    if h.mid_at != NOT_RESUMABLE {
        let mut mid = vec![0u8; EDGE];
        file.read_exact_at(&mut mid, h.mid_at).ok()?;
        if h.mid_at.checked_add(EDGE as u64)? > b || edge_sum(&mid) != h.mid_sum {
            return None;
        }
    }
    Some((head, tail))
}

/// Where the middle sample of a file of `size` bytes starts; `None` for
/// a file whose first and last [`EDGE`] bytes leave less than [`EDGE`]
/// between them.
fn mid_start(size: u64) -> Option<u64> {
    let e = EDGE as u64;
    (size >= 3 * e).then(|| size / 2 - e / 2)
}

/// Where the middle sample of a file of `size` bytes starts
/// ([`mid_start`]), and the checksum of its [`EDGE`] bytes, read from
/// `file`.
fn mid_sample(file: &File, size: u64) -> Option<(u64, u64)> {
    let at = mid_start(size)?;
    let mut mid = vec![0u8; EDGE];
    file.read_exact_at(&mut mid, at).ok()?;
    Some((at, edge_sum(&mid)))
}

/// What is kept of the bytes read: the first [`EDGE`], the last [`EDGE`]
/// before the end of the last whole line, and where that end is.
struct Capture {
    head: Vec<u8>,
    tail: Vec<u8>,
    /// The end of the last whole line (a file offset).
    boundary: u64,
    /// Where the next block should start.
    next: u64,
    /// No bytes were passed over (a line too long to be read).
    contiguous: bool,
    /// Where the middle sample starts (a file offset), when it is taken
    /// from the blocks read ([`mid_start`]).
    mid_at: Option<u64>,
    /// The middle sample's bytes, as far as they were read.
    mid: Vec<u8>,
}

impl Capture {
    fn seeded(at: u64, head: Vec<u8>, tail: Vec<u8>) -> Capture {
        Capture {
            head,
            tail,
            boundary: at,
            next: at,
            contiguous: true,
            mid_at: None,
            mid: Vec::new(),
        }
    }

    /// The middle sample taken from the blocks: where it starts and the
    /// checksum of its [`EDGE`] bytes, when all of them were read, one
    /// block after another from where it starts.
    fn mid_sample(&self) -> Option<(u64, u64)> {
        let at = self.mid_at?;
        (self.contiguous && self.mid.len() == EDGE).then(|| (at, edge_sum(&self.mid)))
    }

    /// Take in a block read from `from` + its offset.
    fn block(&mut self, from: u64, b: Block<'_>) {
        let at = from + b.offset;
        if at != self.next {
            self.contiguous = false;
        }
        let bytes = b.bytes;
        self.next = at + bytes.len() as u64;
        if let Some(m) = self.mid_at {
            // the sample's next byte, if this block holds it
            let want = m + self.mid.len() as u64;
            if self.contiguous && self.mid.len() < EDGE && (at..self.next).contains(&want) {
                let from = (want - at) as usize;
                let to = bytes.len().min(from + (EDGE - self.mid.len()));
                self.mid.extend_from_slice(&bytes[from..to]);
            }
        }
        if self.contiguous && (self.head.len() as u64) == at.min(EDGE as u64) {
            let want = EDGE.saturating_sub(self.head.len()).min(bytes.len());
            self.head.extend_from_slice(&bytes[..want]);
        }
        let end = memchr::memrchr(b'\n', bytes).map_or(0, |i| i + 1);
        if end == 0 {
            return;
        }
        if end >= EDGE {
            self.tail.clear();
            self.tail.extend_from_slice(&bytes[end - EDGE..end]);
        } else {
            self.tail.extend_from_slice(&bytes[..end]);
            let over = self.tail.len().saturating_sub(EDGE);
            self.tail.drain(..over);
        }
        self.boundary = at + end as u64;
    }
}

#[cfg(test)]
pub(crate) mod tests;
