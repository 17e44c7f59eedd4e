//! The fields an applied configuration owns, as structured-merge-diff v4.2.3 builds them
//! (`typed/tofieldset.go`, `toFieldSetWalker`), and the errors it refuses an applied
//! configuration with when it cannot even name its list items (`typed/validate.go`'s
//! `visitListItems`, `typed/helpers.go`'s `listItemToPathElement`), which kube-apiserver's
//! field manager (`managedfields/internal/structuredmerge.go`) answers with a 500.
//!
//! A set member is a scalar, an atomic value, an empty map, a keyed list item (its `"."`: owning
//! the item is what keeps it when another applier stops naming it), a set value (`v:"a"`) or an
//! entry of a schema map (`additionalProperties`); struct fields with children are not members.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use super::{FieldPath, display, extend, is_system, key_segment, value_segment};
use crate::semantics::shape::{ListKind, Shape, list_kind};

/// Every member of `object`'s field set, each with whether other members sit below it (a list
/// item with fields; a leaf otherwise).
pub(crate) fn applied_set(object: &Value, shape: Shape<'_>) -> BTreeMap<FieldPath, bool> {
    let mut set = BTreeSet::new();
    for (key, value) in object.as_object().into_iter().flatten() {
        if key != "apiVersion" && key != "kind" {
            walk(value, shape.child(key), vec![format!("f:{key}")], &mut set);
        }
    }
    set.iter()
        .map(|path| {
            // In sorted order a member's descendants follow it directly.
            let below = set
                .range(path.clone()..)
                .nth(1)
                .is_some_and(|next| next.len() > path.len() && next.starts_with(path));
            (path.clone(), below)
        })
        .collect()
}

fn walk(value: &Value, shape: Shape<'_>, path: FieldPath, set: &mut BTreeSet<FieldPath>) {
    if is_system(&path) {
        return;
    }
    if shape.is_atomic(&path) {
        set.insert(path);
        return;
    }
    match value {
        Value::Object(map) if !map.is_empty() => {
            for (key, child) in map {
                let child_path = extend(&path, format!("f:{key}"));
                // `visitMapItems`: a key the struct does not declare is a member itself.
                if shape.is_map_entry(key) && !is_system(&child_path) {
                    set.insert(child_path.clone());
                }
                walk(child, shape.child(key), child_path, set);
            }
        }
        Value::Array(items) => {
            match list_kind(shape, &path) {
                // `doList`: a granular list owns its items, not itself; an empty one owns nothing.
                ListKind::Set => set.extend(items.iter().map(|item| extend(&path, value_segment(item)))),
                ListKind::Map(keys) if items.iter().all(|item| key_segment(item, &keys).is_some()) => {
                    for item in items {
                        let Some(segment) = key_segment(item, &keys) else {
                            continue;
                        };
                        let item_path = extend(&path, segment);
                        walk(item, shape.items(), item_path.clone(), set);
                        set.insert(item_path);
                    }
                }
                _ => {
                    set.insert(path);
                }
            }
        }
        _ => {
            set.insert(path);
        }
    }
}

/// An error of structured-merge-diff's typed conversion of a granular list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ListError {
    pub(crate) message: String,
    /// A repeated name, which v4.4 (kube-apiserver 1.30 on) lets an update through
    /// (`AllowDuplicates`), where an item it cannot name fails every conversion.
    pub(crate) repeat: bool,
}

impl std::fmt::Display for ListError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// The errors structured-merge-diff's typed conversion finds in `object`'s granular lists: an
/// item it cannot name (a keyed list's null, non-object or key-less item; a set's object, list
/// or null), which abandons the rest of that list, and every repeat of a name.
pub(crate) fn list_errors(object: &Value, shape: Shape<'_>) -> Vec<ListError> {
    let mut errors = Vec::new();
    for (key, value) in object.as_object().into_iter().flatten() {
        if key != "apiVersion" && key != "kind" {
            check(value, shape.child(key), vec![format!("f:{key}")], &mut errors);
        }
    }
    errors
}

fn check(value: &Value, shape: Shape<'_>, path: FieldPath, errors: &mut Vec<ListError>) {
    if is_system(&path) || shape.is_atomic(&path) {
        return;
    }
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                check(child, shape.child(key), extend(&path, format!("f:{key}")), errors);
            }
        }
        Value::Array(items) => {
            let kind = list_kind(shape, &path);
            if matches!(kind, ListKind::Atomic) {
                return;
            }
            let mut seen = BTreeSet::new();
            for (i, item) in items.iter().enumerate() {
                let segment = match item_segment(&kind, item) {
                    Ok(segment) => segment,
                    Err(why) => {
                        errors.push(ListError {
                            message: format!("{}: element {i}: {why}", display(&path)),
                            repeat: false,
                        });
                        return;
                    }
                };
                if !seen.insert(segment.clone()) {
                    let name = display(std::slice::from_ref(&segment));
                    errors.push(ListError {
                        message: format!("{}: duplicate entries for key {name}", display(&path)),
                        repeat: true,
                    });
                }
                if let ListKind::Map(_) = kind {
                    check(item, shape.items(), extend(&path, segment), errors);
                }
            }
        }
        _ => {}
    }
}

