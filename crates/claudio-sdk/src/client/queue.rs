//! The queue between the reader task and the consumer of messages.
//!
//! Bounded by bytes so a slow consumer slows the CLI down (backpressure)
//! instead of growing memory without limit — except while a host → CLI
//! control request waits for its answer: then the reader must keep reading
//! to find that answer, and the queue may go over its bound for a while.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use tokio::sync::Notify;

pub(crate) struct Queue<T> {
    state: Mutex<State<T>>,
    readable: Notify,
    writable: Notify,
    cap_bytes: usize,
    overdraft: AtomicUsize,
}

struct State<T> {
    items: VecDeque<(T, usize)>,
    bytes: usize,
    closed: bool,
}

impl<T> Queue<T> {
    pub(crate) fn new(cap_bytes: usize) -> Self {
        Queue {
            state: Mutex::new(State {
                items: VecDeque::new(),
                bytes: 0,
                closed: false,
            }),
            readable: Notify::new(),
            writable: Notify::new(),
            cap_bytes,
            overdraft: AtomicUsize::new(0),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State<T>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Add an item of `size` bytes; waits while the queue is full.
    pub(crate) async fn push(&self, item: T, size: usize) {
        loop {
            let notified = self.writable.notified();
            {
                let mut s = self.lock();
                let fits = s.items.is_empty() || s.bytes + size <= self.cap_bytes;
                if fits || s.closed || self.overdraft.load(Ordering::SeqCst) > 0 {
                    s.bytes += size;
                    s.items.push_back((item, size));
                    drop(s);
                    // One item wakes one consumer; with nobody waiting this
                    // leaves a permit without taking a lock.
                    self.readable.notify_one();
                    return;
                }
            }
            notified.await;
        }
    }

    /// Add an item at once, whatever the bound (a small marker that must
    /// not wait: a turn's start, put in by the task that sends the prompt).
    pub(crate) fn push_now(&self, item: T) {
        self.lock().items.push_back((item, 0));
        self.readable.notify_one();
    }

    /// Take the next item; `None` once closed and empty.
    pub(crate) async fn pop(&self) -> Option<T> {
        loop {
            let notified = self.readable.notified();
            {
                let mut s = self.lock();
                if let Some((item, size)) = s.items.pop_front() {
                    s.bytes -= size;
                    drop(s);
                    // There is one producer: the reader task.
                    self.writable.notify_one();
                    return Some(item);
                }
                if s.closed {
                    return None;
                }
            }
            notified.await;
        }
    }

    /// Take out the first item `pick` accepts, without waiting.
    pub(crate) fn take_first(&self, pick: impl Fn(&T) -> bool) -> Option<T> {
        let mut s = self.lock();
        let at = s.items.iter().position(|(item, _)| pick(item))?;
        let (item, size) = s.items.remove(at)?;
        s.bytes -= size;
        drop(s);
        self.writable.notify_one();
        Some(item)
    }

    /// No more items will come; `pop` drains what is left, then ends.
    pub(crate) fn close(&self) {
        self.lock().closed = true;
        self.readable.notify_waiters();
        self.writable.notify_waiters();
    }

    /// Allow going over the bound until [`Queue::end_overdraft`] (one per call).
    pub(crate) fn begin_overdraft(&self) {
        self.overdraft.fetch_add(1, Ordering::SeqCst);
        self.writable.notify_one();
    }

    pub(crate) fn end_overdraft(&self) {
        self.overdraft.fetch_sub(1, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::Duration;

    #[tokio::test]
    async fn push_waits_when_full_and_resumes_after_pop() {
        let q = Arc::new(Queue::new(10));
        q.push(1, 6).await;
        let q2 = q.clone();
        let pusher = tokio::spawn(async move { q2.push(2, 6).await });
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!pusher.is_finished(), "push must wait while full");
        assert_eq!(q.pop().await, Some(1));
        pusher.await.unwrap();
        assert_eq!(q.pop().await, Some(2));
    }

    #[tokio::test]
    async fn overdraft_lets_pushes_through() {
        let q = Arc::new(Queue::new(10));
        q.push(1, 10).await;
        let q2 = q.clone();
        let pusher = tokio::spawn(async move { q2.push(2, 10).await });
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!pusher.is_finished());
        q.begin_overdraft();
        pusher.await.unwrap();
        q.end_overdraft();
    }

    #[tokio::test]
    async fn close_drains_then_ends() {
        let q = Queue::new(100);
        q.push("a", 1).await;
        q.close();
        assert_eq!(q.pop().await, Some("a"));
        assert_eq!(q.pop().await, None);
    }
}
