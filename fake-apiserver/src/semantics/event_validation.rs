//! Events, as kube-apiserver v1.28 validates them (`pkg/apis/core/validation/events.go`:
//! `ValidateEventCreate`, `ValidateEventUpdate`, `legacyValidateEvent`,
//! `validateV1EventSeries`; `pkg/registry/core/event/strategy.go`). Both APIs store core
//! Events and validate that internal object, so the fields are the core ones (`message`,
//! `involvedObject`, `source`, `count`…) whichever API was used; the rules depend on the
//! request's API: through core v1 only the legacy rules apply (and the reporting controller is
//! called `reportingComponent`), through events.k8s.io/v1 the strict ones too.
//!
//! The core strategy checks no object metadata of its own: kube-apiserver's generic
//! `BeforeCreate` checks it afterwards, with path-segment names, and only when the strategy
//! found nothing (`deferred_metadata_causes`).

use serde_json::{Map, Value};

use crate::semantics::field_error::{BadValue, FieldError, go_quote};
use crate::semantics::go_time::time_string;
use crate::semantics::names::path_segment_errors;
use crate::semantics::names::{dns1123_subdomain_errors, object_name_errors, qualified_name_errors};
use crate::semantics::versions;
use crate::storage::object;
use crate::storage::resource::ResourceInfo;

const REPORTING_INSTANCE_LIMIT: usize = 128;
const ACTION_LIMIT: usize = 128;
const REASON_LIMIT: usize = 128;
const NOTE_LIMIT: usize = 1024;

/// The event strategy's `Validate` (`old` absent) or `ValidateUpdate`, for a write through
/// `info`'s API.
pub(crate) fn event_errors(info: &ResourceInfo, event: &Value, old: Option<&Value>) -> Vec<FieldError> {
    let strict = info.group == "events.k8s.io";
    let event = Core(versions::to_storage(info, event.clone()));
    let mut errors = legacy_errors(&event, strict);
    if !strict {
        return errors;
    }
    match old {
        None => errors.extend(strict_create_errors(&event)),
        Some(old) => errors.extend(strict_update_errors(
            &event,
            &Core(versions::to_storage(info, old.clone())),
        )),
    }
    errors
}

/// What `BeforeCreate` reports about a core v1 Event once its strategy passed: the object
/// metadata, the name checked as a path segment only (`Odd_Name` is a valid Event name).
pub(crate) fn deferred_metadata_causes(event: &Value, causes: Vec<(String, String)>) -> Vec<(String, String)> {
    let name = object::name(event);
    let subdomain: Vec<String> = object_name_errors("Event", name)
        .iter()
        .map(|why| format!("Invalid value: {}: {why}", go_quote(name)))
        .collect();
    let mut kept: Vec<(String, String)> = causes
        .into_iter()
        .filter(|(field, message)| !(field == "metadata.name" && subdomain.contains(message)))
        .collect();
    for why in path_segment_errors(name) {
        kept.push((
            "metadata.name".to_owned(),
            format!("Invalid value: {}: {why}", go_quote(name)),
        ));
    }
    kept
}

/// A core Event (as stored), read as Go reads its zero values.
struct Core(Value);

impl Core {
    fn text(&self, path: &str) -> &str {
        self.0.pointer(path).and_then(Value::as_str).unwrap_or_default()
    }

    /// Whether a time field is unset (Go's zero time).
    fn zero_time(&self, path: &str) -> bool {
        let time = self.text(path);
        time.is_empty() || time.starts_with("0001-01-01T00:00:00")
    }

    fn get(&self, key: &str) -> Option<&Value> {
        self.0.get(key).filter(|v| !v.is_null())
    }
}

