//! Validation of Namespaces as kube-apiserver's `pkg/apis/core/validation/validation.go` has
//! it: `ValidateNamespace` (the spec's finalizer names), `ValidateNamespaceUpdate`,
//! `ValidateNamespaceStatusUpdate` (the phase agrees with `deletionTimestamp`) and
//! `ValidateNamespaceFinalizeUpdate`, less the object metadata checked for every kind, run as
//! the strategies of `pkg/registry/core/namespace/strategy.go` run them: an update of the
//! namespace validates it as new and as an update, `/status` and `/finalize` only as theirs.
//!
//! A ServiceAccount has no rules of its own here: `ValidateServiceAccount` is its metadata
//! (a DNS subdomain name), which every kind's metadata check covers.

use serde_json::Value;

use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::names::qualified_name_errors;
use crate::storage::object;

/// `helper.IsStandardFinalizerName`: the finalizers that need no domain prefix.
const STANDARD_FINALIZERS: &[&str] = &["kubernetes", "orphan", "foregroundDeletion"];

/// `ValidateNamespace`: each of the spec's finalizers a valid finalizer name. Go reports them
/// all under `spec.finalizers`, without an index.
pub(crate) fn namespace_errors(namespace: &Value) -> Vec<FieldError> {
    finalizers_errors(namespace.pointer("/spec/finalizers"), false)
}

/// The update of a namespace: `ValidateNamespace` and `ValidateNamespaceUpdate` (metadata
/// alone) on the object `PrepareForUpdate` made, which has the stored spec finalizers (and
/// status) whatever was sent, so a sent finalizer is never refused here.
pub(crate) fn namespace_update_errors(_new: &Value, old: &Value) -> Vec<FieldError> {
    finalizers_errors(old.pointer("/spec/finalizers"), false)
}

/// `ValidateNamespaceStatusUpdate`: a namespace is `Active` until it is deleted, and
/// `Terminating` after.
pub(crate) fn namespace_status_update_errors(namespace: &Value) -> Vec<FieldError> {
    // The v1 defaults make an empty phase `Active` (`SetDefaults_NamespaceStatus`).
    let phase = match namespace.pointer("/status/phase").and_then(Value::as_str) {
        None | Some("") => "Active",
        Some(phase) => phase,
    };
    let deleted = namespace
        .pointer("/metadata/deletionTimestamp")
        .is_some_and(|t| !t.is_null());
    let (wanted, detail) = if deleted {
        (
            "Terminating",
            "may only be 'Terminating' if `deletionTimestamp` is not empty",
        )
    } else {
        ("Active", "may only be 'Active' if `deletionTimestamp` is empty")
    };
    if phase == wanted {
        return Vec::new();
    }
    // Go names the field after the internal struct's `Phase`, capitalized.
    vec![FieldError::invalid("status.Phase", phase.into(), detail)]
}

/// `ValidateNamespaceFinalizeUpdate`: the finalizers written through `/finalize`, each with
/// its index this time.
pub(crate) fn namespace_finalize_update_errors(namespace: &Value) -> Vec<FieldError> {
    finalizers_errors(namespace.pointer("/spec/finalizers"), true)
}

fn finalizers_errors(finalizers: Option<&Value>, indexed: bool) -> Vec<FieldError> {
    let mut errors = Vec::new();
    for (i, finalizer) in object::string_list(finalizers).iter().enumerate() {
        let field = if indexed {
            format!("spec.finalizers[{i}]")
        } else {
            "spec.finalizers".to_owned()
        };
        errors.extend(finalizer_name_errors(finalizer, &field));
    }
    errors
}

/// `validateFinalizerName`: a qualified name (apimachinery's `ValidateFinalizerName`), and
/// one without a `/` must be a standard finalizer (`validateKubeFinalizerName`).
pub(crate) fn finalizer_name_errors(name: &str, field: &str) -> Vec<FieldError> {
    let shown = || BadValue::from(name);
    let mut errors: Vec<FieldError> = qualified_name_errors(name)
        .into_iter()
        .map(|why| FieldError::invalid(field, shown(), why))
        .collect();
    errors.extend(kube_finalizer_errors(name, field));
    errors
}

/// `validateKubeFinalizerName`: a finalizer without a `/` must be a standard one.
pub(crate) fn kube_finalizer_errors(name: &str, field: &str) -> Vec<FieldError> {
    if name.contains('/') || STANDARD_FINALIZERS.contains(&name) {
        return Vec::new();
    }
    let why = "name is neither a standard finalizer name nor is it fully qualified";
    vec![FieldError::invalid(field, BadValue::from(name), why)]
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    use crate::semantics::field_error::rendered as fields;

    #[test]
    fn finalizers_need_a_prefix_unless_standard() {
        assert!(finalizer_name_errors("kubernetes", "f").is_empty());
        assert!(finalizer_name_errors("orphan", "f").is_empty());
        assert!(finalizer_name_errors("example.com/keep", "f").is_empty());
        assert_eq!(
            fields(finalizer_name_errors("foo", "f")),
            vec![r#"f: Invalid value: "foo": name is neither a standard finalizer name nor is it fully qualified"#]
        );
        // Two slashes: not a qualified name, but not unprefixed either.
        assert_eq!(finalizer_name_errors("a/b/c", "f").len(), 1);
        // Not a qualified name and not prefixed: both.
        assert_eq!(finalizer_name_errors("bad name", "f").len(), 2);
    }

    #[test]
    fn create_names_the_list_and_finalize_the_items() {
        let namespace = json!({"spec": {"finalizers": ["kubernetes", "foo"]}});
        assert_eq!(namespace_errors(&namespace)[0].field, "spec.finalizers");
        assert_eq!(
            namespace_finalize_update_errors(&namespace)[0].field,
            "spec.finalizers[1]"
        );
    }

    #[test]
    fn an_update_validates_the_stored_finalizers() {
        let old = json!({"spec": {"finalizers": ["kubernetes"]}});
        let new = json!({"spec": {"finalizers": ["foo"]}});
        assert!(namespace_update_errors(&new, &old).is_empty());
    }

    #[test]
    fn the_phase_follows_the_deletion() {
        let status = |phase: &str, deleted: bool| {
            let mut namespace = json!({"metadata": {}, "status": {"phase": phase}});
            if deleted {
                namespace["metadata"]["deletionTimestamp"] = json!("2024-01-01T00:00:00Z");
            }
            namespace_status_update_errors(&namespace)
        };
        assert!(status("Active", false).is_empty());
        assert!(status("", false).is_empty());
        assert!(status("Terminating", true).is_empty());
        assert_eq!(
            fields(status("Bogus", false)),
            vec![r#"status.Phase: Invalid value: "Bogus": may only be 'Active' if `deletionTimestamp` is empty"#]
        );
        assert_eq!(
            fields(status("Active", true)),
            vec![
                r#"status.Phase: Invalid value: "Active": may only be 'Terminating' if `deletionTimestamp` is not empty"#
            ]
        );
    }
}
