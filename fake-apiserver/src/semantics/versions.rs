//! One stored object seen through several API versions. The versions of a CRD share their
//! objects (conversion strategy `None`): an object is stored in the storage version, pruned by
//! its schema, decoded with the schema of the version it was stored in (its defaults applied)
//! and shown in another version pruned by that one's (`customresource_handler.go`:
//! `schemaCoercingConverter`, `unstructuredSchemaCoercer`). events.k8s.io/v1 Events are core/v1
//! Events in storage, with fields renamed as kube-apiserver converts them; autoscaling/v1
//! HorizontalPodAutoscalers are autoscaling/v2 ones (`hpa_conversion`), the flowcontrol
//! versions the stored one converted (`flowcontrol_conversion`). A Service is decorated on
//! every read as its storage decorates it (`service_strategy::default_on_read`).

use std::borrow::Cow;

use serde_json::{Map, Value, json};

use crate::semantics::defaults::autoscaling;
use crate::semantics::{flowcontrol_conversion, hpa_conversion, hpa_strategy, schema, service_strategy, zero};
use crate::storage::resource::{Lifecycle, ResourceInfo};

/// events.k8s.io/v1 field ↔ core/v1 field (`pkg/apis/events/v1/conversion.go`).
const EVENT_FIELDS: &[(&str, &str)] = &[
    ("note", "message"),
    ("regarding", "involvedObject"),
    ("reportingController", "reportingComponent"),
    ("deprecatedSource", "source"),
    ("deprecatedFirstTimestamp", "firstTimestamp"),
    ("deprecatedLastTimestamp", "lastTimestamp"),
    ("deprecatedCount", "count"),
];

/// A stored object as `info`'s version (whose `apiVersion` is `api_version`, computed once per
/// request by the caller) shows it, defaults included.
pub(crate) fn view<'a>(info: &ResourceInfo, api_version: &str, stored: &'a Value) -> Cow<'a, Value> {
    if info.lifecycle != Lifecycle::CustomResource {
        let shown = converted(info, api_version, stored);
        return service_strategy::default_on_read(info, shown);
    }
    let stored_as = stored.get("apiVersion").and_then(Value::as_str).unwrap_or_default();
    let stored_schema = if stored_as == api_version {
        info.schema.as_ref()
    } else {
        info.version_schemas.get(version_of(stored_as))
    };
    let decoded = schema::on_read(info, stored_schema, Cow::Borrowed(stored));
    if stored_as == api_version {
        return decoded;
    }
    let mut shown = decoded.into_owned();
    shown["apiVersion"] = json!(api_version);
    if let Some(schema) = &info.schema {
        schema::coerce(schema, &mut shown);
    }
    Cow::Owned(shown)
}

/// The version part of an `apiVersion` (`g/v1` is `v1`).
fn version_of(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or(api_version, |(_, version)| version)
}

/// `stored` converted to `info`'s version.
fn converted<'a>(info: &ResourceInfo, api_version: &str, stored: &'a Value) -> Cow<'a, Value> {
    if stored.get("apiVersion").and_then(Value::as_str) == Some(api_version) {
        return Cow::Borrowed(stored);
    }
    if hpa_strategy::concerns(info) && hpa_conversion::is_v1(api_version) {
        return Cow::Owned(hpa_conversion::to_v1(stored));
    }
    if flowcontrol_conversion::concerns(info) {
        let from = stored.get("apiVersion").and_then(Value::as_str).unwrap_or_default();
        return Cow::Owned(flowcontrol_conversion::convert(stored, from, api_version));
    }
    let mut shown = if is_events_v1(info) {
        let mut event = rename(stored, |core| {
            EVENT_FIELDS.iter().find(|(_, c)| *c == core).map(|(v1, _)| *v1)
        });
        // The core type always writes these, the events.k8s.io type leaves them out empty.
        for field in ["reportingController", "reportingInstance"] {
            if event.get(field).and_then(Value::as_str) == Some("") {
                event.remove(field);
            }
        }
        let mut event = Value::Object(event);
        zero::fill_unset(&mut event, "events.k8s.io", "Event");
        event
    } else {
        stored.clone()
    };
    shown["apiVersion"] = json!(api_version);
    Cow::Owned(shown)
}

