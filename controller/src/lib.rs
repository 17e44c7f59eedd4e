//! controller101's VirtualMachine controller and sample-controller's Foo controller, on the
//! clientsets, informers and listers kube-codegen generates, under leader election.
//!
//! What the controllers may do, from which `hack/update-codegen.sh` writes
//! `deploy/rbac/role.yaml` (and the RBAC test checks it against what they did). `foos/finalizers`
//! is what clusters with the OwnerReferencesPermissionEnforcement admission plugin require of
//! whoever sets `blockOwnerDeletion` on a Deployment owned by a Foo:
//!
//! +kubebuilder:rbac:groups=cloudnative.tw,resources=virtualmachines,verbs=list;watch;update
//! +kubebuilder:rbac:groups=samplecontroller.k8s.io,resources=foos,verbs=list;watch
//! +kubebuilder:rbac:groups=samplecontroller.k8s.io,resources=foos/status,verbs=update
//! +kubebuilder:rbac:groups=samplecontroller.k8s.io,resources=foos/finalizers,verbs=update
//! +kubebuilder:rbac:groups=apps,resources=deployments,verbs=list;watch;create;update
//! +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
//! +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get;create;update,namespace=kube-codegen-system

pub mod config;
#[cfg(feature = "embedded")]
pub mod embedded;
pub mod flags;
pub mod foo;
pub mod health;
pub mod vm;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use codegen_runtime::controller::{Reconcile as _, ReconcileMetrics, run_workers};
use codegen_runtime::events::{Reporter, SeriesRecorder};
use codegen_runtime::workqueue::{WorkqueueMetrics, default_controller_rate_limiter};
use codegen_runtime::{EventRecorder, Events, LeaderCallbacks, LeaderElectionConfig, LeaderElector, WorkQueue};
use generated_example::generated::{Clientset, SharedInformerFactory};
use k8s_openapi::api::apps::v1::Deployment;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use foo::FooController;
use health::Health;
use vm::VmController;
use vm::driver::VmDriver;

/// How long a shutdown waits for the work in flight before releasing the lease anyway: well
/// within the 30 s a pod gets between SIGTERM and SIGKILL.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(20);

/// How to run the controllers.
pub struct RunOptions {
    /// Workers per controller.
    pub threads: u16,
    /// Only this namespace, or all.
    pub namespace: Option<String>,
    /// Leader election, or `None` to reconcile at once.
    pub leader_election: Option<LeaderElectionConfig>,
    /// Informer resync period.
    pub resync: Duration,
    /// How often an Active VirtualMachine's usage is refreshed.
    pub vm_refresh: Duration,
    /// Where /healthz, /readyz and /metrics are served.
    pub probe_address: SocketAddr,
    /// The hypervisor.
    pub driver: Arc<dyn VmDriver>,
    /// Where events go; `None` for the API server, through `SeriesRecorder`.
    pub recorder: Option<Arc<dyn EventRecorder>>,
    /// This replica's identity (events' reporting instance).
    pub identity: String,
}

impl RunOptions {
    /// The seeds' settings for replica `identity` with `driver`: 2 workers per controller, all
    /// namespaces, no leader election, a 30 s resync, usage refreshed every 20 s, probes on a
    /// free loopback port, events to the API server.
    pub fn new(identity: impl Into<String>, driver: Arc<dyn VmDriver>) -> Self {
        Self {
            threads: 2,
            namespace: None,
            leader_election: None,
            resync: Duration::from_secs(30),
            vm_refresh: Duration::from_secs(20),
            probe_address: SocketAddr::from(([127, 0, 0, 1], 0)),
            driver,
            recorder: None,
            identity: identity.into(),
        }
    }
}