/// `legacyValidateEvent`: the namespaces agree; an event with an `eventTime` names its
/// reporter, action and reason, within their lengths.
fn legacy_errors(event: &Core, strict: bool) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let reporter = if strict {
        "reportingController"
    } else {
        "reportingComponent"
    };
    let namespace = event.text("/metadata/namespace");
    let involved = event.text("/involvedObject/namespace");
    let mismatch = || {
        FieldError::invalid(
            "involvedObject.namespace",
            involved.into(),
            "does not match event.namespace",
        )
    };
    if event.zero_time("/eventTime") {
        let agrees = if involved.is_empty() {
            namespace.is_empty() || namespace == "default"
        } else {
            namespace == involved
        };
        if !agrees {
            errors.push(mismatch());
        }
    } else {
        if involved.is_empty() && namespace != "default" && namespace != "kube-system" {
            errors.push(mismatch());
        }
        let controller = event.text("/reportingComponent");
        if controller.is_empty() {
            errors.push(FieldError::required(reporter, ""));
        }
        for why in qualified_name_errors(controller) {
            errors.push(FieldError::invalid(reporter, controller.into(), why));
        }
        for (field, limit) in [
            ("reportingInstance", REPORTING_INSTANCE_LIMIT),
            ("action", ACTION_LIMIT),
            ("reason", REASON_LIMIT),
        ] {
            let value = event.text(&format!("/{field}"));
            if value.is_empty() {
                errors.push(FieldError::required(field, ""));
            }
            if value.len() > limit {
                errors.push(too_long(field, limit));
            }
        }
        if event.text("/message").len() > NOTE_LIMIT {
            errors.push(too_long("message", NOTE_LIMIT));
        }
    }
    for why in dns1123_subdomain_errors(namespace) {
        errors.push(FieldError::invalid("namespace", namespace.into(), why));
    }
    errors
}

/// The length errors, which show an empty value rather than the long one.
fn too_long(field: &str, limit: usize) -> FieldError {
    FieldError::invalid(field, "".into(), format!("can have at most {limit} characters"))
}

/// The strict rules of a create through events.k8s.io/v1 (the object metadata is checked for
/// every kind elsewhere): a series of at least two, an `eventTime`, a known type, none of the
/// deprecated fields.
fn strict_create_errors(event: &Core) -> Vec<FieldError> {
    let mut errors = series_errors(event);
    if event.zero_time("/eventTime") {
        errors.push(FieldError::required("eventTime", ""));
    }
    let kind = event.text("/type");
    if kind != "Normal" && kind != "Warning" {
        errors.push(FieldError::invalid(
            "type",
            "".into(),
            format!("has invalid value: {kind}"),
        ));
    }
    for field in ["firstTimestamp", "lastTimestamp"] {
        if !event.zero_time(&format!("/{field}")) {
            errors.push(FieldError::invalid(field, "".into(), "needs to be unset"));
        }
    }
    if event.get("count").and_then(Value::as_i64).unwrap_or(0) != 0 {
        errors.push(FieldError::invalid("count", "".into(), "needs to be unset"));
    }
    if !event.text("/source/component").is_empty() || !event.text("/source/host").is_empty() {
        errors.push(FieldError::invalid("source", "".into(), "needs to be unset"));
    }
    errors
}

/// `validateV1EventSeries`.
fn series_errors(event: &Core) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if event.get("series").is_some() {
        if event.0.pointer("/series/count").and_then(Value::as_i64).unwrap_or(0) < 2 {
            errors.push(FieldError::invalid("series.count", "".into(), "should be at least 2"));
        }
        if event.zero_time("/series/lastObservedTime") {
            errors.push(FieldError::required("series.lastObservedTime", ""));
        }
    }
    errors
}

/// The strict rules of an update through events.k8s.io/v1: a changed series is checked,
/// everything else the event says is immutable (`reason` is checked twice in Go).
fn strict_update_errors(event: &Core, old: &Core) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if semantic(event.get("series")) != semantic(old.get("series")) {
        errors.extend(series_errors(event));
    }
    let fields = [
        "involvedObject",
        "reason",
        "message",
        "source",
        "firstTimestamp",
        "lastTimestamp",
        "count",
        "reason",
        "type",
        "eventTime",
        "action",
        "related",
        "reportingComponent",
        "reportingInstance",
    ];
    for field in fields {
        let (new, before) = (event.get(field), old.get(field));
        let changed = if field == "eventTime" {
            // Sub-microsecond changes are tolerated (kubernetes#111928).
            truncated(new) != truncated(before)
        } else {
            semantic(new) != semantic(before)
        };
        if changed {
            let shown = if field == "reportingComponent" {
                "reportingController"
            } else {
                field
            };
            errors.push(FieldError::invalid(shown, go_value(field, new), "field is immutable"));
        }
    }
    errors
}

/// A timestamp cut to microseconds (the fraction's digits past the sixth dropped).
fn truncated(time: Option<&Value>) -> Option<String> {
    let time = time?.as_str()?;
    let Some((head, rest)) = time.split_once('.') else {
        return Some(time.trim_end_matches('Z').to_owned());
    };
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let micros = format!("{digits:0<6}");
    Some(format!("{head}.{}", &micros[..6]))
}

