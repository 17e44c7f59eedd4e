//! RBAC authorization: `plugin/pkg/auth/authorizer/rbac/rbac.go` (the authorizer, `RuleAllows`
//! and `RulesFor`), `pkg/registry/rbac/validation/rule.go` (`VisitRulesFor`: every
//! ClusterRoleBinding, then the RoleBindings of the request's namespace, a binding's missing role
//! an error that becomes part of a refusal's reason) and `pkg/apis/rbac/v1/evaluation_helpers.go`
//! (what a rule matches), behind the `system:masters` authorizer kube-apiserver puts first
//! (`pkg/kubeapiserver/authorizer/config.go`).

use std::ops::ControlFlow;

use serde_json::{Map, Value, json};

use crate::auth::attributes::Attributes;
use crate::auth::user::{self, UserInfo};
use crate::storage::State;
use crate::storage::object;

const GROUP: &str = "rbac.authorization.k8s.io";

/// One rule of a Role or ClusterRole.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct PolicyRule {
    pub(crate) verbs: Vec<String>,
    pub(crate) api_groups: Vec<String>,
    pub(crate) resources: Vec<String>,
    pub(crate) resource_names: Vec<String>,
    pub(crate) non_resource_urls: Vec<String>,
}

impl PolicyRule {
    /// A rule as stored.
    pub(crate) fn from_json(rule: &Value) -> Self {
        let strings = |key: &str| object::string_list(rule.get(key));
        PolicyRule {
            verbs: strings("verbs"),
            api_groups: strings("apiGroups"),
            resources: strings("resources"),
            resource_names: strings("resourceNames"),
            non_resource_urls: strings("nonResourceURLs"),
        }
    }

    /// Whether the rule allows what `attrs` ask (`RuleAllows`).
    pub(crate) fn allows(&self, attrs: &Attributes) -> bool {
        let verb = has_or_all(&self.verbs, &attrs.verb);
        if !attrs.resource_request {
            return verb && self.non_resource_urls.iter().any(|url| url_matches(url, &attrs.path));
        }
        let combined = if attrs.subresource.is_empty() {
            attrs.resource.clone()
        } else {
            format!("{}/{}", attrs.resource, attrs.subresource)
        };
        let resource = self.resources.iter().any(|r| {
            r == "*"
                || *r == combined
                || (!attrs.subresource.is_empty()
                    && r.len() == attrs.subresource.len() + 2
                    && r.starts_with("*/")
                    && r.ends_with(attrs.subresource.as_str()))
        });
        let name = self.resource_names.is_empty() || self.resource_names.contains(&attrs.name);
        verb && has_or_all(&self.api_groups, &attrs.group) && resource && name
    }

    /// `rbacv1helpers.CompactString`: the lists the rule has, `%q`-quoted.
    pub(crate) fn compact_string(&self) -> String {
        let quoted = |items: &[String]| {
            let shown: Vec<String> = items.iter().map(|s| format!("{s:?}")).collect();
            format!("[{}]", shown.join(" "))
        };
        let parts: Vec<String> = [
            ("APIGroups", &self.api_groups),
            ("Resources", &self.resources),
            ("NonResourceURLs", &self.non_resource_urls),
            ("ResourceNames", &self.resource_names),
            ("Verbs", &self.verbs),
        ]
        .into_iter()
        .filter(|(_, items)| !items.is_empty())
        .map(|(label, items)| format!("{label}:{}", quoted(items)))
        .collect();
        format!("{{{}}}", parts.join(", "))
    }
}

fn has_or_all(set: &[String], wanted: &str) -> bool {
    set.iter().any(|s| s == "*" || s == wanted)
}

/// `NonResourceURLMatches`: equal, `*`, or a `prefix*` the URL starts with.
pub(crate) fn url_matches(rule_url: &str, url: &str) -> bool {
    rule_url == "*"
        || rule_url == url
        || rule_url
            .strip_suffix('*')
            .is_some_and(|_| url.starts_with(rule_url.trim_end_matches('*')))
}

/// What an authorizer decided, and why.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Decision {
    pub(crate) allowed: bool,
    pub(crate) reason: String,
}

