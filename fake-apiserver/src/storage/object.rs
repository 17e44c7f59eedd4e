//! Reading and writing the standard fields of objects the fake API server stores as JSON.

use serde_json::{Map, Value};

/// The `metadata` map of an object, created when missing (a non-object `metadata` is replaced).
pub(crate) fn meta_mut(object: &mut Value) -> &mut Map<String, Value> {
    if !object.is_object() {
        *object = Value::Object(Map::new());
    }
    let map = object.as_object_mut().expect("object checked above");
    let meta = map.entry("metadata").or_insert_with(|| Value::Object(Map::new()));
    if !meta.is_object() {
        *meta = Value::Object(Map::new());
    }
    meta.as_object_mut().expect("metadata checked above")
}

/// A string field of `metadata`, or `""`.
pub(crate) fn meta_str<'a>(object: &'a Value, field: &str) -> &'a str {
    object
        .get("metadata")
        .and_then(|m| m.get(field))
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// `metadata.name`, or `""`.
pub(crate) fn name(object: &Value) -> &str {
    meta_str(object, "name")
}

/// `metadata.namespace`, or `""`.
pub(crate) fn namespace(object: &Value) -> &str {
    meta_str(object, "namespace")
}

/// `metadata.uid`, or `""`.
pub(crate) fn uid(object: &Value) -> &str {
    meta_str(object, "uid")
}

/// `metadata.resourceVersion`, or `""`.
pub(crate) fn resource_version(object: &Value) -> &str {
    meta_str(object, "resourceVersion")
}

/// Whether `metadata.deletionTimestamp` is set.
pub(crate) fn is_deleting(object: &Value) -> bool {
    !meta_str(object, "deletionTimestamp").is_empty()
}

/// `metadata.labels`, when present.
pub(crate) fn labels(object: &Value) -> Option<&Map<String, Value>> {
    object.get("metadata")?.get("labels")?.as_object()
}

/// An object's annotations, if it has any.
pub(crate) fn annotations(object: &Value) -> Option<&Map<String, Value>> {
    object.pointer("/metadata/annotations").and_then(Value::as_object)
}

/// `metadata.finalizers` as strings.
pub(crate) fn finalizers(object: &Value) -> Vec<String> {
    string_list(object.get("metadata").and_then(|m| m.get("finalizers")))
}

/// Replaces `metadata.finalizers`, dropping the field when the list is empty.
pub(crate) fn set_finalizers(object: &mut Value, finalizers: &[String]) {
    let meta = meta_mut(object);
    if finalizers.is_empty() {
        meta.remove("finalizers");
    } else {
        meta.insert("finalizers".to_owned(), Value::from(finalizers.to_vec()));
    }
}

/// `metadata.ownerReferences` entries.
pub(crate) fn owner_references(object: &Value) -> &[Value] {
    object
        .get("metadata")
        .and_then(|m| m.get("ownerReferences"))
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

/// `metadata.generation`, 0 when unset.
pub(crate) fn generation(object: &Value) -> i64 {
    object
        .get("metadata")
        .and_then(|m| m.get("generation"))
        .and_then(Value::as_i64)
        .unwrap_or(0)
}

/// A string value, empty when absent or not a string.
pub(crate) fn text(value: Option<&Value>) -> &str {
    value.and_then(Value::as_str).unwrap_or_default()
}

/// The strings of a JSON list (none when absent).
pub(crate) fn string_list(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .map(|items| items.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        .unwrap_or_default()
}

/// Sets `new`'s top-level `field` to `old`'s, or removes it where `old` has none: what a
/// strategy keeps of the stored object (status on the main resource, spec on `/status`).
pub(crate) fn keep_stored(new: &mut Value, old: &Value, field: &str) {
    let Some(fields) = new.as_object_mut() else {
        return;
    };
    match old.get(field) {
        Some(value) => fields.insert(field.to_owned(), value.clone()),
        None => fields.remove(field),
    };
}

/// The current time as kube-apiserver writes timestamps (RFC 3339, whole seconds, UTC).
pub(crate) fn now() -> String {
    jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// Seconds since the epoch of an RFC 3339 timestamp.
pub(crate) fn timestamp_seconds(text: &str) -> Option<i64> {
    text.parse::<jiff::Timestamp>().ok().map(|t| t.as_second())
}

/// The value of `key` when it is there and not `null`: a Go pointer field that is set (both
/// decode to nil).
pub(crate) fn present<'a>(object: &'a Value, key: &str) -> Option<&'a Value> {
    object.get(key).filter(|v| !v.is_null())
}

/// The value at a dotted path (`status.phase`, `.spec.replicas`, `metadata.labels.app`), if any.
pub(crate) fn field<'a>(object: &'a Value, path: &str) -> Option<&'a Value> {
    path.trim_start_matches('.')
        .split('.')
        .filter(|s| !s.is_empty())
        .try_fold(object, |value, segment| value.get(segment))
}

