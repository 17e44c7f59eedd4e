//! RBAC's escalation checks on writes of Roles, ClusterRoles and their bindings: a user may
//! only grant what they hold, unless they are `system:masters`, may `escalate` the role or
//! `bind` its reference (`pkg/registry/rbac/escalation_check.go`, the `policybased` storages of
//! `pkg/registry/rbac/{role,clusterrole,rolebinding,clusterrolebinding}`,
//! `ConfirmNoEscalation` of `pkg/registry/rbac/validation/rule.go`, `Covers` of
//! `component-helpers/auth/rbac/validation/policy_comparator.go` and `CompactRules` of
//! `policy_compact.go`).
//!
//! kube-apiserver checks before the strategy validates; here a POST or PUT body is validated
//! first (before the server's lock), so a write both invalid and escalating is answered 422
//! where kube-apiserver answers 403.

use serde_json::Value;

use crate::auth::attributes::Attributes;
use crate::auth::rbac::{self, PolicyRule};
use crate::auth::user::{self, UserInfo};
use crate::status::ApiStatus;
use crate::storage::State;
use crate::storage::object;
use crate::storage::resource::ResourceInfo;

const GROUP: &str = "rbac.authorization.k8s.io";

/// Refuses the write of `new` (over `old`, for an update) when it grants what `requester`
/// does not hold.
pub(crate) fn check_write(
    state: &State,
    requester: &UserInfo,
    info: &ResourceInfo,
    new: &Value,
    old: Option<&Value>,
) -> Result<(), ApiStatus> {
    if !(info.builtin && info.group == GROUP) || requester.in_group(user::PRIVILEGED) {
        return Ok(());
    }
    let namespace = if info.namespaced { object::namespace(new) } else { "" };
    let name = object::name(new);
    // The request's name: none for a create, which is a POST to the collection.
    let request_name = if old.is_some() { name } else { "" };
    let refuse = |why: String| {
        let mut status = ApiStatus::forbidden(format!("{}.{GROUP} {name:?} is forbidden: {why}", info.plural));
        status.details = Some(serde_json::json!({ "name": name, "group": GROUP, "kind": info.plural }));
        status
    };
    match info.plural.as_str() {
        "roles" | "clusterroles" => {
            let escalate = Attributes::resource("escalate", GROUP, &info.plural, namespace, request_name);
            if rbac::authorize(state, requester, &escalate).allowed {
                return Ok(());
            }
            if old.is_some_and(|old| only_gc_fields_change(new, old)) {
                return Ok(());
            }
            let rules = rules_of(new);
            confirm_no_escalation(state, requester, namespace, &rules).map_err(refuse)?;
            let aggregated = |role: &Value| {
                role.pointer("/aggregationRule/clusterRoleSelectors")
                    .and_then(Value::as_array)
                    .is_some_and(|s| !s.is_empty())
            };
            if info.plural == "clusterroles" && (aggregated(new) || old.is_some_and(aggregated)) {
                let full = [
                    PolicyRule {
                        verbs: vec!["*".into()],
                        api_groups: vec!["*".into()],
                        resources: vec!["*".into()],
                        ..PolicyRule::default()
                    },
                    PolicyRule {
                        verbs: vec!["*".into()],
                        non_resource_urls: vec!["*".into()],
                        ..PolicyRule::default()
                    },
                ];
                confirm_no_escalation(state, requester, namespace, &full)
                    .map_err(|_| refuse("must have cluster-admin privileges to use the aggregationRule".to_owned()))?;
            }
            Ok(())
        }
        "rolebindings" | "clusterrolebindings" => {
            if old.is_some_and(|old| only_gc_fields_change(new, old)) {
                return Ok(());
            }
            let role_ref = new.get("roleRef").unwrap_or(&Value::Null);
            let text = |key: &str| role_ref.get(key).and_then(Value::as_str).unwrap_or_default();
            let referenced = match text("kind") {
                "ClusterRole" => Some("clusterroles"),
                "Role" => Some("roles"),
                _ => None,
            };
            if let Some(resource) = referenced {
                let bind = Attributes::resource("bind", text("apiGroup"), resource, namespace, text("name"));
                if rbac::authorize(state, requester, &bind).allowed {
                    return Ok(());
                }
            }
            let rules = rbac::role_rules(state, role_ref, namespace).map_err(|_| match referenced {
                // The registry's own lookup, worded with the plural resource.
                Some(resource) => ApiStatus::not_found(&state.info(GROUP, "v1", resource), text("name")),
                None => ApiStatus::internal(format!("unsupported role reference kind: {:?}", text("kind"))),
            })?;
            confirm_no_escalation(state, requester, namespace, &rules).map_err(refuse)
        }
        _ => Ok(()),
    }
}

