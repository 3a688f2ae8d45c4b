//! The archive: transcripts kept past the CLI's cleanup, compressed.
//!
//! The CLI deletes transcripts older than `cleanupPeriodDays` (30 by
//! default) when it starts. [`Store::archive_to`] copies every transcript,
//! and the sub-agent folder beside it, into an archive folder laid out as
//! `projects/` is:
//!
//! ```text
//! <archive>/<project-folder>/<session>.jsonl.zst
//! <archive>/<project-folder>/<session>/subagents/agent-<id>.jsonl.zst
//! <archive>/<project-folder>/<session>/subagents/agent-<id>.meta.json
//! ```
//!
//! Each `.zst` file is zstd; its first frame is a skippable one holding the
//! original's size and modification time, so that an unchanged file is
//! skipped. A file is written under a temporary name and renamed into
//! place: a run that is stopped leaves the archive as it was. A transcript
//! being written (its last line unfinished, or its size or time changed
//! while it was copied) is left for a later run. The CLI's files are only
//! read, through the store's safe opener (no link, FIFO or device).
//!
//! [`Store::with_archive`] reads an archive beside the live store.

use super::error::{io_err, StoreError, StoreResult};
use super::ids::is_uuid;
use super::list::{parallel_map, project_folders, Skipped};
use super::open::{open_regular, read_small, PACKED_EXT};
use super::packed::{Header, HEADER_LEN};
use super::subagents::valid_agent_id;
use super::{SessionFile, SkipReason, Store};
use serde::Serialize;
use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, Write};
use std::os::unix::fs::{DirBuilderExt, FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::SystemTime;

/// The zstd level: fast, and about 8 times smaller for transcripts.
const LEVEL: i32 = 3;

/// A sub-agent's `.meta.json` larger than this is not archived.
const MAX_META: u64 = 1 << 20;

/// A temporary file of a stopped run, older than this, is removed.
const STALE_SECS: u64 = 3600;

/// How to archive.
///
/// ```
/// use claudio::store::ArchiveOptions;
/// let background = ArchiveOptions::default().threads(1);
/// ```
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct ArchiveOptions {
    /// Files compressed at once (default: the cores, at most 8).
    pub threads: usize,
}

impl Default for ArchiveOptions {
    fn default() -> Self {
        ArchiveOptions {
            threads: std::thread::available_parallelism().map_or(2, |n| n.get().min(8)),
        }
    }
}

impl ArchiveOptions {
    /// Compress this many files at once (at least one).
    pub fn threads(mut self, n: usize) -> ArchiveOptions {
        self.threads = n.max(1);
        self
    }
}

/// What a run of [`Store::archive_to`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ArchiveSummary {
    /// Files copied into the archive (new or changed).
    pub archived: usize,
    /// Files already in the archive as they are now.
    pub unchanged: usize,
    /// Files still being written (an unfinished last line, or changed while
    /// they were read): left for a later run.
    pub busy: usize,
    /// Bytes read from the store for the files archived.
    pub bytes_in: u64,
    /// Bytes written to the archive for them.
    pub bytes_out: u64,
    /// Files that could not be read or written, and why.
    #[serde(serialize_with = "skipped_as_strings")]
    pub failed: Vec<Skipped>,
}

fn skipped_as_strings<S: serde::Serializer>(v: &[Skipped], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq;
    let mut seq = s.serialize_seq(Some(v.len()))?;
    for k in v {
        seq.serialize_element(&serde_json::json!({
            "path": k.path.to_string_lossy(),
            "reason": k.reason.to_string(),
        }))?;
    }
    seq.end()
}

/// One file to copy.
struct Job {
    src: PathBuf,
    dst: PathBuf,
    /// Compressed (a transcript), or copied as it is (a `.meta.json`).
    packed: bool,
}

enum Copied {
    Archived { bytes_in: u64, bytes_out: u64 },
    Unchanged,
    Busy,
}

