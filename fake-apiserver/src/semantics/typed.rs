//! Built-in kinds decoded as kube-apiserver decodes them into their Go structs: a field the
//! type does not have is dropped, and is an unknown field for `fieldValidation`.
//!
//! The k8s-openapi type of the kind stands in for the Go struct: the body goes through it and
//! back, and every key of the body that did not come back is unknown. A body the type cannot
//! take at all (a string where a number belongs) is refused as Go's `encoding/json` refuses it,
//! naming the field's JSON path, the Go struct that declares it (from the built-in shapes) and
//! its Go type.

use k8s_openapi::api::admissionregistration::v1::{MutatingWebhookConfiguration, ValidatingWebhookConfiguration};
use k8s_openapi::api::apps::v1::{ControllerRevision, DaemonSet, Deployment, ReplicaSet, StatefulSet};
use k8s_openapi::api::autoscaling::v1::{HorizontalPodAutoscaler as HorizontalPodAutoscalerV1, Scale};
use k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscaler;
use k8s_openapi::api::batch::v1::{CronJob, Job};
use k8s_openapi::api::certificates::v1::CertificateSigningRequest;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{
    ConfigMap, Endpoints, Event, LimitRange, Namespace, Node, PersistentVolume, PersistentVolumeClaim, Pod,
    PodTemplate, ReplicationController, ResourceQuota, Secret, Service, ServiceAccount,
};
use k8s_openapi::api::discovery::v1::EndpointSlice;
use k8s_openapi::api::events::v1::Event as EventsV1Event;
use k8s_openapi::api::flowcontrol::v1::{FlowSchema, PriorityLevelConfiguration};
use k8s_openapi::api::networking::v1::{Ingress, IngressClass, NetworkPolicy};
use k8s_openapi::api::node::v1::RuntimeClass;
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, Role, RoleBinding};
use k8s_openapi::api::scheduling::v1::PriorityClass;
use k8s_openapi::api::storage::v1::{CSIDriver, CSINode, CSIStorageCapacity, StorageClass, VolumeAttachment};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use k8s_openapi::kube_aggregator::pkg::apis::apiregistration::v1::APIService;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::semantics::flowcontrol_types::shares_field;
use crate::semantics::shape::Shape;
use crate::semantics::{flowcontrol_conversion, go_json, go_time_parse, go_type_names, minor_fields};
use crate::storage::resource::ResourceInfo;

/// Removes the fields of a built-in `object` its type in the emulated `minor` does not know,
/// below `metadata` (whose fields the decoder checks itself); returns their paths in path order
/// (`spec.replica`, `spec.template.spec.containers[0].imagePullPolcy`). Nothing for kinds
/// without a type here, or a body the type cannot take.
pub(crate) fn prune_unknown(info: &ResourceInfo, object: &mut Value, minor: u32) -> Vec<String> {
    let mut unknown = Vec::new();
    if let Some(Ok(decoded)) = through_type(info, object) {
        prune(object, &decoded, "", &mut unknown);
        // The k8s-openapi types are a later minor's: what they kept, the minor's own structs
        // may still not have.
        unknown.extend(minor_fields::prune_undeclared(info, object, minor));
        unknown.sort();
    }
    unknown
}

/// Why `object` cannot be decoded into its kind's type at all, in Go's words
/// (`json: cannot unmarshal number into Go struct field Kind.spec.x of type string`); `None`
/// when it can, or the kind has no type here.
pub(crate) fn decode_error(info: &ResourceInfo, object: &Value) -> Option<String> {
    let error = match through_type(info, object)? {
        Ok(decoded) => return micro_time_error(object, &decoded),
        Err(error) if error.inner().to_string().starts_with("invalid type: ") => error,
        Err(error) if error.inner().to_string().starts_with("invalid value: integer") => error,
        // A timestamp Go cannot parse either is refused in `time.Parse`'s words; other failures
        // (bad base64, a bad quantity) are the server's own checks to word.
        Err(error) => return time_error(info, object, &error.path().to_string()),
    };
    let mut path = error.path().to_string();
    if info.group == flowcontrol_conversion::GROUP {
        // The v1 type read the shares under their v1 name (`via_flowcontrol_v1`).
        path = path.replace(
            "limited.nominalConcurrencyShares",
            &format!("limited.{}", shares_field(&info.version)),
        );
    }
    let value = path_value(object, &path);
    let go_type = go_type_of(&error.inner().to_string());
    // A number an integer field cannot hold (a fraction, too large) is quoted, as Go's
    // `literalStore` quotes it; any other mismatch names only the JSON type.
    let found = match value {
        Some(Value::Number(number)) if go_type.starts_with("int") => format!("number {}", number_literal(number)),
        other => other.map_or("value", go_json::type_name).to_owned(),
    };
    let field = go_field_stack(info, &path);
    // Go names the struct that declares the field; the kind's own when the shapes do not say.
    let group_version_kind = format!("{}/{}/{}", info.group, info.version, info.kind);
    let declaring = go_type_names::go_struct_name(&group_version_kind, &field).unwrap_or_else(|| info.kind.clone());
    // serde only says it wanted a map: the field's own Go type says which.
    let go_type = match go_type {
        "map[string]interface {}" => {
            go_type_names::go_field_type(&group_version_kind, &field).unwrap_or_else(|| go_type.to_owned())
        }
        other => other.to_owned(),
    };
    Some(format!(
        "json: cannot unmarshal {found} into Go struct field {declaring}.{} of type {go_type}",
        field.join(".")
    ))
}

