//! What kube-apiserver's admission plugins and the pod strategy add to a new pod
//! (`plugin/pkg/admission/serviceaccount`, `defaulttolerationseconds`, `priority`;
//! `pkg/registry/core/pod/strategy.go`'s `PrepareForCreate`): the `default` service account,
//! refused when it does not exist, its token mounted through a projected volume in every
//! container unless automounting is off, its image pull secrets; the not-ready and unreachable
//! NoExecute tolerations for 300 s; priority 0 and `PreemptLowerPriority` without a priority
//! class; and a `Pending` status with the pod's QoS class.

use serde_json::{Value, json};

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

/// Admits a new pod in `namespace`, or refuses it as the plugins refuse it (403).
pub(super) fn admit_create(
    state: &State,
    info: &ResourceInfo,
    namespace: &str,
    pod: &mut Value,
) -> Result<(), ApiStatus> {
    let name = object::name(pod).to_owned();
    let Some(spec) = pod.get_mut("spec").and_then(Value::as_object_mut) else {
        return Ok(());
    };
    let account_name = match spec.get("serviceAccountName").and_then(Value::as_str) {
        Some(account) if !account.is_empty() => account.to_owned(),
        _ => "default".to_owned(),
    };
    spec.insert("serviceAccountName".to_owned(), json!(account_name));
    spec.insert("serviceAccount".to_owned(), json!(account_name));
    let accounts = state.info("", "v1", "serviceaccounts");
    let Some(account) = state.object(&accounts, Some(namespace), &account_name) else {
        return Err(forbidden(
            info,
            &name,
            &format!(
                "error looking up service account {namespace}/{account_name}: serviceaccount \"{account_name}\" not found"
            ),
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
    add_default_tolerations(spec);
    if spec
        .get("priorityClassName")
        .and_then(Value::as_str)
        .is_none_or(str::is_empty)
    {
        if let Some(priority) = spec.get("priority").and_then(Value::as_i64).filter(|p| *p != 0) {
            return Err(forbidden(
                info,
                &name,
                &format!(
                    "the integer value of priority ({priority}) must not be provided in pod spec; priority admission controller computed 0 from the given PriorityClass name"
                ),
            ));
        }
        spec.insert("priority".to_owned(), json!(0));
        spec.entry("preemptionPolicy")
            .or_insert_with(|| json!("PreemptLowerPriority"));
    }
    let qos = qos_class(&Value::Object(spec.clone()));
    pod["status"] = json!({ "phase": "Pending", "qosClass": qos });
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
fn mount_token(spec: &mut serde_json::Map<String, Value>) {
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
fn add_default_tolerations(spec: &mut serde_json::Map<String, Value>) {
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
fn qos_class(spec: &Value) -> &'static str {
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
        let mut spec = serde_json::Map::new();
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
