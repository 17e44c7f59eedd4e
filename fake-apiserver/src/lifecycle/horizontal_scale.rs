//! The scale client of kube-controller-manager's horizontal pod autoscaler
//! (`pkg/controller/podautoscaler/horizontal.go`: `scaleForResourceMappings`; client-go's
//! discovery RESTMapper and `scale` client): a `scaleTargetRef` resolved to a served resource with
//! `/scale`, its replicas and selector read, and its replicas written, each failure in the words
//! the client reports it.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::lifecycle::bootstrap::CONTROLLER_MANAGER;
use crate::lifecycle::horizontal_metrics::NOT_FOUND;
use crate::lifecycle::writes::Writes;
use crate::semantics::scale_view;
use crate::storage::State;
use crate::storage::object;
use crate::storage::resource::ResourceInfo;

/// The target's `/scale` as the scale client reads it.
pub(super) struct Scale {
    pub(super) info: Arc<ResourceInfo>,
    pub(super) target: Arc<Value>,
    pub(super) replicas: i64,
    pub(super) selector: String,
}

/// `schema.ParseGroupVersion`'s group: no slash is a core version, two are an error.
fn parse_group(api_version: &str) -> Result<&str, String> {
    match api_version.split('/').collect::<Vec<_>>()[..] {
        [_] => Ok(""),
        [group, _] => Ok(group),
        _ => Err(format!("unexpected GroupVersion string: {api_version}")),
    }
}

/// The discovery RESTMapper's first mapping of the kind (known in lower case too) in its group,
/// in the group's version order: the version the scale client asks too (`ResourceFor`).
fn rest_mapping(state: &State, group: &str, kind: &str) -> Option<Arc<ResourceInfo>> {
    let (_, versions) = state.registry.groups().find(|(served, _)| served.as_str() == group)?;
    versions
        .iter()
        .flat_map(|version| state.registry.resources_in(group, version))
        .find(|info| info.kind == kind || info.kind.to_lowercase() == kind)
        .cloned()
}

/// `RESTMappings` then `Scales().Get`, each failure in the words the client reports it.
pub(super) fn get_scale(state: &State, namespace: &str, reference: &Value) -> Result<Scale, String> {
    let text = |key: &str| reference[key].as_str().unwrap_or_default();
    let (group, kind, name) = (parse_group(text("apiVersion"))?, text("kind"), text("name"));
    let info = rest_mapping(state, group, kind);
    let info = info.ok_or_else(|| format!("no matches for kind {kind:?} in group {group:?}"))?;
    if info.scale.is_none() || !info.namespaced {
        // A built-in without `/scale` has no route; the custom resource handler answers NotFound.
        if info.builtin || !info.namespaced {
            return Err(NOT_FOUND.to_owned());
        }
        return Err(format!("{} \"{name}\" not found", info.group_resource()));
    }
    let Some(target) = state.object(&info, Some(namespace), name) else {
        // The scale storages of Deployments, ReplicaSets and ReplicationControllers name
        // themselves in their NotFound; StatefulSets' and custom resources' pass the store's on.
        let resource = match (info.builtin, info.plural.as_str()) {
            (true, "deployments" | "replicasets") => format!("{}/scale.apps", info.plural),
            (true, "replicationcontrollers") => "replicationcontrollers/scale.autoscaling".to_owned(),
            _ => info.group_resource(),
        };
        return Err(format!("{resource} \"{name}\" not found"));
    };
    // What the scale storage answers the scale client's Get.
    let view = scale_view::view(&info, &target);
    let replicas = view.pointer("/spec/replicas").and_then(Value::as_i64).unwrap_or(0);
    let selector = view
        .pointer("/status/selector")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    Ok(Scale {
        info,
        target,
        replicas,
        selector,
    })
}

/// `Scales().Update`: the target's replicas written through its `/scale`.
pub(super) fn write_scale(state: &mut State, scale: &Scale, desired: i64) -> Result<(), String> {
    let paths = scale.info.scale.as_ref().ok_or_else(|| NOT_FOUND.to_owned())?;
    let (mut updated, manager) = ((*scale.target).clone(), Some(CONTROLLER_MANAGER));
    object::set_field(&mut updated, &paths.spec_replicas, json!(desired));
    let written = state.update_object(&scale.info, scale.target.clone(), updated, manager, Some("scale"));
    written.map(|_| ()).map_err(|status| status.message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_api_version_should_name_its_group_as_go_parses_it() {
        assert_eq!(
            (parse_group("apps/v1"), parse_group("v1"), parse_group("")),
            (Ok("apps"), Ok(""), Ok(""))
        );
        assert!(parse_group("a/b/c").is_err());
    }
}
