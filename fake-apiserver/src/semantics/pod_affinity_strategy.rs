//! What 1.31's pod strategy does to a new pod's affinity before validating it
//! (`pkg/registry/core/pod/strategy.go`: `PrepareForCreate` calls `mutatePodAffinity`, with
//! `applyMatchLabelKeysAndMismatchLabelKeys` and `applyLabelKeysToLabelSelector`, under the
//! MatchLabelKeysInPodAffinity gate, beta and on in 1.31; 1.28's terms have no label keys):
//! each pod affinity and anti-affinity term with a label selector gets a `key In (value)`
//! expression per `matchLabelKeys` key and a `key NotIn (value)` one per `mismatchLabelKeys`
//! key, with the value of the pod's own label (a key the pod has no label for adds nothing).
//! Templates are not changed: only a pod knows its labels.

use serde_json::{Map, Value, json};

use crate::storage::object;
use crate::storage::resource::ResourceInfo;

/// Whether `info` is the Pods resource.
fn concerns(info: &ResourceInfo) -> bool {
    info.builtin && info.group.is_empty() && info.kind == "Pod"
}

/// `mutatePodAffinity` of a new pod on the Kubernetes `minor`.
pub(crate) fn prepare_create(info: &ResourceInfo, pod: &mut Value, minor: u32) {
    if !concerns(info) || minor < 31 {
        return;
    }
    let labels = object::labels(pod).cloned().unwrap_or_default();
    let Some(affinity) = pod.pointer_mut("/spec/affinity").filter(|a| !a.is_null()) else {
        return;
    };
    for kind in ["podAffinity", "podAntiAffinity"] {
        let Some(terms) = affinity.get_mut(kind).filter(|t| !t.is_null()) else {
            continue;
        };
        // Go does the preferred terms first; the order does not change what each gets.
        let preferred = "preferredDuringSchedulingIgnoredDuringExecution";
        for weighted in list_mut(terms, preferred) {
            if let Some(term) = weighted.get_mut("podAffinityTerm") {
                apply_label_keys(term, &labels);
            }
        }
        for term in list_mut(terms, "requiredDuringSchedulingIgnoredDuringExecution") {
            apply_label_keys(term, &labels);
        }
    }
}

/// `applyMatchLabelKeysAndMismatchLabelKeys`: a term without keys, or without a selector
/// (which matches nothing anyway), is left alone.
fn apply_label_keys(term: &mut Value, labels: &Map<String, Value>) {
    let keys = |field: &str| object::string_list(term.get(field));
    let (matched, mismatched) = (keys("matchLabelKeys"), keys("mismatchLabelKeys"));
    if matched.is_empty() && mismatched.is_empty() {
        return;
    }
    let Some(selector) = term.get_mut("labelSelector").and_then(Value::as_object_mut) else {
        return;
    };
    let mut added = Vec::new();
    for (keys, operator) in [(&matched, "In"), (&mismatched, "NotIn")] {
        // `applyLabelKeysToLabelSelector`.
        for key in keys {
            if let Some(value) = labels.get(key) {
                added.push(json!({"key": key, "operator": operator, "values": [value]}));
            }
        }
    }
    if added.is_empty() {
        return;
    }
    let expressions = selector
        .entry("matchExpressions")
        .or_insert_with(|| Value::Array(Vec::new()));
    if let Some(expressions) = expressions.as_array_mut() {
        expressions.extend(added);
    } else {
        *expressions = Value::Array(added);
    }
}

fn list_mut<'v>(value: &'v mut Value, key: &str) -> impl Iterator<Item = &'v mut Value> {
    value.get_mut(key).and_then(Value::as_array_mut).into_iter().flatten()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn pods() -> ResourceInfo {
        ResourceInfo::builtin("", "v1", "Pod", "pods")
    }

    #[test]
    fn label_keys_should_become_expressions_on_1_31_pods() {
        let mut pod = json!({"metadata": {"labels": {"app": "web", "ver": "2"}}, "spec": {"affinity": {
            "podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {"topologyKey": "zone", "matchLabelKeys": ["ver", "absent"], "mismatchLabelKeys": ["app"],
                        "labelSelector": {"matchLabels": {"app": "web"}}},
                    {"topologyKey": "zone", "matchLabelKeys": ["ver"]}],
                "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "podAffinityTerm":
                    {"topologyKey": "zone", "matchLabelKeys": ["app"], "labelSelector": {"matchExpressions": [{"key": "x", "operator": "Exists"}]}}}]}}}});
        let before = pod.clone();
        prepare_create(&pods(), &mut pod, 28);
        assert_eq!(pod, before);
        prepare_create(&pods(), &mut pod, 31);
        let anti = &pod["spec"]["affinity"]["podAntiAffinity"];
        assert_eq!(
            anti["requiredDuringSchedulingIgnoredDuringExecution"][0]["labelSelector"],
            json!({"matchLabels": {"app": "web"}, "matchExpressions": [
                {"key": "ver", "operator": "In", "values": ["2"]},
                {"key": "app", "operator": "NotIn", "values": ["web"]}]})
        );
        // No selector: nothing to add to.
        assert!(
            anti["requiredDuringSchedulingIgnoredDuringExecution"][1]
                .get("labelSelector")
                .is_none()
        );
        assert_eq!(
            anti["preferredDuringSchedulingIgnoredDuringExecution"][0]["podAffinityTerm"]["labelSelector"]["matchExpressions"],
            json!([{"key": "x", "operator": "Exists"}, {"key": "app", "operator": "In", "values": ["web"]}])
        );
    }
}
