//! The RuntimeClass admission plugin (`plugin/pkg/admission/runtimeclass/admission.go`) for new
//! Pods (never a pod template): `prepareObjects` refuses a class that does not exist;
//! mutating, `setOverhead` gives the pod the class's fixed overhead (refusing a different one
//! the pod sets: on 1.28 any overhead set, on 1.31 a non-empty one) and `setScheduling` adds the
//! class's node selector (refusing a conflicting pod value) and tolerations
//! (`MergeTolerations` of `pkg/util/tolerations`); validating, after the pod was validated,
//! `validateOverhead` refuses an overhead that is not the class's.

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::semantics::field_error::go_quote;
use crate::semantics::resource_list::ResourceList;
use crate::storage::State;

const OVERHEAD_MISMATCH: &str = "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead";

/// `prepareObjects`: the RuntimeClass the pod spec names, none when it names none, or why the
/// pod is forbidden.
pub(super) fn runtime_class(state: &State, spec: &Map<String, Value>) -> Result<Option<Arc<Value>>, String> {
    let Some(name) = spec.get("runtimeClassName").and_then(Value::as_str) else {
        return Ok(None);
    };
    let info = state.info("node.k8s.io", "v1", "runtimeclasses");
    match state.object(&info, None, name) {
        Some(class) => Ok(Some(class)),
        None => Err(format!("pod rejected: RuntimeClass {} not found", go_quote(name))),
    }
}

/// The class's `overhead.podFixed`, when it defines an overhead at all.
fn pod_fixed(class: &Value) -> Option<Option<&Value>> {
    let overhead = class.get("overhead").filter(|o| !o.is_null())?;
    Some(overhead.get("podFixed").filter(|f| !f.is_null()))
}

/// `apiequality.Semantic.DeepEqual` of two resource lists: empty equals absent, and quantities
/// compare by value.
fn same_resources(a: Option<&Value>, b: Option<&Value>) -> bool {
    ResourceList::from_json(a).equals(&ResourceList::from_json(b))
}

/// `Admit`: `setOverhead`, then `setScheduling`, of the pod spec `spec` run by `class`, on the
/// Kubernetes `minor`.
pub(super) fn admit(class: &Value, spec: &mut Map<String, Value>, minor: u32) -> Result<(), String> {
    if let Some(fixed) = pod_fixed(class) {
        let given = spec.get("overhead").filter(|o| !o.is_null());
        let set = if minor >= 31 {
            given.and_then(Value::as_object).is_some_and(|o| !o.is_empty())
        } else {
            given.is_some()
        };
        if set && !same_resources(fixed, given) {
            return Err(OVERHEAD_MISMATCH.to_owned());
        }
        match fixed {
            Some(fixed) => spec.insert("overhead".to_owned(), fixed.clone()),
            None => spec.remove("overhead"),
        };
    }
    let Some(scheduling) = class.get("scheduling").filter(|s| !s.is_null()) else {
        return Ok(());
    };
    let required = scheduling.get("nodeSelector").and_then(Value::as_object);
    match spec.get_mut("nodeSelector").and_then(Value::as_object_mut) {
        None => match required {
            Some(required) => spec.insert("nodeSelector".to_owned(), Value::Object(required.clone())),
            None => spec.remove("nodeSelector"),
        },
        Some(selector) => {
            for (key, wanted) in required.into_iter().flatten() {
                if let Some(had) = selector.get(key).filter(|had| *had != wanted) {
                    let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
                    return Err(format!(
                        "conflict: runtimeClass.scheduling.nodeSelector[{key}] = {}; pod.spec.nodeSelector[{key}] = {}",
                        text(wanted),
                        text(had)
                    ));
                }
                selector.insert(key.clone(), wanted.clone());
            }
            None
        }
    };
    let list = |value: Option<&Value>| value.and_then(Value::as_array).cloned().unwrap_or_default();
    let merged = merge_tolerations(list(spec.get("tolerations")), list(scheduling.get("tolerations")));
    if merged.is_empty() {
        spec.remove("tolerations");
    } else {
        spec.insert("tolerations".to_owned(), Value::Array(merged));
    }
    Ok(())
}

/// `Validate`'s `validateOverhead`: the pod's overhead is exactly the class's, or there is none
/// without a class that defines one.
pub(super) fn validate(class: Option<&Value>, spec: &Value) -> Result<(), String> {
    let given = spec.get("overhead").filter(|o| !o.is_null());
    match class.and_then(pod_fixed) {
        Some(fixed) if !same_resources(fixed, given) => Err(OVERHEAD_MISMATCH.to_owned()),
        Some(_) => Ok(()),
        None if given.is_some() => {
            Err("pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead".to_owned())
        }
        None => Ok(()),
    }
}

/// A toleration's fields as the internal `core.Toleration` holds them.
#[derive(PartialEq)]
struct Toleration<'a> {
    key: &'a str,
    operator: &'a str,
    value: &'a str,
    effect: &'a str,
    seconds: Option<i64>,
}

impl<'a> Toleration<'a> {
    fn of(toleration: &'a Value) -> Self {
        let text = |key: &str| toleration.get(key).and_then(Value::as_str).unwrap_or_default();
        Self {
            key: text("key"),
            operator: text("operator"),
            value: text("value"),
            effect: text("effect"),
            seconds: toleration.get("tolerationSeconds").and_then(Value::as_i64),
        }
    }

