//! Strategic merge patch for the built-in types: lists with a patch merge key are merged by that
//! key, `finalizers` merge as sets, and the `$patch` directives are honoured.

use serde_json::{Map, Value};

/// The patch merge key of the keyed lists of the built-in types the fake server serves.
pub(crate) fn merge_key(field: &str, items: &[Value]) -> Option<&'static str> {
    match field {
        // A CSINode's `spec.drivers`, a webhook configuration's webhooks and their match
        // conditions merge by name too.
        "containers"
        | "initContainers"
        | "ephemeralContainers"
        | "volumes"
        | "env"
        | "imagePullSecrets"
        | "drivers"
        | "webhooks"
        | "matchConditions" => Some("name"),
        "volumeMounts" | "volumeDevices" => Some("mountPath"),
        "ownerReferences" => Some("uid"),
        "conditions" => Some("type"),
        "hostAliases" => Some("ip"),
        "topologySpreadConstraints" => Some("topologyKey"),
        // Container ports merge by containerPort, Service ports by port.
        "ports" if items.iter().any(|p| p.get("containerPort").is_some()) => Some("containerPort"),
        "ports" => Some("port"),
        _ => None,
    }
}

/// Lists of scalars whose patch strategy is `merge` (a node's `podCIDRs` is also a
/// `+listType=set` for field management).
pub(crate) fn is_set_list(field: &str) -> bool {
    matches!(field, "finalizers" | "podCIDRs")
}

/// Why a strategic merge patch cannot be applied; the server answers 422 Invalid with it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum StrategicError {
    /// The patch (or a nested patch of an object) is not a JSON object.
    #[error("a strategic merge patch must be a JSON object")]
    NotAnObject,
    /// An element of a keyed list lacks its merge key.
    #[error("map: {item} does not contain declared merge key: {key}")]
    MissingMergeKey {
        /// The element, as JSON.
        item: Value,
        /// The list's merge key, e.g. `name`.
        key: &'static str,
    },
    /// A `$patch` directive the map or list item it stands in does not take
    /// (`mergepatch.ErrBadPatchType`), the map printed as Go's `%v` prints it.
    #[error("unknown patch type: {directive} in map: {map}")]
    BadPatchType { directive: String, map: String },
    /// `$patch: merge` in a list item, which strategic merge does not implement.
    #[error("merging lists cannot yet be specified in the patch")]
    MergeList,
}

impl StrategicError {
    /// Whether kube-apiserver answers the error as an internal one: its patch handler passes
    /// these through `interpretStrategicMergePatchError` unchanged, so they become a 500
    /// without a reason.
    pub(crate) fn is_internal(&self) -> bool {
        matches!(self, Self::BadPatchType { .. } | Self::MergeList)
    }
}

/// A patch map with a bad directive, as the error names it.
fn bad_patch_type(directive: &Value, map: &Map<String, Value>) -> StrategicError {
    StrategicError::BadPatchType {
        directive: go_text(directive),
        map: go_text(&Value::Object(map.clone())),
    }
}

/// A decoded JSON value as Go's `%v` prints it: maps with sorted keys (`map[a:1 b:x]`), slices
/// as `[a b]`, strings bare.
fn go_text(value: &Value) -> String {
    match value {
        Value::Null => "<nil>".to_owned(),
        Value::String(s) => s.clone(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::Array(items) => format!("[{}]", items.iter().map(go_text).collect::<Vec<_>>().join(" ")),
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            let shown: Vec<String> = entries.iter().map(|(k, v)| format!("{k}:{}", go_text(v))).collect();
            format!("map[{}]", shown.join(" "))
        }
    }
}

