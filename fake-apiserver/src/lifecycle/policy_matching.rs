//! A request as ValidatingAdmissionPolicies see it (`apiserver/pkg/admission/attributes.go`;
//! `plugin/cel/activation.go`: `CreateAdmissionRequest`, `CreateNamespaceObject`), which
//! policies and bindings apply to it, and the params they read, as kube-apiserver decides
//! (`apiserver/pkg/admission/plugin/policy/matching/matching.go`: `Matcher.Matches`;
//! `webhook/predicates/{namespace,object,rules}`; `policy/generic/policy_dispatcher.go`:
//! `CollectParams`). Rules match the request's own resource: the
//! `Equivalent` match policy's other versions of a resource are not looked up.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::auth::UserInfo;

use crate::semantics::label_selector_validation::{is_empty_selector, selects};
use crate::storage::State;
use crate::storage::resource::ResourceInfo;

/// One admission request, as the plugin sees its attributes.
pub(crate) struct Request<'a> {
    /// `CREATE`, `UPDATE`, `DELETE` or `CONNECT`.
    pub(crate) operation: &'static str,
    pub(crate) object: Option<&'a Value>,
    pub(crate) old: Option<&'a Value>,
    pub(crate) name: &'a str,
    pub(crate) namespace: &'a str,
    pub(crate) subresource: &'a str,
    pub(crate) dry_run: bool,
    pub(crate) user: Option<&'a UserInfo>,
}

/// `CreateAdmissionRequest`: the request as `request` shows it.
pub(crate) fn admission_request(info: &ResourceInfo, request: &Request<'_>) -> Value {
    let kind = json!({"group": info.group, "version": info.version, "kind": info.kind});
    let resource = json!({"group": info.group, "version": info.version, "resource": info.plural});
    let admin = UserInfo::admin();
    let user = request.user.unwrap_or(&admin);
    let options = match request.operation {
        "CREATE" => json!({"kind": "CreateOptions", "apiVersion": "meta.k8s.io/v1"}),
        "UPDATE" => json!({"kind": "UpdateOptions", "apiVersion": "meta.k8s.io/v1"}),
        "DELETE" => json!({"kind": "DeleteOptions", "apiVersion": "meta.k8s.io/v1"}),
        _ => Value::Null,
    };
    json!({
        "kind": kind, "resource": resource, "subResource": request.subresource,
        "requestKind": kind, "requestResource": resource, "requestSubResource": request.subresource,
        "name": request.name, "namespace": request.namespace, "operation": request.operation,
        "userInfo": {"username": user.name, "uid": user.uid, "groups": user.groups, "extra": user.extra},
        "dryRun": request.dry_run, "options": options,
    })
}

/// `CreateNamespaceObject`: the request's namespace without its managed fields and owners;
/// none for cluster-scoped requests and Namespaces themselves.
pub(crate) fn namespace_object(state: &State, info: &ResourceInfo, request: &Request<'_>) -> Option<Value> {
    if request.namespace.is_empty() || (info.group.is_empty() && info.kind == "Namespace") {
        return None;
    }
    let namespaces = state.info("", "v1", "namespaces");
    let mut namespace = (*state.object(&namespaces, None, request.namespace)?).clone();
    if let Some(meta) = namespace.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.remove("managedFields");
        meta.remove("ownerReferences");
    }
    Some(namespace)
}

fn text<'v>(object: &'v Value, key: &str) -> &'v str {
    object.get(key).and_then(Value::as_str).unwrap_or_default()
}

fn strings<'v>(object: &'v Value, key: &str) -> Vec<&'v str> {
    let items = object.get(key).and_then(Value::as_array);
    items.into_iter().flatten().filter_map(Value::as_str).collect()
}

fn labels(object: Option<&Value>) -> Map<String, Value> {
    let labels = object
        .and_then(|o| o.pointer("/metadata/labels"))
        .and_then(Value::as_object);
    labels.cloned().unwrap_or_default()
}

/// Whether the request is a Namespace's own (whose namespace is its name).
fn is_namespace(info: &ResourceInfo) -> bool {
    info.group.is_empty() && info.plural == "namespaces"
}

/// `Matcher.Matches` of a policy's `matchConstraints` or a binding's `matchResources`: the
/// selectors, then the excluded rules, then the rules (none: everything). A selector's error
/// (a namespace that is not there) counts only where the rules match.
pub(crate) fn matches(
    state: &State,
    info: &ResourceInfo,
    request: &Request<'_>,
    criteria: &Value,
) -> Result<bool, String> {
    let namespace_match = namespace_matches(state, info, request, criteria.get("namespaceSelector"));
    if namespace_match == Ok(false) || !object_matches(request, criteria.get("objectSelector")) {
        return Ok(false);
    }
    let rules_match = |key: &str| {
        let rules = criteria.get(key).and_then(Value::as_array);
        rules
            .into_iter()
            .flatten()
            .any(|rule| rule_matches(info, request, rule))
    };
    if rules_match("excludeResourceRules") {
        return Ok(false);
    }
    let has_rules = criteria
        .get("resourceRules")
        .and_then(Value::as_array)
        .is_some_and(|r| !r.is_empty());
    if has_rules && !rules_match("resourceRules") {
        return Ok(false);
    }
    namespace_match
}

