//! What kube-apiserver's admission plugins and the pod strategy do to a new pod, in the order
//! of `AllOrderedPlugins` (`pkg/kubeapiserver/options/plugins.go`). Mutating, before the pod is
//! validated: ServiceAccount (`plugin/pkg/admission/serviceaccount`: the `default` service
//! account, refused when it does not exist, its token mounted through a projected volume in
//! every container unless automounting is off, its image pull secrets), Priority
//! (`priority_admission`), DefaultTolerationSeconds (the not-ready and unreachable NoExecute
//! tolerations for 300 s), RuntimeClass (`runtime_class_admission`). Validating, after it was:
//! RuntimeClass's overhead check. Then `pkg/registry/core/pod/strategy.go`'s `PrepareForCreate`
//! gives it a `Pending` status with its QoS class. An update only keeps the stored priority.

use serde_json::{Map, Value, json};

use crate::lifecycle::{priority_admission, runtime_class_admission};
use crate::status::ApiStatus;
use crate::storage::State;
use crate::storage::object;
use crate::storage::resource::ResourceInfo;

/// Where the token volume is mounted (`DefaultAPITokenMountPath`).
const TOKEN_MOUNT_PATH: &str = "/var/run/secrets/kubernetes.io/serviceaccount";

/// The tolerations `DefaultTolerationSeconds` adds, unless the pod tolerates those taints.
const DEFAULT_TOLERATIONS: &[&str] = &["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"];

/// Whether `info` is the Pods resource.
pub(super) fn concerns(info: &ResourceInfo) -> bool {
    info.builtin && info.group.is_empty() && info.plural == "pods"
}

/// The mutating admission of a new pod in `namespace`, on the Kubernetes `minor`, or its
/// refusal as the plugins refuse it (403).
pub(super) fn mutate_create(
    state: &State,
    info: &ResourceInfo,
    namespace: &str,
    pod: &mut Value,
    minor: u32,
) -> Result<(), ApiStatus> {
    let name = object::name(pod).to_owned();
    let Some(spec) = pod.get_mut("spec").and_then(Value::as_object_mut) else {
        return Ok(());
    };
    admit_service_account(state, namespace, spec).map_err(|why| forbidden(info, &name, &why))?;
    priority_admission::admit_create(&priority_admission::stored_classes(state), spec)
        .map_err(|why| forbidden(info, &name, &why))?;
    add_default_tolerations(spec);
    if let Some(class) =
        runtime_class_admission::runtime_class(state, spec).map_err(|why| forbidden(info, &name, &why))?
    {
        runtime_class_admission::admit(&class, spec, minor).map_err(|why| forbidden(info, &name, &why))?;
    }
    Ok(())
}

/// The validating admission of a new pod (after it was validated), then the strategy's status.
pub(super) fn admit_create(state: &State, info: &ResourceInfo, pod: &mut Value) -> Result<(), ApiStatus> {
    let name = object::name(pod);
    let Some((spec, fields)) = pod.get("spec").and_then(|s| Some((s, s.as_object()?))) else {
        return Ok(());
    };
    let class = runtime_class_admission::runtime_class(state, fields).map_err(|why| forbidden(info, name, &why))?;
    runtime_class_admission::validate(class.as_deref(), spec).map_err(|why| forbidden(info, name, &why))?;
    let qos = qos_class(spec);
    let gated = spec
        .get("schedulingGates")
        .and_then(Value::as_array)
        .is_some_and(|gates| !gates.is_empty());
    pod["status"] = json!({ "phase": "Pending", "qosClass": qos });
    if gated {
        pod["status"]["conditions"] = json!([scheduling_gated(state.options.minor())]);
    }
    Ok(())
}

/// The `PodScheduled` condition of a pod created with scheduling gates
/// (`applySchedulingGatedCondition` in `pkg/registry/core/pod/strategy.go`): appended with no
/// times before 1.31 (`applyWaitingForSchedulingGatesCondition`), through `UpdatePodCondition`,
/// which stamps the transition, from 1.31.
fn scheduling_gated(minor: u32) -> Value {
    let transition = if minor >= 31 { json!(object::now()) } else { Value::Null };
    json!({
        "type": "PodScheduled", "status": "False", "lastProbeTime": null, "lastTransitionTime": transition,
        "reason": "SchedulingGated", "message": "Scheduling is blocked due to non-empty scheduling gates",
    })
}

