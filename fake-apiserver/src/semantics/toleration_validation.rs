//! Tolerations as `pkg/apis/core/validation/validation.go` checks them (`ValidateTolerations`,
//! with `validateTaintEffect`; the same on 1.28 and 1.31): a pod spec's, a RuntimeClass's and
//! those a pod's `scheduler.alpha.kubernetes.io/tolerations` annotation holds. The values are
//! the v1 JSON of a `core.Toleration`; Go prints a whole toleration with `%#v`.

use serde_json::Value;

use crate::semantics::field_error::{BadValue, FieldError, go_quote};
use crate::semantics::names;

/// `ValidateTolerations` of the list at `field`: each toleration's key a label name, `Exists`
/// without a key or value, seconds only for `NoExecute`, and known operators and effects.
pub(crate) fn toleration_errors(tolerations: Option<&Value>, field: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    for (i, toleration) in tolerations.and_then(Value::as_array).into_iter().flatten().enumerate() {
        let at = format!("{field}[{i}]");
        let text = |key: &str| toleration.get(key).and_then(Value::as_str).unwrap_or_default();
        let (key, operator, value, effect) = (text("key"), text("operator"), text("value"), text("effect"));
        let key_errors = if key.is_empty() {
            Vec::new()
        } else {
            names::qualified_name_errors(key)
        };
        for why in key_errors {
            errors.push(FieldError::invalid(format!("{at}.key"), key.into(), why));
        }
        if key.is_empty() && operator != "Exists" {
            errors.push(FieldError::invalid(
                format!("{at}.operator"),
                operator.into(),
                "operator must be Exists when `key` is empty, which means \"match all values and all keys\"",
            ));
        }
        if toleration.get("tolerationSeconds").is_some_and(|s| !s.is_null()) && effect != "NoExecute" {
            errors.push(FieldError::invalid(
                format!("{at}.effect"),
                effect.into(),
                "effect must be 'NoExecute' when `tolerationSeconds` is set",
            ));
        }
        match operator {
            "Equal" | "" => {
                let why = names::label_value_errors(value);
                if !why.is_empty() {
                    errors.push(FieldError::invalid(
                        format!("{at}.operator"),
                        value.into(),
                        why.join(";"),
                    ));
                }
            }
            "Exists" if !value.is_empty() => errors.push(FieldError::invalid(
                format!("{at}.operator"),
                toleration_go(toleration),
                "value must be empty when `operator` is 'Exists'",
            )),
            "Exists" => {}
            other => {
                let supported = ["Equal".to_owned(), "Exists".to_owned()];
                errors.push(FieldError::not_supported(
                    format!("{at}.operator"),
                    other.into(),
                    &supported,
                ));
            }
        }
        if !effect.is_empty() && !["NoSchedule", "PreferNoSchedule", "NoExecute"].contains(&effect) {
            let supported = [
                "NoSchedule".to_owned(),
                "PreferNoSchedule".to_owned(),
                "NoExecute".to_owned(),
            ];
            errors.push(FieldError::not_supported(
                format!("{at}.effect"),
                effect.into(),
                &supported,
            ));
        }
    }
    errors
}

/// Go's `%#v` of a `core.Toleration`; its seconds are a pointer, printed as an address (any
/// address stands for the Go heap's).
pub(crate) fn toleration_go(toleration: &Value) -> BadValue {
    let text = |key: &str| go_quote(toleration.get(key).and_then(Value::as_str).unwrap_or_default());
    let seconds = match toleration.get("tolerationSeconds").filter(|s| !s.is_null()) {
        Some(_) => "(*int64)(0xc000000000)",
        None => "(*int64)(nil)",
    };
    BadValue::Raw(format!(
        "core.Toleration{{Key:{}, Operator:{}, Value:{}, Effect:{}, TolerationSeconds:{seconds}}}",
        text("key"),
        text("operator"),
        text("value"),
        text("effect"),
    ))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::semantics::field_error::rendered;

    #[test]
    fn each_rule_should_name_its_field_as_go_does() {
        let tolerations = json!([
            {"key": "a b", "operator": "Exists", "value": "x"},
            {"operator": "Equal", "effect": "Bogus"},
            {"key": "k", "operator": "In", "tolerationSeconds": 5, "effect": "NoSchedule"},
            {"key": "k", "value": "not valid!"},
            {"operator": "Exists"}
        ]);
        let name = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
        let value = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
        assert_eq!(
            rendered(toleration_errors(Some(&tolerations), "t")),
            [
                format!("t[0].key: Invalid value: \"a b\": {name}"),
                "t[0].operator: Invalid value: core.Toleration{Key:\"a b\", Operator:\"Exists\", Value:\"x\", Effect:\"\", TolerationSeconds:(*int64)(nil)}: value must be empty when `operator` is 'Exists'".to_owned(),
                "t[1].operator: Invalid value: \"Equal\": operator must be Exists when `key` is empty, which means \"match all values and all keys\"".to_owned(),
                "t[1].effect: Unsupported value: \"Bogus\": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"".to_owned(),
                "t[2].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set".to_owned(),
                "t[2].operator: Unsupported value: \"In\": supported values: \"Equal\", \"Exists\"".to_owned(),
                format!("t[3].operator: Invalid value: \"not valid!\": {value}"),
            ]
        );
    }

    #[test]
    fn seconds_should_print_as_a_pointer() {
        let with = json!({"key": "k", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300});
        let BadValue::Raw(printed) = toleration_go(&with) else {
            panic!("a toleration prints as a Go struct");
        };
        assert!(printed.ends_with("Effect:\"NoExecute\", TolerationSeconds:(*int64)(0xc000000000)}"));
    }
}
