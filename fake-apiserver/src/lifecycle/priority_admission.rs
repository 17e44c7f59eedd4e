//! The Priority admission plugin (`plugin/pkg/admission/priority/admission.go`, the same on 1.28
//! and 1.31). Its mutating half (`Admit`, `admitPod`) resolves a new pod's
//! `priorityClassName` to the class's value and preemption policy — the global default class
//! when the pod names none (`getDefaultPriorityClass`: the lowest-valued of the global defaults),
//! else priority 0 and `PreemptLowerPriority` — refusing an unknown class and a priority or
//! policy the pod gives that the class contradicts; on an update it keeps what the stored pod
//! had. Its validating half (`Validate`, `validatePriorityClass`) allows one global default
//! class. Only Pods are admitted, never a pod template; subresources are ignored.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::status::ApiStatus;
use crate::storage::State;
use crate::storage::object;
use crate::storage::resource::ResourceInfo;

/// `scheduling.DefaultPriorityWhenNoDefaultClassExists`.
const DEFAULT_PRIORITY: i64 = 0;

/// The stored PriorityClasses: what the plugin's lister holds.
pub(super) fn stored_classes(state: &State) -> Vec<Arc<Value>> {
    let info = state.info("scheduling.k8s.io", "v1", "priorityclasses");
    state
        .store
        .iter(&info.storage_key(), None)
        .map(|(_, class)| class.clone())
        .collect()
}

fn value(class: &Value) -> i64 {
    class.get("value").and_then(Value::as_i64).unwrap_or_default()
}

fn is_global_default(class: &Value) -> bool {
    class.get("globalDefault").and_then(Value::as_bool).unwrap_or_default()
}

/// `getDefaultPriorityClass`: of the global default classes (more than one only through a
/// race), the one of lowest value.
fn default_class(classes: &[Arc<Value>]) -> Option<&Value> {
    classes
        .iter()
        .map(AsRef::as_ref)
        .filter(|class| is_global_default(class))
        .fold(None, |lowest: Option<&Value>, class| match lowest {
            Some(lowest) if value(lowest) <= value(class) => Some(lowest),
            _ => Some(class),
        })
}

/// `admitPod` for a create, with the stored `classes`: sets the pod spec's priority (and class
/// name and preemption policy when they come from a class), or says why the pod is forbidden.
pub(super) fn admit_create(classes: &[Arc<Value>], spec: &mut Map<String, Value>) -> Result<(), String> {
    let class_name = spec
        .get("priorityClassName")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let (priority, policy) = if class_name.is_empty() {
        match default_class(classes) {
            Some(class) => {
                spec.insert("priorityClassName".to_owned(), json!(object::name(class)));
                (value(class), class.get("preemptionPolicy").cloned())
            }
            None => (DEFAULT_PRIORITY, Some(json!("PreemptLowerPriority"))),
        }
    } else {
        let Some(class) = classes.iter().find(|class| object::name(class) == class_name) else {
            return Err(format!("no PriorityClass with name {class_name} was found"));
        };
        (value(class), class.get("preemptionPolicy").cloned())
    };
    if let Some(given) = spec.get("priority").and_then(Value::as_i64)
        && given != priority
    {
        return Err(format!(
            "the integer value of priority ({given}) must not be provided in pod spec; priority admission controller computed {priority} from the given PriorityClass name"
        ));
    }
    spec.insert("priority".to_owned(), json!(priority));
    if let Some(policy) = policy.filter(|p| !p.is_null()) {
        let computed = policy.as_str().unwrap_or_default();
        if let Some(given) = spec.get("preemptionPolicy").and_then(Value::as_str)
            && given != computed
        {
            return Err(format!(
                "the string value of PreemptionPolicy ({given}) must not be provided in pod spec; priority admission controller computed {computed} from the given PriorityClass name"
            ));
        }
        spec.insert("preemptionPolicy".to_owned(), policy);
    }
    Ok(())
}

