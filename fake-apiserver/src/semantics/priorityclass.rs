//! PriorityClasses as kube-apiserver serves them: `SetDefaults_PriorityClass`
//! (`pkg/apis/scheduling/v1/defaults.go`), `ValidatePriorityClass` and
//! `ValidatePriorityClassUpdate` (`pkg/apis/scheduling/validation/validation.go`, with
//! `IsKnownSystemPriorityClass` of `pkg/apis/scheduling/v1/helpers.go` and core's
//! `ValidatePreemptionPolicy`), the system classes the scheduling storage's post-start hook
//! creates (`SystemPriorityClasses`) and its `Delete`, which refuses them
//! (`pkg/registry/scheduling/priorityclass/storage/storage.go`).

use serde_json::{Value, json};

use crate::semantics::field_error::{BadValue, FieldError};
use crate::status::ApiStatus;
use crate::storage::resource::ResourceInfo;

/// `HighestUserDefinablePriority`: larger values are the system's.
const HIGHEST_USER_DEFINABLE: i64 = 1_000_000_000;
/// `SystemCriticalPriority`.
const SYSTEM_CRITICAL: i64 = 2 * HIGHEST_USER_DEFINABLE;
/// `SystemPriorityClassPrefix`: names reserved for the system classes.
const SYSTEM_PREFIX: &str = "system-";

/// `systemPriorityClasses`: name, value and description, in the order they are created.
const SYSTEM_CLASSES: [(&str, i64, &str); 2] = [
    (
        "system-node-critical",
        SYSTEM_CRITICAL + 1000,
        "Used for system critical pods that must not be moved from their current node.",
    ),
    (
        "system-cluster-critical",
        SYSTEM_CRITICAL,
        "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.",
    ),
];

/// Whether `info` is the PriorityClass resource.
pub(crate) fn concerns(info: &ResourceInfo) -> bool {
    info.builtin && info.group == "scheduling.k8s.io" && info.kind == "PriorityClass"
}

/// The system priority classes as the post-start hook sends them.
pub(crate) fn system_classes() -> Vec<Value> {
    SYSTEM_CLASSES
        .iter()
        .map(|(name, value, description)| {
            json!({
                "apiVersion": "scheduling.k8s.io/v1",
                "kind": "PriorityClass",
                "metadata": {"name": name},
                "value": value,
                "description": description,
            })
        })
        .collect()
}

/// The storage's `Delete`: a system class is refused before anything else is looked at.
pub(crate) fn check_delete(info: &ResourceInfo, name: &str) -> Result<(), ApiStatus> {
    if concerns(info) && SYSTEM_CLASSES.iter().any(|(system, ..)| *system == name) {
        return Err(ApiStatus::forbidden_object(
            info,
            name,
            "this is a system priority class and cannot be deleted",
        ));
    }
    Ok(())
}

/// `SetDefaults_PriorityClass`: classes preempt lower priorities unless told otherwise.
pub(crate) fn set_defaults(class: &mut Value) {
    if let Some(fields) = class.as_object_mut()
        && fields.get("preemptionPolicy").is_none_or(Value::is_null)
    {
        fields.insert("preemptionPolicy".to_owned(), json!("PreemptLowerPriority"));
    }
}

fn value(class: &Value) -> i64 {
    class.get("value").and_then(Value::as_i64).unwrap_or_default()
}

/// `IsKnownSystemPriorityClass`: why a `system-` class is not one of the system's.
fn unknown_system_class(name: &str, value: i64, global_default: bool) -> Option<String> {
    let Some((_, expected, _)) = SYSTEM_CLASSES.iter().find(|(system, ..)| *system == name) else {
        return Some(format!("{name} is not a known system priority class"));
    };
    if *expected != value {
        return Some(format!("value of {name} PriorityClass must be {expected}"));
    }
    // No system class is the global default.
    global_default.then(|| format!("globalDefault of {name} PriorityClass must be false"))
}

