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
    map_ordered_on(items, cores(), SEQUENTIAL_BELOW, BATCH, f)
}

/// How many threads can run at once, asked once per process (the answer
/// reads the process's cgroup files each time).
pub fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
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
    let mut parts: Vec<(usize, Vec<R>)> = on_threads(threads.min(batches.len()), work)
        .into_iter()
        .flatten()
        .collect();
    parts.sort_unstable_by_key(|&(k, _)| k);
    let mut out = Vec::with_capacity(parts.iter().map(|(_, p)| p.len()).sum());
    for (_, p) in parts {
        out.extend(p);
    }
    out
}

/// Fills `out` on at most `threads` threads (sequential below `below`
/// items): `f(at, run)` writes the run of `out` that starts at index `at`,
/// runs of `batch` taken in turn by each thread (the calling one among
/// them). The output is written in place: nothing is joined or copied.
pub fn fill_on<T: Send>(
    out: &mut [T],
    threads: usize,
    below: usize,
    batch: usize,
    f: impl Fn(usize, &mut [T]) + Sync,
) {
    let batch = batch.max(1);
    if threads <= 1 || out.len() < below.max(2) {
        f(0, out);
        return;
    }
    let count = out.len().div_ceil(batch);
    let runs = std::sync::Mutex::new(out.chunks_mut(batch).enumerate());
    let work = || {
        loop {
            let next = runs
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .next();
            let Some((i, run)) = next else { return };
            f(i * batch, run);
        }
    };
    on_threads(threads.min(count), work);
}

/// `work` on the calling thread and on up to `threads - 1` more, each
/// thread's result (the calling one's first). `work` takes items until
/// none is left, so a thread that cannot be started (a process limit)
/// leaves its share to the others; a panic in a worker is the caller's
/// panic, as it would have been on one thread.
fn on_threads<R: Send>(threads: usize, work: impl Fn() -> R + Sync) -> Vec<R> {
    std::thread::scope(|s| {
        let handles: Vec<_> = (1..threads)
            .filter_map(|_| std::thread::Builder::new().spawn_scoped(s, &work).ok())
            .collect();
        // This thread works too, while the others do.
        let mut results = vec![work()];
        for h in handles {
            match h.join() {
                Ok(r) => results.push(r),
                Err(p) => std::panic::resume_unwind(p),
            }
        }
        results
    })
}

/// `f` over every item on `threads` threads (the calling one among them),
/// each output handed to `sink` on the calling thread in item order as
/// soon as it and every output before it are done. At most `ahead` items
/// are taken beyond the last one handed over, so only that many outputs
/// are held at a time. The calling thread hands over what is ready between
/// items of its own and waits only when it may take none.
pub fn for_each_ordered<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    ahead: usize,
    f: impl Fn(&T) -> R + Sync,
    mut sink: impl FnMut(R),
) {
    if threads <= 1 || items.len() < 2 {
        items.iter().for_each(|item| sink(f(item)));
        return;
    }
    let ahead = ahead.max(1);
    let shared = Shared::default();
    std::thread::scope(|s| {
        let (done, results) = std::sync::mpsc::channel::<(usize, R)>();
        let work = |done: std::sync::mpsc::Sender<(usize, R)>| {
            while let Some(k) = shared.take(items.len(), ahead, true) {
                let r =
                    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&items[k]))) {
                        Ok(r) => r,
                        Err(p) => {
                            // The others stop taking items; the panic is the
                            // caller's (below).
                            shared.stop();
                            std::panic::resume_unwind(p);
                        }
                    };
                if done.send((k, r)).is_err() {
                    return;
                }
            }
        };
        let workers: Vec<_> = (1..threads.min(items.len()))
            .filter_map(|_| {
                let done = done.clone();
                std::thread::Builder::new()
                    .spawn_scoped(s, move || work(done))
                    .ok()
            })
            .collect();
        drop(done);
        // However this thread leaves (a panic in `f` or `sink` too), no
        // worker waits for room that will never come.
        let _stop = StopOnDrop(&shared);
        let mut pending = std::collections::BTreeMap::new();
        let mut next = 0usize;
        while next < items.len() {
            while let Ok((k, r)) = results.try_recv() {
                pending.insert(k, r);
            }
            while let Some(r) = pending.remove(&next) {
                sink(r);
                next += 1;
                shared.handed(next);
            }
            if next == items.len() {
                break;
            }
            if let Some(k) = shared.take(items.len(), ahead, false) {
                pending.insert(k, f(&items[k]));
                continue;
            }
            // Every item is taken, or no room: the next output is a
            // worker's. None comes when every worker has ended (one
            // panicked, or none could be started).
            match results.recv() {
                Ok((k, r)) => {
                    pending.insert(k, r);
                }
                Err(_) => break,
            }
        }
        // Every other way out of the loop hands every output over (with
        // no worker, this thread takes every item itself): only a worker's
        // panic leaves some behind, and it is the caller's.
        if next < items.len() {
            for w in workers {
                if let Err(p) = w.join() {
                    std::panic::resume_unwind(p);
                }
            }
            unreachable!("an output is missing although no worker panicked");
        }
    });
}

