//! Listing sessions: finding the transcripts of a directory (and its git
//! worktrees) or of every project, and reading their ends in parallel.

use super::error::{io_err, StoreResult};
use super::ids::is_uuid;
use super::info::{recorded_cwd, scan_file, Project, Scanned, SessionInfo, SkipReason};
use super::list_index::{scan_file_indexed, ListIndex};
use super::paths::{project_folder_name, sanitize_path, MAX_FOLDER_NAME};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

/// What to list.
///
/// ```
/// use claudio::store::ListOptions;
/// // every project, the ten newest sessions
/// let newest = ListOptions::all().limit(10);
/// // one project (not its other git worktrees), the second page of ten
/// let page = ListOptions::for_dir("/home/me/project")
///     .include_worktrees(false)
///     .offset(10)
///     .limit(10);
/// ```
///
/// [`Store::list`](super::Store::list) takes them.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ListOptions {
    /// The working directory whose sessions are listed; `None` for every project.
    pub dir: Option<PathBuf>,
    /// At most this many sessions (the newest).
    pub limit: Option<usize>,
    /// Skip this many of the newest first.
    pub offset: usize,
    /// With `dir` inside a git repository, also list the sessions of its
    /// other worktrees (default true).
    pub include_worktrees: bool,
    /// Only the sessions whose id starts with this (any case); files of
    /// other ids are not read.
    pub id_prefix: Option<String>,
}

impl Default for ListOptions {
    fn default() -> Self {
        ListOptions {
            dir: None,
            limit: None,
            offset: 0,
            include_worktrees: true,
            id_prefix: None,
        }
    }
}

impl ListOptions {
    /// Every session of every project.
    pub fn all() -> ListOptions {
        ListOptions::default()
    }

    /// The sessions of one working directory (and its git worktrees).
    pub fn for_dir(dir: impl Into<PathBuf>) -> ListOptions {
        ListOptions {
            dir: Some(dir.into()),
            ..ListOptions::default()
        }
    }

    /// At most `n` sessions.
    pub fn limit(mut self, n: usize) -> ListOptions {
        self.limit = Some(n);
        self
    }

    /// Skip the `n` newest.
    pub fn offset(mut self, n: usize) -> ListOptions {
        self.offset = n;
        self
    }

    /// Only the sessions whose id starts with `prefix` (what a shell's
    /// completion of an id lists).
    pub fn id_prefix(mut self, prefix: impl Into<String>) -> ListOptions {
        self.id_prefix = Some(prefix.into());
        self
    }

    /// Whether to include the other git worktrees of `dir`.
    pub fn include_worktrees(mut self, yes: bool) -> ListOptions {
        self.include_worktrees = yes;
        self
    }
}

/// A file left out of a listing, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Skipped {
    /// The transcript.
    pub path: PathBuf,
    /// Why it is not listed.
    pub reason: SkipReason,
}

/// The sessions found, newest first, and the files that could not be read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Listing {
    /// Newest first (by file modification time, then id).
    pub sessions: Vec<SessionInfo>,
    /// Damaged or unreadable transcripts that were left out.
    pub skipped: Vec<Skipped>,
}

/// A transcript that may be a session.
#[derive(Debug, Clone)]
pub(crate) struct Candidate {
    pub session_id: String,
    pub path: PathBuf,
    pub project_path: Option<Arc<str>>,
    pub worktrees: Option<Arc<[String]>>,
    pub mtime: Option<SystemTime>,
    /// Whether the folder holds an entry named like the session (its side
    /// directory of titles and archive marks).
    pub side: bool,
    /// Not a transcript: a project folder that could not be read, and why.
    /// [`split_unreadable`] takes these out, to be reported.
    pub unreadable: Option<String>,
}

/// The candidates that are transcripts, and the folders that could not be
/// read (reported as skipped, never passed over in silence).
pub(crate) fn split_unreadable(cands: Vec<Candidate>) -> (Vec<Candidate>, Vec<Skipped>) {
    // none unreadable (the usual case): the list as it is, not copied
    if cands.iter().all(|c| c.unreadable.is_none()) {
        return (cands, Vec::new());
    }
    let (bad, good): (Vec<Candidate>, Vec<Candidate>) =
        cands.into_iter().partition(|c| c.unreadable.is_some());
    let skipped = bad
        .into_iter()
        .map(|c| Skipped {
            path: c.path,
            reason: SkipReason::Unreadable(c.unreadable.unwrap_or_default()),
        })
        .collect();
    (good, skipped)
}

