//! The search's threads: files are searched on a few threads, and their
//! results are taken in the files' order, each as soon as it and every one
//! before it are in.

use super::Found;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

/// Run `work` on `0..n` on a few threads, and pass each result that has
/// hits or a problem to `take`, in order, until it breaks.
pub(super) fn in_order(
    n: usize,
    work: impl Fn(usize) -> Found + Sync,
    mut take: impl FnMut(Found) -> ControlFlow<()>,
) {
    let results = Ordered::new(n);
    let stop = AtomicBool::new(false);
    let next = AtomicUsize::new(0);
    let workers = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .clamp(1, 8)
        .min(n.max(1));
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    break;
                }
                results.put(i, work(i));
            });
        }
        let mut at = 0;
        while let Some(found) = results.next(&mut at) {
            if take(found).is_break() {
                break;
            }
        }
        stop.store(true, Ordering::Relaxed);
        results.close();
    });
}

/// Results filled in any order, taken in order.
struct Ordered {
    slots: Mutex<Slots>,
    ready: Condvar,
}

pub(super) struct Slots {
    found: Vec<Option<Found>>,
    /// Every result before this one is in.
    done: usize,
    closed: bool,
    /// The taker sleeps: it is woken only when a result with something in
    /// it (or the last one) is ready in order. A wake-up for each file, most
    /// of them without hits, cost a tenth of a fast search.
    asleep: bool,
}

impl Found {
    fn is_empty(&self) -> bool {
        self.hits.is_none() && self.problem.is_none()
    }
}

impl Ordered {
    fn new(n: usize) -> Ordered {
        Ordered {
            slots: Mutex::new(Slots {
                found: (0..n).map(|_| None).collect(),
                done: 0,
                closed: false,
                asleep: false,
            }),
            ready: Condvar::new(),
        }
    }

    fn put(&self, i: usize, f: Found) {
        let mut g = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        g.found[i] = Some(f);
        let from = g.done;
        while g.found.get(g.done).is_some_and(Option::is_some) {
            g.done += 1;
        }
        let news = g.found[from..g.done]
            .iter()
            .any(|f| f.as_ref().is_some_and(|f| !f.is_empty()));
        if g.asleep && (news || g.done == g.found.len()) {
            self.ready.notify_all();
        }
    }

    /// The next result with hits or a problem, in order, from `*at` on;
    /// `None` at the end or when closed.
    fn next(&self, at: &mut usize) -> Option<Found> {
        let mut g = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            while *at < g.done {
                let f = g.found[*at].take();
                *at += 1;
                if let Some(f) = f.filter(|f| !f.is_empty()) {
                    return Some(f);
                }
            }
            if *at >= g.found.len() || g.closed {
                return None;
            }
            g.asleep = true;
            g = self.ready.wait(g).unwrap_or_else(|e| e.into_inner());
            g.asleep = false;
        }
    }

    fn close(&self) {
        let mut g = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        g.closed = true;
        self.ready.notify_all();
    }
}