/// A JSON number as it was probably written: Go quotes the literal, which the decoded value
/// keeps but for its exponent form (`1e1` reads back as `10.0`).
fn number_literal(number: &serde_json::Number) -> String {
    match number.as_f64() {
        Some(float) if number.is_f64() => format!("{float:?}"),
        _ => number.to_string(),
    }
}

/// serde's description of the first value `object`'s type cannot take, and of what it wanted
/// (`("map", "a sequence")`), with that value's path; `None` when it takes them all or the kind
/// has no type here.
pub(crate) fn type_mismatch(info: &ResourceInfo, object: &Value) -> Option<(String, String, String)> {
    let error = through_type(info, object)?.err()?;
    let message = error.inner().to_string();
    let (found, expected) = message.strip_prefix("invalid type: ")?.split_once(", expected ")?;
    Some((error.path().to_string(), found.to_owned(), expected.to_owned()))
}

/// The fields of a serde path as Go's decoder names them in an `UnmarshalTypeError`: struct
/// fields only, without list indexes or the keys of maps (`data.port` of a ConfigMap is its
/// field `data`).
fn go_field_stack<'p>(info: &ResourceInfo, path: &'p str) -> Vec<&'p str> {
    let mut shape = Shape::of(info);
    let mut fields = Vec::new();
    for segment in path.split('.') {
        let mut parts = segment.split('[');
        let name = parts.next().unwrap_or(segment);
        if !shape.is_map() {
            fields.push(name);
        }
        shape = shape.child(name);
        for _ in parts {
            shape = shape.items();
        }
    }
    fields
}

/// `time.Parse`'s refusal of the `metav1.Time` or `MicroTime` string at `path`, if that is
/// what the field is and Go cannot parse it.
fn time_error(info: &ResourceInfo, object: &Value, path: &str) -> Option<String> {
    let text = path_value(object, path)?.as_str()?;
    let mut shape = Shape::of(info);
    for segment in path.split('.') {
        let mut parts = segment.split('[');
        shape = shape.child(parts.next()?);
        for _ in parts {
            shape = shape.items();
        }
    }
    match shape.definition()? {
        "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime" => go_time_parse::parse_error(text, true),
        "io.k8s.apimachinery.pkg.apis.meta.v1.Time" => go_time_parse::parse_error(text, false),
        _ => None,
    }
}

/// The value at a serde path (`spec.versions[0].deprecationWarning`).
fn path_value<'v>(object: &'v Value, path: &str) -> Option<&'v Value> {
    path.split('.').try_fold(object, |value, segment| {
        let mut parts = segment.split('[');
        let mut value = value.get(parts.next()?)?;
        for index in parts {
            value = value.get(index.trim_end_matches(']').parse::<usize>().ok()?)?;
        }
        Some(value)
    })
}

/// The Go type serde expected, from its "invalid type: …, expected …" message.
pub(crate) fn go_type_of(message: &str) -> &'static str {
    let expected = message.rsplit("expected ").next().unwrap_or_default();
    match expected {
        e if e.starts_with("a string") => "string",
        e if e.starts_with("a boolean") => "bool",
        e if e.starts_with("i32") || e.starts_with("u16") => "int32",
        e if e.starts_with("i64") || e.starts_with("u32") || e.starts_with("u64") => "int64",
        e if e.starts_with("f64") || e.starts_with("f32") => "float64",
        e if e.starts_with("a sequence") => "[]interface {}",
        // An int-or-string reads a number into its `IntVal`.
        e if e.contains("IntOrString") || e.contains("int or string") => "int32",
        _ => "map[string]interface {}",
    }
}

