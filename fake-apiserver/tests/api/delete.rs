//! delete: finalizers, preconditions, propagation and garbage collection, delete-collection,
//! namespace termination.

use fake_apiserver::FakeApiServer;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams, PostParams, Preconditions, PropagationPolicy};
use kube::{Resource, ResourceExt};
use serde_json::json;

use crate::common::*;

fn owned_by(name: &str, owner: &VirtualMachine) -> ConfigMap {
    let mut cm = configmap(name, &[]);
    cm.metadata.owner_references = Some(vec![owner.controller_owner_ref(&()).unwrap()]);
    cm
}

#[tokio::test]
async fn delete_should_wait_for_finalizers() {
    let server = server();
    let api = vms(&server);
    let mut guarded = vm("test-vm", 2);
    guarded.metadata.finalizers = Some(vec!["finalizer.cloudnative.tw".into()]);
    api.create(&PostParams::default(), &guarded).await.unwrap();

    let pending = api.delete("test-vm", &DeleteParams::default()).await.unwrap();
    let marked = pending
        .left()
        .expect("an object with finalizers is returned, not a Status");
    assert!(marked.metadata.deletion_timestamp.is_some());
    assert_eq!(marked.metadata.generation, Some(2));

    let mut adding = api.get("test-vm").await.unwrap();
    adding.metadata.finalizers.as_mut().unwrap().push("another".into());
    let refused = api_error(api.replace("test-vm", &PostParams::default(), &adding).await);
    assert!(
        refused.message.contains("no new finalizers can be added"),
        "{}",
        refused.message
    );

    let clear = json!({ "metadata": { "finalizers": null } });
    api.patch("test-vm", &PatchParams::default(), &Patch::Merge(clear))
        .await
        .unwrap();
    assert!(api_error(api.get("test-vm").await).is_not_found());
}

#[tokio::test]
async fn delete_should_check_preconditions() {
    let server = server();
    let api = vms(&server);
    let created = api.create(&PostParams::default(), &vm("test-vm", 2)).await.unwrap();
    let wrong = DeleteParams {
        preconditions: Some(Preconditions {
            uid: Some("nope".into()),
            resource_version: None,
        }),
        ..Default::default()
    };
    let conflict = api_error(api.delete("test-vm", &wrong).await);
    assert_eq!(conflict.code, 409);
    assert!(
        conflict
            .message
            .contains("the UID in the precondition (nope) does not match"),
        "{}",
        conflict.message
    );
    let right = DeleteParams {
        preconditions: Some(Preconditions {
            uid: created.uid(),
            resource_version: created.resource_version(),
        }),
        ..Default::default()
    };
    assert!(api.delete("test-vm", &right).await.is_ok());
}

#[tokio::test]
async fn garbage_collector_should_delete_dependents_of_deleted_owners() {
    let server = server();
    let api = vms(&server);
    let configmaps: Api<ConfigMap> = Api::default_namespaced(server.client());
    let owner = api.create(&PostParams::default(), &vm("owner", 1)).await.unwrap();
    let other = api.create(&PostParams::default(), &vm("other", 1)).await.unwrap();
    configmaps
        .create(&PostParams::default(), &owned_by("child", &owner))
        .await
        .unwrap();
    let mut shared = owned_by("shared", &owner);
    let mut second: OwnerReference = other.controller_owner_ref(&()).unwrap();
    second.controller = Some(false);
    shared.metadata.owner_references.as_mut().unwrap().push(second);
    configmaps.create(&PostParams::default(), &shared).await.unwrap();

    api.delete("owner", &DeleteParams::background()).await.unwrap();
    eventually("the garbage collector deletes the dependent", || async {
        configmaps.get("child").await.is_err()
    })
    .await;
    assert!(api_error(configmaps.get("child").await).is_not_found());
    let survivor = configmaps.get("shared").await.unwrap();
    assert_eq!(
        survivor.owner_references().len(),
        1,
        "the dangling reference is dropped"
    );
    assert_eq!(survivor.owner_references()[0].name, "other");
}

