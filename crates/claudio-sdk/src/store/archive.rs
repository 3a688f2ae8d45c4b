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
//! skipped. The transcript follows in frames of [`CHUNK`] bytes, its last
//! 64 KiB in a frame of their own; then another skippable frame, the usage
//! summary (see [`packed`](super::packed)): what a usage report reads
//! instead of decompressing the transcript. A file without one (written
//! before there were summaries) is written again by the next pass, or,
//! when the store no longer holds its transcript, given one in place by
//! a pass that has the archive to itself.
//!
//! A file is written under a temporary name and renamed into place: a run
//! that is stopped leaves the archive as it was. A pass that has the
//! archive to itself (it holds a lock on the folder) names that file after
//! the transcript (`.<name>.part`) and records in it, after each chunk, how
//! much it holds: a pass cut short (claudio's exit ends the background
//! one) is taken up by the next from its last chunk, and the next such
//! pass removes every other temporary file, which only a dead pass can have
//! left. A transcript being written (its last line unfinished, or its size
//! or time changed while it was copied) is left for a later run. A
//! transcript shorter than its archived copy never replaces it: transcripts
//! only grow, and the fuller copy is kept (and said). The CLI's files are
//! only read, through the store's safe opener (no link, FIFO or device).
//!
//! [`Store::with_archive`] reads an archive beside the live store.

use super::error::{io_err, StoreError, StoreResult};
use super::ids::is_uuid;
use super::list::{parallel_map, project_folders};
use super::open::{open_regular, read_small, PACKED_EXT};
use super::packed::{Header, HEADER_LEN};
use super::subagents::valid_agent_id;
use super::{SessionFile, Store};
use serde::Serialize;
use std::collections::HashSet;
use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::{DirBuilderExt, FileExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::SystemTime;

/// The zstd level: fast, and about 8 times smaller for transcripts.
const LEVEL: i32 = 3;

/// A sub-agent's `.meta.json` larger than this is not archived.
const MAX_META: u64 = 1 << 20;

/// A transcript is compressed in frames of this many bytes (but its last
/// 64 KiB): what a pass cut short loses at most, per file.
pub(crate) const CHUNK: u64 = 4 << 20;

/// The ending of the file a transcript is compressed into by a pass that
/// has the archive to itself.
const PART: &str = ".part";

/// What a partly written `.part` file starts with, in place of the header
/// it gets when it is finished.
const PART_TAG: &[u8; 8] = b"claudioP";

/// How to archive.
///
/// ```
/// use claudio::store::ArchiveOptions;
/// let background = ArchiveOptions::default().threads(1).if_alone(true);
/// ```
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct ArchiveOptions {
    /// Files compressed at once (default: the cores, at most 8).
    pub threads: usize,
    /// When another pass is writing the same archive: `false` (the
    /// default) runs beside it (each file is written whole, by whichever
    /// pass ends last); `true` does nothing, and
    /// [`ArchiveSummary::another_pass`] says so.
    pub if_alone: bool,
}

impl Default for ArchiveOptions {
    fn default() -> Self {
        ArchiveOptions {
            threads: std::thread::available_parallelism().map_or(2, |n| n.get().min(8)),
            if_alone: false,
        }
    }
}

impl ArchiveOptions {
    /// Compress this many files at once (at least one).
    pub fn threads(mut self, n: usize) -> ArchiveOptions {
        self.threads = n.max(1);
        self
    }

    /// Do nothing when another pass is writing the archive.
    pub fn if_alone(mut self, yes: bool) -> ArchiveOptions {
        self.if_alone = yes;
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
    /// Bytes read from the store for the files archived (by this run: a
    /// file taken up where a pass cut short left it counts what was left).
    pub bytes_in: u64,
    /// Bytes written to the archive for them.
    pub bytes_out: u64,
    /// Transcripts now shorter than their archived copy, or that no longer
    /// begin as it does (rewritten, not appended to: compared over the
    /// first 64 KiB). A transcript only grows, so such a one was cut or
    /// replaced: the archived copy, which holds what it lost, is kept, and
    /// the transcript is not archived (the reason says which).
    pub shorter: Vec<NotArchived>,
    /// Files (and project folders) that could not be read or written, and
    /// why.
    pub failed: Vec<NotArchived>,
    /// Another pass was writing the archive, and
    /// [`ArchiveOptions::if_alone`] asked to do nothing then.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub another_pass: bool,
}

/// A file that a run of [`Store::archive_to`] did not archive, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct NotArchived {
    /// The file (or project folder) in the store.
    pub path: PathBuf,
    /// Why, as a sentence to show: `cannot read it: …`, `cannot write
    /// FILE: …` (a file of the archive), `a link to a folder of another
    /// user …`.
    pub reason: String,
}

impl Serialize for NotArchived {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serde_json::json!({
            "path": self.path.to_string_lossy(),
            "reason": self.reason,
        })
        .serialize(s)
    }
}

/// One file to copy.
struct Job {
    src: PathBuf,
    dst: PathBuf,
    /// Compressed (a transcript), or copied as it is (a `.meta.json`).
    packed: bool,
}

#[derive(Debug, PartialEq, Eq)]
enum Copied {
    Archived {
        bytes_in: u64,
        bytes_out: u64,
    },
    Unchanged,
    Busy,
    /// The transcript has `size` bytes, its archived copy `archived`.
    Shorter {
        size: u64,
        archived: u64,
    },
    /// The transcript does not begin as its archived copy does: it was
    /// rewritten, not appended to, so the copy holds what it lost.
    Rewritten,
    /// The run was stopped in the middle of the file (what was compressed
    /// is kept when the pass has the archive to itself).
    Stopped,
}

/// How one run writes.
struct Pass<'a> {
    /// Whether to go on (checked before each file and after each chunk).
    go_on: &'a (dyn Fn() -> bool + Sync),
    /// The run holds the archive's lock: no other pass writes into it, so
    /// it writes `.part` files, taken up by the next such run.
    alone: bool,
    /// The `.part` files found when the run started.
    parts: HashSet<PathBuf>,
}

