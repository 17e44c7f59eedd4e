//! Authentication and RBAC authorization, turned on: who may do what is decided by the Roles,
//! ClusterRoles and bindings the server holds, as on a cluster, so a test can run code as a
//! ServiceAccount and get the cluster's 403.

use fake_apiserver::FakeApiServer;
use k8s_openapi::api::authorization::v1::{
    ResourceAttributes, SelfSubjectAccessReview, SelfSubjectAccessReviewSpec, SelfSubjectRulesReview,
    SelfSubjectRulesReviewSpec, SubjectRulesReviewStatus,
};
use k8s_openapi::api::core::v1::{ConfigMap, Secret, ServiceAccount};
use k8s_openapi::api::rbac::v1::{PolicyRule, Role, RoleBinding, RoleRef, Subject};
use kube::api::{Api, ListParams, ObjectMeta, PostParams};

fn meta(name: &str) -> ObjectMeta {
    ObjectMeta {
        name: Some(name.to_owned()),
        ..ObjectMeta::default()
    }
}

/// A server with authentication on, and the ServiceAccount `default/reader` allowed to read
/// ConfigMaps and nothing else.
async fn server_with_reader() -> FakeApiServer {
    let server = FakeApiServer::builder().authentication(true).build();
    let admin = server.client();
    let pp = PostParams::default();
    Api::<ServiceAccount>::default_namespaced(admin.clone())
        .create(
            &pp,
            &ServiceAccount {
                metadata: meta("reader"),
                ..ServiceAccount::default()
            },
        )
        .await
        .unwrap();
    let role = Role {
        metadata: meta("read-configmaps"),
        rules: Some(vec![PolicyRule {
            api_groups: Some(vec![String::new()]),
            resources: Some(vec!["configmaps".into()]),
            verbs: vec!["get".into(), "list".into(), "watch".into()],
            ..PolicyRule::default()
        }]),
    };
    Api::<Role>::default_namespaced(admin.clone())
        .create(&pp, &role)
        .await
        .unwrap();
    let binding = RoleBinding {
        metadata: meta("reader"),
        role_ref: RoleRef {
            api_group: Some("rbac.authorization.k8s.io".to_owned()),
            kind: "Role".into(),
            name: "read-configmaps".into(),
        },
        subjects: Some(vec![Subject {
            kind: "ServiceAccount".into(),
            name: "reader".into(),
            ..Subject::default()
        }]),
    };
    Api::<RoleBinding>::default_namespaced(admin)
        .create(&pp, &binding)
        .await
        .unwrap();
    server
}

/// What the client's user may do in `default`, as a SelfSubjectRulesReview answers.
async fn rules_in_default(client: kube::Client) -> SubjectRulesReviewStatus {
    let review = SelfSubjectRulesReview {
        spec: SelfSubjectRulesReviewSpec {
            namespace: Some("default".into()),
        },
        ..SelfSubjectRulesReview::default()
    };
    let created = Api::<SelfSubjectRulesReview>::all(client)
        .create(&PostParams::default(), &review)
        .await
        .unwrap();
    created.status.unwrap()
}

fn forbidden_message(error: kube::Error) -> String {
    match error {
        kube::Error::Api(status) if status.code == 403 => status.message,
        other => panic!("expected 403 Forbidden, got {other:?}"),
    }
}

