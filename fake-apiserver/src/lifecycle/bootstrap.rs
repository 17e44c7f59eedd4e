//! What a fresh cluster holds before anyone writes to it, and what every new namespace gets:
//! kube-apiserver's `default/kubernetes` Service (`pkg/controlplane/controller/kubernetesservice`),
//! system PriorityClasses (`pkg/registry/scheduling/rest/storage_scheduling.go`) and bootstrap
//! RBAC policy (`plugin/pkg/auth/authorizer/rbac/bootstrappolicy`, as
//! kube-apiserver v1.28.7 stored it, with the aggregated roles' rules filled in by
//! kube-controller-manager's `clusterrole-aggregation` controller); kube-controller-manager's
//! `default` ServiceAccount (`pkg/controller/serviceaccount`) and `kube-root-ca.crt` ConfigMap
//! (`pkg/controller/certificates/rootcacertpublisher`) in each namespace; the API Priority and
//! Fairness objects of kube-apiserver's `priority-and-fairness-config-producer` post-start hook
//! (`pkg/registry/flowcontrol/rest/storage_flowcontrol.go`, `semantics/flowcontrol_bootstrap`).

use std::sync::Arc;

use serde_json::{Value, json};

use crate::lifecycle::writes::Writes;
use crate::semantics::{flowcontrol_bootstrap, priorityclass};
use crate::storage::State;
use crate::storage::resource::ResourceInfo;

/// The bootstrap ClusterRoles, ClusterRoleBindings, Roles and RoleBindings kube-apiserver
/// v1.28.7 creates, recorded from one (labelled `kubernetes.io/bootstrapping: rbac-defaults`).
const BOOTSTRAP_RBAC: &str = include_str!("bootstrap/rbac.json");

/// The cluster's CA certificate, published in every namespace (a fixed one: no client of this
/// server verifies it, but tools read it as a certificate).
pub(super) const ROOT_CA: &str = include_str!("bootstrap/ca.crt");

/// The port the `kubernetes` Service forwards to: kube-apiserver's secure port.
const APISERVER_PORT: u16 = 6443;

/// The field manager kube-apiserver's own controllers write with.
pub(crate) const APISERVER_MANAGER: &str = "kube-apiserver";
/// The field manager of kube-controller-manager's controllers.
pub(crate) const CONTROLLER_MANAGER: &str = "kube-controller-manager";

/// The objects kube-apiserver creates at start, with the manager that writes each.
pub(crate) fn cluster_objects() -> Vec<Value> {
    let mut objects = vec![json!({
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {
            "name": "kubernetes",
            "namespace": "default",
            "labels": { "component": "apiserver", "provider": "kubernetes" },
        },
        "spec": {
            "type": "ClusterIP",
            "clusterIP": "10.96.0.1",
            "ipFamilyPolicy": "SingleStack",
            "ports": [{ "name": "https", "port": 443, "protocol": "TCP", "targetPort": APISERVER_PORT }],
            "sessionAffinity": "None",
        },
    })];
    objects.extend(policy().iter().cloned());
    // The scheduling storage's post-start hook.
    objects.extend(priorityclass::system_classes());
    objects
}

/// The field manager of the APF config producer (`ensurer/strategy.go`).
const APF_PRODUCER_MANAGER: &str = "api-priority-and-fairness-config-producer-v1";

/// The config producer's `ensure` at start: every suggested, then every mandatory
/// PriorityLevelConfiguration and FlowSchema that is missing is created, through the version
/// its client speaks; the configuration controller then gives each FlowSchema its `Dangling`
/// condition (`lifecycle/apf_controller`). Not emulated: its reconciliation every minute after
/// start, which re-creates a deleted bootstrap object, puts back the spec of one still
/// annotated `apf.kubernetes.io/autoupdate-spec: "true"`, and deletes annotated objects that
/// bootstrap no longer lists.
pub(crate) fn produce_apf_configuration(state: &mut State) {
    for object in flowcontrol_bootstrap::objects(state.options.minor()) {
        let api_version = object.get("apiVersion").and_then(Value::as_str).unwrap_or_default();
        let kind = object
            .get("kind")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let Some(info) = state.registry.by_kind(api_version, &kind).cloned() else {
            continue;
        };
        let name = crate::storage::object::name(&object).to_owned();
        // `EnsureConfiguration` creates only what is missing.
        if state.object(&info, None, &name).is_some() {
            continue;
        }
        if let Err(status) = state.create_object(&info, None, object, Some(APF_PRODUCER_MANAGER)) {
            tracing::warn!(kind, name, %status, "a bootstrap APF object was refused");
        }
    }
}

