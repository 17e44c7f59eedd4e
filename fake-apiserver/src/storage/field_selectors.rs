//! The field selectors kube-apiserver accepts for the built-in kinds served here: the paths
//! each kind's field-label conversion admits (`pkg/apis/*/v1/conversion.go`), the values its
//! strategy's `GetAttrs` indexes them with (`pkg/registry/*/strategy.go`: a bool or a count is
//! written with Go's `fmt`, an absent field as its zero value), and the words a refusal takes.

use serde_json::Value;

use crate::storage::object;
use crate::storage::resource::ResourceInfo;

/// The value a selected field (a dotted path) has in an object, as a kind's `GetAttrs` indexes it.
pub(crate) type FieldValue = fn(&Value, &str) -> Option<String>;

impl ResourceInfo {
    /// Field paths accepted in field selectors: the metadata ones (only the name for
    /// cluster-scoped kinds with a conversion of their own), the CRD's selectable fields, and
    /// those kube-apiserver supports for the built-in kinds served here.
    pub fn field_selector_paths(&self) -> Vec<String> {
        let builtin: &[&str] = match (self.builtin, self.group.as_str(), self.kind.as_str()) {
            (true, "", "Event") => &[
                "involvedObject.kind",
                "involvedObject.namespace",
                "involvedObject.name",
                "involvedObject.uid",
                "involvedObject.apiVersion",
                "involvedObject.resourceVersion",
                "involvedObject.fieldPath",
                "reason",
                "reportingComponent",
                "source",
                "type",
            ],
            (true, "events.k8s.io", "Event") => &[
                "regarding.kind",
                "regarding.namespace",
                "regarding.name",
                "regarding.uid",
                "regarding.apiVersion",
                "regarding.resourceVersion",
                "regarding.fieldPath",
                "reason",
                "reportingController",
                "type",
            ],
            (true, "", "Pod") => &[
                "spec.nodeName",
                "spec.restartPolicy",
                "spec.schedulerName",
                "spec.serviceAccountName",
                "spec.hostNetwork",
                "status.phase",
                "status.podIP",
                "status.podIPs",
                "status.nominatedNodeName",
            ],
            (true, "", "Secret") => &["type"],
            (true, "", "Namespace") => &["status.phase"],
            (true, "", "Node") => &["spec.unschedulable"],
            (true, "batch", "Job") => &["status.successful"],
            (true, "certificates.k8s.io", "CertificateSigningRequest") => &["spec.signerName"],
            _ => &[],
        };
        // The conversions of Nodes and CertificateSigningRequests name no namespace field.
        let metadata: &[&str] = match (self.builtin, self.kind.as_str()) {
            (true, "Node" | "CertificateSigningRequest") => &["metadata.name"],
            _ => &["metadata.name", "metadata.namespace"],
        };
        metadata
            .iter()
            .chain(builtin)
            .map(|f| (*f).to_owned())
            .chain(self.selectable_fields.iter().cloned())
            .collect()
    }

    /// How the kind's `GetAttrs` reads a selected field of an object.
    pub(crate) fn field_selector_value(&self) -> FieldValue {
        match (self.builtin, self.kind.as_str()) {
            (true, "Node") => node_field,
            (true, "Pod") => pod_field,
            (true, "Job") => job_field,
            (true, "Event") => event_field,
            _ => object::field_text,
        }
    }

    /// The refusal of a field path the kind does not index, where its conversion words it
    /// otherwise than `field label not supported: <path>`.
    pub(crate) fn unsupported_field_message(&self, path: &str) -> Option<String> {
        (self.builtin && self.group == "batch" && self.kind == "Job")
            .then(|| format!("field label {path:?} not supported for Job"))
    }
}

/// A bool the kind indexes with `fmt`, false when unset.
fn flag(object: &Value, path: &str) -> Option<String> {
    Some(
        object::field(object, path)
            .and_then(Value::as_bool)
            .unwrap_or(false)
            .to_string(),
    )
}

fn node_field(object: &Value, path: &str) -> Option<String> {
    match path {
        "spec.unschedulable" => flag(object, path),
        _ => object::field_text(object, path),
    }
}

fn pod_field(object: &Value, path: &str) -> Option<String> {
    match path {
        "spec.hostNetwork" => flag(object, path),
        // The first of the pod's IPs.
        "status.podIP" => Some(
            object
                .pointer("/status/podIPs/0/ip")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
        ),
        _ => object::field_text(object, path),
    }
}

/// An Event (as stored, core/v1) by `ToSelectableFields` (`pkg/registry/core/event/strategy.go`):
/// its source is the source's component, or else the reporting controller.
fn event_field(object: &Value, path: &str) -> Option<String> {
    match path {
        "source" => {
            let component = object::text(object.pointer("/source/component"));
            let source = if component.is_empty() {
                object::text(object.get("reportingComponent"))
            } else {
                component
            };
            Some(source.to_owned())
        }
        _ => object::field_text(object, path),
    }
}

fn job_field(object: &Value, path: &str) -> Option<String> {
    match path {
        // Indexed under the name its conversion admits, from the count it stands for.
        "status.successful" => Some(
            object
                .pointer("/status/succeeded")
                .and_then(Value::as_i64)
                .unwrap_or(0)
                .to_string(),
        ),
        _ => object::field_text(object, path),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn unset_fields_should_be_selected_by_their_zero_value() {
        let nodes = ResourceInfo::builtin("", "v1", "Node", "nodes");
        let value = nodes.field_selector_value();
        assert_eq!(
            value(&json!({"spec": {}}), "spec.unschedulable").as_deref(),
            Some("false")
        );
        assert_eq!(
            value(&json!({"spec": {"unschedulable": true}}), "spec.unschedulable").as_deref(),
            Some("true")
        );
        assert_eq!(nodes.field_selector_paths(), ["metadata.name", "spec.unschedulable"]);
        let jobs = ResourceInfo::builtin("batch", "v1", "Job", "jobs");
        assert_eq!(
            (jobs.field_selector_value())(&json!({}), "status.successful").as_deref(),
            Some("0")
        );
        assert_eq!(
            jobs.unsupported_field_message("spec.x").as_deref(),
            Some("field label \"spec.x\" not supported for Job")
        );
    }
}