#[tokio::test]
async fn a_service_account_should_do_what_its_role_allows_and_nothing_else() {
    let server = server_with_reader().await;
    let client = server.service_account_client("default", "reader").unwrap();
    let configmaps = Api::<ConfigMap>::default_namespaced(client.clone());
    configmaps.list(&ListParams::default()).await.unwrap();

    let refused = configmaps
        .create(
            &PostParams::default(),
            &ConfigMap {
                metadata: meta("x"),
                ..ConfigMap::default()
            },
        )
        .await
        .unwrap_err();
    assert_eq!(
        forbidden_message(refused),
        r#"configmaps is forbidden: User "system:serviceaccount:default:reader" cannot create resource "configmaps" in API group "" in the namespace "default""#
    );
    let secrets = Api::<Secret>::default_namespaced(client.clone());
    assert!(
        forbidden_message(secrets.list(&ListParams::default()).await.unwrap_err())
            .contains("cannot list resource \"secrets\"")
    );
    let elsewhere = Api::<ConfigMap>::namespaced(client, "kube-system");
    assert!(
        forbidden_message(elsewhere.list(&ListParams::default()).await.unwrap_err())
            .contains(r#"in the namespace "kube-system""#)
    );
}

#[tokio::test]
async fn access_and_rules_reviews_should_answer_for_the_requester() {
    let server = server_with_reader().await;
    let client = server.service_account_client("default", "reader").unwrap();
    let reviews = Api::<SelfSubjectAccessReview>::all(client.clone());
    let ask = |verb: &str| SelfSubjectAccessReview {
        spec: SelfSubjectAccessReviewSpec {
            resource_attributes: Some(ResourceAttributes {
                namespace: Some("default".into()),
                verb: Some(verb.into()),
                resource: Some("configmaps".into()),
                ..ResourceAttributes::default()
            }),
            ..SelfSubjectAccessReviewSpec::default()
        },
        ..SelfSubjectAccessReview::default()
    };
    let allowed = reviews.create(&PostParams::default(), &ask("list")).await.unwrap();
    let status = allowed.status.unwrap();
    assert!(status.allowed);
    assert_eq!(
        status.reason.as_deref(),
        Some(
            r#"RBAC: allowed by RoleBinding "reader/default" of Role "read-configmaps" to ServiceAccount "reader/default""#
        )
    );
    let denied = reviews.create(&PostParams::default(), &ask("delete")).await.unwrap();
    assert!(!denied.status.unwrap().allowed);

    let resource_rules = rules_in_default(client).await.resource_rules;
    assert!(
        resource_rules
            .iter()
            .any(|r| r.resources.as_deref() == Some(&["configmaps".to_owned()][..]))
    );
    // Every authenticated user may review itself (system:basic-user).
    assert!(resource_rules.iter().any(|r| {
        r.resources
            .as_ref()
            .is_some_and(|rs| rs.contains(&"selfsubjectaccessreviews".to_owned()))
    }));
}

#[tokio::test]
async fn requests_without_or_with_unknown_credentials_should_be_refused() {
    let server = FakeApiServer::builder().authentication(true).build();
    let anonymous = kube::Client::new(server.service(), "default");
    let configmaps = Api::<ConfigMap>::default_namespaced(anonymous.clone());
    let message = forbidden_message(configmaps.list(&ListParams::default()).await.unwrap_err());
    assert!(message.contains(r#"User "system:anonymous" cannot list"#), "{message}");
    // What system:public-info-viewer grants everyone.
    anonymous.apiserver_version().await.unwrap();

    let stranger = server.client_with_token("not-a-token");
    match Api::<ConfigMap>::default_namespaced(stranger)
        .list(&ListParams::default())
        .await
    {
        Err(kube::Error::Api(status)) => assert_eq!((status.code, status.reason.as_str()), (401, "Unauthorized")),
        other => panic!("expected 401, got {other:?}"),
    }
}

#[tokio::test]
async fn a_deleted_service_account_token_should_stop_authenticating() {
    let server = server_with_reader().await;
    let client = server.service_account_client("default", "reader").unwrap();
    Api::<ServiceAccount>::default_namespaced(server.client())
        .delete("reader", &Default::default())
        .await
        .unwrap();
    match Api::<ConfigMap>::default_namespaced(client)
        .list(&ListParams::default())
        .await
    {
        Err(kube::Error::Api(status)) => assert_eq!(status.code, 401),
        other => panic!("expected 401, got {other:?}"),
    }
}

#[tokio::test]
async fn a_role_granting_more_than_its_writer_holds_should_be_refused() {
    let server = server_with_reader().await;
    let admin = server.client();
    let writer = Role {
        metadata: meta("write-roles"),
        rules: Some(vec![PolicyRule {
            api_groups: Some(vec!["rbac.authorization.k8s.io".into()]),
            resources: Some(vec!["roles".into()]),
            verbs: vec!["create".into()],
            ..PolicyRule::default()
        }]),
    };
    Api::<Role>::default_namespaced(admin.clone())
        .create(&PostParams::default(), &writer)
        .await
        .unwrap();
    let binding: RoleBinding = serde_json::from_value(serde_json::json!({
        "metadata": {"name": "reader-writes-roles"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "write-roles"},
        "subjects": [{"kind": "ServiceAccount", "name": "reader", "namespace": "default"}],
    }))
    .unwrap();
    Api::<RoleBinding>::default_namespaced(admin)
        .create(&PostParams::default(), &binding)
        .await
        .unwrap();
    let roles = Api::<Role>::default_namespaced(server.service_account_client("default", "reader").unwrap());
    let grant = |verbs: &[&str]| Role {
        metadata: meta(&format!("grant-{}", verbs.join("-"))),
        rules: Some(vec![PolicyRule {
            api_groups: Some(vec![String::new()]),
            resources: Some(vec!["configmaps".into()]),
            verbs: verbs.iter().map(|v| (*v).to_owned()).collect(),
            ..PolicyRule::default()
        }]),
    };
    roles.create(&PostParams::default(), &grant(&["get"])).await.unwrap();
    let message = forbidden_message(
        roles
            .create(&PostParams::default(), &grant(&["get", "delete"]))
            .await
            .unwrap_err(),
    );
    assert!(
        message.ends_with("is attempting to grant RBAC permissions not currently held:\n{APIGroups:[\"\"], Resources:[\"configmaps\"], Verbs:[\"delete\"]}"),
        "{message}"
    );
}

#[tokio::test]
async fn without_authentication_everything_should_be_allowed() {
    let server = FakeApiServer::new();
    let anonymous = kube::Client::new(server.service(), "default");
    Api::<Secret>::default_namespaced(anonymous.clone())
        .list(&ListParams::default())
        .await
        .unwrap();
    let status = rules_in_default(anonymous).await;
    assert_eq!(status.resource_rules[0].verbs, ["*"]);
    assert_eq!(
        status.non_resource_rules[0].non_resource_urls.as_deref(),
        Some(&["*".to_owned()][..])
    );
}

#[tokio::test]
async fn a_service_account_token_secret_should_be_filled_and_authenticate_while_it_holds_the_token() {
    let server = server_with_reader().await;
    let secrets = Api::<Secret>::default_namespaced(server.client());
    let token_secret = |name: &str, account: &str| -> Secret {
        serde_json::from_value(serde_json::json!({
            "metadata": {"name": name, "annotations": {"kubernetes.io/service-account.name": account}},
            "type": "kubernetes.io/service-account-token",
        }))
        .unwrap()
    };
    secrets
        .create(&PostParams::default(), &token_secret("reader-token", "reader"))
        .await
        .unwrap();
    secrets
        .create(&PostParams::default(), &token_secret("nobody-token", "nobody"))
        .await
        .unwrap();
    server.settle();
    assert!(
        secrets.get_opt("nobody-token").await.unwrap().is_none(),
        "no such account: deleted"
    );
    let filled = secrets.get("reader-token").await.unwrap();
    let data = filled.data.clone().unwrap();
    assert_eq!(data["namespace"].0, b"default");
    assert!(data["ca.crt"].0.starts_with(b"-----BEGIN CERTIFICATE-----"));
    let account = Api::<ServiceAccount>::default_namespaced(server.client())
        .get("reader")
        .await
        .unwrap();
    let annotations = filled.metadata.annotations.unwrap();
    assert_eq!(
        Some(&annotations["kubernetes.io/service-account.uid"]),
        account.metadata.uid.as_ref()
    );

    let token = String::from_utf8(data["token"].0.clone()).unwrap();
    let as_reader = Api::<ConfigMap>::default_namespaced(server.client_with_token(&token));
    as_reader
        .list(&ListParams::default())
        .await
        .expect("the reader may list ConfigMaps");
    secrets.delete("reader-token", &Default::default()).await.unwrap();
    match as_reader.list(&ListParams::default()).await {
        Err(kube::Error::Api(status)) => assert_eq!(status.code, 401, "the token was invalidated"),
        other => panic!("expected 401, got {other:?}"),
    }
}
