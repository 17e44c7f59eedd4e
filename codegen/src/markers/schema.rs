//! What each marker means in an OpenAPI schema, as controller-gen's `crd` generator applies it:
//! JSON merged into the schema of the field or type it is on, a change to the parent's
//! `required` list, or a replacement of the schema.

use heck::ToLowerCamelCase;
use serde_json::{Map, Value, json};

use super::{Marker, Value as MarkerValue};

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
        "optional" | "k8s:optional" | "kubebuilder:validation:Optional" => Some(SchemaEffect::Required(false)),
        "required" | "k8s:required" | "kubebuilder:validation:Required" => Some(SchemaEffect::Required(true)),
        "nullable" => keyed("nullable", Value::Bool(true)),
        "default" | "kubebuilder:default" => keyed("default", any(value?)),
        "kubebuilder:example" => keyed("example", any(value?)),
        "kubebuilder:validation:Enum" => keyed("enum", any_list(value?)),
        "kubebuilder:validation:XPreserveUnknownFields" | "kubebuilder:pruning:PreserveUnknownFields" => {
            keyed("x-kubernetes-preserve-unknown-fields", Value::Bool(true))
        }
        "kubebuilder:validation:XEmbeddedResource" | "kubebuilder:validation:EmbeddedResource" => {
            keyed("x-kubernetes-embedded-resource", Value::Bool(true))
        }
        "kubebuilder:validation:XIntOrString" => keyed("x-kubernetes-int-or-string", Value::Bool(true)),
        "kubebuilder:validation:Schemaless" => Some(SchemaEffect::Replace(json!({}))),
        "kubebuilder:validation:XValidation" => {
            let mut rule = Map::new();
            for (key, value) in &marker.args {
                rule.insert(key.clone(), plain(value));
            }
            keyed("x-kubernetes-validations", Value::Array(vec![Value::Object(rule)]))
        }
        "k8s:immutable" => keyed(
            "x-kubernetes-validations",
            json!([{ "rule": "self == oldSelf", "message": "Value is immutable" }]),
        ),
        "listType" => keyed("x-kubernetes-list-type", plain(value?)),
        "listMapKey" => keyed("x-kubernetes-list-map-keys", Value::Array(vec![plain(value?)])),
        "mapType" | "structType" => keyed("x-kubernetes-map-type", plain(value?)),
        _ => {
            let property = name.strip_prefix("kubebuilder:validation:")?;
            let key = match property {
                "Minimum" | "Maximum" | "ExclusiveMinimum" | "ExclusiveMaximum" | "MultipleOf" | "MinLength"
                | "MaxLength" | "MinItems" | "MaxItems" | "MinProperties" | "MaxProperties" | "Pattern" | "Format"
                | "Type" => property.to_lower_camel_case(),
                _ => return None,
            };
            keyed(&key, plain(value?))
        }
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
}