/// `listItemToPathElement` for a granular list: the item's `k:` or `v:` segment.
fn item_segment(kind: &ListKind, item: &Value) -> Result<String, String> {
    match (kind, item) {
        (ListKind::Map(_), Value::Null) => Err("associative list with keys may not have a null element".into()),
        (ListKind::Map(keys), Value::Object(fields)) => {
            let mut key = Map::new();
            for (name, default) in keys {
                let Some(value) = fields.get(name).or(default.as_ref()) else {
                    return Err(format!(
                        "associative list with keys has an element that omits key field {name:?} (and doesn't have default value)"
                    ));
                };
                key.insert(name.clone(), value.clone());
            }
            Ok(format!("k:{}", Value::Object(key)))
        }
        (ListKind::Map(_), _) => Err("associative list with keys may not have non-map elements".into()),
        (_, Value::Object(_)) => Err("associative list without keys has an element that's a map type".into()),
        (_, Value::Array(_)) => Err("not supported: associative list with lists as elements".into()),
        (_, Value::Null) => Err("associative list without keys has an element that's an explicit null".into()),
        (_, scalar) => Ok(value_segment(scalar)),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::storage::resource::ResourceInfo;

    fn board() -> ResourceInfo {
        let mut info = ResourceInfo::builtin("g.io", "v1", "Board", "boards");
        info.schema = Some(
            json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
            "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name", "protocol"],
                      "items": {"type": "object", "properties": {"name": {"type": "string"}, "protocol": {"type": "string"},
                                                                  "port": {"type": "integer"}}}},
            "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
            "args": {"type": "array", "items": {"type": "string"}},
            "labels": {"type": "object", "additionalProperties": {"type": "object"}}}}}}),
        );
        info
    }

    fn path(segments: &[&str]) -> FieldPath {
        segments.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn keyed_items_set_values_and_map_entries_should_be_members() {
        let info = board();
        let object = json!({"spec": {"ports": [{"name": "a", "protocol": "TCP", "port": 1}], "tags": ["x"],
                                     "args": ["y"], "labels": {"k": {"v": "1"}}}});
        let set = applied_set(&object, Shape::of(&info));
        let item = path(&["f:spec", "f:ports", "k:{\"name\":\"a\",\"protocol\":\"TCP\"}"]);
        assert_eq!(set.get(&item), Some(&true), "the item is owned and has fields below");
        assert_eq!(set.get(&extend(&item, "f:port".into())), Some(&false));
        assert_eq!(set.get(&path(&["f:spec", "f:tags", "v:\"x\""])), Some(&false));
        assert_eq!(set.get(&path(&["f:spec", "f:args"])), Some(&false), "atomic list");
        assert_eq!(set.get(&path(&["f:spec", "f:labels", "f:k"])), Some(&true), "map entry");
        assert!(
            !set.contains_key(&path(&["f:spec", "f:ports"])),
            "granular lists are not members"
        );
        assert!(!set.contains_key(&path(&["f:spec"])));
    }

    #[test]
    fn values_kept_as_unknown_fields_should_be_deduced_maps_but_not_the_metadata() {
        let mut info = ResourceInfo::builtin("g.io", "v1", "Loose", "looses");
        info.schema = Some(json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true}));
        let object = json!({"metadata": {"labels": {"a": "1"}}, "spec": {"deep": {"x": 1}, "list": [1]}});
        let set = applied_set(&object, Shape::of(&info));
        assert_eq!(set.get(&path(&["f:spec", "f:deep"])), Some(&true));
        assert_eq!(set.get(&path(&["f:spec", "f:deep", "f:x"])), Some(&false));
        assert_eq!(set.get(&path(&["f:spec", "f:list"])), Some(&false), "atomic list");
        assert!(
            !set.contains_key(&path(&["f:metadata"])),
            "metadata is ObjectMeta, declared"
        );
        assert!(!set.contains_key(&path(&["f:metadata", "f:labels"])));
        assert_eq!(set.get(&path(&["f:metadata", "f:labels", "f:a"])), Some(&false));
    }

    #[test]
    fn unnameable_and_repeated_items_should_be_errors() {
        let info = board();
        let shape = Shape::of(&info);
        let object = json!({"spec": {"ports": [{"name": "x", "protocol": "TCP"}, {"name": "x", "protocol": "TCP"}],
                                     "tags": ["q", "q", "q"]}});
        let messages = |object| {
            list_errors(object, shape)
                .into_iter()
                .map(|e| e.message)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            messages(&object),
            [
                ".spec.ports: duplicate entries for key [name=\"x\",protocol=\"TCP\"]",
                ".spec.tags: duplicate entries for key [=\"q\"]",
                ".spec.tags: duplicate entries for key [=\"q\"]",
            ]
        );
        let object = json!({"spec": {"ports": [{"name": "y"}, {"name": "y"}], "args": ["a", "a"]}});
        assert_eq!(
            messages(&object),
            [
                ".spec.ports: element 0: associative list with keys has an element that omits key field \"protocol\" (and doesn't have default value)"
            ]
        );
    }
}
