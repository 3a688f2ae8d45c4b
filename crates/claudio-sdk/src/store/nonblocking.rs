//! The store for async code: every call runs on Tokio's blocking pool, so
//! reading and writing transcripts never holds up a runtime worker.

use super::chain::{Conversation, Entry};
use super::edit::SessionFile;
use super::error::{StoreError, StoreResult};
use super::handle::{ForkOptions, ResumeTarget, Store};
use super::info::SessionInfo;
use super::list::{ListOptions, Listing};
use super::search::{SearchOptions, SearchSummary, SessionHits};
use super::subagents::SubagentInfo;
use super::usage::{SessionUsage, UsageListing};
use std::future::Future;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

/// [`Store`] for async code. Each method does what the [`Store`] method of
/// the same name does, on a thread of Tokio's blocking pool
/// ([`tokio::task::spawn_blocking`]), and takes the same arguments.
///
/// A method's future owns what it needs (it is `Send` and `'static`, so
/// it can be spawned). It needs a Tokio runtime (any flavor): polled
/// outside one, it returns [`StoreError::NoRuntime`]. If the blocking work panics, or the
/// runtime shuts down before it runs, the method returns
/// [`StoreError::Task`]; it never panics itself. Dropping a call's future
/// does not stop work already started: a `delete` or a `fork` that began
/// still finishes.
///
/// ```no_run
/// # async fn demo() -> Result<(), claudio::store::StoreError> {
/// use claudio::store::{AsyncStore, ForkOptions, ListOptions};
///
/// let store = AsyncStore::from_env()?;
/// let listing = store.list(&ListOptions::all().limit(10)).await?;
/// for s in &listing.sessions {
///     println!("{} {}", s.session_id, s.summary);
/// }
/// if let Some(newest) = listing.sessions.first() {
///     let copy = store
///         .fork(&newest.session_id, &ForkOptions::new().title("Another approach"))
///         .await?;
///     let (_, conversation) = store.conversation(&copy).await?;
///     println!("{copy}: {} entries", conversation.entries.len());
/// }
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AsyncStore {
    store: Store,
}

impl From<Store> for AsyncStore {
    fn from(store: Store) -> AsyncStore {
        AsyncStore { store }
    }
}

impl Store {
    /// This store, for async code.
    pub fn into_async(self) -> AsyncStore {
        AsyncStore::from(self)
    }
}

