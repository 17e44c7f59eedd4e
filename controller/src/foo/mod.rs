//! sample-controller's Foo controller: each Foo owns the Deployment named in
//! `spec.deploymentName` (created with a controller owner reference), whose replicas follow
//! the Foo's and whose available replicas are copied to the Foo's status; a Deployment of that
//! name the Foo does not own is refused with an `ErrResourceExists` event. Changes to owned
//! Deployments requeue their Foo.

pub mod deployment;

use std::sync::Arc;

use codegen_runtime::cache::{NotFound, object_key, split_key};
use codegen_runtime::controller::{ErrorSummary, Next, Reconcile};
use codegen_runtime::{Deleted, Events, HandlerFns, Lister, SharedIndexInformer, WorkQueue};
use generated_example::apis::samplecontroller::v1alpha1::{Foo, FooStatus};
use generated_example::generated::samplecontroller::v1alpha1::{
    FooInformer, FooLister, SamplecontrollerV1alpha1Client,
};
use k8s_openapi::api::apps::v1::Deployment;
use kube::Api;
use kube::api::PostParams;

use deployment::{controller_of, is_controlled_by, new_deployment};

/// The field manager of the controller's writes, as sample-controller's.
pub const FIELD_MANAGER: &str = "sample-controller";

/// Reason of the event when a Foo is synced.
pub const SUCCESS_SYNCED: &str = "Synced";
/// Reason of the event when a Deployment of the Foo's name exists and is not the Foo's.
pub const ERR_RESOURCE_EXISTS: &str = "ErrResourceExists";

/// Why a Foo reconcile failed (it is retried with backoff).
#[derive(Debug, thiserror::Error)]
pub enum FooError {
    /// The Deployment exists and belongs to someone else.
    #[error("Resource {0:?} already exists and is not managed by Foo")]
    NotOwned(String),
    /// A write was refused.
    #[error("cannot {what}: {}", ErrorSummary(source))]
    Api {
        /// What was being done.
        what: String,
        /// Why.
        source: kube::Error,
    },
}

impl FooError {
    /// A refused write of `object`: the object (and the server's full answer) are logged only at
    /// debug level, as they can be KBs; the error displays one line.
    fn api(what: String, object: &impl std::fmt::Debug, source: kube::Error) -> Self {
        tracing::debug!(%what, ?object, error = ?source, "write refused");
        Self::Api { what, source }
    }
}

/// The Foo controller.
pub struct FooController {
    client: kube::Client,
    foos: SamplecontrollerV1alpha1Client,
    foo_lister: FooLister,
    deployments: Lister<Deployment>,
    events: Events,
}

impl FooController {
    /// A controller over the Foo and Deployment caches, writing through `client`.
    pub fn new(
        client: kube::Client,
        foo_informer: &FooInformer,
        deployments: &SharedIndexInformer<Deployment>,
        events: Events,
    ) -> Self {
        Self {
            foos: SamplecontrollerV1alpha1Client::new(client.clone()),
            client,
            foo_lister: foo_informer.lister(),
            deployments: deployments.lister(),
            events,
        }
    }

    /// Enqueues Foos as they are added or updated, and the owner Foo of every Deployment
    /// added, changed (a resync, same resourceVersion, is ignored) or deleted.
    /// The handlers only enqueue keys, so they run inline, on the informers' tasks.
    pub fn watch(foo_informer: &FooInformer, deployments: &SharedIndexInformer<Deployment>, queue: &WorkQueue<String>) {
        let (on_add, on_update) = (queue.clone(), queue.clone());
        foo_informer.informer().add_inline_event_handler(
            HandlerFns::new()
                .on_add(move |foo: Arc<Foo>, _| on_add.add(object_key(&*foo)))
                .on_update(move |_, foo: Arc<Foo>| on_update.add(object_key(&*foo))),
        );
        let owner = OwnerEnqueuer {
            foos: foo_informer.lister(),
            queue: queue.clone(),
        };
        let (on_add, on_update, on_delete) = (owner.clone(), owner.clone(), owner);
        deployments.add_inline_event_handler(
            HandlerFns::new()
                .on_add(move |d: Arc<Deployment>, _| on_add.handle(&d))
                .on_update(move |old: Arc<Deployment>, new: Arc<Deployment>| {
                    // Periodic resyncs send updates of unchanged objects.
                    if old.metadata.resource_version != new.metadata.resource_version {
                        on_update.handle(&new);
                    }
                })
                .on_delete(move |deleted: Deleted<Deployment>| on_delete.handle(deleted.object())),
        );
    }