impl Candidate {
    /// A folder that could not be read, to be reported.
    pub(crate) fn unreadable(path: &Path, e: &super::StoreError) -> Candidate {
        Candidate::passed(path.to_path_buf(), e.to_string())
    }

    /// A folder passed over, and why, to be reported.
    pub(crate) fn passed(path: PathBuf, why: String) -> Candidate {
        Candidate {
            session_id: String::new(),
            path,
            project_path: None,
            worktrees: None,
            mtime: None,
            side: false,
            unreadable: Some(why),
        }
    }

    fn project(&self) -> Option<Project<'_>> {
        self.project_path.as_deref().map(|path| Project {
            path,
            worktrees: self.worktrees.as_deref(),
        })
    }
}

/// Run `f` over `items` on a few threads; results in the items' order.
///
/// Up to [`FEW`] items, the calling thread starts on them alone, and the
/// others (one fewer than the cores, at most 8 in all, one per 8 items
/// left) are started only once it has worked for [`SPAWN_AFTER`] with
/// items left: work that is over by then (a status line's few lookups)
/// costs no thread, no thread's stack and arena, and no look at the
/// cores. More items start them at once (a long first item would
/// otherwise hold the rest back). Which thread maps an item never changes
/// the answer: each result goes to its item's place.
pub(crate) fn parallel_map<T, R, F>(items: &[T], f: F) -> Vec<R>
where
    T: Sync,
    R: Send,
    F: Fn(&T) -> R + Sync,
{
    let alone = if items.len() > FEW {
        Duration::ZERO
    } else {
        SPAWN_AFTER
    };
    parallel_map_after(items, f, alone)
}

/// Up to this many items, [`parallel_map`] starts other threads only
/// when the work takes a while.
const FEW: usize = 64;

/// How long the calling thread of [`parallel_map`] works alone before
/// other threads are started: a few times what starting one costs.
const SPAWN_AFTER: Duration = Duration::from_micros(300);

/// [`parallel_map`], the other threads started after `alone` (zero: at
/// once, before any item is mapped).
pub(crate) fn parallel_map_after<T, R, F>(items: &[T], f: F, alone: Duration) -> Vec<R>
where
    T: Sync,
    R: Send,
    F: Fn(&T) -> R + Sync,
{
    if items.len() <= 1 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    // each thread's loop: the next item not taken, until none is left
    let work = |out: &mut Vec<(usize, R)>, stop: &mut dyn FnMut() -> bool| loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(it) = items.get(i) else { break };
        out.push((i, f(it)));
        if stop() {
            break;
        }
    };
    let mut parts: Vec<Vec<(usize, R)>> = std::thread::scope(|s| {
        let started = std::time::Instant::now();
        // alone until `alone` has passed with items left (a few items:
        // room for all of them, not grown item by item)
        let mut mine = Vec::new();
        if !alone.is_zero() {
            mine.reserve_exact(items.len());
            work(&mut mine, &mut || {
                next.load(Ordering::Relaxed) < items.len() && started.elapsed() >= alone
            });
        }
        let left = items.len().saturating_sub(next.load(Ordering::Relaxed));
        let mut handles = Vec::new();
        if left > 0 {
            let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
            let workers = cores.clamp(1, 8).min(left.div_ceil(8).max(1));
            for _ in 1..workers {
                handles.push(s.spawn(|| {
                    let mut out = Vec::new();
                    work(&mut out, &mut || false);
                    out
                }));
            }
            work(&mut mine, &mut || false);
        }
        let mut parts = vec![mine];
        parts.extend(
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))),
        );
        parts
    });
    // this thread's alone: mapped one after another, in order already
    if parts.len() == 1 {
        return parts.pop().into_iter().flatten().map(|(_, r)| r).collect();
    }
    let mut slots: Vec<Option<R>> = std::iter::repeat_with(|| None).take(items.len()).collect();
    for part in parts.iter_mut() {
        for (i, r) in part.drain(..) {
            slots[i] = Some(r);
        }
    }
    slots
        .into_iter()
        .map(|r| r.expect("every item mapped"))
        .collect()
}

