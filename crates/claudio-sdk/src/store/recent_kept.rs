//! [`Store::recent_usage_kept`]: [`Store::recent_usage`] without looking
//! at every transcript again. A status line runs after every message;
//! `readdir` of every project and an `lstat` of every transcript is most
//! of its time at 10,000 sessions (about 25 ms here, against about 1 ms for
//! the rest). What the last call found is kept in a small file in
//! claudio's cache folder, and a call looks again only where something
//! can have changed:
//!
//! - a transcript made, removed or renamed changes its folder's time, and
//!   a project folder made or removed the projects folder's: a folder whose
//!   time moved is listed again;
//! - only a running CLI appends to a transcript, and every running CLI is
//!   in the CLI's session registry (`<config>/sessions/<pid>.json`, with
//!   its `sessionId`; seen with CLI 2.1.332, the TUI and `-p` alike): the
//!   transcripts of the sessions named there, and the one the caller names,
//!   are looked at on every call;
//! - a CLI started or ended changes the registry folder's time; one may
//!   have started and ended since the last call, so then, as when nothing
//!   is kept, every transcript is looked at (a full check);
//! - a CLI that moves to another session (`/resume`, `/clear`) names
//!   another id in its entry, the folder's time unchanged: another set of
//!   ids named is a full check too (the session it left may have been
//!   written since the last call);
//! - a writer that is in no registry (an older CLI, another program) is
//!   seen by the full check made at least every [`FULL_CHECK_MS`].
//!
//! A folder's time is kept only once it is [`RACY_MS`] old: the kernel
//! dates changes by a clock that ticks every few milliseconds, so a change
//! made in the tick of a listing could leave the folder's time as it was.
//! Only transcripts written since [`KEPT_HORIZON_MS`] before the call are
//! kept: [`RecentUsage::since`] of the answer equals a full
//! [`Store::recent_usage`]'s for any time after that.

use super::error::StoreResult;
use super::list::{candidates_in, parallel_map, project_folders, split_unreadable, Candidate};
use super::usage_read::{stat_folder, RecentUsage};
use super::Store;
use rustix::fs::{AtFlags, Mode, OFlags};
use std::borrow::Cow;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// How far back the kept answer holds the transcripts: what was last
/// written before `now` minus this is left out, [`RecentUsage::since`] of
/// an earlier time is not a full answer. Nine days: a status line reads a
/// week before the day's start at most.
pub const KEPT_HORIZON_MS: i64 = 9 * 24 * 60 * 60 * 1000;
/// The longest a kept answer is used without a full check: what a writer
/// in no registry appended is seen within this time.
pub const FULL_CHECK_MS: i64 = 60 * 1000;
/// A folder's time within this of the moment it was read is not kept (see
/// the module's text): the clock the kernel dates files by is coarse.
const RACY_MS: i64 = 2000;
/// The kept file's name, in the usage index's folder.
const FILE: &str = "recent-usage";
/// The usage index of the recent transcripts alone, beside it: loading
/// it costs less than reading them again.
const INDEX: &str = "recent-usage-index";
/// The largest kept file read.
const MAX_KEPT: u64 = 64 << 20;

/// A folder's time: seconds and nanoseconds since the epoch.
type Stamp = (i64, i64);

/// What is kept between calls (its bytes: [`format`]). Its names and
/// paths are the kept file's bytes where they were read from it (a warm
/// call makes no `String` of each, nor frees it), else its own.
#[derive(Debug, Clone, PartialEq)]
struct Kept<'a> {
    /// The projects folder this is of.
    projects: Cow<'a, Path>,
    /// When every transcript was last looked at (ms).
    full_at: i64,
    /// The projects folder's time, and the registry folder's ([`MISSING`]:
    /// not there; `None`: not kept, as racy or unknown).
    root: Option<Stamp>,
    registry: Option<Stamp>,
    /// The session ids the registry named when this was made, sorted
    /// (`None`: it could not be read whole). Another set of them is a full
    /// check: a CLI that moved to another session (`/resume`, `/clear`)
    /// changes its entry, not the registry folder's time, and the session
    /// it left may have been written since, unseen.
    named: Option<Vec<Cow<'a, str>>>,
    folders: Vec<KeptFolder<'a>>,
    /// Links in the projects folder passed over, and why.
    passed: Vec<(PathBuf, String)>,
}

