//! encoding/json's `Marshal` of a Go value (`encoding/json/encode.go`: a struct's fields by their
//! `json` names, an `omitempty` field left out at its zero value and any other written, a nil
//! pointer, slice or map as `null`; `MarshalJSON` of `resource.Quantity`, `metav1.Time` and
//! `intstr.IntOrString`), built from the JSON of the object and a Go type table of `go_types`.
//!
//! The value encoded is the one kube-controller-manager holds after its informers' protobuf
//! decode: an empty list or map arrives as `nil` (left out when `omitempty`, `null` otherwise), a
//! pointer is set exactly when its field was present, and a quantity is written in its canonical
//! form. The ControllerRevisions of StatefulSets and DaemonSets store a template encoded so.

use serde_json::{Map, Value};

use crate::semantics::go_types::GoTypes;
use crate::semantics::quantity::Quantity;

/// The JSON encoding/json writes for `value` as a value of the table's root type.
pub(crate) fn encode(types: &GoTypes, value: &Value) -> Value {
    Encoder { types }.encode(types.root(), Some(value))
}

struct Encoder<'a> {
    types: &'a GoTypes,
}

impl Encoder<'_> {
    /// The value of type `id` (`None`: the zero value, or a field that was absent).
    fn encode(&self, id: &str, value: Option<&Value>) -> Value {
        let value = value.filter(|v| !v.is_null());
        let ty = self.types.get(id);
        match ty.kind.as_str() {
            "ptr" => match value {
                Some(value) => self.encode(ty.elem.as_deref().unwrap_or_default(), Some(value)),
                None => Value::Null,
            },
            "struct" if id == "intstr.IntOrString" => value.cloned().unwrap_or(Value::from(0)),
            "struct" => {
                let mut out = Map::new();
                self.encode_fields(id, value, &mut out);
                Value::Object(out)
            }
            "slice" => match value.and_then(Value::as_array).filter(|items| !items.is_empty()) {
                Some(items) => {
                    let elem = ty.elem.as_deref().unwrap_or_default();
                    Value::Array(items.iter().map(|item| self.encode(elem, Some(item))).collect())
                }
                None => Value::Null,
            },
            "map" => match value.and_then(Value::as_object).filter(|entries| !entries.is_empty()) {
                Some(entries) => {
                    let elem = ty.elem.as_deref().unwrap_or_default();
                    let encoded = entries
                        .iter()
                        .map(|(key, item)| (key.clone(), self.encode(elem, Some(item))));
                    Value::Object(encoded.collect())
                }
                None => Value::Null,
            },
            "string" => Value::from(value.and_then(Value::as_str).unwrap_or_default()),
            "bool" => Value::from(value.and_then(Value::as_bool).unwrap_or(false)),
            // `Quantity.MarshalJSON`: the canonical form ("0" for the zero value).
            "quantity" => {
                let parsed = value
                    .and_then(Value::as_str)
                    .and_then(|text| Quantity::parse(text).ok());
                Value::from(parsed.map_or_else(|| "0".to_owned(), |q| q.to_string()))
            }
            // `metav1.Time.MarshalJSON`: `null` for the zero time.
            "time" => value.cloned().unwrap_or(Value::Null),
            _ => value.cloned().unwrap_or(Value::from(0)),
        }
    }

    /// A struct's fields into `out`, an inline struct's among them.
    fn encode_fields(&self, id: &str, value: Option<&Value>, out: &mut Map<String, Value>) {
        for field in self.types.get(id).fields() {
            if field.inline() {
                self.encode_fields(field.type_id(), value, out);
                continue;
            }
            let field_value = value.and_then(|v| v.get(field.json_name()));
            if field.omit_empty() && self.is_empty(field.type_id(), field_value) {
                continue;
            }
            out.insert(field.json_name().to_owned(), self.encode(field.type_id(), field_value));
        }
    }

    /// encoding/json's `isEmptyValue` of the decoded value: false, 0, "", a nil pointer, an
    /// empty slice or map. A struct is never empty.
    fn is_empty(&self, id: &str, value: Option<&Value>) -> bool {
        let kind = self.types.get(id).kind.as_str();
        // A quantity and a time are Go structs too.
        let is_struct = matches!(kind, "struct" | "quantity" | "time");
        let Some(value) = value.filter(|v| !v.is_null()) else {
            return !is_struct;
        };
        match kind {
            "ptr" => false,
            _ if is_struct => false,
            _ => match value {
                Value::Bool(b) => !b,
                Value::Number(n) => n.as_f64() == Some(0.0),
                Value::String(s) => s.is_empty(),
                Value::Array(items) => items.is_empty(),
                Value::Object(entries) => entries.is_empty(),
                Value::Null => true,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::encode;
    use crate::semantics::go_types::pod_template_types;

    /// What kube-controller-manager v1.28.7 stored as a StatefulSet's revision (holdout-24).
    #[test]
    fn a_template_should_encode_as_encoding_json_writes_it() {
        let template = json!({
            "metadata": {"labels": {"app": "web"}, "annotations": {"note": "one"}},
            "spec": {
                "containers": [{
                    "name": "main", "image": "registry.example/web:1",
                    "volumeMounts": [{"name": "data", "mountPath": "/data"}],
                    "resources": {}, "terminationMessagePath": "/dev/termination-log",
                    "terminationMessagePolicy": "File", "imagePullPolicy": "IfNotPresent",
                }],
                "restartPolicy": "Always", "terminationGracePeriodSeconds": 30,
                "dnsPolicy": "ClusterFirst", "securityContext": {}, "schedulerName": "default-scheduler",
            },
        });
        let want = json!({
            "metadata": {"annotations": {"note": "one"}, "creationTimestamp": null, "labels": {"app": "web"}},
            "spec": {
                "containers": [{
                    "image": "registry.example/web:1", "imagePullPolicy": "IfNotPresent", "name": "main",
                    "resources": {}, "terminationMessagePath": "/dev/termination-log",
                    "terminationMessagePolicy": "File",
                    "volumeMounts": [{"mountPath": "/data", "name": "data"}],
                }],
                "dnsPolicy": "ClusterFirst", "restartPolicy": "Always", "schedulerName": "default-scheduler",
                "securityContext": {}, "terminationGracePeriodSeconds": 30,
            },
        });
        for minor in [28, 31] {
            assert_eq!(encode(pod_template_types(minor), &template), want, "1.{minor}");
        }
    }
}
