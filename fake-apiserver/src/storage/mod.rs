//! What the server keeps: the resource table (what is served, and how), the versioned object
//! store with its watch log, and the JSON accessors every layer reads objects through.

pub(crate) mod builtin;
pub(crate) mod controller_memory;
pub(crate) mod definition;
pub(crate) mod field_selectors;
pub(crate) mod key;
pub(crate) mod object;
pub(crate) mod pending;
pub(crate) mod registry;
pub(crate) mod resource;
pub(crate) mod store;
pub(crate) mod subresources;
pub(crate) mod verb;
pub(crate) mod version_priority;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

pub(crate) use controller_memory::{
    JobBackoff, NodeHealthRecord, NodeLifecycleMemory, PodGcMemory, ScheduledEviction, ServiceTriggerTimes, ZoneState,
    ZoneTainter,
};
use key::ObjectKey;
use pending::PendingWork;
use registry::Registry;
use resource::ResourceInfo;
use store::Store;

/// Options of a `FakeApiServer`, set through its builder.
#[derive(Clone, Debug)]
pub(crate) struct Options {
    pub(crate) auto_create_namespaces: bool,
    pub(crate) garbage_collection: bool,
    pub(crate) history_limit: usize,
    pub(crate) watch_buffer: usize,
    pub(crate) bookmark_interval: Duration,
    /// The `gitVersion` `/version` reports (`v1.31.2` by default).
    pub(crate) version: String,
    /// kube-apiserver's WatchList feature: streaming lists (`sendInitialEvents`) served.
    pub(crate) watch_list: bool,
    /// How long after a request the controllers react to it.
    pub(crate) controller_delay: Duration,
    /// Whether the server holds what a fresh cluster does (bootstrap RBAC, `default/kubernetes`)
    /// and populates namespaces as kube-controller-manager does.
    pub(crate) bootstrap: bool,
}

impl Options {
    /// The Kubernetes minor the server reports, which decides the behaviours that changed
    /// between minors (33 when the version does not read as `v1.<minor>…`).
    pub(crate) fn minor(&self) -> u32 {
        self.version
            .trim_start_matches('v')
            .split('.')
            .nth(1)
            .and_then(|minor| minor.parse().ok())
            .unwrap_or(33)
    }
}

/// Objects, history and served resources, under one lock so that every verb is atomic.
pub(crate) struct State {
    pub(crate) store: Store,
    pub(crate) registry: Registry,
    pub(crate) options: Options,
    /// The controllers' work the last writes left.
    pub(crate) pending: PendingWork,
    /// The endpoints controllers' trigger-time trackers, by Service `namespace/name`.
    pub(crate) service_triggers: BTreeMap<String, ServiceTriggerTimes>,
    /// The endpointslice controller's failed syncs in a row, by Service `namespace/name` (its
    /// queue's requeue count).
    pub(crate) slice_sync_failures: BTreeMap<String, u32>,
    /// The ResourceQuota admission plugin's lister: each namespace's quota names in the slots
    /// of the Go map its informer indexes them in (a removed quota's slot is reused).
    pub(crate) quota_slots: BTreeMap<String, Vec<Option<String>>>,
    /// The Job controller's pod failure backoff records (`backoffStore`), by `namespace/name`.
    pub(crate) job_backoff: BTreeMap<String, JobBackoff>,
    /// The NoExecute taint manager's timed worker queue, by pod `namespace/name`: a waiting
    /// eviction, or `None` once it ran (the key is held until cancelled).
    pub(crate) taint_evictions: BTreeMap<String, Option<ScheduledEviction>>,
    /// The pod garbage collector's loop and quarantine.
    pub(crate) pod_gc: PodGcMemory,
    /// The node lifecycle controller's health records, zones and tainting queues.
    pub(crate) node_lifecycle: NodeLifecycleMemory,
}

impl State {
    pub(crate) fn new(options: Options) -> Self {
        Self {
            store: Store::new(options.history_limit, options.watch_buffer),
            registry: Registry::default(),
            pending: PendingWork::new(options.controller_delay),
            service_triggers: BTreeMap::new(),
            slice_sync_failures: BTreeMap::new(),
            quota_slots: BTreeMap::new(),
            job_backoff: BTreeMap::new(),
            taint_evictions: BTreeMap::new(),
            pod_gc: PodGcMemory::default(),
            node_lifecycle: NodeLifecycleMemory::default(),
            options,
        }
    }

    /// A built-in resource, which is always served.
    pub(crate) fn info(&self, group: &str, version: &str, plural: &str) -> Arc<ResourceInfo> {
        self.registry
            .find(group, version, plural)
            .cloned()
            .expect("built-in resource is registered")
    }

    /// The stored object `namespace/name` of a resource (`None` namespace: cluster-scoped).
    pub(crate) fn object(&self, info: &ResourceInfo, namespace: Option<&str>, name: &str) -> Option<Arc<Value>> {
        let key = ObjectKey::new(namespace.unwrap_or(""), name);
        self.store.get(&info.storage_key(), &key).cloned()
    }

    /// The stored objects of a resource in every namespace (or cluster-wide), in the store's
    /// order.
    pub(crate) fn objects_everywhere(&self, info: &ResourceInfo) -> Vec<Arc<Value>> {
        self.store
            .iter(&info.storage_key(), None)
            .map(|(_, object)| object.clone())
            .collect()
    }

    /// The stored objects of a built-in resource in `namespace`, in the store's order.
    pub(crate) fn objects_in(&self, group: &str, plural: &str, namespace: &str) -> Vec<Arc<Value>> {
        let info = self.info(group, "v1", plural);
        self.store
            .iter(&info.storage_key(), Some(namespace))
            .map(|(_, object)| object.clone())
            .collect()
    }
}