/// An object written through `info`'s version, as it is stored.
pub(crate) fn to_storage(info: &ResourceInfo, mut object: Value) -> Value {
    if info.lifecycle == Lifecycle::CustomResource {
        // Converted to the storage version, and pruned by its schema.
        if let Some(storage) = &info.storage_version {
            object["apiVersion"] = json!(storage);
            if let Some(schema) = info.version_schemas.get(version_of(storage)) {
                schema::coerce(schema, &mut object);
            }
        }
        return object;
    }
    if hpa_strategy::concerns(info) && info.storage_version.is_some() {
        // Stored as v2, which the storage decodes with its defaults.
        let mut stored = hpa_conversion::from_v1(&object);
        autoscaling::set_defaults_v2(&mut stored);
        return stored;
    }
    if flowcontrol_conversion::concerns(info)
        && let Some(storage) = &info.storage_version
    {
        return flowcontrol_conversion::convert(&object, &info.api_version(), storage);
    }
    if !is_events_v1(info) {
        return object;
    }
    let mut core = rename(&object, |v1| {
        EVENT_FIELDS.iter().find(|(v, _)| *v == v1).map(|(_, c)| *c)
    });
    core.insert("apiVersion".to_owned(), json!("v1"));
    let mut core = Value::Object(core);
    zero::fill_unset(&mut core, "", "Event");
    core
}

/// A field selector path of `info`'s version, as it reads the stored object.
pub(crate) fn storage_field_path(info: &ResourceInfo, path: &str) -> String {
    if !is_events_v1(info) {
        return path.to_owned();
    }
    let (head, rest) = path.split_once('.').map_or((path, None), |(h, r)| (h, Some(r)));
    match (EVENT_FIELDS.iter().find(|(v1, _)| *v1 == head), rest) {
        (Some((_, core)), Some(rest)) => format!("{core}.{rest}"),
        (Some((_, core)), None) => (*core).to_owned(),
        (None, _) => path.to_owned(),
    }
}

fn is_events_v1(info: &ResourceInfo) -> bool {
    info.group == "events.k8s.io" && info.kind == "Event"
}

/// A copy of `object` with its top-level fields renamed by `rename` (others kept).
fn rename<'a>(object: &Value, rename: impl Fn(&str) -> Option<&'a str>) -> Map<String, Value> {
    object
        .as_object()
        .into_iter()
        .flatten()
        .map(|(key, value)| (rename(key).map_or_else(|| key.clone(), str::to_owned), value.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events_v1() -> ResourceInfo {
        ResourceInfo::builtin("events.k8s.io", "v1", "Event", "events").stored_as("v1")
    }

    #[test]
    fn events_should_convert_between_the_two_apis_both_ways() {
        let written = json!({ "apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": { "name": "e" },
                              "note": "hi", "regarding": { "kind": "ConfigMap", "name": "c" },
                              "reportingController": "x/y", "reportingInstance": "i", "eventTime": "t" });
        let stored = to_storage(&events_v1(), written.clone());
        assert_eq!(stored["apiVersion"], "v1");
        assert_eq!(stored["message"], "hi");
        assert_eq!(stored["involvedObject"]["name"], "c");
        assert_eq!(stored["reportingComponent"], "x/y");
        assert_eq!(stored["source"], json!({}));
        let mut seen = view(&events_v1(), "events.k8s.io/v1", &stored).into_owned();
        // Go's always-written fields of each type come back, empty.
        for (field, zero) in [
            ("deprecatedSource", json!({})),
            ("deprecatedFirstTimestamp", Value::Null),
            ("deprecatedLastTimestamp", Value::Null),
        ] {
            assert_eq!(seen.as_object_mut().unwrap().remove(field), Some(zero));
        }
        assert_eq!(seen, written);
        assert_eq!(
            storage_field_path(&events_v1(), "regarding.name"),
            "involvedObject.name"
        );
        assert_eq!(storage_field_path(&events_v1(), "reason"), "reason");
    }
}