/// Applies a strategic merge patch to `target`.
pub(crate) fn apply(target: &mut Value, patch: &Value) -> Result<(), StrategicError> {
    let Some(patch_map) = patch.as_object() else {
        return Err(StrategicError::NotAnObject);
    };
    // `handleDirectiveInMergeMap`: a map may be replaced or deleted, nothing else.
    if let Some(directive) = patch_map.get("$patch") {
        match directive.as_str() {
            Some("replace") => {
                let mut replacement = patch_map.clone();
                replacement.remove("$patch");
                *target = Value::Object(replacement);
            }
            Some("delete") => *target = Value::Object(Map::new()),
            _ => return Err(bad_patch_type(directive, patch_map)),
        }
        return Ok(());
    }
    if !target.is_object() {
        *target = Value::Object(Map::new());
    }
    let map = target.as_object_mut().expect("made an object above");
    for (key, value) in patch_map {
        if let Some(field) = key.strip_prefix("$deleteFromPrimitiveList/") {
            let remove: Vec<&Value> = value.as_array().map(|a| a.iter().collect()).unwrap_or_default();
            if let Some(Value::Array(items)) = map.get_mut(field) {
                items.retain(|item| !remove.contains(&item));
            }
            continue;
        }
        if key.starts_with('$') {
            // `$setElementOrder/…` and `$retainKeys` only order or narrow; the result is the same
            // set of fields for the fake server's purposes.
            continue;
        }
        match (map.get_mut(key), value) {
            (_, Value::Null) => {
                map.remove(key);
            }
            (Some(existing @ Value::Object(_)), Value::Object(_)) => apply(existing, value)?,
            (Some(Value::Array(existing)), Value::Array(items)) => merge_list(key, existing, items)?,
            _ => {
                let mut fresh = Value::Null;
                if value.is_object() {
                    apply(&mut fresh, value)?;
                } else {
                    fresh = value.clone();
                }
                map.insert(key.clone(), fresh);
            }
        }
    }
    Ok(())
}

fn merge_list(field: &str, existing: &mut Vec<Value>, patch: &[Value]) -> Result<(), StrategicError> {
    if is_set_list(field) {
        for item in patch {
            if !existing.contains(item) {
                existing.push(item.clone());
            }
        }
        return Ok(());
    }
    let Some(key) = merge_key(field, existing).or_else(|| merge_key(field, patch)) else {
        *existing = patch.to_vec();
        return Ok(());
    };
    // `mergeSliceWithSpecialElements`: only `delete` and `replace` directives are items' own.
    for item in patch {
        if let Some(directive) = item.get("$patch") {
            match directive.as_str() {
                Some("delete" | "replace") => {}
                Some("merge") => return Err(StrategicError::MergeList),
                _ => return Err(bad_patch_type(directive, item.as_object().unwrap_or(&Map::new()))),
            }
        }
    }
    if patch
        .iter()
        .any(|item| item.get("$patch").and_then(Value::as_str) == Some("replace"))
    {
        // A `replace` item makes the patch's other plain items the whole list.
        *existing = patch
            .iter()
            .filter(|item| item.get("$patch").is_none())
            .cloned()
            .collect();
        return Ok(());
    }
    // The keys in the original order, which `normalizeElementOrder` sorts the result by.
    let original: Vec<Value> = existing.iter().filter_map(|e| e.get(key).cloned()).collect();
    let mut merged = Vec::with_capacity(existing.len() + patch.len());
    for item in patch {
        let id = item.get(key).ok_or_else(|| StrategicError::MissingMergeKey {
            item: item.clone(),
            key,
        })?;
        let position = existing.iter().position(|e| e.get(key) == Some(id));
        match (position, item.get("$patch").and_then(Value::as_str)) {
            (Some(i), Some("delete")) => {
                existing.remove(i);
            }
            (None, Some("delete")) => {}
            (Some(i), _) => {
                let mut element = existing.remove(i);
                apply(&mut element, item)?;
                merged.push(element);
            }
            (None, _) => {
                let mut fresh = Value::Null;
                apply(&mut fresh, item)?;
                merged.push(fresh);
            }
        }
    }
    let server_only = std::mem::take(existing);
    *existing = merge_sorted(server_only, merged, &original, key);
    Ok(())
}

