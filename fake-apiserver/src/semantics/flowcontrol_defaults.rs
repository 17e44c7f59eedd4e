//! Defaulting of FlowSchemas and PriorityLevelConfigurations, per served version
//! (`pkg/apis/flowcontrol/{v1beta2,v1beta3,v1}/defaults.go` and their generated
//! `SetObjectDefaults_*`): a schema's `matchingPrecedence` 1000; a limited level's shares 30,
//! its `lendablePercent` 0 and its queuing 64 queues, hands of 8, 50 long; an exempt level's
//! shares and `lendablePercent` 0.
//!
//! The shares differ by version. v1beta2 calls them `assuredConcurrencyShares`. v1 has a
//! pointer, defaulted only when unset, so 0 can be written. v1beta3's is an `int32`, 0 when
//! unset: 1.28 turns every 0 into 30; from 1.29 `SetDefaults_PriorityLevelConfiguration`
//! leaves a 0 alone when the object carries the round-trip annotation
//! `flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares`, which v1's zero reads back
//! with through v1beta3 (`flowcontrol_conversion`).

use serde_json::{Value, json};

use crate::semantics::flowcontrol_types::shares_field;

/// `FlowSchemaDefaultMatchingPrecedence`.
const DEFAULT_MATCHING_PRECEDENCE: i64 = 1000;
/// `PriorityLevelConfigurationDefaultNominalConcurrencyShares` (v1beta2's assured ones too).
const DEFAULT_SHARES: i64 = 30;
/// `PriorityLevelConfigurationDefaultHandSize`, `…Queues`, `…QueueLengthLimit`.
const DEFAULT_HAND_SIZE: i64 = 8;
const DEFAULT_QUEUES: i64 = 64;
const DEFAULT_QUEUE_LENGTH_LIMIT: i64 = 50;

/// `v1beta3.PriorityLevelPreserveZeroConcurrencySharesKey`.
pub(crate) const PRESERVE_ZERO_SHARES_ANNOTATION: &str = "flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares";

/// Whether a Go integer field is at its zero value: absent, `null` or 0.
fn is_zero(object: &Value, key: &str) -> bool {
    object.get(key).is_none_or(|v| v.is_null() || v.as_i64() == Some(0))
}

/// Whether a Go pointer field is nil: absent or `null`.
fn is_nil(object: &Value, key: &str) -> bool {
    object.get(key).is_none_or(Value::is_null)
}

/// Sets `key` of `object` (a JSON object) to `value`.
fn set(object: &mut Value, key: &str, value: i64) {
    if let Some(fields) = object.as_object_mut() {
        fields.insert(key.to_owned(), json!(value));
    }
}

/// Defaults `object`, a FlowSchema or PriorityLevelConfiguration (`kind`) of `version`, as
/// the decoder of a kube-apiserver of `minor` does.
pub(crate) fn set_defaults(object: &mut Value, kind: &str, version: &str, minor: u32) {
    match kind {
        "FlowSchema" => flow_schema(object),
        "PriorityLevelConfiguration" => priority_level(object, version, minor),
        _ => {}
    }
}

/// `SetDefaults_FlowSchemaSpec`: the spec is a struct, so it is defaulted even when absent.
fn flow_schema(object: &mut Value) {
    let Some(fields) = object.as_object_mut() else {
        return;
    };
    let spec = fields.entry("spec").or_insert_with(|| json!({}));
    if spec.is_null() {
        *spec = json!({});
    }
    if is_zero(spec, "matchingPrecedence") {
        set(spec, "matchingPrecedence", DEFAULT_MATCHING_PRECEDENCE);
    }
}

fn priority_level(object: &mut Value, version: &str, minor: u32) {
    // The round-trip annotation only means something to v1beta3 from 1.29.
    let preserves_zero = version == "v1beta3"
        && minor >= 29
        && object
            .pointer("/metadata/annotations")
            .and_then(Value::as_object)
            .is_some_and(|annotations| annotations.contains_key(PRESERVE_ZERO_SHARES_ANNOTATION));
    if let Some(limited) = object.pointer_mut("/spec/limited").filter(|l| l.is_object()) {
        let shares = shares_field(version);
        let unset = match version {
            "v1" => is_nil(limited, shares),
            _ => is_zero(limited, shares) && !preserves_zero,
        };
        if unset {
            set(limited, shares, DEFAULT_SHARES);
        }
        if is_nil(limited, "lendablePercent") {
            set(limited, "lendablePercent", 0);
        }
        if let Some(queuing) = limited.pointer_mut("/limitResponse/queuing").filter(|q| q.is_object()) {
            queuing_defaults(queuing);
        }
    }
    if let Some(exempt) = object.pointer_mut("/spec/exempt").filter(|e| e.is_object()) {
        for key in ["nominalConcurrencyShares", "lendablePercent"] {
            if is_nil(exempt, key) {
                set(exempt, key, 0);
            }
        }
    }
}