impl AsyncStore {
    /// The store of a Claude configuration folder (the one holding `projects/`).
    ///
    /// ```
    /// use claudio::store::{AsyncStore, ForkOptions, ListOptions};
    /// let dir = std::env::temp_dir().join(format!("claudio-doc-async-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir)?;
    /// let store = AsyncStore::new(&dir);
    /// let runtime = tokio::runtime::Builder::new_current_thread().build()?;
    /// let listing = runtime.block_on(store.list(&ListOptions::all()))?;
    /// assert!(listing.sessions.is_empty());
    /// std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(config_dir: impl Into<PathBuf>) -> AsyncStore {
        Store::new(config_dir).into_async()
    }

    /// The store the CLI uses: `$CLAUDE_CONFIG_DIR`, else `~/.claude`.
    pub fn from_env() -> StoreResult<AsyncStore> {
        Store::from_env().map(Store::into_async)
    }

    /// The blocking store underneath.
    pub fn blocking(&self) -> &Store {
        &self.store
    }

    /// The configuration folder.
    pub fn config_dir(&self) -> &Path {
        self.store.config_dir()
    }

    /// Run `f` on the blocking pool of the current Tokio runtime.
    fn run<T, F>(&self, f: F) -> impl Future<Output = StoreResult<T>> + Send + 'static
    where
        T: Send + 'static,
        F: FnOnce(&Store) -> StoreResult<T> + Send + 'static,
    {
        let store = self.store.clone();
        async move {
            let rt = tokio::runtime::Handle::try_current().map_err(StoreError::NoRuntime)?;
            rt.spawn_blocking(move || f(&store))
                .await
                .map_err(StoreError::Task)?
        }
    }

    /// [`Store::list`]: sessions, newest first.
    pub fn list(
        &self,
        opts: &ListOptions,
    ) -> impl Future<Output = StoreResult<Listing>> + Send + 'static {
        let opts = opts.clone();
        self.run(move |s| s.list(&opts))
    }

    /// [`Store::find`]: a session by full id or unique prefix.
    pub fn find(
        &self,
        id: &str,
    ) -> impl Future<Output = StoreResult<SessionFile>> + Send + 'static {
        let id = id.to_owned();
        self.run(move |s| s.find(&id))
    }

    /// [`Store::info`]: what a listing shows for one session (by id), or
    /// why it shows nothing.
    pub fn info(
        &self,
        id: &str,
    ) -> impl Future<Output = StoreResult<SessionInfo>> + Send + 'static {
        let id = id.to_owned();
        self.run(move |s| s.info(&id))
    }

    /// [`Store::info_file`]: [`info`](AsyncStore::info) for a file already found.
    pub fn info_file(
        &self,
        file: &SessionFile,
    ) -> impl Future<Output = StoreResult<SessionInfo>> + Send + 'static {
        let file = file.clone();
        self.run(move |s| s.info_file(&file))
    }

    /// [`Store::resume_target`]: a session's id and recorded working
    /// directory (a session only an archive holds is restored first).
    pub fn resume_target(
        &self,
        id: &str,
    ) -> impl Future<Output = StoreResult<ResumeTarget>> + Send + 'static {
        let id = id.to_owned();
        self.run(move |s| s.resume_target(&id))
    }

    /// [`Store::conversation`]: the conversation as the CLI would resume it.
    pub fn conversation(
        &self,
        id: &str,
    ) -> impl Future<Output = StoreResult<(SessionFile, Conversation)>> + Send + 'static {
        let id = id.to_owned();
        self.run(move |s| s.conversation(&id))
    }

    /// [`Store::rename`]: set the session's title.
    pub fn rename(
        &self,
        id: &str,
        title: &str,
    ) -> impl Future<Output = StoreResult<SessionFile>> + Send + 'static {
        let (id, title) = (id.to_owned(), title.to_owned());
        self.run(move |s| s.rename(&id, &title))
    }

    /// [`Store::tag`]: tag the session (`None` clears the tag).
    pub fn tag(
        &self,
        id: &str,
        tag: Option<&str>,
    ) -> impl Future<Output = StoreResult<SessionFile>> + Send + 'static {
        let (id, tag) = (id.to_owned(), tag.map(str::to_owned));
        self.run(move |s| s.tag(&id, tag.as_deref()))
    }

    /// [`Store::fork`]: copy a session into a new one, as `options` say.
    /// Returns the new session id.
    pub fn fork(
        &self,
        id: &str,
        options: &ForkOptions,
    ) -> impl Future<Output = StoreResult<String>> + Send + 'static {
        let (id, options) = (id.to_owned(), options.clone());
        self.run(move |s| s.fork(&id, &options))
    }

    /// [`Store::delete`]: delete a session and the folder beside it.
    pub fn delete(
        &self,
        id: &str,
    ) -> impl Future<Output = StoreResult<SessionFile>> + Send + 'static {
        let id = id.to_owned();
        self.run(move |s| s.delete(&id))
    }

    /// [`Store::delete_file`]: exactly this transcript, other copies kept.
    pub fn delete_file(
        &self,
        file: &SessionFile,
    ) -> impl Future<Output = StoreResult<()>> + Send + 'static {
        let file = file.clone();
        self.run(move |s| s.delete_file(&file))
    }

    /// [`Store::copies`]: every copy of one session.
    pub fn copies(
        &self,
        id: &str,
    ) -> impl Future<Output = StoreResult<Vec<SessionFile>>> + Send + 'static {
        let id = id.to_owned();
        self.run(move |s| s.copies(&id))
    }

    /// [`Store::search`], gathered: the sessions with hits, newest first
    /// (at most `opts.limit`), and how the search went.
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), claudio::store::StoreError> {
    /// use claudio::store::{AsyncStore, Pattern, SearchOptions};
    /// let store = AsyncStore::from_env()?;
    /// let opts = SearchOptions::new(Pattern::smart("tokio")).limit(5);
    /// let (sessions, summary) = store.search(&opts).await?;
    /// for s in &sessions {
    ///     println!("{}: {} hits", s.info.summary, s.hits.len());
    /// }
    /// println!("{} transcripts searched", summary.files);
    /// # Ok(()) }
    /// ```
    pub fn search(
        &self,
        opts: &SearchOptions,
    ) -> impl Future<Output = StoreResult<(Vec<SessionHits>, SearchSummary)>> + Send + 'static {
        let opts = opts.clone();
        self.run(move |s| {
            let mut found = Vec::new();
            let summary = s.search(&opts, |hits| {
                found.push(hits);
                ControlFlow::Continue(())
            })?;
            Ok((found, summary))
        })
    }

    /// [`Store::search`] with `on_session` called for each session with
    /// hits as soon as it is known, newest first, on the blocking thread
    /// (send them on through a channel to use them in async code);
    /// `ControlFlow::Break` stops the search.
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), claudio::store::StoreError> {
    /// use claudio::store::{AsyncStore, Pattern, SearchOptions};
    /// use std::ops::ControlFlow;
    /// let store = AsyncStore::from_env()?;
    /// let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    /// let search = store.search_with(&SearchOptions::new(Pattern::smart("tokio")), move |hits| {
    ///     let _ = tx.send(hits);
    ///     ControlFlow::Continue(())
    /// });
    /// let search = tokio::spawn(search);
    /// while let Some(session) = rx.recv().await {
    ///     println!("{}", session.info.summary); // as soon as it is found
    /// }
    /// search.await.expect("the search ran")?;
    /// # Ok(()) }
    /// ```
    pub fn search_with<F>(
        &self,
        opts: &SearchOptions,
        on_session: F,
    ) -> impl Future<Output = StoreResult<SearchSummary>> + Send + 'static
    where
        F: FnMut(SessionHits) -> ControlFlow<()> + Send + 'static,
    {
        let opts = opts.clone();
        self.run(move |s| s.search(&opts, on_session))
    }

    /// [`Store::usage`]: the usage of every session of `dir`, or of every
    /// project, oldest first.
    pub fn usage(
        &self,
        dir: Option<&Path>,
    ) -> impl Future<Output = StoreResult<UsageListing>> + Send + 'static {
        let dir = dir.map(Path::to_path_buf);
        self.run(move |s| s.usage(dir.as_deref()))
    }

    /// [`Store::session_usage`]: what a session used, its sub-agents
    /// included.
    pub fn session_usage(
        &self,
        id: &str,
    ) -> impl Future<Output = StoreResult<SessionUsage>> + Send + 'static {
        let id = id.to_owned();
        self.run(move |s| s.session_usage(&id))
    }

    /// [`Store::subagents`]: the sub-agent runs of a session, oldest first.
    pub fn subagents(
        &self,
        id: &str,
    ) -> impl Future<Output = StoreResult<Vec<SubagentInfo>>> + Send + 'static {
        let id = id.to_owned();
        self.run(move |s| s.subagents(&id))
    }

    /// [`Store::subagent_messages`]: a sub-agent's messages, in the order
    /// written.
    pub fn subagent_messages(
        &self,
        id: &str,
        agent_id: &str,
    ) -> impl Future<Output = StoreResult<Vec<Entry>>> + Send + 'static {
        let (id, agent_id) = (id.to_owned(), agent_id.to_owned());
        self.run(move |s| s.subagent_messages(&id, &agent_id))
    }
}

