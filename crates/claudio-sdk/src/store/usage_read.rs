//! Usage read through the usage index: a session's, many sessions', a
//! listing's. Above both the transcripts' usage (`usage.rs`: what a file
//! records) and the index (`usage_index.rs`: what was recorded, kept).

use super::error::{StoreError, StoreResult};
use super::usage::*;
use super::usage_index::{Index, Scope};
use super::usage_types::*;
use std::path::{Path, PathBuf};

/// Read one session's usage: the transcript at `path` (prompts counted or
/// not) and the sub-agent transcripts beside it, each opened as the store
/// opens every file (a link, a FIFO or a device is refused, and named in
/// `skipped`).
///
/// With `ix`, each file is looked up in the usage index first, and read
/// only when it changed since it was indexed.
/// `side`: whether the folder may hold the session's own (of its
/// sub-agents); a listing knows when it holds none, and looks no further.
pub(super) fn read_session(
    path: &Path,
    prompts: bool,
    ix: Option<&Index>,
    side: bool,
) -> StoreResult<SessionUsage> {
    read_session_as(path, None, prompts, ix, side)
}

/// [`read_session`], the session's id `id` when the caller knows it (a
/// listing's candidate), else its file's name without `.jsonl`.
fn read_session_as(
    path: &Path,
    id: Option<&str>,
    prompts: bool,
    ix: Option<&Index>,
    side: bool,
) -> StoreResult<SessionUsage> {
    let read_file = |path: &Path, prompts: bool| -> StoreResult<(FileUsage, i64)> {
        if let Some(ix) = ix {
            let r = ix.read(path, prompts)?;
            return Ok((r.usage, r.modified_ms));
        }
        // an archived transcript's from its usage summary, when it holds
        let (usage, meta) = super::usage::file_usage_of(path, prompts)?;
        let last_modified = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_millis() as i64);
        Ok((usage, last_modified))
    };
    let (usage, last_modified) = read_file(path, prompts)?;
    let mut subagents = Vec::new();
    let mut skipped = Vec::new();
    let unreadable = |path: PathBuf, e: &StoreError| super::Skipped {
        path,
        reason: super::SkipReason::Unreadable(reason_of(e)),
    };
    let agents = if side {
        super::subagents::subagents_of(path, false)
    } else {
        Ok(Vec::new())
    };
    match agents {
        Ok(agents) => {
            for agent in agents {
                match read_file(&agent.path, false) {
                    Ok((usage, _)) => subagents.push(SubagentUsage { agent, usage }),
                    Err(e) => skipped.push(unreadable(agent.path, &e)),
                }
            }
        }
        Err(e) => skipped.push(unreadable(
            super::subagents::side_dir(path).join("subagents"),
            &e,
        )),
    }
    Ok(SessionUsage {
        session_id: match id {
            Some(id) => id.to_owned(),
            None => path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
        },
        path: path.to_path_buf(),
        last_modified,
        without_subagents: usage,
        subagents,
        skipped,
    })
}

/// Read what a session used: its transcript at `path` and its sub-agents'
/// transcripts (`<session>/subagents/agent-*.jsonl`), prompts counted.
/// [`Store::session_usage`](super::Store::session_usage) finds the file by
/// id; [`file_usage`] reads one file alone.
///
/// ```no_run
/// use claudio::store::{session_usage, Store};
/// let file = Store::from_env()?.find("b55ade39")?;
/// let session = session_usage(&file.path)?;
/// for agent in &session.subagents {
///     let what = agent.agent.description.as_deref().unwrap_or("");
///     println!("{} ({what}): {} tokens", agent.agent.agent_id, agent.usage.tokens().total());
/// }
/// # Ok::<(), claudio::store::StoreError>(())
/// ```
pub fn session_usage(path: &Path) -> StoreResult<SessionUsage> {
    let ix = Index::open();
    let out = read_session(path, true, ix.as_ref(), true);
    if let Some(ix) = ix {
        ix.finish(None, true);
    }
    out
}

