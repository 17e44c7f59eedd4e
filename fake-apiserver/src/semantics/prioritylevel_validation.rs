//! PriorityLevelConfiguration validation (`pkg/apis/flowcontrol/validation/validation.go`:
//! `ValidatePriorityLevelConfiguration`, `ValidateIfMandatoryPriorityLevelConfigurationObject`,
//! `ValidatePriorityLevelConfigurationSpec`, `ValidateLimitedPriorityLevelConfiguration`,
//! `ValidateExemptPriorityLevelConfiguration`, `ValidateLimitResponse`,
//! `ValidatePriorityLevelQueuingConfiguration`) after the object metadata, by minor:
//! - a shares error names the field of the request's version (`assuredConcurrencyShares` in
//!   v1beta2, `getVersionedFieldNameForConcurrencyShares`);
//! - 1.28 wants positive shares; 1.31's strategy allows 0 (`AllowZeroLimitedNominalConcurrencyShares`)
//!   and forbids the v1beta3 round-trip annotation on the internal object, which only a v1
//!   write can leave there (v1beta3's conversion drops it).
//!
//! The strategy resets the status on create and keeps the stored one on update, so only a
//! write of `/status` has a status of its own to check (`flowschema_validation::status_errors`).

use serde_json::Value;

use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::flowcontrol_bootstrap::mandatory_priority_level;
use crate::semantics::flowcontrol_defaults::PRESERVE_ZERO_SHARES_ANNOTATION;
use crate::semantics::flowcontrol_go_dump::priority_level_spec;
use crate::semantics::flowcontrol_types::{Exempt, LimitResponse, Limited, PriorityLevelSpec, Queuing, shares_field};
use crate::storage::object;

/// `priorityLevelConfigurationQueuingMaxQueues`: 10^7.
const MAX_QUEUES: i64 = 10_000_000;
/// `shufflesharding.MaxHashBits`.
const MAX_HASH_BITS: i64 = 60;

/// `ValidatePriorityLevelConfiguration` (create and update alike) past the object metadata, of
/// an object written through `version` on a server of `minor`.
pub(crate) fn priority_level_errors(object: &Value, version: &str, minor: u32) -> Vec<FieldError> {
    let name = object::name(object);
    let mut errors = Vec::new();
    let annotated = object
        .pointer("/metadata/annotations")
        .and_then(Value::as_object)
        .is_some_and(|a| a.contains_key(PRESERVE_ZERO_SHARES_ANNOTATION));
    if minor >= 29 && version != "v1beta3" && annotated {
        errors.push(FieldError::forbidden(
            "metadata.annotations",
            format!("annotation '{PRESERVE_ZERO_SHARES_ANNOTATION}' is forbidden"),
        ));
    }
    let spec = PriorityLevelSpec::of(object, version);
    errors.extend(spec_errors(&spec, name, version, minor));
    errors.extend(mandatory_errors(&spec, name));
    errors
}

/// `ValidateIfMandatoryPriorityLevelConfigurationObject`: `catch-all` keeps its fixed spec,
/// `exempt` all of it but its `exempt` configuration.
fn mandatory_errors(spec: &PriorityLevelSpec, name: &str) -> Option<FieldError> {
    let mandatory = PriorityLevelSpec::of(&mandatory_priority_level(name)?, "v1");
    let (compared, why) = if name == "exempt" {
        let kept = PriorityLevelSpec {
            exempt: mandatory.exempt.clone(),
            ..spec.clone()
        };
        (
            kept,
            format!("spec of '{name}' except the 'spec.exempt' field must equal the fixed value"),
        )
    } else {
        (spec.clone(), format!("spec of '{name}' must equal the fixed value"))
    };
    (compared != mandatory).then(|| FieldError::invalid("spec", BadValue::Raw(priority_level_spec(spec)), why))
}

/// `ValidatePriorityLevelConfigurationSpec`: the type matches the name, and its one configuration.
fn spec_errors(spec: &PriorityLevelSpec, name: &str, version: &str, minor: u32) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if (name == "exempt") != (spec.type_ == "Exempt") {
        errors.push(FieldError::invalid(
            "spec.type",
            spec.type_.as_str().into(),
            "type must be 'Exempt' if and only if name is 'exempt'",
        ));
    }
    match spec.type_.as_str() {
        "Exempt" => {
            if spec.limited.is_some() {
                errors.push(FieldError::forbidden(
                    "spec.limited",
                    "must be nil if the type is not Limited",
                ));
            }
            errors.extend(spec.exempt.iter().flat_map(exempt_errors));
        }
        "Limited" => {
            if spec.exempt.is_some() {
                errors.push(FieldError::forbidden(
                    "spec.exempt",
                    "must be nil if the type is Limited",
                ));
            }
            match &spec.limited {
                None => errors.push(FieldError::required(
                    "spec.limited",
                    "must not be empty when type is Limited",
                )),
                Some(limited) => errors.extend(limited_errors(limited, version, minor)),
            }
        }
        other => errors.push(FieldError::not_supported(
            "spec.type",
            other.into(),
            &["Exempt".to_owned(), "Limited".to_owned()],
        )),
    }
    errors
}

