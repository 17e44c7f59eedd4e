//! StatefulSet and DaemonSet decoding as kube-apiserver v1.28 does it (`pkg/apis/apps/v1/defaults.go`:
//! `SetDefaults_StatefulSet`, `SetDefaults_DaemonSet`; the generated `SetObjectDefaults_*` that add
//! the pod template's and the claim templates' defaults; `pkg/apis/apps/v1/conversion.go`).
//!
//! The v1 → internal → v1 round trip leaves traces of its own: the internal rolling-update
//! structs hold values where v1 has pointers, so a DaemonSet's rolling update always comes back
//! with both bounds and a StatefulSet's with its partition; claim templates get their type meta;
//! and a DaemonSet's template generation lives in the `deprecated.daemonset.template.generation`
//! annotation, parsed on the way in (refused when it is no integer) and always written out.

use serde_json::{Value, json};

use super::{default, default_text};
use crate::status::ApiStatus;
use crate::storage::object::meta_mut;

/// The annotation that carries a DaemonSet's internal `spec.templateGeneration` through apps/v1.
pub(crate) const TEMPLATE_GENERATION: &str = "deprecated.daemonset.template.generation";

/// `SetObjectDefaults_StatefulSet` with the v1 conversion's changes.
pub(super) fn stateful_set(object: &mut Value) {
    let Some(spec) = spec_mut(object) else { return };
    // `len(...) == 0`: an empty string is unset too.
    default_text(spec, "podManagementPolicy", "OrderedReady");
    default(spec, "updateStrategy", json!({}));
    let strategy = &mut spec["updateStrategy"];
    if strategy.is_object() && text(strategy, "type").is_empty() {
        strategy["type"] = json!("RollingUpdate");
        default(strategy, "rollingUpdate", json!({}));
    }
    if let Some(rolling) = strategy.get_mut("rollingUpdate").filter(|r| r.is_object()) {
        // Defaulted for RollingUpdate; for any other type the internal `int32` partition comes
        // back as 0 all the same. `maxUnavailable` stays unset: `MaxUnavailableStatefulSet` is
        // off in 1.28.
        default(rolling, "partition", json!(0));
    }
    // `StatefulSetAutoDeletePVC` is on (beta) in 1.28.
    default(spec, "persistentVolumeClaimRetentionPolicy", json!({}));
    if let Some(policy) = spec
        .get_mut("persistentVolumeClaimRetentionPolicy")
        .filter(|p| p.is_object())
    {
        default_text(policy, "whenDeleted", "Retain");
        default_text(policy, "whenScaled", "Retain");
    }
    default(spec, "replicas", json!(1));
    default(spec, "revisionHistoryLimit", json!(10));
    // `serviceName` has no `omitempty`: Go always writes it.
    default(spec, "serviceName", json!(""));
    template_defaults(spec);
    for claim in spec
        .get_mut("volumeClaimTemplates")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
        .filter(|c| c.is_object())
    {
        claim_template(claim);
    }
}

/// A claim template: the type meta the v1 conversion sets (as reflective conversion did before
/// 1.17) and the structs Go always encodes.
fn claim_template(claim: &mut Value) {
    claim["apiVersion"] = json!("v1");
    claim["kind"] = json!("PersistentVolumeClaim");
    default(claim, "metadata", json!({}));
    default(claim, "spec", json!({}));
    if let Some(spec) = claim.get_mut("spec").filter(|s| s.is_object()) {
        default(spec, "resources", json!({}));
    }
    // The walker's `SetDefaults_PersistentVolumeClaim(Spec)` fill the phase and volume mode.
    default(claim, "status", json!({}));
}

