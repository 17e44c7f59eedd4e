//! Validation of `CustomResourceDefinition` objects as apiextensions-apiserver validates them on
//! create and update (`pkg/apis/apiextensions/validation/validation.go`:
//! `ValidateCustomResourceDefinition`, `ValidateCustomResourceDefinitionUpdate`): the name, the
//! spec (group, scope, names, versions, schemas, subresources, columns, conversion), the stored
//! versions, API approval for protected groups and `preserveUnknownFields`. The object is seen
//! as the internal version sees it ([`internal`]), which decides the paths errors name.

mod cel_rules;
pub(crate) mod conversion;
mod defaults;
mod definition_names;
mod extensions;
mod go_dump;
mod internal;
mod openapi;
mod root_fields;
mod selectable_fields;
mod spec;
mod structural;

use std::rc::Rc;

use serde_json::Value;

use crate::semantics::cel::{Loader, Preexisting};
use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::names;
use crate::semantics::schema::formats;
use internal::Spec;

/// `validationOptions`: what a create requires, and what an update requires only when the
/// stored object already complied.
#[derive(Clone, Debug)]
pub(crate) struct Options {
    pub(crate) require_recognized_conversion_review: bool,
    pub(crate) require_immutable_names: bool,
    pub(crate) require_open_api_schema: bool,
    pub(crate) require_structural: bool,
    pub(crate) require_pruned_defaults: bool,
    pub(crate) require_atomic_set: bool,
    pub(crate) require_map_list_keys: bool,
    /// The minor of the server, which decides the CEL environments and the internal types'
    /// fields Go prints.
    pub(crate) minor: u32,
    /// On an update, the CEL expressions the old CRD held (`preexistingExpressions`), which
    /// compile as stored expressions.
    pub(crate) preexisting: Option<Rc<Preexisting>>,
}

impl Options {
    /// Which environment each CEL expression compiles in.
    pub(crate) fn cel_loader(&self) -> Loader<'_> {
        match &self.preexisting {
            Some(old) => Loader::Update(self.minor, old),
            None => Loader::New(self.minor),
        }
    }

    fn strict(minor: u32) -> Self {
        Self {
            minor,
            preexisting: None,
            require_recognized_conversion_review: true,
            require_immutable_names: false,
            require_open_api_schema: true,
            require_structural: true,
            require_pruned_defaults: true,
            require_atomic_set: true,
            require_map_list_keys: true,
        }
    }
}

/// The errors of a new CRD (defaulted, its status not yet set), in kube-apiserver's order, on a
/// server of `minor`.
pub(crate) fn validate_create(crd: &Value, minor: u32) -> Vec<FieldError> {
    let spec = Spec::of(crd);
    // The create strategy starts the stored versions with the storage version.
    let stored: Vec<&str> = spec
        .versions
        .iter()
        .find(|v| v.storage)
        .map(|v| v.name)
        .into_iter()
        .collect();
    let mut errors = name_errors(crd, &spec);
    errors.extend(spec::errors(&spec, &Options::strict(minor)));
    errors.extend(definition_names::errors(
        crd.pointer("/status/acceptedNames"),
        "status.acceptedNames",
    ));
    errors.extend(stored_version_errors(&stored, &spec));
    errors.extend(approval_errors(crd, None));
    errors.extend(preserve_unknown_fields_errors(&spec, None));
    errors
}

/// The errors of a `/status` update (`ValidateUpdateCustomResourceDefinitionStatus`): only the
/// accepted names; stored versions are not checked there.
pub(crate) fn validate_status_update(new: &Value) -> Vec<FieldError> {
    definition_names::errors(new.pointer("/status/acceptedNames"), "status.acceptedNames")
}