/// The value at a dotted path rendered as text (strings unquoted), if any.
pub(crate) fn field_text(object: &Value, path: &str) -> Option<String> {
    field(object, path).map(|v| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    })
}

/// Sets the value at a dotted path, creating intermediate objects.
pub(crate) fn set_field(object: &mut Value, path: &str, new: Value) {
    let segments: Vec<&str> = path
        .trim_start_matches('.')
        .split('.')
        .filter(|s| !s.is_empty())
        .collect();
    let mut current = object;
    for segment in &segments[..segments.len().saturating_sub(1)] {
        if !current.get(*segment).is_some_and(Value::is_object) {
            current[*segment] = Value::Object(Map::new());
        }
        current = &mut current[*segment];
    }
    if let Some(last) = segments.last() {
        current[*last] = new;
    }
}

/// Whether `name` is a valid DNS-1123 label, the rule for namespace names.
pub(crate) fn is_dns_label(name: &str) -> bool {
    name.len() <= 63 && !name.contains('.') && is_dns_subdomain(name)
}

/// Whether `name` is a valid DNS-1123 subdomain, the rule for most object names.
pub(crate) fn is_dns_subdomain(name: &str) -> bool {
    name.len() <= 253 && name.split('.').all(is_label_shaped)
}

/// Whether `label` matches `[a-z0-9]([-a-z0-9]*[a-z0-9])?`, whatever its length.
pub(crate) fn is_label_shaped(label: &str) -> bool {
    !label.is_empty()
        && label
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !label.starts_with('-')
        && !label.ends_with('-')
}

/// Whether two versions have the same spec part: everything but the metadata, the type meta and
/// (unless `with_status`) the status. Compared in place, without copying either.
pub(crate) fn same_spec(old: &Value, new: &Value, with_status: bool) -> bool {
    let ignored = |key: &str| matches!(key, "metadata" | "apiVersion" | "kind") || (!with_status && key == "status");
    let empty = Map::new();
    let (old, new) = (old.as_object().unwrap_or(&empty), new.as_object().unwrap_or(&empty));
    same_maps(old, new, ignored, |_, old, new| old == new)
}

/// Whether two maps have the same members but those `ignored` (present on either side or not),
/// `same` deciding for the values of each key; compared in place, without copying either.
pub(crate) fn same_maps(
    old: &Map<String, Value>,
    new: &Map<String, Value>,
    ignored: impl Fn(&str) -> bool,
    same: impl Fn(&str, &Value, &Value) -> bool,
) -> bool {
    let counted = |map: &Map<String, Value>| map.keys().filter(|key| !ignored(key)).count();
    counted(old) == counted(new)
        && old
            .iter()
            .filter(|(key, _)| !ignored(key))
            .all(|(key, value)| new.get(key).is_some_and(|other| same(key, value, other)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn field_should_follow_dotted_paths() {
        let object = json!({"status": {"server": {"usage": {"cpu": 12.5}}}, "metadata": {"name": "vm"}});
        assert_eq!(field_text(&object, ".status.server.usage.cpu").as_deref(), Some("12.5"));
        assert_eq!(field_text(&object, "metadata.name").as_deref(), Some("vm"));
        assert_eq!(field(&object, ".status.missing"), None);
    }

    #[test]
    fn same_spec_should_compare_all_but_metadata_and_type_meta() {
        let old = json!({"kind": "A", "metadata": {"name": "a"}, "spec": {"x": 1}, "status": {"y": 1}});
        let relabelled = json!({"kind": "B", "metadata": {"name": "b"}, "spec": {"x": 1}, "status": {"y": 1}});
        assert!(same_spec(&old, &relabelled, true));
        let restatused = json!({"kind": "A", "metadata": {"name": "a"}, "spec": {"x": 1}, "status": {"y": 2}});
        assert!(same_spec(&old, &restatused, false));
        assert!(!same_spec(&old, &restatused, true));
        let extra = json!({"kind": "A", "metadata": {"name": "a"}, "spec": {"x": 1}, "status": {"y": 1}, "data": {}});
        assert!(!same_spec(&old, &extra, false) && !same_spec(&extra, &old, false));
        assert!(same_spec(&json!(null), &json!({"metadata": {}}), true));
    }

    #[test]
    fn set_field_should_create_intermediate_objects() {
        let mut object = json!({});
        set_field(&mut object, ".spec.replicas", json!(3));
        assert_eq!(object, json!({"spec": {"replicas": 3}}));
    }

    #[test]
    fn names_should_follow_dns_subdomain_rules() {
        assert!(is_dns_subdomain("test-vm.example"));
        assert!(!is_dns_subdomain("Test"));
        assert!(!is_dns_subdomain("-a"));
        assert!(!is_dns_subdomain(""));
    }
}
