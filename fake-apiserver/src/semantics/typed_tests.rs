//! Tests of decoding built-in kinds through their types.

use serde_json::json;

use super::*;

#[test]
fn a_micro_time_should_have_six_fractional_digits() {
    let info = ResourceInfo::builtin("coordination.k8s.io", "v1", "Lease", "leases");
    let lease = |renew: &str| json!({"metadata": {"name": "l"}, "spec": {"renewTime": renew}});
    assert_eq!(
        decode_error(&info, &lease("2026-01-01T00:00:01Z")).as_deref(),
        Some(
            "parsing time \"2026-01-01T00:00:01Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"Z\" as \".000000\""
        )
    );
    assert!(
        decode_error(&info, &lease("2026-01-01T00:00:01.1234567Z"))
            .unwrap()
            .ends_with("cannot parse \"7Z\" as \"Z07:00\"")
    );
    assert_eq!(decode_error(&info, &lease("2026-01-01T00:00:01.123456+02:00")), None);
}

#[test]
fn times_should_be_kept_in_utc_at_their_precision() {
    let info = ResourceInfo::builtin("coordination.k8s.io", "v1", "Lease", "leases");
    let mut lease = json!({"metadata": {"name": "l"}, "spec": {
        "acquireTime": "2026-01-01T00:00:00.123456Z",
        "renewTime": "2026-01-01T00:00:01.500000+02:00",
        "holderIdentity": "2026-01-01T00:00:01+02:00 is not a time field"
    }});
    assert!(prune_unknown(&info, &mut lease, 28).is_empty());
    assert_eq!(lease["spec"]["acquireTime"], "2026-01-01T00:00:00.123456Z");
    assert_eq!(lease["spec"]["renewTime"], "2025-12-31T22:00:01.500000Z");
    assert_eq!(
        lease["spec"]["holderIdentity"],
        "2026-01-01T00:00:01+02:00 is not a time field"
    );
}

#[test]
fn unknown_fields_of_a_deployment_should_be_named_and_dropped() {
    let info = ResourceInfo::builtin("apps", "v1", "Deployment", "deployments");
    let mut deployment = json!({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "spec": {
            "replica": 2, "replicas": null, "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}},
                         "spec": {"containers": [{"name": "web", "image": "nginx", "imagePullPolcy": "Always"}]}}
        }
    });
    let unknown = prune_unknown(&info, &mut deployment, 28);
    assert_eq!(
        unknown,
        ["spec.replica", "spec.template.spec.containers[0].imagePullPolcy"]
    );
    assert!(deployment["spec"].get("replica").is_none());
    assert_eq!(
        deployment["spec"]["template"]["spec"]["containers"][0],
        json!({"name": "web", "image": "nginx"})
    );
    // A body the type cannot take is left alone.
    let mut wrong = json!({"spec": {"replicas": "two", "bogus": 1}});
    assert!(prune_unknown(&info, &mut wrong, 28).is_empty());
}

#[test]
fn decode_errors_should_name_the_struct_that_declares_the_field() {
    let info = ResourceInfo::builtin(
        "autoscaling",
        "v2",
        "HorizontalPodAutoscaler",
        "horizontalpodautoscalers",
    );
    let hpa =
        json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "spec": {"maxReplicas": "two"}});
    assert_eq!(
        decode_error(&info, &hpa).as_deref(),
        Some(
            "json: cannot unmarshal string into Go struct field HorizontalPodAutoscalerSpec.spec.maxReplicas of type int32"
        )
    );
    let info = ResourceInfo::builtin("apps", "v1", "ControllerRevision", "controllerrevisions");
    let revision = json!({"apiVersion": "apps/v1", "kind": "ControllerRevision", "revision": "1"});
    assert_eq!(
        decode_error(&info, &revision).as_deref(),
        Some("json: cannot unmarshal string into Go struct field ControllerRevision.revision of type int64")
    );
}
