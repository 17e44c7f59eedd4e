//! RBAC against behaviour: the controllers run every path (VirtualMachine create, usage, delete;
//! Foo create, scale, refuse; events and their repeats; leader election and release) on the
//! in-memory API server with authentication and RBAC on, as the ServiceAccount `deploy/rbac`
//! binds, so a request the manifests do not allow is refused 403 as on a cluster (and the
//! path that needed it never completes). Every (group, resource, verb) they requested must be
//! granted by `deploy/rbac/role.yaml`, and every rule it grants must have been used.

use crate::common;

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use codegen_runtime::LeaderElectionConfig;
use common::{foo, until_gone, vm, wait_for};
use controller::embedded::{MANIFESTS, objects};
use controller::vm::simulated::SimulatedHypervisor;
use controller::{RunOptions, run};
use fake_apiserver::FakeApiServer;
use generated_example::apis::cloudnative::v1alpha1::VirtualMachine;
use generated_example::apis::samplecontroller::v1alpha1::Foo;
use k8s_openapi::api::apps::v1::Deployment;
use kube::Api;
use kube::api::{DeleteParams, Patch, PatchParams, PostParams};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

const TEST_AGENT: &str = "rbac-test";

/// (API group, resource[/subresource], verb).
type Permission = (String, String, String);

fn granted() -> (BTreeSet<Permission>, String) {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../deploy/rbac/role.yaml")).unwrap();
    let roles: Vec<Value> = serde_saphyr::from_multiple(&text).unwrap();
    let mut granted = BTreeSet::new();
    let mut lease_namespace = String::new();
    for role in roles.iter().filter(|r| !r.is_null()) {
        if role["kind"] == "Role" {
            lease_namespace = role["metadata"]["namespace"].as_str().unwrap().to_owned();
        }
        for rule in role["rules"].as_array().unwrap() {
            let strings = |key: &str| -> Vec<String> {
                rule[key]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_str().unwrap().to_owned())
                    .collect()
            };
            for group in strings("apiGroups") {
                for resource in strings("resources") {
                    for verb in strings("verbs") {
                        assert!(group != "*" && resource != "*" && verb != "*", "no wildcards");
                        granted.insert((group.clone(), resource.clone(), verb));
                    }
                }
            }
        }
    }
    (granted, lease_namespace)
}

const NAMESPACE: &str = "kube-codegen-system";
const SERVICE_ACCOUNT: &str = "kube-codegen-controller";

