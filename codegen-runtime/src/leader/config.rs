//! What a leader election is told: where the lease lives and how it is held (checked as
//! client-go checks it), and what to do as leadership changes.

use std::time::Duration;

use tokio_util::sync::CancellationToken;

/// client-go's `JitterFactor`: acquire retries wait 1 to 2.2 retry periods, and the renew
/// deadline must exceed this many retry periods.
pub(super) const JITTER_FACTOR: f64 = 1.2;

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
    pub(super) on_started_leading: StartedFn,
    pub(super) on_stopped_leading: StoppedFn,
    pub(super) on_new_leader: Option<NewLeaderFn>,
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
