//! Shared set-up for the criterion benchmarks in this folder.

/// One rayon pool of one thread and one of two, so each benchmark reports both; run work in
/// a pool with `pool.install(|| ...)`.
///
/// # Panics
/// If the operating system refuses to start the threads.
pub fn thread_pools() -> Vec<(usize, rayon::ThreadPool)> {
    [1, 2]
        .into_iter()
        .map(|threads| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("thread pool");
            (threads, pool)
        })
        .collect()
}
