//! What a process costs: its resident memory now and at peak, its CPU time, and the wall time and
//! peak memory of a child program; and the benchmark server as a child process.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use nix::sys::resource::{UsageWho, getrusage};

use crate::error::BenchError;

/// A `VmRSS:`-style field of `/proc/self/status`, in MiB.
fn status_mib(field: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kib: f64 = status
        .lines()
        .find_map(|line| line.strip_prefix(field))
        .and_then(|value| value.split_whitespace().next())
        .and_then(|value| value.parse().ok())
        .unwrap_or(0.0);
    kib / 1024.0
}

/// This process's resident memory, in MiB.
pub fn rss_mib() -> f64 {
    status_mib("VmRSS:")
}

/// This process's peak resident memory, in MiB.
pub fn peak_rss_mib() -> f64 {
    status_mib("VmHWM:")
}

/// User plus system CPU time this process has used.
pub fn cpu_time() -> Duration {
    let usage = getrusage(UsageWho::RUSAGE_SELF).expect("getrusage(RUSAGE_SELF) cannot fail");
    let to_duration = |t: nix::sys::time::TimeVal| Duration::new(t.tv_sec() as u64, t.tv_usec() as u32 * 1000);
    to_duration(usage.user_time()) + to_duration(usage.system_time())
}

/// How long a child ran and its peak resident memory.
#[derive(Clone, Copy, Debug)]
pub struct ChildCost {
    /// From spawn to exit.
    pub wall: Duration,
    /// Peak resident memory, in MiB.
    pub peak_rss_mib: f64,
}

/// Runs `program` with `args`, output discarded, and measures it. Peak memory comes from
/// `getrusage(RUSAGE_CHILDREN)`, which reports the largest child waited for so far: so each
/// measurement runs in a fresh `bench measure` process whose only child is the program.
pub fn measure(program: &Path, args: &[String]) -> Result<ChildCost, BenchError> {
    let output = Command::new(self_exe()?)
        .arg("measure")
        .arg(program)
        .args(args)
        .stderr(Stdio::inherit())
        .output()
        .map_err(BenchError::io("cannot run the measuring process"))?;
    if !output.status.success() {
        return Err(BenchError::Failed {
            program: format!("{} {}", program.display(), args.join(" ")),
            status: output.status,
            output: String::new(),
        });
    }
    let line = String::from_utf8_lossy(&output.stdout);
    let mut fields = line.split_whitespace().map(str::parse::<f64>);
    match (fields.next(), fields.next()) {
        (Some(Ok(wall)), Some(Ok(peak))) => Ok(ChildCost {
            wall: Duration::from_secs_f64(wall),
            peak_rss_mib: peak,
        }),
        _ => Err(BenchError::Output {
            program: "the measuring process".to_owned(),
            printed: line.into_owned(),
            expected: "`<wall s> <peak MiB>`".to_owned(),
        }),
    }
}

/// The `bench measure <program> <args…>` subcommand: runs the program (its output kept, and
/// shown only if it fails), then prints its wall seconds and peak MiB.
pub fn measure_child(program: &Path, args: &[String]) -> Result<(), BenchError> {
    let started = Instant::now();
    let output = Command::new(program)
        .args(args)
        .output()
        .map_err(BenchError::io(format!("cannot run {}", program.display())))?;
    let wall = started.elapsed();
    if !output.status.success() {
        return Err(BenchError::Failed {
            program: program.display().to_string(),
            status: output.status,
            output: String::from_utf8_lossy(&output.stderr).into_owned(),
        });
    }
    let usage = getrusage(UsageWho::RUSAGE_CHILDREN).map_err(|errno| BenchError::io("getrusage")(errno.into()))?;
    // Linux reports ru_maxrss in KiB.
    println!("{:.6} {:.1}", wall.as_secs_f64(), usage.max_rss() as f64 / 1024.0);
    Ok(())
}

/// This benchmark's own executable, for the child processes it starts.
pub fn self_exe() -> Result<PathBuf, BenchError> {
    std::env::current_exe().map_err(BenchError::io("cannot find the bench executable"))
}

/// The directory of this executable's profile (`target/debug` or `target/release`), where the
/// workspace's other binaries are built.
pub fn profile_dir() -> Result<PathBuf, BenchError> {
    let exe = self_exe()?;
    exe.parent()
        .map(Path::to_path_buf)
        .ok_or_else(|| BenchError::check(format!("{} has no parent directory", exe.display())))
}

/// Whether this executable is a release build.
pub fn is_release() -> bool {
    !cfg!(debug_assertions)
}

/// The workspace root: the parent of this crate's manifest directory.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("bench/ lives in the workspace")
        .to_path_buf()
}

/// Runs `cargo` with `args` and `envs` in `dir`, failing with the end of its output if it fails.
pub fn cargo(dir: &Path, args: &[&str], envs: &[(&str, &str)]) -> Result<Duration, BenchError> {
    let started = Instant::now();
    let output = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned()))
        .args(args)
        .current_dir(dir)
        .envs(envs.iter().copied())
        .output()
        .map_err(BenchError::io("cannot run cargo"))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let tail: Vec<&str> = stderr.lines().rev().take(40).collect();
        return Err(BenchError::Failed {
            program: format!("cargo {} in {}", args.join(" "), dir.display()),
            status: output.status,
            output: tail.into_iter().rev().collect::<Vec<_>>().join("\n"),
        });
    }
    Ok(started.elapsed())
}

/// A `bench serve` process; killed when dropped.
pub struct ServerProcess {
    child: Child,
    /// Its base URL.
    pub url: String,
}

impl ServerProcess {
    /// Starts a server of `objects` VirtualMachines (with or without managed fields) and
    /// `events` watch events (`None`: endless) and waits until it listens.
    pub fn start(objects: usize, events: Option<usize>, managed_fields: bool) -> Result<Self, BenchError> {
        let mut command = Command::new(self_exe()?);
        command.args(["serve", "--objects", &objects.to_string()]);
        if !managed_fields {
            command.arg("--without-managed-fields");
        }
        match events {
            Some(events) => command.args(["--events", &events.to_string()]),
            None => command.arg("--endless"),
        };
        let mut child = command
            .stdout(Stdio::piped())
            .spawn()
            .map_err(BenchError::io("cannot start the benchmark server"))?;
        let mut line = String::new();
        let stdout = child.stdout.take().expect("stdout is piped");
        BufReader::new(stdout)
            .read_line(&mut line)
            .map_err(BenchError::io("reading the benchmark server's address"))?;
        let Some(url) = line.trim().strip_prefix("listening ") else {
            let _ = child.kill();
            return Err(BenchError::Output {
                program: "the benchmark server".to_owned(),
                printed: line,
                expected: "`listening <url>`".to_owned(),
            });
        };
        Ok(Self {
            url: url.to_owned(),
            child,
        })
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