/// `MatchNamespaceSelector`: cluster-scoped objects always match; a Namespace written is
/// matched by its new labels, anything else by its namespace's.
fn namespace_matches(
    state: &State,
    info: &ResourceInfo,
    request: &Request<'_>,
    selector: Option<&Value>,
) -> Result<bool, String> {
    let Some(selector) = selector.filter(|s| s.is_object()) else {
        return Ok(false);
    };
    if request.namespace.is_empty() && !is_namespace(info) {
        return Ok(true);
    }
    if is_empty_selector(selector) {
        return Ok(true);
    }
    let own = is_namespace(info) && request.subresource.is_empty() && matches!(request.operation, "CREATE" | "UPDATE");
    let namespace_labels = if own {
        labels(request.object)
    } else {
        let namespaces = state.info("", "v1", "namespaces");
        match state.object(&namespaces, None, request.namespace) {
            Some(namespace) => labels(Some(&namespace)),
            None => return Err(format!("namespaces \"{}\" not found", request.namespace)),
        }
    };
    Ok(selects(Some(selector), &namespace_labels))
}

/// `MatchObjectSelector`: the new or the old object's labels.
fn object_matches(request: &Request<'_>, selector: Option<&Value>) -> bool {
    let Some(selector) = selector.filter(|s| s.is_object()) else {
        return false;
    };
    if is_empty_selector(selector) {
        return true;
    }
    [request.object, request.old]
        .into_iter()
        .flatten()
        .any(|object| selects(Some(selector), &labels(Some(object))))
}

/// `rules.Matcher.Matches` of a named rule: scope, operation, group, version,
/// `resource/subresource` with wildcards, and the names it is limited to.
fn rule_matches(info: &ResourceInfo, request: &Request<'_>, rule: &Value) -> bool {
    let any_or = |values: Vec<&str>, wanted: &str| values.iter().any(|v| *v == "*" || *v == wanted);
    let cluster = is_namespace(info) || request.namespace.is_empty();
    let scope = match text(rule, "scope") {
        "Namespaced" => !cluster,
        "Cluster" => cluster,
        _ => true,
    };
    let resource = strings(rule, "resources").iter().any(|entry| {
        let (resource, sub) = entry.split_once('/').unwrap_or((entry, ""));
        (resource == "*" || resource == info.plural) && (sub == "*" || sub == request.subresource)
    });
    let names = strings(rule, "resourceNames");
    scope
        && any_or(strings(rule, "operations"), request.operation)
        && any_or(strings(rule, "apiGroups"), &info.group)
        && any_or(strings(rule, "apiVersions"), &info.version)
        && resource
        && (names.is_empty() || names.contains(&request.name))
}

/// The resource a policy's `paramKind` names, or the configuration error kube-apiserver gives
/// when none is served.
pub(crate) fn param_resource(state: &State, kind: &Value) -> Result<Arc<ResourceInfo>, String> {
    let (api_version, name) = (text(kind, "apiVersion"), text(kind, "kind"));
    state.registry.by_kind(api_version, name).cloned().ok_or_else(|| {
        let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
        format!("failed to find resource referenced by paramKind: '{group}/{version}, Kind={name}'")
    })
}

/// `CollectParams`: the params a binding's `paramRef` selects (`[None]` without one), or why
/// it cannot (among them, none found when the binding says to deny then).
pub(crate) fn collect_params(
    state: &State,
    resource: &ResourceInfo,
    reference: Option<&Value>,
    request_namespace: &str,
) -> Result<Vec<Option<Arc<Value>>>, String> {
    let Some(reference) = reference.filter(|r| r.is_object()) else {
        return Ok(vec![None]);
    };
    let namespace = if resource.namespaced {
        let namespace = match text(reference, "namespace") {
            "" => request_namespace,
            given => given,
        };
        if namespace.is_empty() {
            return Err(
                "cannot use namespaced paramRef in policy binding that matches cluster-scoped resources".into(),
            );
        }
        Some(namespace)
    } else {
        if !text(reference, "namespace").is_empty() {
            return Err("paramRef.namespace must not be provided for a cluster-scoped `paramKind`".into());
        }
        None
    };
    let selector = reference.get("selector").filter(|s| s.is_object());
    let params: Vec<Option<Arc<Value>>> = match (text(reference, "name"), selector) {
        ("", None) => return Err("one of name or selector must be provided".into()),
        (name, None) => state.object(resource, namespace, name).into_iter().map(Some).collect(),
        ("", Some(selector)) => state
            .objects_everywhere(resource)
            .into_iter()
            .filter(|p| namespace.is_none_or(|ns| p.pointer("/metadata/namespace").and_then(Value::as_str) == Some(ns)))
            .filter(|p| selects(Some(selector), &labels(Some(p))))
            .map(Some)
            .collect(),
        _ => return Err("paramRef.name and paramRef.selector are mutually exclusive".into()),
    };
    if params.is_empty() && text(reference, "parameterNotFoundAction") == "Deny" {
        return Err("no params found for policy binding with `Deny` parameterNotFoundAction".into());
    }
    Ok(params)
}
