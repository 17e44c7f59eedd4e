//! `FakeApiServer`: construction, options, seeding, and the testing handles (actions, reactors, faults).

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

use crate::auth::Authenticator;
use crate::lifecycle::{self, Writes};
use crate::status::ApiStatus;
use crate::storage::builtin::builtins;
use crate::storage::resource::ResourceInfo;
use crate::storage::{Options, State};
use crate::testing::{Action, Reaction, Testing};
use crate::verbs::write;

/// An in-memory Kubernetes API server.
///
/// It answers the Kubernetes REST API — CRUD, patch (JSON, merge, strategic merge, server-side
/// apply), `/status` and `/scale`, finalizers, garbage collection, label and field selectors,
/// pagination, watch with bookmarks and 410 Gone, discovery and `kubectl` tables — for built-in
/// resources and for custom resources registered by type or by creating a
/// `CustomResourceDefinition`. Put it under the real `kube::Client` with [`FakeApiServer::client`],
/// or serve it on loopback for another process with [`FakeApiServer::serve`].
///
/// ```
/// # async fn demo() -> Result<(), kube::Error> {
/// use fake_apiserver::FakeApiServer;
/// use k8s_openapi::api::core::v1::ConfigMap;
///
/// let server = FakeApiServer::new();
/// let configmaps: kube::Api<ConfigMap> = kube::Api::default_namespaced(server.client());
/// let mut cm = ConfigMap::default();
/// cm.metadata.name = Some("settings".into());
/// configmaps.create(&Default::default(), &cm).await?;
/// assert_eq!(server.actions()[0].verb.as_str(), "create");
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct FakeApiServer {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) state: Mutex<State>,
    /// The credentials it accepts, and whether it checks them.
    pub(crate) authenticator: Authenticator,
    pub(crate) testing: Mutex<Testing>,
    pub(crate) options: Options,
    /// Wakes the controller task, asleep until its next due reaction, when a request left a
    /// reaction due sooner (a node's health check is due in a minute, a CRD's establishment in
    /// a few milliseconds).
    pub(crate) wake: tokio::sync::Notify,
    /// The address discovery reports clients may reach it at (`ExternalAddress`): where it was
    /// first served, unset in process.
    pub(crate) external_address: std::sync::OnceLock<String>,
}

impl Inner {
    /// The storage and registry. A panic while the lock is held is a bug in this server; the
    /// lock is taken over rather than poisoning every later request, since a test that hit
    /// the bug has already failed.
    pub(crate) fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub(crate) fn testing(&self) -> MutexGuard<'_, Testing> {
        self.testing.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Lets the controllers react to the work the last request left, after the controller
    /// delay, in a task of their own: the request has been answered by then, as on a cluster.
    pub(crate) fn schedule_controllers(self: &Arc<Self>) {
        if !self.state().pending.schedule() {
            self.wake.notify_one();
            return;
        }
        let inner = self.clone();
        tokio::spawn(async move {
            loop {
                let due = {
                    let mut state = inner.state();
                    match state.pending.next_due() {
                        Some(due) => due,
                        None => {
                            state.pending.finish();
                            break;
                        }
                    }
                };
                tokio::select! {
                    () = tokio::time::sleep_until(due) => {
                        lifecycle::react(&mut inner.state(), Some(tokio::time::Instant::now()));
                    }
                    () = inner.wake.notified() => {}
                }
            }
        });
    }
}

/// Builds a [`FakeApiServer`].
#[derive(Debug)]
pub struct FakeApiServerBuilder {
    options: Options,
    pub(crate) authenticator: Authenticator,
    record_actions: bool,
    resources: Vec<ResourceInfo>,
    objects: Vec<Value>,
}

impl Default for FakeApiServer {
    fn default() -> Self {
        Self::new()
    }
}

