//! LimitRanges as `pkg/apis/core/validation/validation.go` validates them (`ValidateLimitRange`
//! with `validateLimitRangeTypeName` and `validateLimitRangeResourceName`, on create and
//! update alike): each item's type and resource names, and its min, max, defaults and ratio
//! in order.

use serde_json::{Map, Value};

use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::names;
use crate::semantics::quantity::Quantity;
use crate::semantics::resource_names::{container_resource_name_errors, overcommit_allowed, resource_name_errors};

/// `resource.MaxMilliValue`.
const MAX_MILLI_VALUE: i64 = i64::MAX / 1000;

/// `validateLimitRangeTypeName`: a qualified name, and Pod, Container or PersistentVolumeClaim
/// when unprefixed.
fn type_errors(kind: &str, at: &str) -> Vec<FieldError> {
    let errors: Vec<FieldError> = names::qualified_name_errors(kind)
        .into_iter()
        .map(|why| FieldError::invalid(at, kind.into(), why))
        .collect();
    if !errors.is_empty() {
        return errors;
    }
    if !kind.contains('/') && !matches!(kind, "Pod" | "Container" | "PersistentVolumeClaim") {
        return vec![FieldError::invalid(
            at,
            kind.into(),
            "must be a standard limit type or fully qualified",
        )];
    }
    Vec::new()
}

/// `validateLimitRangeResourceName`: pods and containers limit compute resources.
fn resource_errors(kind: &str, name: &str, at: &str, minor: u32) -> Vec<FieldError> {
    match kind {
        "Pod" | "Container" => container_resource_name_errors(name, at, minor),
        _ => resource_name_errors(name, at, minor),
    }
}

/// A resource list of the item, parsed, sorted by name.
fn quantities(item: &Value, key: &str) -> Vec<(String, Quantity)> {
    let mut list: Vec<(String, Quantity)> = item
        .get(key)
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| Some((k.clone(), Quantity::parse(v.as_str()?).ok()?)))
        .collect();
    list.sort_by(|a, b| a.0.cmp(&b.0));
    list
}

fn find<'q>(list: &'q [(String, Quantity)], key: &str) -> Option<&'q Quantity> {
    list.iter().find(|(k, _)| k == key).map(|(_, q)| q)
}

fn shown(quantity: &Quantity) -> BadValue {
    // Each message prints the value with `String()` before the error's `%#v` copies it.
    BadValue::Raw(quantity.stringified().go_syntax())
}

/// `ValidateLimitRange` less the object metadata.
pub(crate) fn limit_range_errors(limit_range: &Value, minor: u32) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let mut types: Vec<String> = Vec::new();
    let items = limit_range.pointer("/spec/limits").and_then(Value::as_array);
    for (i, item) in items.into_iter().flatten().enumerate() {
        let at = format!("spec.limits[{i}]");
        let kind = item.get("type").and_then(Value::as_str).unwrap_or_default();
        errors.extend(type_errors(kind, &format!("{at}.type")));
        if types.iter().any(|t| t == kind) {
            errors.push(FieldError::duplicate(format!("{at}.type"), kind.into()));
        }
        types.push(kind.to_owned());
        let names_of = |key: &str| quantities(item, key);
        let (max, min) = (names_of("max"), names_of("min"));
        let mut keys: Vec<String> = Vec::new();
        for (key, list) in [("max", &max), ("min", &min)] {
            for (name, _) in list {
                errors.extend(resource_errors(kind, name, &format!("{at}.{key}[{name}]"), minor));
                keys.push(name.clone());
            }
        }
        let present = |key: &str| item.get(key).and_then(Value::as_object).is_some_and(|m| !m.is_empty());
        let (mut defaults, mut requests) = (Vec::new(), Vec::new());
        if kind == "Pod" {
            for key in ["default", "defaultRequest"] {
                if present(key) {
                    errors.push(FieldError::forbidden(
                        format!("{at}.{key}"),
                        "may not be specified when `type` is 'Pod'",
                    ));
                }
            }
        } else {
            defaults = names_of("default");
            requests = names_of("defaultRequest");
            for (key, list) in [("default", &defaults), ("defaultRequest", &requests)] {
                for (name, _) in list {
                    errors.extend(resource_errors(kind, name, &format!("{at}.{key}[{name}]"), minor));
                    keys.push(name.clone());
                }
            }
        }
        if kind == "PersistentVolumeClaim" && find(&min, "storage").is_none() && find(&max, "storage").is_none() {
            errors.push(FieldError::required(
                format!("{at}.limits"),
                "either minimum or maximum storage value is required, but neither was provided",
            ));
        }
        let ratios = names_of("maxLimitRequestRatio");
        for (name, _) in &ratios {
            errors.extend(resource_errors(
                kind,
                name,
                &format!("{at}.maxLimitRequestRatio[{name}]"),
                minor,
            ));
            keys.push(name.clone());
        }
        keys.sort();
        keys.dedup();
        for key in &keys {
            let bounds = Bounds {
                min: find(&min, key),
                max: find(&max, key),
                default: find(&defaults, key),
                request: find(&requests, key),
                ratio: find(&ratios, key),
            };
            errors.extend(bounds.errors(&at, key));
        }
    }
    errors
}

