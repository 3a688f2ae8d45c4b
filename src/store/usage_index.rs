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
use super::usage::{FileUsage, MessageUsage, Tokens};
use std::collections::{HashMap, HashSet};
use std::fs::{File, Metadata};
use std::io::{Read, Seek, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, FileExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

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

const MAGIC: &[u8; 16] = b"claudio usage\n\0\0";
const VERSION: u32 = 2;
/// `boundary` of a record that cannot be read on from (and `mid_at` of
/// one without a middle sample).
const NOT_RESUMABLE: u64 = u64::MAX;

/// The index file, if the cache folder can be used.
pub(crate) fn index_path() -> Option<PathBuf> {
    let abs = |v: std::ffi::OsString| Some(PathBuf::from(v)).filter(|p| p.is_absolute());
    let dir = match std::env::var_os(CACHE_ENV) {
        Some(v) => abs(v)?,
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

/// Path bytes to record bytes.
type Map = HashMap<Box<[u8]>, Box<[u8]>>;

/// A record made anew: the path's bytes and the record's.
type Entry = (Box<[u8]>, Box<[u8]>);

/// What reading a file gave: its usage, when it was written (ms since
/// the epoch), and its new record if it was read.
type FileRead = (FileUsage, i64, Option<Box<[u8]>>);

/// What identifies one version of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Key {
    dev: u64,
    ino: u64,
    size: u64,
    mtime: i64,
    mtime_ns: i64,
    ctime: i64,
    ctime_ns: i64,
}

impl Key {
    fn of(m: &Metadata) -> Key {
        Key {
            dev: m.dev(),
            ino: m.ino(),
            size: m.size(),
            mtime: m.mtime(),
            mtime_ns: m.mtime_nsec(),
            ctime: m.ctime(),
            ctime_ns: m.ctime_nsec(),
        }
    }

    fn ctime_total_ns(&self) -> i128 {
        self.ctime as i128 * 1_000_000_000 + self.ctime_ns as i128
    }
}

/// A record's fixed part: how to tell whether it still holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Head {
    key: Key,
    /// When the file was read (ns since the epoch).
    read_at: i64,
    /// The end of the last whole line read ([`NOT_RESUMABLE`]: not
    /// to be read on from).
    boundary: u64,
    /// The checksums of the first and the last [`EDGE`] bytes before
    /// `boundary`.
    head_sum: u64,
    tail_sum: u64,
    /// Where a sample of [`EDGE`] bytes from the middle of what was read
    /// starts ([`NOT_RESUMABLE`]: none, the ends cover it all), and its
    /// checksum.
    mid_at: u64,
    mid_sum: u64,
    /// Whether prompts were counted.
    prompts: bool,
}

/// A 64-bit checksum (not a defence against anyone: against a torn write
/// or a changed file).
pub(crate) fn checksum(b: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ (b.len() as u64).wrapping_mul(K);
    let mut words = b.chunks_exact(8);
    for w in &mut words {
        let mut x = [0u8; 8];
        x.copy_from_slice(w);
        h = (h ^ u64::from_le_bytes(x)).wrapping_mul(K).rotate_left(31);
    }
    for &x in words.remainder() {
        h = (h ^ x as u64).wrapping_mul(K).rotate_left(31);
    }
    h ^ (h >> 29)
}

// ---- encoding

struct Out(Vec<u8>);

impl Out {
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn var(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.0.push(v as u8 | 0x80);
            v >>= 7;
        }
        self.0.push(v as u8);
    }
    fn ivar(&mut self, v: i64) {
        self.var(((v << 1) ^ (v >> 63)) as u64);
    }
    fn bytes(&mut self, b: &[u8]) {
        self.var(b.len() as u64);
        self.0.extend_from_slice(b);
    }
    fn opt_i64(&mut self, v: Option<i64>) {
        match v {
            Some(v) => {
                self.0.push(1);
                self.ivar(v);
            }
            None => self.0.push(0),
        }
    }
}

struct In<'a>(&'a [u8]);

