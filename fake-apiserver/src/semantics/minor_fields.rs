//! Strict decoding into the emulated minor's own Go structs (`k8s.io/apimachinery/pkg/runtime/serializer/json`).
//!
//! kube-apiserver's decoder knows exactly the fields of its Go structs: a key a struct does not
//! declare is an unknown field, whatever its value (null included), and is dropped. The
//! k8s-openapi types the body first goes through are a later Kubernetes', so they keep fields the
//! emulated minor does not have (`preStop.sleep` on 1.28). The built-in shapes hold the base
//! tree's definitions (1.28.7) and, under `newer`, what each later minor declares beyond them
//! (`hack/builtin-shapes.py --newer`), which is what this walk reads.

use serde_json::{Map, Value};

use crate::semantics::shape::{self, Shape};
use crate::storage::resource::ResourceInfo;

/// The built-in definitions as one minor's kube-apiserver has them.
pub(crate) struct Definitions {
    /// The base tree's definitions.
    base: &'static Map<String, Value>,
    /// The `newer` sections of the minors up to the emulated one, newest first: each is
    /// measured against the base, and a later minor's node for a field is the one that holds.
    newer: Vec<&'static Value>,
}

impl Definitions {
    pub(crate) fn of(minor: u32) -> Option<Self> {
        let shapes = shape::builtin_shapes();
        let base = shapes.get("definitions")?.as_object()?;
        let mut sections: Vec<(u32, &'static Value)> = shapes
            .get("newer")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .filter_map(|(section, added)| Some((section.parse::<u32>().ok()?, added)))
            .filter(|(section, _)| *section <= minor)
            .collect();
        sections.sort_by_key(|(section, _)| std::cmp::Reverse(*section));
        let newer = sections.into_iter().map(|(_, added)| added).collect();
        Some(Self { base, newer })
    }

    /// The definition `name` is in this minor; `None` for one the minor has not got.
    pub(crate) fn definition(&self, name: &str) -> Option<&'static Value> {
        self.base
            .get(name)
            .or_else(|| self.newer.iter().find_map(|added| added.get("definitions")?.get(name)))
    }

    /// The fields a later minor gave definition `name`, newest first.
    pub(crate) fn added_fields<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'static Map<String, Value>> + 'a {
        self.newer
            .iter()
            .filter_map(move |added| added.get("properties")?.get(name)?.as_object())
    }

    /// The node of the field `key` that definition `name` declares in this minor.
    fn field(&self, name: &str, definition: &'static Value, key: &str) -> Option<&'static Value> {
        self.added_fields(name)
            .find_map(|fields| fields.get(key))
            .or_else(|| definition.get("properties")?.get(key))
    }

    /// Whether definition `name` is a Go struct with fields in this minor. One with neither
    /// fields nor map entries is a value the shapes say nothing of (a `RawExtension`, a CRD
    /// schema's `JSON`, `FieldsV1`, a `Quantity`): its insides are not the decoder's to check.
    fn is_struct(&self, name: &str, definition: &Value) -> bool {
        let declared = definition
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|fields| !fields.is_empty());
        declared || self.added_fields(name).next().is_some()
    }

    /// Walks `value`, which a field's `node` describes: the definition it names, the items of a
    /// list, the entries of a map.
    fn walk(&self, value: &mut Value, node: &'static Value, path: &str, unknown: &mut Vec<String>) {
        if let Some(name) = node.get("$ref").and_then(Value::as_str) {
            self.walk_definition(value, name, path, unknown);
            return;
        }
        match value {
            Value::Array(items) => {
                if let Some(item) = node.get("items") {
                    for (i, value) in items.iter_mut().enumerate() {
                        self.walk(value, item, &format!("{path}[{i}]"), unknown);
                    }
                }
            }
            Value::Object(entries) => {
                if let Some(entry) = node.get("additionalProperties").filter(|a| a.is_object()) {
                    for (key, value) in entries.iter_mut() {
                        self.walk(value, entry, &child_path(path, key), unknown);
                    }
                }
            }
            _ => {}
        }
    }

    /// Drops from `value` the keys the struct `name` does not declare in this minor, noting
    /// their paths, and walks the rest. The top-level `metadata` is left to the `ObjectMeta`
    /// check the decoder runs itself.
    fn walk_definition(&self, value: &mut Value, name: &str, path: &str, unknown: &mut Vec<String>) {
        let Some(definition) = self.definition(name) else {
            return;
        };
        if !self.is_struct(name, definition) {
            self.walk(value, definition, path, unknown);
            return;
        }
        let Value::Object(fields) = value else {
            return;
        };
        fields.retain(|key, child| {
            if path.is_empty() && key == "metadata" {
                return true;
            }
            let child_path = child_path(path, key);
            match self.field(name, definition, key) {
                Some(node) => {
                    self.walk(child, node, &child_path, unknown);
                    true
                }
                None => {
                    unknown.push(child_path);
                    false
                }
            }
        });
    }
}

