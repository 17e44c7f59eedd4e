//! The admission plugins that give a new object the cluster's default class, on create only and
//! never on a subresource: DefaultStorageClass
//! (`plugin/pkg/admission/storage/storageclass/setdefault/admission.go`, with
//! `pkg/volume/util/storageclass.go`'s `GetDefaultClass`) for a claim that names no class (no
//! `spec.storageClassName`, not even `""`, and no beta class annotation), and
//! DefaultIngressClass (`plugin/pkg/admission/network/defaultingressclass/admission.go`) for an
//! Ingress that names none (no `spec.ingressClassName`, no `kubernetes.io/ingress.class`
//! annotation). The default is the class annotated as such, the newest of several (by creation
//! time to the second, then by name).

use std::sync::Arc;

use serde_json::{Value, json};

use crate::storage::State;
use crate::storage::object;
use crate::storage::resource::ResourceInfo;

/// What a plugin defaults: where the object names its class, the annotation that names it
/// otherwise, the classes' resource and the annotations that make one the default.
struct ClassDefault {
    field: &'static str,
    legacy_annotation: &'static str,
    classes: (&'static str, &'static str, &'static str),
    default_annotations: &'static [&'static str],
}

const STORAGE_CLASS: ClassDefault = ClassDefault {
    field: "storageClassName",
    legacy_annotation: "volume.beta.kubernetes.io/storage-class",
    classes: ("storage.k8s.io", "v1", "storageclasses"),
    default_annotations: &[
        "storageclass.kubernetes.io/is-default-class",
        "storageclass.beta.kubernetes.io/is-default-class",
    ],
};

const INGRESS_CLASS: ClassDefault = ClassDefault {
    field: "ingressClassName",
    legacy_annotation: "kubernetes.io/ingress.class",
    classes: ("networking.k8s.io", "v1", "ingressclasses"),
    default_annotations: &["ingressclass.kubernetes.io/is-default-class"],
};

/// The plugin that defaults `info`'s objects, if any.
fn plugin(info: &ResourceInfo) -> Option<&'static ClassDefault> {
    match (info.builtin, info.group.as_str(), info.plural.as_str()) {
        (true, "", "persistentvolumeclaims") => Some(&STORAGE_CLASS),
        (true, "networking.k8s.io", "ingresses") => Some(&INGRESS_CLASS),
        _ => None,
    }
}

/// Whether a plugin here defaults `info`'s objects.
pub(super) fn concerns(info: &ResourceInfo) -> bool {
    plugin(info).is_some()
}

/// `Admit` of a new claim or Ingress: the default class where it names none.
pub(super) fn mutate_create(state: &State, info: &ResourceInfo, body: &mut Value) {
    let Some(plugin) = plugin(info) else { return };
    let named = body
        .pointer(&format!("/spec/{}", plugin.field))
        .is_some_and(|c| !c.is_null())
        || object::annotations(body).is_some_and(|a| a.contains_key(plugin.legacy_annotation));
    if named {
        return;
    }
    let (group, version, plural) = plugin.classes;
    let classes = state.info(group, version, plural);
    let stored = state.store.iter(&classes.storage_key(), None).map(|(_, class)| class);
    let Some(default) = newest_default(stored, plugin.default_annotations) else {
        return;
    };
    if !body.get("spec").is_some_and(Value::is_object) {
        body["spec"] = json!({});
    }
    body["spec"][plugin.field] = json!(default);
}

/// The default StorageClass (`GetDefaultClass`), which the persistent volume controller gives a
/// claim that names none.
pub(super) fn default_storage_class(state: &State) -> Option<String> {
    let (group, version, plural) = STORAGE_CLASS.classes;
    let classes = state.info(group, version, plural);
    let stored = state.store.iter(&classes.storage_key(), None).map(|(_, class)| class);
    newest_default(stored, STORAGE_CLASS.default_annotations)
}

/// The name of the newest class a default annotation marks (`"true"` exactly), ties broken by
/// name.
fn newest_default<'a>(classes: impl Iterator<Item = &'a Arc<Value>>, annotations: &[&str]) -> Option<String> {
    classes
        .filter(|class| {
            let marks = object::annotations(class);
            annotations
                .iter()
                .any(|key| marks.and_then(|m| m.get(*key)).and_then(Value::as_str) == Some("true"))
        })
        .map(|class| {
            let created = object::timestamp_seconds(object::meta_str(class, "creationTimestamp"));
            (created.unwrap_or_default(), object::name(class).to_owned())
        })
        // Newest first; of two created in the same second, the first by name.
        .max_by(|(a_time, a_name), (b_time, b_name)| a_time.cmp(b_time).then(b_name.cmp(a_name)))
        .map(|(_, name)| name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(name: &str, created: &str, default: Option<&str>) -> Arc<Value> {
        let annotations = default.map_or_else(
            || json!({}),
            |d| json!({ "storageclass.kubernetes.io/is-default-class": d }),
        );
        Arc::new(json!({"metadata": {"name": name, "creationTimestamp": created, "annotations": annotations}}))
    }

    #[test]
    fn the_newest_default_class_should_win_and_ties_go_by_name() {
        let classes = [
            class("old", "2026-01-01T00:00:00Z", Some("true")),
            class("b-new", "2026-01-02T00:00:00Z", Some("true")),
            class("a-new", "2026-01-02T00:00:00Z", Some("true")),
            class("newest", "2026-01-03T00:00:00Z", Some("false")),
            class("plain", "2026-01-04T00:00:00Z", None),
        ];
        assert_eq!(
            newest_default(classes.iter(), STORAGE_CLASS.default_annotations).as_deref(),
            Some("a-new")
        );
        assert_eq!(
            newest_default(classes[3..].iter(), STORAGE_CLASS.default_annotations),
            None
        );
    }
}