/// An API server with authentication and RBAC on, holding the CRDs and what `deploy/` gives
/// the controller: its namespace, ServiceAccount, roles and bindings.
fn server_enforcing_deploy_rbac() -> FakeApiServer {
    let server = FakeApiServer::builder()
        .auto_create_namespaces(true)
        .authentication(true)
        .build();
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../deploy/");
    let deployed = [
        "namespace.yaml",
        "rbac/service_account.yaml",
        "rbac/role.yaml",
        "rbac/role_binding.yaml",
    ]
    .map(|file| (file, std::fs::read_to_string(format!("{root}{file}")).unwrap()));
    let crds = MANIFESTS
        .iter()
        .filter(|(path, _)| path.starts_with("deploy/crds/"))
        .map(|(path, yaml)| (*path, (*yaml).to_owned()));
    for (path, yaml) in crds.chain(deployed) {
        for object in objects(path, &yaml).unwrap() {
            server.insert(&object).unwrap();
        }
    }
    server
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_controllers_should_use_exactly_what_deploy_rbac_grants() {
    let (granted, lease_namespace) = granted();
    assert_eq!(lease_namespace, NAMESPACE);
    let server = server_enforcing_deploy_rbac();
    // The test's own requests carry a user agent, so they can be told from the controllers'.
    let tagged = tower::ServiceBuilder::new()
        .map_request(|mut request: http::Request<kube::client::Body>| {
            request
                .headers_mut()
                .insert(http::header::USER_AGENT, http::HeaderValue::from_static(TEST_AGENT));
            request
        })
        .service(server.service().with_credentials(server.admin_token()));
    let test_client = kube::Client::new(tagged, "default");
    let controller_client = server.service_account_client(NAMESPACE, SERVICE_ACCOUNT).unwrap();
    let shutdown = CancellationToken::new();
    let options = RunOptions {
        leader_election: Some(LeaderElectionConfig {
            retry_period: Duration::from_millis(200),
            release_on_cancel: true,
            ..LeaderElectionConfig::new(&lease_namespace, "kube-codegen-controller", "rbac-test-controller")
        }),
        vm_refresh: Duration::from_secs(1),
        ..RunOptions::new("rbac-test-controller", Arc::new(SimulatedHypervisor::new()))
    };
    let task = tokio::spawn(run(controller_client, options, shutdown.clone()));

    let vms = Api::<VirtualMachine>::namespaced(test_client.clone(), "default");
    let foos = Api::<Foo>::namespaced(test_client.clone(), "default");
    let deployments = Api::<Deployment>::namespaced(test_client.clone(), "default");
    let post = PostParams::default();
    vms.create(&post, &vm("test-vm", &[])).await.unwrap();
    foos.create(&post, &foo("example-foo", "example-foo", 1)).await.unwrap();
    // A Deployment someone else owns: the Foo is refused, again and again (a repeated event).
    deployments
        .create(&post, &serde_json::from_value(json!({
            "metadata": {"name": "taken"},
            "spec": {"selector": {"matchLabels": {"app": "x"}}, "template": {"metadata": {"labels": {"app": "x"}}, "spec": {"containers": [{"name": "x", "image": "x"}]}}},
        })).unwrap())
        .await
        .unwrap();
    foos.create(&post, &foo("intruder", "taken", 1)).await.unwrap();

    let actions = || server.actions();
    let has = |verb: &str, resource: &str| {
        actions()
            .iter()
            .any(|a| a.user_agent.is_none() && a.matches(verb, resource))
    };
    wait_for("the VM to be refreshed", Duration::from_secs(10), || {
        (actions()
            .iter()
            .filter(|a| a.user_agent.is_none() && a.matches("update", "virtualmachines"))
            .count()
            >= 3)
            .then_some(())
    })
    .await;
    wait_for("the Deployment and a repeated event", Duration::from_secs(10), || {
        (has("create", "deployments") && has("patch", "events")).then_some(())
    })
    .await;
    foos.patch(
        "example-foo",
        &PatchParams::default(),
        &Patch::Merge(json!({"spec": {"replicas": 3}})),
    )
    .await
    .unwrap();
    wait_for("the Deployment to follow", Duration::from_secs(10), || {
        has("update", "deployments").then_some(())
    })
    .await;
    vms.delete("test-vm", &DeleteParams::default()).await.unwrap();
    until_gone(&vms, "test-vm").await;
    shutdown.cancel();
    task.await.unwrap().unwrap();

    let used: BTreeSet<Permission> = actions()
        .into_iter()
        .filter(|a| a.user_agent.as_deref() != Some(TEST_AGENT))
        .map(|a| {
            let resource = match &a.subresource {
                Some(sub) => format!("{}/{sub}", a.resource),
                None => a.resource.clone(),
            };
            (a.group.clone(), resource, a.verb.as_str().to_owned())
        })
        .collect();
    // Setting blockOwnerDeletion on a Deployment owned by a Foo needs `update foos/finalizers`
    // on clusters that enforce owner-reference permissions (the in-memory server does not).
    let mut used = used;
    for action in actions()
        .iter()
        .filter(|a| a.user_agent.is_none() && a.resource == "deployments")
    {
        let owners = action
            .body
            .as_ref()
            .and_then(|b| b.pointer("/metadata/ownerReferences"));
        for owner in owners.and_then(Value::as_array).into_iter().flatten() {
            if owner["blockOwnerDeletion"] == true && owner["kind"] == "Foo" {
                used.insert((
                    "samplecontroller.k8s.io".into(),
                    "foos/finalizers".into(),
                    "update".into(),
                ));
            }
        }
    }
    let ungranted: Vec<&Permission> = used.difference(&granted).collect();
    let unused: Vec<&Permission> = granted.difference(&used).collect();
    assert!(
        ungranted.is_empty(),
        "the controllers did what deploy/rbac does not grant: {ungranted:?}"
    );
    assert!(
        unused.is_empty(),
        "deploy/rbac grants what the controllers never did: {unused:?}"
    );
}
