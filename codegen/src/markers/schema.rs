//! What each marker means in an OpenAPI schema, as controller-gen's `crd` generator applies it:
//! JSON merged into the schema of the field or type it is on, a change to the parent's
//! `required` list, or a replacement of the schema.

use heck::ToLowerCamelCase;
use serde_json::{Map, Value, json};

use super::{Marker, Value as MarkerValue};
use crate::symbol::*;

/// A marker's effect on the schema where it applies.
#[derive(Clone, Debug, PartialEq)]
pub enum SchemaEffect {
    /// Merge these keys (lists of validations and map keys append).
    Merge(Value),
    /// The field is required (true) or optional (false) in its parent.
    Required(bool),
    /// The schema becomes this one (`+kubebuilder:validation:Schemaless`).
    Replace(Value),
}

/// The schema effect of `marker`, if it has one; markers that shape the CRD elsewhere (names,
/// subresources, columns) or nothing (RBAC) have none.
pub fn effect(marker: &Marker) -> Option<SchemaEffect> {
    let value = marker.value.as_ref();
    let keyed = |key: &str, value: Value| Some(SchemaEffect::Merge(json!({ key: value })));
    let name = marker.name;
    match name {
        OPTIONAL | K8S_OPTIONAL | VALIDATION_OPTIONAL => Some(SchemaEffect::Required(false)),
        REQUIRED | K8S_REQUIRED | VALIDATION_REQUIRED => Some(SchemaEffect::Required(true)),
        NULLABLE => keyed("nullable", Value::Bool(true)),
        DEFAULT | KUBEBUILDER_DEFAULT => keyed("default", any(value?)),
        EXAMPLE => keyed("example", any(value?)),
        VALIDATION_ENUM => keyed("enum", any_list(value?)),
        VALIDATION_X_PRESERVE_UNKNOWN_FIELDS | PRUNING_PRESERVE_UNKNOWN_FIELDS => {
            keyed("x-kubernetes-preserve-unknown-fields", Value::Bool(true))
        }
        VALIDATION_X_EMBEDDED_RESOURCE | VALIDATION_EMBEDDED_RESOURCE => {
            keyed("x-kubernetes-embedded-resource", Value::Bool(true))
        }
        VALIDATION_X_INT_OR_STRING => keyed("x-kubernetes-int-or-string", Value::Bool(true)),
        VALIDATION_SCHEMALESS => Some(SchemaEffect::Replace(json!({}))),
        VALIDATION_X_VALIDATION => {
            let mut rule = Map::new();
            for (key, value) in &marker.args {
                // `optionalOldSelf=false` is the default: written out, it is a field Kubernetes
                // before 1.30 refuses, so it is emitted as nothing.
                if key == arg::OPTIONAL_OLD_SELF && matches!(value, MarkerValue::Bool(false)) {
                    continue;
                }
                rule.insert(key.clone(), plain(value));
            }
            keyed("x-kubernetes-validations", Value::Array(vec![Value::Object(rule)]))
        }
        K8S_IMMUTABLE => keyed(
            "x-kubernetes-validations",
            json!([{ "rule": "self == oldSelf", "message": "Value is immutable" }]),
        ),
        LIST_TYPE => keyed("x-kubernetes-list-type", plain(value?)),
        LIST_MAP_KEY => keyed("x-kubernetes-list-map-keys", Value::Array(vec![plain(value?)])),
        MAP_TYPE | STRUCT_TYPE => keyed("x-kubernetes-map-type", plain(value?)),
        // The OpenAPI property is the marker's last word in lowerCamel: Minimum → minimum.
        VALIDATION_MINIMUM
        | VALIDATION_MAXIMUM
        | VALIDATION_EXCLUSIVE_MINIMUM
        | VALIDATION_EXCLUSIVE_MAXIMUM
        | VALIDATION_MULTIPLE_OF
        | VALIDATION_MIN_LENGTH
        | VALIDATION_MAX_LENGTH
        | VALIDATION_MIN_ITEMS
        | VALIDATION_MAX_ITEMS
        | VALIDATION_MIN_PROPERTIES
        | VALIDATION_MAX_PROPERTIES
        | VALIDATION_PATTERN
        | VALIDATION_FORMAT
        | VALIDATION_TYPE => {
            let property = name.strip_prefix(VALIDATION_PREFIX)?;
            keyed(&property.to_lower_camel_case(), plain(value?))
        }
        _ => None,
    }
}

/// A typed marker value as JSON.
fn plain(value: &MarkerValue) -> Value {
    match value {
        MarkerValue::String(s) => Value::String(s.clone()),
        MarkerValue::Int(i) => Value::from(*i),
        // Whole numbers print as integers, as controller-gen writes `minimum: 1`.
        MarkerValue::Number(n) if n.fract() == 0.0 && n.abs() < 1e15 => Value::from(*n as i64),
        MarkerValue::Number(n) => Value::from(*n),
        MarkerValue::Bool(b) => Value::Bool(*b),
        MarkerValue::List(items) => Value::Array(items.iter().cloned().map(Value::String).collect()),
        MarkerValue::Raw(raw) => any_text(raw),
    }
}