#[derive(Debug, Clone, PartialEq)]
struct KeptFolder<'a> {
    path: Cow<'a, Path>,
    /// Its time when listed; `None`: racy, list it again.
    stamp: Option<Stamp>,
    /// Why it could not be listed, if so.
    unreadable: Option<String>,
    /// Its transcripts in the listing's order, those since the horizon (or
    /// of no known time), and those of the sessions in `looked_for`.
    files: Vec<KeptFile<'a>>,
    /// Running sessions whose transcript here, if any, is among `files`:
    /// while the folder's time stays (no name made or removed in it), one
    /// of them not among `files` is not here, and is not looked for again.
    looked_for: Ids<'a>,
}

/// Session ids ([`KeptFolder::looked_for`]): as the kept file holds them
/// (its bytes, each id read from them when asked: a warm call makes no
/// list of them for each of the folders, nor frees one), or a list of
/// their own once changed.
#[derive(Clone)]
enum Ids<'a> {
    /// `n` texts as [`format`] writes them (each its length, a `u64`, then
    /// its UTF-8 bytes), checked whole when the file was read.
    Kept {
        bytes: &'a [u8],
        n: usize,
    },
    Own(Vec<Cow<'a, str>>),
}

/// The `n` texts of `bytes` ([`Ids::Kept`]), as bytes (each checked to be
/// UTF-8 when the file was read); as many as are whole.
fn kept_ids(mut bytes: &[u8], n: usize) -> impl Iterator<Item = &[u8]> {
    (0..n).map_while(move |_| {
        let (len, rest) = bytes.split_first_chunk::<8>()?;
        let len = usize::try_from(u64::from_le_bytes(*len)).ok()?;
        let (text, rest) = rest.split_at_checked(len)?;
        bytes = rest;
        Some(text)
    })
}

impl<'a> Ids<'a> {
    fn len(&self) -> usize {
        match self {
            Ids::Kept { n, .. } => *n,
            Ids::Own(v) => v.len(),
        }
    }

    /// The ids' bytes: what a comparison that ignores ASCII case compares
    /// (not checked as UTF-8 again).
    fn bytes(&self) -> impl Iterator<Item = &[u8]> + use<'_, 'a> {
        let (kept, own): (_, &[Cow<'a, str>]) = match self {
            Ids::Kept { bytes, n } => (kept_ids(bytes, *n), &[][..]),
            Ids::Own(v) => (kept_ids(&[][..], 0), v.as_slice()),
        };
        kept.chain(own.iter().map(|s| s.as_bytes()))
    }

    /// The ids as text (kept ones were checked to be UTF-8 when the file
    /// was read: the check again stops at none).
    fn iter(&self) -> impl Iterator<Item = &str> + use<'_, 'a> {
        self.bytes().map_while(|b| std::str::from_utf8(b).ok())
    }

    /// The ids in a list of their own, to be changed.
    fn own(&mut self) -> &mut Vec<Cow<'a, str>> {
        if let Ids::Kept { bytes, n } = *self {
            let v = kept_ids(bytes, n).map_while(|b| std::str::from_utf8(b).ok());
            *self = Ids::Own(v.map(Cow::Borrowed).collect());
        }
        match self {
            Ids::Own(v) => v,
            Ids::Kept { .. } => unreachable!("made a list of its own just above"),
        }
    }

    /// Keep the ids `keep` says to keep (given each one's bytes); kept
    /// bytes of which it keeps all stay as they are.
    fn retain(&mut self, keep: impl Fn(&[u8]) -> bool) {
        if let Ids::Kept { bytes, n } = *self {
            if kept_ids(bytes, n).all(&keep) {
                return;
            }
        }
        self.own().retain(|s| keep(s.as_bytes()));
    }