/// A folder passed over, and why.
pub(crate) type Passed = (PathBuf, String);

/// The project folders of the projects folder: its sub-folders, and the
/// links in it to a folder of the person's own (see [`linked_folder`]).
/// The links to anything else that a folder could be (a folder of another
/// user, a target that cannot be reached) are given back apart, with why,
/// to be named; a link to a file is not a project folder.
pub(crate) fn project_folders(projects: &Path) -> StoreResult<(Vec<PathBuf>, Vec<Passed>)> {
    let rd = match std::fs::read_dir(projects) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), Vec::new())),
        Err(e) => return Err(io_err(projects)(e)),
    };
    let (mut out, mut links) = (Vec::new(), Vec::new());
    for e in rd.flatten() {
        match e.file_type() {
            Ok(t) if t.is_dir() => out.push(e.path()),
            Ok(t) if t.is_symlink() => match linked_folder(&e.path()) {
                Ok(true) => out.push(e.path()),
                Ok(false) => {}
                Err(why) => links.push((e.path(), why.to_string())),
            },
            _ => {}
        }
    }
    out.sort();
    links.sort();
    Ok((out, links))
}

/// Whether the link `path` is to a folder of the person's own: one owned
/// by the user claudio runs as (a project folder moved to another disk and
/// linked back). `Ok(false)`: a link to something else than a folder.
/// `Err(why)`: a link to a folder of another user (never read: whoever
/// could write the link could point it at someone's files), or one whose
/// target cannot be reached.
pub(crate) fn linked_folder(path: &Path) -> Result<bool, LinkRefused> {
    use std::os::unix::fs::MetadataExt;
    match std::fs::metadata(path) {
        Ok(m) if !m.is_dir() => Ok(false),
        Ok(m) if m.uid() == rustix::process::geteuid().as_raw() => Ok(true),
        Ok(m) => Err(LinkRefused::OtherUser(m.uid())),
        Err(e) => Err(LinkRefused::Unreachable(e)),
    }
}

/// Why a link in the projects folder is not followed ([`linked_folder`]).
#[derive(Debug, thiserror::Error)]
pub(crate) enum LinkRefused {
    #[error("a link to a folder of another user (uid {0}): not followed")]
    OtherUser(u32),
    #[error("a link whose target cannot be reached: {0}")]
    Unreachable(std::io::Error),
}

/// The `<uuid>.jsonl` files of one project folder (`<uuid>.jsonl.zst` in
/// an archive: `packed`).
pub(crate) fn candidates_in(
    folder: &Path,
    project_path: Option<&Arc<str>>,
    worktrees: Option<&Arc<[String]>>,
    packed: bool,
) -> Vec<Candidate> {
    let ext = if packed {
        super::open::PACKED_EXT
    } else {
        ".jsonl"
    };
    let rd = match std::fs::read_dir(folder) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Vec::new(),
        Err(e) => {
            return vec![Candidate {
                session_id: String::new(),
                path: folder.to_path_buf(),
                project_path: None,
                worktrees: None,
                mtime: None,
                side: false,
                unreadable: Some(e.to_string()),
            }]
        }
    };
    let mut out = Vec::new();
    let mut others = std::collections::HashSet::new();
    for e in rd.flatten() {
        let name = e.file_name();
        let Some(name) = name.to_str() else { continue };
        let Some(id) = name.strip_suffix(ext) else {
            others.insert(name.to_owned());
            continue;
        };
        if !is_uuid(id) {
            continue;
        }
        out.push(Candidate {
            session_id: id.to_owned(),
            path: e.path(),
            project_path: project_path.cloned(),
            worktrees: worktrees.cloned(),
            mtime: None,
            side: false,
            unreadable: None,
        });
    }
    for c in &mut out {
        c.side = others.contains(&c.session_id);
    }
    out
}