/// `object` decoded into the k8s-openapi type of `info`'s kind and encoded again, or where
/// decoding failed.
fn through_type(
    info: &ResourceInfo,
    object: &Value,
) -> Option<Result<Value, serde_path_to_error::Error<serde_json::Error>>> {
    fn via<K: DeserializeOwned + Serialize>(
        object: &Value,
    ) -> Option<Result<Value, serde_path_to_error::Error<serde_json::Error>>> {
        Some(
            serde_path_to_error::deserialize::<_, K>(object)
                .map(|typed| serde_json::to_value(typed).unwrap_or_default()),
        )
    }
    match (info.group.as_str(), info.version.as_str(), info.kind.as_str()) {
        ("", "v1", "Namespace") => via::<Namespace>(object),
        ("", "v1", "ConfigMap") => via::<ConfigMap>(object),
        ("", "v1", "Secret") => via::<Secret>(object),
        ("", "v1", "ServiceAccount") => via::<ServiceAccount>(object),
        ("", "v1", "Service") => via::<Service>(object),
        ("", "v1", "Pod") => via::<Pod>(object),
        ("", "v1", "Node") => via::<Node>(object),
        ("", "v1", "Event") => via::<Event>(object),
        ("apps", "v1", "Deployment") => via::<Deployment>(object),
        ("apps", "v1", "ReplicaSet") => via::<ReplicaSet>(object),
        ("apps", "v1", "StatefulSet") => via::<StatefulSet>(object),
        ("apps", "v1", "DaemonSet") => via::<DaemonSet>(object),
        ("admissionregistration.k8s.io", "v1", "ValidatingWebhookConfiguration") => {
            via::<ValidatingWebhookConfiguration>(object)
        }
        ("admissionregistration.k8s.io", "v1", "MutatingWebhookConfiguration") => {
            via::<MutatingWebhookConfiguration>(object)
        }
        ("apps", "v1", "ControllerRevision") => via::<ControllerRevision>(object),
        ("storage.k8s.io", "v1", "StorageClass") => via::<StorageClass>(object),
        ("storage.k8s.io", "v1", "CSIDriver") => via::<CSIDriver>(object),
        ("storage.k8s.io", "v1", "CSINode") => via::<CSINode>(object),
        ("storage.k8s.io", "v1", "CSIStorageCapacity") => via::<CSIStorageCapacity>(object),
        ("storage.k8s.io", "v1", "VolumeAttachment") => via::<VolumeAttachment>(object),
        ("batch", "v1", "Job") => via::<Job>(object),
        ("batch", "v1", "CronJob") => via::<CronJob>(object),
        ("", "v1", "Endpoints") => via::<Endpoints>(object),
        ("networking.k8s.io", "v1", "NetworkPolicy") => via::<NetworkPolicy>(object),
        ("policy", "v1", "PodDisruptionBudget") => via::<PodDisruptionBudget>(object),
        ("scheduling.k8s.io", "v1", "PriorityClass") => via::<PriorityClass>(object),
        ("discovery.k8s.io", "v1", "EndpointSlice") => via::<EndpointSlice>(object),
        ("node.k8s.io", "v1", "RuntimeClass") => via::<RuntimeClass>(object),
        ("networking.k8s.io", "v1", "Ingress") => via::<Ingress>(object),
        ("networking.k8s.io", "v1", "IngressClass") => via::<IngressClass>(object),
        ("", "v1", "PersistentVolumeClaim") => via::<PersistentVolumeClaim>(object),
        ("", "v1", "PodTemplate") => via::<PodTemplate>(object),
        ("", "v1", "PersistentVolume") => via::<PersistentVolume>(object),
        ("", "v1", "ResourceQuota") => via::<ResourceQuota>(object),
        ("", "v1", "LimitRange") => via::<LimitRange>(object),
        ("", "v1", "ReplicationController") => via::<ReplicationController>(object),
        ("certificates.k8s.io", "v1", "CertificateSigningRequest") => via::<CertificateSigningRequest>(object),
        // What a `/scale` subresource reads and writes.
        ("autoscaling", "v1", "Scale") => via::<Scale>(object),
        ("autoscaling", "v1", "HorizontalPodAutoscaler") => via::<HorizontalPodAutoscalerV1>(object),
        ("autoscaling", "v2", "HorizontalPodAutoscaler") => via::<HorizontalPodAutoscaler>(object),
        ("events.k8s.io", "v1", "Event") => via::<EventsV1Event>(object),
        ("coordination.k8s.io", "v1", "Lease") => via::<Lease>(object),
        ("rbac.authorization.k8s.io", "v1", "ClusterRole") => via::<ClusterRole>(object),
        ("rbac.authorization.k8s.io", "v1", "Role") => via::<Role>(object),
        ("rbac.authorization.k8s.io", "v1", "RoleBinding") => via::<RoleBinding>(object),
        ("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding") => via::<ClusterRoleBinding>(object),
        ("apiextensions.k8s.io", "v1", "CustomResourceDefinition") => via::<CustomResourceDefinition>(object),
        ("apiregistration.k8s.io", "v1", "APIService") => via::<APIService>(object),
        ("flowcontrol.apiserver.k8s.io", _, "FlowSchema") => via_flowcontrol_v1::<FlowSchema>(object),
        ("flowcontrol.apiserver.k8s.io", _, "PriorityLevelConfiguration") => {
            via_flowcontrol_v1::<PriorityLevelConfiguration>(object)
        }
        _ => None,
    }
}

