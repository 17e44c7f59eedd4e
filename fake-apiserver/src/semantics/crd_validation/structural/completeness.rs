//! `validateStructuralCompleteness` (`complete.go`): every field or array item a junctor of the
//! root speaks of must also be specified in the skeleton.
//!
//! Go starts from the root's junctors only: a junctor inside a property is checked against nothing,
//! which kube-apiserver v1.28.7 confirms by accepting `properties.spec.allOf[0].properties.x`
//! without `properties.spec.properties.x`.

use serde_json::Value;

use super::{child, index, items, key, list, properties, property, set};
use crate::semantics::field_error::FieldError;

/// The completeness errors of the structural schema `s` at `path`.
pub(super) fn check(s: &Value, path: &str, errors: &mut Vec<FieldError>) {
    value_validation(s, s, path, path, errors);
}

/// `validateValueValidationCompleteness`: the junctors of `v` (at `v_path`) against the skeleton
/// `s` (at `s_path`).
fn value_validation(v: &Value, s: &Value, s_path: &str, v_path: &str, errors: &mut Vec<FieldError>) {
    if let Some(not) = set(v, "not") {
        nested(not, Some(s), s_path, &child(v_path, "not"), errors);
    }
    for junctor in ["allOf", "anyOf", "oneOf"] {
        for (i, clause) in list(v, junctor).iter().enumerate() {
            nested(clause, Some(s), s_path, &index(&child(v_path, junctor), i), errors);
        }
    }
}

/// `validateNestedValueValidationCompleteness`: the clause `v` against the skeleton `s`, which is
/// `None` where the skeleton lacks the items `v` speaks of.
fn nested(v: &Value, s: Option<&Value>, s_path: &str, v_path: &str, errors: &mut Vec<FieldError>) {
    let Some(s) = s else {
        errors.push(FieldError::required(
            s_path,
            format!("because it is defined in {v_path}"),
        ));
        return;
    };
    value_validation(v, s, s_path, v_path, errors);
    if let Some(v_items) = items(v) {
        nested(
            v_items,
            items(s),
            &child(s_path, "items"),
            &child(v_path, "items"),
            errors,
        );
    }
    for (name, v_property) in properties(v) {
        let s_field = key(&child(s_path, "properties"), name);
        let v_field = key(&child(v_path, "properties"), name);
        match property(s, name) {
            Some(s_property) => nested(v_property, Some(s_property), &s_field, &v_field, errors),
            None => errors.push(FieldError::required(
                s_field,
                format!("because it is defined in {v_field}"),
            )),
        }
    }
    // `additionalProperties` is forbidden in a junctor anyway, so Go does not look at it here.
}
