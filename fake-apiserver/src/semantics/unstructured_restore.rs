//! Why a strategic merge patch's result cannot be turned back into its kind's struct, in the
//! words of `runtime.DefaultUnstructuredConverter.FromUnstructured` (apimachinery's
//! `runtime/converter.go`): the patched map is converted field by field, not decoded as JSON,
//! so a list given as a map is `cannot restore slice from map`, not an `encoding/json` error.

use serde_json::Value;

use crate::semantics::typed;
use crate::storage::resource::ResourceInfo;

/// What `fromUnstructured` says of the first value of `object` its kind's struct cannot take;
/// `None` when every value fits, or the destination is a type with its own unmarshaller
/// (a quantity, a time, an int-or-string), whose words are not ported.
pub(crate) fn restore_error(info: &ResourceInfo, object: &Value) -> Option<String> {
    let (_, found, expected) = typed::type_mismatch(info, object)?;
    let source = source_kind(&found)?;
    let destination = Destination::of(&expected)?;
    Some(match destination {
        Destination::Slice => format!("cannot restore slice from {source}"),
        Destination::Map => format!("cannot restore map from {source}"),
        Destination::Struct => format!("cannot restore struct from: {source}"),
        // Go converts an integer to a string (to its rune), which the converter then refuses;
        // a whole float to an integer type it accepts, which serde does not.
        Destination::Scalar(go_type) => match (source, go_type) {
            ("int64", "string") => "cannot convert int64 to string".to_owned(),
            ("float64", "int32" | "int64") => format!("cannot convert float64 to {go_type}"),
            _ => format!("unrecognized type: {go_type}"),
        },
    })
}

/// The `reflect.Kind` of a JSON value as `json.Unmarshal` decodes it into `interface{}` with
/// integers preserved, from serde's description of it.
fn source_kind(found: &str) -> Option<&'static str> {
    Some(match found.split(' ').next()? {
        "map" => "map",
        "sequence" => "slice",
        "string" => "string",
        "integer" => "int64",
        "floating" => "float64",
        "boolean" => "bool",
        // A null is the zero value to the converter: nothing to refuse.
        _ => return None,
    })
}

/// The kind of Go value a field holds, from serde's `expected …`.
#[derive(Debug, PartialEq)]
enum Destination {
    Slice,
    Map,
    Struct,
    Scalar(&'static str),
}

impl Destination {
    /// From serde's `expected …`, through the Go type the JSON decoder would name
    /// ([`typed::go_type_of`]); k8s-openapi names its structs, and its quantities, times and
    /// int-or-strings have unmarshallers of their own.
    fn of(expected: &str) -> Option<Self> {
        if expected.contains("Quantity") || expected.contains("Time") || expected.contains("IntOrString") {
            return None;
        }
        Some(match typed::go_type_of(&format!("expected {expected}")) {
            "[]interface {}" => Self::Slice,
            "map[string]interface {}" if expected.starts_with("a map") => Self::Map,
            "map[string]interface {}" => Self::Struct,
            scalar => Self::Scalar(scalar),
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn deployment() -> ResourceInfo {
        ResourceInfo::builtin("apps", "v1", "Deployment", "deployments")
    }

    fn with_containers(containers: Value) -> Value {
        json!({"metadata": {"name": "d"}, "spec": {"selector": {}, "template": {"spec": {"containers": containers}}}})
    }

    #[test]
    fn a_list_given_as_a_map_should_not_be_restored() {
        let object = with_containers(json!({"name": "app"}));
        assert_eq!(
            restore_error(&deployment(), &object).as_deref(),
            Some("cannot restore slice from map")
        );
    }

    #[test]
    fn scalars_should_be_refused_in_the_converter_words() {
        let object = with_containers(json!([{"name": "app", "image": 5}]));
        assert_eq!(
            restore_error(&deployment(), &object).as_deref(),
            Some("cannot convert int64 to string")
        );
        let object = with_containers(json!([{"name": "app", "tty": "yes"}]));
        assert_eq!(
            restore_error(&deployment(), &object).as_deref(),
            Some("unrecognized type: bool")
        );
        let object = with_containers(json!(["app"]));
        assert_eq!(
            restore_error(&deployment(), &object).as_deref(),
            Some("cannot restore struct from: string")
        );
    }

    #[test]
    fn an_object_that_fits_should_be_restored() {
        let object = with_containers(json!([{"name": "app", "image": "nginx"}]));
        assert_eq!(restore_error(&deployment(), &object), None);
    }
}