/// `SetDefaults_QueuingConfiguration`.
fn queuing_defaults(queuing: &mut Value) {
    for (key, default) in [
        ("handSize", DEFAULT_HAND_SIZE),
        ("queues", DEFAULT_QUEUES),
        ("queueLengthLimit", DEFAULT_QUEUE_LENGTH_LIMIT),
    ] {
        if is_zero(queuing, key) {
            set(queuing, key, default);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defaulted(kind: &str, version: &str, minor: u32, object: Value) -> Value {
        let mut object = object;
        set_defaults(&mut object, kind, version, minor);
        object
    }

    #[test]
    fn a_flow_schema_without_precedence_should_get_1000() {
        let object = defaulted("FlowSchema", "v1beta3", 28, json!({"spec": {"matchingPrecedence": 0}}));
        assert_eq!(object["spec"]["matchingPrecedence"], 1000);
        let object = defaulted("FlowSchema", "v1", 31, json!({}));
        assert_eq!(object["spec"], json!({"matchingPrecedence": 1000}));
        let object = defaulted("FlowSchema", "v1", 31, json!({"spec": {"matchingPrecedence": 500}}));
        assert_eq!(object["spec"]["matchingPrecedence"], 500);
    }

    #[test]
    fn an_empty_queuing_configuration_should_get_every_default() {
        // defaults_test.go's TestDefaultWithPriorityLevelConfiguration, v1beta3.
        let object =
            json!({"spec": {"type": "Limited", "limited": {"limitResponse": {"type": "Queue", "queuing": {}}}}});
        let object = defaulted("PriorityLevelConfiguration", "v1beta3", 28, object);
        assert_eq!(
            object["spec"]["limited"],
            json!({"nominalConcurrencyShares": 30, "lendablePercent": 0,
                   "limitResponse": {"type": "Queue", "queuing": {"handSize": 8, "queues": 64, "queueLengthLimit": 50}}})
        );
    }

    #[test]
    fn an_exempt_level_should_get_zero_shares_and_lendable_percent() {
        let object = json!({"spec": {"type": "Exempt", "exempt": {}}});
        let object = defaulted("PriorityLevelConfiguration", "v1", 31, object);
        assert_eq!(
            object["spec"]["exempt"],
            json!({"nominalConcurrencyShares": 0, "lendablePercent": 0})
        );
    }

    #[test]
    fn v1beta2_should_default_its_assured_shares() {
        let object = json!({"spec": {"type": "Limited", "limited": {"limitResponse": {"type": "Reject"}}}});
        let object = defaulted("PriorityLevelConfiguration", "v1beta2", 28, object);
        assert_eq!(object["spec"]["limited"]["assuredConcurrencyShares"], 30);
        assert!(object["spec"]["limited"].get("nominalConcurrencyShares").is_none());
    }

    #[test]
    fn zero_shares_should_survive_only_through_v1_or_the_v1beta3_annotation_from_1_29() {
        // defaults_test.go (v1, v1beta3) of 1.31: the zero value with and without the annotation.
        let zero = |annotated: bool| {
            let mut object = json!({"spec": {"type": "Limited", "limited": {"nominalConcurrencyShares": 0}}});
            if annotated {
                object["metadata"] = json!({"annotations": {PRESERVE_ZERO_SHARES_ANNOTATION: ""}});
            }
            object
        };
        let shares = |version, minor, object| {
            defaulted("PriorityLevelConfiguration", version, minor, object)["spec"]["limited"]["nominalConcurrencyShares"].clone()
        };
        assert_eq!(shares("v1", 31, zero(false)), 0);
        assert_eq!(shares("v1beta3", 31, zero(false)), 30);
        assert_eq!(shares("v1beta3", 31, zero(true)), 0);
        assert_eq!(shares("v1beta3", 28, zero(true)), 30);
        let unset = json!({"spec": {"type": "Limited", "limited": {}}});
        assert_eq!(shares("v1", 31, unset), 30);
    }
}
