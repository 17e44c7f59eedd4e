//! The lists of a strategic merge patch (`k8s.io/apimachinery/pkg/util/strategicpatch/patch.go`:
//! `mergeSliceHandler`, `mergeSlice` with its special elements, `mergePatchIntoOriginal` for
//! `$setElementOrder`, and the order the result takes: `normalizeElementOrder`,
//! `mergeSortedSlice`): a list with the `merge` strategy merges item by item (objects by their
//! merge key, scalars as a set), every other list is replaced by the patch's.
//!
//! Items merge as maps do; `strategic` hands its map merge (`MergeMap`) down, so the two
//! halves of Go's mutual recursion stay apart.

use serde_json::{Map, Value};

use crate::semantics::shape::{PatchMeta, Shape};
use crate::semantics::strategic_error::{GoType, StrategicError, go_text};
use crate::semantics::strategic_order::{deduplicate_scalars, normalize_element_order, slice_element_type};

/// A JSON object, as a patch and the object it patches hold them.
type Object = Map<String, Value>;

/// `mergeMap` and the directive helpers, as `strategic` provides them.
pub(crate) struct MergeMap {
    pub(crate) merge: fn(Object, Object, Shape<'_>) -> Result<Object, StrategicError>,
    pub(crate) retain_keys_strategy: for<'a> fn(PatchMeta<'a>) -> Result<(&'a str, bool), StrategicError>,
}

/// The prefix of a list's order directive (`$setElementOrder/<field>`).
pub(crate) const SET_ELEMENT_ORDER: &str = "$setElementOrder";

/// The `$patch` directive of a list item, if it has one.
fn directive(item: &Value) -> Option<&Value> {
    item.get("$patch")
}

/// `removeDirectives`: a patch value stored as it is loses every map that carries `$patch`
/// (`None` when the value itself is one).
pub(crate) fn remove_directives(value: Value) -> Option<Value> {
    match value {
        Value::Object(map) if map.contains_key("$patch") => None,
        Value::Object(map) => Some(Value::Object(
            map.into_iter()
                .filter_map(|(k, v)| Some((k, remove_directives(v)?)))
                .collect(),
        )),
        Value::Array(items) => Some(Value::Array(items.into_iter().filter_map(remove_directives).collect())),
        other => Some(other),
    }
}

/// `mergeSliceHandler`: merges `patch` into `original` if the field's strategy says `merge` (or
/// the patch is a deletion list), else the patch's list replaces the original one.
pub(crate) fn merge_slice_handler(
    maps: &MergeMap,
    original: Vec<Value>,
    patch: Vec<Value>,
    items: Shape<'_>,
    strategy: &str,
    merge_key: &str,
    delete_list: bool,
) -> Result<Vec<Value>, StrategicError> {
    if strategy == "merge" || delete_list {
        merge_slice(maps, original, patch, items, merge_key, delete_list)
    } else {
        Ok(patch)
    }
}

/// `mergeSlice`: scalars as a set (or removed, for a deletion list), objects by merge key; the
/// patch's items in the patch's order, the others where they were.
fn merge_slice(
    maps: &MergeMap,
    original: Vec<Value>,
    patch: Vec<Value>,
    items: Shape<'_>,
    merge_key: &str,
    delete_list: bool,
) -> Result<Vec<Value>, StrategicError> {
    if original.is_empty() && patch.is_empty() {
        return Ok(original);
    }
    let kind = slice_element_type(&[&original, &patch])?;
    let (original, patch, merged) = if kind != GoType::Map {
        if delete_list {
            return Ok(original.into_iter().filter(|item| !patch.contains(item)).collect());
        }
        let merged = deduplicate_scalars([original.clone(), patch.clone()].concat());
        (original, patch, merged)
    } else {
        if merge_key.is_empty() {
            return Err(StrategicError::NoMergeKeyDeclared("struct"));
        }
        let (original, patch) = without_special_elements(original, patch, merge_key)?;
        let merged = merge_items(maps, original.clone(), &patch, merge_key, items)?;
        (original, patch, merged)
    };
    let (patch_items, server_only) = partition(merged, &patch, merge_key)?;
    normalize_element_order(patch_items, server_only, &patch, &original, merge_key, kind)
}

/// `mergeSliceWithSpecialElements`: items with `$patch: delete` remove their namesakes, one with
/// `$patch: replace` makes the other items the whole list.
fn without_special_elements(
    mut original: Vec<Value>,
    patch: Vec<Value>,
    merge_key: &str,
) -> Result<(Vec<Value>, Vec<Value>), StrategicError> {
    let mut plain = Vec::with_capacity(patch.len());
    let mut replace = false;
    for item in patch {
        let Some(directive) = directive(&item) else {
            plain.push(item);
            continue;
        };
        match directive.as_str() {
            Some("delete") => {
                let value = item
                    .get(merge_key)
                    .ok_or_else(|| StrategicError::no_merge_key(&item, merge_key))?;
                original.retain(|o| o.get(merge_key) != Some(value));
            }
            Some("replace") => replace = true,
            Some("merge") => return Err(StrategicError::MergeList),
            _ => {
                let map = item.as_object().cloned().unwrap_or_default();
                return Err(StrategicError::bad_patch_type(directive, &map));
            }
        }
    }
    Ok(if replace {
        (plain, Vec::new())
    } else {
        (original, plain)
    })
}

/// `mergeSliceWithoutSpecialElements`: each patch item merges into the original item with its
/// merge key, or is added as it was sent.
fn merge_items(
    maps: &MergeMap,
    mut original: Vec<Value>,
    patch: &[Value],
    merge_key: &str,
    items: Shape<'_>,
) -> Result<Vec<Value>, StrategicError> {
    for item in patch {
        let value = item
            .get(merge_key)
            .ok_or_else(|| StrategicError::no_merge_key(item, merge_key))?;
        match find_by_key(&original, merge_key, value)? {
            Some(index) => {
                let existing = std::mem::take(&mut original[index]);
                let existing = existing.as_object().cloned().unwrap_or_default();
                let patch_map = item.as_object().cloned().unwrap_or_default();
                original[index] = Value::Object((maps.merge)(existing, patch_map, items)?);
            }
            None => original.push(item.clone()),
        }
    }
    Ok(original)
}

/// `mergePatchIntoOriginal`: each `$setElementOrder/<field>` merges that field's list and
/// orders the result: the listed items in the listed order, the server's others among them.
pub(crate) fn merge_set_element_orders(
    maps: &MergeMap,
    original: &mut Map<String, Value>,
    patch: &mut Map<String, Value>,
    shape: Shape<'_>,
) -> Result<(), StrategicError> {
    let keys: Vec<String> = patch
        .keys()
        .filter(|k| k.starts_with(SET_ELEMENT_ORDER))
        .cloned()
        .collect();
    for key in keys {
        let order = match patch.remove(&key) {
            Some(Value::Array(order)) => order,
            other => return Err(StrategicError::bad_arg_type(GoType::Slice, &other.unwrap_or_default())),
        };
        let field = key
            .strip_prefix(SET_ELEMENT_ORDER)
            .and_then(|rest| rest.strip_prefix('/'))
            .ok_or(StrategicError::BadSetElementOrder)?
            .to_owned();
        let original_list = list_at(original, &field)?;
        let patch_list = list_at(patch, &field)?;
        check_list_field(shape, &field)?;
        let meta = shape.patch_meta(&field);
        let (strategy, _) = (maps.retain_keys_strategy)(meta)?;
        let merge_key = meta.merge_key;
        check_patch_order(patch_list.as_deref().unwrap_or_default(), &order, merge_key)?;
        let merged = match (&original_list, &patch_list) {
            (Some(original_items), None) => original_items.clone(),
            (None, Some(patch_items)) => patch_items.iter().cloned().filter_map(remove_directives).collect(),
            (Some(original_items), Some(patch_items)) => merge_slice_handler(
                maps,
                original_items.clone(),
                patch_items.clone(),
                shape.child(&field).items(),
                strategy,
                merge_key,
                false,
            )?,
            (None, None) => continue,
        };
        let (patch_items, server_only) = partition(merged, &order, merge_key)?;
        let original_items = original_list.unwrap_or_default();
        let kind = slice_element_type(&[&original_items, patch_list.as_deref().unwrap_or_default()])?;
        let ordered = normalize_element_order(patch_items, server_only, &order, &original_items, merge_key, kind)?;
        original.insert(field.clone(), Value::Array(ordered));
        patch.remove(&field);
    }
    Ok(())
}

/// The list at `field` of a map, if there is one; anything else there is the wrong type.
fn list_at(map: &Map<String, Value>, field: &str) -> Result<Option<Vec<Value>>, StrategicError> {
    match map.get(field) {
        None => Ok(None),
        Some(Value::Array(items)) => Ok(Some(items.clone())),
        Some(other) => Err(StrategicError::bad_arg_type(GoType::Slice, other)),
    }
}

/// `LookupPatchMetadataForSlice` of a built-in struct: the field must be declared, and a list.
fn check_list_field(shape: Shape<'_>, field: &str) -> Result<(), StrategicError> {
    if shape.is_map() {
        return Err(StrategicError::NotAStruct("map"));
    }
    if let Some(strukt) = shape.undeclared_field(field) {
        return Err(StrategicError::UnknownField {
            strukt: strukt.to_owned(),
            field: field.to_owned(),
        });
    }
    if shape.declares_non_list(field) {
        return Err(StrategicError::NotASlice("struct"));
    }
    Ok(())
}

/// `validatePatchWithSetOrderList`: the patch's items (but deletions) appear in the order's order.
fn check_patch_order(patch: &[Value], order: &[Value], merge_key: &str) -> Result<(), StrategicError> {
    if patch.is_empty() || order.is_empty() {
        return Ok(());
    }
    let kept = if merge_key.is_empty() {
        patch.to_vec()
    } else {
        split_deletions(patch.to_vec())?.0
    };
    let (mut p, mut o) = (0, 0);
    while p < kept.len() && o < order.len() {
        if directive(&kept[p]).is_some() {
            p += 1;
            continue;
        }
        if key_value_equal(&kept[p], &order[o], merge_key)? {
            p += 1;
        }
        o += 1;
    }
    if p < kept.len() && o >= order.len() {
        return Err(StrategicError::OrderMismatch {
            patch: go_text(&Value::Array(patch.to_vec())),
            order: go_text(&Value::Array(order.to_vec())),
        });
    }
    Ok(())
}

/// `mergeKeyValueEqual`: two items are the same item (scalars by value).
fn key_value_equal(left: &Value, right: &Value, merge_key: &str) -> Result<bool, StrategicError> {
    if merge_key.is_empty() {
        return Ok(left == right);
    }
    let key_of = |item: &Value| -> Result<Value, StrategicError> {
        let map = item
            .as_object()
            .ok_or_else(|| StrategicError::bad_arg_type(GoType::Map, item))?;
        map.get(merge_key)
            .cloned()
            .ok_or_else(|| StrategicError::no_merge_key(item, merge_key))
    };
    Ok(key_of(left)? == key_of(right)?)
}

/// `partitionPrimitivesByPresentInList` / `partitionMapsByPresentInList`: the merged items the
/// patch (or order) names, and the server's others, each in the merged order.
fn partition(merged: Vec<Value>, by: &[Value], merge_key: &str) -> Result<(Vec<Value>, Vec<Value>), StrategicError> {
    let (mut named, mut server_only) = (Vec::new(), Vec::new());
    for item in merged {
        let present = if merge_key.is_empty() {
            by.contains(&item)
        } else {
            if !item.is_object() {
                return Err(StrategicError::bad_arg_type(GoType::Map, &item));
            }
            let value = item
                .get(merge_key)
                .ok_or_else(|| StrategicError::no_merge_key(&item, merge_key))?;
            find_by_key(by, merge_key, value)?.is_some()
        };
        if present {
            named.push(item)
        } else {
            server_only.push(item)
        }
    }
    Ok((named, server_only))
}

/// `findMapInSliceBasedOnKeyValue`: the index of the first object whose merge key has `value`.
fn find_by_key(items: &[Value], merge_key: &str, value: &Value) -> Result<Option<usize>, StrategicError> {
    for (index, item) in items.iter().enumerate() {
        let map = item.as_object().ok_or(StrategicError::ItemNotAMap(index))?;
        if map.get(merge_key) == Some(value) {
            return Ok(Some(index));
        }
    }
    Ok(None)
}

/// `extractToDeleteItems`: the items to keep and those with `$patch: delete`.
fn split_deletions(items: Vec<Value>) -> Result<(Vec<Value>, Vec<Value>), StrategicError> {
    let (mut kept, mut deleted) = (Vec::new(), Vec::new());
    for item in items {
        if !item.is_object() {
            return Err(StrategicError::bad_arg_type(GoType::Map, &item));
        }
        if directive(&item).and_then(Value::as_str) == Some("delete") {
            deleted.push(item);
        } else {
            kept.push(item);
        }
    }
    Ok((kept, deleted))
}
