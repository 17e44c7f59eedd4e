//! What an apply removes, as structured-merge-diff v4.2.3's `merge/update.go` (`Updater.prune`,
//! `addBackOwnedItems`, `addBackDanglingItems`) decides it: the members of the applier's
//! previous set that its new configuration no longer names and that no manager (the applier's
//! new set included) owns. A removed keyed item or set value goes whole; owning the item's own
//! `"."` is what keeps it, owning only fields under it does not.
//!
//! `EnsureNamedFieldsAreMembers` makes every struct field an applier owned something under a
//! member of its previous set, so a struct field no manager owns anything under any more goes
//! too; without struct types for built-in kinds this is approximated by removing the maps, lists
//! and items that removal leaves empty.

use std::collections::BTreeSet;

use serde_json::Value;

use super::{FieldPath, remove_path, value_at};

/// Removes from `merged` what the applier owned before (`last`) and nobody owns now (`managed`:
/// every manager's set after the apply).
pub(crate) fn prune(merged: &mut Value, last: &BTreeSet<FieldPath>, managed: &BTreeSet<FieldPath>) {
    let mut removed: Vec<&FieldPath> = Vec::new();
    // Sorted order visits a path before anything below it; below a removed path is gone already.
    for path in last.difference(managed) {
        if removed.iter().any(|r| path.starts_with(r)) || value_at(merged, path).is_none() {
            continue;
        }
        remove_path(merged, path);
        removed.push(path);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn set(paths: &[&[&str]]) -> BTreeSet<FieldPath> {
        paths
            .iter()
            .map(|p| p.iter().map(|s| (*s).to_owned()).collect())
            .collect()
    }

    #[test]
    fn only_what_nobody_owns_should_go() {
        let http = "k:{\"name\":\"http\"}";
        let dns = "k:{\"name\":\"dns\"}";
        let mut merged = json!({"spec": {"ports": [{"name": "http", "port": 80, "note": "n"},
                                                   {"name": "dns", "port": 53}], "tags": ["a", "b"]}});
        let last = set(&[
            &["f:spec", "f:ports", http],
            &["f:spec", "f:ports", http, "f:name"],
            &["f:spec", "f:ports", http, "f:port"],
            &["f:spec", "f:ports", dns],
            &["f:spec", "f:ports", dns, "f:name"],
            &["f:spec", "f:ports", dns, "f:port"],
            &["f:spec", "f:tags", "v:\"b\""],
        ]);
        // Another manager owns the http item and its name and note, not its port.
        let managed = set(&[
            &["f:spec", "f:ports", http],
            &["f:spec", "f:ports", http, "f:name"],
            &["f:spec", "f:ports", http, "f:note"],
            &["f:spec", "f:tags", "v:\"a\""],
        ]);
        prune(&mut merged, &last, &managed);
        assert_eq!(
            merged,
            json!({"spec": {"ports": [{"name": "http", "note": "n"}], "tags": ["a"]}})
        );
    }
}
