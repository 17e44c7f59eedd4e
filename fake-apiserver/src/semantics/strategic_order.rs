//! The order of a merged strategic-merge-patch list (`k8s.io/apimachinery/pkg/util/strategicpatch/patch.go`:
//! `normalizeElementOrder`, `normalizeSliceOrder`, `mergeSortedSlice`, `index`), the element type
//! check (`sliceElementType`) and the set merge of scalars (`deduplicateScalars`), with Go's
//! algorithms kept where their quirks show in the result.

use serde_json::Value;

use crate::semantics::strategic_error::{GoType, StrategicError, go_text};

/// `normalizeElementOrder`: the patch's items sorted by `patch_order`, the server-only ones by
/// `server_order`, then interleaved by `server_order` (`mergeSortedSlice`).
pub(crate) fn normalize_element_order(
    patch: Vec<Value>,
    server_only: Vec<Value>,
    patch_order: &[Value],
    server_order: &[Value],
    merge_key: &str,
    kind: GoType,
) -> Result<Vec<Value>, StrategicError> {
    let patch = normalize_slice_order(patch, patch_order, merge_key, kind)?;
    let server_only = normalize_slice_order(server_only, server_order, merge_key, kind)?;
    Ok(merge_sorted_slice(server_only, patch, server_order, merge_key, kind))
}

/// `normalizeSliceOrder`: sorts `items` stably by their place in `order`; objects with
/// `$patch: delete` go last. Go's `sort.SliceStable` with a comparison that calls an item missing
/// from `order` smaller than anything: insertion sort, which is what Go runs on lists of up to
/// 20 items and agrees with any stable sort when every item is in `order`.
fn normalize_slice_order(
    items: Vec<Value>,
    order: &[Value],
    merge_key: &str,
    kind: GoType,
) -> Result<Vec<Value>, StrategicError> {
    let (mut items, deleted) = if kind == GoType::Map {
        for item in items.iter().chain(order) {
            let map = item
                .as_object()
                .ok_or_else(|| StrategicError::bad_arg_type(GoType::Map, item))?;
            if !map.contains_key(merge_key) {
                return Err(StrategicError::no_merge_key(item, merge_key));
            }
        }
        items
            .into_iter()
            .partition(|item| item.get("$patch").and_then(Value::as_str) != Some("delete"))
    } else {
        (items, Vec::new())
    };
    let less = |a: &Value, b: &Value| match (index(order, a, merge_key, kind), index(order, b, merge_key, kind)) {
        (Some(ia), Some(ib)) => ia < ib,
        _ => true,
    };
    for i in 1..items.len() {
        let mut j = i;
        while j > 0 && less(&items[j], &items[j - 1]) {
            items.swap(j, j - 1);
            j -= 1;
        }
    }
    items.extend(deleted);
    Ok(items)
}

/// `mergeSortedSlice`: `left` (the server's items) into `right` (the patch's), each keeping its
/// own order; a left item goes first only when both are in `server_order` and it comes earlier.
fn merge_sorted_slice(
    left: Vec<Value>,
    right: Vec<Value>,
    server_order: &[Value],
    merge_key: &str,
    kind: GoType,
) -> Vec<Value> {
    let mut merged = Vec::with_capacity(left.len() + right.len());
    let (mut left, mut right) = (left.into_iter().peekable(), right.into_iter().peekable());
    loop {
        let take_left = match (left.peek(), right.peek()) {
            (None, None) => break,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (Some(l), Some(r)) => matches!(
                (index(server_order, l, merge_key, kind), index(server_order, r, merge_key, kind)),
                (Some(li), Some(ri)) if li < ri
            ),
        };
        merged.extend(if take_left { left.next() } else { right.next() });
    }
    merged
}

/// `index`: where an item is in `list`: objects by their merge key's value (an object without
/// it matches the first one without it, as Go compares two nils), scalars by value.
fn index(list: &[Value], item: &Value, merge_key: &str, kind: GoType) -> Option<usize> {
    if kind == GoType::Map {
        let key_of = |v: &Value| v.as_object().and_then(|m| m.get(merge_key)).cloned();
        let wanted = key_of(item);
        list.iter().position(|v| key_of(v) == wanted)
    } else {
        list.iter().position(|v| v == item)
    }
}

/// `sliceElementType`: the one Go type of every element of the lists; lists of lists are not
/// supported.
pub(crate) fn slice_element_type(lists: &[&[Value]]) -> Result<GoType, StrategicError> {
    let mut found: Option<GoType> = None;
    for item in lists.iter().flat_map(|list| list.iter()) {
        let current = GoType::of(item);
        match found {
            None if current == GoType::Slice => return Err(StrategicError::NoListOfLists),
            None => found = Some(current),
            Some(previous) if previous != current => {
                let printed: Vec<String> = lists.iter().map(|l| go_text(&Value::Array(l.to_vec()))).collect();
                return Err(StrategicError::MixedElementTypes(format!("[{}]", printed.join(" "))));
            }
            Some(_) => {}
        }
    }
    found.ok_or(StrategicError::NoElements)
}

/// `deduplicateScalars`: drops repeated scalars, each by moving the last item into its place.
pub(crate) fn deduplicate_scalars(mut items: Vec<Value>) -> Vec<Value> {
    let mut length = items.len().saturating_sub(1);
    let mut i = 0;
    while i < length {
        let mut j = i + 1;
        while j <= length {
            if items[i] == items[j] {
                items[j] = items[length].clone();
                items.truncate(length);
                length -= 1;
                continue;
            }
            j += 1;
        }
        i += 1;
    }
    items
}
