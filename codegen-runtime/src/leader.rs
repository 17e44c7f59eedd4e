//! Lease-based leader election with client-go's semantics (`tools/leaderelection`): acquire by
//! retrying every retry period, renew within the renew deadline or step down, optionally
//! release on cancel, and callbacks for started and stopped leading and for new leaders.

use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
use kube::api::{Api, ObjectMeta, PostParams};
use kube::{Client, ResourceExt};
use tokio::sync::watch;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// client-go's `JitterFactor`: acquire retries wait 1 to 2.2 retry periods, and the renew
/// deadline must exceed this many retry periods.
const JITTER_FACTOR: f64 = 1.2;

/// Where the lease lives and how it is held.
#[derive(Clone, Debug)]
pub struct LeaderElectionConfig {
    /// Lease name, e.g. `controller101`.
    pub lease_name: String,
    /// Lease namespace.
    pub namespace: String,
    /// This candidate's identity, usually the pod name.
    pub identity: String,
    /// How long others wait after the last renewal before taking over (default 15 s).
    pub lease_duration: Duration,
    /// How long the leader keeps retrying a renewal before it steps down (default 10 s).
    pub renew_deadline: Duration,
    /// How often to try to acquire or renew (default 2 s).
    pub retry_period: Duration,
    /// Give the lease up on cancel, so a successor need not wait for it to expire.
    pub release_on_cancel: bool,
}

impl LeaderElectionConfig {
    /// client-go's defaults for a lease `namespace/lease_name` held as `identity`.
    pub fn new(namespace: impl Into<String>, lease_name: impl Into<String>, identity: impl Into<String>) -> Self {
        Self {
            lease_name: lease_name.into(),
            namespace: namespace.into(),
            identity: identity.into(),
            lease_duration: Duration::from_secs(15),
            renew_deadline: Duration::from_secs(10),
            retry_period: Duration::from_secs(2),
            release_on_cancel: false,
        }
    }

    /// client-go's checks: positive durations, lease duration > renew deadline > 1.2 × retry
    /// period, and a lease and identity.
    pub fn validate(&self) -> Result<(), LeaderElectionError> {
        let invalid = |why: String| Err(LeaderElectionError::InvalidConfig(why));
        if self.lease_duration.is_zero() || self.renew_deadline.is_zero() || self.retry_period.is_zero() {
            return invalid("lease duration, renew deadline and retry period must all be greater than zero".into());
        }
        if self.lease_duration <= self.renew_deadline {
            return invalid(format!(
                "lease duration ({:?}) must be greater than renew deadline ({:?})",
                self.lease_duration, self.renew_deadline
            ));
        }
        if self.renew_deadline.as_secs_f64() <= JITTER_FACTOR * self.retry_period.as_secs_f64() {
            return invalid(format!(
                "renew deadline ({:?}) must be greater than {JITTER_FACTOR} × retry period ({:?})",
                self.renew_deadline, self.retry_period
            ));
        }
        if self.lease_name.is_empty() || self.namespace.is_empty() {
            return invalid("the lease needs a name and a namespace".into());
        }
        if self.identity.is_empty() {
            return invalid("identity must not be empty: set it to the pod name or the hostname".into());
        }
        Ok(())
    }
}

/// Why leader election could not run.
#[derive(Debug, thiserror::Error)]
pub enum LeaderElectionError {
    /// The configuration breaks one of client-go's rules.
    #[error("invalid leader election config: {0}")]
    InvalidConfig(String),
}

type StartedFn = Box<dyn FnOnce(CancellationToken) + Send>;
type StoppedFn = Box<dyn FnOnce() + Send>;
type NewLeaderFn = Box<dyn FnMut(&str) + Send>;

/// What to do as leadership changes (client-go's `LeaderCallbacks`).
pub struct LeaderCallbacks {
    on_started_leading: StartedFn,
    on_stopped_leading: StoppedFn,
    on_new_leader: Option<NewLeaderFn>,
}

impl LeaderCallbacks {
    /// `started` runs once this candidate leads, with a token cancelled when it stops leading;
    /// `stopped` runs whenever the elector returns, leader or not. Callbacks run on the election
    /// task: spawn the work they start and return, or renewals wait for them.
    pub fn new(
        started: impl FnOnce(CancellationToken) + Send + 'static,
        stopped: impl FnOnce() + Send + 'static,
    ) -> Self {
        Self {
            on_started_leading: Box::new(started),
            on_stopped_leading: Box::new(stopped),
            on_new_leader: None,
        }
    }