/// The errors of an update of `old` to `new` on a server of `minor`.
pub(crate) fn validate_update(new: &Value, old: &Value, minor: u32) -> Vec<FieldError> {
    let spec = Spec::of(new);
    let old_spec = Spec::of(old);
    let mut opts = Options::strict(minor);
    opts.require_immutable_names = is_established(old);
    opts.preexisting = Some(Rc::new(cel_rules::preexisting(&old_spec)));
    // The update strategy keeps the old status and adds the storage version if it is new.
    let mut stored: Vec<&str> = old
        .pointer("/status/storedVersions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    if let Some(storage) = spec.versions.iter().find(|v| v.storage).map(|v| v.name)
        && !stored.contains(&storage)
    {
        stored.push(storage);
    }
    // `ValidateObjectMetaUpdate` has no name rule: group and plural are immutable instead.
    let mut errors = spec::errors(&spec, &opts);
    if opts.require_immutable_names {
        errors.extend(immutable("spec.scope", spec.text("scope"), old_spec.text("scope")));
        errors.extend(immutable("spec.names.kind", spec.name("kind"), old_spec.name("kind")));
    }
    errors.extend(immutable("spec.group", spec.text("group"), old_spec.text("group")));
    errors.extend(immutable(
        "spec.names.plural",
        spec.name("plural"),
        old_spec.name("plural"),
    ));
    errors.extend(definition_names::errors(
        new.pointer("/status/acceptedNames"),
        "status.acceptedNames",
    ));
    errors.extend(stored_version_errors(&stored, &spec));
    errors.extend(approval_errors(new, Some(old)));
    errors.extend(preserve_unknown_fields_errors(&spec, Some(&old_spec)));
    errors
}

/// `ValidateObjectMeta`'s name check with the CRD's own rule: a DNS subdomain, and
/// `<plural>.<group>`.
fn name_errors(crd: &Value, spec: &Spec<'_>) -> Vec<FieldError> {
    let name = crd
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if name.is_empty() {
        return Vec::new();
    }
    let mut reasons = names::object_name_errors("CustomResourceDefinition", name);
    if name != format!("{}.{}", spec.name("plural"), spec.text("group")) {
        reasons.push("must be spec.names.plural+\".\"+spec.group".to_owned());
    }
    reasons
        .into_iter()
        .map(|why| FieldError::invalid("metadata.name", BadValue::from(name), why))
        .collect()
}

/// `ValidateImmutableField`.
fn immutable(path: &str, new: &str, old: &str) -> Option<FieldError> {
    (new != old).then(|| FieldError::invalid(path, BadValue::from(new), "field is immutable"))
}

/// `ValidateCustomResourceDefinitionStoredVersions`.
fn stored_version_errors(stored: &[&str], spec: &Spec<'_>) -> Vec<FieldError> {
    let path = "status.storedVersions";
    let stored_value = || BadValue::Strings(stored.iter().map(|v| (*v).to_owned()).collect());
    if stored.is_empty() {
        return vec![FieldError::invalid(
            path,
            stored_value(),
            "must have at least one stored version",
        )];
    }
    let mut errors = Vec::new();
    let mut unmatched: Vec<(usize, &str)> = stored.iter().copied().enumerate().collect();
    for version in &spec.versions {
        let found = unmatched.iter().position(|(_, v)| *v == version.name);
        if version.storage && found.is_none() {
            errors.push(FieldError::invalid(
                path,
                stored_value(),
                format!("must have the storage version {}", version.name),
            ));
        }
        if let Some(at) = found {
            unmatched.remove(at);
        }
    }
    for (i, version) in unmatched {
        errors.push(FieldError::invalid(
            format!("{path}[{i}]"),
            BadValue::from(version),
            "must appear in spec.versions",
        ));
    }
    errors
}

/// `validateAPIApproval`: protected groups (`*.k8s.io`, `*.kubernetes.io`) need the
/// `api-approved.kubernetes.io` annotation, unchanged on update.
fn approval_errors(crd: &Value, old: Option<&Value>) -> Option<FieldError> {
    let group = crd.pointer("/spec/group").and_then(Value::as_str).unwrap_or_default();
    let protected = ["k8s.io", "kubernetes.io"]
        .iter()
        .any(|g| group == *g || group.ends_with(&format!(".{g}")));
    if !protected {
        return None;
    }
    let new_state = approval_state(crd);
    if old.is_some_and(|old| approval_state(old) == new_state) {
        return None;
    }
    let path = "metadata.annotations[api-approved.kubernetes.io]";
    let annotation = approval_annotation(crd);
    let guide = "see https://github.com/kubernetes/enhancements/pull/1111";
    match new_state {
        Approval::Missing => Some(FieldError::required(
            path,
            format!("protected groups must have approval annotation \"api-approved.kubernetes.io\", {guide}"),
        )),
        Approval::Invalid => Some(FieldError::invalid(
            path,
            BadValue::from(annotation),
            format!(
                "protected groups must have approval annotation \"api-approved.kubernetes.io\" with either a URL or a reason starting with \"unapproved\", {guide}"
            ),
        )),
        Approval::Approved | Approval::Bypassed => None,
    }
}

#[derive(PartialEq)]
enum Approval {
    Missing,
    Bypassed,
    Approved,
    Invalid,
}

fn approval_annotation(crd: &Value) -> &str {
    crd.pointer("/metadata/annotations/api-approved.kubernetes.io")
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// `GetAPIApprovalState`: a URL with a scheme and a host approves.
fn approval_state(crd: &Value) -> Approval {
    let annotation = approval_annotation(crd);
    let has_host = annotation.split_once("://").is_some_and(|(scheme, rest)| {
        !scheme.is_empty() && !rest.split(['/', '?', '#']).next().unwrap_or_default().is_empty()
    });
    if annotation.is_empty() {
        Approval::Missing
    } else if annotation.starts_with("unapproved") {
        Approval::Bypassed
    } else if has_host && formats::validates("uri", annotation) == Some(true) {
        Approval::Approved
    } else {
        Approval::Invalid
    }
}

/// `validatePreserveUnknownFields`: v1 forbids `spec.preserveUnknownFields: true` unless the
/// stored object already had it.
fn preserve_unknown_fields_errors(spec: &Spec<'_>, old: Option<&Spec<'_>>) -> Option<FieldError> {
    if old.is_some_and(|old| old.preserve_unknown_fields() == Some(true))
        || spec.preserve_unknown_fields() != Some(true)
    {
        return None;
    }
    Some(FieldError::invalid(
        "spec.preserveUnknownFields",
        BadValue::Json(Value::Bool(true)),
        "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead",
    ))
}

/// Whether the CRD's `Established` condition is true.
fn is_established(crd: &Value) -> bool {
    crd.pointer("/status/conditions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .any(|c| {
            c.get("type").and_then(Value::as_str) == Some("Established")
                && c.get("status").and_then(Value::as_str) == Some("True")
        })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn crd(versions: Value) -> Value {
        json!({ "metadata": { "name": "things.example.com" }, "spec": {
            "group": "example.com", "scope": "Namespaced",
            "names": { "plural": "things", "singular": "thing", "kind": "Thing", "listKind": "ThingList" },
            "versions": versions, "conversion": { "strategy": "None" } } })
    }

    fn shown(errors: &[FieldError]) -> Vec<String> {
        errors.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn validate_create_should_accept_a_valid_definition() {
        let schema = json!({ "openAPIV3Schema": { "type": "object", "properties": {
            "spec": { "type": "object", "properties": { "size": { "type": "integer", "default": 1 } } } } } });
        let versions = json!([{ "name": "v1", "served": true, "storage": true, "schema": schema }]);
        assert!(validate_create(&crd(versions), 28).is_empty());
    }

    #[test]
    fn validate_create_should_name_schema_errors_where_the_internal_version_holds_them() {
        let bad = json!({ "openAPIV3Schema": { "type": "object", "properties": { "a": { "type": "string", "uniqueItems": true } } } });
        let good = json!({ "openAPIV3Schema": { "type": "object" } });
        let shared = json!([{ "name": "v1", "served": true, "storage": true, "schema": bad },
                            { "name": "v2", "served": true, "storage": false, "schema": bad }]);
        assert_eq!(
            shown(&validate_create(&crd(shared), 28)),
            [
                "spec.validation.openAPIV3Schema.properties[a].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic"
            ]
        );
        let apart = json!([{ "name": "v1", "served": true, "storage": true, "schema": good },
                           { "name": "v2", "served": true, "storage": false, "schema": bad }]);
        assert_eq!(
            shown(&validate_create(&crd(apart), 28)),
            [
                "spec.versions[1].schema.openAPIV3Schema.properties[a].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic"
            ]
        );
    }

    #[test]
    fn validate_create_should_require_one_storage_version_and_name_the_stored_ones() {
        let schema = json!({ "openAPIV3Schema": { "type": "object" } });
        let versions = json!([{ "name": "v1", "served": true, "storage": false, "schema": schema }]);
        let errors = shown(&validate_create(&crd(versions), 28));
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(
            errors[0].ends_with("must have exactly one version marked as storage version"),
            "{errors:?}"
        );
        assert_eq!(
            errors[1],
            "status.storedVersions: Invalid value: []string(nil): must have at least one stored version"
        );
    }

    #[test]
    fn validate_update_should_keep_group_and_plural_and_stored_versions() {
        let schema = json!({ "openAPIV3Schema": { "type": "object" } });
        let mut old = crd(json!([{ "name": "v1", "served": true, "storage": true, "schema": schema }]));
        old["status"] = json!({ "storedVersions": ["v1"] });
        let mut new = crd(json!([{ "name": "v2", "served": true, "storage": true, "schema": schema }]));
        new["spec"]["group"] = json!("other.example.com");
        assert_eq!(
            shown(&validate_update(&new, &old, 28)),
            [
                "spec.group: Invalid value: \"other.example.com\": field is immutable",
                "status.storedVersions[0]: Invalid value: \"v1\": must appear in spec.versions",
            ]
        );
    }

    #[test]
    fn approval_should_be_required_in_protected_groups() {
        let schema = json!({ "openAPIV3Schema": { "type": "object" } });
        let mut protected = crd(json!([{ "name": "v1", "served": true, "storage": true, "schema": schema }]));
        protected["metadata"]["name"] = json!("things.x.k8s.io");
        protected["spec"]["group"] = json!("x.k8s.io");
        let errors = shown(&validate_create(&protected, 28));
        assert!(
            errors[0].starts_with("metadata.annotations[api-approved.kubernetes.io]: Required value"),
            "{errors:?}"
        );
        protected["metadata"]["annotations"] =
            json!({ "api-approved.kubernetes.io": "https://github.com/kubernetes/kubernetes/pull/1" });
        assert!(validate_create(&protected, 28).is_empty());
        protected["metadata"]["annotations"] = json!({ "api-approved.kubernetes.io": "unapproved, testing" });
        assert!(validate_create(&protected, 28).is_empty());
    }
}
