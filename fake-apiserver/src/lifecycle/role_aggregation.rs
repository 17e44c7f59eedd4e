//! kube-controller-manager's `clusterrole-aggregation` controller
//! (`pkg/controller/clusterroleaggregation`): a ClusterRole with an `aggregationRule` holds the
//! rules of every other ClusterRole its selectors pick (by name within each selector, each rule
//! once), applied by the controller's own field manager whenever a ClusterRole changes.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::lifecycle::writes::Writes;
use crate::semantics::selector::{LabelSelector, label_selector_text};
use crate::storage::State;
use crate::storage::object;
use crate::storage::resource::ResourceInfo;

/// The field manager the controller applies with.
const MANAGER: &str = "clusterrole-aggregation-controller";

/// Whether a write to `info` may change what the aggregated ClusterRoles hold.
pub(super) fn concerns(info: &ResourceInfo) -> bool {
    info.group == "rbac.authorization.k8s.io" && info.plural == "clusterroles"
}

/// Brings every aggregated ClusterRole's rules up to date.
pub(super) fn aggregate(state: &mut State) {
    let info: Arc<ResourceInfo> = state.info("rbac.authorization.k8s.io", "v1", "clusterroles");
    let roles: Vec<Arc<Value>> = state
        .store
        .iter(&info.storage_key(), None)
        .map(|(_, role)| role.clone())
        .collect();
    for role in roles.iter().filter(|r| r.get("aggregationRule").is_some()) {
        let rules = aggregated_rules(role, &roles);
        if role.get("rules").unwrap_or(&json!([])) == &Value::Array(rules.clone()) {
            continue;
        }
        let name = object::name(role).to_owned();
        let config = json!({
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRole",
            "metadata": { "name": name },
            "rules": rules,
        });
        if let Err(status) = state.apply_object(&info, None, &name, config, MANAGER, None) {
            tracing::warn!(role = name, %status, "could not aggregate the ClusterRole");
        }
    }
}

/// `syncClusterRole`'s rules: for each selector, the selected roles by name, their rules once.
fn aggregated_rules(role: &Value, roles: &[Arc<Value>]) -> Vec<Value> {
    let mut rules: Vec<Value> = Vec::new();
    let selectors = role
        .pointer("/aggregationRule/clusterRoleSelectors")
        .and_then(Value::as_array);
    for selector in selectors.into_iter().flatten() {
        let Ok(selector) = LabelSelector::parse(&label_selector_text(selector)) else {
            continue;
        };
        let mut selected: Vec<&Arc<Value>> = roles
            .iter()
            .filter(|r| object::name(r) != object::name(role))
            .filter(|r| selector.matches(r.pointer("/metadata/labels").and_then(Value::as_object)))
            .collect();
        selected.sort_by_key(|r| object::name(r).to_owned());
        for rule in selected
            .iter()
            .flat_map(|r| r.get("rules").and_then(Value::as_array).into_iter().flatten())
        {
            if !rules.contains(rule) {
                rules.push(rule.clone());
            }
        }
    }
    rules
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn rules_should_come_from_selected_roles_by_name_each_once() {
        let rule = |r: &str| json!({"apiGroups": [""], "resources": [r], "verbs": ["get"]});
        let role = |name: &str, label: Option<&str>, rules: Vec<Value>| {
            let labels = label.map(|l| json!({ l: "true" })).unwrap_or(json!({}));
            Arc::new(json!({"metadata": {"name": name, "labels": labels}, "rules": rules}))
        };
        let view = Arc::new(json!({
            "metadata": {"name": "view"},
            "aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {"to-view": "true"}}]}
        }));
        let roles = vec![
            view.clone(),
            role("b", Some("to-view"), vec![rule("pods"), rule("secrets")]),
            role("a", Some("to-view"), vec![rule("pods")]),
            role("c", None, vec![rule("nodes")]),
        ];
        assert_eq!(aggregated_rules(&view, &roles), vec![rule("pods"), rule("secrets")]);
    }
}
