//! The store: one Claude configuration folder's `projects/` tree.

use super::chain::{read_conversation, Conversation};
use super::edit::{self, append_line, clean_label, tag_line, title_line, SessionFile};
use super::either::read_head_tail;
use super::error::{StoreError, StoreResult};
use super::ids::IdQuery;
use super::info::{recorded_cwd, session_info, SessionInfo};
use super::list::{
    all_candidates, dir_candidates, list_candidates, Candidate, ListOptions, Listing,
};
use super::paths::default_config_dir;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The transcripts the Claude Code CLI keeps under `<config>/projects`.
///
/// ```no_run
/// # fn demo() -> Result<(), claudio::store::StoreError> {
/// use claudio::store::{ListOptions, Store};
/// let store = Store::from_env()?;
/// for s in store.list(&ListOptions::all().limit(10))?.sessions {
///     println!("{} {}", s.session_id, s.summary);
/// }
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Store {
    config_dir: PathBuf,
    /// Archives read beside `projects/` (see [`Store::with_archive`]).
    archives: Vec<PathBuf>,
}

/// Where to resume a session: its id and the directory it was recorded in.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ResumeTarget {
    /// The full session id.
    pub id: String,
    /// The working directory recorded in the transcript (the CLI must be
    /// started there to find the session).
    pub cwd: PathBuf,
    /// The transcript (in the store: a session only an archive held is
    /// restored first, see `restored`).
    pub path: PathBuf,
    /// Whether the session was only in an archive (the CLI had deleted
    /// it) and was restored into the store to be resumed.
    pub restored: bool,
}