/// `ValidatePriorityClass` less metadata: a `system-` name only for the system classes as
/// they are, no user value above a billion, a known preemption policy.
pub(crate) fn create_errors(class: &Value) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let name = crate::storage::object::name(class);
    let global_default = class.get("globalDefault").and_then(Value::as_bool).unwrap_or_default();
    if name.starts_with(SYSTEM_PREFIX) {
        if let Some(why) = unknown_system_class(name, value(class), global_default) {
            errors.push(FieldError::forbidden(
                "metadata.name",
                format!(
                    "priority class names with '{SYSTEM_PREFIX}' prefix are reserved for system use only. error: {why}"
                ),
            ));
        }
    } else if value(class) > HIGHEST_USER_DEFINABLE {
        errors.push(FieldError::forbidden(
            "value",
            format!("maximum allowed value of a user defined priority is {HIGHEST_USER_DEFINABLE}"),
        ));
    }
    if let Some(policy) = class.get("preemptionPolicy").filter(|p| !p.is_null()) {
        let policy = policy.as_str().unwrap_or_default();
        match policy {
            "PreemptLowerPriority" | "Never" => {}
            "" => errors.push(FieldError::required("preemptionPolicy", "")),
            other => errors.push(FieldError::not_supported(
                "preemptionPolicy",
                other.into(),
                &["PreemptLowerPriority".to_owned(), "Never".to_owned()],
            )),
        }
    }
    errors
}

/// `ValidatePriorityClassUpdate` less metadata: value and preemption policy are immutable
/// (the rest of the class is not validated again).
pub(crate) fn update_errors(class: &Value, old: &Value) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if value(class) != value(old) {
        errors.push(FieldError::forbidden("value", "may not be changed in an update."));
    }
    let policy = |class: &Value| class.get("preemptionPolicy").filter(|p| !p.is_null()).cloned();
    let new_policy = policy(class);
    if new_policy != policy(old) {
        // `ValidateImmutableField` prints the new pointer's value, or null.
        let shown = match &new_policy {
            Some(Value::String(text)) => BadValue::Str(text.clone()),
            _ => BadValue::Json(Value::Null),
        };
        errors.push(FieldError::invalid("preemptionPolicy", shown, "field is immutable"));
    }
    errors
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::semantics::field_error::rendered;

    #[test]
    fn system_names_should_be_reserved_for_the_system_classes() {
        let class = |name: &str, value: i64| json!({"metadata": {"name": name}, "value": value});
        assert!(create_errors(&class("system-node-critical", 2_000_001_000)).is_empty());
        assert_eq!(
            rendered(create_errors(&class("system-node-critical", 5))),
            [
                "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: value of system-node-critical PriorityClass must be 2000001000"
            ]
        );
        assert_eq!(
            rendered(create_errors(&class("system-mine", 5))),
            [
                "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class"
            ]
        );
        let mut global = class("system-cluster-critical", 2_000_000_000);
        global["globalDefault"] = json!(true);
        assert!(
            rendered(create_errors(&global))[0]
                .ends_with("globalDefault of system-cluster-critical PriorityClass must be false")
        );
        assert_eq!(
            rendered(create_errors(&class("high", 1_000_000_001))),
            ["value: Forbidden: maximum allowed value of a user defined priority is 1000000000"]
        );
    }

    #[test]
    fn preemption_policies_should_be_known_and_defaulted() {
        let mut class = json!({"metadata": {"name": "a"}, "value": 1});
        set_defaults(&mut class);
        assert_eq!(class["preemptionPolicy"], "PreemptLowerPriority");
        class["preemptionPolicy"] = json!("Sometimes");
        assert_eq!(
            rendered(create_errors(&class)),
            [
                "preemptionPolicy: Unsupported value: \"Sometimes\": supported values: \"PreemptLowerPriority\", \"Never\""
            ]
        );
        class["preemptionPolicy"] = json!("");
        assert_eq!(rendered(create_errors(&class)), ["preemptionPolicy: Required value"]);
    }

    #[test]
    fn value_and_policy_should_be_immutable() {
        let old = json!({"value": 1, "preemptionPolicy": "Never"});
        let new = json!({"value": 2, "preemptionPolicy": "PreemptLowerPriority", "description": "x"});
        assert_eq!(
            rendered(update_errors(&new, &old)),
            [
                "value: Forbidden: may not be changed in an update.",
                "preemptionPolicy: Invalid value: \"PreemptLowerPriority\": field is immutable",
            ]
        );
    }

    #[test]
    fn system_classes_should_not_be_deleted() {
        let info = ResourceInfo::builtin("scheduling.k8s.io", "v1", "PriorityClass", "priorityclasses");
        assert!(check_delete(&info, "mine").is_ok());
        let refused = check_delete(&info, "system-node-critical").unwrap_err();
        assert_eq!(refused.code, 403);
        assert_eq!(system_classes().len(), 2);
    }
}