    fn push(&mut self, id: Cow<'a, str>) {
        self.own().push(id);
    }
}

impl<'a> FromIterator<Cow<'a, str>> for Ids<'a> {
    fn from_iter<I: IntoIterator<Item = Cow<'a, str>>>(ids: I) -> Self {
        Ids::Own(ids.into_iter().collect())
    }
}

/// The same ids in the same order, however each holds them.
impl PartialEq for Ids<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.iter().eq(other.iter())
    }
}

impl std::fmt::Debug for Ids<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[derive(Debug, Clone, PartialEq)]
struct KeptFile<'a> {
    id: Cow<'a, str>,
    side: bool,
    at: Option<i64>,
    cost: u64,
}

/// The stamp of a folder that is not there.
const MISSING: Stamp = (i64::MIN, 0);

/// The time of `path` (a link followed: a project folder may be a link
/// to one), [`MISSING`] when it is not there, `None` when it cannot be had.
fn stamp(path: &Path) -> Option<Stamp> {
    match rustix::fs::stat(path) {
        #[allow(clippy::unnecessary_cast)]
        Ok(st) => Some((st.st_mtime as i64, st.st_mtime_nsec as i64)),
        Err(rustix::io::Errno::NOENT) => Some(MISSING),
        Err(_) => None,
    }
}

/// [`stamp`] of `name` in the folder `dir` is open on.
fn stamp_at(dir: &rustix::fd::OwnedFd, name: &std::ffi::OsStr) -> Option<Stamp> {
    match rustix::fs::statat(dir, name, AtFlags::empty()) {
        #[allow(clippy::unnecessary_cast)]
        Ok(st) => Some((st.st_mtime as i64, st.st_mtime_nsec as i64)),
        Err(rustix::io::Errno::NOENT) => Some(MISSING),
        Err(_) => None,
    }
}

fn stamp_ms((s, ns): Stamp) -> i64 {
    s.saturating_mul(1000).saturating_add(ns / 1_000_000)
}

/// `stamp` when it is old enough, at `now`, to be trusted later.
fn settled(stamp: Option<Stamp>, now: i64) -> Option<Stamp> {
    stamp.filter(|s| *s == MISSING || stamp_ms(*s) < now - RACY_MS)
}

/// The session ids the CLI's registry names (`<config>/sessions/*.json`,
/// read by [`crate::registry::read_dir`]: never following a link or
/// waiting on a FIFO). `None`: an entry could not be read whole (a file
/// being written, a hostile one); then every transcript is looked at.
fn registered(dir: &Path) -> Option<Vec<String>> {
    let reg = crate::registry::read_dir(dir);
    if !reg.problems.is_empty() {
        return None;
    }
    let stale = reg.stale.into_iter().map(|(s, _)| s);
    Some(
        reg.live
            .into_iter()
            .chain(stale)
            .filter_map(|s| s.session_id)
            .collect(),
    )
}

fn sorted(mut ids: Vec<String>) -> Vec<String> {
    ids.sort_unstable();
    ids
}

/// One folder listed now: its transcripts since `horizon`, and those of
/// the sessions `running` whatever their time.
fn list_folder(path: &Path, horizon: i64, now: i64, running: &[String]) -> KeptFolder<'static> {
    let before = stamp(path);
    let cands = candidates_in(path, None, None, false);
    if let Some(bad) = cands.iter().find_map(|c| c.unreadable.clone()) {
        return KeptFolder {
            path: Cow::Owned(path.to_path_buf()),
            stamp: None,
            unreadable: Some(bad),
            files: Vec::new(),
            looked_for: Ids::Own(Vec::new()),
        };
    }
    let timed = stat_folder(&cands);
    let files = cands
        .into_iter()
        .zip(timed)
        .filter(|(c, (at, _))| keep(&c.session_id, *at, horizon, running))
        .map(|(c, (at, cost))| KeptFile {
            id: Cow::Owned(c.session_id),
            side: c.side,
            at,
            cost,
        })
        .collect();
    KeptFolder {
        path: Cow::Owned(path.to_path_buf()),
        stamp: settled(before, now),
        unreadable: None,
        files,
        looked_for: running.iter().cloned().map(Cow::Owned).collect(),
    }
}

