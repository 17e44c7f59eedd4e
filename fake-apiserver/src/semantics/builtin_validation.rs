//! Validation of built-in kinds beyond metadata, with kube-apiserver's fields and messages
//! (`k8s.io/kubernetes/pkg/apis/*/validation`) for the kinds this server serves.

use serde_json::{Map, Value};

use crate::semantics::apiservice_validation;
use crate::semantics::config_validation;
use crate::semantics::csr_validation;
use crate::semantics::field_error::FieldError;
use crate::semantics::job;
use crate::semantics::names::invalid;
use crate::semantics::namespace_validation;
use crate::semantics::node_validation;
use crate::semantics::selector::{LabelSelector, label_selector_text};
use crate::semantics::validation::{metadata_causes, validate_metadata};
use crate::semantics::{pod_update_validation, pod_validation};
use crate::status::ApiStatus;
use crate::storage::object;
use crate::storage::resource::ResourceInfo;

/// Refuses `object` (replacing `old`, if any, through `subresource`, if any) with 422 Invalid
/// when its metadata or its kind's validation fails, with every cause in one answer as the
/// strategies' `Validate` gives them (object metadata first).
pub(crate) fn check(
    info: &ResourceInfo,
    object: &Value,
    old: Option<&Value>,
    subresource: Option<&str>,
) -> Result<(), ApiStatus> {
    if !info.builtin {
        return validate_metadata(info, object);
    }
    let mut errors = metadata_causes(info, object);
    errors.extend(errors_of(info, object));
    let typed = typed_errors(info, object, old, subresource);
    errors.extend(typed.iter().map(|e| (e.field.clone(), e.body())));
    if errors.is_empty() {
        return Ok(());
    }
    let name = object::name(object);
    // events.k8s.io Events are validated as the core Event they are stored as.
    let group = if info.kind == "Event" { "" } else { info.group.as_str() };
    Err(ApiStatus::invalid_kind(&info.kind, group, name, &errors))
}

/// The checks of the kinds ported with typed field errors.
fn typed_errors(
    info: &ResourceInfo,
    object: &Value,
    old: Option<&Value>,
    subresource: Option<&str>,
) -> Vec<FieldError> {
    match (info.group.as_str(), info.kind.as_str(), old) {
        ("", "Node", None) => node_validation::node_errors(object),
        ("", "Node", Some(old)) if subresource == Some("status") => node_validation::node_update_errors(object, old),
        ("", "Node", Some(old)) => {
            let mut errors = node_validation::node_errors(object);
            errors.extend(node_validation::node_update_errors(object, old));
            errors
        }
        ("", "Pod", None) => pod_validation::pod_create_errors(object),
        ("", "Pod", Some(old)) if subresource == Some("ephemeralcontainers") => {
            pod_update_validation::ephemeral_update_errors(object, old)
        }
        ("", "Pod", Some(_)) if subresource == Some("status") => Vec::new(),
        ("", "Pod", Some(old)) => pod_update_validation::pod_update_errors(object, old),
        ("certificates.k8s.io", "CertificateSigningRequest", None) => csr_validation::csr_errors(object, None),
        ("certificates.k8s.io", "CertificateSigningRequest", Some(old)) => {
            let write = match subresource {
                Some("status") => csr_validation::Write::Status,
                Some("approval") => csr_validation::Write::Approval,
                _ => csr_validation::Write::Update,
            };
            let mut errors = csr_validation::csr_errors(object, Some(old));
            errors.extend(csr_validation::csr_update_errors(object, old, write));
            errors
        }
        ("batch", "Job", None) => job::job_errors(object, true),
        ("batch", "Job", Some(_)) if subresource == Some("status") => job::job_status_errors(object),
        ("batch", "Job", Some(old)) => {
            let labels = old.pointer("/spec/template/metadata/labels");
            let had = |key: &str| labels.and_then(|l| l.get(key)).is_some();
            let prefixed = had("batch.kubernetes.io/job-name") && had("batch.kubernetes.io/controller-uid");
            let mut errors = job::job_errors(object, prefixed);
            errors.extend(job::job_update_errors(object, old));
            errors
        }
        ("apiregistration.k8s.io", "APIService", Some(_)) if subresource == Some("status") => {
            apiservice_validation::api_service_status_errors(object)
        }
        ("apiregistration.k8s.io", "APIService", _) => apiservice_validation::api_service_errors(object),
        ("", "ConfigMap", None) => config_validation::config_map_errors(object),
        ("", "ConfigMap", Some(old)) => config_validation::config_map_update_errors(object, old),
        ("", "Secret", None) => config_validation::secret_errors(object),
        ("", "Secret", Some(old)) => config_validation::secret_update_errors(object, old),
        // `ValidateServiceAccount` is its metadata alone, checked for every kind.
        ("", "ServiceAccount", _) => Vec::new(),
        ("", "Namespace", None) => namespace_validation::namespace_errors(object),
        ("", "Namespace", Some(_)) if subresource == Some("status") => {
            namespace_validation::namespace_status_update_errors(object)
        }
        ("", "Namespace", Some(_)) if subresource == Some("finalize") => {
            namespace_validation::namespace_finalize_update_errors(object)
        }
        ("", "Namespace", Some(old)) => namespace_validation::namespace_update_errors(object, old),
        _ => Vec::new(),
    }
}

