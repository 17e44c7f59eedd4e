//! The Deployment a Foo owns, as sample-controller's `newDeployment` makes it: nginx, labelled
//! `app=nginx,controller=<foo>`, with the Foo as its controller owner.

use std::collections::BTreeMap;

use generated_example::apis::samplecontroller::v1alpha1::Foo;
use k8s_openapi::api::apps::v1::{Deployment, DeploymentSpec};
use k8s_openapi::api::core::v1::{Container, PodSpec, PodTemplateSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta, OwnerReference};
use kube::Resource;

/// The Deployment `foo` asks for.
pub fn new_deployment(foo: &Foo) -> Deployment {
    let labels = BTreeMap::from([
        ("app".to_owned(), "nginx".to_owned()),
        ("controller".to_owned(), foo.metadata.name.clone().unwrap_or_default()),
    ]);
    Deployment {
        metadata: ObjectMeta {
            name: Some(foo.spec.deployment_name.clone()),
            namespace: foo.metadata.namespace.clone(),
            owner_references: Some(vec![controller_ref(foo)]),
            ..ObjectMeta::default()
        },
        spec: DeploymentSpec {
            replicas: foo.spec.replicas,
            selector: LabelSelector {
                match_labels: Some(labels.clone()),
                ..LabelSelector::default()
            },
            template: PodTemplateSpec {
                metadata: Some(ObjectMeta {
                    labels: Some(labels),
                    ..ObjectMeta::default()
                }),
                spec: Some(PodSpec {
                    containers: vec![Container {
                        name: "nginx".to_owned(),
                        image: Some("nginx:latest".to_owned()),
                        ..Container::default()
                    }],
                    ..PodSpec::default()
                }),
            },
            ..DeploymentSpec::default()
        },
        status: None,
    }
}

/// client-go's `NewControllerRef`: the owner with `controller` and `blockOwnerDeletion` set.
fn controller_ref(foo: &Foo) -> OwnerReference {
    OwnerReference {
        api_version: Foo::api_version(&()).into_owned(),
        kind: Foo::kind(&()).into_owned(),
        name: foo.metadata.name.clone().unwrap_or_default(),
        uid: foo.metadata.uid.clone().unwrap_or_default(),
        controller: Some(true),
        block_owner_deletion: Some(true),
    }
}

/// client-go's `GetControllerOf`: the owner reference with `controller: true`.
pub fn controller_of(meta: &ObjectMeta) -> Option<&OwnerReference> {
    meta.owner_references
        .iter()
        .flatten()
        .find(|r| r.controller == Some(true))
}

/// client-go's `IsControlledBy`: the controller owner is `foo` (by uid).
pub fn is_controlled_by(deployment: &Deployment, foo: &Foo) -> bool {
    controller_of(&deployment.metadata).is_some_and(|r| Some(&r.uid) == foo.metadata.uid.as_ref())
}