/// [`session_usage`] of each of `paths`, in their order, read on a few
/// threads: what a listing that shows each session's usage calls once, so
/// that the usage index is written once, at the end, with all it learnt
/// (one [`session_usage`] call after another writes it at most once a
/// second, and not after the last).
///
/// ```no_run
/// use claudio::store::{sessions_usage, Store};
/// let listing = Store::from_env()?.list(&Default::default())?;
/// let paths: Vec<_> = listing.sessions.iter().map(|s| s.path.clone()).collect();
/// for (s, u) in listing.sessions.iter().zip(sessions_usage(&paths)) {
///     let tokens = u.map_or(0, |u| u.total().tokens().total());
///     println!("{}: {tokens} tokens", s.session_id);
/// }
/// # Ok::<(), claudio::store::StoreError>(())
/// ```
pub fn sessions_usage<P: AsRef<Path> + Sync>(paths: &[P]) -> Vec<StoreResult<SessionUsage>> {
    let ix = Index::open();
    let out =
        super::list::parallel_map(paths, |p| read_session(p.as_ref(), true, ix.as_ref(), true));
    if let Some(ix) = ix {
        ix.finish(None, false);
    }
    out
}

impl super::Store {
    /// The usage of every session of `dir` (and its git worktrees), or of
    /// every project, oldest first (the order in which [`UsageSet`] counts a
    /// resumed session's repeated messages once), each with its sub-agents.
    /// Files are read on a few threads; unreadable ones are left out and
    /// named in `skipped` (a sub-agent's also in its session's `skipped`).
    ///
    /// What each transcript records is kept in a usage index in claudio's
    /// cache folder (`$CLAUDIO_CACHE_DIR`, else `$XDG_CACHE_HOME/claudio`,
    /// else `~/.cache/claudio`; a relative `$CLAUDIO_CACHE_DIR` turns it
    /// off): an unchanged transcript is not read again, an appended one
    /// only from where it was read to. The answers are a full read's; the
    /// index is safe to delete, and one that cannot be used is rebuilt or
    /// done without. [`session_usage`] and
    /// [`usage_since`](Self::usage_since) use it too.
    ///
    /// Counted across sessions with a [`UsageSet`], so that what a resumed
    /// session repeats is counted once:
    ///
    /// ```no_run
    /// use claudio::store::{Store, UsageSet};
    /// let store = Store::from_env()?;
    /// let mut counted = UsageSet::default();
    /// let mut output = 0u64;
    /// for session in store.usage(None)?.sessions {
    ///     // the session's own messages, then its sub-agents'
    ///     for m in session.messages() {
    ///         output = output.saturating_add(counted.add_message(m).output);
    ///     }
    /// }
    /// println!("{output} output tokens, each counted once");
    /// # Ok::<(), claudio::store::StoreError>(())
    /// ```
    pub fn usage(&self, dir: Option<&Path>) -> StoreResult<UsageListing> {
        let cands = self.candidates(dir, true)?;
        let (cands, skipped) = super::list::split_unreadable(cands);
        Ok(read_listing(&cands, skipped, &cands))
    }

    /// [`usage`](Self::usage), but only of the transcripts last written at
    /// or after `since` (ms since the epoch): one `lstat` per transcript,
    /// and only the recent ones are read. For what was used lately (today,
    /// the open 5-hour window) without reading every transcript: a message
    /// recorded since then is in a file written since then. A transcript
    /// whose time cannot be read is read (and named if it cannot be).
    /// The usage index is used only when reading the recent transcripts
    /// whole would cost more than loading it (a status line reading a few
    /// of today's does without it).
    ///
    /// ```no_run
    /// use claudio::store::Store;
    /// let day_ago = std::time::SystemTime::now()
    ///     .duration_since(std::time::UNIX_EPOCH)
    ///     .map_or(0, |d| d.as_millis() as i64 - 86_400_000);
    /// let recent = Store::from_env()?.usage_since(None, day_ago)?;
    /// println!("{} sessions written in the last 24 hours", recent.sessions.len());
    /// # Ok::<(), claudio::store::StoreError>(())
    /// ```
    pub fn usage_since(&self, dir: Option<&Path>, since: i64) -> StoreResult<UsageListing> {
        Ok(self.recent_usage(dir)?.since(since))
    }