impl Store {
    /// Copy every transcript of this store, and its sub-agents, into the
    /// archive folder `archive` (created if missing); files already there
    /// unchanged are skipped. `stop`, once set, ends the run between two
    /// files (what was copied is kept, whole).
    ///
    /// ```no_run
    /// use claudio::store::{ArchiveOptions, Store};
    /// use std::sync::atomic::AtomicBool;
    /// let store = Store::from_env()?;
    /// let done = store.archive_to("/backup/claude", ArchiveOptions::default(), &AtomicBool::new(false))?;
    /// println!("{} archived, {} unchanged", done.archived, done.unchanged);
    /// # Ok::<(), claudio::store::StoreError>(())
    /// ```
    pub fn archive_to(
        &self,
        archive: impl AsRef<Path>,
        opts: ArchiveOptions,
        stop: &AtomicBool,
    ) -> StoreResult<ArchiveSummary> {
        let archive = archive.as_ref();
        let mut summary = ArchiveSummary::default();
        let mut jobs = Vec::new();
        for folder in project_folders(&self.projects_dir())? {
            let Some(name) = folder.file_name() else {
                continue;
            };
            let into = archive.join(name);
            match std::fs::read_dir(&folder) {
                Ok(rd) => {
                    for e in rd.flatten() {
                        jobs_of_entry(&e, &folder, &into, &mut jobs);
                    }
                }
                Err(e) => summary.failed.push(Skipped {
                    path: folder.clone(),
                    reason: SkipReason::Unreadable(e.to_string()),
                }),
            }
        }
        clean_stale(archive, &jobs);
        let results = if opts.threads <= 1 {
            jobs.iter().map(|j| run_job(j, stop)).collect()
        } else {
            parallel_map(&jobs, |j| run_job(j, stop))
        };
        for (job, r) in jobs.iter().zip(results) {
            match r {
                Ok(Some(Copied::Archived {
                    bytes_in,
                    bytes_out,
                })) => {
                    summary.archived += 1;
                    summary.bytes_in += bytes_in;
                    summary.bytes_out += bytes_out;
                }
                Ok(Some(Copied::Unchanged)) => summary.unchanged += 1,
                Ok(Some(Copied::Busy)) => summary.busy += 1,
                Ok(None) => {}
                Err(e) => summary.failed.push(Skipped {
                    path: job.src.clone(),
                    reason: SkipReason::Unreadable(reason_of(&e)),
                }),
            }
        }
        Ok(summary)
    }

    /// Bring an archived session back into the store (its transcript and
    /// sub-agents, decompressed into its project folder), so that the CLI
    /// can resume it. A session still in the store is left as it is.
    /// Returns the live transcript. The restored files are dated now, not
    /// when they were last written: the CLI's next cleanup would otherwise
    /// delete one older than its `cleanupPeriodDays` again.
    ///
    /// ```no_run
    /// let store = claudio::store::Store::from_env()?.with_archive("/backup/claude");
    /// let file = store.restore("b55ade39")?;
    /// println!("{} is back at {}", file.id, file.path.display());
    /// # Ok::<(), claudio::store::StoreError>(())
    /// ```
    pub fn restore(&self, id: &str) -> StoreResult<SessionFile> {
        let file = self.find(id)?;
        let Some(packed) = file.path.to_str().and_then(|p| p.strip_suffix(PACKED_EXT)) else {
            return Ok(file); // in the store
        };
        let folder = file
            .path
            .parent()
            .and_then(Path::file_name)
            .ok_or_else(|| StoreError::NotFound(file.id.clone()))?;
        let live_folder = self.projects_dir().join(folder);
        let dst = live_folder.join(format!("{}.jsonl", file.id));
        make_real_dir(&live_folder)?;
        unpack_to(&file.path, &dst)?;
        let side = PathBuf::from(packed).join("subagents");
        if std::fs::symlink_metadata(&side).is_ok_and(|m| m.is_dir()) {
            let into = live_folder.join(&file.id).join("subagents");
            make_real_dir(&live_folder.join(&file.id))?;
            make_real_dir(&into)?;
            for e in std::fs::read_dir(&side).map_err(io_err(&side))?.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if !name.starts_with("agent-") || !e.file_type().is_ok_and(|t| t.is_file()) {
                    continue;
                }
                if let Some(stem) = name.strip_suffix(PACKED_EXT) {
                    unpack_to(&e.path(), &into.join(format!("{stem}.jsonl")))?;
                } else if name.ends_with(".meta.json") {
                    let bytes = read_small(&e.path(), MAX_META)?;
                    write_new(&into.join(&name), None, |f| f.write_all(&bytes))?;
                }
            }
        }
        Ok(SessionFile {
            id: file.id,
            path: dst,
        })
    }
}

