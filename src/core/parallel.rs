//! Work over many independent items on every core, in order.
//!
//! A large file's per-rule checks are independent of each other: each
//! reads the shared policy and writes its own findings. `map_ordered`
//! hands out runs of items to one thread per core and joins the results
//! in item order, so the output is the same as a sequential pass (the
//! tests compare both). Small inputs stay on the calling thread: a thread
//! costs more than a few hundred rules.

/// Below this many items the work stays on the calling thread.
pub const SEQUENTIAL_BELOW: usize = 4096;

/// `f` over runs of `items`, the runs' outputs concatenated in order.
/// `f` sees a run and returns what it found for it.
pub fn map_ordered<T: Sync, R: Send>(items: &[T], f: impl Fn(&[T]) -> Vec<R> + Sync) -> Vec<R> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    map_ordered_on(items, cores, SEQUENTIAL_BELOW, BATCH, f)
}

/// How many items a thread takes at a time: small enough that the threads
/// finish together when some items cost far more than others, large enough
/// that taking one is cheap.
const BATCH: usize = 256;

/// `map_ordered` on at most `threads` threads, sequential below `below`
/// items, `batch` items taken at a time. The threads take batches in turn
/// (an expensive stretch of items is shared); the batches' outputs are
/// joined in item order.
pub fn map_ordered_on<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    below: usize,
    batch: usize,
    f: impl Fn(&[T]) -> Vec<R> + Sync,
) -> Vec<R> {
    if threads <= 1 || items.len() < below.max(2) {
        return f(items);
    }
    let batches: Vec<&[T]> = items.chunks(batch.max(1)).collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let Some(batch) = batches.get(k) else {
                return done;
            };
            done.push((k, f(batch)));
        }
    };
    let mut parts: Vec<(usize, Vec<R>)> = std::thread::scope(|s| {
        // A thread that cannot be started (a process limit) leaves its
        // batches to the others: this thread takes batches until none is
        // left.
        let handles: Vec<_> = (1..threads.min(batches.len()))
            .filter_map(|_| std::thread::Builder::new().spawn_scoped(s, work).ok())
            .collect();
        // This thread works too, while the others do.
        let mut parts = work();
        for h in handles {
            match h.join() {
                Ok(mut p) => parts.append(&mut p),
                // A panic in a worker is the caller's panic, as it would
                // have been on one thread.
                Err(p) => std::panic::resume_unwind(p),
            }
        }
        parts
    });
    parts.sort_unstable_by_key(|&(k, _)| k);
    let mut out = Vec::with_capacity(parts.iter().map(|(_, p)| p.len()).sum());
    for (_, p) in parts {
        out.extend(p);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_output_as_one_pass_in_order() {
        let items: Vec<u32> = (0..10_000).collect();
        let f = |run: &[u32]| {
            run.iter()
                .filter(|&&x| x % 3 != 0)
                .map(|&x| x * 2)
                .collect::<Vec<_>>()
        };
        let one = f(&items);
        for threads in [1, 2, 3, 7, 64] {
            for batch in [1, 7, 256, 20_000] {
                assert_eq!(
                    map_ordered_on(&items, threads, 2, batch, f),
                    one,
                    "{threads} {batch}"
                );
            }
        }
        assert_eq!(map_ordered(&items, f), one);
        assert!(map_ordered_on(&[] as &[u32], 4, 0, 1, f).is_empty());
        assert_eq!(map_ordered_on(&[5u32], 4, 0, 1, f), vec![10]);
    }

    #[test]
    fn a_panic_in_a_worker_reaches_the_caller() {
        let items: Vec<u32> = (0..100).collect();
        let r = std::panic::catch_unwind(|| {
            map_ordered_on(&items, 4, 2, 8, |run: &[u32]| {
                assert!(!run.contains(&99), "boom");
                run.to_vec()
            })
        });
        assert!(r.is_err());
    }
}
