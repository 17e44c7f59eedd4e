//! Webhook configurations decoded as kube-apiserver decodes them
//! (`pkg/apis/admissionregistration/v1/defaults.go`: `SetDefaults_ValidatingWebhook`,
//! `SetDefaults_MutatingWebhook`, `SetDefaults_Rule`, `SetDefaults_ServiceReference`), with
//! the fields their Go types write even when empty.

use serde_json::{Value, json};

use super::default;

/// Every webhook of a configuration defaulted: fail closed, equivalent matching, empty
/// selectors, a 10 second timeout, a mutating hook never reinvoked; each rule's scope `*`, a
/// service's port 443.
pub(crate) fn configuration(object: &mut Value, mutating: bool) {
    let hooks = object.get_mut("webhooks").and_then(Value::as_array_mut);
    for hook in hooks.into_iter().flatten() {
        default(hook, "failurePolicy", json!("Fail"));
        default(hook, "matchPolicy", json!("Equivalent"));
        default(hook, "namespaceSelector", json!({}));
        default(hook, "objectSelector", json!({}));
        default(hook, "timeoutSeconds", json!(10));
        if mutating {
            default(hook, "reinvocationPolicy", json!("Never"));
        }
        // Written without `omitempty`: the name, the client config, the side effects and the
        // review versions (null when unset).
        default(hook, "name", json!(""));
        default(hook, "clientConfig", json!({}));
        if let Some(map) = hook.as_object_mut() {
            map.entry("sideEffects").or_insert(Value::Null);
            map.entry("admissionReviewVersions").or_insert(Value::Null);
        }
        let rules = hook.get_mut("rules").and_then(Value::as_array_mut);
        for rule in rules.into_iter().flatten() {
            default(rule, "scope", json!("*"));
        }
        if let Some(service) = hook.pointer_mut("/clientConfig/service").filter(|s| s.is_object()) {
            default(service, "namespace", json!(""));
            default(service, "name", json!(""));
            default(service, "port", json!(443));
        }
        let conditions = hook.get_mut("matchConditions").and_then(Value::as_array_mut);
        for condition in conditions.into_iter().flatten() {
            default(condition, "name", json!(""));
            default(condition, "expression", json!(""));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn webhooks_should_be_defaulted_as_go_defaults_them() {
        let mut config = json!({"webhooks": [{
            "name": "a.b.c", "clientConfig": {"service": {"namespace": "n", "name": "s"}},
            "rules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"]}],
        }]});
        configuration(&mut config, true);
        assert_eq!(
            config["webhooks"][0],
            json!({
                "name": "a.b.c", "clientConfig": {"service": {"namespace": "n", "name": "s", "port": 443}},
                "rules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"], "scope": "*"}],
                "failurePolicy": "Fail", "matchPolicy": "Equivalent", "namespaceSelector": {}, "objectSelector": {},
                "timeoutSeconds": 10, "reinvocationPolicy": "Never", "sideEffects": null, "admissionReviewVersions": null,
            })
        );
    }
}