/// The jobs for one entry of a project folder: a transcript, or a session's
/// folder with its sub-agents.
fn jobs_of_entry(e: &std::fs::DirEntry, folder: &Path, into: &Path, jobs: &mut Vec<Job>) {
    let name = e.file_name();
    let Some(name) = name.to_str() else { return };
    if let Some(id) = name.strip_suffix(".jsonl") {
        if is_uuid(id) {
            jobs.push(Job {
                src: e.path(),
                dst: into.join(format!("{id}{PACKED_EXT}")),
                packed: true,
            });
        }
        return;
    }
    // a session's folder (never a link to one)
    if !is_uuid(name) || !e.file_type().is_ok_and(|t| t.is_dir()) {
        return;
    }
    let dir = folder.join(name).join("subagents");
    if !std::fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir()) {
        return;
    }
    let Ok(rd) = std::fs::read_dir(&dir) else {
        return;
    };
    let out = into.join(name).join("subagents");
    for a in rd.flatten() {
        let an = a.file_name();
        let Some(an) = an.to_str() else { continue };
        let Some(rest) = an.strip_prefix("agent-") else {
            continue;
        };
        if let Some(agent) = rest.strip_suffix(".jsonl") {
            if valid_agent_id(agent) {
                jobs.push(Job {
                    src: a.path(),
                    dst: out.join(format!("agent-{agent}{PACKED_EXT}")),
                    packed: true,
                });
            }
        } else if let Some(agent) = rest.strip_suffix(".meta.json") {
            if valid_agent_id(agent) {
                jobs.push(Job {
                    src: a.path(),
                    dst: out.join(an),
                    packed: false,
                });
            }
        }
    }
}

fn reason_of(e: &StoreError) -> String {
    use std::error::Error as _;
    match e.source() {
        Some(s) => format!("{e}: {s}"),
        None => e.to_string(),
    }
}

fn run_job(job: &Job, stop: &AtomicBool) -> StoreResult<Option<Copied>> {
    if stop.load(Ordering::Relaxed) {
        return Ok(None);
    }
    if let Some(parent) = job.dst.parent() {
        make_dir(parent)?;
    }
    if job.packed {
        pack(&job.src, &job.dst).map(Some)
    } else {
        copy_plain(&job.src, &job.dst).map(Some)
    }
}

fn make_dir(dir: &Path) -> StoreResult<()> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(io_err(dir))
}

/// Make a folder of the store, never writing through a link: one that is
/// a link or not a folder is [`StoreError::NotAFile`].
fn make_real_dir(dir: &Path) -> StoreResult<()> {
    match std::fs::symlink_metadata(dir) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(StoreError::NotAFile(dir.to_path_buf())),
        Err(_) => make_dir(dir),
    }
}

/// The size and time of a file as archived: from the header of a packed
/// one, else from the file itself.
fn archived_as(dst: &Path, packed: bool) -> Option<(u64, SystemTime)> {
    let f = super::headtail::open_nofollow(dst).ok()?;
    if packed {
        let h = Header::read(&f).ok()??;
        Some((h.size, h.mtime))
    } else {
        let m = f.metadata().ok()?;
        Some((m.len(), m.modified().ok()?))
    }
}

/// Compress one transcript into the archive.
fn pack(src: &Path, dst: &Path) -> StoreResult<Copied> {
    let (file, meta) = open_regular(src)?;
    let size = meta.len();
    let mtime = meta.modified().map_err(io_err(src))?;
    if archived_as(dst, true) == Some((size, mtime)) {
        return Ok(Copied::Unchanged);
    }
    if size == 0 {
        return Ok(Copied::Busy); // just created
    }
    let mut last = [0u8];
    file.read_exact_at(&mut last, size - 1)
        .map_err(io_err(src))?;
    if last[0] != b'\n' {
        return Ok(Copied::Busy); // a line is being written
    }
    // the last 64 KiB in a frame of their own, for listings
    let ends = super::headtail::HEAD_TAIL_BYTES as u64;
    let parts = if size > 2 * ends {
        vec![size - ends, ends]
    } else {
        vec![size]
    };
    let mut header = Header {
        size,
        mtime,
        tail_at: 0,
        tail_from: 0,
    };
    let mut whole = true;
    let written = write_new(dst, Some(mtime), |out| {
        let mut w = BufWriter::with_capacity(1 << 16, &mut *out);
        w.write_all(&[0u8; HEADER_LEN])?;
        let mut reader = &file;
        let mut w = (w, 0);
        for (i, len) in parts.iter().enumerate() {
            if i == 1 {
                header.tail_at = w.0.stream_position()?;
                header.tail_from = size - ends;
            }
            w = compress(&mut reader, *len, w.0)?;
            whole &= w.1 == *len;
        }
        w.0.flush()?;
        drop(w);
        // the file must not have changed while it was read
        let now = file.metadata()?;
        whole &= now.len() == size && now.modified()? == mtime;
        if !whole {
            return Err(io::Error::other(Busy));
        }
        out.write_all_at(&header.to_bytes(), 0)
    });
    match written {
        Ok(bytes_out) => Ok(Copied::Archived {
            bytes_in: size,
            bytes_out,
        }),
        Err(StoreError::Io { source, .. }) if source.get_ref().is_some_and(|e| e.is::<Busy>()) => {
            Ok(Copied::Busy)
        }
        Err(e) => Err(e),
    }
}