/// Whether a transcript is kept: written since `horizon`, of no known
/// time, or of a running session (looked at on every call).
fn keep(id: &str, at: Option<i64>, horizon: i64, running: &[String]) -> bool {
    at.is_none_or(|at| at >= horizon) || running.iter().any(|r| r.eq_ignore_ascii_case(id))
}

/// Every folder listed now, each knowing where the running sessions'
/// transcripts are (those named and `current`'s).
fn full(
    projects: &Path,
    registry: &Path,
    now: i64,
    current: Option<&Path>,
) -> StoreResult<Kept<'static>> {
    let horizon = now.saturating_sub(KEPT_HORIZON_MS);
    // the folders' times before their listings: a change during one is
    // seen next time
    let reg = stamp(registry);
    let named = registered(registry).map(sorted);
    let root = stamp(projects);
    let (folders, links) = project_folders(projects)?;
    let mut running = named.clone().unwrap_or_default();
    running.extend(current_id(projects, current));
    let folders = parallel_map(&folders, |f| list_folder(f, horizon, now, &running));
    Ok(Kept {
        projects: Cow::Owned(projects.to_path_buf()),
        full_at: now,
        root: settled(root, now),
        registry: settled(reg, now),
        named: named.map(|n| n.into_iter().map(Cow::Owned).collect()),
        folders,
        passed: links,
    })
}

