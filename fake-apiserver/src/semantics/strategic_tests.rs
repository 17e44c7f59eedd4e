//! Strategic merge patch against the shapes of Deployments and Services.

use serde_json::{Value, json};

use super::*;
use crate::storage::resource::ResourceInfo;

fn deployment_shape() -> ResourceInfo {
    ResourceInfo::builtin("apps", "v1", "Deployment", "deployments")
}

fn patched(object: Value, patch: Value) -> Result<Value, StrategicError> {
    let info = deployment_shape();
    let mut target = object;
    apply(&mut target, &patch, Shape::of(&info))?;
    Ok(target)
}

fn pod_spec(spec: Value) -> Value {
    json!({"spec": {"template": {"spec": spec}}})
}

#[test]
fn containers_should_merge_by_name_and_new_finalizers_come_first() {
    let deployment = json!({"spec": {"template": {"spec": {"containers": [
        {"name": "app", "image": "app:1"}, {"name": "sidecar", "image": "proxy:1"}
    ]}}}, "metadata": {"finalizers": ["a"]}});
    let patch = json!({"spec": {"template": {"spec": {"containers": [
        {"name": "app", "image": "app:2"}, {"name": "sidecar", "$patch": "delete"}, {"name": "new", "image": "n"}
    ]}}}, "metadata": {"finalizers": ["b"]}});
    let result = patched(deployment, patch).unwrap();
    assert_eq!(
        result["spec"]["template"]["spec"]["containers"],
        json!([{"name": "app", "image": "app:2"}, {"name": "new", "image": "n"}])
    );
    // `mergeSortedSlice` puts a patch item the original does not hold before the server's.
    assert_eq!(result["metadata"]["finalizers"], json!(["b", "a"]));
}

#[test]
fn lists_without_a_merge_strategy_should_be_replaced() {
    let object = pod_spec(
        json!({"tolerations": [{"key": "a"}, {"key": "b"}], "containers": [{"name": "c", "args": ["x", "y"]}]}),
    );
    let result = patched(
        object,
        pod_spec(json!({"tolerations": [{"key": "c"}], "containers": [{"name": "c", "args": ["z"]}]})),
    )
    .unwrap();
    assert_eq!(result["spec"]["template"]["spec"]["tolerations"], json!([{"key": "c"}]));
    assert_eq!(
        result["spec"]["template"]["spec"]["containers"][0]["args"],
        json!(["z"])
    );
}

#[test]
fn set_element_order_should_order_the_merged_list() {
    let object = pod_spec(json!({"containers": [{"name": "a"}, {"name": "b"}]}));
    let patch = pod_spec(
        json!({"$setElementOrder/containers": [{"name": "b"}, {"name": "a"}], "containers": [{"name": "a", "image": "x"}]}),
    );
    let result = patched(object, patch).unwrap();
    assert_eq!(
        result["spec"]["template"]["spec"]["containers"],
        json!([{"name": "b"}, {"name": "a", "image": "x"}])
    );
}

#[test]
fn retain_keys_should_clear_the_keys_it_does_not_list() {
    let object = json!({"spec": {"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}}}});
    let result = patched(
        object.clone(),
        json!({"spec": {"strategy": {"$retainKeys": ["type"], "type": "Recreate"}}}),
    )
    .unwrap();
    assert_eq!(result["spec"]["strategy"], json!({"type": "Recreate"}));
    let error = patched(
        object,
        json!({"spec": {"strategy": {"$retainKeys": ["type"], "rollingUpdate": {}}}}),
    )
    .unwrap_err();
    assert_eq!(error, StrategicError::BadRetainKeys);
    assert_eq!(error.code(), 400);
}

#[test]
fn a_deletion_list_should_remove_scalars_even_from_a_replaced_list() {
    let object = pod_spec(json!({"containers": [{"name": "c", "args": ["a", "b", "c"]}]}));
    let patch = pod_spec(json!({"containers": [{"name": "c", "$deleteFromPrimitiveList/args": ["b"]}]}));
    let result = patched(object, patch).unwrap();
    assert_eq!(
        result["spec"]["template"]["spec"]["containers"][0]["args"],
        json!(["a", "c"])
    );
}

#[test]
fn maps_should_take_replace_and_delete_directives() {
    let object = json!({"metadata": {"labels": {"a": "1", "b": "2"}, "annotations": {"x": "y"}}});
    let patch = json!({"metadata": {"labels": {"$patch": "replace", "c": "3"}, "annotations": {"$patch": "delete"}}});
    let result = patched(object, patch).unwrap();
    assert_eq!(result["metadata"], json!({"labels": {"c": "3"}, "annotations": {}}));
}

#[test]
fn errors_should_be_worded_as_go_words_them() {
    let object = pod_spec(json!({"containers": [{"name": "a"}]}));
    let error = patched(object.clone(), pod_spec(json!({"containers": [{"image": "x:1"}]}))).unwrap_err();
    assert_eq!(
        error.to_string(),
        "map: map[image:x:1] does not contain declared merge key: name"
    );
    assert_eq!(error.code(), 500);
    let error = patched(
        object.clone(),
        pod_spec(json!({"containers": [{"name": "a", "$patch": "explode"}]})),
    )
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        "unknown patch type: explode in map: map[$patch:explode name:a]"
    );
    let error = patched(
        object.clone(),
        pod_spec(json!({"$setElementOrder/containers": {"name": "a"}, "containers": [{"name": "a"}]})),
    )
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        "expected a []interface {}, but received a map[string]interface {}"
    );
    let error = patched(object.clone(), pod_spec(json!({"$setElementOrder/bogus": []}))).unwrap_err();
    assert_eq!(
        error.to_string(),
        "unable to find api field in struct PodSpec for the json field \"bogus\""
    );
    let error = patched(
        object,
        pod_spec(json!({"$setElementOrder/containers": [{"name": "a"}], "containers": [{"name": "b"}]})),
    )
    .unwrap_err();
    assert!(matches!(error, StrategicError::OrderMismatch { .. }));
}

#[test]
fn service_ports_should_merge_by_port_alone() {
    let info = ResourceInfo::builtin("", "v1", "Service", "services");
    let mut service = json!({"spec": {"ports": [
        {"port": 53, "protocol": "TCP", "name": "tcp"}, {"port": 53, "protocol": "UDP", "name": "udp"}
    ]}});
    let patch = json!({"spec": {"ports": [{"port": 53, "protocol": "UDP", "name": "udp", "targetPort": 5353}]}});
    apply(&mut service, &patch, Shape::of(&info)).unwrap();
    // The first port 53 takes the patch: two UDP ports, which validation then refuses.
    assert_eq!(
        service["spec"]["ports"],
        json!([
            {"port": 53, "protocol": "UDP", "name": "udp", "targetPort": 5353},
            {"port": 53, "protocol": "UDP", "name": "udp"}
        ])
    );
}

#[test]
fn a_patch_that_is_no_object_should_be_refused_as_go_decodes_it() {
    let object = json!({"metadata": {"name": "a"}});
    let error = patched(object.clone(), json!([1])).unwrap_err();
    assert_eq!(
        error.to_string(),
        "json: cannot unmarshal array into Go value of type map[string]interface {}"
    );
    assert_eq!(error.code(), 400);
    assert_eq!(patched(object.clone(), Value::Null).unwrap(), object);
}
