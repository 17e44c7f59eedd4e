//! ValidatingAdmissionPolicies as a policy author's tests use them on the in-memory server
//! (served from 1.30): a bound policy denies, warns or lets through what it matches, with
//! params from a ConfigMap; the status controller type-checks it; 1.28 does not serve them.

use fake_apiserver::FakeApiServer;
use k8s_openapi::api::admissionregistration::v1::{ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, DeleteParams, PostParams};
use serde_json::json;

use crate::common::{api_error, eventually, send};

async fn policy(client: kube::Client, spec: serde_json::Value, actions: &[&str], param_ref: Option<serde_json::Value>) {
    let policies: Api<ValidatingAdmissionPolicy> = Api::all(client.clone());
    let policy = serde_json::from_value(json!({"metadata": {"name": "p"}, "spec": spec})).unwrap();
    policies.create(&PostParams::default(), &policy).await.unwrap();
    let bindings: Api<ValidatingAdmissionPolicyBinding> = Api::all(client);
    let mut spec = json!({"policyName": "p", "validationActions": actions});
    if let Some(param_ref) = param_ref {
        spec["paramRef"] = param_ref;
    }
    let binding = serde_json::from_value(json!({"metadata": {"name": "b"}, "spec": spec})).unwrap();
    bindings.create(&PostParams::default(), &binding).await.unwrap();
}

fn config_map(name: &str, data: serde_json::Value) -> ConfigMap {
    serde_json::from_value(json!({"metadata": {"name": name, "labels": {"checked": "yes"}}, "data": data})).unwrap()
}

fn config_maps_rule() -> serde_json::Value {
    json!({"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"], "resources": ["configmaps"]}],
           "objectSelector": {"matchLabels": {"checked": "yes"}}})
}

#[tokio::test]
async fn a_bound_policy_should_deny_with_its_message_and_reason() {
    let server = FakeApiServer::new();
    let spec = json!({
        "matchConstraints": config_maps_rule(),
        "variables": [{"name": "keys", "expression": "has(object.data) ? object.data.size() : 0"}],
        "validations": [
            {"expression": "variables.keys <= 2", "messageExpression": "'too many keys: ' + string(variables.keys)", "reason": "Forbidden"},
            {"expression": "object.metadata.name != 'forbidden-name'"},
        ],
    });
    policy(server.client(), spec, &["Deny"], None).await;
    let maps: Api<ConfigMap> = Api::default_namespaced(server.client());
    maps.create(&PostParams::default(), &config_map("small", json!({"a": "1"})))
        .await
        .unwrap();
    let denied = api_error(
        maps.create(
            &PostParams::default(),
            &config_map("big", json!({"a": "1", "b": "2", "c": "3"})),
        )
        .await,
    );
    assert_eq!((denied.code, denied.reason.as_str()), (403, "Forbidden"));
    assert_eq!(
        denied.message,
        "configmaps \"big\" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: too many keys: 3"
    );
    let named = api_error(
        maps.create(&PostParams::default(), &config_map("forbidden-name", json!({})))
            .await,
    );
    assert_eq!((named.code, named.reason.as_str()), (422, "Invalid"));
    assert!(
        named
            .message
            .ends_with("denied request: failed expression: object.metadata.name != 'forbidden-name'")
    );
    // Unlabelled objects are not the policy's.
    let plain: ConfigMap =
        serde_json::from_value(json!({"metadata": {"name": "plain"}, "data": {"a": "1", "b": "2", "c": "3"}})).unwrap();
    maps.create(&PostParams::default(), &plain).await.unwrap();
    // Deleting the binding lifts the policy.
    let bindings: Api<ValidatingAdmissionPolicyBinding> = Api::all(server.client());
    bindings.delete("b", &DeleteParams::default()).await.unwrap();
    maps.create(
        &PostParams::default(),
        &config_map("big", json!({"a": "1", "b": "2", "c": "3"})),
    )
    .await
    .unwrap();
}

#[tokio::test]
async fn a_warn_binding_should_let_the_request_through_with_a_warning() {
    let server = FakeApiServer::new();
    let spec = json!({"matchConstraints": config_maps_rule(), "validations": [{"expression": "!has(object.data)", "message": "no data please"}]});
    policy(server.client(), spec, &["Warn", "Audit"], None).await;
    let body = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "w", "labels": {"checked": "yes"}}, "data": {"a": "1"}});
    let answer = send(
        &server,
        "POST",
        "/api/v1/namespaces/default/configmaps",
        "application/json",
        &body.to_string(),
    )
    .await;
    assert_eq!(answer.code, 201);
    assert_eq!(
        answer.warnings,
        ["299 - \"Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': no data please\""]
    );
}