/// `lendablePercent` between 0 and 100, inclusive.
fn lendable_percent_error(percent: Option<i64>, field: &str) -> Option<FieldError> {
    let percent = percent?;
    (!(0..=100).contains(&percent))
        .then(|| FieldError::invalid(field, BadValue::Int(percent), "must be between 0 and 100, inclusive"))
}

/// `ValidateLimitedPriorityLevelConfiguration`.
fn limited_errors(limited: &Limited, version: &str, minor: u32) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let shares = limited.nominal_concurrency_shares;
    let field = format!("spec.limited.{}", shares_field(version));
    if minor >= 29 && shares < 0 {
        errors.push(FieldError::invalid(
            field,
            BadValue::Int(shares),
            "must be a non-negative integer",
        ));
    } else if minor < 29 && shares <= 0 {
        errors.push(FieldError::invalid(field, BadValue::Int(shares), "must be positive"));
    }
    errors.extend(limit_response_errors(&limited.limit_response));
    errors.extend(lendable_percent_error(
        limited.lendable_percent,
        "spec.limited.lendablePercent",
    ));
    if let Some(percent) = limited.borrowing_limit_percent.filter(|p| *p < 0) {
        errors.push(FieldError::invalid(
            "spec.limited.borrowingLimitPercent",
            BadValue::Int(percent),
            "if specified, must be a non-negative integer",
        ));
    }
    errors
}

/// `ValidateExemptPriorityLevelConfiguration`.
fn exempt_errors(exempt: &Exempt) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if let Some(shares) = exempt.nominal_concurrency_shares.filter(|s| *s < 0) {
        errors.push(FieldError::invalid(
            "spec.exempt.nominalConcurrencyShares",
            BadValue::Int(shares),
            "must be a non-negative integer",
        ));
    }
    errors.extend(lendable_percent_error(
        exempt.lendable_percent,
        "spec.exempt.lendablePercent",
    ));
    errors
}

/// `ValidateLimitResponse`.
fn limit_response_errors(response: &LimitResponse) -> Vec<FieldError> {
    let path = "spec.limited.limitResponse";
    match (response.type_.as_str(), &response.queuing) {
        ("Reject", Some(_)) => vec![FieldError::forbidden(
            format!("{path}.queuing"),
            "must be nil if limited.limitResponse.type is not Limited",
        )],
        ("Reject", None) => Vec::new(),
        ("Queue", None) => vec![FieldError::required(
            format!("{path}.queuing"),
            "must not be empty if limited.limitResponse.type is Limited",
        )],
        ("Queue", Some(queuing)) => queuing_errors(queuing),
        (other, _) => vec![FieldError::not_supported(
            format!("{path}.type"),
            other.into(),
            &["Queue".to_owned(), "Reject".to_owned()],
        )],
    }
}

/// `shufflesharding.RequiredEntropyBits`: `ceil(log2(deck) * hand)`.
fn required_entropy_bits(deck_size: i64, hand_size: i64) -> i64 {
    ((deck_size as f64).log2() * hand_size as f64).ceil() as i64
}

