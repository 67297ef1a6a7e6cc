//! Running the `meshcast` binary in tests.
use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use meshcast::Ray;

/// A fresh, empty folder for one test's files.
pub fn scratch(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cli-{test}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch folder");
    dir
}

/// What a run printed, and how it ended.
pub struct Run {
    pub stdout: String,
    pub stderr: String,
    pub success: bool,
    pub code: Option<i32>,
}

impl From<Output> for Run {
    fn from(output: Output) -> Self {
        Self {
            stdout: String::from_utf8(output.stdout).expect("stdout is UTF-8"),
            stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
            success: output.status.success(),
            code: output.status.code(),
        }
    }
}

/// Runs `meshcast` with `args` in `dir` (or the crate folder), feeding `stdin`.
pub fn run_in(dir: Option<&Path>, args: &[&str], stdin: &[u8]) -> Run {
    run_with_env(dir, args, stdin, &[])
}

/// [`run_in`] with environment variables set for the run.
pub fn run_with_env(dir: Option<&Path>, args: &[&str], stdin: &[u8], env: &[(&str, &str)]) -> Run {
    let mut command = Command::new(env!("CARGO_BIN_EXE_meshcast"));
    command
        .envs(env.iter().copied())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    let mut child = command.spawn().expect("start meshcast");
    let mut input = child.stdin.take().expect("stdin");
    let stdin = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        // The program may stop reading early (on an error); that is not a test failure.
        let _ = input.write_all(&stdin);
    });
    let output = child.wait_with_output().expect("wait for meshcast");
    writer.join().expect("stdin writer");
    output.into()
}

/// Runs `meshcast` with `args` and no input.
pub fn run(args: &[&str]) -> Run {
    run_in(None, args, b"")
}

/// Asserts a run failed the way a command-line tool should: non-zero exit, one line on stderr
/// starting with `error:` and containing `needle`, no panic, nothing on stdout.
pub fn assert_clean_failure(run: &Run, needle: &str) {
    assert!(
        !run.success,
        "expected failure, got success: {}",
        run.stdout
    );
    assert_ne!(
        run.code,
        Some(101),
        "exit code 101 is a panic: {}",
        run.stderr
    );
    assert!(!run.stderr.contains("panicked"), "panic: {}", run.stderr);
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "stderr is not one line: {:?}", run.stderr);
    assert!(lines[0].starts_with("error: "), "{}", lines[0]);
    assert!(
        lines[0].contains(needle),
        "{:?} does not mention {needle:?}",
        lines[0]
    );
}

/// Paths as `&str` for argument lists.
pub fn arg(path: &Path) -> &str {
    path.to_str().expect("UTF-8 path")
}

/// Rays as `cast` reads them: six numbers per line, printed so they read back exactly.
pub fn ray_lines(rays: &[Ray]) -> String {
    let mut text = String::new();
    for ray in rays {
        let (o, d) = (ray.origin, ray.dir);
        writeln!(text, "{} {} {}\t{} {} {}", o.x, o.y, o.z, d.x, d.y, d.z).unwrap();
    }
    text
}
