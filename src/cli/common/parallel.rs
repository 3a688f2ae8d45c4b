//! Work over many items on every core, its results in the items' order.

/// Fewer items than this are mapped on the calling thread: starting a
/// thread costs more than their work.
const MIN_ITEMS: usize = 256;

/// The threads [`map_on`] is given for `n` items: one for fewer than
/// [`MIN_ITEMS`], else one a core.
pub fn threads_for(n: usize) -> usize {
    if n < MIN_ITEMS {
        return 1;
    }
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// `f` of each of `items`, in the items' order, on `threads` threads (at
/// most 8, at most one an item): the items cut into that many runs in a
/// row, each mapped on a thread of its own (the first on the calling
/// thread). The answer is the sequential one whatever the threads: each
/// result is `f` of its item alone, and the runs are joined in order.
pub fn map_on<T, R, F>(items: &[T], f: &F, threads: usize) -> Vec<R>
where
    T: Sync,
    R: Send,
    F: Fn(&T) -> R + Sync,
{
    let threads = threads.clamp(1, 8).min(items.len().max(1));
    if threads == 1 {
        return items.iter().map(f).collect();
    }
    let run = items.len().div_ceil(threads);
    let mut chunks = items.chunks(run);
    let first = chunks.next().unwrap_or(&[]);
    std::thread::scope(|s| {
        let rest: Vec<_> = chunks
            .map(|c| s.spawn(move || c.iter().map(f).collect::<Vec<R>>()))
            .collect();
        let mut out: Vec<R> = first.iter().map(f).collect();
        for h in rest {
            out.extend(h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
        }
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_answer_is_the_sequential_one_on_any_number_of_threads() {
        for n in [0usize, 1, 2, 3, 7, 255, 256, 257, 1000] {
            let items: Vec<u64> = (0..n as u64).collect();
            let want: Vec<u64> = items.iter().map(|i| i * i + 7).collect();
            for threads in 1..=9 {
                let got = map_on(&items, &|i: &u64| i * i + 7, threads);
                assert_eq!(got, want, "{n} items, {threads} threads");
            }
            let got = map_on(&items, &|i: &u64| i * i + 7, threads_for(n));
            assert_eq!(got, want);
        }
    }
}
