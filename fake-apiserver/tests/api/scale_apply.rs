//! Server-side apply on `/scale`, for a custom resource as for a built-in kind: the applied Scale
//! sets the replicas, its manager owns the object's replicas field (with subresource `scale`),
//! another owner of them conflicts unless forced.

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::autoscaling::v1::{Scale, ScaleSpec};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, ApiResource, DynamicObject, GroupVersionKind, Patch, PatchParams, PostParams};
use serde_json::{Value, json};

use crate::common::*;

fn scale(name: &str, replicas: i32) -> Scale {
    Scale {
        metadata: kube::api::ObjectMeta {
            name: Some(name.into()),
            ..Default::default()
        },
        spec: Some(ScaleSpec {
            replicas: Some(replicas),
        }),
        status: None,
    }
}

/// The managers of `object` that own its `spec.replicas`, as `manager/operation/subresource`.
fn replicas_owners(object: &Value) -> Vec<String> {
    let entries = object["metadata"]["managedFields"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    entries
        .iter()
        .filter(|e| e.pointer("/fieldsV1/f:spec/f:replicas").is_some())
        .map(|e| {
            format!(
                "{}/{}/{}",
                e["manager"].as_str().unwrap_or_default(),
                e["operation"].as_str().unwrap_or_default(),
                e["subresource"].as_str().unwrap_or_default()
            )
        })
        .collect()
}

/// A namespaced custom resource with a scale subresource, installed through the API.
async fn gizmos(server: &fake_apiserver::FakeApiServer) -> Api<DynamicObject> {
    let crd: CustomResourceDefinition = serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": { "name": "gizmos.scale.example.com" },
        "spec": {
            "group": "scale.example.com", "scope": "Namespaced",
            "names": { "plural": "gizmos", "singular": "gizmo", "kind": "Gizmo", "listKind": "GizmoList" },
            "versions": [{
                "name": "v1", "served": true, "storage": true,
                "subresources": { "scale": { "specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas" } },
                "schema": { "openAPIV3Schema": { "type": "object", "properties": {
                    "spec": { "type": "object", "properties": { "replicas": { "type": "integer" }, "size": { "type": "string" } } },
                    "status": { "type": "object", "properties": { "replicas": { "type": "integer" } } }
                } } }
            }]
        }
    }))
    .unwrap();
    Api::<CustomResourceDefinition>::all(server.client())
        .create(&PostParams::default(), &crd)
        .await
        .unwrap();
    established(server.client(), "gizmos.scale.example.com").await;
    let resource =
        ApiResource::from_gvk_with_plural(&GroupVersionKind::gvk("scale.example.com", "v1", "Gizmo"), "gizmos");
    Api::namespaced_with(server.client(), "default", &resource)
}

#[tokio::test]
async fn applying_a_custom_resources_scale_should_own_its_replicas() {
    let server = server();
    let gizmos = gizmos(&server).await;
    let gizmo = json!({
        "apiVersion": "scale.example.com/v1", "kind": "Gizmo",
        "metadata": { "name": "g1" }, "spec": { "replicas": 2, "size": "small" }
    });
    gizmos
        .patch("g1", &PatchParams::apply("alice"), &Patch::Apply(&gizmo))
        .await
        .unwrap();

    // Another manager's replicas: a conflict naming alice, then force.
    let refused = api_error(
        gizmos
            .patch_scale("g1", &PatchParams::apply("autoscaler"), &Patch::Apply(&scale("g1", 5)))
            .await,
    );
    assert_eq!((refused.code, refused.reason.as_str()), (409, "Conflict"));
    assert_eq!(
        refused.message,
        "Apply failed with 1 conflict: conflict with \"alice\": .spec.replicas"
    );
    let scaled = gizmos
        .patch_scale(
            "g1",
            &PatchParams::apply("autoscaler").force(),
            &Patch::Apply(&scale("g1", 5)),
        )
        .await
        .unwrap();
    assert_eq!(scaled.spec.and_then(|s| s.replicas), Some(5));

    let stored = serde_json::to_value(gizmos.get("g1").await.unwrap()).unwrap();
    assert_eq!(stored["spec"], json!({ "replicas": 5, "size": "small" }));
    assert_eq!(replicas_owners(&stored), ["autoscaler/Apply/scale"], "{stored:#}");
    // The scaler's entry has no time (the parent had none for it), so it sorts first.
    let entries = stored["metadata"]["managedFields"].as_array().unwrap();
    assert_eq!(entries[0]["manager"], "autoscaler");
    assert!(entries[0].get("time").is_none(), "{stored:#}");
    let alice = &entries[1];
    assert_eq!(alice["manager"], "alice");
    assert_eq!(
        alice["fieldsV1"]["f:spec"],
        json!({ "f:size": {} }),
        "alice keeps the size alone"
    );

    // The same value again is no change; the owner applying nothing more lets go.
    let again = gizmos
        .patch_scale("g1", &PatchParams::apply("autoscaler"), &Patch::Apply(&scale("g1", 5)))
        .await
        .unwrap();
    assert_eq!(again.metadata.resource_version, scaled.metadata.resource_version);
}

#[tokio::test]
async fn applying_a_deployments_scale_should_share_equal_replicas_and_refuse_other_kinds() {
    let server = server();
    let deployments: Api<Deployment> = Api::default_namespaced(server.client());
    let deployment: Deployment = serde_json::from_value(json!({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": { "name": "web" },
        "spec": { "replicas": 3, "selector": { "matchLabels": { "app": "web" } },
                  "template": { "metadata": { "labels": { "app": "web" } },
                                "spec": { "containers": [{ "name": "app", "image": "nginx:1" }] } } }
    }))
    .unwrap();
    deployments
        .patch("web", &PatchParams::apply("deployer"), &Patch::Apply(&deployment))
        .await
        .unwrap();

    // The value the deployer set: no conflict, and both own the replicas.
    deployments
        .patch_scale(
            "web",
            &PatchParams::apply("autoscaler"),
            &Patch::Apply(&scale("web", 3)),
        )
        .await
        .unwrap();
    let stored = serde_json::to_value(deployments.get("web").await.unwrap()).unwrap();
    let mut owners = replicas_owners(&stored);
    owners.sort();
    assert_eq!(owners, ["autoscaler/Apply/scale", "deployer/Apply/"], "{stored:#}");

    // A field a Scale does not have is refused under Strict, as in any apply.
    let typo = json!({ "apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": { "name": "web" },
                       "spec": { "replica": 4 } });
    let mut strict = PatchParams::apply("autoscaler");
    strict.field_validation = Some(kube::api::ValidationDirective::Strict);
    let refused = api_error(deployments.patch_scale("web", &strict, &Patch::Apply(&typo)).await);
    assert_eq!(
        (refused.code, refused.message.as_str()),
        (400, "strict decoding error: unknown field \"spec.replica\"")
    );

    let wrong = api_error(
        deployments
            .patch_scale("web", &PatchParams::apply("autoscaler"), &Patch::Apply(&deployment))
            .await,
    );
    assert_eq!(wrong.code, 400);
    assert_eq!(wrong.message, "invalid object type: apps/v1, Kind=Deployment");
}