impl Store {
    /// The store of a Claude configuration folder (the one holding `projects/`).
    ///
    /// ```
    /// use claudio::store::{ListOptions, Store, StoreError};
    /// let dir = std::env::temp_dir().join(format!("claudio-doc-store-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir)?;
    /// let store = Store::new(&dir);
    /// assert_eq!(store.projects_dir(), dir.join("projects"));
    /// assert!(store.list(&ListOptions::all())?.sessions.is_empty());
    /// assert!(matches!(store.find("b55ade39"), Err(StoreError::NotFound(_))));
    /// std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(config_dir: impl Into<PathBuf>) -> Store {
        Store {
            config_dir: config_dir.into(),
            archives: Vec::new(),
        }
    }

    /// Also read the archive folder `dir` (as [`Store::archive_to`] writes
    /// it): its sessions are listed, searched, counted and shown with the
    /// store's, marked [`SessionInfo::from_archive`]. A session in both is
    /// read from the store. Archived sessions are never changed: rename,
    /// tag, fork and delete give [`StoreError::OnlyInArchive`], and
    /// [`Store::restore`] brings one back. Call it again to add more
    /// archives (the first one holding a session wins).
    ///
    /// ```
    /// use claudio::store::Store;
    /// let store = Store::new("/home/me/.claude").with_archive("/home/me/.local/share/claudio/archive");
    /// assert_eq!(store.archive_dirs().len(), 1);
    /// ```
    #[cfg(feature = "archive")]
    pub fn with_archive(mut self, dir: impl Into<PathBuf>) -> Store {
        self.archives.push(dir.into());
        self
    }

    /// The archive folders read beside the store (none unless
    /// `with_archive`, feature `archive`, added one).
    pub fn archive_dirs(&self) -> &[PathBuf] {
        &self.archives
    }

    /// The transcripts of `dir` (and its worktrees) or of every project,
    /// in the store and then in the archives; an archived session that is
    /// also in the store (or an earlier archive) is left out.
    pub(crate) fn candidates(
        &self,
        dir: Option<&Path>,
        worktrees: bool,
    ) -> StoreResult<Vec<Candidate>> {
        let of = |root: &Path, packed: bool| match dir {
            Some(d) => dir_candidates(root, d, worktrees, packed),
            None => all_candidates(root, packed),
        };
        let mut out = of(&self.projects_dir(), false)?;
        if self.archives.is_empty() {
            return Ok(out);
        }
        let mut seen: std::collections::HashSet<String> = out
            .iter()
            .filter(|c| c.unreadable.is_none())
            .map(|c| c.session_id.to_ascii_lowercase())
            .collect();
        for root in &self.archives {
            let more = match of(root, true) {
                Ok(more) => more,
                // a missing archive has nothing; another fault is named
                Err(e) => vec![Candidate::unreadable(root, &e)],
            };
            let mut here = Vec::new();
            for c in more {
                if c.unreadable.is_some() || !seen.contains(&c.session_id.to_ascii_lowercase()) {
                    here.push(c);
                }
            }
            seen.extend(
                here.iter()
                    .filter(|c| c.unreadable.is_none())
                    .map(|c| c.session_id.to_ascii_lowercase()),
            );
            out.extend(here);
        }
        Ok(out)
    }

    /// [`find`](Store::find), for a change: a session only in an archive is
    /// [`StoreError::OnlyInArchive`].
    fn find_live(&self, id: &str) -> StoreResult<SessionFile> {
        let file = self.find(id)?;
        if super::open::is_packed(&file.path) {
            return Err(StoreError::OnlyInArchive(file.id));
        }
        Ok(file)
    }

    /// The store claudio reads: the configuration folder `config_dir`, else
    /// the CLI's ([`Store::from_env`]); with the feature `archive`, and
    /// claudio's archive (`default_archive_dir`) read beside it when that
    /// folder is there. An archive that cannot be named (a relative
    /// `$CLAUDIO_ARCHIVE_DIR`, no `HOME`) or is not a folder is not read:
    /// the store is opened without one.
    ///
    /// ```
    /// use claudio::store::Store;
    /// let store = Store::open(Some(std::path::Path::new("/home/me/.claude")))?;
    /// assert_eq!(store.projects_dir(), std::path::Path::new("/home/me/.claude/projects"));
    /// # Ok::<(), claudio::store::StoreError>(())
    /// ```
    pub fn open(config_dir: Option<&Path>) -> StoreResult<Store> {
        let store = match config_dir {
            Some(d) => Store::new(d),
            None => Store::from_env()?,
        };
        #[cfg(feature = "archive")]
        if let Ok(dir) = super::paths::default_archive_dir() {
            if std::fs::metadata(&dir).is_ok_and(|m| m.is_dir()) {
                return Ok(store.with_archive(dir));
            }
        }
        Ok(store)
    }

    /// The same store without the archives read beside it.
    ///
    /// ```
    /// use claudio::store::Store;
    /// let store = Store::new("/home/me/.claude").without_archives();
    /// assert!(store.archive_dirs().is_empty());
    /// ```
    pub fn without_archives(mut self) -> Store {
        self.archives.clear();
        self
    }

    /// The store the CLI uses: `$CLAUDE_CONFIG_DIR`, else `~/.claude`.
    ///
    /// ```no_run
    /// let store = claudio::store::Store::from_env()?;
    /// println!("sessions are under {}", store.projects_dir().display());
    /// # Ok::<(), claudio::store::StoreError>(())
    /// ```
    pub fn from_env() -> StoreResult<Store> {
        default_config_dir().map(Store::new)
    }

    /// The configuration folder.
    pub fn config_dir(&self) -> &Path {
        &self.config_dir
    }

    /// The `projects` folder with one sub-folder per working directory.
    pub fn projects_dir(&self) -> PathBuf {
        self.config_dir.join("projects")
    }

    /// List sessions, newest first. Only the first and last 64 KiB of each
    /// transcript are read, several files at a time; damaged files are
    /// reported in [`Listing::skipped`], never fatal.
    ///
    /// What the ends of each transcript said is kept in a listing index in
    /// claudio's cache folder (`$CLAUDIO_CACHE_DIR`, else
    /// `$XDG_CACHE_HOME/claudio`, else `~/.cache/claudio`; a relative
    /// `$CLAUDIO_CACHE_DIR` turns it off): a transcript whose device,
    /// inode, size and times are unchanged is not read again. The answers
    /// are a full reading's; the index is safe to delete.
    ///
    /// ```no_run
    /// use claudio::store::{ListOptions, Store};
    /// let store = Store::from_env()?;
    /// let listing = store.list(&ListOptions::for_dir("/home/me/project").limit(20))?;
    /// for s in &listing.sessions {
    ///     println!("{} [{}] {}", s.session_id, s.git_branch.as_deref().unwrap_or("-"), s.summary);
    /// }
    /// for skipped in &listing.skipped {
    ///     eprintln!("left out {}: {}", skipped.path.display(), skipped.reason);
    /// }
    /// # Ok::<(), claudio::store::StoreError>(())
    /// ```
    pub fn list(&self, opts: &ListOptions) -> StoreResult<Listing> {
        let cands = self.candidates(opts.dir.as_deref(), opts.include_worktrees)?;
        Ok(list_candidates(cands, opts))
    }

    /// Find a session in any project by full id or unique prefix (at least 4
    /// hex digits). The id is checked before any file is read. When the same
    /// session is in several folders, the most recently written copy.
    ///
    /// ```no_run
    /// use claudio::store::{Store, StoreError};
    /// let store = Store::from_env()?;
    /// match store.find("b55a") {
    ///     Ok(file) => println!("{} is {}", file.id, file.path.display()),
    ///     Err(StoreError::Ambiguous { candidates, .. }) => println!("which one? {candidates:?}"),
    ///     Err(e) => return Err(e),
    /// }
    /// # Ok::<(), StoreError>(())
    /// ```
    pub fn find(&self, id: &str) -> StoreResult<SessionFile> {
        let q = IdQuery::parse(id)?;
        let mut by_id: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
        let (cands, _) = super::list::split_unreadable(self.candidates(None, false)?);
        for c in cands {
            if q.matches(&c.session_id) {
                by_id
                    .entry(c.session_id.to_ascii_lowercase())
                    .or_default()
                    .push(c.path);
            }
        }
        match by_id.len() {
            0 => Err(StoreError::NotFound(q.as_str().to_owned())),
            1 => {
                let (_, paths) = by_id.into_iter().next().expect("one");
                // Prefer a regular, non-empty, recent file; a link is kept
                // (and refused later) rather than reported missing.
                let newest = paths
                    .into_iter()
                    .filter_map(|p| {
                        let m = std::fs::symlink_metadata(&p).ok()?;
                        (!m.is_dir()).then(|| (m.is_file(), m.len() > 0, m.modified().ok(), p))
                    })
                    .max_by(|a, b| (a.0, a.1, a.2).cmp(&(b.0, b.1, b.2)));
                match newest {
                    Some((_, _, _, path)) => {
                        let name = path
                            .file_name()
                            .map(|s| s.to_string_lossy().into_owned())
                            .unwrap_or_default();
                        let id = name
                            .strip_suffix(super::open::PACKED_EXT)
                            .or_else(|| name.strip_suffix(".jsonl"))
                            .unwrap_or(&name)
                            .to_owned();
                        Ok(SessionFile { id, path })
                    }
                    None => Err(StoreError::NotFound(q.as_str().to_owned())),
                }
            }
            _ => Err(StoreError::Ambiguous {
                prefix: q.as_str().to_owned(),
                candidates: by_id.into_keys().collect(),
            }),
        }
    }

    /// What a listing shows for one session (full id or unique prefix),
    /// read from the ends of its transcript. The error says why there is
    /// nothing to show: those of [`find`](Store::find), or
    /// [`StoreError::Io`] (unreadable), [`StoreError::NotAFile`] (a link or
    /// not a regular file), [`StoreError::EmptyFile`],
    /// [`StoreError::NoConversation`] (only metadata, or not a transcript),
    /// [`StoreError::Sidechain`] (a sub-agent's transcript) or
    /// [`StoreError::ContinuedIn`] (listed as the session it continues in).
    ///
    /// ```no_run
    /// use claudio::store::{Store, StoreError};
    /// let store = Store::from_env()?;
    /// match store.info("b55ade39") {
    ///     Ok(info) => println!("{}: {}", info.session_id, info.summary),
    ///     Err(StoreError::ContinuedIn { next, .. }) => println!("continued in {next}"),
    ///     Err(e) => println!("not listed: {e}"),
    /// }
    /// # Ok::<(), StoreError>(())
    /// ```
    pub fn info(&self, id: &str) -> StoreResult<SessionInfo> {
        self.info_file(&self.find(id)?)
    }

    /// [`info`](Store::info) for a file already [found](Store::find).
    ///
    /// ```no_run
    /// use claudio::store::{Store, StoreError};
    /// let store = Store::from_env()?;
    /// let file = store.find("b55ade39")?;
    /// let info = store.info_file(&file)?;
    /// println!("{} in {}", info.summary, file.path.display());
    /// # Ok::<(), StoreError>(())
    /// ```
    pub fn info_file(&self, file: &SessionFile) -> StoreResult<SessionInfo> {
        session_info(&file.path, &file.id)
    }

    /// Find a session for resuming from anywhere: its id and recorded
    /// working directory (where it was moved to, else its first `cwd`).
    /// A session only an archive holds (the CLI deleted its transcript)
    /// is restored (`Store::restore`) into the store first, so that the
    /// CLI finds it: [`ResumeTarget::restored`] says so.
    ///
    /// ```no_run
    /// # fn demo() -> Result<(), Box<dyn std::error::Error>> {
    /// use claudio::{store::Store, Options};
    /// let target = Store::from_env()?.resume_target("b55ade39")?;
    /// let options = Options::default().cwd(&target.cwd).resume(&target.id);
    /// # let _ = options; Ok(()) }
    /// ```
    pub fn resume_target(&self, id: &str) -> StoreResult<ResumeTarget> {
        #[allow(unused_mut)]
        let mut file = self.find(id)?;
        #[allow(unused_mut)]
        let mut restored = false;
        #[cfg(feature = "archive")]
        if file.is_archived() {
            file = self.restore(&file.id)?;
            restored = true;
        }
        let ht = read_head_tail(&file.path)
            .map_err(super::error::io_err(&file.path))?
            .ok_or_else(|| StoreError::EmptyFile(file.path.clone()))?;
        let cwd = recorded_cwd(&ht)
            .filter(|c| !c.is_empty())
            .ok_or_else(|| StoreError::NoWorkingDirectory(file.id.clone()))?;
        Ok(ResumeTarget {
            id: file.id,
            cwd: PathBuf::from(cwd),
            path: file.path,
            restored,
        })
    }

    /// The conversation of a session as the CLI would resume it.
    ///
    /// ```no_run
    /// let store = claudio::store::Store::from_env()?;
    /// let (_file, conversation) = store.conversation("b55ade39")?;
    /// for entry in &conversation.entries {
    ///     if let Some(content) = entry.content() {
    ///         println!("{}: {}", entry.kind(), content.text());
    ///     }
    /// }
    /// # Ok::<(), claudio::store::StoreError>(())
    /// ```
    pub fn conversation(&self, id: &str) -> StoreResult<(SessionFile, Conversation)> {
        let file = self.find(id)?;
        let conv = read_conversation(&file.path)?;
        Ok((file, conv))
    }

    /// Set the session's title: appends the CLI's `custom-title` line.
    ///
    /// ```no_run
    /// let store = claudio::store::Store::from_env()?;
    /// let file = store.rename("b55ade39", "Parser rewrite")?;
    /// println!("renamed {}", file.id);
    /// # Ok::<(), claudio::store::StoreError>(())
    /// ```
    pub fn rename(&self, id: &str, title: &str) -> StoreResult<SessionFile> {
        let title = clean_label(title, "title")?;
        let file = self.find_live(id)?;
        append_line(&file.path, &title_line(&title, &file.id))?;
        Ok(file)
    }

    /// Tag the session (`None` clears the tag): appends the CLI's `tag` line.
    ///
    /// ```no_run
    /// let store = claudio::store::Store::from_env()?;
    /// store.tag("b55ade39", Some("needs-review"))?;
    /// store.tag("b55ade39", None)?; // no tag again
    /// # Ok::<(), claudio::store::StoreError>(())
    /// ```
    pub fn tag(&self, id: &str, tag: Option<&str>) -> StoreResult<SessionFile> {
        let tag = tag.map(|t| clean_label(t, "tag")).transpose()?;
        let file = self.find_live(id)?;
        append_line(
            &file.path,
            &tag_line(tag.as_deref().unwrap_or(""), &file.id),
        )?;
        Ok(file)
    }

    /// Copy a session into a new one with fresh ids, as the TypeScript
    /// SDK's `forkSession` does: up to and including the message
    /// [`ForkOptions::at`] if given (full uuid or unique prefix), else all of
    /// it. The copy is in the same project folder, titled
    /// [`ForkOptions::title`] if given (cleaned as [`rename`](Store::rename)
    /// cleans it; an empty one is [`StoreError::Empty`]), else after the
    /// original plus ` (fork)`. Returns the new session id.
    ///
    /// ```no_run
    /// # fn demo() -> Result<(), claudio::store::StoreError> {
    /// use claudio::store::{ForkOptions, Store};
    /// let store = Store::from_env()?;
    /// let copy = store.fork("b55ade39", &ForkOptions::new().title("Try another way"))?;
    /// let whole = store.fork("b55ade39", &ForkOptions::default())?;
    /// println!("forked into {copy} and {whole}");
    /// # Ok(()) }
    /// ```
    pub fn fork(&self, id: &str, options: &ForkOptions) -> StoreResult<String> {
        let (at, title) = (options.at.as_deref(), options.title.as_deref());
        if let Some(at) = at {
            IdQuery::parse(at)?;
        }
        let title = title.map(|t| clean_label(t, "title")).transpose()?;
        let file = self.find_live(id)?;
        edit::fork(&file, at, title.as_deref())
    }

    /// Delete a session (full id or unique prefix): its transcript and the
    /// folder beside it (sub-agent transcripts, side files). Symbolic links
    /// are removed, never followed. When the same session is in several
    /// folders, the copy [`find`](Store::find) gives is deleted. Returns the
    /// file that was deleted.
    ///
    /// To confirm before deleting, [`find`](Store::find) the session, ask,
    /// then [`delete_file`](Store::delete_file) the file found: finding it
    /// again after asking could give another copy, written to meanwhile.
    pub fn delete(&self, id: &str) -> StoreResult<SessionFile> {
        let file = self.find_live(id)?;
        self.delete_file(&file)?;
        Ok(file)
    }

    /// Delete exactly this transcript (as [`find`](Store::find) or
    /// [`copies`](Store::copies) gave it) and the folder beside it; other
    /// copies of the session in other folders are kept.
    ///
    /// ```no_run
    /// # fn confirm(_question: &str) -> bool { false }
    /// let store = claudio::store::Store::from_env()?;
    /// let file = store.find("b55a")?;
    /// let others = store.copies(&file.id)?.len() - 1;
    /// if confirm(&format!("delete {} ({others} other copies kept)?", file.path.display())) {
    ///     store.delete_file(&file)?; // the file shown, whatever else changed since
    /// }
    /// # Ok::<(), claudio::store::StoreError>(())
    /// ```
    pub fn delete_file(&self, file: &SessionFile) -> StoreResult<()> {
        edit::delete(file)
    }

    /// Every copy of one session (full id or unique prefix): the same
    /// session id in several project folders (a project that was moved, a
    /// store merged from two machines). [`find`](Store::find) picks one.
    pub fn copies(&self, id: &str) -> StoreResult<Vec<SessionFile>> {
        let q = IdQuery::parse(id)?;
        let (cands, _) =
            super::list::split_unreadable(all_candidates(&self.projects_dir(), false)?);
        let mut out: Vec<SessionFile> = cands
            .into_iter()
            .filter(|c| q.matches(&c.session_id))
            .map(|c| SessionFile {
                id: c.session_id,
                path: c.path,
            })
            .collect();
        let ids: std::collections::BTreeSet<String> =
            out.iter().map(|f| f.id.to_ascii_lowercase()).collect();
        if ids.len() > 1 {
            return Err(StoreError::Ambiguous {
                prefix: q.as_str().to_owned(),
                candidates: ids.into_iter().collect(),
            });
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }
}

/// How [`Store::fork`] copies a session: up to which message, under which
/// title. The default copies all of it, titled after the original.
///
/// ```
/// use claudio::store::ForkOptions;
/// let options = ForkOptions::new().at("3f2a9c1e").title("Before the refactor");
/// assert_eq!(options.at.as_deref(), Some("3f2a9c1e"));
/// assert_eq!(ForkOptions::default(), ForkOptions::new());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ForkOptions {
    /// The last message to copy (full uuid or unique prefix); `None`: all.
    pub at: Option<String>,
    /// The copy's title; `None`: the original's plus ` (fork)`.
    pub title: Option<String>,
}

impl ForkOptions {
    /// All of the session, titled after the original.
    pub fn new() -> ForkOptions {
        ForkOptions::default()
    }

    /// Copy up to and including this message (full uuid or unique prefix).
    pub fn at(mut self, message: impl Into<String>) -> ForkOptions {
        self.at = Some(message.into());
        self
    }

    /// Title the copy.
    pub fn title(mut self, title: impl Into<String>) -> ForkOptions {
        self.title = Some(title.into());
        self
    }
}