/// `SetObjectDefaults_DaemonSet` with the v1 conversion's changes; refuses a template
/// generation annotation that is no integer, as the conversion does (400).
pub(super) fn daemon_set(object: &mut Value) -> Result<(), ApiStatus> {
    let generation = template_generation(object)?;
    // `Convert_apps_DaemonSet_To_v1_DaemonSet` always writes the annotation.
    let annotations = meta_mut(object).entry("annotations").or_insert_with(|| json!({}));
    if let Some(annotations) = annotations.as_object_mut() {
        annotations.insert(TEMPLATE_GENERATION.to_owned(), json!(generation.to_string()));
    }
    let Some(spec) = spec_mut(object) else { return Ok(()) };
    default(spec, "updateStrategy", json!({}));
    let strategy = &mut spec["updateStrategy"];
    if strategy.is_object() && text(strategy, "type").is_empty() {
        strategy["type"] = json!("RollingUpdate");
    }
    if strategy.is_object() && strategy["type"] == "RollingUpdate" {
        default(strategy, "rollingUpdate", json!({}));
        if let Some(rolling) = strategy.get_mut("rollingUpdate").filter(|r| r.is_object()) {
            default(rolling, "maxUnavailable", json!(1));
            default(rolling, "maxSurge", json!(0));
        }
    }
    // Whatever the type, the internal struct's zero bounds come back as 0.
    if let Some(rolling) = strategy.get_mut("rollingUpdate").filter(|r| r.is_object()) {
        default(rolling, "maxUnavailable", json!(0));
        default(rolling, "maxSurge", json!(0));
    }
    default(spec, "revisionHistoryLimit", json!(10));
    template_defaults(spec);
    Ok(())
}

/// Go's template and its pod spec are structs, there even when not sent, so the walker's
/// `SetDefaults_PodSpec` always applies (a template without a spec gets its restart policy).
fn template_defaults(spec: &mut Value) {
    default(spec, "template", json!({}));
    if let Some(template) = spec.get_mut("template").filter(|t| t.is_object()) {
        default(template, "spec", json!({}));
    }
}

/// The DaemonSet's template generation as `Convert_v1_DaemonSet_To_apps_DaemonSet` reads it
/// (`strconv.ParseInt`), 0 without the annotation.
pub(crate) fn template_generation(object: &Value) -> Result<i64, ApiStatus> {
    let Some(text) = object
        .pointer("/metadata/annotations")
        .and_then(|a| a.get(TEMPLATE_GENERATION))
        .and_then(Value::as_str)
    else {
        return Ok(0);
    };
    text.parse::<i64>().map_err(|error| {
        let why = match error.kind() {
            std::num::IntErrorKind::PosOverflow | std::num::IntErrorKind::NegOverflow => "value out of range",
            _ => "invalid syntax",
        };
        ApiStatus::bad_request(format!(
            "DaemonSet in version \"v1\" cannot be handled as a DaemonSet: strconv.ParseInt: parsing {}: {why}",
            crate::semantics::field_error::go_quote(text)
        ))
    })
}

/// The spec to default, created when absent (Go's struct is always there); `None` when it is
/// something else, which decoding refused already.
fn spec_mut(object: &mut Value) -> Option<&mut Value> {
    let fields = object.as_object_mut()?;
    let spec = fields.entry("spec").or_insert_with(|| json!({}));
    if spec.is_null() {
        *spec = json!({});
    }
    spec.is_object().then_some(spec)
}

