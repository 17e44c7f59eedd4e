//! What a built-in kind's status strategy (`PrepareForUpdate` of the `*StatusStrategy` types in
//! `pkg/registry/*/*/strategy.go` and kube-aggregator's `apiservice/strategy.go`) takes back
//! from the stored object besides spec: most take nothing else, so the labels, annotations and
//! finalizers a `/status` write sends are stored.

use serde_json::Value;

use crate::storage::object::meta_mut;
use crate::storage::resource::ResourceInfo;

/// The metadata fields the kind's status strategy copies from the stored object.
fn kept_metadata(info: &ResourceInfo) -> &'static [&'static str] {
    match (info.group.as_str(), info.kind.as_str()) {
        ("apps", "Deployment") => &["labels"],
        // Old kubelets corrupted owner references through `/status`, breaking garbage collection.
        ("", "Pod") => &["ownerReferences"],
        // `metav1.ResetObjectMetaForStatus`; the flowcontrol status strategies take the whole
        // stored `ObjectMeta` back but the managed fields.
        ("apiregistration.k8s.io", "APIService")
        | ("storage.k8s.io", "VolumeAttachment")
        | ("flowcontrol.apiserver.k8s.io", "FlowSchema" | "PriorityLevelConfiguration") => {
            &["labels", "annotations", "finalizers", "ownerReferences"]
        }
        _ => &[],
    }
}

/// Resets in `new`, a `/status` write of `old` whose spec is already the stored one, what the
/// kind's status strategy takes from `old`.
pub(crate) fn reset(info: &ResourceInfo, old: &Value, new: &mut Value) {
    let stored = old.get("metadata").and_then(Value::as_object);
    let meta = meta_mut(new);
    for field in kept_metadata(info) {
        match stored.and_then(|m| m.get(*field)) {
            Some(value) => meta.insert((*field).to_owned(), value.clone()),
            None => meta.remove(*field),
        };
    }
    // `nodeStatusStrategy`: a node's `status.config` is kept only while the stored node reports
    // one (dynamic kubelet configuration is gone).
    if info.group.is_empty()
        && info.kind == "Node"
        && old.pointer("/status/config").is_none()
        && let Some(status) = new.get_mut("status").and_then(Value::as_object_mut)
    {
        status.remove("config");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn deployments_should_keep_stored_labels_and_take_the_rest() {
        let info = ResourceInfo::builtin("apps", "v1", "Deployment", "deployments");
        let old = json!({"metadata": {"labels": {"a": "1"}}});
        let mut new = json!({"metadata": {"labels": {"b": "2"}, "annotations": {"n": "x"}}});
        reset(&info, &old, &mut new);
        assert_eq!(
            new["metadata"],
            json!({"labels": {"a": "1"}, "annotations": {"n": "x"}})
        );
    }

    #[test]
    fn pods_should_keep_stored_owner_references_even_when_there_were_none() {
        let info = ResourceInfo::builtin("", "v1", "Pod", "pods");
        let mut new = json!({"metadata": {"labels": {"b": "2"}, "ownerReferences": [{"name": "o"}]}});
        reset(&info, &json!({"metadata": {}}), &mut new);
        assert_eq!(new["metadata"], json!({"labels": {"b": "2"}}));
    }

    #[test]
    fn a_node_should_report_config_only_while_it_had_one() {
        let info = ResourceInfo::builtin("", "v1", "Node", "nodes");
        let mut new = json!({"metadata": {}, "status": {"config": {"active": {}}, "phase": "Running"}});
        reset(&info, &json!({"status": {}}), &mut new);
        assert_eq!(new["status"], json!({"phase": "Running"}));
        let mut again = json!({"metadata": {}, "status": {"config": {"active": {}}}});
        reset(&info, &json!({"status": {"config": {}}}), &mut again);
        assert_eq!(again["status"], json!({"config": {"active": {}}}));
    }
}