/// What `for_each_ordered`'s threads share.
#[derive(Default)]
struct Shared {
    state: std::sync::Mutex<Taken>,
    room: std::sync::Condvar,
}

#[derive(Default)]
struct Taken {
    /// The next item to take.
    next: usize,
    /// Items handed to the sink.
    handed: usize,
    stopped: bool,
    /// Workers waiting for room.
    waiting: usize,
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, Taken> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The next item to work on, once it is less than `ahead` past the
    /// items handed over (waiting for that when `wait`, else `None`);
    /// `None` when none is left or work stopped.
    fn take(&self, len: usize, ahead: usize, wait: bool) -> Option<usize> {
        let mut t = self.lock();
        while !t.stopped && t.next < len && t.next >= t.handed.saturating_add(ahead) {
            if !wait {
                return None;
            }
            t.waiting += 1;
            t = self
                .room
                .wait(t)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            t.waiting -= 1;
        }
        if t.stopped || t.next >= len {
            return None;
        }
        t.next += 1;
        Some(t.next - 1)
    }

    fn handed(&self, n: usize) {
        let mut t = self.lock();
        t.handed = n;
        // A wake-up is a system call: only when someone waits for room.
        if t.waiting > 0 {
            self.room.notify_all();
        }
    }

    fn stop(&self) {
        self.lock().stopped = true;
        self.room.notify_all();
    }
}

struct StopOnDrop<'a>(&'a Shared);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filling_in_place_writes_every_item_once() {
        for threads in [1, 2, 3, 8] {
            for (len, batch) in [(0, 4), (1, 1), (1_000, 7), (5_000, 256), (4_096, 4_096)] {
                let mut out = vec![0usize; len];
                fill_on(&mut out, threads, 2, batch, |at, run| {
                    for (i, x) in run.iter_mut().enumerate() {
                        *x += (at + i) * 3 + 1;
                    }
                });
                let want: Vec<usize> = (0..len).map(|i| i * 3 + 1).collect();
                assert_eq!(out, want, "{threads} {len} {batch}");
            }
        }
    }

    #[test]
    fn each_output_reaches_the_sink_in_order() {
        let items: Vec<u32> = (0..2_000).collect();
        for threads in [1, 2, 3, 8] {
            for ahead in [1, 2, 64, 10_000] {
                let mut seen = Vec::new();
                for_each_ordered(&items, threads, ahead, |&x| x * 3, |r| seen.push(r));
                let want: Vec<u32> = items.iter().map(|x| x * 3).collect();
                assert_eq!(seen, want, "{threads} {ahead}");
            }
        }
        let mut none = Vec::new();
        for_each_ordered(&[] as &[u32], 4, 8, |&x| x, |r| none.push(r));
        assert!(none.is_empty());
    }

    #[test]
    fn no_more_than_ahead_outputs_wait() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let items: Vec<usize> = (0..500).collect();
        let handed = AtomicUsize::new(0);
        let mut most = 0usize;
        for_each_ordered(
            &items,
            4,
            16,
            |&k| {
                // Taken at most `ahead` past what was handed over.
                assert!(k < handed.load(Ordering::SeqCst) + 16, "{k}");
                k
            },
            |k| {
                most = most.max(k);
                handed.store(k + 1, Ordering::SeqCst);
            },
        );
        assert_eq!(most, 499);
    }

    #[test]
    fn a_panic_in_a_worker_reaches_the_caller_of_for_each_ordered() {
        let items: Vec<u32> = (0..100).collect();
        let r = std::panic::catch_unwind(|| {
            for_each_ordered(
                &items,
                3,
                8,
                |&x| {
                    assert!(x != 57, "boom");
                    x
                },
                |_| {},
            );
        });
        assert!(r.is_err());
    }

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
