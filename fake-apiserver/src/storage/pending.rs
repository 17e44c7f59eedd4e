//! The work the verbs leave to the controllers. kube-apiserver answers a write before its
//! controllers (and kube-controller-manager's) react to it: a CRD is established, a namespace
//! emptied, dependents collected later. The verbs queue that work here; the lifecycle module
//! runs it after the request was answered.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use serde_json::Value;
use tokio::time::Instant;

use crate::storage::resource::ResourceInfo;

/// One reaction to a write, queued until the controllers run.
#[derive(Debug)]
pub(crate) enum Pending {
    /// A CRD was created: serve the resources it defines and report it Established.
    Establish { crd: String, defined: Vec<ResourceInfo> },
    /// An object was written while being deleted: its deletion policy, a CRD's cleanup.
    Marked {
        info: Arc<ResourceInfo>,
        object: Arc<Value>,
    },
    /// An object was removed for good: its dependents, its owners, its namespace, its CRD.
    Removed {
        info: Arc<ResourceInfo>,
        object: Arc<Value>,
    },
    /// A namespace turned Terminating: its contents are deleted.
    EmptyNamespace { name: String },
    /// A namespace was created: it gets its `default` ServiceAccount and root CA ConfigMap.
    PopulateNamespace { name: String },
    /// A ClusterRole changed: the aggregated ClusterRoles are brought up to date.
    AggregateClusterRoles,
    /// A FlowSchema or PriorityLevelConfiguration was written or removed: the APF
    /// configuration controller digests the configuration and updates the FlowSchemas' status.
    DigestFlowControl,
    /// A CRD of this group was written or removed: its served versions get APIServices.
    RegisterCrdApiServices { group: String },
    /// An APIService, or the Service behind one, was written: its availability is checked.
    CheckApiService { name: String },
    /// A ValidatingAdmissionPolicy's spec changed: its expressions are type-checked.
    CheckPolicyTypes { name: String },
    /// A node was written: the TTL controller annotates it.
    NodeTtl { name: String },
    /// A node was written: its NoSchedule taints are brought in line with its conditions.
    NodeTaints { name: String },
    /// A Service, its Endpoints or one of its managed EndpointSlices was written or removed:
    /// the endpoints and endpointslice controllers sync the Service.
    SyncService { namespace: String, name: String },
    /// A Service, Endpoints or mirrored EndpointSlice was written or removed: the EndpointSlice
    /// mirroring controller syncs the Endpoints of that name.
    SyncMirroring { namespace: String, name: String },
    /// A ResourceQuota was created or its hard limits changed: the quota controller syncs it.
    SyncQuota { namespace: String, name: String },
    /// A PodDisruptionBudget was written, or a pod it selects written or removed: the
    /// disruption controller syncs the budget.
    SyncDisruptionBudget { namespace: String, name: String },
    /// A DaemonSet was written: the DaemonSet controller stores its status.
    SyncDaemonSet { namespace: String, name: String },
    /// A claim without a volume was written: the persistent volume controller syncs it.
    SyncClaim { namespace: String, name: String },
    /// A `service-account-token` Secret was written or removed: the tokens controller syncs it
    /// (`account`: the ServiceAccount its annotation names).
    SyncTokenSecret {
        namespace: String,
        name: String,
        account: String,
    },
    /// A ServiceAccount was removed: the tokens controller deletes its token Secrets.
    DeleteAccountTokens {
        namespace: String,
        name: String,
        uid: String,
    },
    /// A volume, or a claim bound to one, was written or removed: the persistent volume
    /// controller syncs the volume.
    SyncVolume { name: String },
    /// A Job, or a pod of one, was written or removed: the Job controller syncs it (`retry`: the
    /// sync failed that many times before).
    SyncJob {
        namespace: String,
        name: String,
        retry: u32,
    },
    /// A workload object, or an object of one (a Deployment's ReplicaSet, a pod), was written or
    /// removed: its controller syncs it (`retry`: the sync failed that many times before).
    SyncWorkload {
        controller: Workload,
        namespace: String,
        name: String,
        retry: u32,
    },
    /// A controller's work on `namespace/name` at a wall-clock time `due` (`queue.AddAfter`, or
    /// now): a Deployment stuck at its progress deadline, a Job at its active deadline or after
    /// its pod failure backoff, a finished Job when its TTL runs out, a CronJob at its next
    /// schedule time, an HPA at its resync.
    Deadline {
        timer: Timer,
        namespace: String,
        name: String,
        due: SystemTime,
    },
    /// A claim or volume being deleted, or a pod that mounts claims, was written or removed: the
    /// pvc-protection (`namespace` set) or pv-protection controller checks the object.
    ReleaseStorage { namespace: Option<String>, name: String },
    /// An object a quota may track was removed, or changed what it uses: the namespace's quotas
    /// that track its resource are recomputed.
    ReplenishQuotas {
        namespace: String,
        group: String,
        plural: String,
    },
    /// An object with owner references was written: the garbage collector checks its owners.
    AttemptToDelete {
        info: Arc<ResourceInfo>,
        namespace: Option<String>,
        name: String,
        uid: String,
    },
}