/// Every transcript of every project (and the project folders passed
/// over, to be named).
pub(crate) fn all_candidates(projects: &Path, packed: bool) -> StoreResult<Vec<Candidate>> {
    let (folders, links) = project_folders(projects)?;
    let mut out: Vec<Candidate> = parallel_map(&folders, |f| candidates_in(f, None, None, packed))
        .into_iter()
        .flatten()
        .collect();
    out.extend(
        links
            .into_iter()
            .map(|(path, why)| Candidate::passed(path, why)),
    );
    Ok(out)
}

/// Whether `path` is a project folder to read: a folder, or a link to a
/// folder of the person's own.
fn is_project_folder(path: &Path) -> bool {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => true,
        Ok(m) if m.file_type().is_symlink() => matches!(linked_folder(path), Ok(true)),
        _ => false,
    }
}

/// The folders that hold sessions recorded in `path`: its own, and for a
/// long path the cut-and-hashed ones that share its prefix and whose
/// sessions say they were recorded there.
pub(crate) fn folders_for(projects: &Path, path: &str) -> Vec<PathBuf> {
    let name = project_folder_name(path);
    let exact = projects.join(&name);
    let mut out = Vec::new();
    if is_project_folder(&exact) {
        out.push(exact.clone());
    }
    if name.len() <= MAX_FOLDER_NAME {
        return out;
    }
    let prefix = format!("{}-", &name[..MAX_FOLDER_NAME]);
    let Ok(rd) = std::fs::read_dir(projects) else {
        return out;
    };
    let mut more: Vec<PathBuf> = rd
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| n.starts_with(&prefix))
        })
        .filter(|e| is_project_folder(&e.path()))
        .map(|e| e.path())
        .filter(|p| *p != exact && folder_recorded_in(p, path))
        .collect();
    more.sort();
    out.extend(more);
    out
}

/// Whether some session in the folder was recorded in a directory whose
/// name maps like `path`.
fn folder_recorded_in(folder: &Path, path: &str) -> bool {
    let want = sanitize_path(path);
    let Ok(rd) = std::fs::read_dir(folder) else {
        return false;
    };
    rd.flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| n.ends_with(".jsonl") || n.ends_with(super::open::PACKED_EXT))
        })
        .any(|e| {
            matches!(
                super::either::read_head_tail(&e.path()),
                Ok(Some(ht)) if recorded_cwd(&ht).is_some_and(|c| sanitize_path(&c) == want)
            )
        })
}

/// The worktrees of the git repository at `dir` (`git worktree list`);
/// empty when it is not one, git is missing, or it takes over 5 s.
pub(crate) fn git_worktrees(dir: &Path) -> Vec<String> {
    use crate::child::{self, Ended};
    let mut cmd = Command::new("git");
    cmd.args([
        "-c",
        "core.hooksPath=/dev/null",
        "-c",
        "core.fsmonitor=",
        "worktree",
        "list",
        "--porcelain",
    ])
    .current_dir(dir);
    let done = match child::run(cmd, child::Run::new(Duration::from_secs(5))) {
        Ok(done) => done,
        Err(_) => return Vec::new(),
    };
    if !matches!(done.ended, Ended::Exited(s) if s.success()) {
        return Vec::new();
    }
    String::from_utf8_lossy(&done.output)
        .lines()
        .filter_map(|l| l.strip_prefix("worktree "))
        .map(str::to_owned)
        .collect()
}

