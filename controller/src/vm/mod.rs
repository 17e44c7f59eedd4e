//! controller101's VirtualMachine controller: a VirtualMachine goes `Creating` (finalizer added)
//! → `Active` (server created, status with its id, state and usage, refreshed periodically) or
//! `Failed` (with a reason and a Warning event); deleting it makes it `Terminating`, deletes the
//! server and only then removes the finalizer. Status is written with Update, as controller101
//! does (`+genclient:noStatus`).

pub mod driver;
pub mod simulated;

use std::sync::Arc;
use std::time::Duration;

use codegen_runtime::cache::{NotFound, object_key, split_key};
use codegen_runtime::controller::{ErrorSummary, Next, Reconcile};
use codegen_runtime::{Events, HandlerFns, WorkQueue};
use generated_example::apis::cloudnative::v1alpha1::{
    ResourceUsage, ServerStatus, VirtualMachine, VirtualMachineStatus,
};
use generated_example::generated::cloudnative::v1alpha1::{
    CloudnativeV1alpha1Client, VirtualMachineInformer, VirtualMachineLister,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use kube::api::PostParams;

use driver::{DriverError, Resources, Server, VmDriver, parse_quantity};

/// The finalizer that keeps a VirtualMachine until its server is deleted (controller101's).
pub const FINALIZER: &str = "finalizer.cloudnative.tw";

/// The phases of a VirtualMachine.
pub mod phase {
    /// The server is being created.
    pub const CREATING: &str = "Creating";
    /// The server runs.
    pub const ACTIVE: &str = "Active";
    /// The server could not be created; see the reason.
    pub const FAILED: &str = "Failed";
    /// The VirtualMachine is being deleted.
    pub const TERMINATING: &str = "Terminating";
}

/// Why a VirtualMachine reconcile failed (it is retried with backoff).
#[derive(Debug, thiserror::Error)]
pub enum VmError {
    /// The API server refused a write.
    #[error("cannot update VirtualMachine {key}: {}", ErrorSummary(source))]
    Update {
        /// The object.
        key: String,
        /// Why.
        source: kube::Error,
    },
    /// The driver failed in a way worth retrying.
    #[error("driver: {0}")]
    Driver(#[from] DriverError),
}

impl VmError {
    /// A refused update of `vm`: the object (and the server's full answer) are logged only at
    /// debug level, as they can be KBs; the error displays one line.
    fn update(vm: &VirtualMachine, source: kube::Error) -> Self {
        let key = object_key(vm);
        tracing::debug!(%key, object = ?vm, error = ?source, "update refused");
        Self::Update { key, source }
    }
}

/// The VirtualMachine controller.
pub struct VmController {
    client: CloudnativeV1alpha1Client,
    lister: VirtualMachineLister,
    driver: Arc<dyn VmDriver>,
    events: Events,
    refresh: Duration,
}

impl VmController {
    /// A controller over `informer`'s cache, writing through `client`.
    pub fn new(
        client: CloudnativeV1alpha1Client,
        informer: &VirtualMachineInformer,
        driver: Arc<dyn VmDriver>,
        events: Events,
        refresh: Duration,
    ) -> Self {
        Self {
            client,
            lister: informer.lister(),
            driver,
            events,
            refresh,
        }
    }

    /// Enqueues every VirtualMachine added or updated (deletes are seen as updates through the
    /// finalizer).
    /// The handlers only enqueue keys, so they run inline, on the informers' tasks.
    pub fn watch(informer: &VirtualMachineInformer, queue: &WorkQueue<String>) {
        let (on_add, on_update) = (queue.clone(), queue.clone());
        informer.informer().add_inline_event_handler(
            HandlerFns::new()
                .on_add(move |vm: Arc<VirtualMachine>, _| on_add.add(object_key(&*vm)))
                .on_update(move |_, vm: Arc<VirtualMachine>| on_update.add(object_key(&*vm))),
        );
    }

    async fn write(&self, vm: &VirtualMachine) -> Result<VirtualMachine, VmError> {
        let namespace = vm.metadata.namespace.as_deref().unwrap_or_default();
        self.client
            .virtual_machines(namespace)
            .update(vm, &PostParams::default())
            .await
            .map_err(|source| VmError::update(vm, source))
    }

    /// The server's name: the object's `namespace/name`, unique as namespaces have no `/`.
    fn server_name(vm: &VirtualMachine) -> String {
        object_key(vm)
    }

    async fn terminate(&self, mut vm: VirtualMachine) -> Result<Next, VmError> {
        let finalizers = vm.metadata.finalizers.get_or_insert_with(Vec::new);
        if !finalizers.iter().any(|f| f == FINALIZER) {
            return Ok(Next::Done);
        }
        let status = vm.status.get_or_insert_with(Default::default);
        if status.phase != phase::TERMINATING {
            status.phase = phase::TERMINATING.to_owned();
            status.last_update_time = Some(Time(jiff_now()));
            vm = self.write(&vm).await?;
        }
        if let Err(error) = self.driver.delete_server(&Self::server_name(&vm)).await {
            self.events
                .warning(&vm, "FailedDelete", format!("Cannot delete the server: {error}"))
                .await;
            return Err(error.into());
        }
        vm.metadata
            .finalizers
            .get_or_insert_with(Vec::new)
            .retain(|f| f != FINALIZER);
        self.write(&vm).await?;
        tracing::info!(key = object_key(&vm), "server deleted, finalizer removed");
        self.events.normal(&vm, "Deleted", "Server deleted".to_owned()).await;
        Ok(Next::Done)
    }

    /// Creates the server of a `Creating` (or `Failed`) VirtualMachine. A spec the driver cannot
    /// act on is `Failed` until the spec changes; a driver error is `Failed` too, and retried
    /// with backoff, as controller101 retries. Failed is written (and reported) only when the
    /// reason changes, so a retry or a resync never loops on its own writes.
    async fn create(&self, mut vm: VirtualMachine) -> Result<Next, VmError> {
        let request = &vm.spec.resource;
        let resources = parse_quantity(&request.cpu.0)
            .and_then(|cpu| parse_quantity(&request.memory.0).map(|memory_bytes| Resources { cpu, memory_bytes }));
        let (created, retry) = match resources {
            Err(error) => (Err(format!("invalid spec.resource: {error}")), None),
            Ok(resources) => match self.driver.create_server(&Self::server_name(&vm), resources).await {
                Ok(server) => (Ok(server), None),
                Err(error) => (Err(format!("cannot create the server: {error}")), Some(error)),
            },
        };
        let status = vm.status.get_or_insert_with(Default::default);
        match created {
            Ok(server) => {
                status.phase = phase::ACTIVE.to_owned();
                status.reason = String::new();
                status.server = server_status(&server);
                status.last_update_time = Some(Time(jiff_now()));
                let vm = self.write(&vm).await?;
                tracing::info!(key = object_key(&vm), server = server_id(&vm), "VirtualMachine Active");
                self.events
                    .normal(&vm, "Created", format!("Server {} created", server_id(&vm)))
                    .await;
                Ok(Next::RequeueAfter(self.refresh))
            }
            Err(reason) => {
                let changed = status.phase != phase::FAILED || status.reason != reason;
                // Each attempt is worth an event (recorded even if the write below conflicts);
                // a resync of an unchanged invalid spec is not.
                if changed || retry.is_some() {
                    self.events.warning(&vm, "FailedCreate", reason.clone()).await;
                }
                if changed {
                    let status = vm.status.get_or_insert_with(Default::default);
                    status.phase = phase::FAILED.to_owned();
                    status.reason = reason.clone();
                    status.last_update_time = Some(Time(jiff_now()));
                    vm = self.write(&vm).await?;
                    tracing::warn!(key = object_key(&vm), %reason, "VirtualMachine Failed");
                }
                match retry {
                    Some(error) => Err(error.into()),
                    None => Ok(Next::Done),
                }
            }
        }
    }

    async fn refresh(&self, mut vm: VirtualMachine) -> Result<Next, VmError> {
        let age = vm
            .status
            .as_ref()
            .and_then(|s| s.last_update_time.as_ref())
            .map(|t| jiff_now().duration_since(t.0))
            .and_then(|d| Duration::try_from(d).ok())
            .unwrap_or(self.refresh);
        if age < self.refresh {
            return Ok(Next::RequeueAfter(self.refresh - age));
        }
        let server = self.driver.server(&Self::server_name(&vm)).await?;
        let status = vm.status.get_or_insert_with(Default::default);
        match server {
            Some(server) => status.server = server_status(&server),
            None => {
                status.phase = phase::FAILED.to_owned();
                status.reason = "the server no longer exists".to_owned();
            }
        }
        status.last_update_time = Some(Time(jiff_now()));
        let vm = self.write(&vm).await?;
        if vm.status.as_ref().is_some_and(|s| s.phase == phase::FAILED) {
            self.events
                .warning(&vm, "ServerLost", "The server no longer exists".to_owned())
                .await;
            return Ok(Next::Done);
        }
        Ok(Next::RequeueAfter(self.refresh))
    }
}

fn server_status(server: &Server) -> ServerStatus {
    ServerStatus {
        id: server.id.clone(),
        state: server.state.clone(),
        usage: ResourceUsage {
            cpu: server.cpu_percentage,
            memory: server.memory_percentage,
        },
    }
}

fn server_id(vm: &VirtualMachine) -> &str {
    vm.status.as_ref().map_or("", |s| s.server.id.as_str())
}

fn jiff_now() -> k8s_openapi::jiff::Timestamp {
    k8s_openapi::jiff::Timestamp::now()
}

impl Reconcile for VmController {
    const NAME: &'static str = "VirtualMachine";
    type Error = VmError;

    async fn reconcile(&self, key: &str) -> Result<Next, VmError> {
        let (namespace, name) = split_key(key);
        // VirtualMachines are namespaced: their keys always carry a namespace.
        let namespace = namespace.unwrap_or_default();
        let vm = match self.lister.virtual_machines(namespace).get(name) {
            Ok(vm) => (*vm).clone(),
            // Deleted since it was queued: nothing to do.
            Err(NotFound { .. }) => return Ok(Next::Done),
        };
        if vm.metadata.deletion_timestamp.is_some() {
            return self.terminate(vm).await;
        }
        let phase = vm.status.as_ref().map_or("", |s| s.phase.as_str()).to_owned();
        match phase.as_str() {
            "" => {
                // The first write: Creating, with the finalizer, so no server outlives its object.
                let mut vm = vm;
                let finalizers = vm.metadata.finalizers.get_or_insert_with(Vec::new);
                if !finalizers.iter().any(|f| f == FINALIZER) {
                    finalizers.push(FINALIZER.to_owned());
                }
                vm.status = Some(VirtualMachineStatus {
                    phase: phase::CREATING.to_owned(),
                    last_update_time: Some(Time(jiff_now())),
                    ..VirtualMachineStatus::default()
                });
                self.write(&vm).await?;
                tracing::info!(%key, "VirtualMachine Creating");
                Ok(Next::Done)
            }
            phase::CREATING | phase::FAILED => self.create(vm).await,
            phase::ACTIVE => self.refresh(vm).await,
            _ => Ok(Next::Done),
        }
    }
}