impl Store {
    /// Copy every transcript of this store, and its sub-agents, into the
    /// archive folder `archive` (created if missing); files already there
    /// unchanged are skipped, and a transcript shorter than its archived
    /// copy never replaces it ([`ArchiveSummary::shorter`]). `stop`, once
    /// set, ends the run before the next file, or after the chunk being
    /// compressed of a big one: what was compressed is kept, and the next
    /// run goes on from it.
    ///
    /// A project folder that is a link is followed when its target is a
    /// folder of the person's own (owned by the user the program runs
    /// as); another is named in [`ArchiveSummary::failed`].
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
        self.archive_until(archive.as_ref(), opts, stop)
    }

    /// [`archive_to`](Self::archive_to) run to its end: a one-off run
    /// needs no flag to stop it.
    ///
    /// ```no_run
    /// use claudio::store::{ArchiveOptions, Store};
    /// let store = Store::from_env()?;
    /// let done = store.archive("/backup/claude", ArchiveOptions::default())?;
    /// println!("{} archived", done.archived);
    /// # Ok::<(), claudio::store::StoreError>(())
    /// ```
    pub fn archive(
        &self,
        archive: impl AsRef<Path>,
        opts: ArchiveOptions,
    ) -> StoreResult<ArchiveSummary> {
        self.archive_until(archive.as_ref(), opts, &AtomicBool::new(false))
    }

    fn archive_until(
        &self,
        archive: &Path,
        opts: ArchiveOptions,
        stop: &AtomicBool,
    ) -> StoreResult<ArchiveSummary> {
        let mut summary = ArchiveSummary::default();
        let (folders, links) = project_folders(&self.projects_dir())?;
        for (path, reason) in links {
            summary.failed.push(NotArchived { path, reason });
        }
        let mut jobs = Vec::new();
        for folder in folders {
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
                Err(e) => summary.failed.push(NotArchived {
                    path: folder.clone(),
                    reason: format!("cannot read the folder: {e}"),
                }),
            }
        }
        make_dir(archive)?;
        // held to the end of the run; the system releases it however the
        // process ends
        let lock = lock_alone(archive);
        if lock.is_none() && opts.if_alone {
            summary.another_pass = true;
            return Ok(summary);
        }
        let go_on = || !stop.load(Ordering::Relaxed);
        let pass = Pass {
            go_on: &go_on,
            alone: lock.is_some(),
            parts: if lock.is_some() {
                clean_dead(archive, &jobs)
            } else {
                HashSet::new()
            },
        };
        let results = if opts.threads <= 1 {
            jobs.iter().map(|j| run_job(j, &pass)).collect()
        } else {
            parallel_map(&jobs, |j| run_job(j, &pass))
        };
        // archived copies kept in place of their transcripts
        let mut kept: HashSet<&Path> = HashSet::new();
        for (job, r) in jobs.iter().zip(results) {
            if matches!(r, Ok(Copied::Shorter { .. } | Copied::Rewritten)) {
                kept.insert(job.dst.as_path());
            }
            match r {
                Ok(Copied::Archived {
                    bytes_in,
                    bytes_out,
                }) => {
                    summary.archived += 1;
                    summary.bytes_in += bytes_in;
                    summary.bytes_out += bytes_out;
                }
                Ok(Copied::Unchanged) => summary.unchanged += 1,
                Ok(Copied::Busy) => summary.busy += 1,
                Ok(Copied::Shorter { size, archived }) => summary.shorter.push(NotArchived {
                    path: job.src.clone(),
                    reason: format!(
                        "{size} bytes, shorter than its archived copy ({archived} bytes), which is kept"
                    ),
                }),
                Ok(Copied::Rewritten) => summary.shorter.push(NotArchived {
                    path: job.src.clone(),
                    reason: "rewritten: it no longer begins as its archived copy does, which is kept"
                        .into(),
                }),
                Ok(Copied::Stopped) => {}
                Err(e) => summary.failed.push(NotArchived {
                    path: job.src.clone(),
                    reason: reason_of(job, &e),
                }),
            }
        }
        // the archived transcripts the store no longer holds (or holds
        // shorter), written before there were usage summaries: given one
        // in place
        if pass.alone && go_on() {
            let live: HashSet<&Path> = jobs
                .iter()
                .map(|j| j.dst.as_path())
                .filter(|d| !kept.contains(*d))
                .collect();
            let old: Vec<PathBuf> = packed_files(archive)
                .into_iter()
                .filter(|p| !live.contains(p.as_path()))
                .collect();
            let add = |p: &PathBuf| {
                if go_on() {
                    let _ = summarize_in_place(p);
                }
            };
            if opts.threads <= 1 {
                old.iter().for_each(add);
            } else {
                parallel_map(&old, add);
            }
        }
        drop(lock);
        Ok(summary)
    }

    /// Bring an archived session back into the store (its transcript and
    /// sub-agents, decompressed into its project folder), so that the CLI
    /// can resume it. A session still in the store is left as it is, and
    /// so is any file of it in the store, or written there while it is
    /// restored (the CLI resuming it, another restore): an archived copy
    /// never replaces one. A copy cut short (fewer bytes than it records)
    /// is an error, and nothing is restored from it; the transcript goes
    /// in last, so a restore that fails on a sub-agent's file leaves the
    /// session in the archive, to be restored again. Returns the live
    /// transcript. The restored files are dated now, not
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
        // what a restore killed before its end left in the store
        sweep_dead_tmps(&live_folder, &format!(".{}.jsonl.", file.id));
        sweep_dead_tmps(&live_folder.join(&file.id).join("subagents"), ".agent-");
        // the sub-agents first: the transcript in the store says the
        // session is back, so a restore that fails before it is done again
        // whole by the next, never taken for done with them missing
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
                    write_new(&into.join(&name), None, Put::Keep, |f| f.write_all(&bytes))?;
                }
            }
        }
        unpack_to(&file.path, &dst)?;
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

/// Why a job failed: reading the transcript, or writing the archive.
fn reason_of(job: &Job, e: &StoreError) -> String {
    use std::error::Error as _;
    match e {
        StoreError::Io { path, source } if *path == job.src => format!("cannot read it: {source}"),
        StoreError::Io { path, source } => {
            format!("cannot write {}: {source}", crate::error::shown(path))
        }
        other => match other.source() {
            Some(s) => format!("{other}: {s}"),
            None => other.to_string(),
        },
    }
}

