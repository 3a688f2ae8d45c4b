//! Handlers the host registers for the CLI's requests: permissions and hooks.

use crate::error::HandlerError;
use crate::protocol::{CanUseToolRequest, HookCallbackRequest, HookOutput, PermissionResult};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Notify;

/// A boxed, sendable future.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// Fires when the CLI withdraws a request (`control_cancel_request`), the
/// session ends, or another holder of the request's
/// [`Responder`](crate::Responder) answered it first, so a handler waiting
/// on a person can close its prompt.
///
/// A handler that asks a person can stop waiting when the request goes
/// away:
///
/// ```
/// use claudio::{Options, PermissionResult};
/// # async fn ask_person(_tool: &str) -> bool { true }
/// let options = Options::default().can_use_tool(|req, ctx| async move {
///     tokio::select! {
///         yes = ask_person(&req.tool_name) => Ok(if yes {
///             PermissionResult::allow()
///         } else {
///             PermissionResult::deny("the person said no")
///         }),
///         _ = ctx.cancellation.cancelled() => Ok(PermissionResult::deny("withdrawn")),
///     }
/// });
/// ```
#[derive(Debug, Clone, Default)]
pub struct Cancellation {
    inner: Arc<CancelInner>,
}

#[derive(Debug, Default)]
struct CancelInner {
    cancelled: AtomicBool,
    notify: Notify,
}

impl Cancellation {
    /// A fresh, not yet cancelled token.
    ///
    /// ```
    /// let token = claudio::Cancellation::new();
    /// let seen = token.clone(); // the same token
    /// token.cancel();
    /// assert!(seen.is_cancelled());
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// Cancel: wakes every waiter of [`Cancellation::cancelled`].
    pub fn cancel(&self) {
        self.inner.cancelled.store(true, Ordering::SeqCst);
        self.inner.notify.notify_waiters();
    }

    /// Whether it was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancelled.load(Ordering::SeqCst)
    }

    /// Resolves once cancelled.
    pub async fn cancelled(&self) {
        loop {
            let notified = self.inner.notify.notified();
            if self.is_cancelled() {
                return;
            }
            notified.await;
        }
    }
}

/// What a handler gets besides the request itself.
///
/// See [`Cancellation`] for a handler that uses it.
#[derive(Debug, Clone)]
pub struct RequestContext {
    /// The CLI's id for the request.
    pub request_id: String,
    /// Fires if the CLI withdraws the request, the session ends, or
    /// another holder answered it (see [`Cancellation`]).
    pub cancellation: Cancellation,
}

/// Decides whether a tool may run (`can_use_tool`).
///
/// Implemented for closures `Fn(CanUseToolRequest, RequestContext) -> impl Future`.
///
/// A closure is the usual handler ([`Options::can_use_tool`](crate::Options::can_use_tool));
/// a type of one's own implements the trait
/// ([`Options::can_use_tool_arc`](crate::Options::can_use_tool_arc) has one).
pub trait PermissionHandler: Send + Sync + 'static {
    /// Answer one request.
    fn can_use_tool(
        &self,
        request: CanUseToolRequest,
        context: RequestContext,
    ) -> BoxFuture<Result<PermissionResult, HandlerError>>;
}

impl<F, Fut> PermissionHandler for F
where
    F: Fn(CanUseToolRequest, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<PermissionResult, HandlerError>> + Send + 'static,
{
    fn can_use_tool(
        &self,
        request: CanUseToolRequest,
        context: RequestContext,
    ) -> BoxFuture<Result<PermissionResult, HandlerError>> {
        Box::pin(self(request, context))
    }
}

/// Answers a hook callback (`hook_callback`).
///
/// Implemented for closures `Fn(HookCallbackRequest, RequestContext) -> impl Future`.
///
/// ```
/// use claudio::{HookCallbackRequest, HookHandler, HookOutput, RequestContext};
/// use std::sync::Arc;
/// let log: Arc<dyn HookHandler> =
///     Arc::new(|req: HookCallbackRequest, _ctx: RequestContext| async move {
///         eprintln!("hook: {}", req.event());
///         Ok::<_, claudio::HandlerError>(HookOutput::proceed())
///     });
/// ```
pub trait HookHandler: Send + Sync + 'static {
    /// Answer one callback.
    fn call(
        &self,
        request: HookCallbackRequest,
        context: RequestContext,
    ) -> BoxFuture<Result<HookOutput, HandlerError>>;
}