/// The transcripts of one working directory and its worktrees.
pub(crate) fn dir_candidates(
    projects: &Path,
    dir: &Path,
    include_worktrees: bool,
    packed: bool,
) -> StoreResult<Vec<Candidate>> {
    let abs = if dir.is_absolute() {
        dir.to_path_buf()
    } else {
        std::env::current_dir().map_err(io_err(dir))?.join(dir)
    };
    let real = std::fs::canonicalize(&abs).unwrap_or(abs);
    let path: Arc<str> = real.to_string_lossy().into();
    let worktrees = if include_worktrees {
        git_worktrees(&real)
    } else {
        Vec::new()
    };
    // the directory's own folder, a link that is not followed: named
    let exact = projects.join(project_folder_name(&path));
    let passed: Vec<Candidate> = match std::fs::symlink_metadata(&exact) {
        Ok(m) if m.file_type().is_symlink() => match linked_folder(&exact) {
            Err(why) => vec![Candidate::passed(exact, why.to_string())],
            Ok(_) => Vec::new(),
        },
        _ => Vec::new(),
    };
    if worktrees.len() <= 1 {
        let mut out: Vec<Candidate> = folders_for(projects, &path)
            .iter()
            .flat_map(|f| candidates_in(f, Some(&path), None, packed))
            .collect();
        out.extend(passed);
        return Ok(out);
    }
    let mut own: Vec<String> = vec![path.to_string()];
    own.extend(worktrees.iter().cloned());
    let own: Arc<[String]> = own.into();
    let mut seen = HashSet::new();
    let mut out = passed;
    for f in folders_for(projects, &path) {
        if let Some(n) = f.file_name() {
            seen.insert(n.to_string_lossy().into_owned());
        }
        out.extend(candidates_in(&f, Some(&path), Some(&own), packed));
    }
    let mut wts: Vec<(Arc<str>, String)> = worktrees
        .iter()
        .map(|w| (Arc::from(w.as_str()), project_folder_name(w)))
        .collect();
    wts.sort_by_key(|(_, name)| std::cmp::Reverse(name.len()));
    for folder in project_folders(projects)?.0 {
        let Some(name) = folder.file_name().map(|n| n.to_string_lossy().into_owned()) else {
            continue;
        };
        if seen.contains(&name) {
            continue;
        }
        for (wt, exact) in &wts {
            let by_prefix = exact.len() > MAX_FOLDER_NAME
                && name.starts_with(&format!("{}-", &exact[..MAX_FOLDER_NAME]))
                && folder_recorded_in(&folder, wt);
            if name == *exact || by_prefix {
                seen.insert(name.clone());
                out.extend(candidates_in(&folder, Some(wt), Some(&own), packed));
                break;
            }
        }
    }
    Ok(out)
}

fn newest_first(a: (i64, &str), b: (i64, &str)) -> std::cmp::Ordering {
    b.0.cmp(&a.0).then_with(|| b.1.cmp(a.1))
}

/// Read the candidates and build the listing, with the listing index
/// when the cache folder can be used.
pub(crate) fn list_candidates(cands: Vec<Candidate>, opts: &ListOptions) -> Listing {
    list_candidates_with(cands, opts, ListIndex::open())
}

/// [`list_candidates`] with `index` (none: every transcript's ends read).
pub(crate) fn list_candidates_with(
    cands: Vec<Candidate>,
    opts: &ListOptions,
    index: Option<ListIndex>,
) -> Listing {
    let (mut cands, skipped) = split_unreadable(cands);
    if let Some(p) = opts.id_prefix.as_deref().filter(|p| !p.is_empty()) {
        cands.retain(|c| {
            c.session_id
                .get(..p.len())
                .is_some_and(|s| s.eq_ignore_ascii_case(p))
        });
    }
    let listing = Listing {
        skipped,
        ..Listing::default()
    };
    let paged = opts.limit.is_some_and(|l| l > 0) || opts.offset > 0;
    // what the ends of unchanged transcripts said, kept (the listing index)
    let scan = |c: &Candidate| match &index {
        Some(ix) => scan_file_indexed(&c.path, &c.session_id, c.project(), c.side, ix),
        None => scan_file(&c.path, &c.session_id, c.project(), c.side),
    };
    // a listing of every project drops the records of transcripts gone
    let prune = opts.dir.is_none() && opts.id_prefix.is_none() && !paged;
    let listing = scan_listing(cands, opts, listing, paged, &scan);
    if let Some(ix) = index {
        ix.finish(prune);
    }
    listing
}