impl<'a> In<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        Some(a)
    }
    fn u64(&mut self) -> Option<u64> {
        let mut x = [0u8; 8];
        x.copy_from_slice(self.take(8)?);
        Some(u64::from_le_bytes(x))
    }
    fn u32(&mut self) -> Option<u32> {
        let mut x = [0u8; 4];
        x.copy_from_slice(self.take(4)?);
        Some(u32::from_le_bytes(x))
    }
    fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }
    fn var(&mut self) -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.u8()?;
            v |= ((b & 0x7f) as u64).checked_shl(shift)?;
            if b & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    }
    fn ivar(&mut self) -> Option<i64> {
        let v = self.var()?;
        Some((v >> 1) as i64 ^ -((v & 1) as i64))
    }
    fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = usize::try_from(self.var()?).ok()?;
        self.take(n)
    }
    fn string(&mut self) -> Option<String> {
        std::str::from_utf8(self.bytes()?).ok().map(str::to_owned)
    }
    fn opt_i64(&mut self) -> Option<Option<i64>> {
        match self.u8()? {
            0 => Some(None),
            1 => Some(Some(self.ivar()?)),
            _ => None,
        }
    }
}

fn encode(h: &Head, u: &FileUsage) -> Box<[u8]> {
    let mut o = Out(Vec::with_capacity(96 + u.messages.len() * 96));
    let k = &h.key;
    for v in [k.dev, k.ino, k.size] {
        o.u64(v);
    }
    for v in [k.mtime, k.mtime_ns, k.ctime, k.ctime_ns, h.read_at] {
        o.u64(v as u64);
    }
    for v in [h.boundary, h.head_sum, h.tail_sum, h.mid_at, h.mid_sum] {
        o.u64(v);
    }
    o.0.push(h.prompts as u8);
    o.var(u.prompts);
    match &u.cwd {
        Some(c) => {
            o.0.push(1);
            o.bytes(c.as_bytes());
        }
        None => o.0.push(0),
    }
    o.opt_i64(u.first);
    o.opt_i64(u.last);
    // the models once each, then each message's model by its number
    let mut models: Vec<&str> = Vec::new();
    for m in &u.messages {
        if !models.contains(&m.model.as_str()) {
            models.push(&m.model);
        }
    }
    o.var(models.len() as u64);
    for m in &models {
        o.bytes(m.as_bytes());
    }
    o.var(u.messages.len() as u64);
    for m in &u.messages {
        o.bytes(m.key.as_bytes());
        o.var(models.iter().position(|x| *x == m.model).unwrap_or(0) as u64);
        let t = &m.tokens;
        for v in [t.input, t.output, t.cache_write, t.cache_read] {
            o.var(v);
        }
        o.opt_i64(m.at);
    }
    o.0.into_boxed_slice()
}

/// The fixed part of a record; the rest (the usage) is after it.
const HEAD_LEN: usize = 13 * 8 + 1;

fn decode_head(b: &[u8]) -> Option<Head> {
    let mut i = In(b);
    let (dev, ino, size) = (i.u64()?, i.u64()?, i.u64()?);
    let mut s = [0i64; 5];
    for v in &mut s {
        *v = i.u64()? as i64;
    }
    let (boundary, head_sum, tail_sum) = (i.u64()?, i.u64()?, i.u64()?);
    let (mid_at, mid_sum) = (i.u64()?, i.u64()?);
    let prompts = match i.u8()? {
        0 => false,
        1 => true,
        _ => return None,
    };
    Some(Head {
        key: Key {
            dev,
            ino,
            size,
            mtime: s[0],
            mtime_ns: s[1],
            ctime: s[2],
            ctime_ns: s[3],
        },
        read_at: s[4],
        boundary,
        head_sum,
        tail_sum,
        mid_at,
        mid_sum,
        prompts,
    })
}

fn decode_usage(b: &[u8]) -> Option<FileUsage> {
    let mut i = In(b.get(HEAD_LEN..)?);
    let mut u = FileUsage {
        prompts: i.var()?,
        ..FileUsage::default()
    };
    u.cwd = match i.u8()? {
        0 => None,
        1 => Some(i.string()?),
        _ => return None,
    };
    u.first = i.opt_i64()?;
    u.last = i.opt_i64()?;
    let n = usize::try_from(i.var()?).ok()?;
    let mut models = Vec::with_capacity(n.min(1024));
    for _ in 0..n {
        models.push(i.string()?);
    }
    let n = usize::try_from(i.var()?).ok()?;
    // each message takes at least 8 bytes: a count past that is damage
    if n > i.0.len() / 8 {
        return None;
    }
    u.messages.reserve(n);
    for _ in 0..n {
        let key = i.string()?;
        let model = models.get(usize::try_from(i.var()?).ok()?)?.clone();
        let tokens = Tokens {
            input: i.var()?,
            output: i.var()?,
            cache_write: i.var()?,
            cache_read: i.var()?,
        };
        let at = i.opt_i64()?;
        u.messages.push(MessageUsage {
            key,
            model,
            tokens,
            at,
        });
    }
    i.0.is_empty().then_some(u)
}

