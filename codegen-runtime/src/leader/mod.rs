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

use crate::controller::ErrorSummary;

mod config;

use config::JITTER_FACTOR;
pub use config::{LeaderCallbacks, LeaderElectionConfig, LeaderElectionError};

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
                        self.request_failed("create", &error);
                        false
                    }
                };
            }
            Err(error) => {
                self.request_failed("read", &error);
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
                self.request_failed("update", &error);
                false
            }
        }
    }

    /// Logs a lease request that failed. A conflict (409) is the election's race, another
    /// candidate having written first. Anything else (a 403 where the Role does not cover the
    /// lease's namespace, a server error) would keep this candidate from ever leading unseen:
    /// client-go logs those as errors.
    fn request_failed(&self, what: &str, error: &kube::Error) {
        let lease = format!("{}/{}", self.config.namespace, self.config.lease_name);
        match error {
            kube::Error::Api(status) if status.code == 409 => {
                tracing::debug!(%lease, error = %ErrorSummary(error), "could not {what} the lease: another candidate wrote it first");
            }
            kube::Error::Api(status) if status.code == 403 => {
                tracing::warn!(%lease, error = %ErrorSummary(error), "could not {what} the lease: grant this controller's service account get, create and update on leases (coordination.k8s.io) in the lease's namespace");
            }
            _ => tracing::warn!(%lease, error = %ErrorSummary(error), "could not {what} the lease"),
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
            let mut lease = match self.api.get_opt(&self.config.lease_name).await {
                Ok(Some(lease)) => lease,
                Ok(None) => return,
                Err(error) => {
                    self.request_failed("read", &error);
                    return;
                }
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
                    tracing::warn!(error = %ErrorSummary(&error), "could not release the lease");
                    return;
                }
            }
        }
    }
}