/// One resource's values in a limit range item.
struct Bounds<'q> {
    min: Option<&'q Quantity>,
    max: Option<&'q Quantity>,
    default: Option<&'q Quantity>,
    request: Option<&'q Quantity>,
    ratio: Option<&'q Quantity>,
}

impl Bounds<'_> {
    /// The comparisons `ValidateLimitRange` makes of one resource, in its order.
    fn errors(&self, at: &str, key: &str) -> Vec<FieldError> {
        use std::cmp::Ordering::{Greater, Less};
        let mut errors = Vec::new();
        let path = |list: &str| format!("{at}.{list}[{key}]");
        let above = |a: &Quantity, b: &Quantity| a.cmp_value(b) == Greater;
        if let (Some(min), Some(max)) = (self.min, self.max)
            && above(min, max)
        {
            errors.push(FieldError::invalid(
                path("min"),
                shown(min),
                format!("min value {min} is greater than max value {max}"),
            ));
        }
        if let Some(request) = self.request {
            if let Some(min) = self.min.filter(|m| above(m, request)) {
                errors.push(FieldError::invalid(
                    path("defaultRequest"),
                    shown(request),
                    format!("min value {min} is greater than default request value {request}"),
                ));
            }
            if let Some(max) = self.max.filter(|m| above(request, m)) {
                errors.push(FieldError::invalid(
                    path("defaultRequest"),
                    shown(request),
                    format!("default request value {request} is greater than max value {max}"),
                ));
            }
            if let Some(default) = self.default.filter(|d| above(request, d)) {
                errors.push(FieldError::invalid(
                    path("defaultRequest"),
                    shown(request),
                    format!("default request value {request} is greater than default limit value {default}"),
                ));
            }
        }
        if let Some(default) = self.default {
            if let Some(min) = self.min.filter(|m| above(m, default)) {
                errors.push(FieldError::invalid(
                    path("default"),
                    shown(min),
                    format!("min value {min} is greater than default value {default}"),
                ));
            }
            if let Some(max) = self.max.filter(|m| above(default, m)) {
                errors.push(FieldError::invalid(
                    path("default"),
                    shown(max),
                    format!("default value {default} is greater than max value {max}"),
                ));
            }
        }
        if let Some(ratio) = self.ratio {
            if ratio.cmp_value(&Quantity::from_int(1)) == Less {
                errors.push(FieldError::invalid(
                    path("maxLimitRequestRatio"),
                    shown(ratio),
                    format!("ratio {ratio} is less than 1"),
                ));
            }
            if let (Some(min), Some(max)) = (self.min, self.max) {
                let limit = ratio_limit(ratio, min, max);
                if limit.0 > limit.1 {
                    errors.push(FieldError::invalid(
                        path("maxLimitRequestRatio"),
                        shown(ratio),
                        format!("ratio {ratio} is greater than max/min = {:.6}", limit.1),
                    ));
                }
            }
        }
        if !overcommit_allowed(key)
            && let (Some(default), Some(request)) = (self.default, self.request)
            && default.cmp_value(request) != std::cmp::Ordering::Equal
        {
            errors.push(FieldError::invalid(
                path("defaultRequest"),
                shown(request),
                format!("default value {default} must equal to defaultRequest value {request} in {key}"),
            ));
        }
        errors
    }
}