/// The path of `key` below `path`, as the strict decoder writes it (`spec.containers[0].name`).
fn child_path(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// Removes from a built-in `object` the fields the Go structs of `minor` do not declare, below
/// `metadata`; returns their paths in the order the walk met them. Nothing for a kind the
/// shapes do not hold.
pub(crate) fn prune_undeclared(info: &ResourceInfo, object: &mut Value, minor: u32) -> Vec<String> {
    let mut unknown = Vec::new();
    if let (Some(root), Some(definitions)) = (Shape::of(info).definition(), Definitions::of(minor)) {
        definitions.walk_definition(object, root, "", &mut unknown);
    }
    unknown
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::semantics::typed;

    fn pod(spec: Value) -> Value {
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "colour": 1}, "spec": spec})
    }

    fn pod_info() -> ResourceInfo {
        ResourceInfo::builtin("", "v1", "Pod", "pods")
    }

    #[test]
    fn a_prestop_sleep_should_be_unknown_to_1_28_and_known_to_1_31() {
        let container = json!({"name": "c", "image": "busybox", "lifecycle": {"preStop": {"sleep": {"seconds": 1}}}});
        let mut old = pod(json!({"containers": [container.clone()]}));
        let unknown = typed::prune_unknown(&pod_info(), &mut old, 28);
        assert_eq!(unknown, ["spec.containers[0].lifecycle.preStop.sleep"]);
        assert_eq!(old["spec"]["containers"][0]["lifecycle"], json!({"preStop": {}}));
        // The top-level metadata is the decoder's own ObjectMeta check, not this walk's.
        assert_eq!(old["metadata"]["colour"], 1);
        let mut new = pod(json!({"containers": [container.clone()]}));
        assert!(typed::prune_unknown(&pod_info(), &mut new, 31).is_empty());
        assert_eq!(new["spec"]["containers"][0], container);
    }

    #[test]
    fn fields_newer_than_1_31_should_be_unknown_to_both_minors() {
        for minor in [28, 31] {
            let mut object = pod(json!({
                "containers": [{"name": "c", "image": "busybox"}],
                "hostnameOverride": "h",
                "resources": {"limits": {"cpu": "1"}},
                "nodeSelector": {"disk": "ssd"},
            }));
            let unknown = typed::prune_unknown(&pod_info(), &mut object, minor);
            assert_eq!(unknown, ["spec.hostnameOverride", "spec.resources"], "on 1.{minor}");
            // A map's entries are its keys, not fields.
            assert_eq!(object["spec"]["nodeSelector"], json!({"disk": "ssd"}));
        }
    }

    #[test]
    fn an_image_volume_should_be_known_from_1_31_and_walked_inside() {
        let volume = json!({"name": "v", "image": {"reference": "busybox", "pullPolicy": "Always"}});
        let spec = json!({"containers": [{"name": "c", "image": "busybox"}], "volumes": [volume.clone()]});
        let mut old = pod(spec.clone());
        assert_eq!(
            typed::prune_unknown(&pod_info(), &mut old, 28),
            ["spec.volumes[0].image"]
        );
        assert_eq!(old["spec"]["volumes"][0], json!({"name": "v"}));
        let mut new = pod(spec);
        assert!(typed::prune_unknown(&pod_info(), &mut new, 31).is_empty());
        assert_eq!(new["spec"]["volumes"][0], volume);
        // The definition that is new in 1.31 is walked too, and a null is no declared field.
        let mut odd = pod(json!({"volumes": [{"name": "v", "image": {"reference": "r", "digest": null}}]}));
        assert_eq!(
            prune_undeclared(&pod_info(), &mut odd, 31),
            ["spec.volumes[0].image.digest"]
        );
    }

    #[test]
    fn values_the_shapes_say_nothing_of_should_not_be_walked() {
        let revision = ResourceInfo::builtin("apps", "v1", "ControllerRevision", "controllerrevisions");
        let mut object = json!({
            "apiVersion": "apps/v1", "kind": "ControllerRevision", "metadata": {"name": "r"},
            "data": {"spec": {"anything": 1}}, "revision": 1
        });
        assert!(prune_undeclared(&revision, &mut object, 28).is_empty());
        let crd = ResourceInfo::builtin(
            "apiextensions.k8s.io",
            "v1",
            "CustomResourceDefinition",
            "customresourcedefinitions",
        );
        let schema = json!({"type": "object", "properties": {
            "spec": {"type": "object", "default": {"size": 1}, "x-kubernetes-preserve-unknown-fields": true}
        }});
        let mut object = json!({
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.com", "scope": "Namespaced",
                     "names": {"plural": "widgets", "kind": "Widget"},
                     "versions": [{"name": "v1", "served": true, "storage": true,
                                   "schema": {"openAPIV3Schema": schema}}]}
        });
        assert!(prune_undeclared(&crd, &mut object, 28).is_empty());
        // A kind the shapes do not hold is left alone.
        let widget = ResourceInfo::builtin("example.com", "v1", "Widget", "widgets");
        assert!(prune_undeclared(&widget, &mut json!({"bogus": 1}), 28).is_empty());
    }
}