    /// Called with the identity of each new leader observed (this candidate included).
    pub fn on_new_leader(mut self, f: impl FnMut(&str) + Send + 'static) -> Self {
        self.on_new_leader = Some(Box::new(f));
        self
    }
}

/// What this candidate last saw of the lease, and when (on its own clock, as client-go does).
struct Observed {
    spec: Option<LeaseSpec>,
    at: Instant,
}

/// Runs one candidate's side of a leader election.
pub struct LeaderElector {
    api: Api<Lease>,
    config: LeaderElectionConfig,
    observed: Mutex<Observed>,
    leader: watch::Sender<Option<String>>,
}

impl LeaderElector {
    /// An elector for `config`, checked as client-go checks it.
    pub fn new(client: Client, config: LeaderElectionConfig) -> Result<Self, LeaderElectionError> {
        config.validate()?;
        let api = Api::namespaced(client, &config.namespace);
        let observed = Mutex::new(Observed {
            spec: None,
            at: Instant::now(),
        });
        Ok(Self {
            api,
            config,
            observed,
            leader: watch::channel(None).0,
        })
    }

    fn observed(&self) -> MutexGuard<'_, Observed> {
        self.observed.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Whether this candidate holds the lease as far as it last saw.
    pub fn is_leader(&self) -> bool {
        self.observed().spec.as_ref().and_then(|s| s.holder_identity.as_deref()) == Some(self.config.identity.as_str())
    }

    /// The leader's identity as last observed.
    pub fn leader(&self) -> Option<String> {
        self.leader.borrow().clone()
    }

    /// Campaigns until this candidate leads, leads until it fails to renew within the renew
    /// deadline or `cancel` fires, then returns (releasing the lease if so configured).
    pub async fn run(&self, cancel: CancellationToken, mut callbacks: LeaderCallbacks) {
        let mut leader_changes = self.leader.subscribe();
        let mut new_leader = callbacks.on_new_leader.take();
        let watcher = async {
            while leader_changes.changed().await.is_ok() {
                let leader = leader_changes.borrow_and_update().clone();
                if let (Some(f), Some(leader)) = (new_leader.as_mut(), leader) {
                    f(&leader);
                }
            }
        };
        let campaign = async {
            if self.acquire(&cancel).await {
                let leading = cancel.child_token();
                (callbacks.on_started_leading)(leading.clone());
                self.renew(&cancel).await;
                leading.cancel();
                if self.config.release_on_cancel {
                    self.release().await;
                }
            }
        };
        tokio::select! {
            () = campaign => {}
            () = watcher => {}
        }
        (callbacks.on_stopped_leading)();
    }

    fn jittered_retry(&self) -> Duration {
        // Uniform in [retry, retry · (1 + factor)), like wait.Jitter.
        let fraction = f64::from(uuid::Uuid::new_v4().as_bytes()[0]) / 256.0;
        self.config.retry_period.mul_f64(1.0 + JITTER_FACTOR * fraction)
    }

    async fn acquire(&self, cancel: &CancellationToken) -> bool {
        loop {
            // kube's client has no request timeout by default: bound every attempt ourselves.
            let attempt = tokio::time::timeout(self.config.renew_deadline, self.try_acquire_or_renew());
            let acquired = tokio::select! {
                () = cancel.cancelled() => return false,
                acquired = attempt => acquired.unwrap_or(false),
            };
            if acquired {
                tracing::info!(lease = %self.config.lease_name, identity = %self.config.identity, "acquired the lease");
                return true;
            }
            tokio::select! {
                () = cancel.cancelled() => return false,
                () = tokio::time::sleep(self.jittered_retry()) => {}
            }
        }
    }

    /// Renews every retry period; a renewal that does not succeed within the renew deadline —
    /// failing, or hanging in a request — loses, as client-go's context timeout makes it.
    async fn renew(&self, cancel: &CancellationToken) {
        loop {
            let deadline = Instant::now() + self.config.renew_deadline;
            let attempts = async {
                loop {
                    if self.try_acquire_or_renew().await {
                        return;
                    }
                    tokio::time::sleep(self.config.retry_period).await;
                }
            };
            let renewed = tokio::select! {
                () = cancel.cancelled() => return,
                within = tokio::time::timeout_at(deadline, attempts) => within.is_ok(),
            };
            if !renewed {
                tracing::warn!(lease = %self.config.lease_name, "failed to renew the lease within the renew deadline; stepping down");
                return;
            }
            tokio::select! {
                () = cancel.cancelled() => return,
                () = tokio::time::sleep(self.config.retry_period) => {}
            }
        }
    }