    /// The transcripts of [`usage_since`](Self::usage_since) and their
    /// times, found once (a `readdir` a folder, an `lstat` a transcript):
    /// [`RecentUsage::since`] then reads those written since a time, as
    /// often as asked, without looking at the folders again. For a reader
    /// that goes back further while what it read asks for it (the status
    /// line's 5-hour chain).
    ///
    /// ```no_run
    /// use claudio::store::Store;
    /// let recent = Store::from_env()?.recent_usage(None)?;
    /// let day = recent.since(1_700_000_000_000);
    /// let week = recent.since(1_700_000_000_000 - 6 * 86_400_000);
    /// assert!(day.sessions.len() <= week.sessions.len());
    /// # Ok::<(), claudio::store::StoreError>(())
    /// ```
    pub fn recent_usage(&self, dir: Option<&Path>) -> StoreResult<RecentUsage> {
        let cands = self.candidates(dir, true)?;
        let (cands, skipped) = super::list::split_unreadable(cands);
        let timed = stat_all(&cands);
        Ok(RecentUsage {
            cands,
            timed,
            skipped,
            index: None,
        })
    }
}

/// Each candidate's time (ms since the epoch; `None` when its `lstat`
/// fails) and what reading it costs ([`read_cost`]), in the candidates'
/// order. A folder's transcripts are looked at from the folder (one
/// `open` of it, then an `fstatat` by name: the kernel walks one name a
/// file, not the whole path); the folders on a few threads.
fn stat_all(cands: &[super::list::Candidate]) -> Vec<(Option<i64>, u64)> {
    // runs of the same folder (a listing gives a folder's files together)
    let mut runs: Vec<std::ops::Range<usize>> = Vec::new();
    for (i, c) in cands.iter().enumerate() {
        match runs.last_mut() {
            Some(r) if cands[r.start].path.parent() == c.path.parent() => r.end = i + 1,
            _ => runs.push(i..i + 1),
        }
    }
    let parts = super::list::parallel_map(&runs, |r| stat_folder(&cands[r.clone()]));
    parts.into_iter().flatten().collect()
}

/// [`stat_all`] of candidates that are all in one folder, on this thread.
pub(super) fn stat_folder(here: &[super::list::Candidate]) -> Vec<(Option<i64>, u64)> {
    use rustix::fs::{statat, AtFlags, Mode, OFlags, CWD};
    let of_path = |c: &super::list::Candidate| {
        let m = std::fs::symlink_metadata(&c.path).ok();
        let at = m
            .as_ref()
            .and_then(|m| m.modified().ok())
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map(|d| d.as_millis() as i64);
        (at, read_cost(&c.path, m.as_ref()))
    };
    let Some(first) = here.first() else {
        return Vec::new();
    };
    let dir = first.path.parent().and_then(|d| {
        rustix::fs::openat(
            CWD,
            d,
            OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .ok()
    });
    here.iter()
        .map(|c| match (&dir, c.path.file_name()) {
            (Some(dir), Some(name)) => match statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) {
                Ok(st) => {
                    // before the epoch: not known, so read (as `usage_since` did)
                    #[allow(clippy::unnecessary_cast)]
                    let secs = st.st_mtime as i64;
                    let at = (secs >= 0).then(|| {
                        secs.saturating_mul(1000)
                            .saturating_add(st.st_mtime_nsec as i64 / 1_000_000)
                    });
                    (at, read_cost_of(&c.path, st.st_size.max(0) as u64))
                }
                Err(_) => (None, read_cost_of(&c.path, 0)),
            },
            _ => of_path(c),
        })
        .collect()
}

/// The transcripts of a store (or of one folder) and when each was last
/// written, as [`Store::recent_usage`](crate::store::Store::recent_usage) found them.
#[derive(Debug)]
pub struct RecentUsage {
    cands: Vec<super::list::Candidate>,
    /// Each candidate's time (ms since the epoch; `None`: not known, so
    /// read) and what reading it costs ([`read_cost`]).
    timed: Vec<(Option<i64>, u64)>,
    skipped: Vec<super::Skipped>,
    /// A usage index of the recent transcripts alone, read through
    /// whatever their size (see [`RecentUsage::with_index`]).
    index: Option<PathBuf>,
}

impl RecentUsage {
    /// Its parts: the transcripts, their times and costs, what was skipped.
    #[cfg(test)]
    #[allow(clippy::type_complexity)]
    pub(super) fn parts(
        &self,
    ) -> (
        &[super::list::Candidate],
        &[(Option<i64>, u64)],
        &[super::Skipped],
    ) {
        (&self.cands, &self.timed, &self.skipped)
    }

    /// From its parts, in the candidates' order.
    pub(super) fn of(
        cands: Vec<super::list::Candidate>,
        timed: Vec<(Option<i64>, u64)>,
        skipped: Vec<super::Skipped>,
    ) -> RecentUsage {
        RecentUsage {
            cands,
            timed,
            skipped,
            index: None,
        }
    }

