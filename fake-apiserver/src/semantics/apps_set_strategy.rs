//! What the StatefulSet and DaemonSet strategies change before validation
//! (`pkg/registry/apps/statefulset/strategy.go`, `pkg/registry/apps/daemonset/strategy.go`):
//! `PrepareForCreate` and `PrepareForUpdate` of the main resource (also the path of `/scale`),
//! and of `/status`, which keeps the stored spec and nothing else of the stored object.
//!
//! The status reset on create, the stored status kept on update and the generation are the
//! write path's, as for every kind with a `/status`; here are the kinds' own changes: a
//! StatefulSet loses `maxUnavailable` (`MaxUnavailableStatefulSet` is off in 1.28) unless the
//! stored one had it, and a DaemonSet's template generation starts at 1 and goes up by one
//! with each change of its pod template. Go's field manager records a write before these
//! changes, so an update hands the write path that earlier view to compare.

use std::borrow::Cow;

use serde_json::{Map, Value, json};

use crate::semantics::defaults;
use crate::semantics::defaults::apps_sets::{TEMPLATE_GENERATION, template_generation};
use crate::semantics::quantity::Quantity;
use crate::semantics::validation::preserve_system_fields;
use crate::semantics::workload_validation::semantic;
use crate::storage::object::{keep_stored, meta_mut};
use crate::storage::resource::ResourceInfo;

/// The kinds whose strategies are here.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    StatefulSet,
    DaemonSet,
}

fn kind_of(info: &ResourceInfo) -> Option<Kind> {
    match (info.builtin, info.group.as_str(), info.kind.as_str()) {
        (true, "apps", "StatefulSet") => Some(Kind::StatefulSet),
        (true, "apps", "DaemonSet") => Some(Kind::DaemonSet),
        _ => None,
    }
}

/// Whether `info`'s strategy is one of those here.
pub(crate) fn concerns(info: &ResourceInfo) -> bool {
    kind_of(info).is_some()
}

/// `PrepareForCreate`, of a defaulted object, less the status reset and the generation.
pub(crate) fn prepare_create(info: &ResourceInfo, object: &mut Value) {
    match kind_of(info) {
        Some(Kind::StatefulSet) => drop_max_unavailable(object, None),
        Some(Kind::DaemonSet) => {
            // `if daemonSet.Spec.TemplateGeneration < 1 { … = 1 }`.
            let generation = template_generation(object).unwrap_or(0).max(1);
            set_template_generation(object, generation);
        }
        None => {}
    }
}

/// `PrepareForUpdate` of the main resource (and `/scale`) or of `/status`, on the Kubernetes
/// `minor`: `None` when `info` is no kind here or the path is another subresource (the generic
/// handling applies), else the view of the write Go's field manager compares, when there is one
/// (`None` inside when the write does not decode; its defaulting refuses it next).
pub(crate) fn prepare_update(
    info: &ResourceInfo,
    old: &Value,
    new: &mut Value,
    subresource: Option<&str>,
    minor: u32,
) -> Option<Option<Value>> {
    let kind = kind_of(info)?;
    let main = match subresource {
        None | Some("scale") => true,
        Some("status") => false,
        Some(_) => return None,
    };
    // The main resource keeps the stored status, `/status` the stored spec.
    keep_stored(new, old, if main { "status" } else { "spec" });
    let mut view = new.clone();
    if defaults::apply(info, &mut view, minor).is_err() {
        return Some(None);
    }
    preserve_system_fields(old, &mut view);
    let old_generation = template_generation(old).unwrap_or(0);
    match kind {
        Kind::StatefulSet if main => drop_max_unavailable(new, Some(old)),
        Kind::DaemonSet if main => {
            let changed = !semantic_equal(view.pointer("/spec/template"), old.pointer("/spec/template"));
            set_template_generation(new, old_generation + i64::from(changed));
        }
        // The stored spec holds the template generation.
        Kind::DaemonSet => set_template_generation(new, old_generation),
        Kind::StatefulSet => {}
    }
    Some(Some(view))
}

/// `dropStatefulSetDisabledFields`: `maxUnavailable` goes unless the stored object used it.
fn drop_max_unavailable(object: &mut Value, old: Option<&Value>) {
    let pointer = "/spec/updateStrategy/rollingUpdate";
    let in_use = old
        .and_then(|o| o.pointer(pointer))
        .and_then(|r| r.get("maxUnavailable"))
        .is_some_and(|m| !m.is_null());
    if !in_use && let Some(rolling) = object.pointer_mut(pointer).and_then(Value::as_object_mut) {
        rolling.remove("maxUnavailable");
    }
}

/// Writes the template generation where apps/v1 keeps it.
fn set_template_generation(object: &mut Value, generation: i64) {
    let annotations = meta_mut(object)
        .entry("annotations")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Some(annotations) = annotations.as_object_mut() {
        annotations.insert(TEMPLATE_GENERATION.to_owned(), json!(generation.to_string()));
    }
}

/// `apiequality.Semantic.DeepEqual` of two decoded values: absent, null, empty lists and
/// empty maps are alike (the Go zero values they decode to), and the quantities of resource
/// lists compare by value (`1Gi` is `1024Mi`).
pub(crate) fn semantic_equal(a: Option<&Value>, b: Option<&Value>) -> bool {
    let normal = |v: Option<&Value>| v.map(semantic).unwrap_or(Value::Null);
    let (a, b) = (normal(a), normal(b));
    let empty = |v: &Value| v.is_null() || v.as_object().is_some_and(Map::is_empty);
    (empty(&a) && empty(&b)) || same(&a, &b, false)
}

