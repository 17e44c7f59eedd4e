//! `deploy/` as a user applies it: `kubectl apply -k deploy/` and `kubectl apply -f
//! deploy/examples/` against the in-memory API server served on loopback create every object
//! (namespace, CRDs, ServiceAccount, generated roles, bindings, the controller Deployment, the
//! examples); the Deployment is locked down as the README says; the bindings name the roles.
//!
//! kubectl comes from Debian's packages (`hack/test.sh` installs it); without it the test is
//! skipped locally and fails under CI.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::find_kubectl;
use generated_example::apis::samplecontroller::v1alpha1::Foo;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, Role, RoleBinding};
use kube::Api;

fn kubectl() -> Option<PathBuf> {
    let found = find_kubectl();
    assert!(
        found.is_some() || std::env::var_os("CI").is_none(),
        "CI must have kubectl (hack/install-test-deps.sh)"
    );
    found
}

async fn run(kubectl: &Path, kubeconfig: &Path, args: &[&str]) -> String {
    let mut command = Command::new(kubectl);
    command.arg("--kubeconfig").arg(kubeconfig).args(args);
    command.current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let description = format!("kubectl {}", args.join(" "));
    let output = tokio::task::spawn_blocking(move || command.output())
        .await
        .unwrap()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    );
    assert!(
        output.status.success(),
        "{description} failed\nstdout: {stdout}\nstderr: {stderr}"
    );
    stdout
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deploy_should_apply_with_kubectl_and_be_locked_down() {
    let Some(kubectl) = kubectl() else {
        eprintln!("kubectl not found; skipped");
        return;
    };
    // The CRDs come from deploy/ itself: start from a server without them.
    let fake = fake_apiserver::FakeApiServer::new();
    let served = fake.serve("127.0.0.1:0".parse().unwrap()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("kubeconfig");
    served.write_kubeconfig(&kubeconfig).unwrap();
    let applied = run(&kubectl, &kubeconfig, &["apply", "-k", "deploy/"]).await;
    for object in [
        "namespace/kube-codegen-system",
        "customresourcedefinition.apiextensions.k8s.io/virtualmachines.cloudnative.tw",
        "customresourcedefinition.apiextensions.k8s.io/foos.samplecontroller.k8s.io",
        "serviceaccount/kube-codegen-controller",
        "clusterrole.rbac.authorization.k8s.io/kube-codegen-controller",
        "deployment.apps/kube-codegen-controller",
    ] {
        assert!(
            applied.contains(&format!("{object} created")),
            "{object} missing from:\n{applied}"
        );
    }
    // As on a cluster, new CRDs serve their kinds once established (the README's step too).
    let crds = [
        "wait",
        "--for=condition=Established",
        "--timeout=60s",
        "crd/virtualmachines.cloudnative.tw",
        "crd/foos.samplecontroller.k8s.io",
    ];
    run(&kubectl, &kubeconfig, &crds).await;
    let examples = run(&kubectl, &kubeconfig, &["apply", "-f", "deploy/examples/"]).await;
    assert!(
        examples.contains("virtualmachine.cloudnative.tw/test-vm created"),
        "{examples}"
    );
    assert!(
        examples.contains("foo.samplecontroller.k8s.io/example-foo created"),
        "{examples}"
    );

    // The Foo CRD's scale subresource: kubectl scale sets spec.replicas.
    run(&kubectl, &kubeconfig, &["scale", "foo", "example-foo", "--replicas=3"]).await;
    let client = fake.client();
    let foo = Api::<Foo>::namespaced(client.clone(), "default")
        .get("example-foo")
        .await
        .unwrap();
    assert_eq!(foo.spec.replicas, Some(3));
    let system = "kube-codegen-system";
    let binding = Api::<ClusterRoleBinding>::all(client.clone())
        .get("kube-codegen-controller")
        .await
        .unwrap();
    Api::<ClusterRole>::all(client.clone())
        .get(&binding.role_ref.name)
        .await
        .unwrap();
    let binding = Api::<RoleBinding>::namespaced(client.clone(), system)
        .get("kube-codegen-controller")
        .await
        .unwrap();
    Api::<Role>::namespaced(client.clone(), system)
        .get(&binding.role_ref.name)
        .await
        .unwrap();

    let deployment = Api::<Deployment>::namespaced(client, system)
        .get("kube-codegen-controller")
        .await
        .unwrap();
    let pod = deployment.spec.template.spec.unwrap();
    assert_eq!(pod.service_account_name.as_deref(), Some("kube-codegen-controller"));
    assert_eq!(pod.security_context.unwrap().run_as_non_root, Some(true));
    let container = &pod.containers[0];
    let security = container.security_context.clone().unwrap();
    assert_eq!(security.read_only_root_filesystem, Some(true));
    assert_eq!(security.allow_privilege_escalation, Some(false));
    assert_eq!(security.capabilities.unwrap().drop, Some(vec!["ALL".to_owned()]));
    assert!(container.liveness_probe.is_some() && container.readiness_probe.is_some());
    let resources = container.resources.clone().unwrap();
    assert!(resources.requests.is_some() && resources.limits.is_some());
    let env = container.env.clone().unwrap();
    let pod_name = env.iter().find(|e| e.name == "POD_NAME").unwrap();
    let field = pod_name.value_from.as_ref().unwrap().field_ref.as_ref().unwrap();
    assert_eq!(field.field_path, "metadata.name", "POD_NAME from the downward API");
}