impl<F, Fut> HookHandler for F
where
    F: Fn(HookCallbackRequest, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<HookOutput, HandlerError>> + Send + 'static,
{
    fn call(
        &self,
        request: HookCallbackRequest,
        context: RequestContext,
    ) -> BoxFuture<Result<HookOutput, HandlerError>> {
        Box::pin(self(request, context))
    }
}

/// Hooks for one event, narrowed by a tool-name matcher.
#[derive(Clone)]
pub struct HookMatcher {
    /// A tool name or pattern (`Bash`, `Edit|Write`); `None` matches all.
    pub matcher: Option<String>,
    /// The callbacks to run.
    pub hooks: Vec<Arc<dyn HookHandler>>,
    /// How long the CLI waits for them.
    pub timeout: Option<Duration>,
}

impl HookMatcher {
    /// A matcher (`None` for every tool) with one callback.
    ///
    /// The callback is called once per event, so what it shares (here a
    /// count) is cloned into each call:
    ///
    /// ```
    /// use claudio::{HookEvent, HookMatcher, HookOutput, Options};
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    /// let edits = Arc::new(AtomicUsize::new(0));
    /// let count = edits.clone();
    /// let matcher = HookMatcher::new(Some("Edit|Write"), move |_req, _ctx| {
    ///     let count = count.clone();
    ///     async move {
    ///         count.fetch_add(1, Ordering::Relaxed);
    ///         Ok(HookOutput::proceed())
    ///     }
    /// });
    /// let options = Options::default().hook(HookEvent::PostToolUse, matcher);
    /// // once sessions ran with it:
    /// println!("{} edits", edits.load(Ordering::Relaxed));
    /// ```
    pub fn new<F, Fut>(matcher: Option<&str>, hook: F) -> Self
    where
        F: Fn(HookCallbackRequest, RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<HookOutput, HandlerError>> + Send + 'static,
    {
        HookMatcher {
            matcher: matcher.map(str::to_owned),
            hooks: vec![Arc::new(hook)],
            timeout: None,
        }
    }

    /// Add another callback (any [`HookHandler`]).
    ///
    /// ```
    /// use claudio::{HookCallbackRequest, HookHandler, HookMatcher, HookOutput, RequestContext};
    /// use std::sync::Arc;
    /// use std::time::Duration;
    /// let audit: Arc<dyn HookHandler> =
    ///     Arc::new(|req: HookCallbackRequest, _ctx: RequestContext| async move {
    ///         eprintln!("{:?}", req.hook_input().tool_name);
    ///         Ok::<_, claudio::HandlerError>(HookOutput::proceed())
    ///     });
    /// let matcher = HookMatcher::new(None, |_req, _ctx| async { Ok(HookOutput::proceed()) })
    ///     .and(audit)
    ///     .timeout(Duration::from_secs(30)); // the CLI waits this long for them
    /// assert_eq!(matcher.hooks.len(), 2);
    /// ```
    pub fn and(mut self, hook: Arc<dyn HookHandler>) -> Self {
        self.hooks.push(hook);
        self
    }

    /// Set the CLI's timeout for these callbacks.
    ///
    /// See [`HookMatcher::and`] for an example.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }
}

impl std::fmt::Debug for HookMatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HookMatcher")
            .field("matcher", &self.matcher)
            .field("hooks", &self.hooks.len())
            .field("timeout", &self.timeout)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn cancellation_wakes_waiters() {
        let c = Cancellation::new();
        let c2 = c.clone();
        let waiter = tokio::spawn(async move { c2.cancelled().await });
        tokio::task::yield_now().await;
        assert!(!c.is_cancelled());
        c.cancel();
        waiter.await.unwrap();
        assert!(c.is_cancelled());
        // already cancelled: resolves at once
        c.cancelled().await;
    }
}
