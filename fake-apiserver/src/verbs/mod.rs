//! The Kubernetes verbs, one file per family, each a transaction on the storage under one lock.

pub(crate) mod applied_config;
pub(crate) mod apply;
pub(crate) mod authentication;
pub(crate) mod authorization;
pub(crate) mod binding;
pub(crate) mod component_status;
pub(crate) mod connect;
pub(crate) mod delete;
pub(crate) mod eviction;
mod graceful_delete;
pub(crate) mod option_validation;
pub(crate) mod options;
mod owner_references;
pub(crate) mod patch;
pub(crate) mod pod_log;
pub(crate) mod read;
pub(crate) mod scale;
pub(crate) mod strategy;
pub(crate) mod update;
pub(crate) mod watch;
pub(crate) mod write;

use std::sync::Arc;

use serde_json::Value;

use crate::lifecycle::Writes;
use crate::status::ApiStatus;
use crate::storage::State;
use crate::storage::resource::ResourceInfo;
use options::{DeleteOpts, Ownership, WriteOpts};

/// The lifecycle controllers write through the verbs, with every rule a client's write obeys.
impl Writes for State {
    fn delete_object(
        &mut self,
        info: &Arc<ResourceInfo>,
        namespace: Option<&str>,
        name: &str,
        propagation: Option<&str>,
    ) {
        let opts = DeleteOpts {
            propagation: propagation.map(str::to_owned),
            ..DeleteOpts::default()
        };
        // Gone already (a cascade got there first) is what the controller wanted.
        let _ = delete::delete(self, info, namespace, name, &opts);
    }

    fn delete_pod_now(&mut self, info: &Arc<ResourceInfo>, namespace: &str, name: &str) {
        let opts = DeleteOpts {
            grace_period: Some(0),
            ..DeleteOpts::default()
        };
        let _ = delete::delete(self, info, Some(namespace), name, &opts);
    }

    fn create_object(
        &mut self,
        info: &Arc<ResourceInfo>,
        namespace: Option<&str>,
        object: Value,
        manager: Option<&str>,
    ) -> Result<Arc<Value>, ApiStatus> {
        let opts = WriteOpts {
            manager: manager.map(str::to_owned),
            ..WriteOpts::default()
        };
        let checked = write::check(info, object, &opts, self.options.minor())?;
        write::create(self, info, namespace, checked, &opts)
    }

    fn apply_object(
        &mut self,
        info: &Arc<ResourceInfo>,
        namespace: Option<&str>,
        name: &str,
        config: Value,
        manager: &str,
        subresource: Option<&str>,
    ) -> Result<Arc<Value>, ApiStatus> {
        let opts = WriteOpts::default();
        let request = apply::ApplyRequest {
            namespace,
            name,
            subresource,
            manager,
            force: true,
            opts: &opts,
        };
        apply::apply(self, info, config, &request).map(|(applied, _)| applied)
    }

    fn update_object(
        &mut self,
        info: &Arc<ResourceInfo>,
        current: Arc<Value>,
        updated: Value,
        manager: Option<&str>,
        subresource: Option<&str>,
    ) -> Result<Arc<Value>, ApiStatus> {
        let opts = WriteOpts {
            manager: manager.map(str::to_owned),
            ..WriteOpts::default()
        };
        write::commit_update(self, info, current, updated, subresource, &opts, Ownership::Update)
    }
}