impl Kept<'_> {
    /// Look again where something can have changed since this was kept
    /// (see the module's text). `None`: a full check is needed; else
    /// whether anything kept changed (`Some(false)`: its bytes are the
    /// ones it was read from, and are not made again).
    fn refresh(&mut self, registry: &Path, now: i64, current: Option<&Path>) -> Option<bool> {
        if now < self.full_at || now - self.full_at > FULL_CHECK_MS {
            return None;
        }
        // a CLI started or ended, a project folder made or removed (or
        // their times were not kept)
        if self.registry.is_none() || stamp(registry) != self.registry {
            return None;
        }
        if self.root.is_none() || stamp(&self.projects) != self.root {
            return None;
        }
        let mut running = registered(registry)?;
        // a CLI moved to another session
        let now_named = sorted(running.clone());
        let same = self.named.as_ref().is_some_and(|named| {
            named.len() == now_named.len() && named.iter().zip(&now_named).all(|(a, b)| a == b)
        });
        if !same {
            return None;
        }
        running.extend(current_id(&self.projects, current));
        let horizon = now.saturating_sub(KEPT_HORIZON_MS);
        // a project folder's time by its name from the projects folder
        // (one name to walk, not the whole path)
        let root = rustix::fs::openat(
            rustix::fs::CWD,
            &*self.projects,
            OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .ok();
        let files: Vec<String> = running.iter().map(|id| format!("{id}.jsonl")).collect();
        let mut changed = false;
        let projects = self.projects.as_os_str().as_bytes();
        for f in &mut self.folders {
            let by_name = root
                .as_ref()
                .zip(name_in(projects, f.path.as_os_str().as_bytes()));
            let now_stamp = match by_name {
                Some((root, name)) => stamp_at(root, name),
                None => stamp(&f.path),
            };
            if f.stamp.is_none() || now_stamp != f.stamp {
                *f = list_folder(&f.path, horizon, now, &running);
                changed = true;
                continue;
            }
            // the running sessions' transcripts, where they are: a folder
            // that holds one it did not keep (older than the horizon) is
            // listed again, to keep its order. Every folder: one id may
            // name a transcript in two, the one kept in one folder not the
            // one written in the other. A session the folder was listed
            // (or looked in) for while running, and running since, is
            // known: its time stayed, so no name was made in it since. One
            // that stopped running may have lost its kept transcript (left
            // out below, older than the horizon): looked for again
            let looked = f.looked_for.len();
            f.looked_for.retain(|id| {
                running
                    .iter()
                    .any(|r| r.as_bytes().eq_ignore_ascii_case(id))
            });
            changed |= f.looked_for.len() != looked;
            let mut unkept = false;
            if f.unreadable.is_none() {
                for (id, file) in running.iter().zip(&files) {
                    if f.files.iter().any(|k| k.id.eq_ignore_ascii_case(id))
                        || f.looked_for
                            .bytes()
                            .any(|l| l.eq_ignore_ascii_case(id.as_bytes()))
                    {
                        continue;
                    }
                    let here = match by_name {
                        Some((root, name)) => rustix::fs::statat(
                            root,
                            Path::new(name).join(file),
                            AtFlags::SYMLINK_NOFOLLOW,
                        )
                        .is_ok(),
                        None => rustix::fs::lstat(f.path.join(file)).is_ok(),
                    };
                    if here {
                        unkept = true;
                        break;
                    }
                    f.looked_for.push(Cow::Owned(id.clone()));
                    changed = true;
                }
            }
            if unkept {
                *f = list_folder(&f.path, horizon, now, &running);
                changed = true;
            }
        }
        for f in &mut self.folders {
            if f.unreadable.is_some() {
                continue;
            }
            let again: Vec<usize> = f
                .files
                .iter()
                .enumerate()
                .filter(|(_, k)| {
                    k.at.is_none() || running.iter().any(|id| k.id.eq_ignore_ascii_case(id))
                })
                .map(|(i, _)| i)
                .collect();
            if again.is_empty() {
                continue;
            }
            let cands: Vec<Candidate> = again
                .iter()
                .map(|&i| candidate(&f.path, &f.files[i]))
                .collect();
            for (&i, (at, cost)) in again.iter().zip(stat_folder(&cands)) {
                let k = &mut f.files[i];
                changed |= k.at != at || k.cost != cost;
                k.at = at;
                k.cost = cost;
            }
            let files = f.files.len();
            f.files.retain(|k| keep(&k.id, k.at, horizon, &running));
            changed |= f.files.len() != files;
        }
        Some(changed)
    }

    /// The answer [`Store::recent_usage`] gives, for times since the horizon.
    fn answer(&self) -> RecentUsage {
        let n = self
            .folders
            .iter()
            .map(|f| {
                if f.unreadable.is_some() {
                    1
                } else {
                    f.files.len()
                }
            })
            .sum::<usize>();
        let mut cands = Vec::with_capacity(n + self.passed.len());
        let mut timed = Vec::with_capacity(n);
        for f in &self.folders {
            if let Some(why) = &f.unreadable {
                cands.push(Candidate::passed(f.path.to_path_buf(), why.clone()));
                continue;
            }
            for k in &f.files {
                cands.push(candidate(&f.path, k));
                timed.push((k.at, k.cost));
            }
        }
        cands.extend(
            self.passed
                .iter()
                .map(|(p, why)| Candidate::passed(p.clone(), why.clone())),
        );
        let (cands, skipped) = split_unreadable(cands);
        RecentUsage::of(cands, timed, skipped)
    }
}

/// The session id of `current`, a transcript of a project folder of
/// `projects`.
fn current_id(projects: &Path, current: Option<&Path>) -> Option<String> {
    current
        .filter(|p| p.parent().and_then(Path::parent) == Some(projects))
        .and_then(|p| p.file_name()?.to_str()?.strip_suffix(".jsonl"))
        .map(str::to_owned)
}

/// The name of `path` in the folder `dir` (both as bytes), when `path`
/// is `dir`, a `/` and one name: what [`Path::parent`] and
/// [`Path::file_name`] say of it then, without taking either path apart
/// (`None` also for some paths they would say it of: the caller then
/// walks the whole path).
fn name_in<'a>(dir: &[u8], path: &'a [u8]) -> Option<&'a OsStr> {
    if dir.is_empty() {
        return None;
    }
    let name = path.strip_prefix(dir)?.strip_prefix(b"/")?;
    let normal = !name.is_empty() && name != b"." && name != b".." && !name.contains(&b'/');
    normal.then(|| OsStr::from_bytes(name))
}