#[cfg(test)]
mod tests {
    use super::super::error::chain;
    use super::*;
    use std::future::Future;
    use std::task::{Context, Poll, Waker};

    fn spawnable<T: Send + 'static>(t: T) -> T {
        t
    }

    #[test]
    fn futures_are_spawnable_and_outside_a_runtime_an_error() {
        let fut = {
            let s = AsyncStore::new("/nonexistent");
            // owns its arguments: the store and the options may go
            spawnable(s.list(&ListOptions::all()))
        };
        let mut fut = std::pin::pin!(fut);
        let mut cx = Context::from_waker(Waker::noop());
        match fut.as_mut().poll(&mut cx) {
            Poll::Ready(Err(e @ StoreError::NoRuntime(_))) => {
                let text = chain(&e);
                assert!(
                    text.starts_with("the async store needs a Tokio runtime: "),
                    "{text}"
                );
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_panic_in_the_blocking_work_is_an_error() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let s = AsyncStore::new("/nonexistent");
        let r: StoreResult<()> = rt.block_on(s.run(|_| panic!("boom in the store")));
        match r {
            Err(e @ StoreError::Task(_)) => {
                let text = chain(&e);
                assert!(
                    text.starts_with("the store's blocking task did not finish: "),
                    "{text}"
                );
                assert!(text.contains("panicked"), "{text}");
                assert_eq!(
                    text.matches("did not finish").count(),
                    1,
                    "the cause twice: {text}"
                );
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_store_underneath() {
        let s = Store::new("/x").into_async();
        assert_eq!(s.config_dir(), Path::new("/x"));
        assert_eq!(s.blocking(), &Store::new("/x"));
        assert_eq!(AsyncStore::from(Store::new("/x")), s);
    }
}