    /// client-go's `tryAcquireOrRenew`: true when this candidate holds the lease afterwards.
    async fn try_acquire_or_renew(&self) -> bool {
        let now = MicroTime(jiff::Timestamp::now());
        let duration_seconds = i32::try_from(self.config.lease_duration.as_secs()).unwrap_or(i32::MAX);
        let mut desired = LeaseSpec {
            holder_identity: Some(self.config.identity.clone()),
            lease_duration_seconds: Some(duration_seconds),
            acquire_time: Some(now.clone()),
            renew_time: Some(now),
            lease_transitions: Some(0),
            ..LeaseSpec::default()
        };
        let current = match self.api.get_opt(&self.config.lease_name).await {
            Ok(Some(lease)) => lease,
            Ok(None) => {
                let lease = Lease {
                    metadata: ObjectMeta {
                        name: Some(self.config.lease_name.clone()),
                        ..ObjectMeta::default()
                    },
                    spec: Some(desired.clone()),
                };
                return match self.api.create(&PostParams::default(), &lease).await {
                    Ok(created) => self.observe(created.spec),
                    Err(error) => {
                        tracing::debug!(%error, "could not create the lease");
                        false
                    }
                };
            }
            Err(error) => {
                tracing::debug!(%error, "could not read the lease");
                return false;
            }
        };
        let spec = current.spec.clone().unwrap_or_default();
        let held_by_other = {
            let mut observed = self.observed();
            if observed.spec.as_ref() != Some(&spec) {
                observed.spec = Some(spec.clone());
                observed.at = Instant::now();
            }
            let holder = spec.holder_identity.as_deref().unwrap_or("");
            let duration = Duration::from_secs(u64::try_from(spec.lease_duration_seconds.unwrap_or(0)).unwrap_or(0));
            let valid = observed.at + duration > Instant::now();
            !holder.is_empty() && holder != self.config.identity && valid
        };
        self.publish_leader(&spec);
        if held_by_other {
            return false;
        }
        let transitions = spec.lease_transitions.unwrap_or(0);
        if spec.holder_identity.as_deref() == Some(self.config.identity.as_str()) {
            desired.acquire_time = spec.acquire_time.clone();
            desired.lease_transitions = Some(transitions);
        } else {
            desired.lease_transitions = Some(transitions + 1);
        }
        let mut updated = current;
        updated.spec = Some(desired);
        // The read resourceVersion makes this a compare-and-swap: a rival's write wins.
        match self
            .api
            .replace(&self.config.lease_name, &PostParams::default(), &updated)
            .await
        {
            Ok(stored) => self.observe(stored.spec),
            Err(error) => {
                tracing::debug!(%error, "could not update the lease");
                false
            }
        }
    }

    fn observe(&self, spec: Option<LeaseSpec>) -> bool {
        let spec = spec.unwrap_or_default();
        self.publish_leader(&spec);
        let mut observed = self.observed();
        observed.spec = Some(spec);
        observed.at = Instant::now();
        drop(observed);
        self.is_leader()
    }

    fn publish_leader(&self, spec: &LeaseSpec) {
        let holder = spec.holder_identity.clone().filter(|h| !h.is_empty());
        self.leader.send_if_modified(|leader| {
            let changed = *leader != holder;
            leader.clone_from(&holder);
            changed && holder.is_some()
        });
    }

    /// Gives the lease up (within the renew deadline, as client-go bounds it).
    async fn release(&self) {
        if tokio::time::timeout(self.config.renew_deadline, self.try_release())
            .await
            .is_err()
        {
            tracing::warn!(lease = %self.config.lease_name, "could not release the lease within the renew deadline");
        }
    }

    /// No holder and a one-second duration, so a successor takes over at once; retried on
    /// conflicts with a concurrent write.
    async fn try_release(&self) {
        while self.is_leader() {
            let Ok(Some(mut lease)) = self.api.get_opt(&self.config.lease_name).await else {
                return;
            };
            let spec = lease.spec.get_or_insert_with(LeaseSpec::default);
            if spec.holder_identity.as_deref() != Some(self.config.identity.as_str()) {
                return;
            }
            let now = MicroTime(jiff::Timestamp::now());
            spec.holder_identity = None;
            spec.lease_duration_seconds = Some(1);
            spec.renew_time = Some(now.clone());
            spec.acquire_time = Some(now);
            match self
                .api
                .replace(&lease.name_any(), &PostParams::default(), &lease)
                .await
            {
                Ok(stored) => {
                    self.observe(stored.spec);
                    return;
                }
                Err(kube::Error::Api(status)) if status.code == 409 => continue,
                Err(error) => {
                    tracing::warn!(error = %crate::controller::ErrorSummary(&error), "could not release the lease");
                    return;
                }
            }
        }
    }
}
