//! Merging an applied configuration into the live object as structured-merge-diff v4.2.3's
//! `typed/merge.go` (`mergingWalker`) does: struct fields and map entries one by one, keyed
//! lists and sets item by item in `visitListItems`' order, atomic values replaced whole.

use std::collections::BTreeSet;

use serde_json::Value;

use super::{extend, key_segment};
use crate::semantics::shape::{ListKind, Shape, list_kind};

/// Merges `config` (the right-hand side) into `live` (the left-hand side).
pub(crate) fn merge_into(live: &mut Value, config: &Value, shape: Shape<'_>, path: &[String]) {
    if shape.is_atomic(path) {
        *live = config.clone();
        return;
    }
    match (live, config) {
        (Value::Object(live), Value::Object(config)) => {
            for (key, value) in config {
                let child_path = extend(path, format!("f:{key}"));
                match live.get_mut(key) {
                    Some(existing) if existing.is_object() || existing.is_array() => {
                        merge_into(existing, value, shape.child(key), &child_path)
                    }
                    _ => {
                        live.insert(key.clone(), value.clone());
                    }
                }
            }
        }
        (Value::Array(live), Value::Array(items)) => {
            let kind = list_kind(shape, path);
            if let ListKind::Atomic = kind {
                *live = items.clone();
                return;
            }
            let (Some(lhs), Some(rhs)) = (named(live, &kind), named(items, &kind)) else {
                // Items it cannot name make the list one value, as the field set treats it.
                *live = items.clone();
                return;
            };
            let merged = merge_items(lhs, rhs, |item, lhs, rhs| {
                let mut out = lhs.cloned().unwrap_or(Value::Null);
                match rhs {
                    Some(rhs) if lhs.is_some() => merge_into(&mut out, rhs, shape.items(), &extend(path, item)),
                    Some(rhs) => out = rhs.clone(),
                    None => {}
                }
                out
            });
            *live = merged;
        }
        (live, config) => *live = config.clone(),
    }
}

/// A list's items with their names, the first of a repeated name only (as `indexListPathElements`
/// keeps it); `None` when an item has no name.
fn named(list: &[Value], kind: &ListKind) -> Option<Vec<(String, Value)>> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for item in list {
        let name = match kind {
            ListKind::Map(keys) => key_segment(item, keys)?,
            _ => format!("v:{item}"),
        };
        if seen.insert(name.clone()) {
            out.push((name, item.clone()));
        }
    }
    Some(out)
}

/// `visitListItems`' order: the live items walk along the applied ones; a live item the
/// configuration does not name stays where it is, one it names waits for its turn in the
/// configuration's order, so shared items end up in the applied order after the live-only items
/// before them.
fn merge_items(
    lhs: Vec<(String, Value)>,
    rhs: Vec<(String, Value)>,
    mut merge: impl FnMut(String, Option<&Value>, Option<&Value>) -> Value,
) -> Vec<Value> {
    let in_lhs = |name: &str| lhs.iter().find(|(n, _)| n == name).map(|(_, v)| v);
    let in_rhs = |name: &str| rhs.iter().find(|(n, _)| n == name).map(|(_, v)| v);
    let mut shared = rhs.iter().map(|(n, _)| n).filter(|n| in_lhs(n).is_some());
    let mut next_shared = shared.next();
    let mut out = Vec::with_capacity(lhs.len().max(rhs.len()));
    let (mut l, mut r) = (0, 0);
    while l < lhs.len() || r < rhs.len() {
        if l < lhs.len() && r < rhs.len() {
            let name = &lhs[l].0;
            if *name == rhs[r].0 {
                out.push(merge(name.clone(), in_lhs(name), in_rhs(name)));
                l += 1;
                r += 1;
                next_shared = shared.next();
                continue;
            }
            if in_rhs(name).is_some() && next_shared.is_some_and(|n| n != name) {
                // A shared item, but not the one this round wants.
                l += 1;
                continue;
            }
        }
        if l < lhs.len() {
            let name = &lhs[l].0;
            if in_rhs(name).is_none() {
                out.push(merge(name.clone(), Some(&lhs[l].1), None));
                l += 1;
                continue;
            }
        }
        if r < rhs.len() {
            let name = &rhs[r].0;
            out.push(merge(name.clone(), in_lhs(name), in_rhs(name)));
            r += 1;
            if next_shared == Some(name) {
                next_shared = shared.next();
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::storage::resource::ResourceInfo;

    #[test]
    fn live_only_items_should_stay_before_the_applied_order() {
        let info = ResourceInfo::builtin("", "v1", "Pod", "pods");
        let mut live = json!({"spec": {"containers": [{"name": "http", "image": "1"}, {"name": "dns"},
                                                      {"name": "metrics"}]}});
        let config = json!({"spec": {"containers": [{"name": "metrics"}, {"name": "http", "note": "x"}]}});
        merge_into(&mut live, &config, Shape::of(&info), &[]);
        assert_eq!(
            live["spec"]["containers"],
            json!([{"name": "dns"}, {"name": "metrics"}, {"name": "http", "image": "1", "note": "x"}])
        );
        let mut live = json!({"metadata": {"finalizers": ["a", "b"]}});
        merge_into(
            &mut live,
            &json!({"metadata": {"finalizers": ["c", "a"]}}),
            Shape::of(&info),
            &[],
        );
        // `c` comes first: the live `a` waits for its turn in the applied order, `b` follows.
        assert_eq!(live["metadata"]["finalizers"], json!(["c", "a", "b"]));
    }
}