/// `mergeSortedSlice` (strategic merge without `$setElementOrder`): the elements the patch
/// did not mention (`left`, in their order) and the patch's (`right`, in the patch's order),
/// interleaved: a left element goes first only when both it and the right one were in the
/// original list, before it.
fn merge_sorted(left: Vec<Value>, right: Vec<Value>, original: &[Value], key: &str) -> Vec<Value> {
    let position = |item: &Value| item.get(key).and_then(|id| original.iter().position(|o| o == id));
    let mut merged = Vec::with_capacity(left.len() + right.len());
    let (mut left, mut right) = (left.into_iter().peekable(), right.into_iter().peekable());
    loop {
        let take_left = match (left.peek(), right.peek()) {
            (None, None) => break,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (Some(l), Some(r)) => matches!((position(l), position(r)), (Some(li), Some(ri)) if li < ri),
        };
        let next = if take_left { left.next() } else { right.next() };
        merged.extend(next);
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unknown_directives_should_be_refused_in_go_words() {
        let mut target = json!({"containers": [{"name": "a"}]});
        let error = apply(
            &mut target,
            &json!({"containers": [{"name": "a", "$patch": "explode"}]}),
        )
        .unwrap_err();
        assert_eq!(
            error.to_string(),
            "unknown patch type: explode in map: map[$patch:explode name:a]"
        );
        assert!(error.is_internal());
        let error = apply(&mut target, &json!({"spec": {"$patch": "merge"}})).unwrap_err();
        assert_eq!(error.to_string(), "unknown patch type: merge in map: map[$patch:merge]");
        apply(
            &mut target,
            &json!({"containers": [{"name": "b"}, {"$patch": "replace"}]}),
        )
        .unwrap();
        assert_eq!(target, json!({"containers": [{"name": "b"}]}));
    }

    #[test]
    fn a_patched_element_should_keep_its_place_among_the_original_ones() {
        let mut target = json!({"webhooks": [{"name": "b"}, {"name": "a"}]});
        apply(&mut target, &json!({"webhooks": [{"name": "a", "x": 1}]})).unwrap();
        assert_eq!(target, json!({"webhooks": [{"name": "b"}, {"name": "a", "x": 1}]}));
        apply(&mut target, &json!({"webhooks": [{"name": "c"}]})).unwrap();
        assert_eq!(target["webhooks"][0], json!({"name": "c"}));
    }

    #[test]
    fn strategic_patch_should_merge_containers_by_name() {
        let mut deployment = json!({"spec": {"template": {"spec": {"containers": [
            {"name": "app", "image": "app:1"}, {"name": "sidecar", "image": "proxy:1"}
        ]}}}, "metadata": {"finalizers": ["a"]}});
        let patch = json!({"spec": {"template": {"spec": {"containers": [
            {"name": "app", "image": "app:2"}, {"name": "sidecar", "$patch": "delete"}, {"name": "new", "image": "n"}
        ]}}}, "metadata": {"finalizers": ["b"]}});
        apply(&mut deployment, &patch).unwrap();
        assert_eq!(
            deployment["spec"]["template"]["spec"]["containers"],
            json!([
                {"name": "app", "image": "app:2"}, {"name": "new", "image": "n"}
            ])
        );
        assert_eq!(deployment["metadata"]["finalizers"], json!(["a", "b"]));
    }

    #[test]
    fn strategic_patch_should_replace_unkeyed_lists_and_delete_nulls() {
        let mut object = json!({"spec": {"args": ["a", "b"], "x": 1}});
        apply(&mut object, &json!({"spec": {"args": ["c"], "x": null}})).unwrap();
        assert_eq!(object, json!({"spec": {"args": ["c"]}}));
        let mut object = json!({"metadata": {"finalizers": ["a", "b"]}});
        apply(
            &mut object,
            &json!({"metadata": {"$deleteFromPrimitiveList/finalizers": ["a"]}}),
        )
        .unwrap();
        assert_eq!(object, json!({"metadata": {"finalizers": ["b"]}}));
    }
}
