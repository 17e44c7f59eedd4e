//! `fieldValidation` as kube-apiserver's strict decoder applies it: unknown and duplicate fields
//! refused (Strict), reported in `Warning: 299` headers (Warn, the default) or dropped (Ignore),
//! for creates, updates and patches (of `/scale` too, checked as a Scale); and the `Warning` of
//! a deprecated CRD version.

use fake_apiserver::FakeApiServer;
use serde_json::json;

use crate::common::*;

const VMS: &str = "/apis/cloudnative.tw/v1alpha1/namespaces/default/virtualmachines";

/// A VirtualMachine body with an unknown spec field, an unknown metadata field and a duplicate key.
fn sloppy_vm(name: &str) -> String {
    format!(
        r#"{{"apiVersion": "cloudnative.tw/v1alpha1", "kind": "VirtualMachine",
            "metadata": {{"name": "{name}", "colour": "red"}},
            "spec": {{"resource": {{"cpu": 1, "cpu": 2, "memory": "1Gi"}}, "bogus": true}}}}"#
    )
}

#[tokio::test]
async fn the_default_should_warn_and_drop_what_the_kind_does_not_know() {
    let server = server();
    let created = send(&server, "POST", VMS, "application/json", &sloppy_vm("warned")).await;
    assert_eq!(created.code, 201);
    assert_eq!(
        created.warnings,
        [
            r#"299 - "duplicate field \"spec.resource.cpu\"""#,
            r#"299 - "unknown field \"metadata.colour\"""#,
            r#"299 - "unknown field \"spec.bogus\"""#,
        ]
    );
    assert_eq!(created.body["spec"], json!({"resource": {"cpu": 2, "memory": "1Gi"}}));
    assert!(created.body["metadata"].get("colour").is_none());
}

