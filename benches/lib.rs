//! Shared set-up for the criterion benchmarks in this folder.

/// What [`median_run`] measured.
pub struct MedianRun {
    /// The median time of one run.
    pub median: std::time::Duration,
    /// How many runs it took.
    pub runs: usize,
    /// The last run's answer.
    pub answer: String,
}

/// Runs `query` until a second has passed and at least three times, as the timing examples
/// (`examples/contact_timing.rs`, `examples/views_timing.rs`) measure.
pub fn median_run(query: &mut dyn FnMut() -> String) -> MedianRun {
    const MIN_RUNS: usize = 3;
    const MIN_TIME: std::time::Duration = std::time::Duration::from_secs(1);
    let started = std::time::Instant::now();
    let mut times = Vec::new();
    let mut answer = String::new();
    while times.len() < MIN_RUNS || started.elapsed() < MIN_TIME {
        let start = std::time::Instant::now();
        answer = std::hint::black_box(query());
        times.push(start.elapsed());
    }
    times.sort();
    MedianRun {
        median: times[times.len() / 2],
        runs: times.len(),
        answer,
    }
}

/// The command line of the timing examples (`examples/contact_timing.rs`,
/// `examples/views_timing.rs`): `[MESH] [--FLAG VALUE]...`.
pub struct TimingArgs {
    args: Vec<String>,
}

impl TimingArgs {
    /// The process's arguments.
    pub fn from_env() -> Self {
        Self {
            args: std::env::args().skip(1).collect(),
        }
    }

    /// The argument after `flag`, if `flag` is given.
    pub fn value(&self, flag: &str) -> Option<&str> {
        let at = self.args.iter().position(|a| a == flag)?;
        self.args.get(at + 1).map(String::as_str)
    }

    /// The mesh: the first argument that is neither a flag nor a flag's value; the Stanford
    /// bunny when there is none.
    pub fn mesh_path(&self) -> std::path::PathBuf {
        let args = &self.args;
        args.iter()
            .enumerate()
            .find(|&(i, a)| !a.starts_with("--") && (i == 0 || !args[i - 1].starts_with("--")))
            .map(|(_, a)| a.into())
            .unwrap_or_else(|| meshcast_testkit::asset("stanford-bunny.obj"))
    }

    /// A rayon pool of `--threads N` threads (every core without it).
    ///
    /// # Errors
    /// If N is not a number, or the threads cannot be started.
    pub fn pool(&self) -> Result<rayon::ThreadPool, Box<dyn std::error::Error + Send + Sync>> {
        let mut pool = rayon::ThreadPoolBuilder::new();
        if let Some(n) = self.value("--threads") {
            pool = pool.num_threads(n.parse()?);
        }
        Ok(pool.build()?)
    }
}

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

/// What the build measurements (`examples/build_phases.rs`, `examples/collapse_cost.rs`)
/// read from their command line, `MESH [LEVELS [ROUNDS]]`, and their environment.
pub struct BuildMeasurement {
    /// The mesh file.
    pub path: String,
    /// How many times the mesh was subdivided (default 0).
    pub levels: u32,
    /// The mesh, subdivided `levels` times.
    pub mesh: meshcast::TriMesh,
    /// How many times to time each phase (default 5); the best is reported.
    pub rounds: usize,
    /// `Parallel::Sequential` when `BUILD_SEQUENTIAL` is set, else `Parallel::Rayon`.
    pub parallel: meshcast::Parallel,
}

impl BuildMeasurement {
    /// Reads the arguments; `default` is the mesh when none is named (`None`: one must be).
    ///
    /// # Errors
    /// The mesh's, if it cannot be loaded or subdivided.
    ///
    /// # Panics
    /// With `usage` if no mesh is named and there is no default, or if LEVELS or ROUNDS is
    /// not a number.
    pub fn from_args(default: Option<&str>, usage: &str) -> meshcast::Result<Self> {
        use meshcast::TriMeshFiles;
        let mut args = std::env::args().skip(1);
        let path = args
            .next()
            .or_else(|| default.map(str::to_owned))
            .unwrap_or_else(|| panic!("usage: {usage}"));
        let levels: u32 = args.next().map_or(0, |a| a.parse().expect("LEVELS"));
        let rounds: usize = args.next().map_or(5, |a| a.parse().expect("ROUNDS"));
        let parallel = if std::env::var_os("BUILD_SEQUENTIAL").is_some() {
            meshcast::Parallel::Sequential
        } else {
            meshcast::Parallel::Rayon
        };
        let mesh = meshcast::TriMesh::from_path(&path)?.subdivide(levels)?;
        Ok(Self {
            path,
            levels,
            mesh,
            rounds,
            parallel,
        })
    }
}
