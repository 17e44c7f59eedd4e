//! FlowSchemas and PriorityLevelConfigurations between the served versions, as kube-apiserver
//! converts them through its internal version. The versions hold the same fields but for two
//! things:
//! - v1beta2 calls a limited level's shares `assuredConcurrencyShares`, the later versions
//!   `nominalConcurrencyShares` (`pkg/apis/flowcontrol/v1beta2/conversion.go`);
//! - from 1.29, where v1 is stored, v1beta3 marks a limited level whose shares are 0 with the
//!   annotation `flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares: ""` when it
//!   reads one, and drops that annotation when it writes one, so that its 0 survives its own
//!   defaulting (`pkg/apis/flowcontrol/v1beta3/conversion.go`). 1.28 stores v1beta3 and has no
//!   v1: no conversion between the two ever runs there.

use serde_json::{Value, json};

use crate::semantics::flowcontrol_defaults::PRESERVE_ZERO_SHARES_ANNOTATION;
use crate::semantics::flowcontrol_types::shares_field;
use crate::storage::resource::ResourceInfo;

/// The API group.
pub(crate) const GROUP: &str = "flowcontrol.apiserver.k8s.io";

/// Whether `info` is one of the group's resources.
pub(crate) fn concerns(info: &ResourceInfo) -> bool {
    info.builtin && info.group == GROUP
}

/// The version part of an `apiVersion` (`g/v1` is `v1`).
fn version_of(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or(api_version, |(_, version)| version)
}

/// `object`, a FlowSchema or PriorityLevelConfiguration of `apiVersion` `from`, as version
/// `to` (an `apiVersion` too) shows it.
pub(crate) fn convert(object: &Value, from: &str, to: &str) -> Value {
    let mut converted = object.clone();
    converted["apiVersion"] = json!(to);
    if object.get("kind").and_then(Value::as_str) != Some("PriorityLevelConfiguration") {
        return converted;
    }
    let (from, to) = (version_of(from), version_of(to));
    rename_shares(&mut converted, shares_field(from), shares_field(to));
    match (from, to) {
        ("v1beta3", "v1") => drop_annotation(&mut converted),
        ("v1", "v1beta3") if zero_shares(&converted) => add_annotation(&mut converted),
        _ => {}
    }
    converted
}

/// Moves a limited level's shares from field `from` to field `to`.
fn rename_shares(object: &mut Value, from: &str, to: &str) {
    if from == to {
        return;
    }
    if let Some(limited) = object.pointer_mut("/spec/limited").and_then(Value::as_object_mut) {
        let shares = limited.remove(from);
        limited.remove(to);
        if let Some(shares) = shares {
            limited.insert(to.to_owned(), shares);
        }
    }
}

/// Whether the internal `NominalConcurrencyShares` of a limited level is 0 (a nil v1 pointer
/// converts to 0 as well).
fn zero_shares(object: &Value) -> bool {
    object
        .pointer("/spec/limited")
        .filter(|l| l.is_object())
        .is_some_and(|l| {
            l.get("nominalConcurrencyShares")
                .and_then(Value::as_i64)
                .unwrap_or_default()
                == 0
        })
}

/// `addPriorityLevelConcurrencyShareDefaultAnnotation`: an annotation already there is kept.
fn add_annotation(object: &mut Value) {
    let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) else {
        return;
    };
    let annotations = metadata.entry("annotations").or_insert_with(|| json!({}));
    if let Some(annotations) = annotations.as_object_mut() {
        annotations
            .entry(PRESERVE_ZERO_SHARES_ANNOTATION)
            .or_insert_with(|| json!(""));
    }
}

/// `dropPriorityLevelConcurrencyShareDefaultAnnotation`; annotations left empty are none.
fn drop_annotation(object: &mut Value) {
    let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) else {
        return;
    };
    let emptied = metadata
        .get_mut("annotations")
        .and_then(Value::as_object_mut)
        .is_some_and(|annotations| {
            annotations.remove(PRESERVE_ZERO_SHARES_ANNOTATION).is_some() && annotations.is_empty()
        });
    if emptied {
        metadata.remove("annotations");
    }
}

/// The shares of a limited level's JSON of any version (`None` when it has none).
pub(crate) fn nominal_shares(limited: &Value) -> Option<i64> {
    limited
        .get("nominalConcurrencyShares")
        .or_else(|| limited.get("assuredConcurrencyShares"))
        .and_then(Value::as_i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    const V1: &str = "flowcontrol.apiserver.k8s.io/v1";
    const V1BETA3: &str = "flowcontrol.apiserver.k8s.io/v1beta3";
    const V1BETA2: &str = "flowcontrol.apiserver.k8s.io/v1beta2";

    fn level(shares: i64) -> Value {
        json!({"apiVersion": V1, "kind": "PriorityLevelConfiguration", "metadata": {"name": "p"},
               "spec": {"type": "Limited", "limited": {"nominalConcurrencyShares": shares}}})
    }

    #[test]
    fn v1beta2_should_see_the_shares_as_assured_ones_and_back() {
        let stored = level(7);
        let shown = convert(&stored, V1BETA3, V1BETA2);
        assert_eq!(shown["spec"]["limited"], json!({"assuredConcurrencyShares": 7}));
        assert_eq!(shown["apiVersion"], V1BETA2);
        let back = convert(&shown, V1BETA2, V1BETA3);
        assert_eq!(back["spec"]["limited"], json!({"nominalConcurrencyShares": 7}));
    }

    #[test]
    fn zero_shares_should_round_trip_through_v1beta3_with_the_annotation() {
        // conversion_test.go of 1.31's v1beta3.
        let shown = convert(&level(0), V1, V1BETA3);
        assert_eq!(shown["metadata"]["annotations"][PRESERVE_ZERO_SHARES_ANNOTATION], "");
        assert!(convert(&level(5), V1, V1BETA3)["metadata"].get("annotations").is_none());
        let stored = convert(&shown, V1BETA3, V1);
        assert!(stored["metadata"].get("annotations").is_none());
        assert_eq!(stored["spec"]["limited"]["nominalConcurrencyShares"], 0);
    }

    #[test]
    fn other_annotations_should_stay_and_flow_schemas_only_change_version() {
        let mut shown = level(0);
        shown["metadata"]["annotations"] = json!({"a": "b", PRESERVE_ZERO_SHARES_ANNOTATION: "true"});
        let stored = convert(&shown, V1BETA3, V1);
        assert_eq!(stored["metadata"]["annotations"], json!({"a": "b"}));
        let schema = json!({"apiVersion": V1, "kind": "FlowSchema", "spec": {"matchingPrecedence": 5}});
        let shown = convert(&schema, V1, V1BETA3);
        assert_eq!(shown["spec"], schema["spec"]);
        assert_eq!(shown["apiVersion"], V1BETA3);
    }
}