    /// `isSuperset`: whether tolerating `self` tolerates everything `t` does.
    fn is_superset(&self, t: &Self) -> bool {
        if self == t {
            return true;
        }
        if t.key != self.key && (!self.key.is_empty() || self.operator != "Exists") {
            return false;
        }
        if t.effect != self.effect && !self.effect.is_empty() {
            return false;
        }
        if self.effect == "NoExecute"
            && let Some(limit) = self.seconds
            && t.seconds.is_none_or(|seconds| seconds > limit)
        {
            return false;
        }
        match self.operator {
            // Only an explicit Equal matches: Go compares the operator as written.
            "Equal" | "" => t.operator == "Equal" && t.value == self.value,
            "Exists" => true,
            _ => false,
        }
    }
}

/// `MergeTolerations`: `first` then `second`, less each toleration another one already kept, or
/// a different later one, covers.
fn merge_tolerations(first: Vec<Value>, second: Vec<Value>) -> Vec<Value> {
    let all: Vec<Value> = first.into_iter().chain(second).collect();
    let mut merged: Vec<Value> = Vec::new();
    for (i, toleration) in all.iter().enumerate() {
        let t = Toleration::of(toleration);
        let kept = merged.iter().any(|m| Toleration::of(m).is_superset(&t));
        let later = all[i + 1..]
            .iter()
            .map(Toleration::of)
            .any(|l| l != t && l.is_superset(&t));
        if !kept && !later {
            merged.push(toleration.clone());
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn spec(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn the_class_overhead_should_be_given_and_kept() {
        let class = json!({"overhead": {"podFixed": {"cpu": "250m", "memory": "64Mi"}}});
        let mut pod = spec(json!({}));
        admit(&class, &mut pod, 28).unwrap();
        assert_eq!(pod["overhead"], json!({"cpu": "250m", "memory": "64Mi"}));
        assert!(validate(Some(&class), &Value::Object(pod.clone())).is_ok());
        let mut same = spec(json!({"overhead": {"cpu": "0.25", "memory": "64Mi"}}));
        assert!(admit(&class, &mut same, 28).is_ok());
        let mut other = spec(json!({"overhead": {"cpu": "1"}}));
        assert_eq!(admit(&class, &mut other, 28).unwrap_err(), OVERHEAD_MISMATCH);
        // An empty overhead is set on 1.28, not on 1.31.
        assert_eq!(
            admit(&class, &mut spec(json!({"overhead": {}})), 28).unwrap_err(),
            OVERHEAD_MISMATCH
        );
        assert!(admit(&class, &mut spec(json!({"overhead": {}})), 31).is_ok());
        assert_eq!(
            validate(None, &json!({"overhead": {"cpu": "1"}})).unwrap_err(),
            "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead"
        );
        assert_eq!(validate(Some(&class), &json!({})).unwrap_err(), OVERHEAD_MISMATCH);
        assert!(validate(Some(&json!({})), &json!({})).is_ok());
    }

    #[test]
    fn the_class_scheduling_should_join_the_pod_selector_and_tolerations() {
        let class = json!({"scheduling": {"nodeSelector": {"sandbox": "yes"},
            "tolerations": [{"key": "sandbox", "operator": "Exists"}, {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}]}});
        let mut pod = spec(
            json!({"tolerations": [{"key": "sandbox", "operator": "Equal", "value": "a", "effect": "NoSchedule"}]}),
        );
        admit(&class, &mut pod, 31).unwrap();
        assert_eq!(pod["nodeSelector"], json!({"sandbox": "yes"}));
        assert_eq!(
            pod["tolerations"],
            json!([{"key": "sandbox", "operator": "Exists"}, {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}])
        );
        let mut conflict = spec(json!({"nodeSelector": {"sandbox": "no", "zone": "a"}}));
        assert_eq!(
            admit(&class, &mut conflict, 31).unwrap_err(),
            "conflict: runtimeClass.scheduling.nodeSelector[sandbox] = yes; pod.spec.nodeSelector[sandbox] = no"
        );
        let mut joined = spec(json!({"nodeSelector": {"zone": "a"}}));
        admit(&class, &mut joined, 31).unwrap();
        assert_eq!(joined["nodeSelector"], json!({"sandbox": "yes", "zone": "a"}));
    }

    #[test]
    fn tolerations_should_merge_without_redundant_ones() {
        let longer = json!({"key": "k", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 600});
        let shorter = json!({"key": "k", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60});
        // Tolerating longer covers tolerating for less time, whichever list it came from.
        assert_eq!(
            merge_tolerations(vec![longer.clone()], vec![shorter.clone()]),
            std::slice::from_ref(&longer)
        );
        assert_eq!(merge_tolerations(vec![shorter], vec![longer.clone()]), [longer]);
        let implicit = json!({"key": "k", "value": "v"});
        let explicit = json!({"key": "k", "operator": "Equal", "value": "v"});
        assert_eq!(
            merge_tolerations(vec![implicit.clone()], vec![implicit.clone()]),
            std::slice::from_ref(&implicit)
        );
        // An empty operator means Equal for the covering toleration, but Go compares the covered
        // one's operator as written.
        assert!(Toleration::of(&implicit).is_superset(&Toleration::of(&explicit)));
        assert!(!Toleration::of(&explicit).is_superset(&Toleration::of(&implicit)));
        assert_eq!(merge_tolerations(vec![explicit], vec![implicit.clone()]), [implicit]);
        assert!(merge_tolerations(Vec::new(), Vec::new()).is_empty());
    }
}