impl FakeApiServer {
    /// A server with the built-in resources and the namespaces `default`, `kube-system`,
    /// `kube-public` and `kube-node-lease`.
    pub fn new() -> Self {
        Self::builder().build()
    }

    /// Starts configuring a server.
    pub fn builder() -> FakeApiServerBuilder {
        FakeApiServerBuilder {
            options: Options {
                auto_create_namespaces: false,
                garbage_collection: true,
                history_limit: 20_000,
                watch_buffer: 1 << 16,
                bookmark_interval: Duration::from_secs(60),
                // The newest minor this project builds and records kube-apiserver on.
                version: "v1.31.2".to_owned(),
                // Off by default in 1.28 to 1.31 (on in 1.32 and from 1.34).
                watch_list: false,
                controller_delay: Duration::from_millis(100),
                bootstrap: true,
            },
            authenticator: Authenticator::new(),
            record_actions: true,
            resources: Vec::new(),
            objects: Vec::new(),
        }
    }

    /// Stores an object as it is (like client-go's `tracker.Add`): no action is recorded and no
    /// reactor runs, but watches see it. The kind must be registered; a CRD registers its types.
    pub fn insert<K: Serialize>(&self, object: &K) -> Result<Value, ApiStatus> {
        self.store_as_is(object, write::seed)
    }

    /// Stores an object as it is over the stored one of its name (like client-go's
    /// `tracker.Update`): no decoding, no action recorded, no reactor, but watches see the
    /// change. For tests that need what a cluster would refuse, such as an object an old
    /// client type cannot decode.
    ///
    /// # Errors
    /// When the kind is not registered or no object of that name is stored.
    pub fn replace<K: Serialize>(&self, object: &K) -> Result<Value, ApiStatus> {
        self.store_as_is(object, write::replace_seed)
    }

    /// A fixture's write of `object` through `store`, then the controllers' reactions to it.
    fn store_as_is<K: Serialize>(
        &self,
        object: &K,
        store: fn(&mut State, Value) -> Result<Arc<Value>, ApiStatus>,
    ) -> Result<Value, ApiStatus> {
        let value = serde_json::to_value(object)
            .map_err(|e| ApiStatus::bad_request(format!("object does not serialize to JSON: {e}")))?;
        let mut state = self.inner.state();
        let stored = store(&mut state, value).map(|stored| (*stored).clone());
        lifecycle::settle(&mut state);
        stored
    }

    /// Lets the controllers finish every reaction still pending (CRDs established, namespaces
    /// emptied, garbage collected) now, instead of after their delay: for tests that want the
    /// settled state without polling for it. A deadline a controller set itself (a Deployment's
    /// progress deadline) is not brought forward: only time, real or a paused tokio clock's,
    /// reaches it.
    pub fn settle(&self) {
        lifecycle::settle(&mut self.inner.state());
    }

    /// Serves one more resource without a CRD object (built-in types, or a custom type described
    /// by hand).
    pub fn register(&self, info: ResourceInfo) {
        self.inner.state().registry.insert(info);
    }

    /// Serves the Rust type `K` as a custom resource without subresources or schema.
    pub fn register_type<K>(&self)
    where
        K: kube::Resource<DynamicType = ()>,
        K::Scope: 'static,
    {
        self.register(ResourceInfo::of::<K>());
    }

    /// Every request received so far (discovery excluded), oldest first.
    pub fn actions(&self) -> Vec<Action> {
        self.inner.testing().actions()
    }

    /// Forgets the recorded actions.
    pub fn clear_actions(&self) {
        self.inner.testing().clear_actions();
    }

    /// Adds a reactor at the end of the chain. It sees requests matching `verb` and `resource`
    /// (`*` for any; `plural/subresource` for a subresource) and answers by returning `Some`.
    pub fn add_reactor<F>(&self, verb: &str, resource: &str, react: F)
    where
        F: Fn(&Action) -> Option<Reaction> + Send + Sync + 'static,
    {
        self.inner.testing().add_reactor(false, verb, resource, Arc::new(react));
    }