fn text<'v>(value: &'v Value, key: &str) -> &'v str {
    value.get(key).and_then(Value::as_str).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::resource::ResourceInfo;

    #[test]
    fn a_stateful_set_gets_its_policies_strategy_and_claim_defaults() {
        let mut sts = json!({"metadata": {"name": "s"}, "spec": {
            "podManagementPolicy": "",
            "template": {"spec": {"containers": [{"name": "c", "image": "nginx"}]}},
            "volumeClaimTemplates": [{"metadata": {"name": "d"}, "spec": {"accessModes": ["ReadWriteOnce"]}}]}});
        // Through `defaults::apply`: the claim and pod template defaults are the walker's.
        let info = ResourceInfo::builtin("apps", "v1", "StatefulSet", "statefulsets");
        crate::semantics::defaults::apply(&info, &mut sts, 28).unwrap();
        let spec = &sts["spec"];
        assert_eq!(spec["podManagementPolicy"], "OrderedReady");
        assert_eq!(
            spec["updateStrategy"],
            json!({"type": "RollingUpdate", "rollingUpdate": {"partition": 0}})
        );
        assert_eq!(
            spec["persistentVolumeClaimRetentionPolicy"],
            json!({"whenDeleted": "Retain", "whenScaled": "Retain"})
        );
        assert_eq!(
            (spec["replicas"].clone(), spec["serviceName"].clone()),
            (json!(1), json!(""))
        );
        let claim = &spec["volumeClaimTemplates"][0];
        assert_eq!(
            (claim["kind"].clone(), claim["apiVersion"].clone()),
            (json!("PersistentVolumeClaim"), json!("v1"))
        );
        assert_eq!(claim["spec"]["volumeMode"], "Filesystem");
        assert_eq!(claim["status"], json!({"phase": "Pending"}));
        assert_eq!(spec["template"]["spec"]["restartPolicy"], "Always");
    }

    #[test]
    fn a_template_without_a_spec_gets_the_pod_spec_defaults() {
        let mut sts = json!({"spec": {"template": {"metadata": {"labels": {"a": "b"}}}}});
        let info = ResourceInfo::builtin("apps", "v1", "StatefulSet", "statefulsets");
        crate::semantics::defaults::apply(&info, &mut sts, 28).unwrap();
        assert_eq!(sts["spec"]["template"]["spec"]["restartPolicy"], "Always");
        let mut ds = json!({"spec": {}});
        let info = ResourceInfo::builtin("apps", "v1", "DaemonSet", "daemonsets");
        crate::semantics::defaults::apply(&info, &mut ds, 28).unwrap();
        assert_eq!(ds["spec"]["template"]["spec"]["dnsPolicy"], "ClusterFirst");
    }

    #[test]
    fn an_on_delete_stateful_set_keeps_its_rolling_update_with_a_partition() {
        let mut sts = json!({"spec": {"updateStrategy": {"type": "OnDelete", "rollingUpdate": {}}}});
        stateful_set(&mut sts);
        assert_eq!(
            sts["spec"]["updateStrategy"],
            json!({"type": "OnDelete", "rollingUpdate": {"partition": 0}})
        );
        let mut sideways = json!({"spec": {"updateStrategy": {"type": "Sideways"}}});
        stateful_set(&mut sideways);
        assert_eq!(sideways["spec"]["updateStrategy"], json!({"type": "Sideways"}));
    }

    #[test]
    fn a_daemon_set_gets_its_bounds_and_template_generation_annotation() {
        let mut ds = json!({"metadata": {"name": "d"}, "spec": {"template": {"spec": {}}}});
        daemon_set(&mut ds).unwrap();
        assert_eq!(
            ds["spec"]["updateStrategy"],
            json!({"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0}})
        );
        assert_eq!(ds["metadata"]["annotations"][TEMPLATE_GENERATION], "0");
        let mut on_delete = json!({"metadata": {"annotations": {TEMPLATE_GENERATION: "+7"}},
            "spec": {"updateStrategy": {"type": "OnDelete", "rollingUpdate": {"maxUnavailable": 2}}}});
        daemon_set(&mut on_delete).unwrap();
        assert_eq!(
            on_delete["spec"]["updateStrategy"]["rollingUpdate"],
            json!({"maxUnavailable": 2, "maxSurge": 0})
        );
        assert_eq!(on_delete["metadata"]["annotations"][TEMPLATE_GENERATION], "7");
    }

    #[test]
    fn a_template_generation_that_is_no_integer_is_refused() {
        let mut ds = json!({"metadata": {"annotations": {TEMPLATE_GENERATION: "abc"}}, "spec": {}});
        let status = daemon_set(&mut ds).unwrap_err();
        assert_eq!(status.code, 400);
        assert!(
            status
                .message
                .ends_with("strconv.ParseInt: parsing \"abc\": invalid syntax"),
            "{}",
            status.message
        );
        let mut huge = json!({"metadata": {"annotations": {TEMPLATE_GENERATION: "99999999999999999999"}}});
        assert!(
            daemon_set(&mut huge)
                .unwrap_err()
                .message
                .ends_with("value out of range")
        );
    }
}