fn same(a: &Value, b: &Value, quantities: bool) -> bool {
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter().all(|(key, x)| {
                    // A resource list is a flat map of quantities.
                    let list = matches!(key.as_str(), "requests" | "limits" | "capacity" | "allocatedResources");
                    b.get(key).is_some_and(|y| same(x, y, quantities || list))
                })
        }
        (Value::Array(a), Value::Array(b)) => a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y, false)),
        (Value::String(x), Value::String(y)) if quantities && x != y => {
            match (Quantity::parse(x), Quantity::parse(y)) {
                (Ok(x), Ok(y)) => x.cmp_value(&y).is_eq(),
                _ => false,
            }
        }
        _ => a == b,
    }
}

/// The object as the internal type holds it, which the table convertor sees: a DaemonSet's
/// template generation is a field there, written into the annotations only by the conversion
/// to apps/v1 (`Convert_apps_DaemonSet_To_v1_DaemonSet`), so a Table row's metadata lacks it.
pub(crate) fn internal_view<'a>(info: &ResourceInfo, object: &'a Value) -> Cow<'a, Value> {
    let daemon_set = info.builtin && info.group == "apps" && info.kind == "DaemonSet";
    let annotated = object
        .pointer("/metadata/annotations")
        .and_then(|a| a.get(TEMPLATE_GENERATION))
        .is_some();
    if !daemon_set || !annotated {
        return Cow::Borrowed(object);
    }
    let mut internal = object.clone();
    let meta = meta_mut(&mut internal);
    if let Some(annotations) = meta.get_mut("annotations").and_then(Value::as_object_mut) {
        annotations.remove(TEMPLATE_GENERATION);
        if annotations.is_empty() {
            meta.remove("annotations");
        }
    }
    Cow::Owned(internal)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn daemon_sets() -> ResourceInfo {
        ResourceInfo::builtin("apps", "v1", "DaemonSet", "daemonsets")
    }

    fn daemon_set(image: &str, generation: &str) -> Value {
        json!({"metadata": {"name": "d", "annotations": {TEMPLATE_GENERATION: generation}},
            "spec": {"selector": {"matchLabels": {"a": "b"}},
                "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c", "image": image}]}}},
            "status": {"numberReady": 3}})
    }

    #[test]
    fn a_new_daemon_set_starts_at_template_generation_one() {
        let mut ds = daemon_set("nginx", "0");
        prepare_create(&daemon_sets(), &mut ds);
        assert_eq!(ds["metadata"]["annotations"][TEMPLATE_GENERATION], "1");
        let mut later = daemon_set("nginx", "4");
        prepare_create(&daemon_sets(), &mut later);
        assert_eq!(later["metadata"]["annotations"][TEMPLATE_GENERATION], "4");
    }

    #[test]
    fn the_template_generation_follows_template_changes_alone() {
        let mut old = daemon_set("nginx", "2");
        defaults::apply(&daemon_sets(), &mut old, 28).unwrap();
        let mut same = daemon_set("nginx", "9");
        same["status"] = json!({});
        let view = prepare_update(&daemon_sets(), &old, &mut same, None, 28).flatten();
        assert_eq!(same["metadata"]["annotations"][TEMPLATE_GENERATION], "2");
        assert_eq!(same["status"], json!({"numberReady": 3}), "the stored status is kept");
        let view = view.unwrap_or_default();
        assert_eq!(
            view["metadata"]["annotations"][TEMPLATE_GENERATION], "9",
            "the field manager sees the write"
        );
        let mut changed = daemon_set("nginx:2", "2");
        prepare_update(&daemon_sets(), &old, &mut changed, None, 28);
        assert_eq!(changed["metadata"]["annotations"][TEMPLATE_GENERATION], "3");
        let mut status = daemon_set("nginx:3", "7");
        prepare_update(&daemon_sets(), &old, &mut status, Some("status"), 28);
        assert_eq!(status["spec"], old["spec"]);
        assert_eq!(status["metadata"]["annotations"][TEMPLATE_GENERATION], "2");
    }

    #[test]
    fn max_unavailable_goes_unless_the_stored_set_has_it() {
        let info = ResourceInfo::builtin("apps", "v1", "StatefulSet", "statefulsets");
        let with = json!({"spec": {"updateStrategy": {"rollingUpdate": {"partition": 0, "maxUnavailable": 2}}}});
        let mut sts = with.clone();
        prepare_create(&info, &mut sts);
        assert_eq!(sts["spec"]["updateStrategy"]["rollingUpdate"], json!({"partition": 0}));
        let mut kept = with.clone();
        prepare_update(&info, &with, &mut kept, None, 28);
        assert_eq!(kept["spec"]["updateStrategy"]["rollingUpdate"]["maxUnavailable"], 2);
    }

    #[test]
    fn semantic_equality_ignores_empty_values_and_compares_quantities() {
        let a = json!({"resources": {"requests": {"storage": "1Gi"}}, "labels": {}});
        let b = json!({"resources": {"requests": {"storage": "1024Mi"}}});
        assert!(semantic_equal(Some(&a), Some(&b)));
        let c = json!({"resources": {"requests": {"storage": "2Gi"}}});
        assert!(!semantic_equal(Some(&a), Some(&c)));
        assert!(semantic_equal(None, Some(&json!({"x": []}))));
        assert!(!semantic_equal(
            Some(&json!({"name": "1Gi"})),
            Some(&json!({"name": "1024Mi"}))
        ));
    }
}
