//! The controller binary: flags, logging, signals, then [`controller::run`].

use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;
use codegen_runtime::LeaderElectionConfig;
use codegen_runtime::leader::LeaderElectionError;
use controller::config::ConnectError;
use controller::flags::Flags;
use controller::vm::simulated::SimulatedHypervisor;
use controller::{RunError, RunOptions, config, run};
use tokio::signal::unix::{Signal, SignalKind, signal};
use tokio_util::sync::CancellationToken;
use tracing_subscriber::EnvFilter;

fn main() -> ExitCode {
    let flags = Flags::parse();
    // klog's -v levels: 0-1 info, 2-3 debug, 4+ trace; RUST_LOG wins when set.
    let level = match flags.verbosity {
        0 | 1 => "info",
        2 | 3 => "debug",
        _ => "trace",
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(level));
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(ansi)
        .with_writer(std::io::stderr)
        .init();
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(main_async(flags)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Why the controller did not start, or stopped on an error.
#[derive(Debug, thiserror::Error)]
enum MainError {
    // The cause is in the message, which is what is printed: not a `#[source]` too.
    #[error("cannot listen for SIGINT and SIGTERM: {0}")]
    Signals(std::io::Error),
    #[error("{0}; check the --leader-elect-* flags")]
    LeaderElection(LeaderElectionError),
    #[error(transparent)]
    Connect(#[from] ConnectError),
    #[cfg(feature = "embedded")]
    #[error(transparent)]
    Embedded(#[from] controller::embedded::EmbeddedError),
    #[cfg(not(feature = "embedded"))]
    #[error(
        "--embedded needs the controller built with its `embedded` feature (on by default); \
         rebuild without --no-default-features, or pass --kubeconfig"
    )]
    NoEmbeddedServer,
    #[error(transparent)]
    Run(#[from] RunError),
}

async fn main_async(flags: Flags) -> Result<(), MainError> {
    let shutdown = CancellationToken::new();
    // Registered before anything else, so no early signal takes the default action.
    let interrupt = signal(SignalKind::interrupt()).map_err(MainError::Signals)?;
    let terminate = signal(SignalKind::terminate()).map_err(MainError::Signals)?;
    tokio::spawn(stop_on_signal(interrupt, terminate, shutdown.clone()));
    let identity = flags.identity();
    let leader_election = flags.leader_elect.then(|| LeaderElectionConfig {
        lease_duration: flags.leader_elect_lease_duration,
        renew_deadline: flags.leader_elect_renew_deadline,
        retry_period: flags.leader_elect_retry_period,
        release_on_cancel: true,
        ..LeaderElectionConfig::new(&flags.lease_lock_namespace, &flags.lease_lock_name, &identity)
    });
    // Bad durations are a flag error: say so before connecting anywhere.
    if let Some(config) = &leader_election {
        config.validate().map_err(MainError::LeaderElection)?;
    }
    let (client, _embedded) = if flags.embedded {
        start_embedded(&flags).await?
    } else {
        let config = config::config(flags.kubeconfig.as_ref(), flags.master.as_deref()).await?;
        let connected = tokio::select! {
            connected = config::connect(config) => connected?,
            () = shutdown.cancelled() => return Ok(()),
        };
        (connected, None)
    };
    tracing::info!(%identity, leader_elect = flags.leader_elect, "starting controllers");
    let options = RunOptions {
        threads: flags.threads,
        namespace: flags.namespace.clone(),
        leader_election,
        resync: flags.resync_period,
        vm_refresh: flags.vm_refresh_period,
        probe_address: flags.probe_address(),
        driver: Arc::new(SimulatedHypervisor::new()),
        recorder: None,
        identity,
    };
    run(client, options, shutdown).await?;
    tracing::info!("shut down cleanly");
    Ok(())
}

/// Cancels `shutdown` on the first SIGINT or SIGTERM; a second one exits at once.
async fn stop_on_signal(mut interrupt: Signal, mut terminate: Signal, shutdown: CancellationToken) {
    for round in 0..2 {
        tokio::select! {
            _ = interrupt.recv() => {}
            _ = terminate.recv() => {}
        }
        if round == 0 {
            tracing::info!("signal received: finishing work in flight, then releasing the lease");
            shutdown.cancel();
        } else {
            eprintln!("second signal: exiting now");
            std::process::exit(1);
        }
    }
}

/// The in-memory API server this process serves with `--embedded`, kept alive while it runs.
#[cfg(feature = "embedded")]
type Embedded = controller::embedded::Embedded;
#[cfg(not(feature = "embedded"))]
type Embedded = ();

/// `--embedded`: starts the in-memory API server with deploy/'s CRDs and examples installed.
#[cfg(feature = "embedded")]
async fn start_embedded(flags: &Flags) -> Result<(kube::Client, Option<Embedded>), MainError> {
    let embedded = controller::embedded::start(flags.embedded_address, flags.embedded_kubeconfig.clone()).await?;
    eprintln!(
        "embedded API server at {} with deploy/crds and deploy/examples installed; try:\n  \
         export KUBECONFIG={}\n  kubectl get vm,foo,deploy -w",
        embedded.served.url(),
        embedded.kubeconfig.display()
    );
    Ok((embedded.server.client(), Some(embedded)))
}

/// Without the `embedded` feature the binary carries no API server: say how to get one.
#[cfg(not(feature = "embedded"))]
async fn start_embedded(_: &Flags) -> Result<(kube::Client, Option<Embedded>), MainError> {
    Err(MainError::NoEmbeddedServer)
}
