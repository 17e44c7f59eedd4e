//! The generated defaulters of `pkg/apis/{core,apps,batch}/v1/zz_generated.defaults.go`
//! (`SetObjectDefaults_Pod`, `_PodTemplate`, `_Deployment`, `_Job`…) as one mechanism: a walk of
//! the object by its Go type, calling each struct's `SetDefaults_<Type>` (and the `+default`
//! markers defaulter-gen inlines) on every nested value of that type.
//!
//! defaulter-gen emits, for each path from the object to a type that has defaults, the type's
//! function before those of its fields; this walk visits a value before its children, which is
//! that order. Siblings' defaults never read each other (a probe's do not look at its
//! container's), so the order among fields does not matter. The types come from the OpenAPI
//! definitions (`builtin_shapes.json`), where a field names its struct by `$ref`; a map of
//! quantities is a `ResourceList`, which has its own function.

use serde_json::Value;

use super::core_types;
use crate::semantics::shape::Shape;

/// The definition a `ResourceList`'s entries are.
const QUANTITY: &str = "io.k8s.apimachinery.pkg.api.resource.Quantity";

/// `SetObjectDefaults_<Kind>`: every default of `object`'s nested types, for `shape`, the
/// object's root definition, on the Kubernetes `minor`.
pub(crate) fn set_object_defaults(object: &mut Value, shape: Shape<'_>, minor: u32) {
    walk(object, shape, minor);
}

fn walk(value: &mut Value, shape: Shape<'_>, minor: u32) {
    if let Some(definition) = shape.definition() {
        core_types::set_defaults(definition, value, minor);
    }
    if shape.entry_definition() == Some(QUANTITY) {
        core_types::resource_list(value);
        return;
    }
    match value {
        Value::Object(fields) => {
            for (key, child) in fields.iter_mut() {
                walk(child, shape.child(key), minor);
            }
        }
        Value::Array(items) => {
            let item = shape.items();
            for child in items {
                walk(child, item, minor);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::storage::resource::ResourceInfo;

    fn defaulted(group: &str, kind: &str, plural: &str, mut object: Value) -> Value {
        let info = ResourceInfo::builtin(group, "v1", kind, plural);
        set_object_defaults(&mut object, Shape::of(&info), 28);
        object
    }

    #[test]
    fn a_deployments_template_should_get_every_nested_default() {
        let deployment = defaulted(
            "apps",
            "Deployment",
            "deployments",
            json!({"spec": {"template": {"spec": {
                "containers": [{"name": "c", "image": "nginx", "ports": [{"containerPort": 80}],
                    "livenessProbe": {"httpGet": {"port": 80}},
                    "env": [{"name": "P", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}]}],
                "volumes": [{"name": "a", "configMap": {"name": "x"}}, {"name": "b"},
                    {"name": "p", "projected": {"sources": [{"serviceAccountToken": {"path": "t"}}]}}]}}}}),
        );
        let spec = &deployment["spec"]["template"]["spec"];
        assert_eq!(spec["restartPolicy"], "Always");
        let container = &spec["containers"][0];
        assert_eq!(container["ports"][0]["protocol"], "TCP");
        assert_eq!(
            container["livenessProbe"],
            json!({"httpGet": {"port": 80, "path": "/", "scheme": "HTTP"}, "timeoutSeconds": 1,
                "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3})
        );
        assert_eq!(container["env"][0]["valueFrom"]["fieldRef"]["apiVersion"], "v1");
        assert_eq!(spec["volumes"][0]["configMap"]["defaultMode"], 420);
        assert_eq!(spec["volumes"][1]["emptyDir"], json!({}));
        assert_eq!(spec["volumes"][2]["projected"]["defaultMode"], 420);
        assert_eq!(
            spec["volumes"][2]["projected"]["sources"][0]["serviceAccountToken"]["expirationSeconds"],
            3600
        );
    }

    #[test]
    fn resource_lists_should_round_up_to_millis_and_print_canonically() {
        let pod = defaulted(
            "",
            "Pod",
            "pods",
            json!({"spec": {"containers": [{"name": "c", "image": "i",
                "resources": {"limits": {"cpu": "0.0001", "memory": "1.5Gi"}, "requests": {"cpu": 2}}}]}}),
        );
        let resources = &pod["spec"]["containers"][0]["resources"];
        assert_eq!(resources["limits"], json!({"cpu": "1m", "memory": "1536Mi"}));
        // Requests copied from limits by `SetDefaults_Pod`, then rounded; a number is no
        // quantity string and is left to validation.
        assert_eq!(resources["requests"], json!({"cpu": 2, "memory": "1536Mi"}));
    }

    #[test]
    fn a_wrong_typed_field_should_be_left_alone() {
        let pod = defaulted(
            "",
            "Pod",
            "pods",
            json!({"spec": {"volumes": "none", "containers": [{"name": "c", "livenessProbe": 3}]}}),
        );
        assert_eq!(pod["spec"]["volumes"], "none");
        assert_eq!(pod["spec"]["containers"][0]["livenessProbe"], 3);
    }
}
