//! An autoscaler's `behavior` as autoscaling/v1 carries it in the
//! `autoscaling.alpha.kubernetes.io/behavior` annotation: the internal Go type marshalled as is
//! (`pkg/apis/autoscaling/v1/conversion.go` notes the TODO), so its keys are the Go field names
//! and its unset pointers `null`; read back as `json.Unmarshal` fills that type.

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::semantics::go_json_fields::{Fields, FieldsError};
use crate::semantics::hpa_v1_types::read_list;

/// `autoscaling.HorizontalPodAutoscalerBehavior`.
#[derive(Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "PascalCase")]
struct Behavior {
    scale_up: Option<Rules>,
    scale_down: Option<Rules>,
}

/// `autoscaling.HPAScalingRules`.
#[derive(Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "PascalCase")]
struct Rules {
    stabilization_window_seconds: Option<i64>,
    select_policy: Option<String>,
    policies: Option<Vec<Policy>>,
}

/// `autoscaling.HPAScalingPolicy`.
#[derive(Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "PascalCase")]
struct Policy {
    #[serde(rename = "Type")]
    kind: String,
    value: i64,
    period_seconds: i64,
}

/// The annotation's value for an autoscaler's v2 `behavior`.
pub(crate) fn encode(behavior: &Value) -> Vec<u8> {
    let rules = |key: &str| {
        behavior.get(key).filter(|r| r.is_object()).map(|rules| Rules {
            stabilization_window_seconds: rules.get("stabilizationWindowSeconds").and_then(Value::as_i64),
            select_policy: rules.get("selectPolicy").and_then(Value::as_str).map(str::to_owned),
            policies: rules.get("policies").and_then(Value::as_array).map(|policies| {
                policies
                    .iter()
                    .map(|policy| Policy {
                        kind: policy
                            .get("type")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_owned(),
                        value: policy.get("value").and_then(Value::as_i64).unwrap_or(0),
                        period_seconds: policy.get("periodSeconds").and_then(Value::as_i64).unwrap_or(0),
                    })
                    .collect()
            }),
        })
    };
    let behavior = Behavior {
        scale_up: rules("scaleUp"),
        scale_down: rules("scaleDown"),
    };
    crate::semantics::go_json_writer::to_vec(&behavior)
}

/// The v2 `behavior` an annotation holds: `None` when it does not decode, or sets neither
/// direction (conversion then ignores it).
pub(crate) fn decode(annotation: &str) -> Option<Value> {
    let parsed: Value = serde_json::from_str(annotation).ok()?;
    let behavior = read(&parsed).ok()?;
    if behavior == Behavior::default() {
        return None;
    }
    let mut out = Map::new();
    for (key, rules) in [("scaleUp", behavior.scale_up), ("scaleDown", behavior.scale_down)] {
        if let Some(rules) = rules {
            out.insert(key.to_owned(), rules_to_v2(rules));
        }
    }
    Some(Value::Object(out))
}

fn read(parsed: &Value) -> Result<Behavior, FieldsError> {
    let Some(fields) = Fields::of(parsed, "behavior")? else {
        return Ok(Behavior::default());
    };
    let rules = |name: &str| -> Result<Option<Rules>, FieldsError> {
        let Some(rules) = fields.object(name)? else {
            return Ok(None);
        };
        let policies = match rules.get("Policies") {
            None => None,
            Some(_) => Some(read_list(rules.list("Policies")?, |policy| {
                Ok(Policy {
                    kind: policy.string("Type")?,
                    value: policy.int("Value", 32)?.unwrap_or(0),
                    period_seconds: policy.int("PeriodSeconds", 32)?.unwrap_or(0),
                })
            })?),
        };
        Ok(Some(Rules {
            stabilization_window_seconds: rules.int("StabilizationWindowSeconds", 32)?,
            select_policy: rules.optional_string("SelectPolicy")?,
            policies,
        }))
    };
    Ok(Behavior {
        scale_up: rules("ScaleUp")?,
        scale_down: rules("ScaleDown")?,
    })
}

fn rules_to_v2(rules: Rules) -> Value {
    let mut out = Map::new();
    if let Some(window) = rules.stabilization_window_seconds {
        out.insert("stabilizationWindowSeconds".to_owned(), json!(window));
    }
    if let Some(policy) = rules.select_policy {
        out.insert("selectPolicy".to_owned(), json!(policy));
    }
    if let Some(policies) = rules.policies {
        let policies: Vec<Value> = policies
            .into_iter()
            .map(|p| json!({"type": p.kind, "value": p.value, "periodSeconds": p.period_seconds}))
            .collect();
        out.insert("policies".to_owned(), Value::Array(policies));
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn behavior_should_be_written_with_go_field_names_and_nulls() {
        let behavior = json!({"scaleUp": {"stabilizationWindowSeconds": 0, "selectPolicy": "Max",
                              "policies": [{"type": "Pods", "value": 4, "periodSeconds": 15}]},
                              "scaleDown": {"selectPolicy": "Max", "policies": []}});
        assert_eq!(
            String::from_utf8(encode(&behavior)).unwrap_or_default(),
            r#"{"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max","Policies":[{"Type":"Pods","Value":4,"PeriodSeconds":15}]},"ScaleDown":{"StabilizationWindowSeconds":null,"SelectPolicy":"Max","Policies":[]}}"#
        );
    }

    #[test]
    fn annotations_should_decode_ignoring_key_case_and_skip_what_does_not() {
        assert_eq!(
            decode(
                r#"{"scaleUp":{"SelectPolicy":"Min","policies":[{"Type":"Percent","Value":50,"PeriodSeconds":30}]}}"#
            ),
            Some(
                json!({"scaleUp": {"selectPolicy": "Min", "policies": [{"type": "Percent", "value": 50, "periodSeconds": 30}]}})
            )
        );
        assert_eq!(decode("{}"), None);
        assert_eq!(decode("not json"), None);
        assert_eq!(decode(r#"{"ScaleUp":{"Policies":"x"}}"#), None);
        assert_eq!(decode(r#"{"ScaleUp":{}}"#), Some(json!({"scaleUp": {}})));
    }
}