#[tokio::test]
async fn strict_should_refuse_what_the_kind_does_not_know() {
    let server = server();
    let uri = format!("{VMS}?fieldValidation=Strict");
    let refused = send(&server, "POST", &uri, "application/json", &sloppy_vm("strict")).await;
    assert_eq!(
        (refused.code, refused.body["reason"].as_str()),
        (400, Some("BadRequest"))
    );
    assert_eq!(
        refused.body["message"],
        "VirtualMachine in version \"v1alpha1\" cannot be handled as a VirtualMachine: strict decoding error: \
         duplicate field \"spec.resource.cpu\", unknown field \"metadata.colour\", unknown field \"spec.bogus\""
    );
    let ignored = send(
        &server,
        "POST",
        &format!("{VMS}?fieldValidation=Ignore"),
        "application/json",
        &sloppy_vm("ignored"),
    )
    .await;
    assert_eq!((ignored.code, ignored.warnings.len()), (201, 0));

    // A patch is decoded once patched: Strict refuses it as an invalid `patch`.
    let patch = r#"{"spec": {"extra": 1}}"#;
    let uri = format!("{VMS}/ignored?fieldValidation=Strict");
    let refused = send(&server, "PATCH", &uri, "application/merge-patch+json", patch).await;
    assert_eq!(refused.code, 422);
    assert_eq!(refused.body["details"]["causes"][0]["field"], "patch");
    let message = refused.body["message"].as_str().unwrap();
    assert!(
        message.ends_with(": strict decoding error: unknown field \"spec.extra\""),
        "{message}"
    );
    let warned = send(
        &server,
        "PATCH",
        &format!("{VMS}/ignored"),
        "application/merge-patch+json",
        patch,
    )
    .await;
    assert_eq!(
        (warned.code, warned.warnings.as_slice()),
        (200, [r#"299 - "unknown field \"spec.extra\"""#.to_owned()].as_slice())
    );
}

#[tokio::test]
async fn an_unknown_directive_or_a_malformed_body_should_be_refused_in_go_words() {
    let server = server();
    let bogus = send(
        &server,
        "POST",
        &format!("{VMS}?fieldValidation=Loose"),
        "application/json",
        &sloppy_vm("x"),
    )
    .await;
    assert_eq!(bogus.code, 422);
    assert_eq!(bogus.body["details"]["kind"], "CreateOptions");
    let truncated = send(
        &server,
        "POST",
        VMS,
        "application/json",
        r#"{"apiVersion": "cloudnative.tw/v1alpha1""#,
    )
    .await;
    assert_eq!(truncated.code, 400);
    assert_eq!(
        truncated.body["message"],
        "the object provided is unrecognized (must be of type VirtualMachine): couldn't get version/kind; \
         json parse error: unexpected end of JSON input ({\"apiVersion\": \"cloudnative.tw ...)"
    );
    let merge = send(
        &server,
        "PATCH",
        &format!("{VMS}/x"),
        "application/merge-patch+json",
        "{\"spec\": ",
    )
    .await;
    assert_eq!(
        merge.body["message"],
        "error decoding patch: unexpected end of JSON input"
    );
    let not_a_list = send(
        &server,
        "PATCH",
        &format!("{VMS}/x"),
        "application/json-patch+json",
        "{}",
    )
    .await;
    assert_eq!(
        not_a_list.body["message"],
        "error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp"
    );
}

#[tokio::test]
async fn a_deprecated_version_should_warn_on_every_request() {
    let mut crd = serde_json::to_value(<VirtualMachine as kube::CustomResourceExt>::crd()).unwrap();
    crd["spec"]["versions"][0]["deprecated"] = json!(true);
    let server = FakeApiServer::builder().crd(&crd).build();
    let listed = send(&server, "GET", VMS, "application/json", "").await;
    assert_eq!(listed.code, 200);
    assert_eq!(
        listed.warnings,
        [r#"299 - "cloudnative.tw/v1alpha1 VirtualMachine is deprecated""#]
    );
}

#[tokio::test]
async fn a_built_in_kind_should_know_the_fields_of_its_type() {
    let server = FakeApiServer::new();
    let deployments = "/apis/apps/v1/namespaces/default/deployments";
    let body = |name: &str| {
        json!({
            "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {
                "replica": 2, "selector": {"matchLabels": {"app": "web"}},
                "template": {"metadata": {"labels": {"app": "web"}},
                             "spec": {"containers": [{"name": "web", "image": "nginx"}]}}
            }
        })
        .to_string()
    };
    let strict = format!("{deployments}?fieldValidation=Strict");
    let refused = send(&server, "POST", &strict, "application/json", &body("typo")).await;
    assert_eq!(refused.code, 400);
    assert_eq!(
        refused.body["message"],
        "Deployment in version \"v1\" cannot be handled as a Deployment: strict decoding error: unknown field \"spec.replica\""
    );
    let warned = send(&server, "POST", deployments, "application/json", &body("typo")).await;
    assert_eq!(
        (warned.code, warned.warnings.as_slice()),
        (201, [r#"299 - "unknown field \"spec.replica\"""#.to_owned()].as_slice())
    );
    assert!(warned.body["spec"].get("replica").is_none());
    assert_eq!(warned.body["spec"]["replicas"], 1, "defaulted, the typo dropped");
}

#[tokio::test]
async fn a_scale_body_should_be_checked_as_a_scale_by_put_and_patch() {
    let server = FakeApiServer::new();
    let deployments = "/apis/apps/v1/namespaces/default/deployments";
    let deployment = json!({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "spec": {
            "replicas": 1, "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}},
                         "spec": {"containers": [{"name": "web", "image": "nginx"}]}}
        }
    });
    let created = send(
        &server,
        "POST",
        deployments,
        "application/json",
        &deployment.to_string(),
    )
    .await;
    assert_eq!(created.code, 201);
    let scale = format!("{deployments}/web/scale");
    let strict = format!("{scale}?fieldValidation=Strict");
    let typo = json!({"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": "web"},
                      "spec": {"replicas": 2, "replica": 3}})
    .to_string();

    // PUT: refused under Strict as kube-apiserver's decoder words it for a Scale...
    let refused = send(&server, "PUT", &strict, "application/json", &typo).await;
    assert_eq!(refused.code, 400, "{}", refused.body);
    assert_eq!(
        refused.body["message"],
        "Scale in version \"v1\" cannot be handled as a Scale: strict decoding error: unknown field \"spec.replica\""
    );
    // ...and written with a warning by default.
    let warned = send(&server, "PUT", &scale, "application/json", &typo).await;
    assert_eq!(
        (warned.code, warned.warnings.as_slice()),
        (200, [r#"299 - "unknown field \"spec.replica\"""#.to_owned()].as_slice())
    );
    assert_eq!(warned.body["spec"], json!({"replicas": 2}));

    // A merge patch: the patched Scale is checked, refused as any patch is under Strict.
    let patch = r#"{"spec": {"replicas": 4, "replica": 5}}"#;
    let merge = "application/merge-patch+json";
    let refused = send(&server, "PATCH", &strict, merge, patch).await;
    assert_eq!(
        (refused.code, &refused.body["reason"]),
        (422, &json!("Invalid")),
        "{}",
        refused.body
    );
    let cause = &refused.body["details"]["causes"][0];
    assert_eq!(cause["field"], "patch");
    let message = cause["message"].as_str().unwrap_or_default();
    assert!(
        message.ends_with("strict decoding error: unknown field \"spec.replica\""),
        "{message}"
    );
    let warned = send(&server, "PATCH", &scale, merge, patch).await;
    assert_eq!(
        (warned.code, warned.warnings.as_slice()),
        (200, [r#"299 - "unknown field \"spec.replica\"""#.to_owned()].as_slice())
    );
    assert_eq!(warned.body["spec"], json!({"replicas": 4}));
}
