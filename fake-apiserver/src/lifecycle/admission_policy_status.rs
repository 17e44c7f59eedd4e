//! kube-controller-manager's ValidatingAdmissionPolicy status controller
//! (`pkg/controller/validatingadmissionpolicystatus/controller.go`: `reconcile`): a policy whose
//! generation is ahead of its observed one is type-checked against the kinds its rules name
//! (`crate::semantics::cel::policy_type_check`) and its status applied, by the field manager
//! `validatingadmissionpolicy-status`, forcing conflicts.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use crate::lifecycle::writes::Writes;
use crate::semantics::cel::policy_type_check::{CheckedKind, expression_warnings};
use crate::semantics::openapi_schema;
use crate::storage::State;
use crate::storage::object;
use crate::storage::pending::Pending;
use crate::storage::resource::ResourceInfo;

const GROUP: &str = "admissionregistration.k8s.io";
/// `maxTypesToCheck`, counted per rule.
const MAX_TYPES_PER_RULE: usize = 10;

/// A written policy not yet checked at its generation is queued.
pub(crate) fn on_change(info: &ResourceInfo, policy: &Value) -> Option<Pending> {
    let is_policy = info.builtin && info.group == GROUP && info.kind == "ValidatingAdmissionPolicy";
    let observed = policy
        .pointer("/status/observedGeneration")
        .and_then(Value::as_i64)
        .unwrap_or(0);
    (is_policy && object::generation(policy) > observed).then(|| Pending::CheckPolicyTypes {
        name: object::name(policy).to_owned(),
    })
}

/// `reconcile`: the policy's type checking written to its status.
pub(crate) fn sync(state: &mut State, name: &str) {
    let info = state.info(GROUP, "v1", "validatingadmissionpolicies");
    let Some(policy) = state.object(&info, None, name) else {
        return;
    };
    let generation = object::generation(&policy);
    let observed = policy
        .pointer("/status/observedGeneration")
        .and_then(Value::as_i64)
        .unwrap_or(0);
    if generation <= observed {
        return;
    }
    let spec = policy.get("spec").cloned().unwrap_or(Value::Null);
    let kinds = kinds_to_check(state, &spec);
    let params = spec.get("paramKind").filter(|k| k.is_object()).and_then(|kind| {
        let api_version = kind.get("apiVersion").and_then(Value::as_str).unwrap_or_default();
        let kind = kind.get("kind").and_then(Value::as_str).unwrap_or_default();
        let found = state.registry.by_kind(api_version, kind)?.clone();
        schema_of(state, &found)
    });
    let warnings = expression_warnings(&spec, &kinds, params.as_ref(), state.options.minor());
    let type_checking = match warnings.is_empty() {
        true => json!({}),
        false => json!({"expressionWarnings": warnings}),
    };
    let config = json!({
        "apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": name},
        "status": {"observedGeneration": generation, "typeChecking": type_checking},
    });
    let manager = "validatingadmissionpolicy-status";
    if let Err(status) = state.apply_object(&info, None, name, config, manager, Some("status")) {
        tracing::warn!(policy = name, %status, "could not write the policy's type checking");
    }
}

/// `typesToCheck`: the kinds of the policy's rules, sorted; a rule with a wildcard group or
/// version is skipped, as are wildcard resources and subresources.
fn kinds_to_check(state: &State, spec: &Value) -> Vec<CheckedKind> {
    let strings = |rule: &Value, key: &str| -> Vec<String> {
        let mut values: Vec<String> = rule
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect();
        values.sort();
        values
    };
    let mut found = BTreeSet::new();
    let rules = spec
        .pointer("/matchConstraints/resourceRules")
        .and_then(Value::as_array);
    for rule in rules.into_iter().flatten() {
        let (groups, versions) = (strings(rule, "apiGroups"), strings(rule, "apiVersions"));
        if groups.iter().chain(&versions).any(|s| s.contains('*')) {
            continue;
        }
        let resources: Vec<String> = strings(rule, "resources")
            .into_iter()
            .filter(|r| !r.contains('*') && !r.contains('/'))
            .collect();
        let mut count = 0;
        'rule: for group in &groups {
            for version in &versions {
                for resource in &resources {
                    if let Some(info) = state.registry.find(group, version, resource) {
                        found.insert((group.clone(), version.clone(), info.kind.clone()));
                        count += 1;
                        if count == MAX_TYPES_PER_RULE {
                            break 'rule;
                        }
                    }
                }
            }
        }
    }
    found
        .into_iter()
        .filter_map(|(group, version, kind)| {
            let api_version = match group.as_str() {
                "" => version.clone(),
                group => format!("{group}/{version}"),
            };
            let info = state.registry.by_kind(&api_version, &kind)?.clone();
            Some(CheckedKind {
                name: format!("{group}/{version}, Kind={kind}"),
                schema: schema_of(state, &info)?,
            })
        })
        .collect()
}

/// A kind's schema as the resolver finds it: a built-in's OpenAPI definition, a custom
/// resource's version schema.
fn schema_of(state: &State, info: &ResourceInfo) -> Option<Value> {
    match info.builtin {
        true => openapi_schema::resolved(&info.group, &info.version, &info.kind, state.options.minor()),
        false => info.schema.clone(),
    }
}