// ---- the file

/// The records of an index file's bytes; `None` if it is not one whole.
fn parse(data: &[u8]) -> Option<Map> {
    let body = data.strip_prefix(MAGIC.as_slice())?;
    let mut i = In(body);
    if i.u32()? != VERSION {
        return None;
    }
    let records_at = data.len() - i.0.len();
    let trailer_at = data.len().checked_sub(16)?;
    if trailer_at < records_at {
        return None;
    }
    let mut t = In(&data[trailer_at..]);
    let (count, sum) = (t.u64()?, t.u64()?);
    if checksum(&data[..trailer_at]) != sum {
        return None;
    }
    let mut i = In(&data[records_at..trailer_at]);
    let mut map = Map::with_capacity(usize::try_from(count).ok()?.min(1 << 20));
    while !i.0.is_empty() {
        let path = i.bytes()?;
        let rec = i.bytes()?;
        decode_head(rec)?;
        map.insert(path.into(), rec.into());
    }
    (map.len() as u64 == count).then_some(map)
}

fn serialize(map: &Map) -> Vec<u8> {
    let size: usize = map.iter().map(|(p, r)| p.len() + r.len() + 8).sum();
    let mut o = Out(Vec::with_capacity(size + 64));
    o.0.extend_from_slice(MAGIC);
    o.0.extend_from_slice(&VERSION.to_le_bytes());
    for (p, r) in map {
        o.bytes(p);
        o.bytes(r);
    }
    let sum = checksum(&o.0);
    o.u64(map.len() as u64);
    o.u64(sum);
    o.0
}

/// The index at `file`, or an empty one when it cannot be used: not
/// there, a link, not a regular file, not the user's own or writable by
/// others, too big, or not a whole index.
fn load(file: &Path) -> Map {
    let Ok(f) = super::open::open_nofollow(file) else {
        return Map::new();
    };
    let Ok(m) = f.metadata() else {
        return Map::new();
    };
    // SAFETY: geteuid has no preconditions.
    let me = unsafe { libc::geteuid() };
    if !m.is_file() || m.len() > MAX_INDEX || m.uid() != me || m.mode() & 0o022 != 0 {
        return Map::new();
    }
    let mut data = Vec::with_capacity(m.len() as usize);
    if f.take(MAX_INDEX + 1).read_to_end(&mut data).is_err() || data.len() as u64 > MAX_INDEX {
        return Map::new();
    }
    parse(&data).unwrap_or_default()
}