/// The mutating admission of a pod update (not of a subresource): Priority keeps the stored
/// priority and preemption policy the update omits.
pub(super) fn mutate_update(pod: &mut Value, old: &Value) {
    if let (Some(spec), Some(old_spec)) = (pod.get_mut("spec").and_then(Value::as_object_mut), old.get("spec")) {
        priority_admission::admit_update(spec, old_spec);
    }
}

/// Whether the pod is admitted with the `default` ServiceAccount of its namespace and that is
/// missing. The ServiceAccount plugin looks it up again for about a second then
/// (`getServiceAccount`: 10 tries for the default account), the time the service account
/// controller takes to make it in a new namespace.
pub(super) fn needs_default_account(state: &State, pod: &Value) -> bool {
    let named = pod
        .pointer("/spec/serviceAccountName")
        .and_then(Value::as_str)
        .is_some_and(|account| !account.is_empty() && account != "default");
    let accounts = state.info("", "v1", "serviceaccounts");
    !named
        && state
            .object(&accounts, Some(object::namespace(pod)), "default")
            .is_none()
}

/// ServiceAccount's `Admit`: the pod's service account (`default` unless named) must exist;
/// its token is mounted unless the pod or the account turns automounting off, and its image
/// pull secrets given to a pod without any.
fn admit_service_account(state: &State, namespace: &str, spec: &mut Map<String, Value>) -> Result<(), String> {
    let account_name = match spec.get("serviceAccountName").and_then(Value::as_str) {
        Some(account) if !account.is_empty() => account.to_owned(),
        _ => "default".to_owned(),
    };
    spec.insert("serviceAccountName".to_owned(), json!(account_name));
    spec.insert("serviceAccount".to_owned(), json!(account_name));
    let accounts = state.info("", "v1", "serviceaccounts");
    let Some(account) = state.object(&accounts, Some(namespace), &account_name) else {
        return Err(format!(
            "error looking up service account {namespace}/{account_name}: serviceaccount \"{account_name}\" not found"
        ));
    };
    let automount = spec
        .get("automountServiceAccountToken")
        .and_then(Value::as_bool)
        .or_else(|| account.get("automountServiceAccountToken").and_then(Value::as_bool))
        .unwrap_or(true);
    if automount {
        mount_token(spec);
    }
    let pull_secrets = spec
        .get("imagePullSecrets")
        .and_then(Value::as_array)
        .is_some_and(|s| !s.is_empty());
    if let Some(secrets) = account
        .get("imagePullSecrets")
        .and_then(Value::as_array)
        .filter(|s| !s.is_empty() && !pull_secrets)
    {
        let names: Vec<Value> = secrets
            .iter()
            .map(|s| json!({ "name": s.get("name").cloned().unwrap_or_default() }))
            .collect();
        spec.insert("imagePullSecrets".to_owned(), Value::Array(names));
    }
    Ok(())
}

/// `admission.NewForbidden`: `pods "name" is forbidden: <why>`.
fn forbidden(info: &ResourceInfo, name: &str, why: &str) -> ApiStatus {
    let mut status = ApiStatus::forbidden(format!("{} {name:?} is forbidden: {why}", info.plural));
    status.details = Some(json!({ "name": name, "kind": info.plural }));
    status
}