/// kube-apiserver's authorizer with `--authorization-mode=RBAC`: `system:masters` first, then
/// RBAC.
pub(crate) fn authorize(state: &State, user: &UserInfo, attrs: &Attributes) -> Decision {
    if user.in_group(user::PRIVILEGED) {
        return Decision {
            allowed: true,
            reason: String::new(),
        };
    }
    let mut errors = Vec::new();
    let mut allowed_by = None;
    visit_rules_for(state, user, &attrs.namespace, |visited| match visited {
        Visited::Rule(source, rule) if rule.allows(attrs) => {
            allowed_by = Some(source.to_owned());
            ControlFlow::Break(())
        }
        Visited::Rule(..) => ControlFlow::Continue(()),
        Visited::Error(error) => {
            errors.push(error);
            ControlFlow::Continue(())
        }
    });
    match allowed_by {
        Some(source) => Decision {
            allowed: true,
            reason: format!("RBAC: allowed by {source}"),
        },
        None if errors.is_empty() => Decision::default(),
        None => Decision {
            allowed: false,
            reason: format!("RBAC: {}", go_aggregate(&errors)),
        },
    }
}

/// Every rule `user` holds in `namespace` (cluster-wide ones too), and the aggregated error of
/// the bindings whose role could not be read (`RulesFor`).
pub(crate) fn rules_for(state: &State, user: &UserInfo, namespace: &str) -> (Vec<PolicyRule>, Option<String>) {
    let mut rules = Vec::new();
    let mut errors = Vec::new();
    visit_rules_for(state, user, namespace, |visited| {
        match visited {
            Visited::Rule(_, rule) => rules.push(rule.clone()),
            Visited::Error(error) => errors.push(error),
        }
        ControlFlow::Continue(())
    });
    let error = (!errors.is_empty()).then(|| go_aggregate(&errors));
    (rules, error)
}

/// What a visit of the bindings meets: a rule and the binding it comes through, or why a
/// binding's rules could not be read.
enum Visited<'a> {
    Rule(&'a str, &'a PolicyRule),
    Error(String),
}

/// `VisitRulesFor`: the rules of the ClusterRoleBindings, then of `namespace`'s RoleBindings,
/// whose subjects include `user`, until `visit` breaks.
fn visit_rules_for(
    state: &State,
    user: &UserInfo,
    namespace: &str,
    mut visit: impl FnMut(Visited<'_>) -> ControlFlow<()>,
) {
    let cluster_bindings = state.info(GROUP, "v1", "clusterrolebindings").storage_key();
    let bindings = state.info(GROUP, "v1", "rolebindings").storage_key();
    let cluster_scope = state.store.iter(&cluster_bindings, None);
    let namespace_scope = (!namespace.is_empty())
        .then(|| state.store.iter(&bindings, Some(namespace)))
        .into_iter()
        .flatten();
    for (binding, binding_namespace) in cluster_scope
        .map(|(_, b)| (b, ""))
        .chain(namespace_scope.map(|(_, b)| (b, namespace)))
    {
        let Some(subject) = applies_to(user, binding, binding_namespace) else {
            continue;
        };
        let role_ref = binding.get("roleRef").unwrap_or(&Value::Null);
        let rules = match role_rules(state, role_ref, binding_namespace) {
            Ok(rules) => rules,
            Err(error) => {
                if visit(Visited::Error(error)).is_break() {
                    return;
                }
                continue;
            }
        };
        let source = describe(binding, binding_namespace, role_ref, subject);
        for rule in &rules {
            if visit(Visited::Rule(&source, rule)).is_break() {
                return;
            }
        }
    }
}

/// The rules a binding's `roleRef` grants in `binding_namespace` (`GetRoleReferenceRules`).
pub(crate) fn role_rules(state: &State, role_ref: &Value, binding_namespace: &str) -> Result<Vec<PolicyRule>, String> {
    let kind = role_ref.get("kind").and_then(Value::as_str).unwrap_or_default();
    let name = role_ref.get("name").and_then(Value::as_str).unwrap_or_default();
    let (plural, singular, namespace) = match kind {
        "Role" => ("roles", "role", Some(binding_namespace)),
        "ClusterRole" => ("clusterroles", "clusterrole", None),
        other => return Err(format!("unsupported role reference kind: {other:?}")),
    };
    let info = state.info(GROUP, "v1", plural);
    let role = state
        .object(&info, namespace, name)
        .ok_or_else(|| format!("{singular}.{GROUP} {name:?} not found"))?;
    Ok(role
        .get("rules")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(PolicyRule::from_json)
        .collect())
}

/// The first subject of `binding` that is `user` (`appliesTo`).
fn applies_to<'a>(user: &UserInfo, binding: &'a Value, binding_namespace: &str) -> Option<&'a Map<String, Value>> {
    binding
        .get("subjects")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_object)
        .find(|subject| {
            let text = |key: &str| subject.get(key).and_then(Value::as_str).unwrap_or_default();
            match text("kind") {
                "User" => user.name == text("name"),
                "Group" => user.in_group(text("name")),
                "ServiceAccount" => {
                    let namespace = Some(text("namespace"))
                        .filter(|n| !n.is_empty())
                        .unwrap_or(binding_namespace);
                    !namespace.is_empty() && user::matches_service_account(namespace, text("name"), &user.name)
                }
                _ => false,
            }
        })
}

