//! The thread pools the queries run on: one rayon pool per thread count asked for, made on
//! first use and kept, so that a call never pays for starting threads.
//!
//! A process forked after meshcast has run (multiprocessing's default on Linux) inherits the
//! pools but none of their threads: a pool used there would wait for ever. Each pool
//! remembers the process that made it, and a child makes its own; the parent's pools are
//! leaked in the child rather than dropped, since dropping one would signal threads that do
//! not exist there.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use rayon::{ThreadPool, ThreadPoolBuilder};

/// The pools of this process, by thread count.
struct Pools {
    process: u32,
    by_threads: HashMap<usize, Arc<ThreadPool>>,
}

static POOLS: Mutex<Option<Pools>> = Mutex::new(None);

/// The number of threads a query runs on: `threads`, or every core for `None` or 0 (as
/// Open3D's `nthreads=0`).
pub fn count(threads: Option<i64>) -> PyResult<usize> {
    match threads {
        None | Some(0) => Ok(std::thread::available_parallelism().map_or(1, usize::from)),
        Some(n) if n > 0 && n <= 4096 => Ok(n as usize),
        Some(n) => Err(PyValueError::new_err(format!(
            "threads must be between 0 (every core) and 4096, not {n}"
        ))),
    }
}

/// The pool of `threads` threads for this process.
fn pool(threads: usize) -> PyResult<Arc<ThreadPool>> {
    let mut pools = POOLS.lock().unwrap_or_else(PoisonError::into_inner);
    let process = std::process::id();
    if pools.as_ref().is_some_and(|pools| pools.process != process) {
        // Inherited through a fork: its threads live only in the parent.
        std::mem::forget(pools.take());
    }
    let pools = pools.get_or_insert_with(|| Pools {
        process,
        by_threads: HashMap::new(),
    });
    if let Some(pool) = pools.by_threads.get(&threads) {
        return Ok(pool.clone());
    }
    let pool = ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("meshcast-{i}"))
        .build()
        .map_err(|err| PyRuntimeError::new_err(format!("cannot start {threads} threads: {err}")))?;
    let pool = Arc::new(pool);
    pools.by_threads.insert(threads, pool.clone());
    Ok(pool)
}

/// Runs `work` on `threads` threads with the GIL released: every parallel step inside it
/// (batch queries, builds) runs on that pool.
pub fn run<T, F>(py: Python<'_>, threads: Option<i64>, work: F) -> PyResult<T>
where
    T: Send,
    F: FnOnce() -> PyResult<T> + Send,
{
    let pool = pool(count(threads)?)?;
    py.detach(|| pool.install(work))
}