    /// Read through a usage index of its own at `file`, which holds the
    /// transcripts last read (and forgets the others): small, so loading
    /// it costs less than reading again the few transcripts it holds.
    pub(super) fn with_index(mut self, file: PathBuf) -> RecentUsage {
        self.index = Some(file);
        self
    }

    /// [`Store::usage_since`](crate::store::Store::usage_since): the usage of the transcripts last written
    /// at or after `since` (ms since the epoch), read now.
    pub fn since(&self, since: i64) -> UsageListing {
        let mut cost = 0u64;
        // the candidates themselves, not copies of them
        let mut recent: Vec<&super::list::Candidate> = Vec::new();
        for (c, (at, c_cost)) in self.cands.iter().zip(&self.timed) {
            if at.is_none_or(|at| at >= since) {
                cost = cost.saturating_add(*c_cost);
                recent.push(c);
            }
        }
        if let Some(file) = &self.index {
            // what it may forget: every transcript but those read now
            let scope = || {
                let mut s = scope_of(self.cands.iter());
                s.found = scope_of(recent.iter().copied()).found;
                s
            };
            return read_listing_in(
                &recent,
                self.skipped.clone(),
                Some(Index::at(file.clone())),
                &scope,
            );
        }
        read_listing_with(
            &recent,
            self.skipped.clone(),
            &self.cands,
            worth_the_index(cost),
        )
    }
}

/// What reading the transcript at `path` whole costs, in bytes of the
/// usage index loaded in the same time. Measured with bench/statusline.sh
/// (10,000 sessions, a 3.7 MB index): loading the index costs about 4 ms
/// a MB, reading a transcript about 0.2 ms a MB (its lines are skipped by
/// a search for the usage field) and 10 µs to open; so a transcript's
/// byte counts for 1/32 of an index byte, an archived one's (decompressed)
/// for 1/4, and opening a file for 4 KiB.
fn read_cost(path: &Path, m: Option<&std::fs::Metadata>) -> u64 {
    read_cost_of(path, m.map_or(0, |m| m.len()))
}

/// [`read_cost`] of a file of `size` bytes.
fn read_cost_of(path: &Path, size: u64) -> u64 {
    let bytes = if super::open::is_packed(path) {
        size / 4
    } else {
        size / 32
    };
    bytes.saturating_add(4 << 10)
}

/// Whether reading a few recent transcripts through the usage index is
/// cheaper than reading them whole: loading the index costs about its
/// size, so a status line that reads today's few transcripts does
/// without it (and is never slower for it).
fn worth_the_index(cost: u64) -> bool {
    let Some(file) = super::usage_index::index_path() else {
        return false;
    };
    // no index yet: nothing to load, and this read starts it
    std::fs::symlink_metadata(file).map_or(true, |m| cost > m.len())
}

/// The folders a listing read, and the transcripts it found in them: what
/// the usage index may forget (a transcript no longer there).
fn scope_of<'a>(cands: impl Iterator<Item = &'a super::list::Candidate> + Clone) -> Scope {
    use std::os::unix::ffi::OsStrExt;
    let bytes = |p: &Path| -> Box<[u8]> { p.as_os_str().as_bytes().into() };
    Scope {
        folders: cands
            .clone()
            .filter_map(|c| c.path.parent().map(bytes))
            .collect(),
        found: cands.map(|c| bytes(&c.path)).collect(),
    }
}

/// Read the sessions of `cands` on a few threads, oldest first; what
/// cannot be read joins `skipped`. Through the usage index when there is
/// one; what it may forget is what is not among `found` (the transcripts
/// the listing found, read or not).
fn read_listing(
    cands: &[super::list::Candidate],
    skipped: Vec<super::Skipped>,
    found: &[super::list::Candidate],
) -> UsageListing {
    let cands: Vec<&super::list::Candidate> = cands.iter().collect();
    read_listing_with(&cands, skipped, found, true)
}

/// [`read_listing`], through the usage index only if `index`.
fn read_listing_with(
    cands: &[&super::list::Candidate],
    skipped: Vec<super::Skipped>,
    found: &[super::list::Candidate],
    index: bool,
) -> UsageListing {
    let ix = if index { Index::open() } else { None };
    read_listing_in(cands, skipped, ix, &|| scope_of(found.iter()))
}