/// `admitPod` for an update: a pod that omits its priority or preemption policy keeps the
/// stored one (validation refuses any other change).
pub(super) fn admit_update(spec: &mut Map<String, Value>, old_spec: &Value) {
    for key in ["priority", "preemptionPolicy"] {
        if spec.get(key).is_none_or(Value::is_null)
            && let Some(kept) = old_spec.get(key).filter(|v| !v.is_null())
        {
            spec.insert(key.to_owned(), kept.clone());
        }
    }
}

/// `validatePriorityClass`, with the stored `classes`: a class marked global default, while
/// another one is already, is refused — on create always, on update unless it is that class.
fn validate_class(classes: &[Arc<Value>], class: &Value, updating: bool) -> Result<(), String> {
    if !is_global_default(class) {
        return Ok(());
    }
    match default_class(classes) {
        Some(existing) if !updating || object::name(existing) != object::name(class) => Err(format!(
            "PriorityClass {} is already marked as default. Only one default can exist",
            object::name(existing)
        )),
        _ => Ok(()),
    }
}

/// The plugin's validation of a PriorityClass being created or `updating`, refused with 403.
pub(super) fn admit_class(state: &State, info: &ResourceInfo, class: &Value, updating: bool) -> Result<(), ApiStatus> {
    validate_class(&stored_classes(state), class, updating)
        .map_err(|why| ApiStatus::forbidden_object(info, object::name(class), &why))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(name: &str, value: i64, global_default: bool, policy: &str) -> Arc<Value> {
        Arc::new(
            json!({"metadata": {"name": name}, "value": value, "globalDefault": global_default, "preemptionPolicy": policy}),
        )
    }

    fn spec(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn a_pod_should_get_its_class_priority_or_the_default() {
        let classes = [class("high", 1000, false, "Never")];
        let mut pod = spec(json!({"priorityClassName": "high"}));
        admit_create(&classes, &mut pod).unwrap();
        assert_eq!(
            Value::Object(pod),
            json!({"priorityClassName": "high", "priority": 1000, "preemptionPolicy": "Never"})
        );
        let mut plain = spec(json!({}));
        admit_create(&classes, &mut plain).unwrap();
        assert_eq!(
            Value::Object(plain),
            json!({"priority": 0, "preemptionPolicy": "PreemptLowerPriority"})
        );
        let mut unknown = spec(json!({"priorityClassName": "Bad_Class"}));
        assert_eq!(
            admit_create(&classes, &mut unknown).unwrap_err(),
            "no PriorityClass with name Bad_Class was found"
        );
        let mut given = spec(json!({"priorityClassName": "high", "priority": 5}));
        assert_eq!(
            admit_create(&classes, &mut given).unwrap_err(),
            "the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name"
        );
        let mut policy = spec(json!({"priorityClassName": "high", "preemptionPolicy": "PreemptLowerPriority"}));
        assert_eq!(
            admit_create(&classes, &mut policy).unwrap_err(),
            "the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in pod spec; priority admission controller computed Never from the given PriorityClass name"
        );
    }

    #[test]
    fn the_lowest_global_default_should_apply_and_be_the_only_one() {
        let classes = [
            class("b", 20, true, "Never"),
            class("a", 10, true, "PreemptLowerPriority"),
        ];
        let mut pod = spec(json!({}));
        admit_create(&classes, &mut pod).unwrap();
        assert_eq!(
            Value::Object(pod),
            json!({"priorityClassName": "a", "priority": 10, "preemptionPolicy": "PreemptLowerPriority"})
        );
        let another = class("c", 1, true, "Never");
        assert_eq!(
            validate_class(&classes, &another, false).unwrap_err(),
            "PriorityClass a is already marked as default. Only one default can exist"
        );
        assert!(validate_class(&classes, &class("a", 10, true, "Never"), true).is_ok());
        assert!(validate_class(&classes, &class("c", 1, false, "Never"), false).is_ok());
        assert!(validate_class(&[], &another, false).is_ok());
    }

    #[test]
    fn an_update_should_keep_the_stored_priority() {
        let mut pod = spec(json!({"priority": null}));
        admit_update(&mut pod, &json!({"priority": 7, "preemptionPolicy": "Never"}));
        assert_eq!(Value::Object(pod), json!({"priority": 7, "preemptionPolicy": "Never"}));
    }
}
