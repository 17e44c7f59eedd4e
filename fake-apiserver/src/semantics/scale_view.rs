//! The `autoscaling/v1` Scale view of an object with a `/scale` subresource, as the scale
//! storages of kube-apiserver write it (`pkg/registry/apps/deployment/storage`,
//! `replicaset/storage`, `core/replicationcontroller/storage`, apiextensions' `ScaleREST`): the
//! desired and current replicas and the selector by the resource's scale paths. The `/scale`
//! verbs answer with it, and the horizontal pod autoscaler's scale client reads it.

use serde_json::{Value, json};

use crate::semantics::selector::label_selector_text;
use crate::storage::object;
use crate::storage::resource::ResourceInfo;

/// The `autoscaling/v1` `Scale` view of an object.
pub(crate) fn view(info: &ResourceInfo, object: &Value) -> Value {
    let paths = info.scale.as_ref().expect("route checked the scale subresource");
    let replicas = |path: &str| object::field(object, path).cloned().unwrap_or(json!(0));
    // A ReplicationController selects by a plain label map, which its scale storage writes as
    // `labels.SelectorFromSet(...).String()`: `k=v` pairs sorted by key.
    let set_selector = info.builtin && info.group.is_empty() && info.kind == "ReplicationController";
    let selector = paths
        .label_selector
        .as_deref()
        .and_then(|p| object::field(object, p))
        .map(|s| {
            if set_selector {
                set_selector_text(s)
            } else {
                label_selector_text(s)
            }
        });
    let meta = object.get("metadata").cloned().unwrap_or_default();
    let pick = |key: &str| meta.get(key).cloned().unwrap_or(Value::Null);
    let mut scale = json!({
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": {
            "name": pick("name"), "namespace": pick("namespace"), "uid": pick("uid"),
            "resourceVersion": pick("resourceVersion"), "creationTimestamp": pick("creationTimestamp"),
        },
        "spec": { "replicas": replicas(&paths.spec_replicas) },
        "status": { "replicas": replicas(&paths.status_replicas) },
    });
    if let Some(selector) = selector {
        scale["status"]["selector"] = json!(selector);
    }
    // `ScaleSpec.replicas` is omitempty: zero replicas are an empty spec.
    if scale["spec"]["replicas"] == json!(0) {
        scale["spec"] = json!({});
    }
    scale
}

/// `labels.SelectorFromSet(map).String()`.
fn set_selector_text(selector: &Value) -> String {
    let mut pairs: Vec<String> = selector
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default()))
        .collect();
    pairs.sort();
    pairs.join(",")
}