/// Write `map` to `file`: a temporary file beside it, then a rename.
fn save(file: &Path, map: &Map) -> std::io::Result<()> {
    let dir = file
        .parent()
        .ok_or_else(|| std::io::Error::other("no folder"))?;
    if !dir.is_dir() {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
    }
    sweep(dir);
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let tmp = dir.join(format!(
        ".{FILE_NAME}.{}.{nanos}.{n}.tmp",
        std::process::id()
    ));
    let data = serialize(map);
    if data.len() as u64 > MAX_INDEX {
        return Err(std::io::Error::other("the index would be too big"));
    }
    let written = (|| {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&tmp)?;
        f.write_all(&data)?;
        // not flushed to disk first: a torn file after a crash fails its
        // checksum and is rebuilt, and a flush would cost each status line
        // a disk write
        std::fs::rename(&tmp, file)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// Remove the temporary files (`.usage-index.<pid>.<nanos>.<n>.tmp`) in
/// `dir` that a process left when it died while writing the index: of a
/// process that is gone, or more than an hour old (its process id may be
/// another's since). Another process's file that is being written is
/// left; nothing here fails.
fn sweep(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let prefix = format!(".{FILE_NAME}.");
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(rest) = name
            .to_str()
            .and_then(|n| n.strip_prefix(prefix.as_str()))
            .and_then(|n| n.strip_suffix(".tmp"))
        else {
            continue;
        };
        let pid = rest
            .split('.')
            .next()
            .and_then(|p| p.parse::<i32>().ok())
            .and_then(rustix::process::Pid::from_raw);
        // signal 0 only checks that the process exists
        let gone = pid.is_none_or(|pid| {
            rustix::process::test_kill_process(pid) == Err(rustix::io::Errno::SRCH)
        });
        let path = e.path();
        let old = || {
            std::fs::symlink_metadata(&path)
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| SystemTime::now().duration_since(t).ok())
                .is_some_and(|age| age.as_secs() > 3600)
        };
        if gone || old() {
            let _ = std::fs::remove_file(&path);
        }
    }
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
        let name: Box<[u8]> = path.as_os_str().as_bytes().into();
        Self::lock(&self.visited).push(name.clone());
        let rec = self
            .map()
            .get(&name)
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
            Self::lock(&self.fresh).push((name, new));
        }
        let mut usage = usage;
        if !prompts {
            usage.prompts = 0;
        }
        Ok(Indexed { usage, modified_ms })
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
        let t = Transcript::open(path)?;
        let key = Key::of(t.meta());
        let ms = modified_ms(t.meta());
        let (u, _) = super::usage::scan_usage(t, prompts, None, |_| {})?;
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
        #[cfg(test)]
        {
            let mut c = Self::lock(&self.counts);
            if carried.is_some() {
                c.1 += 1
            } else {
                c.0 += 1
            }
        }
        // the middle sample, taken before the read (a change after it only
        // makes it not match next time)
        let mid = mid_sample(&file, key.size);
        let t = Transcript::from_parts(Box::new(file), meta, path);
        let (u, _) = super::usage::scan_usage(t, count_prompts, carried, |b| cap.block(from, b))?;
        let resumable = cap.contiguous && cap.boundary == cap.next;
        let (mid_at, mid_sum) = match mid {
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
            head_sum: checksum(&cap.head[..cap.head.len().min(cap.boundary as usize)]),
            tail_sum: checksum(&cap.tail),
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
        let visited: HashSet<Box<[u8]>> = visited
            .into_inner()
            .unwrap_or_else(|p| p.into_inner())
            .into_iter()
            .collect();
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
        let scope = scope.map(|f| f());
        let gone: Vec<Box<[u8]>> = scope
            .as_ref()
            .map(|s| {
                base.map
                    .keys()
                    .filter(|k| !visited.contains(*k) && is_gone(k, s, &mut missing))
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
    if checksum(&head) != h.head_sum {
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
    if checksum(&tail) != h.tail_sum {
        return None;
    }
    if h.mid_at != NOT_RESUMABLE {
        let mut mid = vec![0u8; EDGE];
        file.read_exact_at(&mut mid, h.mid_at).ok()?;
        if h.mid_at.checked_add(EDGE as u64)? > b || checksum(&mid) != h.mid_sum {
            return None;
        }
    }
    Some((head, tail))
}

/// Where the middle sample of a file of `size` bytes starts, and the
/// checksum of its [`EDGE`] bytes; `None` for a file whose first and last
/// [`EDGE`] bytes leave less than that between them.
fn mid_sample(file: &File, size: u64) -> Option<(u64, u64)> {
    let e = EDGE as u64;
    if size < 3 * e {
        return None;
    }
    let at = size / 2 - e / 2;
    let mut mid = vec![0u8; EDGE];
    file.read_exact_at(&mut mid, at).ok()?;
    Some((at, checksum(&mid)))
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
}

impl Capture {
    fn seeded(at: u64, head: Vec<u8>, tail: Vec<u8>) -> Capture {
        Capture {
            head,
            tail,
            boundary: at,
            next: at,
            contiguous: true,
        }
    }

    /// Take in a block read from `from` + its offset.
    fn block(&mut self, from: u64, b: Block<'_>) {
        let at = from + b.offset;
        if at != self.next {
            self.contiguous = false;
        }
        let bytes = b.bytes;
        self.next = at + bytes.len() as u64;
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
mod tests;