/// `ConfirmNoEscalation`: `Err` with the rights `rules` grant beyond what `requester` holds in
/// `namespace`.
fn confirm_no_escalation(
    state: &State,
    requester: &UserInfo,
    namespace: &str,
    rules: &[PolicyRule],
) -> Result<(), String> {
    let (owned, resolution_error) = rbac::rules_for(state, requester, namespace);
    let missing: Vec<PolicyRule> = rules
        .iter()
        .flat_map(breakdown)
        .filter(|wanted| !owned.iter().any(|owner| covers(owner, wanted)))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    let mut described: Vec<String> = compact(missing).iter().map(PolicyRule::compact_string).collect();
    described.sort();
    described.dedup();
    let groups: Vec<String> = requester.groups.iter().map(|g| format!("{g:?}")).collect();
    let mut message = format!(
        "user {:?} (groups=[{}]) is attempting to grant RBAC permissions not currently held:\n{}",
        requester.name,
        groups.join(" "),
        described.join("\n")
    );
    if let Some(error) = resolution_error {
        message.push_str(&format!("; resolution errors: [{error}]"));
    }
    Err(message)
}

fn rules_of(role: &Value) -> Vec<PolicyRule> {
    role.get("rules")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(PolicyRule::from_json)
        .collect()
}

/// `BreakdownRule`: one rule per group, resource, verb and name (and per URL and verb).
fn breakdown(rule: &PolicyRule) -> Vec<PolicyRule> {
    let mut parts = Vec::new();
    let names: Vec<Vec<String>> = if rule.resource_names.is_empty() {
        vec![Vec::new()]
    } else {
        rule.resource_names.iter().map(|n| vec![n.clone()]).collect()
    };
    for group in &rule.api_groups {
        for resource in &rule.resources {
            for verb in &rule.verbs {
                for name in &names {
                    parts.push(PolicyRule {
                        verbs: vec![verb.clone()],
                        api_groups: vec![group.clone()],
                        resources: vec![resource.clone()],
                        resource_names: name.clone(),
                        ..PolicyRule::default()
                    });
                }
            }
        }
    }
    for url in &rule.non_resource_urls {
        for verb in &rule.verbs {
            parts.push(PolicyRule {
                verbs: vec![verb.clone()],
                non_resource_urls: vec![url.clone()],
                ..PolicyRule::default()
            });
        }
    }
    parts
}

/// `ruleCovers`: whether `owner` grants everything `wanted` does.
fn covers(owner: &PolicyRule, wanted: &PolicyRule) -> bool {
    let has_all = |set: &[String], items: &[String]| items.iter().all(|i| set.contains(i));
    let star = |set: &[String]| set.iter().any(|s| s == "*");
    let verbs = star(&owner.verbs) || has_all(&owner.verbs, &wanted.verbs);
    let groups = star(&owner.api_groups) || has_all(&owner.api_groups, &wanted.api_groups);
    let resources = star(&owner.resources)
        || has_all(&owner.resources, &wanted.resources)
        || wanted.resources.iter().all(|path| {
            owner.resources.contains(path)
                || path
                    .split_once('/')
                    .is_some_and(|(_, sub)| owner.resources.contains(&format!("*/{sub}")))
        });
    let urls = wanted
        .non_resource_urls
        .iter()
        .all(|path| owner.non_resource_urls.iter().any(|o| rbac::url_matches(o, path)));
    let names = if wanted.resource_names.is_empty() {
        owner.resource_names.is_empty()
    } else {
        owner.resource_names.is_empty() || has_all(&owner.resource_names, &wanted.resource_names)
    };
    verbs && groups && resources && urls && names
}

/// `CompactRules`: rules of one group, one resource and at most one name merged, their verbs
/// joined.
fn compact(rules: Vec<PolicyRule>) -> Vec<PolicyRule> {
    let mut compacted: Vec<PolicyRule> = Vec::new();
    let mut simple: Vec<PolicyRule> = Vec::new();
    for rule in rules {
        let is_simple = rule.resource_names.len() <= 1
            && rule.non_resource_urls.is_empty()
            && rule.api_groups.len() == 1
            && rule.resources.len() == 1;
        if !is_simple {
            compacted.push(rule);
            continue;
        }
        let same = simple.iter_mut().find(|s| {
            s.api_groups == rule.api_groups && s.resources == rule.resources && s.resource_names == rule.resource_names
        });
        match same {
            Some(existing) => existing.verbs.extend(rule.verbs),
            None => simple.push(rule),
        }
    }
    compacted.extend(simple);
    compacted
}

/// `IsOnlyMutatingGCFields`: the update changes nothing but owner references, finalizers and
/// managed fields (and what the server keeps of the old object anyway).
fn only_gc_fields_change(new: &Value, old: &Value) -> bool {
    let strip = |object: &Value| {
        let mut copy = object.clone();
        if let Some(meta) = copy.get_mut("metadata").and_then(Value::as_object_mut) {
            for key in [
                "ownerReferences",
                "finalizers",
                "selfLink",
                "managedFields",
                "resourceVersion",
                "uid",
                "creationTimestamp",
                "generation",
            ] {
                meta.remove(key);
            }
        }
        copy
    };
    strip(new) == strip(old)
}
