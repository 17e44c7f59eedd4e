//! What the strategies of Namespaces and ServiceAccounts change before validation
//! (`pkg/registry/core/namespace/strategy.go`, `pkg/registry/core/serviceaccount/strategy.go`):
//! a new namespace is Active with the `kubernetes` finalizer added to its own; an update keeps
//! the stored finalizers and status, a `/status` write the stored spec (and the metadata sent),
//! a `/finalize` write the stored status; a service account's secret references are cut to
//! their names.

use serde_json::{Value, json};

use crate::storage::resource::ResourceInfo;

const KUBERNETES_FINALIZER: &str = "kubernetes";

/// Whether `info` is the core kind `kind`.
fn is(info: &ResourceInfo, kind: &str) -> bool {
    info.builtin && info.group.is_empty() && info.kind == kind
}

/// `PrepareForCreate` of the kinds here.
pub(crate) fn prepare_create(info: &ResourceInfo, object: &mut Value) {
    if is(info, "Namespace") {
        object["status"] = json!({ "phase": "Active" });
        if !object.get("spec").is_some_and(Value::is_object) {
            object["spec"] = json!({});
        }
        let spec = &mut object["spec"];
        let mut finalizers: Vec<Value> = spec
            .get("finalizers")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        if !finalizers.iter().any(|f| f == KUBERNETES_FINALIZER) {
            finalizers.push(json!(KUBERNETES_FINALIZER));
        }
        spec["finalizers"] = Value::Array(finalizers);
    } else if is(info, "ServiceAccount") {
        clean_secret_references(object);
    }
}

/// `PrepareForUpdate` of the kinds here, through `subresource`: whether they handled it (the
/// generic status handling is then skipped).
pub(crate) fn prepare_update(info: &ResourceInfo, old: &Value, new: &mut Value, subresource: Option<&str>) -> bool {
    if is(info, "ServiceAccount") && subresource.is_none() {
        clean_secret_references(new);
        return false;
    }
    if !is(info, "Namespace") {
        return false;
    }
    let keep = |new: &mut Value, field: &str| match old.get(field) {
        Some(value) => new[field] = value.clone(),
        None => {
            if let Some(fields) = new.as_object_mut() {
                fields.remove(field);
            }
        }
    };
    match subresource {
        None => {
            keep(new, "status");
            let finalizers = old.pointer("/spec/finalizers").cloned();
            if !new.get("spec").is_some_and(Value::is_object) {
                new["spec"] = json!({});
            }
            match finalizers {
                Some(finalizers) => new["spec"]["finalizers"] = finalizers,
                None => {
                    if let Some(spec) = new["spec"].as_object_mut() {
                        spec.remove("finalizers");
                    }
                }
            }
        }
        Some("status") => keep(new, "spec"),
        Some("finalize") => {
            keep(new, "status");
            // An empty list is written as none (`omitempty`).
            if let Some(spec) = new.get_mut("spec").and_then(Value::as_object_mut)
                && spec
                    .get("finalizers")
                    .and_then(Value::as_array)
                    .is_some_and(Vec::is_empty)
            {
                spec.remove("finalizers");
            }
        }
        Some(_) => return false,
    }
    true
}

/// `cleanSecretReferences`: each reference is its name alone.
fn clean_secret_references(account: &mut Value) {
    for secret in account
        .get_mut("secrets")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
    {
        let name = secret.get("name").cloned();
        *secret = match name {
            Some(name) => json!({ "name": name }),
            None => json!({}),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn namespaces() -> ResourceInfo {
        ResourceInfo::builtin("", "v1", "Namespace", "namespaces")
    }

    #[test]
    fn a_new_namespace_keeps_its_finalizers_and_gets_kubernetes() {
        let mut ns = json!({"metadata": {"name": "a"}, "spec": {"finalizers": ["example.com/keep"]}, "status": {"phase": "Terminating"}});
        prepare_create(&namespaces(), &mut ns);
        assert_eq!(ns["spec"]["finalizers"], json!(["example.com/keep", "kubernetes"]));
        assert_eq!(ns["status"], json!({"phase": "Active"}));
    }

    #[test]
    fn updates_keep_what_their_path_does_not_change() {
        let old = json!({"metadata": {"labels": {"a": "b"}}, "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}});
        let mut update = json!({"metadata": {}, "spec": {"finalizers": ["foo"]}, "status": {"phase": "Terminating"}});
        assert!(prepare_update(&namespaces(), &old, &mut update, None));
        assert_eq!(update["spec"]["finalizers"], json!(["kubernetes"]));
        assert_eq!(update["status"]["phase"], "Active");
        let mut status = json!({"metadata": {}, "spec": {"finalizers": ["foo"]}, "status": {"phase": "Terminating"}});
        prepare_update(&namespaces(), &old, &mut status, Some("status"));
        assert_eq!(
            (status["spec"].clone(), status["status"]["phase"].clone()),
            (old["spec"].clone(), json!("Terminating"))
        );
        assert_eq!(status["metadata"], json!({}), "a /status write keeps the metadata sent");
    }

    #[test]
    fn secret_references_are_cut_to_names() {
        let accounts = ResourceInfo::builtin("", "v1", "ServiceAccount", "serviceaccounts");
        let mut account = json!({"secrets": [{"name": "one", "namespace": "x", "uid": "1", "kind": "Secret"}]});
        prepare_create(&accounts, &mut account);
        assert_eq!(account["secrets"], json!([{"name": "one"}]));
    }
}