#[tokio::test]
async fn params_should_be_read_from_the_referenced_config_map() {
    let server = FakeApiServer::new();
    let spec = json!({
        "paramKind": {"apiVersion": "v1", "kind": "ConfigMap"},
        "matchConstraints": config_maps_rule(),
        "validations": [{"expression": "!has(object.data) || object.data.all(k, k in params.data)"}],
    });
    let param_ref = json!({"name": "allowed", "parameterNotFoundAction": "Deny"});
    policy(server.client(), spec, &["Deny"], Some(param_ref)).await;
    let maps: Api<ConfigMap> = Api::default_namespaced(server.client());
    let missing = api_error(
        maps.create(&PostParams::default(), &config_map("x", json!({"a": "1"})))
            .await,
    );
    assert!(
        missing.message.ends_with(
            "failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction"
        ),
        "{}",
        missing.message
    );
    let allowed: ConfigMap =
        serde_json::from_value(json!({"metadata": {"name": "allowed"}, "data": {"a": ""}})).unwrap();
    maps.create(&PostParams::default(), &allowed).await.unwrap();
    maps.create(&PostParams::default(), &config_map("x", json!({"a": "1"})))
        .await
        .unwrap();
    let refused = api_error(
        maps.create(&PostParams::default(), &config_map("y", json!({"b": "1"})))
            .await,
    );
    assert_eq!(refused.code, 422);
}

#[tokio::test]
async fn the_status_controller_should_report_type_warnings() {
    let server = FakeApiServer::new();
    let spec = json!({
        "matchConstraints": {"resourceRules": [{"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["deployments"]}]},
        "validations": [{"expression": "object.spec.replicas > '1'"}],
    });
    policy(server.client(), spec, &["Deny"], None).await;
    let policies: Api<ValidatingAdmissionPolicy> = Api::all(server.client());
    eventually("the policy is type-checked", || async {
        policies
            .get("p")
            .await
            .unwrap()
            .status
            .and_then(|s| s.observed_generation)
            == Some(1)
    })
    .await;
    let status = policies.get("p").await.unwrap().status.unwrap();
    let warnings = status.type_checking.unwrap().expression_warnings.unwrap();
    assert_eq!(warnings[0].field_ref, "spec.validations[0].expression");
    assert!(
        warnings[0].warning.starts_with("apps/v1, Kind=Deployment: ERROR: <input>:1:22: found no matching overload for '_>_' applied to '(int, string)'"),
        "{}",
        warnings[0].warning
    );
}

#[tokio::test]
async fn a_denied_delete_should_fail_a_collection_delete_and_a_namespace_delete() {
    let server = FakeApiServer::new();
    let spec = json!({
        "matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["DELETE"], "resources": ["configmaps", "namespaces"]}],
                             "namespaceSelector": {"matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "In", "values": ["default", "temp"]}]}},
        "validations": [{"expression": "!has(oldObject.metadata.labels) || !('keep' in oldObject.metadata.labels)", "message": "kept"}],
    });
    policy(server.client(), spec, &["Deny"], None).await;
    let maps: Api<ConfigMap> = Api::default_namespaced(server.client());
    let kept: ConfigMap =
        serde_json::from_value(json!({"metadata": {"name": "kept", "labels": {"keep": "yes"}}})).unwrap();
    maps.create(&PostParams::default(), &kept).await.unwrap();
    let refused = api_error(
        maps.delete_collection(&DeleteParams::default(), &Default::default())
            .await,
    );
    assert_eq!(refused.code, 422);
    assert!(
        refused.message.starts_with("configmaps \"Unknown\" is forbidden"),
        "{}",
        refused.message
    );
    maps.get("kept").await.unwrap();
    // A Namespace's own delete is in the namespace it names, whose labels the selector reads.
    let namespace =
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "temp", "labels": {"keep": "yes"}}});
    send(
        &server,
        "POST",
        "/api/v1/namespaces",
        "application/json",
        &namespace.to_string(),
    )
    .await;
    let answer = send(&server, "DELETE", "/api/v1/namespaces/temp", "application/json", "").await;
    assert_eq!(answer.code, 422, "{}", answer.body);
    let message = answer.body["message"].as_str().unwrap_or_default();
    assert!(message.ends_with("denied request: kept"), "{message}");
}

#[tokio::test]
async fn a_1_28_server_should_not_serve_policies() {
    let server = FakeApiServer::builder().kube_version("v1.28.7").build();
    let answer = send(
        &server,
        "GET",
        "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies",
        "application/json",
        "",
    )
    .await;
    assert_eq!(answer.code, 404);
}