#[tokio::test]
async fn foreground_and_orphan_policies_should_be_honoured() {
    let server = server();
    let api = vms(&server);
    let configmaps: Api<ConfigMap> = Api::default_namespaced(server.client());
    let owner = api.create(&PostParams::default(), &vm("owner", 1)).await.unwrap();
    let mut blocked = owned_by("blocked", &owner);
    blocked.metadata.finalizers = Some(vec!["example.com/hold".into()]);
    blocked.metadata.owner_references.as_mut().unwrap()[0].block_owner_deletion = Some(true);
    configmaps.create(&PostParams::default(), &blocked).await.unwrap();
    let mut not_blocking = owned_by("not-blocking", &owner);
    not_blocking.metadata.finalizers = Some(vec!["example.com/hold".into()]);
    configmaps.create(&PostParams::default(), &not_blocking).await.unwrap();

    api.delete("owner", &DeleteParams::foreground()).await.unwrap();
    let waiting = api.get("owner").await.unwrap();
    assert_eq!(waiting.finalizers(), ["foregroundDeletion"]);
    configmaps
        .patch(
            "blocked",
            &PatchParams::default(),
            &Patch::Merge(json!({ "metadata": { "finalizers": null } })),
        )
        .await
        .unwrap();
    eventually("the owner goes once its blocking dependents are gone", || async {
        api.get("owner").await.is_err()
    })
    .await;
    assert!(api_error(api.get("owner").await).is_not_found());

    let owner = api.create(&PostParams::default(), &vm("parent", 1)).await.unwrap();
    configmaps
        .create(&PostParams::default(), &owned_by("orphan", &owner))
        .await
        .unwrap();
    api.delete(
        "parent",
        &DeleteParams {
            propagation_policy: Some(PropagationPolicy::Orphan),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    eventually("the orphaned owner goes", || async { api.get("parent").await.is_err() }).await;
    assert!(configmaps.get("orphan").await.unwrap().owner_references().is_empty());
}

#[tokio::test]
async fn garbage_collection_should_be_optional() {
    let server = FakeApiServer::builder()
        .crd(&<VirtualMachine as kube::CustomResourceExt>::crd())
        .garbage_collection(false)
        .build();
    let api = vms(&server);
    let configmaps: Api<ConfigMap> = Api::default_namespaced(server.client());
    let owner = api.create(&PostParams::default(), &vm("owner", 1)).await.unwrap();
    configmaps
        .create(&PostParams::default(), &owned_by("child", &owner))
        .await
        .unwrap();
    api.delete("owner", &DeleteParams::foreground()).await.unwrap();
    assert!(configmaps.get("child").await.is_ok());
}

#[tokio::test]
async fn delete_collection_should_delete_what_the_selector_selects() {
    let server = empty_server();
    let configmaps: Api<ConfigMap> = Api::default_namespaced(server.client());
    create_configmaps(&configmaps, 3, &[("app", "x")]).await;
    configmaps
        .create(&PostParams::default(), &configmap("keep", &[("app", "y")]))
        .await
        .unwrap();
    let deleted = configmaps
        .delete_collection(&DeleteParams::default(), &ListParams::default().labels("app=x"))
        .await
        .unwrap();
    assert_eq!(deleted.left().unwrap().items.len(), 3);
    let left: Vec<String> = configmaps
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .map(|c| c.name_any())
        .collect();
    assert_eq!(left, ["keep"]);
}

#[tokio::test]
async fn namespace_deletion_should_terminate_and_empty_it() {
    let server = server();
    let namespaces: Api<Namespace> = Api::all(server.client());
    let mut ns = Namespace::default();
    ns.metadata.name = Some("team".into());
    namespaces.create(&PostParams::default(), &ns).await.unwrap();
    let team: Api<ConfigMap> = Api::namespaced(server.client(), "team");
    team.create(&PostParams::default(), &configmap("plain", &[]))
        .await
        .unwrap();
    let mut held = configmap("held", &[]);
    held.metadata.finalizers = Some(vec!["example.com/hold".into()]);
    team.create(&PostParams::default(), &held).await.unwrap();

    namespaces.delete("team", &DeleteParams::default()).await.unwrap();
    let terminating = namespaces.get("team").await.unwrap();
    assert_eq!(terminating.status.unwrap().phase.as_deref(), Some("Terminating"));
    eventually("the namespace controller deletes the contents", || async {
        team.get("plain").await.is_err()
    })
    .await;
    let refused = api_error(team.create(&PostParams::default(), &configmap("late", &[])).await);
    assert_eq!(refused.code, 403);
    // The namespace controller says what holds the namespace.
    let conditions = namespaces
        .get("team")
        .await
        .unwrap()
        .status
        .unwrap()
        .conditions
        .unwrap();
    let remaining = conditions
        .iter()
        .find(|c| c.type_ == "NamespaceFinalizersRemaining")
        .unwrap();
    assert_eq!(
        (remaining.status.as_str(), remaining.message.as_deref()),
        (
            "True",
            Some("Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances")
        )
    );
    assert_eq!(conditions.len(), 5);

    team.patch(
        "held",
        &PatchParams::default(),
        &Patch::Merge(json!({ "metadata": { "finalizers": null } })),
    )
    .await
    .unwrap();
    eventually("the emptied namespace goes", || async {
        namespaces.get("team").await.is_err()
    })
    .await;
}

/// A finalizer of its own in `spec.finalizers` keeps an emptied namespace Terminating after the
/// controller took `kubernetes` off; the `/finalize` write that clears it lets it go.
#[tokio::test]
async fn a_spec_finalizer_should_hold_a_namespace_until_finalized() {
    let server = server();
    let namespaces: Api<Namespace> = Api::all(server.client());
    let ns: Namespace = serde_json::from_value(json!({
        "metadata": {"name": "held"},
        "spec": {"finalizers": ["example.com/spec-hold"]}
    }))
    .unwrap();
    let created = namespaces.create(&PostParams::default(), &ns).await.unwrap();
    assert_eq!(
        created.spec.unwrap().finalizers.unwrap(),
        ["example.com/spec-hold", "kubernetes"]
    );
    namespaces.delete("held", &DeleteParams::default()).await.unwrap();
    eventually("the controller finalizes its part", || async {
        let ns = namespaces.get("held").await.unwrap();
        ns.spec.and_then(|s| s.finalizers) == Some(vec!["example.com/spec-hold".to_owned()])
    })
    .await;
    let mut released = namespaces.get("held").await.unwrap();
    released.spec.as_mut().unwrap().finalizers = Some(Vec::new());
    let data = serde_json::to_vec(&released).unwrap();
    let request = http::Request::put("/api/v1/namespaces/held/finalize")
        .header("Content-Type", "application/json")
        .body(data)
        .unwrap();
    server.client().request::<Namespace>(request).await.unwrap();
    eventually("the finalized namespace goes", || async {
        namespaces.get("held").await.is_err()
    })
    .await;
}

#[tokio::test]
async fn delete_should_answer_like_kube_apiserver() {
    let server = server();
    let configmaps: Api<ConfigMap> = Api::default_namespaced(server.client());
    let created = configmaps
        .create(&PostParams::default(), &configmap("gone", &[]))
        .await
        .unwrap();
    let status = configmaps
        .delete("gone", &DeleteParams::default())
        .await
        .unwrap()
        .right()
        .expect("a Status, not the object");
    let details = status.details.unwrap();
    assert_eq!(
        (details.name.as_str(), details.kind.as_str(), Some(details.uid)),
        ("gone", "configmaps", created.metadata.uid)
    );

    let pods: Api<k8s_openapi::api::core::v1::Pod> = Api::default_namespaced(server.client());
    let pod: k8s_openapi::api::core::v1::Pod = serde_json::from_value(json!({
        "metadata": { "name": "p" }, "spec": { "containers": [{ "name": "c", "image": "busybox" }] }
    }))
    .unwrap();
    pods.create(&PostParams::default(), &pod).await.unwrap();
    assert!(
        pods.delete("p", &DeleteParams::default()).await.unwrap().is_left(),
        "pods return the deleted object"
    );

    let everywhere: Api<ConfigMap> = Api::all(server.client());
    let refused = api_error(
        everywhere
            .delete_collection(&DeleteParams::default(), &ListParams::default())
            .await,
    );
    assert_eq!((refused.code, refused.reason.as_str()), (405, "MethodNotAllowed"));
    let namespaces: Api<Namespace> = Api::all(server.client());
    let refused = api_error(
        namespaces
            .delete_collection(&DeleteParams::default(), &ListParams::default())
            .await,
    );
    assert_eq!(refused.code, 405);
    assert!(namespaces.get("kube-system").await.is_ok());
}