/// `folder`'s transcript of `k`: `folder/<id>.jsonl`, made in one
/// allocation.
fn candidate(folder: &Path, k: &KeptFile<'_>) -> Candidate {
    let mut path = PathBuf::with_capacity(folder.as_os_str().len() + k.id.len() + 8);
    path.push(folder);
    path.push(&*k.id);
    path.as_mut_os_string().push(".jsonl");
    Candidate {
        session_id: k.id.as_ref().to_owned(),
        path,
        project_path: None,
        worktrees: None,
        mtime: None,
        side: k.side,
        unreadable: None,
    }
}

/// [`Store::recent_usage_kept`] with the kept file at `file` (`None`:
/// nothing kept, a full check each time).
pub(crate) fn recent_kept(
    store: &Store,
    file: Option<&Path>,
    now: i64,
    current: Option<&Path>,
) -> StoreResult<RecentUsage> {
    let projects = store.projects_dir();
    let registry = store.config_dir().join("sessions");
    let bytes = file.and_then(|f| super::cache_file::read_private(f, MAX_KEPT));
    let kept = bytes
        .as_deref()
        .and_then(format::decode)
        .filter(|k| *k.projects == *projects);
    let (kept, changed) = match kept {
        Some(mut k) => match k.refresh(&registry, now, current) {
            Some(changed) => (k, changed),
            None => (full(&projects, &registry, now, current)?, true),
        },
        None => (full(&projects, &registry, now, current)?, true),
    };
    if let (Some(f), true) = (file, changed) {
        // written again when it changed (the bytes of a kept answer are
        // its own: another answer, other bytes); a refresh that changed
        // nothing leaves the bytes it was read from, not made again
        let new = format::encode(&kept);
        if bytes.as_deref() != Some(new.as_slice()) {
            let _ = super::cache_file::write_private(f, &new);
        }
    }
    let answer = kept.answer();
    Ok(match file {
        Some(f) => answer.with_index(f.with_file_name(INDEX)),
        None => answer,
    })
}

impl Store {
    /// [`recent_usage`](Self::recent_usage) of every project, for a caller
    /// that asks often (a status line): what the last call found is kept
    /// in claudio's cache folder (beside the usage index), and only what
    /// can have changed since is looked at again, the transcripts of the
    /// running sessions (the CLI's registry, `<config>/sessions`) and
    /// `current` among them. [`RecentUsage::since`] of the answer, for a
    /// time at most [`KEPT_HORIZON_MS`] before `now` (ms since the epoch),
    /// equals that of [`recent_usage`](Self::recent_usage)`(None)`, but for
    /// what a writer outside the registry appended in the last
    /// [`FULL_CHECK_MS`]. With archives, or without a cache folder, it is
    /// [`recent_usage`](Self::recent_usage)`(None)`.
    ///
    /// ```no_run
    /// use claudio::store::Store;
    /// let now = std::time::SystemTime::now()
    ///     .duration_since(std::time::UNIX_EPOCH)
    ///     .map_or(0, |d| d.as_millis() as i64);
    /// let recent = Store::from_env()?.recent_usage_kept(now, None)?;
    /// let day = recent.since(now - 86_400_000);
    /// println!("{} sessions written in the last 24 hours", day.sessions.len());
    /// # Ok::<(), claudio::store::StoreError>(())
    /// ```
    pub fn recent_usage_kept(&self, now: i64, current: Option<&Path>) -> StoreResult<RecentUsage> {
        if !self.archive_dirs().is_empty() {
            return self.recent_usage(None);
        }
        let file = super::usage_index::index_path().map(|p| p.with_file_name(FILE));
        match file {
            Some(f) => recent_kept(self, Some(&f), now, current),
            None => self.recent_usage(None),
        }
    }
}

mod format;
#[cfg(test)]
mod tests;