/// `mountServiceAccountToken`: a `kube-api-access-<suffix>` projected volume, mounted in every
/// regular and init container that mounts nothing at the token path.
fn mount_token(spec: &mut Map<String, Value>) {
    let existing = spec
        .get("volumes")
        .and_then(Value::as_array)
        .and_then(|v| {
            v.iter().find_map(|v| {
                v.get("name")
                    .and_then(Value::as_str)
                    .filter(|n| n.starts_with("kube-api-access-"))
            })
        })
        .map(str::to_owned);
    let volume = existing
        .clone()
        .unwrap_or_else(|| format!("kube-api-access-{}", crate::semantics::names::generated_suffix()));
    let mut needed = false;
    for list in ["initContainers", "containers"] {
        for container in spec.get_mut(list).and_then(Value::as_array_mut).into_iter().flatten() {
            let mounts = container.get("volumeMounts").and_then(Value::as_array);
            if mounts
                .into_iter()
                .flatten()
                .any(|m| m.get("mountPath").and_then(Value::as_str) == Some(TOKEN_MOUNT_PATH))
            {
                continue;
            }
            if !container.get("volumeMounts").is_some_and(Value::is_array) {
                container["volumeMounts"] = json!([]);
            }
            if let Some(mounts) = container["volumeMounts"].as_array_mut() {
                mounts.push(json!({ "name": volume, "readOnly": true, "mountPath": TOKEN_MOUNT_PATH }));
                needed = true;
            }
        }
    }
    if existing.is_none() && needed {
        let volumes = spec.entry("volumes").or_insert_with(|| json!([]));
        if let Some(volumes) = volumes.as_array_mut() {
            volumes.push(json!({
                "name": volume,
                "projected": {
                    "sources": [
                        { "serviceAccountToken": { "expirationSeconds": 3607, "path": "token" } },
                        { "configMap": { "name": "kube-root-ca.crt", "items": [{ "key": "ca.crt", "path": "ca.crt" }] } },
                        { "downwardAPI": { "items": [{ "path": "namespace", "fieldRef": { "apiVersion": "v1", "fieldPath": "metadata.namespace" } }] } },
                    ],
                    "defaultMode": 420,
                },
            }));
        }
    }
}

/// `DefaultTolerationSeconds`: tolerate not-ready and unreachable nodes for 300 s, unless the
/// pod already tolerates them (a toleration of any key, or of that key with NoExecute or any
/// effect).
fn add_default_tolerations(spec: &mut Map<String, Value>) {
    let tolerations = spec.entry("tolerations").or_insert_with(|| json!([]));
    let Some(list) = tolerations.as_array_mut() else { return };
    for key in DEFAULT_TOLERATIONS {
        let tolerated = list.iter().any(|t| {
            let text = |k: &str| t.get(k).and_then(Value::as_str).unwrap_or_default();
            let key_matches = text("key") == *key || (text("key").is_empty() && text("operator") == "Exists");
            key_matches && (text("effect").is_empty() || text("effect") == "NoExecute")
        });
        if !tolerated {
            list.push(json!({ "key": key, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300 }));
        }
    }
}

/// `qos.GetPodQOS`: BestEffort without requests or limits, Guaranteed when every container's
/// CPU and memory limits equal its requests, Burstable otherwise.
pub(super) fn qos_class(spec: &Value) -> &'static str {
    let containers: Vec<&Value> = ["containers", "initContainers"]
        .iter()
        .flat_map(|list| spec.get(*list).and_then(Value::as_array).into_iter().flatten())
        .collect();
    let section = |c: &Value, key: &str| {
        c.pointer(&format!("/resources/{key}"))
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default()
    };
    let relevant = |name: &str| name == "cpu" || name == "memory";
    let any = containers.iter().any(|c| {
        section(c, "requests")
            .keys()
            .chain(section(c, "limits").keys())
            .any(|k| relevant(k))
    });
    if !any {
        return "BestEffort";
    }
    let guaranteed = containers.iter().all(|c| {
        let (limits, requests) = (section(c, "limits"), section(c, "requests"));
        ["cpu", "memory"]
            .iter()
            .all(|r| limits.get(*r).is_some() && limits.get(*r) == requests.get(*r).or(limits.get(*r)))
    });
    if guaranteed { "Guaranteed" } else { "Burstable" }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qos_should_follow_requests_and_limits() {
        let spec = |resources: Value| json!({"containers": [{"name": "c", "resources": resources}]});
        assert_eq!(qos_class(&spec(json!({}))), "BestEffort");
        let equal = json!({"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "1", "memory": "1Gi"}});
        assert_eq!(qos_class(&spec(equal)), "Guaranteed");
        assert_eq!(qos_class(&spec(json!({"requests": {"cpu": "1"}}))), "Burstable");
    }

    #[test]
    fn default_tolerations_should_be_added_once() {
        let mut spec = Map::new();
        add_default_tolerations(&mut spec);
        add_default_tolerations(&mut spec);
        assert_eq!(spec["tolerations"].as_array().unwrap().len(), 2);
        let mut token = json!({"containers": [{"name": "c"}]});
        mount_token(token.as_object_mut().unwrap());
        assert_eq!(token["containers"][0]["volumeMounts"][0]["mountPath"], TOKEN_MOUNT_PATH);
        assert!(
            token["volumes"][0]["name"]
                .as_str()
                .unwrap()
                .starts_with("kube-api-access-")
        );
    }
}