/// The bootstrap RBAC policy, parsed once. kube-apiserver writes the aggregated roles without
/// rules: those are the aggregation controller's to fill in.
fn policy() -> &'static [Value] {
    static POLICY: std::sync::OnceLock<Vec<Value>> = std::sync::OnceLock::new();
    POLICY.get_or_init(|| match serde_json::from_str::<Vec<Value>>(BOOTSTRAP_RBAC) {
        Ok(rbac) => rbac
            .into_iter()
            .map(|mut role| {
                if role.get("aggregationRule").is_some()
                    && let Some(fields) = role.as_object_mut()
                {
                    fields.remove("rules");
                }
                role
            })
            .collect(),
        // The file is part of the crate; a broken one fails the tests that read the policy.
        Err(error) => {
            tracing::error!(%error, "the bootstrap RBAC policy does not parse");
            Vec::new()
        }
    })
}

/// Whether a write to this object is one the namespace's controllers undo: the `default`
/// ServiceAccount (recreated when deleted) and `kube-root-ca.crt` (its data published again).
pub(super) fn concerns(info: &ResourceInfo, object: &Value) -> bool {
    let name = crate::storage::object::name(object);
    info.builtin
        && info.group.is_empty()
        && ((info.plural == "serviceaccounts" && name == "default")
            || (info.plural == "configmaps" && name == ROOT_CA_NAME))
}

/// The ConfigMap every namespace gets with the cluster's CA.
const ROOT_CA_NAME: &str = "kube-root-ca.crt";

/// kube-controller-manager's reaction to a new namespace: its `default` ServiceAccount and
/// the `kube-root-ca.crt` ConfigMap, each created unless present (a user may have made them).
pub(super) fn populate_namespace(state: &mut State, namespace: &str) {
    if !state.options.bootstrap {
        return;
    }
    let namespace_info = state.info("", "v1", "namespaces");
    let live = state
        .object(&namespace_info, None, namespace)
        .is_some_and(|ns| !crate::storage::object::is_deleting(&ns));
    if !live {
        return;
    }
    let service_account = json!({
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": { "name": "default", "namespace": namespace },
    });
    let root_ca = json!({
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": ROOT_CA_NAME,
            "namespace": namespace,
            "annotations": {
                "kubernetes.io/description": "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters."
            },
        },
        "data": { "ca.crt": ROOT_CA },
    });
    for (plural, object) in [("serviceaccounts", service_account), ("configmaps", root_ca)] {
        let info: Arc<ResourceInfo> = state.info("", "v1", plural);
        let name = crate::storage::object::name(&object).to_owned();
        let written = match state.object(&info, Some(namespace), &name) {
            None => state.create_object(&info, Some(namespace), object, Some(CONTROLLER_MANAGER)),
            // The publisher puts its data back, and only its data.
            Some(current) if plural == "configmaps" && current.get("data") != object.get("data") => {
                let mut updated = (*current).clone();
                updated["data"] = object["data"].clone();
                state.update_object(&info, current, updated, Some(CONTROLLER_MANAGER), None)
            }
            Some(current) => Ok(current),
        };
        if let Err(status) = written {
            tracing::warn!(namespace, name, %status, "could not populate the namespace");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bootstrap_policy_should_hold_the_roles_clients_expect() {
        let objects = cluster_objects();
        let named = |kind: &str, name: &str| {
            objects
                .iter()
                .any(|o| o["kind"] == kind && o["metadata"]["name"] == name)
        };
        assert!(named("Service", "kubernetes"));
        for role in [
            "cluster-admin",
            "admin",
            "edit",
            "view",
            "system:discovery",
            "system:basic-user",
        ] {
            assert!(named("ClusterRole", role), "{role}");
        }
        assert!(named("ClusterRoleBinding", "cluster-admin"));
        assert_eq!(objects.iter().filter(|o| o["kind"] == "ClusterRole").count(), 62);
    }
}
