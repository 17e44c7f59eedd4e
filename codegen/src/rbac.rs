//! RBAC manifests from `+kubebuilder:rbac:` markers in a crate's `//!` docs, as controller-gen's
//! `rbac` generator makes them: a ClusterRole for the markers without `namespace=`, a Role per
//! namespace for the others; rules that name the same groups, resources and resource names are
//! merged, then rules with the same verbs share one rule; everything sorted, so the output is
//! deterministic. Wildcards are refused: a controller's role grants what it uses.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use crate::SourceDiagnostic;
use crate::diag::{Diagnostic, Diagnostics};
use crate::markers::{self, Marker, Target, Value as MarkerValue};
use crate::symbol::{self, arg};
use crate::tags::tags;

/// One rule's target: API groups, resources and resource names (or non-resource URLs).
type RuleKey = (Vec<String>, Vec<String>, Vec<String>, Vec<String>);

/// Rules that may share one rule: groups, resource names, URLs and verbs.
type SharedKey = (Vec<String>, Vec<String>, Vec<String>, BTreeSet<String>);

/// The Role and ClusterRole objects (as JSON) the `+kubebuilder:rbac` markers in the `//!` docs
/// of `files` ask for, named `role_name`; every problem is reported with the index of its file.
pub fn roles(files: &[syn::File], role_name: &str) -> Result<Vec<Value>, Vec<SourceDiagnostic>> {
    let mut problems = Vec::new();
    // namespace ("" for the ClusterRole) → rule key → verbs
    let mut scopes: BTreeMap<String, BTreeMap<RuleKey, BTreeSet<String>>> = BTreeMap::new();
    for (index, file) in files.iter().enumerate() {
        let mut diagnostics = Diagnostics::default();
        for tag in tags(&file.attrs).iter().filter(|t| t.key.starts_with(symbol::RBAC)) {
            let Some(marker) = markers::parse(tag, Target::Package, &mut diagnostics) else {
                continue;
            };
            if let Some((namespace, key, verbs)) = rule(&marker, &mut diagnostics) {
                scopes
                    .entry(namespace)
                    .or_default()
                    .entry(key)
                    .or_default()
                    .extend(verbs);
            }
        }
        problems.extend(diagnostics.into_vec().into_iter().map(|d| (index, d)));
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    Ok(scopes
        .into_iter()
        .map(|(namespace, rules)| role(role_name, &namespace, rules))
        .collect())
}

fn rule(marker: &Marker, diagnostics: &mut Diagnostics) -> Option<(String, RuleKey, Vec<String>)> {
    let list = |name: &str| -> Vec<String> {
        match marker.args.get(name) {
            Some(MarkerValue::List(items)) => items.iter().map(|i| i.trim().to_owned()).collect(),
            Some(MarkerValue::String(one)) => vec![one.trim().to_owned()],
            _ => Vec::new(),
        }
    };
    let (groups, resources, names, urls, verbs) = (
        list(arg::GROUPS),
        list(arg::RESOURCES),
        list(arg::RESOURCE_NAMES),
        list(arg::URLS),
        list(arg::VERBS),
    );
    let wildcard = [&groups, &resources, &verbs].into_iter().flatten().any(|v| v == "*");
    if wildcard {
        diagnostics.push(
            Diagnostic::new(marker.span, "+kubebuilder:rbac with a wildcard (*)").help(
                "name each group, resource and verb the controller uses; a role grants what it needs and nothing more",
            ),
        );
        return None;
    }
    if resources.is_empty() == urls.is_empty() {
        diagnostics.push(
            Diagnostic::new(marker.span, "+kubebuilder:rbac needs resources= or urls=, not both")
                .help("e.g. +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch"),
        );
        return None;
    }
    if verbs.is_empty() {
        diagnostics
            .push(Diagnostic::new(marker.span, "+kubebuilder:rbac without verbs").help("add verbs=get;list;watch"));
        return None;
    }
    let namespace = match marker.args.get(arg::NAMESPACE) {
        Some(MarkerValue::String(namespace)) => namespace.clone(),
        _ => String::new(),
    };
    // The core group is written `groups=""` or `groups=core`.
    let groups = if resources.is_empty() {
        groups
    } else if groups.is_empty() {
        vec![String::new()]
    } else {
        groups
            .into_iter()
            .map(|g| if g == "core" { String::new() } else { g })
            .collect()
    };
    let sorted = |mut v: Vec<String>| {
        v.sort();
        v.dedup();
        v
    };
    Some((
        namespace,
        (sorted(groups), sorted(resources), sorted(names), sorted(urls)),
        verbs,
    ))
}

fn role(name: &str, namespace: &str, rules: BTreeMap<RuleKey, BTreeSet<String>>) -> Value {
    // Rules with the same groups, names and verbs share one rule listing their resources.
    let mut merged: BTreeMap<SharedKey, Vec<String>> = BTreeMap::new();
    for ((groups, resources, names, urls), verbs) in rules {
        merged
            .entry((groups, names, urls, verbs))
            .or_default()
            .extend(resources);
    }
    let rules: Vec<Value> = merged
        .into_iter()
        .map(|((groups, names, urls, verbs), mut resources)| {
            resources.sort();
            let mut rule = serde_json::Map::new();
            if !urls.is_empty() {
                rule.insert("nonResourceURLs".into(), json!(urls));
            } else {
                rule.insert("apiGroups".into(), json!(groups));
                rule.insert("resources".into(), json!(resources));
            }
            if !names.is_empty() {
                rule.insert("resourceNames".into(), json!(names));
            }
            rule.insert("verbs".into(), json!(verbs));
            Value::Object(rule)
        })
        .collect();
    if namespace.is_empty() {
        json!({
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRole",
            "metadata": { "name": name },
            "rules": rules,
        })
    } else {
        json!({
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "Role",
            "metadata": { "name": name, "namespace": namespace },
            "rules": rules,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roles_of(doc: &str) -> Result<Vec<Value>, Vec<String>> {
        let file: syn::File = syn::parse_str(doc).unwrap();
        roles(&[file], "controller").map_err(|d| d.iter().map(|(_, d)| d.text()).collect())
    }

    #[test]
    fn rbac_markers_should_merge_into_sorted_rules() {
        let roles = roles_of(
            "//! +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch\n\
             //! +kubebuilder:rbac:groups=apps,resources=deployments,verbs=create;update\n\
             //! +kubebuilder:rbac:groups=\"\",resources=events,verbs=create;patch\n\
             //! +kubebuilder:rbac:groups=core,resources=configmaps,verbs=create;patch\n\
             //! +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get;create;update,namespace=kube-system\n",
        )
        .unwrap();
        assert_eq!(roles.len(), 2);
        assert_eq!(
            roles[0]["rules"],
            json!([
                {"apiGroups": [""], "resources": ["configmaps", "events"], "verbs": ["create", "patch"]},
                {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["create", "get", "list", "update", "watch"]},
            ])
        );
        assert_eq!(roles[1]["kind"], "Role");
        assert_eq!(roles[1]["metadata"]["namespace"], "kube-system");
    }

    #[test]
    fn wildcards_and_incomplete_rules_should_be_refused() {
        let errors = roles_of("//! +kubebuilder:rbac:groups=*,resources=pods,verbs=get\n").unwrap_err();
        assert!(errors[0].contains("wildcard"), "{errors:?}");
        let errors = roles_of("//! +kubebuilder:rbac:groups=apps,verbs=get\n").unwrap_err();
        assert!(errors[0].contains("resources= or urls="), "{errors:?}");
        let errors = roles_of("//! +kubebuilder:rbac:groups=apps,resource=pods,verbs=get\n").unwrap_err();
        assert!(errors[0].contains("unknown argument"), "{errors:?}");
    }
}