/// [`read_listing`] through `ix`, which may forget what `scope` says.
fn read_listing_in(
    cands: &[&super::list::Candidate],
    mut skipped: Vec<super::Skipped>,
    ix: Option<Index>,
    scope: &dyn Fn() -> Scope,
) -> UsageListing {
    let read = super::list::parallel_map(cands, |c| {
        read_session_as(&c.path, Some(&c.session_id), false, ix.as_ref(), c.side)
    });
    if let Some(ix) = ix {
        ix.finish(Some(scope), false);
    }
    let mut out = Vec::with_capacity(cands.len());
    for (c, r) in cands.iter().zip(read) {
        match r {
            Ok(u) => {
                skipped.extend(u.skipped.iter().cloned());
                out.push(u);
            }
            Err(e) => skipped.push(super::Skipped {
                path: c.path.clone(),
                reason: super::SkipReason::Unreadable(reason_of(&e)),
            }),
        }
    }
    out.sort_by_key(|s| {
        (
            s.without_subagents.first.unwrap_or(s.last_modified),
            s.last_modified,
        )
    });
    UsageListing {
        sessions: out,
        skipped,
    }
}

/// The usage index's file (see [`Store::usage`](super::Store::usage)),
/// where claudio keeps what it learnt of the store between runs; what else
/// it keeps so goes beside it. `None` when the cache folder cannot be used
/// (a relative `$CLAUDIO_CACHE_DIR`, no `HOME`).
///
/// ```no_run
/// if let Some(index) = claudio::store::usage_index_file() {
///     println!("usage index: {}", index.display());
/// }
/// ```
pub fn usage_index_file() -> Option<PathBuf> {
    super::usage_index::index_path()
}

impl super::Store {
    /// The CLI's own figures (its `cost-state` lines, see [`CliCost`]) of
    /// every session of the store, every project's and the archives':
    /// what unit prices are learnt from where a session has none (still
    /// running, an older CLI), in a view of one folder too.
    ///
    /// From the usage index's records, without opening the transcripts
    /// (one `readdir` a project): a record is taken as its transcript was
    /// last read, whether or not it changed since (a `cost-state` written
    /// since is in the record once a read of that transcript meets it). A
    /// transcript the index holds no record of is read, once (the index
    /// keeps what it found); without a usable index, every transcript is
    /// read. A sub-agent's transcript has no `cost-state` of its own (its
    /// session's holds it). Unreadable transcripts are left out.
    ///
    /// ```no_run
    /// use claudio::store::Store;
    /// let costs = Store::from_env()?.cost_states()?;
    /// let usd: f64 = costs.iter().map(|c| c.total_usd).sum();
    /// println!("{} sessions priced by the CLI: ${usd:.2}", costs.len());
    /// # Ok::<(), claudio::store::StoreError>(())
    /// ```
    pub fn cost_states(&self) -> StoreResult<Vec<CliCost>> {
        let cands = self.candidates(None, true)?;
        let ix = Index::open();
        let mut out = Vec::new();
        let mut unread = Vec::new();
        for c in cands.iter().filter(|c| c.unreadable.is_none()) {
            match ix.as_ref().and_then(|ix| ix.cost_state(&c.path)) {
                Some(cost) => out.extend(cost),
                None => unread.push(c.path.as_path()),
            }
        }
        let read = super::list::parallel_map(&unread, |p| match &ix {
            Some(ix) => ix.read(p, false).map(|r| r.usage.cli_cost),
            None => super::usage::file_usage_of(p, false).map(|(u, _)| u.cli_cost),
        });
        out.extend(read.into_iter().flatten().flatten());
        if let Some(ix) = ix {
            ix.finish(None, false);
        }
        Ok(out)
    }

    /// What session `id` (full id or unique prefix) used: [`session_usage`]
    /// of its transcript, sub-agents included.
    ///
    /// ```no_run
    /// use claudio::store::Store;
    /// let session = Store::from_env()?.session_usage("b55ade39")?;
    /// for (model, tokens) in session.total().by_model() {
    ///     println!("{model}: {} tokens", tokens.total());
    /// }
    /// # Ok::<(), claudio::store::StoreError>(())
    /// ```
    pub fn session_usage(&self, id: &str) -> StoreResult<SessionUsage> {
        session_usage(&self.find(id)?.path)
    }
}