fn errors_of(info: &ResourceInfo, object: &Value) -> Vec<(String, String)> {
    let mut errors = Vec::new();
    match (info.group.as_str(), info.kind.as_str()) {
        ("apps", "Deployment" | "ReplicaSet") => workload(object, &mut errors),
        ("coordination.k8s.io", "Lease") => {
            if let Some(n) = object.pointer("/spec/leaseDurationSeconds").and_then(Value::as_i64)
                && n <= 0
            {
                let why = "must be greater than 0";
                errors.push(("spec.leaseDurationSeconds".to_owned(), invalid(&n.into(), why)));
            }
        }
        ("", "Event") => {
            let namespace = object
                .pointer("/metadata/namespace")
                .and_then(Value::as_str)
                .unwrap_or_default();
            if let Some(involved) = object.pointer("/involvedObject/namespace").and_then(Value::as_str)
                && !involved.is_empty()
                && involved != namespace
            {
                let why = "does not match event.namespace";
                errors.push(("involvedObject.namespace".to_owned(), invalid(&involved.into(), why)));
            }
        }
        ("events.k8s.io", "Event") if object.get("eventTime").is_none_or(Value::is_null) => {
            errors.push(("eventTime".to_owned(), "Required value".to_owned()));
        }
        _ => {}
    }
    errors
}

/// A Deployment's or ReplicaSet's selector must exist and select its pod template.
fn workload(object: &Value, errors: &mut Vec<(String, String)>) {
    if let Some(replicas) = object.pointer("/spec/replicas").and_then(Value::as_i64)
        && replicas < 0
    {
        errors.push((
            "spec.replicas".to_owned(),
            invalid(&replicas.into(), "must be greater than or equal to 0"),
        ));
    }
    let Some(selector) = object.pointer("/spec/selector").filter(|s| !s.is_null()) else {
        errors.push(("spec.selector".to_owned(), "Required value".to_owned()));
        return;
    };
    let empty = Map::new();
    let labels = object
        .pointer("/spec/template/metadata/labels")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    if !selects(selector, labels) {
        let shown: Vec<String> = labels.iter().map(|(k, v)| format!("{k:?}:{v}")).collect();
        errors.push((
            "spec.template.metadata.labels".to_owned(),
            format!(
                "Invalid value: map[string]string{{{}}}: `selector` does not match template `labels`",
                shown.join(", ")
            ),
        ));
    }
}

/// Whether a `LabelSelector` object selects `labels`.
fn selects(selector: &Value, labels: &Map<String, Value>) -> bool {
    LabelSelector::parse(&label_selector_text(selector)).is_ok_and(|s| s.matches(Some(labels)))
}