/// Raised inside a write to give it up: the source changed.
#[derive(Debug)]
struct Busy;

impl std::fmt::Display for Busy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the file changed while it was read")
    }
}

impl std::error::Error for Busy {}

/// Compress `len` bytes of `src` as one zstd frame onto `out`; gives `out`
/// back with the number of bytes read.
fn compress<W: Write>(src: &mut impl Read, len: u64, out: W) -> io::Result<(W, u64)> {
    let mut enc = zstd::stream::write::Encoder::new(out, LEVEL)?;
    enc.set_pledged_src_size(Some(len))?;
    enc.include_contentsize(true)?;
    let n = io::copy(&mut src.take(len), &mut enc)?;
    if n != len {
        // shorter than it was: the frame cannot be finished as pledged
        return Err(io::Error::other(Busy));
    }
    Ok((enc.finish()?, n))
}

/// Copy a small side file as it is.
fn copy_plain(src: &Path, dst: &Path) -> StoreResult<Copied> {
    let (_, meta) = open_regular(src)?;
    let mtime = meta.modified().map_err(io_err(src))?;
    if archived_as(dst, false) == Some((meta.len(), mtime)) {
        return Ok(Copied::Unchanged);
    }
    let bytes = read_small(src, MAX_META)?;
    let out = write_new(dst, Some(mtime), |f| f.write_all(&bytes))?;
    Ok(Copied::Archived {
        bytes_in: bytes.len() as u64,
        bytes_out: out,
    })
}

/// Decompress an archived file to `dst`; one already there is kept.
fn unpack_to(src: &Path, dst: &Path) -> StoreResult<()> {
    if std::fs::symlink_metadata(dst).is_ok() {
        return Ok(());
    }
    let (mut data, _) = super::packed::stream(src).map_err(io_err(src))?;
    write_new(dst, None, |out| io::copy(&mut data, out).map(|_| ()))?;
    Ok(())
}

static TMP_SEQ: AtomicU64 = AtomicU64::new(0);

fn tmp_name(dst: &Path) -> PathBuf {
    let name = dst
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    dst.with_file_name(format!(
        ".{name}.{}-{}.tmp",
        std::process::id(),
        TMP_SEQ.fetch_add(1, Ordering::Relaxed)
    ))
}