/// The binding that granted a rule, as an "allowed by" reason names it.
fn describe(binding: &Value, binding_namespace: &str, role_ref: &Value, subject: &Map<String, Value>) -> String {
    let text = |value: Option<&Value>| value.and_then(Value::as_str).unwrap_or_default().to_owned();
    let role = format!("{} {:?}", text(role_ref.get("kind")), text(role_ref.get("name")));
    let kind = text(subject.get("kind"));
    let name = text(subject.get("name"));
    let subject = if kind == "ServiceAccount" {
        let namespace = Some(text(subject.get("namespace")))
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| binding_namespace.to_owned());
        format!("{kind} {:?}", format!("{name}/{namespace}"))
    } else {
        format!("{kind} {name:?}")
    };
    let name = object::name(binding);
    if binding_namespace.is_empty() {
        format!("ClusterRoleBinding {name:?} of {role} to {subject}")
    } else {
        format!(
            "RoleBinding {:?} of {role} to {subject}",
            format!("{name}/{binding_namespace}")
        )
    }
}

/// `utilerrors.NewAggregate(errors).Error()`: one message as it is, several distinct ones
/// bracketed and comma-separated.
pub(crate) fn go_aggregate(errors: &[String]) -> String {
    if errors.len() == 1 {
        return errors[0].clone();
    }
    let mut seen: Vec<&str> = Vec::new();
    for error in errors {
        if !seen.contains(&error.as_str()) {
            seen.push(error);
        }
    }
    match seen.as_slice() {
        [one] => (*one).to_owned(),
        many => format!("[{}]", many.join(", ")),
    }
}

/// `SubjectRulesReviewStatus` of rules and their resolution error (`incomplete` is never set
/// by RBAC).
pub(crate) fn rules_review_status(rules: &[PolicyRule], error: Option<String>) -> Value {
    let resource_rules: Vec<Value> = rules
        .iter()
        .filter(|r| !r.resources.is_empty())
        .map(|r| {
            let mut rule = json!({ "verbs": r.verbs });
            for (key, items) in [
                ("apiGroups", &r.api_groups),
                ("resources", &r.resources),
                ("resourceNames", &r.resource_names),
            ] {
                if !items.is_empty() {
                    rule[key] = json!(items);
                }
            }
            rule
        })
        .collect();
    let non_resource_rules: Vec<Value> = rules
        .iter()
        .filter(|r| !r.non_resource_urls.is_empty())
        .map(|r| json!({ "verbs": r.verbs, "nonResourceURLs": r.non_resource_urls }))
        .collect();
    let mut status = json!({
        "resourceRules": resource_rules,
        "nonResourceRules": non_resource_rules,
        "incomplete": false,
    });
    if let Some(error) = error {
        status["evaluationError"] = json!(error);
    }
    status
}