    /// Adds a reactor at the front of the chain, the usual way to inject an error.
    pub fn prepend_reactor<F>(&self, verb: &str, resource: &str, react: F)
    where
        F: Fn(&Action) -> Option<Reaction> + Send + Sync + 'static,
    {
        self.inner.testing().add_reactor(true, verb, resource, Arc::new(react));
    }

    /// Fails the next `count` requests matching `verb` and `resource` with `status`.
    pub fn fail_next(&self, count: usize, verb: &str, resource: &str, status: ApiStatus) {
        self.inner.testing().fail_next(count, verb, resource, status);
    }

    /// Ends every open watch stream, as a dropped connection would.
    pub fn cut_watches(&self) {
        self.inner.state().store.cut_watches();
    }

    /// Forgets the change history: watches and list continuations from any earlier
    /// resourceVersion get 410 Gone, forcing clients to relist.
    pub fn expire_resource_versions(&self) {
        self.inner.state().store.compact();
    }

    /// Delays every request by `latency` (honours `tokio::time::pause`).
    pub fn set_latency(&self, latency: Duration) {
        self.inner.testing().latency = latency;
    }

    /// The latest resourceVersion, as a list would report it.
    pub fn resource_version(&self) -> String {
        self.inner.state().store.current_rv().to_string()
    }
}

impl FakeApiServerBuilder {
    /// Creates namespaces on first use instead of answering 404 (default: off, like a real server).
    pub fn auto_create_namespaces(mut self, on: bool) -> Self {
        self.options.auto_create_namespaces = on;
        self
    }

    /// Deletes dependents whose owners are gone and honours Foreground and Orphan propagation,
    /// as kube-controller-manager's garbage collector does (default: on).
    pub fn garbage_collection(mut self, on: bool) -> Self {
        self.options.garbage_collection = on;
        self
    }

    /// How many changes are kept for watches and list continuations (default 20 000, a few
    /// minutes of a busy cluster); older resourceVersions get 410 Gone.
    pub fn history_limit(mut self, changes: usize) -> Self {
        self.options.history_limit = changes;
        self
    }

    /// How many changes an open watch may lag behind before the server ends it, as kube-apiserver
    /// ends slow watchers (default 65 536).
    pub fn watch_buffer(mut self, changes: usize) -> Self {
        self.options.watch_buffer = changes;
        self
    }

    /// How long after a request the garbage collector and the CRD cleanup react to it (default
    /// 100 ms); a new CRD is established after a fifth of it, a terminating namespace emptied
    /// after ten times it, about as on a cluster. [`FakeApiServer::settle`] lets a test skip
    /// the wait.
    pub fn controller_delay(mut self, delay: Duration) -> Self {
        self.options.controller_delay = delay;
        self
    }

    /// How often watches that allow bookmarks get one (default 60 s, kube-apiserver's); a
    /// bookmark is sent only once the watch has seen a resourceVersion past where it started,
    /// and a last one 2 s before the watch's deadline.
    pub fn bookmark_interval(mut self, interval: Duration) -> Self {
        self.options.bookmark_interval = interval;
        self
    }

    /// Serves streaming lists (watches with `sendInitialEvents`), as kube-apiserver does with
    /// its WatchList feature on: by default in 1.32 and from 1.34. Default: off, as in the v1.31
    /// this server reports by default (and 1.28 to 1.31), which refuse such a watch with 422.
    pub fn watch_list(mut self, on: bool) -> Self {
        self.options.watch_list = on;
        self
    }

    /// The Kubernetes version the server reports in `/version` (default `v1.31.2`, the newest
    /// minor whose kube-apiserver answers are recorded in the conformance corpus); its minor
    /// picks what changed between minors: the aggregated discovery versions served
    /// (`apidiscovery.k8s.io/v2beta1` from 1.26, `v2` from 1.30) and the field path of a
    /// `/status` schema error (under `status.` from 1.31). Give `v1.<minor>.<patch>`, 1.28 or
    /// newer.
    pub fn kube_version(mut self, version: &str) -> Self {
        self.options.version = version.to_owned();
        self
    }

