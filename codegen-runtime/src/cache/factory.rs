//! The generic core of client-go's `SharedInformerFactory`: one informer per type, shared by
//! every consumer, started together, synced together, shut down together.

use std::any::{Any, TypeId, type_name};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use futures::future::BoxFuture;
use kube::Client;
use kube::runtime::watcher;

use super::informer::SharedIndexInformer;
use super::shared::{ApplyEvents, InformerObject, InformerOptions, Transform};
use crate::scope::ScopeKind;

/// Changes the watcher configuration of every informer (client-go's `WithTweakListOptions`),
/// e.g. to page size or streaming lists.
pub type TweakWatcher = Arc<dyn Fn(watcher::Config) -> watcher::Config + Send + Sync>;

/// What the factory needs of an informer whatever its type.
trait Control: Send + Sync {
    fn run(&self);
    fn has_synced(&self) -> bool;
    fn wait_for_sync(&self) -> BoxFuture<'static, bool>;
    fn shutdown(&self) -> BoxFuture<'static, ()>;
}

impl<K: InformerObject> Control for SharedIndexInformer<K> {
    fn run(&self) {
        SharedIndexInformer::run(self);
    }

    fn has_synced(&self) -> bool {
        SharedIndexInformer::has_synced(self)
    }

    fn wait_for_sync(&self) -> BoxFuture<'static, bool> {
        let informer = self.clone();
        Box::pin(async move { informer.wait_for_sync().await })
    }

    fn shutdown(&self) -> BoxFuture<'static, ()> {
        let informer = self.clone();
        Box::pin(async move { informer.shutdown().await })
    }
}

struct Entry {
    type_name: &'static str,
    informer: Box<dyn Any + Send + Sync>,
    control: Arc<dyn Control>,
    started: bool,
}

struct Registry {
    informers: HashMap<TypeId, Entry>,
    shut_down: bool,
}

/// Options shared by the informers of a factory.
#[derive(Default)]
struct Options {
    namespace: Option<String>,
    labels: Option<String>,
    fields: Option<String>,
    resync: Option<Duration>,
    resync_per_type: HashMap<TypeId, Duration>,
    transforms: HashMap<TypeId, Box<dyn Any + Send + Sync>>,
    tweak: Option<TweakWatcher>,
    strip_managed_fields: bool,
    apply_events: ApplyEvents,
}

/// Hands out one shared informer per type; clones share the factory.
#[derive(Clone)]
pub struct SharedInformerFactory {
    client: Client,
    options: Arc<Options>,
    registry: Arc<Mutex<Registry>>,
}

/// Configures a [`SharedInformerFactory`]; `build` returns `F`, so a generated factory that
/// wraps this one offers every option without repeating them.
pub struct SharedInformerFactoryBuilder<F = SharedInformerFactory> {
    client: Client,
    options: Options,
    build: std::marker::PhantomData<fn() -> F>,
}

impl SharedInformerFactory {
    /// A factory watching all namespaces, without resync.
    pub fn new(client: Client) -> Self {
        Self::builder(client).build()
    }

    /// Starts configuring a factory.
    pub fn builder(client: Client) -> SharedInformerFactoryBuilder {
        Self::builder_for(client)
    }

    /// Starts configuring a factory that `build` wraps into `F` (e.g. a generated factory).
    pub fn builder_for<F: From<SharedInformerFactory>>(client: Client) -> SharedInformerFactoryBuilder<F> {
        SharedInformerFactoryBuilder {
            client,
            options: Options::default(),
            build: std::marker::PhantomData,
        }
    }

    fn registry(&self) -> MutexGuard<'_, Registry> {
        // Only map operations happen under this lock.
        self.registry.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The informer for `K`, created on first request. It runs once [`SharedInformerFactory::start`]
    /// is called (again).
    pub fn informer<K>(&self) -> SharedIndexInformer<K>
    where
        K: InformerObject,
        K::Scope: ScopeKind,
    {
        let mut registry = self.registry();
        let entry = registry.informers.entry(TypeId::of::<K>()).or_insert_with(|| {
            let informer = SharedIndexInformer::<K>::new(self.client.clone(), self.options_for::<K>());
            Entry {
                type_name: type_name::<K>(),
                control: Arc::new(informer.clone()),
                informer: Box::new(informer),
                started: false,
            }
        });
        entry
            .informer
            .downcast_ref::<SharedIndexInformer<K>>()
            .expect("entries are keyed by their type")
            .clone()
    }

    fn options_for<K>(&self) -> InformerOptions<K>
    where
        K: InformerObject,
        K::Scope: ScopeKind,
    {
        let options = &self.options;
        let mut config = watcher::Config::default();
        if let Some(labels) = &options.labels {
            config = config.labels(labels);
        }
        if let Some(fields) = &options.fields {
            config = config.fields(fields);
        }
        if let Some(tweak) = &options.tweak {
            config = tweak(config);
        }
        let type_id = TypeId::of::<K>();
        InformerOptions {
            namespace: if K::Scope::NAMESPACED {
                options.namespace.clone()
            } else {
                None
            },
            watcher: config,
            resync: options.resync_per_type.get(&type_id).copied().or(options.resync),
            transform: options
                .transforms
                .get(&type_id)
                .and_then(|t| t.downcast_ref::<Transform<K>>())
                .cloned(),
            strip_managed_fields: options.strip_managed_fields,
            apply_events: options.apply_events,
        }
    }