    async fn update_status(&self, foo: &Foo, deployment: &Deployment) -> Result<bool, FooError> {
        let available = deployment
            .status
            .as_ref()
            .and_then(|s| s.available_replicas)
            .unwrap_or(0);
        if foo.status.as_ref().map(|s| s.available_replicas) == Some(available) {
            return Ok(false);
        }
        let mut copy = foo.clone();
        copy.status = Some(FooStatus {
            available_replicas: available,
        });
        let params = PostParams {
            field_manager: Some(FIELD_MANAGER.to_owned()),
            ..PostParams::default()
        };
        let namespace = foo.metadata.namespace.as_deref().unwrap_or_default();
        match self.foos.foos(namespace).update_status(&copy, &params).await {
            Ok(_) => Ok(true),
            // The lister's Foo is older than the stored one: the informer is about to deliver the
            // newer Foo, whose event reconciles it again with the status it has.
            Err(kube::Error::Api(status)) if status.code == 409 => {
                tracing::debug!(foo = %object_key(foo), "Foo changed since it was cached; reconciled again when the informer has it");
                Ok(false)
            }
            Err(source) => Err(FooError::api(
                format!("update the status of Foo {}", object_key(foo)),
                &copy,
                source,
            )),
        }
    }
}

/// Requeues the Foo that controls a Deployment (sample-controller's `handleObject`).
#[derive(Clone)]
struct OwnerEnqueuer {
    foos: FooLister,
    queue: WorkQueue<String>,
}

impl OwnerEnqueuer {
    fn handle(&self, deployment: &Deployment) {
        let Some(owner) = controller_of(&deployment.metadata) else {
            return;
        };
        if owner.kind != "Foo" {
            return;
        }
        let namespace = deployment.metadata.namespace.as_deref().unwrap_or_default();
        match self.foos.foos(namespace).get(&owner.name) {
            Ok(foo) => self.queue.add(object_key(&*foo)),
            Err(_) => tracing::debug!(
                deployment = deployment.metadata.name.as_deref().unwrap_or_default(),
                foo = owner.name,
                "ignoring orphaned Deployment"
            ),
        }
    }
}

impl Reconcile for FooController {
    const NAME: &'static str = "Foo";
    type Error = FooError;

    async fn reconcile(&self, key: &str) -> Result<Next, FooError> {
        let (namespace, name) = split_key(key);
        // Foos are namespaced: their keys always carry a namespace.
        let namespace = namespace.unwrap_or_default();
        let foo = match self.foo_lister.foos(namespace).get(name) {
            Ok(foo) => foo,
            Err(NotFound { .. }) => {
                tracing::info!(%key, "foo in work queue no longer exists");
                return Ok(Next::Done);
            }
        };
        let deployment_name = &foo.spec.deployment_name;
        if deployment_name.is_empty() {
            // Nothing the controller can do until the user fixes the spec: report, don't retry.
            tracing::error!(%key, "deployment name must be specified");
            self.events
                .warning(&*foo, "InvalidSpec", "spec.deploymentName must be specified".to_owned())
                .await;
            return Ok(Next::Done);
        }
        let api = Api::<Deployment>::namespaced(self.client.clone(), namespace);
        let params = PostParams {
            field_manager: Some(FIELD_MANAGER.to_owned()),
            ..PostParams::default()
        };
        let mut changed = false;
        // The cached Deployment is read where it lies: a resync reconciles every Foo, and a
        // copy of each Deployment would cost more than the rest of the reconcile.
        let deployment = match self.deployments.namespaced(namespace).get(deployment_name) {
            Ok(deployment) => deployment,
            Err(NotFound { .. }) => {
                changed = true;
                tracing::info!(%key, deployment = %deployment_name, "creating deployment");
                let new = new_deployment(&foo);
                let created = api.create(&params, &new).await.map_err(|source| {
                    FooError::api(format!("create Deployment {namespace}/{deployment_name}"), &new, source)
                })?;
                Arc::new(created)
            }
        };
        if !is_controlled_by(&deployment, &foo) {
            let error = FooError::NotOwned(deployment_name.clone());
            self.events.warning(&*foo, ERR_RESOURCE_EXISTS, error.to_string()).await;
            return Err(error);
        }
        let replicas = deployment.spec.replicas;
        let deployment = match foo.spec.replicas {
            Some(wanted) if replicas != Some(wanted) => {
                tracing::info!(%key, wanted, current = ?replicas, "updating deployment replicas");
                changed = true;
                let mut desired = new_deployment(&foo);
                desired.metadata.resource_version = deployment.metadata.resource_version.clone();
                let replaced = api
                    .replace(deployment_name, &params, &desired)
                    .await
                    .map_err(|source| {
                        FooError::api(
                            format!("update Deployment {namespace}/{deployment_name}"),
                            &desired,
                            source,
                        )
                    })?;
                Arc::new(replaced)
            }
            _ => deployment,
        };
        changed |= self.update_status(&foo, &deployment).await?;
        if changed {
            self.events
                .normal(&*foo, SUCCESS_SYNCED, "Foo synced successfully".to_owned())
                .await;
        }
        Ok(Next::Done)
    }
}