/// A flowcontrol object of any served version through the v1 type: v1 is a copy of v1beta3
/// (its shares a pointer, the same on the wire), and v1beta2 differs by the name of its
/// shares, which the conversion renames both ways. The minor's own structs of the version
/// prune the rest (`minor_fields`).
fn via_flowcontrol_v1<K: DeserializeOwned + Serialize>(
    object: &Value,
) -> Option<Result<Value, serde_path_to_error::Error<serde_json::Error>>> {
    const V1: &str = "flowcontrol.apiserver.k8s.io/v1";
    let sent = object.get("apiVersion").and_then(Value::as_str).unwrap_or(V1);
    let as_v1 = flowcontrol_conversion::convert(object, sent, V1);
    Some(
        serde_path_to_error::deserialize::<_, K>(&as_v1)
            .map(|typed| flowcontrol_conversion::convert(&serde_json::to_value(typed).unwrap_or_default(), V1, sent)),
    )
}

/// Removes from `sent` the keys `decoded` lacks. A null is kept: a known optional field sent as
/// null does not come back either, and Go drops it all the same.
fn prune(sent: &mut Value, decoded: &Value, path: &str, unknown: &mut Vec<String>) {
    match (sent, decoded) {
        (Value::Object(sent), Value::Object(decoded)) => {
            sent.retain(|key, value| {
                if path.is_empty() && key == "metadata" {
                    return true;
                }
                let child_path = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                match decoded.get(key) {
                    Some(child) => {
                        prune(value, child, &child_path, unknown);
                        true
                    }
                    None if value.is_null() => true,
                    None => {
                        unknown.push(child_path);
                        false
                    }
                }
            });
        }
        (Value::Array(sent), Value::Array(decoded)) if sent.len() == decoded.len() => {
            for (i, (item, back)) in sent.iter_mut().zip(decoded).enumerate() {
                prune(item, back, &format!("{path}[{i}]"), unknown);
            }
        }
        // A `metav1.Time` or `MicroTime` is kept as Go encodes it again: in UTC, to the second
        // or the microsecond.
        (Value::String(sent), Value::String(decoded)) if sent != decoded && is_timestamp(sent) => {
            sent.clone_from(decoded);
        }
        _ => {}
    }
}

/// The first `metav1.MicroTime` of `sent` Go cannot parse with its layout, which wants exactly
/// six fractional digits (`MicroTime.UnmarshalJSON` with `RFC3339Micro`), in `time.Parse`'s
/// words; `decoded` (the k8s-openapi round trip) tells which strings are micro times.
fn micro_time_error(sent: &Value, decoded: &Value) -> Option<String> {
    match (sent, decoded) {
        (Value::Object(sent), Value::Object(decoded)) => sent
            .iter()
            .find_map(|(key, value)| micro_time_error(value, decoded.get(key)?)),
        (Value::Array(sent), Value::Array(decoded)) => sent
            .iter()
            .zip(decoded)
            .find_map(|(value, back)| micro_time_error(value, back)),
        (Value::String(sent), Value::String(decoded)) if is_micro_time(decoded) => {
            go_time_parse::parse_error(sent, true)
        }
        _ => None,
    }
}

/// Whether `text` is a micro time as k8s-openapi writes one (`….123456Z`).
fn is_micro_time(text: &str) -> bool {
    let bytes = text.as_bytes();
    is_timestamp(text) && bytes.len() == 27 && bytes[19] == b'.' && bytes[26] == b'Z'
}

/// Whether `text` reads as an RFC 3339 timestamp (`2026-01-01T00:00:00…`).
fn is_timestamp(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() >= 20
        && bytes[..4].iter().all(u8::is_ascii_digit)
        && bytes[4] == b'-'
        && bytes[7] == b'-'
        && bytes[10] == b'T'
        && bytes[13] == b':'
}

#[cfg(test)]
#[path = "typed_tests.rs"]
mod tests;
