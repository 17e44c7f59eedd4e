//! The names a CRD may use, as apiextensions' naming controller decides them
//! (`pkg/controller/status/naming_controller.go`: `calculateNamesAndConditions`): a requested
//! plural, singular, short name, kind or list kind that another CRD of the group has accepted is
//! refused (`NamesAccepted` False with the conflict's reason), and a CRD whose names are not all
//! accepted is not established, so not served.

use serde_json::{Map, Value, json};

use crate::storage::State;

/// The naming controller's verdict on one CRD.
pub(super) struct Naming {
    /// `status.acceptedNames` to write: the requested names that are free, the old ones else.
    pub(super) accepted: Value,
    /// `None` when every name was accepted, else the conflict's `(reason, message)`.
    pub(super) conflict: Option<(&'static str, String)>,
}

/// The names `crd` may have, against the names its group's CRDs have accepted.
pub(super) fn calculate(state: &State, crd: &Value) -> Naming {
    let group = crd.pointer("/spec/group").and_then(Value::as_str).unwrap_or_default();
    let (resources, kinds) = accepted_in_group(state, group);
    let requested = crd.pointer("/spec/names").cloned().unwrap_or_else(|| json!({}));
    let accepted = crd
        .pointer("/status/acceptedNames")
        .cloned()
        .unwrap_or_else(|| json!({}));
    let text = |names: &Value, key: &str| names.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
    let mut new_names: Map<String, Value> = accepted.as_object().cloned().unwrap_or_default();
    let mut conflict = None;
    let checks: [(&str, &'static str, &[String]); 2] = [
        ("plural", "PluralConflict", &resources),
        ("singular", "SingularConflict", &resources),
    ];
    for (key, reason, used) in checks {
        match fresh(&text(&requested, key), &text(&accepted, key), used) {
            Ok(()) => {
                new_names.insert(key.to_owned(), json!(text(&requested, key)));
            }
            Err(why) => conflict = Some((reason, why)),
        }
    }
    let short = |names: &Value| -> Vec<String> {
        names
            .get("shortNames")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect()
    };
    let (requested_short, accepted_short) = (short(&requested), short(&accepted));
    if requested_short != accepted_short {
        let errors: Vec<String> = requested_short
            .iter()
            .filter(|name| !accepted_short.contains(name))
            .filter_map(|name| fresh(name, "", &resources).err())
            .collect();
        match &errors[..] {
            [] => {
                new_names.insert(
                    "shortNames".to_owned(),
                    requested.get("shortNames").cloned().unwrap_or(Value::Null),
                );
            }
            // Go's aggregate: one message alone, several in brackets.
            [one] => conflict = Some(("ShortNamesConflict", one.clone())),
            many => conflict = Some(("ShortNamesConflict", format!("[{}]", many.join(", ")))),
        }
    }
    let checks: [(&str, &'static str); 2] = [("kind", "KindConflict"), ("listKind", "ListKindConflict")];
    for (key, reason) in checks {
        match fresh(&text(&requested, key), &text(&accepted, key), &kinds) {
            Ok(()) => {
                new_names.insert(key.to_owned(), json!(text(&requested, key)));
            }
            Err(why) => conflict = Some((reason, why)),
        }
    }
    match requested.get("categories") {
        Some(categories) => new_names.insert("categories".to_owned(), categories.clone()),
        None => new_names.remove("categories"),
    };
    // Go writes `plural` and `kind` always and the other names only when set.
    new_names.retain(|key, value| {
        matches!(key.as_str(), "plural" | "kind")
            || !(value.is_null() || value.as_str() == Some("") || value.as_array().is_some_and(Vec::is_empty))
    });
    for key in ["plural", "kind"] {
        new_names.entry(key).or_insert_with(|| json!(""));
    }
    Naming {
        accepted: Value::Object(new_names),
        conflict,
    }
}

/// `equalToAcceptedOrFresh`.
fn fresh(requested: &str, accepted: &str, used: &[String]) -> Result<(), String> {
    if requested == accepted || !used.iter().any(|u| u == requested) {
        Ok(())
    } else {
        Err(format!("\"{requested}\" is already in use"))
    }
}

/// `getAcceptedNamesForGroup`: the resource names (plural, singular, short names) and the kinds
/// (kind, list kind) the group's CRDs have accepted.
fn accepted_in_group(state: &State, group: &str) -> (Vec<String>, Vec<String>) {
    let info = state.info("apiextensions.k8s.io", "v1", "customresourcedefinitions");
    let (mut resources, mut kinds) = (Vec::new(), Vec::new());
    for (_, crd) in state.store.iter(&info.storage_key(), None) {
        if crd.pointer("/spec/group").and_then(Value::as_str) != Some(group) {
            continue;
        }
        let Some(names) = crd.pointer("/status/acceptedNames") else {
            continue;
        };
        let text = |key: &str| names.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
        resources.push(text("plural"));
        resources.push(text("singular"));
        let short = names.get("shortNames").and_then(Value::as_array).into_iter().flatten();
        resources.extend(short.filter_map(Value::as_str).map(str::to_owned));
        kinds.push(text("kind"));
        kinds.push(text("listKind"));
    }
    (resources, kinds)
}