/// Why the controllers stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The probe address could not be bound.
    #[error("cannot serve probes on {addr}: {source} (choose another --probe-address)")]
    Probe {
        /// The address.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// The leader election settings are invalid.
    #[error("{0}")]
    LeaderElection(#[from] codegen_runtime::leader::LeaderElectionError),
    /// This replica led and lost the lease (could not renew in time); client-go exits here too.
    #[error("leader election lost: the lease could not be renewed within the renew deadline")]
    LeadershipLost,
}

/// Runs both controllers until `shutdown` (SIGINT/SIGTERM in the binary): stops taking work,
/// finishes what is in flight, then releases the lease.
pub async fn run(client: kube::Client, mut options: RunOptions, shutdown: CancellationToken) -> Result<(), RunError> {
    let mut registry = Registry::default();
    let queue_metrics = WorkqueueMetrics::new();
    queue_metrics.register(&mut registry);
    let reconcile_metrics = ReconcileMetrics::new(&mut registry);
    // client-go's gauge, labelled with the lease's name.
    let leaders: Family<Vec<(String, String)>, Gauge> = Family::default();
    registry.register(
        "leader_election_master_status",
        "1 while this replica leads, else 0",
        leaders.clone(),
    );
    let health = Health::new(registry);
    let probes = CancellationToken::new();
    let (bound, probe_task) = health
        .serve(options.probe_address, probes.clone())
        .await
        .map_err(|source| RunError::Probe {
            addr: options.probe_address,
            source,
        })?;
    tracing::info!(address = %bound, "serving /healthz, /readyz and /metrics");
    let leader_election = options.leader_election.take();
    let context = Arc::new(Context {
        client,
        options,
        queue_metrics,
        reconcile_metrics,
        health: health.clone(),
    });
    let stop = shutdown.child_token();
    let result = match leader_election {
        None => {
            run_controllers(context, stop).await;
            Ok(())
        }
        Some(config) => {
            let gauge = leaders
                .get_or_create(&vec![("name".to_owned(), config.lease_name.clone())])
                .clone();
            lead(context, config, gauge, shutdown, stop).await
        }
    };
    probes.cancel();
    let _ = probe_task.await;
    result
}

/// Campaigns for the lease and runs the controllers while leading.
async fn lead(
    context: Arc<Context>,
    config: LeaderElectionConfig,
    gauge: Gauge,
    shutdown: CancellationToken,
    stop: CancellationToken,
) -> Result<(), RunError> {
    let identity = config.identity.clone();
    let elector = Arc::new(LeaderElector::new(context.client.clone(), config)?);
    // A standby is healthy and ready: it has nothing to sync until it leads.
    context.health.set_ready(true);
    let running: Arc<Mutex<Option<JoinHandle<()>>>> = Arc::default();
    let (started_gauge, stopped_gauge) = (gauge.clone(), gauge);
    let (slot, started_context, started_stop) = (running.clone(), context.clone(), stop.clone());
    let callbacks = LeaderCallbacks::new(
        move |leading: CancellationToken| {
            // Acquired just as shutdown began: lead nothing, the release follows.
            if started_stop.is_cancelled() {
                return;
            }
            tracing::info!("started leading");
            started_gauge.set(1);
            started_context.health.set_ready(false);
            // Stop when leadership ends or on shutdown, whichever is first.
            let controllers = started_stop.child_token();
            let on_loss = controllers.clone();
            tokio::spawn(async move {
                leading.cancelled().await;
                on_loss.cancel();
            });
            let task = tokio::spawn(run_controllers(started_context, controllers));
            *slot.lock().unwrap_or_else(|p| p.into_inner()) = Some(task);
        },
        move || {
            stopped_gauge.set(0);
        },
    )
    .on_new_leader(move |leader| {
        if leader != identity {
            tracing::info!(%leader, "new leader elected");
        }
    });
    let elector_cancel = CancellationToken::new();
    let mut campaign = tokio::spawn({
        let (elector, cancel) = (elector.clone(), elector_cancel.clone());
        async move { elector.run(cancel, callbacks).await }
    });
    let lost = tokio::select! {
        () = shutdown.cancelled() => false,
        _ = &mut campaign => true,
    };
    // Finish the work in flight before the lease goes, so no successor overlaps it.
    stop.cancel();
    let task = running.lock().unwrap_or_else(|p| p.into_inner()).take();
    let led = task.is_some();
    if let Some(task) = task
        && tokio::time::timeout(DRAIN_TIMEOUT, task).await.is_err()
    {
        tracing::warn!(
            ?DRAIN_TIMEOUT,
            "work in flight did not finish; releasing the lease anyway"
        );
    }
    elector_cancel.cancel();
    let _ = campaign.await;
    if lost && led {
        return Err(RunError::LeadershipLost);
    }
    Ok(())
}

/// What the controllers share.
struct Context {
    client: kube::Client,
    /// The options, leader election taken out.
    options: RunOptions,
    queue_metrics: WorkqueueMetrics,
    reconcile_metrics: ReconcileMetrics,
    health: Health,
}

impl Context {
    fn events(&self, controller: &str) -> Events {
        let recorder = self.options.recorder.clone().unwrap_or_else(|| {
            let reporter = Reporter {
                controller: controller.to_owned(),
                instance: Some(self.options.identity.clone()),
            };
            Arc::new(SeriesRecorder::new(self.client.clone(), reporter))
        });
        Events::new(recorder)
    }

    fn queue(&self, name: &str) -> WorkQueue<String> {
        WorkQueue::builder()
            .name(name)
            .rate_limiter(default_controller_rate_limiter())
            .metrics(&self.queue_metrics)
            .build()
    }
}

/// Starts the informers, waits for their caches, runs both controllers' workers until `stop`,
/// then stops the informers.
async fn run_controllers(context: Arc<Context>, stop: CancellationToken) {
    let clientset = Clientset::new(context.client.clone());
    // Neither controller reads managed fields, and a write of a cached object without them
    // keeps the server's (kube-apiserver leaves them as they are when a request omits them):
    // skipped where decoded, they cost neither decoding nor memory.
    let mut builder = SharedInformerFactory::builder(&clientset)
        .resync(context.options.resync)
        .strip_managed_fields();
    if let Some(namespace) = &context.options.namespace {
        builder = builder.namespace(namespace);
    }
    let factory: SharedInformerFactory = builder.build();
    let vm_informer = factory.cloudnative().v1alpha1().virtual_machines();
    let foo_informer = factory.samplecontroller().v1alpha1().foos();
    let deployments = factory.inner().informer::<Deployment>();
    let (vm_queue, foo_queue) = (context.queue(VmController::NAME), context.queue(FooController::NAME));
    VmController::watch(&vm_informer, &vm_queue);
    FooController::watch(&foo_informer, &deployments, &foo_queue);
    let vms = Arc::new(VmController::new(
        clientset.cloudnative_v1alpha1(),
        &vm_informer,
        context.options.driver.clone(),
        context.events("controller101"),
        context.options.vm_refresh,
    ));
    let foos = Arc::new(FooController::new(
        context.client.clone(),
        &foo_informer,
        &deployments,
        context.events("sample-controller"),
    ));
    factory.start();
    tracing::info!("waiting for informer caches to sync");
    let synced = tokio::select! {
        synced = factory.inner().wait_for_cache_sync() => synced.values().all(|s| *s),
        () = stop.cancelled() => false,
    };
    if synced {
        context.health.set_ready(true);
        tracing::info!(threads = context.options.threads, "caches synced; starting workers");
        let metrics = &context.reconcile_metrics;
        tokio::join!(
            run_workers(vms, vm_queue, context.options.threads, metrics.clone(), stop.clone()),
            run_workers(foos, foo_queue, context.options.threads, metrics.clone(), stop.clone()),
        );
    }
    factory.inner().shutdown().await;
    tracing::info!("controllers stopped");
}
