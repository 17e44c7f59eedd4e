//! Strategic merge patch of built-in objects as kube-apiserver applies it
//! (`k8s.io/apimachinery/pkg/util/strategicpatch/patch.go`: `StrategicMergeMapPatch`, parallel
//! deletion lists merged and unmatched nulls ignored): maps merge key by key with the `$patch`,
//! `$retainKeys`, `$setElementOrder` and `$deleteFromPrimitiveList` directives, and each field
//! follows the patch strategy and merge key of its Go struct tags (`Shape::patch_meta`).

use serde_json::{Map, Value};

use crate::semantics::go_json;
use crate::semantics::shape::{PatchMeta, Shape};
use crate::semantics::strategic_error::GoType;
use crate::semantics::strategic_lists::{self, MergeMap, SET_ELEMENT_ORDER, merge_slice_handler, remove_directives};

pub(crate) use crate::semantics::strategic_error::StrategicError;

const DIRECTIVE: &str = "$patch";
const RETAIN_KEYS: &str = "$retainKeys";

/// This module's map merge, handed to the list merge for the items of keyed lists.
const MAPS: MergeMap = MergeMap {
    merge: merge_map,
    retain_keys_strategy,
};
const DELETE_FROM_PRIMITIVE_LIST: &str = "$deleteFromPrimitiveList";

/// Applies a strategic merge patch to the object `target` of the type `shape` describes.
pub(crate) fn apply(target: &mut Value, patch: &Value, shape: Shape<'_>) -> Result<(), StrategicError> {
    let patch = match patch {
        Value::Object(patch) => patch,
        // A JSON `null` decodes to a nil map: a patch that changes nothing.
        Value::Null => return Ok(()),
        other => return Err(StrategicError::NotAnObject(go_json::type_name(other))),
    };
    let original = match std::mem::take(target) {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    *target = Value::Object(merge_map(original, patch.clone(), shape)?);
    Ok(())
}

/// `mergeMap`: the patch's directives first, then each of its keys merged into `original`.
fn merge_map(
    mut original: Map<String, Value>,
    mut patch: Map<String, Value>,
    shape: Shape<'_>,
) -> Result<Map<String, Value>, StrategicError> {
    if let Some(directive) = patch.get(DIRECTIVE) {
        return directive_in_merge_map(directive.clone(), patch);
    }
    apply_retain_keys(&mut original, &mut patch)?;
    strategic_lists::merge_set_element_orders(&MAPS, &mut original, &mut patch, shape)?;
    for (key, patch_value) in patch {
        let (key, delete_list) = match key.strip_prefix(DELETE_FROM_PRIMITIVE_LIST) {
            Some(rest) => {
                let field = rest.strip_prefix('/').ok_or(StrategicError::BadPrimitiveList)?;
                // An empty field name leaves the directive's own key in place, as Go does.
                (
                    if field.is_empty() {
                        key.clone()
                    } else {
                        field.to_owned()
                    },
                    true,
                )
            }
            None => (key, false),
        };
        if patch_value.is_null() {
            // Unmatched nulls are ignored: a null only removes.
            original.remove(&key);
            continue;
        }
        let Some(existing) = original.get(&key) else {
            if !delete_list {
                insert_patch_value(&mut original, key, patch_value, true);
            }
            continue;
        };
        let merged = match (existing, patch_value) {
            (Value::Object(_), Value::Object(patch_map)) => {
                let Some(Value::Object(existing)) = original.remove(&key) else {
                    unreachable!("matched an object above")
                };
                let (strategy, _) = retain_keys_strategy(shape.patch_meta(&key))?;
                if strategy == "replace" {
                    Value::Object(patch_map)
                } else {
                    Value::Object(merge_map(existing, patch_map, shape.child(&key))?)
                }
            }
            (Value::Array(_), Value::Array(patch_items)) => {
                let Some(Value::Array(existing)) = original.remove(&key) else {
                    unreachable!("matched a list above")
                };
                let meta = shape.patch_meta(&key);
                let (strategy, _) = retain_keys_strategy(meta)?;
                let list = shape.child(&key).items();
                Value::Array(merge_slice_handler(
                    &MAPS,
                    existing,
                    patch_items,
                    list,
                    strategy,
                    meta.merge_key,
                    delete_list,
                )?)
            }
            (existing, patch_value) => {
                // Scalars, or values of different Go types: the patch's value replaces the
                // original. A deletion list only ever replaces a scalar of its own type.
                let same_type = GoType::of(existing) == GoType::of(&patch_value);
                if same_type || !delete_list {
                    insert_patch_value(&mut original, key, patch_value, !same_type);
                }
                continue;
            }
        };
        original.insert(key, merged);
    }
    Ok(original)
}

/// Stores a patch value as it stands, its nulls dropped first when asked (`discardNullValuesFromPatch`)
/// and its directive-carrying maps left out (`removeDirectives`).
fn insert_patch_value(original: &mut Map<String, Value>, key: String, mut value: Value, discard_nulls: bool) {
    if discard_nulls {
        discard_null_values(&mut value);
    }
    match remove_directives(value) {
        Some(value) => {
            original.insert(key, value);
        }
        None => {
            original.remove(&key);
        }
    }
}

/// `handleDirectiveInMergeMap`: a map's `$patch` may replace it or delete it, nothing else.
fn directive_in_merge_map(
    directive: Value,
    mut patch: Map<String, Value>,
) -> Result<Map<String, Value>, StrategicError> {
    match directive.as_str() {
        Some("replace") => {
            patch.remove(DIRECTIVE);
            Ok(patch)
        }
        Some("delete") => Ok(Map::new()),
        _ => Err(StrategicError::bad_patch_type(&directive, &patch)),
    }
}

/// `applyRetainKeysDirective`: the original keeps only the listed keys, and the patch may set
/// no other.
fn apply_retain_keys(original: &mut Map<String, Value>, patch: &mut Map<String, Value>) -> Result<(), StrategicError> {
    let Some(retained) = patch.remove(RETAIN_KEYS) else {
        return Ok(());
    };
    let Value::Array(retained) = retained else {
        return Err(StrategicError::BadRetainKeys);
    };
    let is_retained = |key: &str| retained.iter().any(|k| k.as_str() == Some(key));
    let outside = patch.iter().any(|(key, value)| {
        !value.is_null()
            && !key.starts_with(DELETE_FROM_PRIMITIVE_LIST)
            && !key.starts_with(SET_ELEMENT_ORDER)
            && !is_retained(key)
    });
    if outside {
        return Err(StrategicError::BadRetainKeys);
    }
    original.retain(|key, _| is_retained(key));
    Ok(())
}

/// `extractRetainKeysPatchStrategy`: whether the field retains keys, and its other strategy.
fn retain_keys_strategy(meta: PatchMeta<'_>) -> Result<(&str, bool), StrategicError> {
    let strategies: Vec<&str> = meta.strategies.split(',').collect();
    match strategies.as_slice() {
        ["retainKeys"] => Ok(("", true)),
        [single] => Ok((single, false)),
        ["retainKeys", other] | [other, "retainKeys"] => Ok((other, true)),
        _ => Err(StrategicError::UnexpectedStrategy(format!(
            "[{}]",
            strategies.join(" ")
        ))),
    }
}

/// `discardNullValuesFromPatch`: a patch value set where there was nothing carries no nulls.
fn discard_null_values(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.retain(|_, v| !v.is_null());
            map.values_mut().for_each(discard_null_values);
        }
        Value::Array(items) => items.iter_mut().for_each(discard_null_values),
        _ => {}
    }
}

#[cfg(test)]
#[path = "strategic_tests.rs"]
mod tests;