/// Who set a `Deadline`, and so who runs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Timer {
    /// `requeueStuckDeployment` of the Deployment controller.
    DeploymentProgress,
    /// The Job controller's `AddAfter`: a Job synced again at its active deadline or when its
    /// pod failure backoff has passed.
    JobSync,
    /// The TTL-after-finished controller's `enqueueAfter`.
    JobTtl,
    /// The CronJob controller's sync of a CronJob: `enqueueController` (due now) and the
    /// requeue at its next schedule time (`enqueueControllerAfter`).
    CronJob,
    /// The horizontal pod autoscaler's sync of an HPA: a resync period after a write and after
    /// each sync (`--horizontal-pod-autoscaler-sync-period`, the rate limiter's fixed interval).
    Autoscaler,
    /// The NoExecute taint manager's timer: a pod's eviction when its `tolerationSeconds` ran out.
    TaintEviction,
    /// A run of the pod garbage collector's loop (no namespace or name).
    PodGc,
    /// A pass of the node lifecycle controller's monitor (`monitorNodeHealth`, then its
    /// NoExecute tainting pass; no namespace or name).
    NodeMonitor,
    /// The endpointslice controller's retry of a Service whose sync failed (`handleErr`'s
    /// `AddRateLimited`).
    ServiceResync,
    /// The node lifecycle controller's NoExecute tainting pass when a zone's queue gets its
    /// next token (`doNoExecuteTaintingPass`; no namespace or name).
    NodeTainting,
}

/// The workload controllers of kube-controller-manager whose syncs are queued by key and
/// retried with the rate limiter's backoff.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Workload {
    ReplicaSet,
    ReplicationController,
    Deployment,
    StatefulSet,
}

impl Pending {
    /// A first sync of the workload object `namespace/name` by `controller`.
    pub(crate) fn sync(controller: Workload, namespace: &str, name: &str) -> Self {
        Pending::SyncWorkload {
            controller,
            namespace: namespace.to_owned(),
            name: name.to_owned(),
            retry: 0,
        }
    }

    /// The sync that follows `retry` failed ones, unless that were too many.
    pub(crate) fn resync(controller: Workload, namespace: &str, name: &str, retry: u32) -> Option<Self> {
        (retry < MAX_RETRIES).then(|| Pending::SyncWorkload {
            controller,
            namespace: namespace.to_owned(),
            name: name.to_owned(),
            retry: retry + 1,
        })
    }

    /// The workload controller's queue key: which controller, and the object's namespace and name.
    fn workload_key(&self) -> Option<(u8, &str, &str)> {
        match self {
            Pending::SyncWorkload {
                controller,
                namespace,
                name,
                ..
            } => Some((*controller as u8, namespace, name)),
            Pending::SyncJob { namespace, name, .. } => Some((u8::MAX, namespace, name)),
            // Each timer is a delaying queue of its own, apart from the controller's sync queue.
            Pending::Deadline {
                timer, namespace, name, ..
            } => Some((u8::MAX - 1 - *timer as u8, namespace, name)),
            _ => None,
        }
    }

    /// How long after the write its controller reacts, given the server's controller delay:
    /// the establishing controller is quick, the namespace controller slow (it rediscovers
    /// every resource before it deletes anything), the garbage collector in between.
    fn delay(&self, base: Duration) -> Duration {
        match self {
            Pending::Establish { .. } => base / 5,
            Pending::EmptyNamespace { .. } => base * 10,
            // The DaemonSet controller stores a new DaemonSet's status within milliseconds, after
            // the ControllerRevision it writes first.
            Pending::SyncDaemonSet { .. } => base / 20,
            // The workload controllers' informers hand a write to their workers within
            // milliseconds; a failed sync comes back after the rate limiter's exponential
            // backoff (`workqueue.DefaultControllerRateLimiter`, doubling from 5 ms).
            Pending::SyncWorkload { retry, .. } => base / 20 * 2u32.pow((*retry).min(MAX_RETRIES)),
            // A wall-clock deadline, whatever the controller delay.
            Pending::Deadline { due, .. } => due.duration_since(SystemTime::now()).unwrap_or_default(),
            // The persistent volume controller's first write is the claim's own update, the Job
            // controller's for a suspended Job its status.
            Pending::SyncClaim { .. } | Pending::SyncJob { retry: 0, .. } => Duration::ZERO,
            Pending::SyncJob { retry, .. } => base / 20 * 2u32.pow((*retry).min(MAX_RETRIES)),
            // The protection controllers drop a finalizer within milliseconds, the volume
            // controller's volume worker is as quick.
            Pending::ReleaseStorage { .. } | Pending::SyncVolume { .. } => base / 20,
            // The tokens controller fills a Secret within milliseconds.
            Pending::SyncTokenSecret { .. } | Pending::DeleteAccountTokens { .. } => base / 20,
            // The service account controller and the root CA publisher fill a new namespace
            // within milliseconds of its creation.
            Pending::PopulateNamespace { .. } => base / 20,
            // The node lifecycle controller takes most of a second to notice a node.
            Pending::NodeTaints { .. } => base * 8,
            Pending::Marked { .. }
            | Pending::Removed { .. }
            | Pending::AggregateClusterRoles
            | Pending::DigestFlowControl
            | Pending::NodeTtl { .. }
            | Pending::RegisterCrdApiServices { .. }
            | Pending::CheckApiService { .. }
            | Pending::CheckPolicyTypes { .. }
            | Pending::SyncService { .. }
            | Pending::SyncMirroring { .. }
            | Pending::SyncQuota { .. }
            | Pending::SyncDisruptionBudget { .. }
            | Pending::ReplenishQuotas { .. }
            | Pending::AttemptToDelete { .. } => base,
        }
    }
}