    /// Runs every informer requested so far that is not running; safe to call again after
    /// requesting more. Does nothing after [`SharedInformerFactory::shutdown`].
    pub fn start(&self) {
        let mut registry = self.registry();
        if registry.shut_down {
            return;
        }
        for entry in registry.informers.values_mut().filter(|e| !e.started) {
            entry.control.run();
            entry.started = true;
        }
    }

    /// Waits until every started informer has synced; returns each one's state by type name
    /// (`false` for one that stopped before syncing).
    pub async fn wait_for_cache_sync(&self) -> BTreeMap<&'static str, bool> {
        let started: Vec<(&'static str, Arc<dyn Control>)> = self
            .registry()
            .informers
            .values()
            .filter(|e| e.started)
            .map(|e| (e.type_name, e.control.clone()))
            .collect();
        let mut synced = BTreeMap::new();
        for (name, control) in started {
            synced.insert(name, control.wait_for_sync().await);
        }
        synced
    }

    /// Whether every started informer has synced.
    pub fn has_synced(&self) -> bool {
        self.registry()
            .informers
            .values()
            .filter(|e| e.started)
            .all(|e| e.control.has_synced())
    }

    /// Stops every informer and waits for them; later [`SharedInformerFactory::start`] calls do
    /// nothing.
    pub async fn shutdown(&self) {
        let controls: Vec<Arc<dyn Control>> = {
            let mut registry = self.registry();
            registry.shut_down = true;
            registry.informers.values().map(|e| e.control.clone()).collect()
        };
        for control in controls {
            control.shutdown().await;
        }
    }
}

impl<F: From<SharedInformerFactory>> SharedInformerFactoryBuilder<F> {
    /// Watch one namespace (cluster-scoped types still watch everything).
    pub fn namespace(mut self, namespace: impl Into<String>) -> Self {
        self.options.namespace = Some(namespace.into());
        self
    }

    /// Only objects with these labels, e.g. `app=web`.
    pub fn labels(mut self, selector: impl Into<String>) -> Self {
        self.options.labels = Some(selector.into());
        self
    }

    /// Only objects with these fields, e.g. `metadata.name=web`.
    pub fn fields(mut self, selector: impl Into<String>) -> Self {
        self.options.fields = Some(selector.into());
        self
    }

    /// Default resync period of handlers.
    pub fn resync(mut self, period: Duration) -> Self {
        self.options.resync = Some(period);
        self
    }

    /// Resync period of handlers of type `K` (client-go's `WithCustomResyncConfig`).
    pub fn resync_for<K: 'static>(mut self, period: Duration) -> Self {
        self.options.resync_per_type.insert(TypeId::of::<K>(), period);
        self
    }

    /// Applies `transform` to every `K` before it is stored.
    pub fn transform<K: Send + Sync + 'static>(mut self, transform: impl Fn(&mut K) + Send + Sync + 'static) -> Self {
        let transform: Transform<K> = Arc::new(transform);
        self.options.transforms.insert(TypeId::of::<K>(), Box::new(transform));
        self
    }

    /// Stores every informer's objects without their managed fields, skipped unread
    /// ([`InformerOptions::strip_managed_fields`]; client-go's `TransformStripManagedFields`
    /// set as every informer's transform).
    pub fn strip_managed_fields(mut self) -> Self {
        self.options.strip_managed_fields = true;
        self
    }

    /// Adjusts every informer's watcher configuration.
    pub fn tweak_watcher(mut self, tweak: impl Fn(watcher::Config) -> watcher::Config + Send + Sync + 'static) -> Self {
        self.options.tweak = Some(Arc::new(tweak));
        self
    }

    /// Where every informer applies watch events: [`ApplyEvents::OnOwnTask`] suits a program
    /// that installs mimalloc or jemalloc; the default is steadier under glibc's.
    pub fn apply_events(mut self, apply_events: ApplyEvents) -> Self {
        self.options.apply_events = apply_events;
        self
    }

    /// Builds the factory.
    pub fn build(self) -> F {
        let registry = Registry {
            informers: HashMap::new(),
            shut_down: false,
        };
        F::from(SharedInformerFactory {
            client: self.client,
            options: Arc::new(self.options),
            registry: Arc::new(Mutex::new(registry)),
        })
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::ConfigMap;

    use super::*;

    #[tokio::test]
    async fn every_informer_should_take_the_factory_options() {
        let server = fake_apiserver::FakeApiServer::new();
        let factory = SharedInformerFactory::builder(server.client())
            .namespace("default")
            .resync(Duration::from_secs(30))
            .apply_events(ApplyEvents::OnOwnTask)
            .strip_managed_fields()
            .build();
        let options = factory.options_for::<ConfigMap>();
        assert_eq!(options.namespace.as_deref(), Some("default"));
        assert_eq!(options.resync, Some(Duration::from_secs(30)));
        assert_eq!(options.apply_events, ApplyEvents::OnOwnTask);
        assert!(options.strip_managed_fields);
        let default = SharedInformerFactory::new(server.client()).options_for::<ConfigMap>();
        assert_eq!(default.apply_events, ApplyEvents::WhereDecoded);
        assert!(!default.strip_managed_fields);
    }
}