/// `ValidatePriorityLevelQueuingConfiguration`: a positive queue length, a positive number of
/// queues up to 10^7, and a hand no larger than the queues whose shuffle sharding needs at
/// most 60 bits of hash.
fn queuing_errors(queuing: &Queuing) -> Vec<FieldError> {
    let path = "spec.limited.limitResponse.queuing";
    let invalid = |field: &str, value: i64, why: String| {
        FieldError::invalid(format!("{path}.{field}"), BadValue::Int(value), why)
    };
    let mut errors = Vec::new();
    let Queuing {
        queues,
        hand_size,
        queue_length_limit,
    } = *queuing;
    if queue_length_limit <= 0 {
        errors.push(invalid(
            "queueLengthLimit",
            queue_length_limit,
            "must be positive".to_owned(),
        ));
    }
    if queues <= 0 {
        errors.push(invalid("queues", queues, "must be positive".to_owned()));
    } else if queues > MAX_QUEUES {
        errors.push(invalid(
            "queues",
            queues,
            format!("must not be greater than {MAX_QUEUES}"),
        ));
    }
    if hand_size <= 0 {
        errors.push(invalid("handSize", hand_size, "must be positive".to_owned()));
    } else if hand_size > queues {
        errors.push(invalid(
            "handSize",
            hand_size,
            format!("should not be greater than queues ({queues})"),
        ));
    } else if required_entropy_bits(queues, hand_size) > MAX_HASH_BITS {
        errors.push(invalid(
            "handSize",
            hand_size,
            format!(
                "required entropy bits of deckSize {queues} and handSize {hand_size} should not be greater than {MAX_HASH_BITS}"
            ),
        ));
    }
    errors
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn level(name: &str, spec: Value) -> Value {
        json!({"metadata": {"name": name}, "spec": spec})
    }

    fn rendered(object: &Value, version: &str, minor: u32) -> Vec<String> {
        priority_level_errors(object, version, minor)
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    fn queued(queues: i64, hand_size: i64, queue_length_limit: i64) -> Value {
        json!({"type": "Limited", "limited": {"nominalConcurrencyShares": 100, "lendablePercent": 0, "limitResponse": {
            "type": "Queue", "queuing": {"queues": queues, "handSize": hand_size, "queueLengthLimit": queue_length_limit}}}})
    }

    #[test]
    fn queuing_should_be_positive_and_its_hand_fit_the_deck_and_the_hash() {
        // TestPriorityLevelConfigurationValidation: "normal customized priority level should work",
        // "forbid queuing configuration when in reject mode", "the hand size must not exceed...".
        assert!(rendered(&level("system-foo", queued(512, 4, 100)), "v1beta3", 28).is_empty());
        assert_eq!(
            rendered(&level("system-foo", queued(7, 8, 100)), "v1beta3", 28),
            ["spec.limited.limitResponse.queuing.handSize: Invalid value: 8: should not be greater than queues (7)"]
        );
        assert_eq!(
            rendered(&level("p", queued(128, 60, 10)), "v1", 31),
            [
                "spec.limited.limitResponse.queuing.handSize: Invalid value: 60: required entropy bits of deckSize 128 and handSize 60 should not be greater than 60"
            ]
        );
        let errors = rendered(&level("p", queued(0, 0, 0)), "v1", 31);
        assert_eq!(errors.len(), 3);
    }

    #[test]
    fn zero_shares_should_be_refused_by_1_28_and_allowed_by_1_31() {
        // TestValidateLimitedPriorityLevelConfiguration.
        let spec = |shares: i64| json!({"type": "Limited", "limited": {"nominalConcurrencyShares": shares, "limitResponse": {"type": "Reject"}}});
        assert_eq!(
            rendered(&level("p", spec(0)), "v1beta3", 28),
            ["spec.limited.nominalConcurrencyShares: Invalid value: 0: must be positive"]
        );
        assert!(rendered(&level("p", spec(0)), "v1beta3", 31).is_empty());
        assert_eq!(
            rendered(&level("p", spec(-1)), "v1", 31),
            ["spec.limited.nominalConcurrencyShares: Invalid value: -1: must be a non-negative integer"]
        );
        let v1beta2 =
            json!({"type": "Limited", "limited": {"assuredConcurrencyShares": 0, "limitResponse": {"type": "Reject"}}});
        assert_eq!(
            rendered(&level("p", v1beta2), "v1beta2", 28),
            ["spec.limited.assuredConcurrencyShares: Invalid value: 0: must be positive"]
        );
    }

    #[test]
    fn the_type_should_match_the_name_and_its_configuration() {
        let errors = rendered(
            &level("p", json!({"type": "Exempt", "exempt": {}, "limited": {}})),
            "v1",
            31,
        );
        assert_eq!(
            errors,
            [
                "spec.type: Invalid value: \"Exempt\": type must be 'Exempt' if and only if name is 'exempt'",
                "spec.limited: Forbidden: must be nil if the type is not Limited",
            ]
        );
        assert_eq!(
            rendered(&level("p", json!({"type": "Unlimited"})), "v1", 31),
            ["spec.type: Unsupported value: \"Unlimited\": supported values: \"Exempt\", \"Limited\""]
        );
    }

    #[test]
    fn the_mandatory_levels_should_keep_their_fixed_spec_but_exempts_own_configuration() {
        let mut exempt = mandatory_priority_level("exempt").unwrap_or_default();
        exempt["spec"]["exempt"] = json!({"nominalConcurrencyShares": 10, "lendablePercent": 50});
        assert!(rendered(&exempt, "v1", 31).is_empty());
        let mut catch_all = mandatory_priority_level("catch-all").unwrap_or_default();
        catch_all["spec"]["limited"]["nominalConcurrencyShares"] = json!(6);
        assert_eq!(
            rendered(&catch_all, "v1", 31),
            [
                "spec: Invalid value: flowcontrol.PriorityLevelConfigurationSpec{Type:\"Limited\", Limited:(*flowcontrol.LimitedPriorityLevelConfiguration)(0xc000000000), Exempt:(*flowcontrol.ExemptPriorityLevelConfiguration)(nil)}: spec of 'catch-all' must equal the fixed value"
            ]
        );
    }

    #[test]
    fn the_round_trip_annotation_should_be_forbidden_through_v1_from_1_29() {
        let mut object = level("p", queued(64, 8, 50));
        object["metadata"]["annotations"] = json!({PRESERVE_ZERO_SHARES_ANNOTATION: ""});
        assert_eq!(
            rendered(&object, "v1", 31),
            [
                "metadata.annotations: Forbidden: annotation 'flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares' is forbidden"
            ]
        );
        assert!(rendered(&object, "v1beta3", 31).is_empty());
        assert!(rendered(&object, "v1beta3", 28).is_empty());
    }
}