fn run_job(job: &Job, pass: &Pass<'_>) -> StoreResult<Copied> {
    if !(pass.go_on)() {
        return Ok(Copied::Stopped);
    }
    if let Some(parent) = job.dst.parent() {
        make_dir(parent)?;
    }
    if job.packed {
        pack(&job.src, &job.dst, pass)
    } else {
        copy_plain(&job.src, &job.dst)
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

/// The archive folder, locked for this run when no other run holds it
/// (an exclusive `flock` on the folder itself: nothing is added to it).
fn lock_alone(archive: &Path) -> Option<File> {
    use rustix::fs::{flock, FlockOperation};
    let dir = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags((rustix::fs::OFlags::DIRECTORY | rustix::fs::OFlags::CLOEXEC).bits() as i32)
        .open(archive)
        .ok()?;
    // held until `dir` is dropped
    flock(&dir, FlockOperation::NonBlockingLockExclusive).ok()?;
    Some(dir)
}

/// The size and time of a file copied as it is into the archive.
fn archived_as(dst: &Path) -> Option<(u64, SystemTime)> {
    let m = super::open::open_nofollow(dst).ok()?.metadata().ok()?;
    Some((m.len(), m.modified().ok()?))
}

/// The size and time of a transcript as archived at `dst` (from its
/// header), and whether the file ends with a usage summary that matches
/// them (see [`super::packed::has_summary`]) and its grams frame before it.
fn packed_as(dst: &Path) -> Option<(u64, SystemTime, bool)> {
    let f = super::open::open_nofollow(dst).ok()?;
    let h = Header::read(&f).ok()??;
    let summarized = super::packed::has_summary(&f, &h) && super::packed_grams::has_grams(&f, &h);
    Some((h.size, h.mtime, summarized))
}

/// The `.part` file of `dst`.
fn part_name(dst: &Path) -> PathBuf {
    let name = dst
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    dst.with_file_name(format!(".{name}{PART}"))
}

/// The file a transcript is compressed into, before it is renamed into
/// place: the transcript's `.part` file when the pass has the archive to
/// itself (taken up where a pass cut short left it), else a file of this
/// run's own.
struct Partial {
    file: File,
    path: PathBuf,
    /// A `.part` file: kept when the run ends before it is finished.
    kept: bool,
    /// Which transcript it is of (its device and inode).
    of: (u64, u64),
    /// Bytes of the transcript its finished chunks hold.
    covered: u64,
    /// Where those chunks end in the file.
    end: u64,
}

impl Partial {
    /// Open the file to compress the first `body` bytes of the transcript
    /// `of` into: a `.part` file that holds some of them already is taken
    /// up from its last chunk.
    fn open(dst: &Path, pass: &Pass<'_>, of: (u64, u64), body: u64) -> StoreResult<Partial> {
        let (path, kept) = if pass.alone {
            (part_name(dst), true)
        } else {
            (tmp_name(dst), false)
        };
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(kept)
            .create_new(!kept)
            .truncate(false)
            .mode(0o600)
            .custom_flags(
                (rustix::fs::OFlags::NOFOLLOW
                    | rustix::fs::OFlags::NONBLOCK
                    | rustix::fs::OFlags::CLOEXEC)
                    .bits() as i32,
            )
            .open(&path)
            .map_err(io_err(&path))?;
        let meta = file.metadata().map_err(io_err(&path))?;
        if !meta.is_file() {
            return Err(StoreError::NotAFile(path));
        }
        let mut p = Partial {
            file,
            path,
            kept,
            of,
            covered: 0,
            end: HEADER_LEN as u64,
        };
        let mut b = [0u8; HEADER_LEN];
        let u = |b: &[u8; HEADER_LEN], at: usize| {
            u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
        };
        let resumed = kept
            && pass.parts.contains(&p.path)
            && p.file.read_exact_at(&mut b, 0).is_ok()
            && &b[0..8] == PART_TAG
            && (u(&b, 8), u(&b, 16)) == of
            && u(&b, 24) % CHUNK == 0
            && u(&b, 24) <= body
            && (HEADER_LEN as u64..=meta.len()).contains(&u(&b, 32));
        if resumed {
            (p.covered, p.end) = (u(&b, 24), u(&b, 32));
        }
        p.file.set_len(p.end).map_err(io_err(&p.path))?;
        if !resumed {
            p.record(0, HEADER_LEN as u64)?;
        }
        Ok(p)
    }

    /// Record that the file's first `end` bytes hold the transcript's first
    /// `covered` bytes, in whole chunks.
    fn record(&mut self, covered: u64, end: u64) -> StoreResult<()> {
        let mut b = [0u8; HEADER_LEN];
        b[0..8].copy_from_slice(PART_TAG);
        b[8..16].copy_from_slice(&self.of.0.to_le_bytes());
        b[16..24].copy_from_slice(&self.of.1.to_le_bytes());
        b[24..32].copy_from_slice(&covered.to_le_bytes());
        b[32..40].copy_from_slice(&end.to_le_bytes());
        self.file.write_all_at(&b, 0).map_err(io_err(&self.path))?;
        (self.covered, self.end) = (covered, end);
        Ok(())
    }

    /// Give the file up: a `.part` file is kept for the next run, unless
    /// `drop_part`; another is removed.
    fn give_up(self, drop_part: bool) {
        if !self.kept || drop_part {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// How much of a transcript's beginning is compared with its archived copy.
const SAME_HEAD: u64 = 64 * 1024;

/// Whether `file` begins as the archived copy `dst` (of `archived` bytes)
/// does, over its first 64 KiB. A copy that cannot be read says nothing
/// against it (`true`): a damaged copy may be replaced.
fn begins_alike(file: &std::fs::File, dst: &Path, archived: u64) -> bool {
    use std::io::Read;
    let n = archived.min(SAME_HEAD) as usize;
    let mut live = vec![0u8; n];
    if file.read_exact_at(&mut live, 0).is_err() {
        return true;
    }
    let Ok((stream, _)) = super::either::open_stream(dst) else {
        return true;
    };
    let mut kept = Vec::with_capacity(n);
    if stream.take(n as u64).read_to_end(&mut kept).is_err() || kept.len() != n {
        return true;
    }
    live == kept
}

/// Whether the chunks `out` holds decompress to the first bytes of the
/// transcript `src` (read as a stream, never whole).
fn part_holds_start(src: &File, out: &Partial) -> bool {
    let mut frames = &out.file;
    if frames.seek(SeekFrom::Start(HEADER_LEN as u64)).is_err() {
        return false;
    }
    let frames = frames.take(out.end - HEADER_LEN as u64);
    let Ok(held) = zstd::stream::read::Decoder::new(frames) else {
        return false;
    };
    let mut held = held.take(out.covered);
    let (mut a, mut b) = (vec![0u8; 1 << 16], vec![0u8; 1 << 16]);
    let mut pos = 0u64;
    while pos < out.covered {
        let n = match held.read(&mut a) {
            Ok(0) | Err(_) => return false,
            Ok(n) => n,
        };
        if src.read_exact_at(&mut b[..n], pos).is_err() || a[..n] != b[..n] {
            return false;
        }
        pos += n as u64;
    }
    true
}

/// Compress one transcript into the archive.
fn pack(src: &Path, dst: &Path, pass: &Pass<'_>) -> StoreResult<Copied> {
    let (file, meta) = open_regular(src)?;
    let size = meta.len();
    let mtime = meta.modified().map_err(io_err(src))?;
    let (before, summarized) = match packed_as(dst) {
        Some((size, mtime, summarized)) => (Some((size, mtime)), summarized),
        None => (None, false),
    };
    let stale_part = || {
        if pass.alone && pass.parts.contains(&part_name(dst)) {
            let _ = std::fs::remove_file(part_name(dst));
        }
    };
    // one written before archived files had a usage summary (or with one
    // of another format) is written again, with it
    if before == Some((size, mtime)) && summarized {
        stale_part();
        return Ok(Copied::Unchanged);
    }
    if let Some((archived, _)) = before.filter(|(archived, _)| size < *archived) {
        stale_part();
        return Ok(Copied::Shorter { size, archived });
    }
    // transcripts only grow: a longer one that begins otherwise was
    // rewritten, and replacing the copy would lose what it held
    if let Some((archived, _)) = before {
        if !begins_alike(&file, dst, archived) {
            stale_part();
            return Ok(Copied::Rewritten);
        }
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
    let body = if size > 2 * ends { size - ends } else { size };
    let mut out = Partial::open(dst, pass, (meta.dev(), meta.ino()), body)?;
    // a `.part` file holds the transcript's start as it was then: taken up
    // only while the transcript still begins so (one rewritten in place
    // since was archived half old, half new, its usage summary the new's)
    if out.covered > 0 && !part_holds_start(&file, &out) {
        out.file
            .set_len(HEADER_LEN as u64)
            .map_err(io_err(&out.path))?;
        out.record(0, HEADER_LEN as u64)?;
    }
    // where a pass cut short left it: what this run reads and writes
    let (resumed_from, resumed_at) = (out.covered, out.end - HEADER_LEN as u64);
    let done = compress_into(&file, src, &mut out, (size, mtime), body, pass);
    let header = match done {
        Ok(Some(h)) => h,
        Ok(None) => {
            out.give_up(false);
            return Ok(Copied::Stopped);
        }
        Err(Failed::Busy { shrank }) => {
            out.give_up(shrank);
            return Ok(Copied::Busy);
        }
        Err(Failed::Store(e)) => {
            out.give_up(false);
            return Err(e);
        }
    };
    // what the transcript records about usage, kept at the end of the
    // archived file: a usage report reads it instead of decompressing
    let usage = match usage_of_source(&file, &meta, src, size) {
        Ok(u) => u,
        Err(e) => {
            out.give_up(false);
            return Err(e);
        }
    };
    // what it may hold, kept before the summary: a search passes over a
    // file that cannot match without decompressing it
    let grams = match grams_of_source(&file, &meta, src, size) {
        Ok(g) => g,
        Err(e) => {
            out.give_up(false);
            return Err(e);
        }
    };
    // the file must not have changed while it was read
    let now = file.metadata().map_err(io_err(src))?;
    if now.len() != size || now.modified().ok() != Some(mtime) {
        let shrank = now.len() < out.covered;
        out.give_up(shrank);
        return Ok(Copied::Busy);
    }
    let finished = (|| {
        out.file.write_all_at(&header.to_bytes(), 0)?;
        // the grams, then the summary, tied to the frames before it
        // (header and grams included)
        let grams = super::packed_grams::grams_frame(&grams);
        let at = out.file.metadata()?.len();
        out.file.write_all_at(&grams, at)?;
        let data_end = at + grams.len() as u64;
        let sum = super::packed::checksum_of(&out.file, data_end)?;
        if let Some(frame) = super::packed::summary_frame(&header, data_end, sum, &usage) {
            out.file.write_all_at(&frame, data_end)?;
        }
        out.file.set_modified(mtime)?;
        let len = out.file.metadata()?.len();
        std::fs::rename(&out.path, dst)?;
        Ok(len)
    })();
    match finished {
        Ok(len) => Ok(Copied::Archived {
            bytes_in: size - resumed_from,
            bytes_out: len.saturating_sub(resumed_at),
        }),
        Err(e) => {
            // the finished header is in it: not one to take up
            let _ = std::fs::remove_file(&out.path);
            Err(io_err(dst)(e))
        }
    }
}

/// What the first `size` bytes of the transcript `file` record about
/// usage (prompts counted): what a full read of its archived copy gives.
fn usage_of_source(
    file: &File,
    meta: &std::fs::Metadata,
    src: &Path,
    size: u64,
) -> StoreResult<super::usage_types::FileUsage> {
    let mut from = file.try_clone().map_err(io_err(src))?;
    from.seek(SeekFrom::Start(0)).map_err(io_err(src))?;
    let t = super::lines::Transcript::from_parts(Box::new(from.take(size)), meta.clone(), src);
    super::usage::read_usage(t, true)
}

/// The grams filter of the first `size` bytes of the transcript `file`:
/// what a search of its archived copy may find.
fn grams_of_source(
    file: &File,
    meta: &std::fs::Metadata,
    src: &Path,
    size: u64,
) -> StoreResult<super::search::Grams> {
    let mut from = file.try_clone().map_err(io_err(src))?;
    from.seek(SeekFrom::Start(0)).map_err(io_err(src))?;
    let t = super::lines::Transcript::from_parts(Box::new(from.take(size)), meta.clone(), src);
    super::search::grams_of(t)
}

/// The archived transcripts of the archive folder `archive` (each
/// project's, and their sub-agents'); links are not followed.
fn packed_files(archive: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let dirs = |dir: &Path| -> Vec<std::fs::DirEntry> {
        std::fs::read_dir(dir)
            .map(|rd| rd.flatten().collect())
            .unwrap_or_default()
    };
    let is = |e: &std::fs::DirEntry, dir: bool| {
        e.file_type()
            .is_ok_and(|t| if dir { t.is_dir() } else { t.is_file() })
    };
    for project in dirs(archive).into_iter().filter(|e| is(e, true)) {
        for e in dirs(&project.path()) {
            let name = e.file_name();
            let name = name.to_string_lossy();
            if is(&e, false) && name.ends_with(PACKED_EXT) && !name.starts_with('.') {
                out.push(e.path());
            } else if is(&e, true) && is_uuid(&name) {
                let agents = e.path().join("subagents");
                for a in dirs(&agents) {
                    let n = a.file_name();
                    let n = n.to_string_lossy();
                    if is(&a, false) && n.starts_with("agent-") && n.ends_with(PACKED_EXT) {
                        out.push(a.path());
                    }
                }
            }
        }
    }
    out
}

/// Give an archived file without a usage summary (written before there
/// were summaries, its transcript since deleted from the store, or kept
/// in place of a shorter one) one: its
/// usage read from the file itself, decompressed whole, and appended as
/// its last frame; the file's time is kept. A file whose transcript comes
/// to fewer bytes than its header records (cut at a frame's end) gets
/// none. Appended, not written anew and renamed: a file deleted meanwhile
/// (`sessions delete --archived-too`) stays deleted; a reader meanwhile
/// sees no summary, or one whose checksums do not hold yet, and reads the
/// file whole.
fn summarize_in_place(path: &Path) -> io::Result<bool> {
    let f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(
            (rustix::fs::OFlags::NOFOLLOW
                | rustix::fs::OFlags::NONBLOCK
                | rustix::fs::OFlags::CLOEXEC)
                .bits() as i32,
        )
        .open(path)?;
    let meta = f.metadata()?;
    let Some(h) = Header::read(&f)? else {
        return Ok(false);
    };
    if !meta.is_file()
        || super::packed::has_summary(&f, &h) && super::packed_grams::has_grams(&f, &h)
    {
        return Ok(false);
    }
    // the transcript read twice: for its usage, and for its grams
    let read = std::sync::Arc::new(AtomicU64::new(0));
    let transcript = || -> io::Result<_> {
        read.store(0, Ordering::Relaxed);
        let counted = CountedRead {
            inner: super::packed::stream_of(&f, &h)?,
            n: std::sync::Arc::clone(&read),
        };
        Ok(super::lines::Transcript::from_parts(
            Box::new(counted),
            meta.clone(),
            path,
        ))
    };
    let usage = super::usage::read_usage(transcript()?, true).map_err(io::Error::other)?;
    if read.load(Ordering::Relaxed) != h.size {
        return Ok(false); // cut short: read whole, never summarised
    }
    let grams = super::search::grams_of(transcript()?).map_err(io::Error::other)?;
    if read.load(Ordering::Relaxed) != h.size {
        return Ok(false);
    }
    let grams = super::packed_grams::grams_frame(&grams);
    let at = meta.len();
    let end = at + grams.len() as u64;
    // changed meanwhile (another pass's copy is another file, renamed
    // over this one: this one is then no longer read)
    if f.metadata()?.len() != at {
        return Ok(false);
    }
    // the grams, then the summary, which covers them
    f.write_all_at(&grams, at)?;
    let sum = super::packed::checksum_of(&f, end)?;
    let Some(frame) = super::packed::summary_frame(&h, end, sum, &usage) else {
        return Ok(false);
    };
    f.write_all_at(&frame, end)?;
    if let Ok(t) = meta.modified() {
        f.set_modified(t)?;
    }
    Ok(true)
}

/// A reader that counts what it reads.
struct CountedRead<R> {
    inner: R,
    n: std::sync::Arc<AtomicU64>,
}

impl<R: Read> Read for CountedRead<R> {
    fn read(&mut self, b: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(b)?;
        self.n.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// Why compressing a transcript ended early.
enum Failed {
    /// It changed while it was read (it `shrank`: what was compressed of
    /// it is not to be taken up).
    Busy {
        shrank: bool,
    },
    Store(StoreError),
}

/// Compress the transcript `src` (`size` bytes: `body` of them in chunks,
/// the rest as the last frame) into `out`, from where `out` was left; the
/// header to give it when done, or `None` when the run was stopped.
fn compress_into(
    file: &File,
    src: &Path,
    out: &mut Partial,
    (size, mtime): (u64, SystemTime),
    body: u64,
    pass: &Pass<'_>,
) -> Result<Option<Header>, Failed> {
    let mut reader = file;
    reader
        .seek(SeekFrom::Start(out.covered))
        .map_err(|e| Failed::Store(io_err(src)(e)))?;
    (&out.file)
        .seek(SeekFrom::Start(out.end))
        .map_err(|e| Failed::Store(io_err(&out.path)(e)))?;
    let mut header = Header {
        size,
        mtime,
        tail_at: 0,
        tail_from: 0,
    };
    let (mut pos, mut at) = (out.covered, out.end);
    while pos < size {
        let tail = pos >= body;
        let len = if tail {
            size - pos
        } else {
            CHUNK.min(body - pos)
        };
        if tail {
            (header.tail_at, header.tail_from) = (at, pos);
        }
        let mut target = &out.file;
        at += compress_part(&mut reader, len, &mut target).map_err(|e| match e {
            PartError::Short => Failed::Busy { shrank: true },
            PartError::Read(e) => Failed::Store(io_err(src)(e)),
            PartError::Write(e) => Failed::Store(io_err(&out.path)(e)),
        })?;
        pos += len;
        if len == CHUNK && !tail {
            // a whole chunk: recorded, so that a run cut short keeps it
            out.record(pos, at).map_err(Failed::Store)?;
            if !(pass.go_on)() {
                return Ok(None);
            }
        }
    }
    Ok(Some(header))
}

/// Why one frame could not be written.
enum PartError {
    /// The transcript ended before the bytes pledged.
    Short,
    Read(io::Error),
    Write(io::Error),
}

/// Compress `len` bytes of `src` as one zstd frame onto `out`; the
/// frame's size.
fn compress_part(src: &mut impl Read, len: u64, out: &mut impl Write) -> Result<u64, PartError> {
    let mut counted = Counted {
        inner: BufWriter::with_capacity(1 << 16, out),
        n: 0,
    };
    let mut enc =
        zstd::stream::write::Encoder::new(&mut counted, LEVEL).map_err(PartError::Write)?;
    enc.set_pledged_src_size(Some(len))
        .map_err(PartError::Write)?;
    enc.include_contentsize(true).map_err(PartError::Write)?;
    let mut buf = vec![0u8; 1 << 16];
    let mut left = len;
    while left > 0 {
        let want = buf.len().min(left as usize);
        let n = match src.read(&mut buf[..want]) {
            Ok(0) => return Err(PartError::Short),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(PartError::Read(e)),
        };
        enc.write_all(&buf[..n]).map_err(PartError::Write)?;
        left -= n as u64;
    }
    enc.finish().map_err(PartError::Write)?;
    counted.inner.flush().map_err(PartError::Write)?;
    Ok(counted.n)
}

/// A writer that counts what goes through it.
struct Counted<W> {
    inner: W,
    n: u64,
}

impl<W: Write> Write for Counted<W> {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(b)?;
        self.n += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Copy a small side file as it is.
fn copy_plain(src: &Path, dst: &Path) -> StoreResult<Copied> {
    let (_, meta) = open_regular(src)?;
    let mtime = meta.modified().map_err(io_err(src))?;
    if archived_as(dst) == Some((meta.len(), mtime)) {
        return Ok(Copied::Unchanged);
    }
    let bytes = read_small(src, MAX_META)?;
    let out = write_new(dst, Some(mtime), Put::Replace, |f| f.write_all(&bytes))?;
    Ok(Copied::Archived {
        bytes_in: bytes.len() as u64,
        bytes_out: out,
    })
}

/// Decompress an archived file to `dst`, whole: as many bytes as its
/// header records, else (a file cut short) an error and nothing written.
/// A file already at `dst`, or put there meanwhile (the CLI resuming it,
/// another restore), is kept: never replaced by the archive's copy.
fn unpack_to(src: &Path, dst: &Path) -> StoreResult<()> {
    if std::fs::symlink_metadata(dst).is_ok() {
        return Ok(());
    }
    let (mut data, size) = super::packed::stream_sized(src).map_err(io_err(src))?;
    write_new(dst, None, Put::Keep, |out| {
        let n = io::copy(&mut data, out)?;
        if n != size {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!(
                    "the archived copy {} is cut short: {n} of its {size} bytes",
                    crate::error::shown(src)
                ),
            ));
        }
        Ok(())
    })?;
    Ok(())
}

/// How [`write_new`] puts its file in place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Put {
    /// Over what is there.
    Replace,
    /// Only where nothing is: what is there is kept.
    Keep,
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
/// put it in place: renamed over `dst` with [`Put::Replace`] (the
/// archive's copy), linked only if `dst` is not there with [`Put::Keep`]
/// (a restored transcript: one the CLI wrote meanwhile is never replaced).
/// Returns its size.
fn write_new(
    dst: &Path,
    mtime: Option<SystemTime>,
    put: Put,
    fill: impl FnOnce(&mut File) -> io::Result<()>,
) -> StoreResult<u64> {
    let tmp = tmp_name(dst);
    let result = (|| {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .read(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(
                (rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::CLOEXEC).bits() as i32,
            )
            .open(&tmp)?;
        fill(&mut f)?;
        if let Some(t) = mtime {
            f.set_modified(t)?;
        }
        let len = f.metadata()?.len();
        if put == Put::Keep {
            // a restored transcript is on the disk before it is in place
            // (a crash must not leave an empty one that looks restored)
            f.sync_all()?;
        }
        drop(f);
        match put {
            Put::Replace => std::fs::rename(&tmp, dst)?,
            Put::Keep => match std::fs::hard_link(&tmp, dst) {
                Ok(()) => std::fs::remove_file(&tmp)?,
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    std::fs::remove_file(&tmp)?;
                    return Ok(0);
                }
                // a file system without hard links: a rename that never
                // replaces what is there
                Err(_) => match rustix::fs::renameat_with(
                    rustix::fs::CWD,
                    &tmp,
                    rustix::fs::CWD,
                    dst,
                    rustix::fs::RenameFlags::NOREPLACE,
                ) {
                    Ok(()) => {}
                    Err(rustix::io::Errno::EXIST) => {
                        std::fs::remove_file(&tmp)?;
                        return Ok(0);
                    }
                    Err(e) => return Err(e.into()),
                },
            },
        }
        Ok(len)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(io_err(dst))
}

/// Whether the temporary file `name` (`.<file>.<pid>-<n>.tmp`) is of a
/// process that is gone, or was left more than an hour ago (its process
/// id taken since by another).
fn dead_tmp(name: &str, path: &Path) -> bool {
    let pid = name
        .strip_suffix(".tmp")
        .and_then(|n| n.rsplit_once('.'))
        .and_then(|(_, id)| id.split_once('-'))
        .and_then(|(pid, _)| pid.parse().ok())
        .and_then(rustix::process::Pid::from_raw);
    // signal 0 only checks that the process exists
    let gone = pid
        .is_none_or(|pid| rustix::process::test_kill_process(pid) == Err(rustix::io::Errno::SRCH));
    let old = || {
        std::fs::symlink_metadata(path)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| SystemTime::now().duration_since(t).ok())
            .is_some_and(|age| age.as_secs() > 3600)
    };
    gone || old()
}

/// Remove from `dir` the temporary files named `<prefix>….tmp` of
/// processes that are gone (see [`dead_tmp`]); a link by such a name is
/// removed, never followed.
fn sweep_dead_tmps(dir: &Path, prefix: &str) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let n = e.file_name();
        let n = n.to_string_lossy();
        if !(n.starts_with(prefix) && n.ends_with(".tmp")) {
            continue;
        }
        let path = e.path();
        if e.file_type().is_ok_and(|t| t.is_file() || t.is_symlink()) && dead_tmp(&n, &path) {
            let _ = std::fs::remove_file(&path);
        }
    }
}

/// Remove what a dead pass left in the folders this run writes to: the
/// temporary files of processes that are gone (a pass beside this one,
/// which does not have the archive to itself, writes under its own
/// process id), and the `.part` files of transcripts no longer in the
/// store. Only a run that has the archive to itself calls this, so no
/// other pass writes `.part` files. The `.part` files kept are given back.
fn clean_dead(archive: &Path, jobs: &[Job]) -> HashSet<PathBuf> {
    let wanted: HashSet<PathBuf> = jobs
        .iter()
        .filter(|j| j.packed)
        .map(|j| part_name(&j.dst))
        .collect();
    let mut dirs: Vec<&Path> = jobs.iter().filter_map(|j| j.dst.parent()).collect();
    dirs.sort();
    dirs.dedup();
    let mut kept = HashSet::new();
    for d in dirs.into_iter().filter(|d| d.starts_with(archive)) {
        let Ok(rd) = std::fs::read_dir(d) else {
            continue;
        };
        for e in rd.flatten() {
            let n = e.file_name();
            let n = n.to_string_lossy();
            let part = n.ends_with(PART);
            if !(n.starts_with('.') && (part || n.ends_with(".tmp"))) {
                continue;
            }
            // a link by such a name is removed too (never followed)
            if !e.file_type().is_ok_and(|t| t.is_file() || t.is_symlink()) {
                continue;
            }
            let path = e.path();
            if part && wanted.contains(&path) {
                kept.insert(path);
            } else if part || dead_tmp(&n, &path) {
                let _ = std::fs::remove_file(&path);
            }
        }
    }
    kept
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
        store.archive(archive, ArchiveOptions::default()).unwrap()
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
            let live = super::super::either::read_head_tail(&path)
                .unwrap()
                .unwrap();
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

    /// Transcript lines of at least `len` bytes in all, of text zstd
    /// cannot shrink much (each prompt 1 KiB of pseudo-random hex), and
    /// the number of the next line.
    fn incompressible(len: usize) -> (String, usize) {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut text = String::new();
        let mut i = 0;
        while text.len() < len {
            let hex: String = (0..64)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    format!("{seed:016x}")
                })
                .collect();
            text.push_str(&line(i, 0).replace("prompt", &hex));
            i += 1;
        }
        (text, i)
    }

    #[test]
    fn a_run_stopped_in_a_big_file_keeps_its_chunks_for_the_next() {
        // three chunks and the last 64 KiB, of text zstd cannot shrink much
        let (text, i) = incompressible(2 * CHUNK as usize + (CHUNK as usize) / 2);
        let (d, _store, path) = store_with(&text);
        let dst = d
            .path()
            .join("archive/-w")
            .join(format!("{ID}{PACKED_EXT}"));
        std::fs::create_dir_all(dst.parent().unwrap()).unwrap();
        let part = part_name(&dst);
        fn pass(go_on: &(dyn Fn() -> bool + Sync), parts: HashSet<PathBuf>) -> Pass<'_> {
            Pass {
                go_on,
                alone: true,
                parts,
            }
        }
        // stopped as soon as asked: after the first chunk
        let stop = || false;
        let first = pass(&stop, HashSet::new());
        assert_eq!(pack(&path, &dst, &first).unwrap(), Copied::Stopped);
        assert!(!dst.exists());
        let held = std::fs::metadata(&part).unwrap().len();
        assert!(held > HEADER_LEN as u64, "the first chunk is kept");
        // the next run takes it up: it reads the rest only
        let go = || true;
        let next = pass(&go, HashSet::from([part.clone()]));
        let Copied::Archived { bytes_in, .. } = pack(&path, &dst, &next).unwrap() else {
            panic!("archived")
        };
        assert_eq!(bytes_in, text.len() as u64 - CHUNK);
        assert!(!part.exists());
        let (mut r, _) = super::super::packed::stream(&dst).unwrap();
        let mut back = String::new();
        r.read_to_string(&mut back).unwrap();
        assert!(back == text, "the same text, whole");
        let ht = super::super::packed::head_tail(&dst).unwrap().unwrap();
        assert!(text.starts_with(&ht.head) && text.ends_with(&ht.tail));
        // a `.part` file that is not one is not taken up
        std::fs::write(&part, vec![0u8; 4096]).unwrap();
        std::fs::write(&path, format!("{text}{}", line(i, 3))).unwrap();
        let Copied::Archived { bytes_in, .. } = pack(&path, &dst, &next).unwrap() else {
            panic!("archived")
        };
        assert_eq!(bytes_in, text.len() as u64 + line(i, 3).len() as u64);
    }

    /// A `.part` file a stopped run left is taken up only while the
    /// transcript still begins as the chunks it holds: one rewritten in
    /// place since (the same file) was archived with the old start and the
    /// new rest, and its usage summary was the new one's (`sessions usage`
    /// said 999 tokens, the archived copy held 111).
    #[test]
    fn a_part_file_of_a_transcript_rewritten_in_place_is_not_taken_up() {
        let usage = |n: u32| {
            serde_json::json!({"type": "assistant", "requestId": "r1",
                "timestamp": "2026-01-01T00:00:00Z", "message": {"id": "m1",
                "model": "claude-sonnet-4-5", "usage": {"input_tokens": n, "output_tokens": 1}}})
            .to_string()
                + "\n"
        };
        // two chunks of text zstd cannot shrink much
        let (body, i) = incompressible(2 * CHUNK as usize);
        let (d, _store, path) = store_with(&format!("{}{body}", usage(111)));
        let dst = d
            .path()
            .join("archive/-w")
            .join(format!("{ID}{PACKED_EXT}"));
        std::fs::create_dir_all(dst.parent().unwrap()).unwrap();
        let part = part_name(&dst);
        let stop = || false;
        let first = Pass {
            go_on: &stop,
            alone: true,
            parts: HashSet::new(),
        };
        assert_eq!(pack(&path, &dst, &first).unwrap(), Copied::Stopped);
        assert!(std::fs::metadata(&part).unwrap().len() > HEADER_LEN as u64);
        // rewritten in place (the same inode), and grown
        let text = format!("{}{body}{}", usage(999), line(i, 3));
        std::fs::write(&path, &text).unwrap();
        let go = || true;
        let next = Pass {
            go_on: &go,
            alone: true,
            parts: HashSet::from([part.clone()]),
        };
        let Copied::Archived { bytes_in, .. } = pack(&path, &dst, &next).unwrap() else {
            panic!("archived")
        };
        assert_eq!(bytes_in, text.len() as u64, "compressed anew");
        let (mut r, _) = super::super::packed::stream(&dst).unwrap();
        let mut back = String::new();
        r.read_to_string(&mut back).unwrap();
        assert!(back == text, "the transcript as it is now, whole");
        let summary = super::super::usage::file_usage_of(&dst, true).unwrap().0;
        let full = super::super::usage::read_usage(
            super::super::lines::Transcript::open(&dst).unwrap(),
            true,
        )
        .unwrap();
        assert_eq!(summary, full);
        assert_eq!(full.messages[0].tokens.input, 999);
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

    /// The CLI deleted the transcript; the archive holds it: the resume
    /// target is the live transcript, restored whole (the session's
    /// sub-agents too), dated now, and a second call leaves it as it is.
    #[test]
    fn a_session_only_the_archive_holds_is_restored_to_be_resumed() {
        let text: String = (0..3).map(|i| line(i, 10)).collect();
        let (d, store, path) = store_with(&text);
        let agents = path.with_extension("").join("subagents");
        std::fs::create_dir_all(&agents).unwrap();
        std::fs::write(agents.join("agent-a1.jsonl"), line(9, 1)).unwrap();
        let archive = d.path().join("archive");
        run(&store, &archive);
        let store = store.with_archive(&archive);
        std::fs::remove_dir_all(path.with_extension("")).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert!(store.find(ID).unwrap().is_archived());
        let t = store.resume_target(&ID[..8]).unwrap();
        assert!(t.restored);
        assert_eq!((t.id.as_str(), t.path.as_path()), (ID, path.as_path()));
        assert_eq!(t.cwd, Path::new("/w"));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        assert_eq!(
            std::fs::read_to_string(agents.join("agent-a1.jsonl")).unwrap(),
            line(9, 1)
        );
        assert!(!store.find(ID).unwrap().is_archived());
        // in the store now: resumed as it is, nothing restored again
        let longer = format!("{text}{}", line(3, 10));
        std::fs::write(&path, &longer).unwrap();
        let again = store.resume_target(ID).unwrap();
        assert!(!again.restored);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), longer);
        // without the archive: not found
        std::fs::remove_file(&path).unwrap();
        assert!(matches!(
            store.clone().without_archives().resume_target(ID),
            Err(StoreError::NotFound(_))
        ));
    }

    /// A restored transcript goes in only where none is: one the CLI
    /// wrote after the check (a session resumed meanwhile) is kept whole,
    /// and no temporary file is left beside it.
    #[test]
    fn a_restore_never_replaces_a_transcript_that_appeared_meanwhile() {
        let d = tempfile::tempdir().unwrap();
        let dst = d.path().join(format!("{ID}.jsonl"));
        let fill = |f: &mut File| f.write_all(b"restored\n");
        std::fs::write(&dst, "live, and longer\n").unwrap();
        assert_eq!(write_new(&dst, None, Put::Keep, fill).unwrap(), 0);
        assert_eq!(std::fs::read_to_string(&dst).unwrap(), "live, and longer\n");
        assert_eq!(
            std::fs::read_dir(d.path()).unwrap().count(),
            1,
            "no .tmp left"
        );
        std::fs::remove_file(&dst).unwrap();
        assert_eq!(write_new(&dst, None, Put::Keep, fill).unwrap(), 9);
        assert_eq!(std::fs::read_to_string(&dst).unwrap(), "restored\n");
        // the archive's own copy is replaced, as before
        assert_eq!(
            write_new(&dst, None, Put::Replace, |f| f.write_all(b"x")).unwrap(),
            1
        );
        assert_eq!(std::fs::read_to_string(&dst).unwrap(), "x");
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
    }

    fn names_in(dir: &Path) -> Vec<String> {
        std::fs::read_dir(dir)
            .map(|rd| {
                rd.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// A restore killed before its end left its temporary file in the
    /// store: the next restore removes it (one of a process still alive
    /// is left alone).
    #[test]
    fn a_restore_sweeps_what_a_killed_one_left() {
        let text: String = (0..3).map(|i| line(i, 10)).collect();
        let (d, store, path) = store_with(&text);
        let archive = d.path().join("archive");
        run(&store, &archive);
        std::fs::remove_file(&path).unwrap();
        let folder = path.parent().unwrap();
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let gone = child.id();
        child.wait().unwrap();
        let dead = folder.join(format!(".{ID}.jsonl.{gone}-0.tmp"));
        let alive = folder.join(format!(".{ID}.jsonl.{}-7.tmp", std::process::id()));
        let other = folder.join(format!(".other.jsonl.{gone}-0.tmp"));
        for f in [&dead, &alive, &other] {
            std::fs::write(f, "half a transcript").unwrap();
        }
        let t = store.with_archive(&archive).resume_target(ID).unwrap();
        assert!(t.restored);
        assert!(!dead.exists(), "the dead restore's file is left");
        assert!(alive.exists() && other.exists());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    }

    /// An archived file cut short (its last frame lost, which zstd reads
    /// as a clean end, or cut inside a frame) is never restored as a
    /// shorter transcript: the restore fails and leaves nothing behind.
    #[test]
    fn a_truncated_archive_is_not_restored_short() {
        let text: String = (0..400).map(|i| line(i, 1000)).collect();
        let (d, store, path) = store_with(&text);
        let archive = d.path().join("archive");
        run(&store, &archive);
        std::fs::remove_file(&path).unwrap();
        let packed = archive.join("-w").join(format!("{ID}{PACKED_EXT}"));
        let h = Header::read(&File::open(&packed).unwrap())
            .unwrap()
            .unwrap();
        assert!(h.tail_at > 0, "two frames at least");
        let whole = std::fs::read(&packed).unwrap();
        let store = store.with_archive(&archive);
        for cut in [h.tail_at, h.tail_at + 9] {
            std::fs::write(&packed, &whole[..cut as usize]).unwrap();
            assert!(store.restore(ID).is_err(), "cut at {cut}");
            assert!(
                !path.exists(),
                "cut at {cut}: a shorter transcript was restored"
            );
            assert!(store.resume_target(ID).is_err());
            assert_eq!(names_in(path.parent().unwrap()), Vec::<String>::new());
        }
        // whole again: restored byte for byte
        std::fs::write(&packed, &whole).unwrap();
        assert!(store.resume_target(ID).unwrap().restored);
        assert!(std::fs::read(&path).unwrap() == text.as_bytes());
    }

    /// A restore that fails on a sub-agent's file (its archived copy cut
    /// short, the disk full) leaves the session out of the store: the
    /// transcript, whose presence says the session is back, goes in last,
    /// so the next restore does the whole of it again, never resuming a
    /// session whose sub-agents are silently missing.
    #[test]
    fn a_restore_that_fails_on_a_sub_agent_leaves_the_session_to_restore_again() {
        let text: String = (0..3).map(|i| line(i, 10)).collect();
        let (d, store, path) = store_with(&text);
        let agents = path.with_extension("").join("subagents");
        std::fs::create_dir_all(&agents).unwrap();
        let agent = agents.join("agent-a1.jsonl");
        let agent_text: String = (0..50).map(|i| line(i, 100)).collect();
        std::fs::write(&agent, &agent_text).unwrap();
        let archive = d.path().join("archive");
        run(&store, &archive);
        std::fs::remove_dir_all(path.with_extension("")).unwrap();
        std::fs::remove_file(&path).unwrap();
        let packed = archive
            .join("-w")
            .join(ID)
            .join("subagents")
            .join(format!("agent-a1{PACKED_EXT}"));
        let whole = std::fs::read(&packed).unwrap();
        // cut into its frames (its last bytes are the usage summary)
        std::fs::write(&packed, &whole[..whole.len() / 2]).unwrap();
        let store = store.with_archive(&archive);
        assert!(store.resume_target(ID).is_err());
        assert!(
            !path.exists(),
            "the session looks restored, its sub-agent is not"
        );
        assert!(store.find(ID).unwrap().is_archived());
        // the archive whole again: all of it comes back
        std::fs::write(&packed, &whole).unwrap();
        assert!(store.resume_target(ID).unwrap().restored);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        assert_eq!(std::fs::read_to_string(&agent).unwrap(), agent_text);
    }

    /// The transcript is gone but its sub-agents' files are still in the
    /// store, newer than the archive's: a restore keeps them.
    #[test]
    fn a_restore_keeps_the_sub_agent_files_still_in_the_store() {
        let text: String = (0..3).map(|i| line(i, 10)).collect();
        let (d, store, path) = store_with(&text);
        let agents = path.with_extension("").join("subagents");
        std::fs::create_dir_all(&agents).unwrap();
        let (meta, agent) = (
            agents.join("agent-a1.meta.json"),
            agents.join("agent-a1.jsonl"),
        );
        std::fs::write(&agent, line(9, 1)).unwrap();
        std::fs::write(&meta, r#"{"agentType":"old"}"#).unwrap();
        let archive = d.path().join("archive");
        run(&store, &archive);
        let newer = format!("{}{}", line(9, 1), line(10, 1));
        std::fs::write(&agent, &newer).unwrap();
        std::fs::write(&meta, r#"{"agentType":"new","more":1}"#).unwrap();
        std::fs::remove_file(&path).unwrap();
        let t = store.with_archive(&archive).resume_target(ID).unwrap();
        assert!(t.restored);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        assert_eq!(std::fs::read_to_string(&agent).unwrap(), newer);
        assert_eq!(
            std::fs::read_to_string(&meta).unwrap(),
            r#"{"agentType":"new","more":1}"#
        );
    }

    /// A transcript written while a restore unpacks the archive's copy
    /// (the CLI resuming it after another restore, a second restore beside
    /// it) is never replaced by that copy.
    #[test]
    fn a_transcript_that_appears_while_it_is_restored_is_kept() {
        let text: String = (0..20_000).map(|i| line(i, 1000)).collect();
        let (d, store, path) = store_with(&text);
        let archive = d.path().join("archive");
        run(&store, &archive);
        std::fs::remove_file(&path).unwrap();
        let store = store.with_archive(&archive);
        let folder = path.parent().unwrap().to_owned();
        let restoring = std::thread::spawn(move || store.restore(ID));
        let live = line(1, 0);
        let mut caught = false;
        while !restoring.is_finished() && !path.exists() {
            if names_in(&folder).iter().any(|n| n.ends_with(".tmp")) {
                std::fs::write(&path, &live).unwrap();
                caught = true;
                break;
            }
        }
        let restored = restoring.join().unwrap();
        if !caught {
            eprintln!("skipped: the restore ended before its temporary file was seen");
            return;
        }
        assert!(
            std::fs::read_to_string(&path).unwrap() == live,
            "the live transcript was replaced by the archive's copy"
        );
        assert_eq!(restored.unwrap().path, path);
        assert!(!names_in(&folder).iter().any(|n| n.ends_with(".tmp")));
    }
}