/// How often a workload controller retries a failing sync here (kube-controller-manager retries
/// forever, its backoff capped at 1000 s): the last retry comes about three minutes after the
/// first failure at the default delay, and a settling server does not wait forever.
pub(crate) const MAX_RETRIES: u32 = 15;

/// The queue, each reaction with the time it is due, and whether a controller task is already
/// waiting to run them.
#[derive(Debug)]
pub(crate) struct PendingWork {
    queue: Vec<(Instant, Pending)>,
    scheduled: bool,
    /// The server's controller delay, which each reaction's own delay scales.
    base_delay: Duration,
}

impl PendingWork {
    pub(crate) fn new(base_delay: Duration) -> Self {
        Self {
            queue: Vec::new(),
            scheduled: false,
            base_delay,
        }
    }

    /// Queues a reaction, due after its delay.
    pub(crate) fn push(&mut self, work: Pending) {
        // One queued aggregation covers every ClusterRole written before it runs, one digest
        // every APF object; a workload controller's queue holds each key once.
        let same = |w: &Pending| {
            matches!(
                (w, &work),
                (Pending::AggregateClusterRoles, Pending::AggregateClusterRoles)
                    | (Pending::DigestFlowControl, Pending::DigestFlowControl)
            )
        };
        if self.queue.iter().any(|(_, w)| same(w)) {
            return;
        }
        // A workload controller's queue holds each key once: a key queued already runs at the
        // sooner of its two times.
        let due = Instant::now() + work.delay(self.base_delay);
        if let Some(key) = work.workload_key()
            && let Some(index) = self.queue.iter().position(|(_, w)| w.workload_key() == Some(key))
        {
            if self.queue[index].0 <= due {
                return;
            }
            self.queue.remove(index);
        }
        self.queue.push((due, work));
    }

    /// The reactions due at `now` (with `None`, all of them but the deadlines a controller set
    /// itself that are still ahead, which only time brings), oldest first.
    pub(crate) fn take_due(&mut self, now: Option<Instant>) -> Vec<Pending> {
        let (due, later) = std::mem::take(&mut self.queue)
            .into_iter()
            .partition(|(at, work)| match now {
                Some(now) => *at <= now,
                None => !matches!(work, Pending::Deadline { due, .. } if *due > SystemTime::now()),
            });
        self.queue = later;
        due.into_iter().map(|(_, work)| work).collect()
    }

    /// Takes the queued reactions `wanted` picks, due or not: what a request waits for.
    pub(crate) fn take_matching(&mut self, wanted: impl Fn(&Pending) -> bool) -> Vec<Pending> {
        let (taken, kept) = std::mem::take(&mut self.queue)
            .into_iter()
            .partition(|(_, work)| wanted(work));
        self.queue = kept;
        taken.into_iter().map(|(_, work)| work).collect()
    }

    /// Queues one run of a controller's loop (`timer`) at `due`, unless the run it already has
    /// queued (`queued`, the controller's record of it) comes no later; records the new one.
    pub(crate) fn queue_loop_run(&mut self, queued: &mut Option<SystemTime>, timer: Timer, due: SystemTime) {
        if queued.is_some_and(|at| at <= due) {
            return;
        }
        *queued = Some(due);
        self.push(Pending::Deadline {
            timer,
            namespace: String::new(),
            name: String::new(),
            due,
        });
    }

    /// When the next reaction is due.
    pub(crate) fn next_due(&self) -> Option<Instant> {
        self.queue.iter().map(|(at, _)| *at).min()
    }

    /// Whether a task must be started now: work is queued and no task waits for it; marks one
    /// started.
    pub(crate) fn schedule(&mut self) -> bool {
        let needed = !self.queue.is_empty() && !self.scheduled;
        self.scheduled |= needed;
        needed
    }

    /// Ends the task, which found nothing left.
    pub(crate) fn finish(&mut self) {
        self.scheduled = false;
    }
}

/// The first tick at or after `at` of a loop that started at `started` and ticks every `period`.
pub(crate) fn loop_tick(started: SystemTime, period: Duration, at: SystemTime) -> SystemTime {
    let since = at.duration_since(started).unwrap_or_default();
    let ticks = since.as_nanos().div_ceil(period.as_nanos().max(1));
    started + period * u32::try_from(ticks).unwrap_or(u32::MAX)
}