/// Write a file under a temporary name beside `dst`, give it `mtime`, and
/// rename it into place (replacing `dst`). Returns its size.
fn write_new(
    dst: &Path,
    mtime: Option<SystemTime>,
    fill: impl FnOnce(&mut File) -> io::Result<()>,
) -> StoreResult<u64> {
    let tmp = tmp_name(dst);
    let result = (|| {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .read(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&tmp)?;
        fill(&mut f)?;
        if let Some(t) = mtime {
            f.set_modified(t)?;
        }
        let len = f.metadata()?.len();
        drop(f);
        std::fs::rename(&tmp, dst)?;
        Ok(len)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(io_err(dst))
}

/// Remove the temporary files a stopped run left in the folders written to.
fn clean_stale(archive: &Path, jobs: &[Job]) {
    let mut dirs: Vec<&Path> = jobs.iter().filter_map(|j| j.dst.parent()).collect();
    dirs.sort();
    dirs.dedup();
    let now = SystemTime::now();
    for d in dirs.into_iter().filter(|d| d.starts_with(archive)) {
        let Ok(rd) = std::fs::read_dir(d) else {
            continue;
        };
        for e in rd.flatten() {
            let n = e.file_name();
            let n = n.to_string_lossy();
            if !(n.starts_with('.') && n.ends_with(".tmp")) {
                continue;
            }
            let old = e
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| now.duration_since(t).ok())
                .is_some_and(|age| age.as_secs() > STALE_SECS);
            if old && e.file_type().is_ok_and(|t| t.is_file()) {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::ListOptions;

    const ID: &str = "2f0e5c0a-1111-4222-8333-444455556666";

    fn line(i: usize, pad: usize) -> String {
        format!(
            "{{\"type\":\"user\",\"uuid\":\"u{i}\",\"parentUuid\":null,\"sessionId\":\"{ID}\",\"cwd\":\"/w\",\"timestamp\":\"2026-01-01T00:00:00Z\",\"message\":{{\"role\":\"user\",\"content\":\"prompt {i} {}\"}}}}\n",
            "x".repeat(pad)
        )
    }

    fn store_with(text: &str) -> (tempfile::TempDir, Store, PathBuf) {
        let d = tempfile::tempdir().unwrap();
        let folder = d.path().join("cfg/projects/-w");
        std::fs::create_dir_all(&folder).unwrap();
        let path = folder.join(format!("{ID}.jsonl"));
        std::fs::write(&path, text).unwrap();
        let store = Store::new(d.path().join("cfg"));
        (d, store, path)
    }

    fn run(store: &Store, archive: &Path) -> ArchiveSummary {
        store
            .archive_to(archive, ArchiveOptions::default(), &AtomicBool::new(false))
            .unwrap()
    }

    #[test]
    fn big_and_small_transcripts_read_back_whole() {
        for pad in [10, 1500, 5000] {
            let text: String = (0..60).map(|i| line(i, pad)).collect();
            let (d, store, path) = store_with(&text);
            let archive = d.path().join("archive");
            let s = run(&store, &archive);
            assert_eq!((s.archived, s.bytes_in), (1, text.len() as u64));
            let packed = archive.join("-w").join(format!("{ID}{PACKED_EXT}"));
            let (mut r, _) = super::super::packed::stream(&packed).unwrap();
            let mut back = String::new();
            r.read_to_string(&mut back).unwrap();
            assert_eq!(back, text);
            let ht = super::super::packed::head_tail(&packed).unwrap().unwrap();
            let live = super::super::open::read_head_tail(&path).unwrap().unwrap();
            assert_eq!(
                (ht.head, ht.tail, ht.size),
                (live.head, live.tail, live.size)
            );
            assert_eq!(ht.modified, live.modified);
            // unchanged: skipped
            let s = run(&store, &archive);
            assert_eq!((s.archived, s.unchanged), (0, 1));
        }
    }

    #[test]
    fn a_stopped_run_copies_nothing_more() {
        let (d, store, _) = store_with(&line(1, 3));
        let archive = d.path().join("archive");
        let s = store
            .archive_to(&archive, ArchiveOptions::default(), &AtomicBool::new(true))
            .unwrap();
        assert_eq!((s.archived, s.unchanged, s.busy), (0, 0, 0));
        assert!(!archive
            .join("-w")
            .join(format!("{ID}{PACKED_EXT}"))
            .exists());
        assert_eq!(run(&store, &archive).archived, 1);
    }

    #[test]
    fn an_unfinished_line_waits_for_a_later_run() {
        let mut text = line(1, 3);
        text.push_str("{\"type\":\"user\",\"mess");
        let (d, store, path) = store_with(&text);
        let archive = d.path().join("archive");
        let s = run(&store, &archive);
        assert_eq!((s.archived, s.busy), (0, 1));
        let folder = archive.join("-w");
        let names: Vec<_> = std::fs::read_dir(&folder)
            .map(|rd| rd.flatten().map(|e| e.file_name()).collect())
            .unwrap_or_default();
        assert!(names.is_empty(), "no file, no temporary left: {names:?}");
        // finished: archived
        std::fs::write(&path, format!("{}{}", line(1, 3), line(2, 3))).unwrap();
        assert_eq!(run(&store, &archive).archived, 1);
    }

    #[test]
    fn archived_sessions_are_listed_found_and_restored() {
        let text: String = (0..3).map(|i| line(i, 10)).collect();
        let (d, store, path) = store_with(&text);
        let archive = d.path().join("archive");
        run(&store, &archive);
        let store = store.with_archive(&archive);
        let listed = store.list(&ListOptions::all()).unwrap().sessions;
        assert_eq!(listed.len(), 1);
        assert!(!listed[0].from_archive, "the live copy is shown");
        std::fs::remove_file(&path).unwrap();
        let listed = store.list(&ListOptions::all()).unwrap().sessions;
        assert_eq!(listed.len(), 1);
        assert!(listed[0].from_archive);
        assert_eq!(listed[0].file_size, text.len() as u64);
        assert!(matches!(
            store.rename(ID, "x"),
            Err(StoreError::OnlyInArchive(_))
        ));
        // a project folder that is a link is not written through
        let folder = path.parent().unwrap();
        std::fs::rename(folder, d.path().join("moved")).unwrap();
        std::os::unix::fs::symlink(d.path().join("moved"), folder).unwrap();
        assert!(matches!(store.restore(ID), Err(StoreError::NotAFile(_))));
        std::fs::remove_file(folder).unwrap();
        std::fs::rename(d.path().join("moved"), folder).unwrap();
        let back = store.restore(&ID[..8]).unwrap();
        assert_eq!(back.path, path);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        assert!(!store.list(&ListOptions::all()).unwrap().sessions[0].from_archive);
    }
}