fn scan_listing(
    mut cands: Vec<Candidate>,
    opts: &ListOptions,
    mut listing: Listing,
    paged: bool,
    scan: &(dyn Fn(&Candidate) -> Scanned + Sync),
) -> Listing {
    if !paged {
        let scanned = parallel_map(&cands, scan);
        let mut by_id: HashMap<String, SessionInfo> = HashMap::new();
        for (c, s) in cands.iter().zip(scanned) {
            match s {
                Scanned::Session(info) => match by_id.get(&info.session_id) {
                    Some(prev) if prev.last_modified >= info.last_modified => {}
                    _ => {
                        by_id.insert(info.session_id.clone(), *info);
                    }
                },
                Scanned::NotASession => {}
                Scanned::Skipped(reason) => listing.skipped.push(Skipped {
                    path: c.path.clone(),
                    reason,
                }),
            }
        }
        let mut sessions: Vec<SessionInfo> = by_id.into_values().collect();
        sessions.sort_by(|a, b| {
            newest_first(
                (a.last_modified, &a.session_id),
                (b.last_modified, &b.session_id),
            )
        });
        listing.sessions = sessions;
        return listing;
    }
    // Paged: order by the files' times first, then read only as many as needed.
    let times = parallel_map(&cands, |c| {
        std::fs::metadata(&c.path).and_then(|m| m.modified()).ok()
    });
    for (c, t) in cands.iter_mut().zip(times) {
        c.mtime = t;
    }
    cands.retain(|c| c.mtime.is_some());
    let ms = |c: &Candidate| c.mtime.map_or(0, super::time::millis_of);
    cands.sort_by(|a, b| newest_first((ms(a), &a.session_id), (ms(b), &b.session_id)));
    let limit = opts.limit.filter(|l| *l > 0).unwrap_or(usize::MAX);
    let mut seen = HashSet::new();
    let mut skipped_first = 0;
    for chunk in cands.chunks(64) {
        if listing.sessions.len() >= limit {
            break;
        }
        let scanned = parallel_map(chunk, scan);
        for (c, s) in chunk.iter().zip(scanned) {
            if listing.sessions.len() >= limit {
                break;
            }
            match s {
                Scanned::Session(mut info) => {
                    if !seen.insert(info.session_id.clone()) {
                        continue;
                    }
                    if skipped_first < opts.offset {
                        skipped_first += 1;
                        continue;
                    }
                    if c.mtime.is_some() {
                        info.last_modified = ms(c);
                    }
                    listing.sessions.push(*info);
                }
                Scanned::NotASession => {}
                Scanned::Skipped(reason) => listing.skipped.push(Skipped {
                    path: c.path.clone(),
                    reason,
                }),
            }
        }
    }
    listing
}

#[cfg(test)]
mod parallel_tests {
    use super::*;

    /// Each item's result in its place, whenever the other threads start:
    /// at once, after a few items, or never.
    #[test]
    fn parallel_map_gives_each_result_in_its_items_place() {
        for n in [0usize, 1, 2, 7, 8, 9, 100, 1000] {
            let items: Vec<usize> = (0..n).collect();
            let want: Vec<usize> = items.iter().map(|i| i * 3 + 1).collect();
            for alone in [
                Duration::ZERO,
                Duration::from_micros(50),
                Duration::from_secs(3600),
            ] {
                let got = parallel_map_after(&items, |i| i * 3 + 1, alone);
                assert_eq!(got, want, "{n} items, alone for {alone:?}");
            }
            assert_eq!(parallel_map(&items, |i| i * 3 + 1), want);
        }
    }

    /// Work over before the calling thread has worked alone for its time
    /// starts no thread: every item is mapped on the calling thread.
    #[test]
    fn quick_work_is_done_on_the_calling_thread() {
        let items: Vec<usize> = (0..64).collect();
        let me = std::thread::current().id();
        let threads = parallel_map_after(
            &items,
            |_| std::thread::current().id(),
            Duration::from_secs(3600),
        );
        assert!(threads.iter().all(|t| *t == me));
    }

    /// Started at once, the other threads share the items: each is mapped
    /// once (the count of calls equals the items), on however many threads.
    #[test]
    fn every_item_is_mapped_once_when_threads_start_at_once() {
        let items: Vec<usize> = (0..500).collect();
        let calls = AtomicUsize::new(0);
        let got = parallel_map_after(
            &items,
            |i| {
                calls.fetch_add(1, Ordering::Relaxed);
                *i
            },
            Duration::ZERO,
        );
        assert_eq!(got, items);
        assert_eq!(calls.load(Ordering::Relaxed), items.len());
    }
}