    /// Records every request for [`FakeApiServer::actions`] (default: on; turn off for long runs).
    pub fn record_actions(mut self, on: bool) -> Self {
        self.record_actions = on;
        self
    }

    /// Serves one more resource without a CRD object.
    pub fn resource(mut self, info: ResourceInfo) -> Self {
        self.resources.push(info);
        self
    }

    /// Installs a `CustomResourceDefinition` (any value that serializes to one, such as
    /// `kube::CustomResourceExt::crd()`), serving its types as the real server would.
    pub fn crd<C: Serialize>(self, crd: &C) -> Self {
        self.object(crd)
    }

    /// Seeds an object (a CRD, a namespace, any registered kind) at startup.
    ///
    /// # Panics
    /// When the value does not serialize to JSON; [`FakeApiServerBuilder::build`] panics when it
    /// is refused — seeds are test fixtures, so a bad one should stop the test at once.
    pub fn object<K: Serialize>(mut self, object: &K) -> Self {
        self.objects
            .push(serde_json::to_value(object).expect("seed object serializes to JSON"));
        self
    }

    /// Whether the server starts with what a fresh cluster holds (on by default): the
    /// `default/kubernetes` Service, the bootstrap ClusterRoles, Roles and their bindings
    /// (`cluster-admin`, `view`, …), and in every namespace, once kube-controller-manager's
    /// controllers have run, the `default` ServiceAccount and `kube-root-ca.crt` ConfigMap.
    pub fn bootstrap(mut self, on: bool) -> Self {
        self.options.bootstrap = on;
        self
    }

    /// Builds the server.
    ///
    /// # Panics
    /// When a seeded object is refused (unknown kind, invalid CRD); the message says why.
    pub fn build(self) -> FakeApiServer {
        let mut state = State::new(self.options.clone());
        for info in builtins(self.options.minor()).into_iter().chain(self.resources) {
            state.registry.insert(info);
        }
        for namespace in ["default", "kube-system", "kube-public", "kube-node-lease"] {
            write::ensure_namespace(&mut state, namespace).expect("the default namespaces have valid names");
        }
        if self.options.bootstrap {
            seed_bootstrap(&mut state);
        }
        for object in self.objects {
            if let Err(status) = write::seed(&mut state, object) {
                panic!("FakeApiServer: seed object refused: {}", status.message);
            }
        }
        lifecycle::settle(&mut state);
        FakeApiServer {
            inner: Arc::new(Inner {
                state: Mutex::new(state),
                testing: Mutex::new(Testing::new(self.record_actions)),
                wake: tokio::sync::Notify::new(),
                external_address: std::sync::OnceLock::new(),
                options: self.options,
                authenticator: self.authenticator,
            }),
        }
    }
}

/// Writes what kube-apiserver creates at start, as its own controllers write it.
fn seed_bootstrap(state: &mut State) {
    for object in lifecycle::cluster_objects() {
        let api_version = object.get("apiVersion").and_then(Value::as_str).unwrap_or_default();
        let kind = object.get("kind").and_then(Value::as_str).unwrap_or_default();
        let Some(info) = state.registry.by_kind(api_version, kind).cloned() else {
            continue;
        };
        let namespace = object
            .pointer("/metadata/namespace")
            .and_then(Value::as_str)
            .map(str::to_owned);
        if let Err(status) =
            state.create_object(&info, namespace.as_deref(), object, Some(lifecycle::APISERVER_MANAGER))
        {
            tracing::warn!(%status, "a bootstrap object was refused");
        }
    }
    lifecycle::register_builtin_api_services(state);
    lifecycle::produce_apf_configuration(state);
}
