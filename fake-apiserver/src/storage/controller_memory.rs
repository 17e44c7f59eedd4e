//! What kube-controller-manager's controllers keep in memory between their runs, beside the
//! objects: the Job controller's backoff records, the taint manager's timed evictions, the pod
//! garbage collector's loop and quarantine, the endpoints controllers' trigger times, the node
//! lifecycle controller's health records and tainting queues.

use std::collections::BTreeMap;
use std::time::SystemTime;

/// One Job's pod failure backoff (`backoffRecord`): failures since the last success, and when
/// the last one finished (Unix milliseconds).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct JobBackoff {
    pub(crate) failures: i64,
    pub(crate) last_failure_ms: Option<i64>,
}

/// A pod's eviction the NoExecute taint manager's timer waits for (`TimedWorker`): when it was
/// scheduled first and when it fires.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ScheduledEviction {
    pub(crate) created_at: SystemTime,
    pub(crate) fire_at: SystemTime,
}

/// The pod garbage collector's memory: when its loop started, the run queued, and the missing
/// nodes in quarantine with the time each leaves it.
#[derive(Debug)]
pub(crate) struct PodGcMemory {
    pub(crate) started: SystemTime,
    pub(crate) next_tick: Option<SystemTime>,
    pub(crate) quarantine: BTreeMap<String, SystemTime>,
}

impl Default for PodGcMemory {
    fn default() -> Self {
        Self {
            started: SystemTime::now(),
            next_tick: None,
            quarantine: BTreeMap::new(),
        }
    }
}

/// One Service in the endpoints controllers' trigger-time trackers (`ServiceState` of
/// `endpointslice/util/trigger_time_tracker.go`): the Service's trigger time and each selected
/// pod's (its Ready condition's transition), in Unix seconds, as of the last sync.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ServiceTriggerTimes {
    pub(crate) service: i64,
    pub(crate) pods: BTreeMap<String, i64>,
}

/// What the node lifecycle controller remembers of one node (`nodeHealthData`): its Ready
/// condition as last seen, when it last heard from the node (`probeTimestamp`), when Ready
/// last changed, and its Lease's renew time as last seen.
#[derive(Debug, Clone)]
pub(crate) struct NodeHealthRecord {
    pub(crate) ready: Option<serde_json::Value>,
    pub(crate) probe: SystemTime,
    pub(crate) ready_transition: SystemTime,
    pub(crate) lease_renewed: Option<String>,
}

/// A zone's disruption state (`ZoneState`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ZoneState {
    Initial,
    Normal,
    FullDisruption,
    PartialDisruption,
}

/// A zone's NoExecute tainting queue (`RateLimitedTimedQueue` over a `UniqueQueue`): the nodes
/// waiting, in the order they were added, and every node added since it was last removed (a
/// node taken off the queue stays there, so it is not queued again), behind a token bucket of
/// burst 1 (`rate`: tokens per second at the default controller delay; 0 never lets one
/// through).
#[derive(Debug, Clone)]
pub(crate) struct ZoneTainter {
    pub(crate) queue: Vec<String>,
    pub(crate) added: std::collections::BTreeSet<String>,
    pub(crate) rate: f64,
    pub(crate) tokens: f64,
    pub(crate) refilled: SystemTime,
}

/// The node lifecycle controller's memory: when its monitor loop started, its next pass and
/// its next tainting pass,
/// the nodes it knows (with their uids), their health, and each zone's state and tainter.
#[derive(Debug)]
pub(crate) struct NodeLifecycleMemory {
    pub(crate) started: SystemTime,
    pub(crate) next_pass: Option<SystemTime>,
    pub(crate) next_tainting: Option<SystemTime>,
    pub(crate) known: BTreeMap<String, String>,
    pub(crate) health: BTreeMap<String, NodeHealthRecord>,
    pub(crate) zones: BTreeMap<String, ZoneState>,
    pub(crate) tainters: BTreeMap<String, ZoneTainter>,
}

impl Default for NodeLifecycleMemory {
    fn default() -> Self {
        Self {
            started: SystemTime::now(),
            next_pass: None,
            next_tainting: None,
            known: BTreeMap::new(),
            health: BTreeMap::new(),
            zones: BTreeMap::new(),
            tainters: BTreeMap::new(),
        }
    }
}
