//! The thread pools the queries run on, made on first use and kept, so that a call never
//! pays for starting threads.
//!
//! - Every core (`threads=None` or 0): one pool for the process, shared by every caller, so
//!   that Python threads casting at once share the cores rather than crowd them.
//! - An explicit count: a pool of that size for each calling thread, so that callers who
//!   spread work over their own threads (Dask's threaded scheduler with `threads=1`) run side
//!   by side rather than one after the other in one shared pool.
//!
//! A process forked after meshcast has run (multiprocessing's default on Linux) inherits the
//! pools but none of their threads: a pool used there would wait for ever. Each pool
//! remembers the process that made it, and a child makes its own; the parent's pools are
//! leaked in the child rather than dropped, since dropping one would signal threads that do
//! not exist there.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use rayon::{ThreadPool, ThreadPoolBuilder};

/// Pools by thread count, made by one process.
#[derive(Default)]
struct Pools {
    process: u32,
    by_threads: HashMap<usize, Arc<ThreadPool>>,
}

impl Pools {
    /// The pool of `threads` threads, made if this process has none.
    fn get(&mut self, threads: usize) -> PyResult<Arc<ThreadPool>> {
        let process = std::process::id();
        if self.process != process {
            // Inherited through a fork (or never used): its threads live only in the parent.
            std::mem::forget(std::mem::take(&mut self.by_threads));
            self.process = process;
        }
        if let Some(pool) = self.by_threads.get(&threads) {
            return Ok(pool.clone());
        }
        let pool = ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("meshcast-{i}"))
            .build()
            .map_err(|err| {
                PyRuntimeError::new_err(format!("cannot start {threads} threads: {err}"))
            })?;
        let pool = Arc::new(pool);
        self.by_threads.insert(threads, pool.clone());
        Ok(pool)
    }
}

/// The pool on every core, shared by the process.
static SHARED: Mutex<Option<Pools>> = Mutex::new(None);

thread_local! {
    /// The pools of explicit sizes this thread has asked for.
    static OWN: RefCell<Pools> = RefCell::new(Pools::default());
}

/// The number of cores.
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// The pool a query asking for `threads` threads runs on: every core for `None` or 0 (as
/// Open3D's `nthreads=0`), else `threads`, at most 4096.
fn pool(threads: Option<i64>) -> PyResult<Arc<ThreadPool>> {
    match threads {
        None | Some(0) => SHARED
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get_or_insert_with(Pools::default)
            .get(cores()),
        Some(n @ 1..=4096) => OWN.with(|own| own.borrow_mut().get(n as usize)),
        Some(n) => Err(PyValueError::new_err(format!(
            "threads must be between 0 (every core) and 4096, not {n}"
        ))),
    }
}

/// Checks a thread count as a query would take it, making no pool.
///
/// # Errors
/// `ValueError` for a count outside 0 (every core) to 4096.
pub fn check(threads: Option<i64>) -> PyResult<()> {
    match threads {
        None | Some(0..=4096) => Ok(()),
        Some(n) => Err(PyValueError::new_err(format!(
            "threads must be between 0 (every core) and 4096, not {n}"
        ))),
    }
}

/// Runs `work` on the pool of `threads` threads with the GIL released: every parallel step
/// inside it (batch queries, builds) runs on that pool.
pub fn run<T, F>(py: Python<'_>, threads: Option<i64>, work: F) -> PyResult<T>
where
    T: Send,
    F: FnOnce() -> PyResult<T> + Send,
{
    let pool = pool(threads)?;
    py.detach(|| pool.install(work))
}

/// Runs `work`, one query that starts no parallel step, on the calling thread with the GIL
/// released: a call to the pool would wake one of its threads and wait for it, which costs
/// more than a short query (tens of microseconds).
pub fn run_here<T, F>(py: Python<'_>, work: F) -> T
where
    T: Send,
    F: FnOnce() -> T + Send,
{
    py.detach(work)
}
