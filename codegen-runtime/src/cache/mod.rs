//! client-go's `tools/cache` on kube's client: an indexed store, listers, shared informers with
//! event handlers, tombstones, resync and subscriptions, and the shared informer factory.

mod decode;
mod distribute;
mod engine;
mod factory;
mod field_sets;
mod handler;
mod informer;
mod key;
mod lines;
mod lister;
mod reflector;
mod reuse;
mod shared;
mod store;
mod wire;

pub use factory::{SharedInformerFactory, SharedInformerFactoryBuilder, TweakWatcher};
pub use handler::{Deleted, DeletedFinalStateUnknown, EventHandler, HandlerFns, Notification, Subscription};
pub use informer::{HandlerRegistration, SharedIndexInformer};
pub use key::{key_of, object_key, split_key};
pub use lister::{Lister, NamespaceLister, NotFound};
pub use shared::{ApplyEvents, InformerObject, InformerOptions, Transform};
pub use store::{IndexFn, NAMESPACE_INDEX, Store, StoreError};
