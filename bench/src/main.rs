//! kube-codegen's benchmarks, one command per suite: `cargo run --release -p bench -- <suite>`.
//! Comparisons run the programs alternately in one invocation and report medians (min–max);
//! `--quick` runs every suite small, for CI, keeping only its correctness checks meaningful.
//! BENCHMARKS.md has the commands and the latest results.

mod codegen;
mod compile;
mod controller;
mod error;
mod informer;
mod ingest;
mod listers;
#[cfg(feature = "json-parsers")]
mod parsers;
mod process;
mod stats;
mod vm_catalog;
mod vm_server;
mod workqueue;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};
use error::BenchError;

/// Benchmarks of kube-codegen against what users would pick instead.
#[derive(Parser)]
#[command(name = "bench")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Options every suite takes.
#[derive(clap::Args, Clone, Copy)]
struct Common {
    /// Small sizes and one round: checks that the suite runs and its results are correct.
    #[arg(long)]
    quick: bool,
    /// Rounds of every program (default 3, codegen 5, controller 1; 1 with --quick).
    #[arg(long)]
    rounds: Option<usize>,
}

impl Common {
    fn rounds(&self, full: usize) -> usize {
        self.rounds.unwrap_or(if self.quick { 1 } else { full })
    }
}

#[derive(Subcommand)]
enum Command {
    /// Informer ingest: ours vs kube-runtime's reflector vs decode-only (N = 10k, 100k; M = 100k).
    Informer(Common),
    /// Listers: get and namespace list over 100k cached objects, alone and under a watch.
    Listers(Common),
    /// Workqueue: add/get/done cycles with 1 and 2 workers; coalescing of 1 M adds.
    Workqueue(Common),
    /// Codegen: codegen-cli on generated-example and on 100 groups × 5 kinds.
    Codegen(Common),
    /// Compile cost: 20 kinds with our derive vs kube-derive, dev and release.
    Compile(Common),
    /// Controller: 10k Foos at once, time to converge, then idle CPU over 60 s.
    Controller(Common),
    /// Every suite in turn.
    All(Common),
    /// JSON parsers on the informer's bytes: serde_json vs sonic-rs vs simd-json (needs
    /// `--features json-parsers`).
    #[cfg(feature = "json-parsers")]
    Parsers {
        #[command(flatten)]
        common: Common,
        /// The conformance transcripts whose bodies every parser must read as serde_json does.
        #[arg(long, default_value = "../shared/conformance/real")]
        corpus: PathBuf,
    },
    /// (internal) Serve VirtualMachines for the informer suites.
    #[command(hide = true)]
    Serve {
        #[arg(long)]
        objects: usize,
        #[arg(long, default_value_t = 0)]
        events: usize,
        #[arg(long)]
        endless: bool,
        /// Serve the objects without managed fields.
        #[arg(long)]
        without_managed_fields: bool,
    },
    /// (internal) One informer-ingest measurement.
    #[command(hide = true)]
    Ingest {
        #[arg(long)]
        url: String,
        #[arg(long, value_enum)]
        client: ingest::Client,
        #[arg(long)]
        streaming: bool,
        #[arg(long)]
        objects: usize,
        #[arg(long)]
        events: usize,
    },
    /// (internal) Run a program and print its wall seconds and peak MiB.
    #[command(hide = true)]
    Measure {
        program: PathBuf,
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

/// `--features mimalloc`: every process of the suites (servers and clients) allocates with
/// mimalloc, to measure the informer under an allocator whose frees from another thread take
/// no lock.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn runtime() -> Result<tokio::runtime::Runtime, BenchError> {
    tokio::runtime::Runtime::new().map_err(BenchError::io("cannot start tokio"))
}

fn run_suite(command: &Command) -> Result<(), BenchError> {
    match command {
        Command::Informer(c) => informer::suite(&informer::Sizes::new(c.quick, c.rounds(3))),
        Command::Listers(c) => {
            let (objects, window) = if c.quick {
                (2_000, Duration::from_millis(100))
            } else {
                (100_000, Duration::from_secs(2))
            };
            listers::suite(objects, c.rounds(3), window)
        }
        Command::Workqueue(c) => {
            let (cycles, adds) = if c.quick {
                (20_000, 20_000)
            } else {
                (1_000_000, 1_000_000)
            };
            workqueue::suite(cycles, adds, c.rounds(3))
        }
        Command::Codegen(c) => codegen::suite(if c.quick { 10 } else { 100 }, c.rounds(5)),
        Command::Compile(c) => {
            let profiles: &[&str] = if c.quick { &["dev"] } else { &["dev", "release"] };
            compile::suite(profiles, c.rounds(3))
        }
        Command::Controller(c) => {
            let (foos, idle) = if c.quick {
                (200, Duration::from_secs(2))
            } else {
                (10_000, Duration::from_secs(60))
            };
            controller::suite(foos, idle, c.rounds(1))
        }
        Command::All(c) => [
            Command::Informer(*c),
            Command::Listers(*c),
            Command::Workqueue(*c),
            Command::Codegen(*c),
            Command::Compile(*c),
            Command::Controller(*c),
        ]
        .iter()
        .try_for_each(run_suite),
        #[cfg(feature = "json-parsers")]
        Command::Parsers { common, corpus } => {
            parsers::suite(if common.quick { 1_000 } else { 20_000 }, common.rounds(5), corpus)
        }
        Command::Serve {
            objects,
            events,
            endless,
            without_managed_fields,
        } => runtime()?.block_on(vm_server::serve(
            *objects,
            (!endless).then_some(*events),
            !without_managed_fields,
        )),
        Command::Ingest {
            url,
            client,
            streaming,
            objects,
            events,
        } => runtime()?.block_on(ingest::run(url, *client, *streaming, *objects, *events)),
        Command::Measure { program, args } => process::measure_child(program, args),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run_suite(&cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}
