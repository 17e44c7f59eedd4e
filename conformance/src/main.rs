//! `conformance`: replays the corpus against the in-memory API server (in process, or served over
//! HTTP) or any server of a kubeconfig, and prints how each step compares with kube-apiserver's
//! recorded answer: `cargo run -p conformance -- [--served | --kubeconfig K] [--only REGEX] [-v]`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use conformance::compare::Verdict;
use conformance::expect::Expectations;
use conformance::runner::Recorder;
use conformance::{Corpus, corpus_dir, replay, report};
use regex::Regex;

/// Replay the conformance corpus and compare with kube-apiserver's recorded answers.
#[derive(Parser)]
struct Args {
    /// Serve the in-memory server on loopback and replay over HTTP (default: in process).
    #[arg(long, conflicts_with = "kubeconfig")]
    served: bool,
    /// Replay against the server of this kubeconfig instead of a fresh in-memory server.
    #[arg(long)]
    kubeconfig: Option<PathBuf>,
    /// Only scenarios whose name matches this regular expression.
    #[arg(long)]
    only: Option<Regex>,
    /// Also print soft differences (wording, warnings, empty-vs-absent).
    #[arg(short, long)]
    verbose: bool,
    /// Write our transcripts here (readable by `corpus/conformance.py diff`).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Differences printed per step.
    #[arg(long, default_value_t = 12)]
    max_lines: usize,
    /// Replay the transcripts recorded on this kube-apiserver version (`corpus/real-<version>/`,
    /// `pending-<version>.txt`) against the server set to it (default: the corpus' v1.28.7).
    #[arg(long, value_name = "VERSION")]
    minor: Option<String>,
}

/// Why the replay could not run.
#[derive(Debug, thiserror::Error)]
enum Error {
    #[error(transparent)]
    Corpus(#[from] conformance::CorpusError),
    #[error(transparent)]
    Expect(#[from] conformance::expect::ExpectError),
    #[error("cannot serve the in-memory server: {0}")]
    Serve(#[from] fake_apiserver::ServeError),
    #[error("kubeconfig: {0}")]
    Kubeconfig(#[from] kube::config::KubeconfigError),
    #[error("client: {0}")]
    Client(#[from] kube::Error),
    #[error("writing transcripts: {0}")]
    Write(#[from] std::io::Error),
}

#[tokio::main]
async fn main() -> ExitCode {
    match run(Args::parse()).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn run(args: Args) -> Result<(), Error> {
    let dir = corpus_dir();
    let (corpus, expectations, server) = match &args.minor {
        Some(version) => (
            Corpus::load_recorded(&dir, &format!("real-{version}"))?,
            Expectations::load_with(&conformance::crate_dir(), &format!("pending-{version}.txt"))?,
            conformance::corpus_server_at(version),
        ),
        None => (
            Corpus::load(&dir)?,
            Expectations::load(&conformance::crate_dir())?,
            conformance::corpus_server(),
        ),
    };
    let _served;
    let recorder = if let Some(path) = &args.kubeconfig {
        let kubeconfig = kube::config::Kubeconfig::read_from(path)?;
        let config = kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default()).await?;
        let url = config.cluster_url.to_string();
        Recorder::for_config(config, url)?
    } else if args.served {
        let served = server.serve("127.0.0.1:0".parse().expect("a socket address")).await?;
        let recorder = Recorder::for_config(served.kube_config(), served.url())?;
        _served = served;
        recorder
    } else {
        Recorder::new(server.client(), "in-process")
    };
    let only = |name: &str| args.only.as_ref().is_none_or(|re| re.is_match(name));
    let (results, transcripts) = replay(&corpus, &recorder, only).await;
    for result in &results {
        if result.verdict == Verdict::Differ || (args.verbose && result.verdict == Verdict::Soft) {
            print!("{}", report::describe(result, args.verbose, args.max_lines));
        }
    }
    println!();
    print!("{}", report::summary(&results, &expectations));
    if let Some(out) = &args.out {
        std::fs::create_dir_all(out)?;
        for transcript in transcripts {
            let name = transcript["scenario"].as_str().unwrap_or("unnamed").to_owned();
            let text = serde_json::to_string_pretty(&transcript).expect("JSON values serialize");
            std::fs::write(out.join(format!("{name}.json")), text)?;
        }
    }
    Ok(())
}
