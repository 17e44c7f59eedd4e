//! What kube-controller-manager's controllers keep in memory between their runs, beside the
//! objects: the Job controller's backoff records, the taint manager's timed evictions, the pod
//! garbage collector's loop and quarantine, the endpoints controllers' trigger times.

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