/// The ratio and `max/min` as Go computes them: in thousandths when all three fit.
fn ratio_limit(ratio: &Quantity, min: &Quantity, max: &Quantity) -> (f64, f64) {
    #[allow(clippy::cast_precision_loss)] // Go converts the int64 values to float64 alike.
    let (mut ratio_value, mut min_value, mut max_value) = (ratio.value() as f64, min.value(), max.value());
    if ratio.value() < MAX_MILLI_VALUE && min_value < MAX_MILLI_VALUE && max_value < MAX_MILLI_VALUE {
        #[allow(clippy::cast_precision_loss)]
        {
            ratio_value = ratio.milli_value() as f64 / 1000.0;
        }
        min_value = min.milli_value();
        max_value = max.milli_value();
    }
    #[allow(clippy::cast_precision_loss)]
    let limit = max_value as f64 / min_value as f64;
    (ratio_value, limit)
}

/// `SetDefaults_LimitRangeItem` for every item (`pkg/apis/core/v1/defaults.go`): a container
/// item's default limit comes from its max, its default request from the default limit, then
/// from its min.
pub(crate) fn set_defaults(limit_range: &mut Value) {
    let items = limit_range.pointer_mut("/spec/limits").and_then(Value::as_array_mut);
    for item in items.into_iter().flatten().filter_map(Value::as_object_mut) {
        if item.get("type").and_then(Value::as_str) != Some("Container") {
            continue;
        }
        let list = |item: &Map<String, Value>, key: &str| {
            item.get(key).and_then(Value::as_object).cloned().unwrap_or_default()
        };
        let mut defaults = list(item, "default");
        let mut requests = list(item, "defaultRequest");
        for (key, value) in list(item, "max") {
            defaults.entry(key).or_insert(value);
        }
        for (key, value) in &defaults {
            requests.entry(key.clone()).or_insert_with(|| value.clone());
        }
        for (key, value) in list(item, "min") {
            requests.entry(key).or_insert(value);
        }
        item.insert("default".to_owned(), Value::Object(defaults));
        item.insert("defaultRequest".to_owned(), Value::Object(requests));
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn rendered(errors: &[FieldError]) -> Vec<String> {
        errors.iter().map(|e| format!("{} {}", e.field, e.detail)).collect()
    }

    #[test]
    fn a_container_item_should_default_from_max_and_min() {
        let mut range =
            json!({"spec": {"limits": [{"type": "Container", "max": {"cpu": "2"}, "min": {"memory": "1Mi"}}]}});
        set_defaults(&mut range);
        assert_eq!(range["spec"]["limits"][0]["default"], json!({"cpu": "2"}));
        assert_eq!(
            range["spec"]["limits"][0]["defaultRequest"],
            json!({"cpu": "2", "memory": "1Mi"})
        );
    }

    #[test]
    fn bounds_should_be_ordered() {
        let range = json!({"spec": {"limits": [{"type": "Container", "max": {"memory": "1Gi"}, "min": {"memory": "256Mi"},
            "default": {"memory": "2Gi"}, "defaultRequest": {"memory": "128Mi"}, "maxLimitRequestRatio": {"memory": "8"}}]}});
        assert_eq!(
            rendered(&limit_range_errors(&range, 28)),
            [
                "spec.limits[0].defaultRequest[memory] min value 256Mi is greater than default request value 128Mi",
                "spec.limits[0].default[memory] default value 2Gi is greater than max value 1Gi",
                "spec.limits[0].maxLimitRequestRatio[memory] ratio 8 is greater than max/min = 4.000000",
            ]
        );
    }

    #[test]
    fn item_types_should_be_known_and_unique() {
        let range = json!({"spec": {"limits": [{"type": "Pod", "default": {"cpu": "1"}}, {"type": "Pod"}, {"type": "PersistentVolumeClaim"}]}});
        let fields: Vec<String> = limit_range_errors(&range, 28).iter().map(|e| e.field.clone()).collect();
        assert_eq!(
            fields,
            ["spec.limits[0].default", "spec.limits[1].type", "spec.limits[2].limits"]
        );
    }
}