/// A value with nulls, empty strings, zero numbers and empty maps or lists left out: the
/// fields the core type leaves at its zero value are equal to absent ones.
fn semantic(value: Option<&Value>) -> Option<Value> {
    fn strip(value: &Value) -> Option<Value> {
        match value {
            Value::Null => None,
            Value::String(s) if s.is_empty() => None,
            Value::Number(n) if n.as_f64() == Some(0.0) => None,
            Value::Object(map) => {
                let kept: Map<String, Value> = map.iter().filter_map(|(k, v)| Some((k.clone(), strip(v)?))).collect();
                (!kept.is_empty()).then_some(Value::Object(kept))
            }
            Value::Array(items) if items.is_empty() => None,
            other => Some(other.clone()),
        }
    }
    value.and_then(strip)
}

/// Go's `%v` of the core field's value, as `ValidateImmutableField` shows it.
fn go_value(field: &str, value: Option<&Value>) -> BadValue {
    let text = |key: &str| {
        go_quote(
            value
                .and_then(|v| v.get(key))
                .and_then(Value::as_str)
                .unwrap_or_default(),
        )
    };
    match field {
        "related" if value.is_none() => BadValue::Raw("(*core.ObjectReference)(nil)".to_owned()),
        "involvedObject" | "related" => BadValue::Raw(format!(
            "core.ObjectReference{{Kind:{}, Namespace:{}, Name:{}, UID:{}, APIVersion:{}, ResourceVersion:{}, FieldPath:{}}}",
            text("kind"),
            text("namespace"),
            text("name"),
            text("uid"),
            text("apiVersion"),
            text("resourceVersion"),
            text("fieldPath")
        )),
        "source" => BadValue::Raw(format!(
            "core.EventSource{{Component:{}, Host:{}}}",
            text("component"),
            text("host")
        )),
        "count" => BadValue::Int(value.and_then(Value::as_i64).unwrap_or(0)),
        "firstTimestamp" | "lastTimestamp" | "eventTime" => {
            BadValue::Raw(time_string(value.and_then(Value::as_str).unwrap_or_default()))
        }
        _ => value.and_then(Value::as_str).unwrap_or_default().into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn core() -> ResourceInfo {
        ResourceInfo::builtin("", "v1", "Event", "events")
    }

    fn events_v1() -> ResourceInfo {
        ResourceInfo::builtin("events.k8s.io", "v1", "Event", "events").stored_as("v1")
    }

    use crate::semantics::field_error::reasons as fields;

    #[test]
    fn a_timed_core_event_should_name_its_reporting_component() {
        let event = json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e", "namespace": "ns"},
            "involvedObject": {"namespace": "ns"}, "eventTime": "2026-01-01T00:00:00.000000Z"});
        assert_eq!(
            fields(event_errors(&core(), &event, None)),
            [
                "FieldValueRequired reportingComponent",
                "FieldValueInvalid reportingComponent",
                "FieldValueInvalid reportingComponent",
                "FieldValueRequired reportingInstance",
                "FieldValueRequired action",
                "FieldValueRequired reason"
            ]
        );
    }

    #[test]
    fn an_events_v1_event_should_be_strict_and_use_core_field_names() {
        let event =
            json!({"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "e", "namespace": "ns"}});
        assert_eq!(
            fields(event_errors(&events_v1(), &event, None)),
            [
                "FieldValueInvalid involvedObject.namespace",
                "FieldValueRequired eventTime",
                "FieldValueInvalid type"
            ]
        );
        let old = json!({"apiVersion": "events.k8s.io/v1", "metadata": {"name": "e", "namespace": "ns"},
            "regarding": {"namespace": "ns"}, "note": "a", "eventTime": "2026-01-01T00:00:00.000000Z",
            "reportingController": "c", "reportingInstance": "i", "action": "A", "reason": "R", "type": "Normal"});
        let mut new = old.clone();
        new["note"] = json!("b");
        new["eventTime"] = json!("2026-01-01T00:00:00.0000001Z");
        assert_eq!(
            fields(event_errors(&events_v1(), &new, Some(&old))),
            ["FieldValueInvalid message"]
        );
    }

    #[test]
    fn a_core_event_name_should_only_be_a_path_segment() {
        let event = json!({"metadata": {"name": "Odd_Name"}});
        let causes = vec![(
            "metadata.name".to_owned(),
            format!(
                "Invalid value: \"Odd_Name\": {}",
                object_name_errors("Event", "Odd_Name")[0]
            ),
        )];
        assert!(deferred_metadata_causes(&event, causes).is_empty());
        assert_eq!(
            time_string("2026-02-01T00:00:00.500000Z"),
            "2026-02-01 00:00:00.5 +0000 UTC"
        );
    }
}