/// A value of any type (`+default`, `+kubebuilder:example`): JSON when it parses as JSON, else
/// the text as a string, as controller-gen reads `+kubebuilder:default=Always`.
fn any(value: &MarkerValue) -> Value {
    match value {
        MarkerValue::Raw(raw) => any_text(raw),
        other => plain(other),
    }
}

fn any_text(raw: &str) -> Value {
    serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.to_owned()))
}

/// Enum values: each item JSON when it parses as a number, boolean or null, else a string.
fn any_list(value: &MarkerValue) -> Value {
    match value {
        MarkerValue::List(items) => Value::Array(
            items
                .iter()
                .map(|item| match serde_json::from_str::<Value>(item) {
                    Ok(v @ (Value::Number(_) | Value::Bool(_) | Value::Null)) => v,
                    _ => Value::String(item.clone()),
                })
                .collect(),
        ),
        other => Value::Array(vec![plain(other)]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Diagnostics;
    use crate::markers::{Target, parse};
    use crate::tags::Tag;

    fn effect_of(line: &str) -> Option<SchemaEffect> {
        let (key, value) = line.split_once('=').unwrap_or((line, ""));
        let tag = Tag {
            key: key.to_owned(),
            value: value.to_owned(),
            span: proc_macro2::Span::call_site(),
        };
        let mut diagnostics = Diagnostics::default();
        let marker = parse(&tag, Target::Field, &mut diagnostics).unwrap();
        assert!(diagnostics.is_empty());
        effect(&marker)
    }

    fn merge(value: Value) -> Option<SchemaEffect> {
        Some(SchemaEffect::Merge(value))
    }

    #[test]
    fn validation_markers_should_become_schema_properties() {
        assert_eq!(
            effect_of("kubebuilder:validation:Minimum=1"),
            merge(json!({"minimum": 1}))
        );
        assert_eq!(
            effect_of("kubebuilder:validation:Maximum=2.5"),
            merge(json!({"maximum": 2.5}))
        );
        assert_eq!(
            effect_of("kubebuilder:validation:MaxLength=63"),
            merge(json!({"maxLength": 63}))
        );
        assert_eq!(
            effect_of("kubebuilder:validation:Pattern=`^[a-z]+$`"),
            merge(json!({"pattern": "^[a-z]+$"}))
        );
        assert_eq!(
            effect_of("kubebuilder:validation:Enum=Always;Never;1"),
            merge(json!({"enum": ["Always", "Never", 1]}))
        );
        assert_eq!(
            effect_of(r#"kubebuilder:validation:XValidation:rule="self > 0",message="positive""#),
            merge(json!({"x-kubernetes-validations": [{"rule": "self > 0", "message": "positive"}]}))
        );
        assert_eq!(
            effect_of(r#"kubebuilder:validation:XValidation:rule="self > 0",optionalOldSelf=false"#),
            merge(json!({"x-kubernetes-validations": [{"rule": "self > 0"}]})),
            "the default is not written: Kubernetes 1.28 does not know the field"
        );
    }

    #[test]
    fn defaults_requiredness_and_topology_should_follow_controller_gen() {
        assert_eq!(
            effect_of("kubebuilder:default=Always"),
            merge(json!({"default": "Always"}))
        );
        assert_eq!(effect_of(r#"default={"a":1}"#), merge(json!({"default": {"a": 1}})));
        assert_eq!(effect_of("kubebuilder:default=3"), merge(json!({"default": 3})));
        assert_eq!(effect_of("optional"), Some(SchemaEffect::Required(false)));
        assert_eq!(effect_of("k8s:required"), Some(SchemaEffect::Required(true)));
        assert_eq!(
            effect_of("listType=map"),
            merge(json!({"x-kubernetes-list-type": "map"}))
        );
        assert_eq!(
            effect_of("listMapKey=name"),
            merge(json!({"x-kubernetes-list-map-keys": ["name"]}))
        );
        assert_eq!(
            effect_of("kubebuilder:validation:Schemaless"),
            Some(SchemaEffect::Replace(json!({})))
        );
    }

    #[test]
    fn every_marker_should_shape_the_schema_or_be_read_elsewhere() {
        use crate::markers::syntax::{example, typed};
        use crate::markers::table::SPECS;
        // Read by the CRD model, by rbac, by the apply configurations, or accepted as
        // controller-gen accepts them.
        let elsewhere: Vec<&str> = crate::model::CRD_MARKERS
            .into_iter()
            .chain([
                OBJECT_ROOT,
                RBAC,
                OBJECT_GENERATE,
                SKIP,
                K8S_ENUM,
                VALIDATION_UNIQUE_ITEMS,
                APPLYCONFIGURATION_GEN,
            ])
            .collect();
        for spec in SPECS {
            let marker = Marker {
                name: spec.name,
                value: spec.value.map(|kind| typed(example(kind), kind).unwrap()),
                args: Default::default(),
                items: false,
                span: proc_macro2::Span::call_site(),
            };
            assert_ne!(
                effect(&marker).is_some(),
                elsewhere.contains(&spec.name),
                "+{} must have a schema effect or be read elsewhere, not both or neither",
                spec.name
            );
        }
    }
}
