//! A Job's pod failure, pod replacement and success policies, as kube-apiserver v1.28 and v1.31
//! validate them (`pkg/apis/batch/validation/validation.go`: `validatePodFailurePolicy`,
//! `validatePodFailurePolicyRule`, `…RuleOnExitCodes`, `…RuleOnPodConditions`,
//! `validatePodReplacementPolicy`, `validateSuccessPolicy`, `validateSuccessPolicyRule`), and
//! Go's `%#v` of the policies, which the field errors about a whole policy print.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::semantics::field_error::{BadValue, FieldError, go_quote};
use crate::semantics::job_indexes::count_indexes;
use crate::semantics::names::{go_pointer, qualified_name_errors};
use crate::storage::object::present;

const MAX_RULES: usize = 20;
const MAX_EXIT_CODE_VALUES: usize = 255;
const MAX_CONDITION_PATTERNS: usize = 20;
const MAX_SUCCESS_RULES: usize = 20;
const MAX_SUCCEEDED_INDEXES_LENGTH: usize = 64 * 1024;

/// The supported values, sorted as `sets.List` returns them.
const ACTIONS: [&str; 4] = ["Count", "FailIndex", "FailJob", "Ignore"];
const OPERATORS: [&str; 2] = ["In", "NotIn"];
const CONDITION_STATUSES: [&str; 3] = ["False", "True", "Unknown"];
const REPLACEMENT_POLICIES: [&str; 2] = ["Failed", "TerminatingOrFailed"];

fn text<'v>(object: &'v Value, key: &str) -> &'v str {
    object.get(key).and_then(Value::as_str).unwrap_or_default()
}

fn items<'v>(object: &'v Value, key: &str) -> &'v [Value] {
    object.get(key).and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

fn owned(values: &[&str]) -> Vec<String> {
    values.iter().map(|v| (*v).to_owned()).collect()
}

/// `fmt.Sprintf("valid values: %q", list)`: Go's `%q` of a `[]string`.
fn valid_values(values: &[&str]) -> String {
    let quoted: Vec<String> = values.iter().map(|v| go_quote(v)).collect();
    format!("valid values: [{}]", quoted.join(" "))
}

/// `validatePodFailurePolicy` of the policy of `spec` at `at`: at most 20 rules, each valid
/// against the pod template's container names.
pub(crate) fn pod_failure_policy_errors(spec: &Value, at: &str) -> Vec<FieldError> {
    let Some(policy) = present(spec, "podFailurePolicy") else {
        return Vec::new();
    };
    let rules = items(policy, "rules");
    let mut errors = Vec::new();
    if rules.len() > MAX_RULES {
        errors.push(FieldError::too_many(
            format!("{at}.rules"),
            rules.len() as i64,
            MAX_RULES as i64,
        ));
    }
    let pod = spec.pointer("/template/spec").unwrap_or(&Value::Null);
    let containers: BTreeSet<&str> = ["containers", "initContainers"]
        .iter()
        .flat_map(|key| items(pod, key))
        .map(|c| text(c, "name"))
        .collect();
    for (i, rule) in rules.iter().enumerate() {
        errors.extend(rule_errors(spec, rule, &format!("{at}.rules[{i}]"), &containers));
    }
    errors
}

/// `validatePodFailurePolicyRule`: a supported action (`FailIndex` only with a backoff limit
/// per index), then exactly one of the two requirements, each valid.
fn rule_errors(spec: &Value, rule: &Value, at: &str, containers: &BTreeSet<&str>) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let action_path = format!("{at}.action");
    match text(rule, "action") {
        "" => errors.push(FieldError::required(action_path, valid_values(&ACTIONS))),
        "FailIndex" if present(spec, "backoffLimitPerIndex").is_none() => {
            let why = "requires the backoffLimitPerIndex to be set";
            errors.push(FieldError::invalid(action_path, "FailIndex".into(), why));
        }
        "FailIndex" => {}
        action if !ACTIONS.contains(&action) => {
            errors.push(FieldError::not_supported(action_path, action.into(), &owned(&ACTIONS)));
        }
        _ => {}
    }
    let exit_codes = present(rule, "onExitCodes");
    let patterns = items(rule, "onPodConditions");
    if let Some(requirement) = exit_codes {
        errors.extend(exit_codes_errors(requirement, &format!("{at}.onExitCodes"), containers));
    }
    if !patterns.is_empty() {
        errors.extend(pod_conditions_errors(patterns, &format!("{at}.onPodConditions")));
    }
    let why = match (exit_codes.is_some(), patterns.is_empty()) {
        (true, false) => Some("specifying both OnExitCodes and OnPodConditions is not supported"),
        (false, true) => Some("specifying one of OnExitCodes and OnPodConditions is required"),
        _ => None,
    };
    errors.extend(why.map(|why| FieldError::invalid(at, BadValue::Omit, why)));
    errors
}

/// `validatePodFailurePolicyRuleOnPodConditions`: at most 20 patterns, each a qualified
/// condition type and a condition status.
fn pod_conditions_errors(patterns: &[Value], at: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if patterns.len() > MAX_CONDITION_PATTERNS {
        errors.push(FieldError::too_many(
            at,
            patterns.len() as i64,
            MAX_CONDITION_PATTERNS as i64,
        ));
    }
    for (j, pattern) in patterns.iter().enumerate() {
        let kind = text(pattern, "type");
        for why in qualified_name_errors(kind) {
            errors.push(FieldError::invalid(format!("{at}[{j}].type"), kind.into(), why));
        }
        let status_path = format!("{at}[{j}].status");
        match text(pattern, "status") {
            "" => errors.push(FieldError::required(status_path, valid_values(&CONDITION_STATUSES))),
            status if !CONDITION_STATUSES.contains(&status) => {
                errors.push(FieldError::not_supported(
                    status_path,
                    status.into(),
                    &owned(&CONDITION_STATUSES),
                ));
            }
            _ => {}
        }
    }
    errors
}

/// `validatePodFailurePolicyRuleOnExitCodes`: an operator, a container of the template, and
/// 1 to 255 distinct exit codes in order, none 0 for `In`.
fn exit_codes_errors(requirement: &Value, at: &str, containers: &BTreeSet<&str>) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let operator = text(requirement, "operator");
    match operator {
        "" => errors.push(FieldError::required(format!("{at}.operator"), valid_values(&OPERATORS))),
        op if !OPERATORS.contains(&op) => {
            errors.push(FieldError::not_supported(
                format!("{at}.operator"),
                op.into(),
                &owned(&OPERATORS),
            ));
        }
        _ => {}
    }
    if let Some(name) = present(requirement, "containerName").map(|n| n.as_str().unwrap_or_default())
        && !containers.contains(name)
    {
        let why = "must be one of the container or initContainer names in the pod template";
        errors.push(FieldError::invalid(format!("{at}.containerName"), name.into(), why));
    }
    let values_path = format!("{at}.values");
    let values: Vec<i64> = items(requirement, "values")
        .iter()
        .map(|v| v.as_i64().unwrap_or_default())
        .collect();
    if values.is_empty() {
        let shown = BadValue::Raw(int32s_go(present(requirement, "values")));
        errors.push(FieldError::invalid(
            &values_path,
            shown,
            "at least one value is required",
        ));
    } else if values.len() > MAX_EXIT_CODE_VALUES {
        errors.push(FieldError::too_many(
            &values_path,
            values.len() as i64,
            MAX_EXIT_CODE_VALUES as i64,
        ));
    }
    let mut seen = BTreeSet::new();
    for (j, value) in values.iter().enumerate() {
        if operator == "In" && *value == 0 {
            let why = "must not be 0 for the In operator";
            errors.push(FieldError::invalid(
                format!("{values_path}[{j}]"),
                BadValue::Int(0),
                why,
            ));
        }
        if !seen.insert(*value) {
            errors.push(FieldError::duplicate(
                format!("{values_path}[{j}]"),
                BadValue::Int(*value),
            ));
        }
    }
    if values.windows(2).any(|pair| pair[0] > pair[1]) {
        let shown = BadValue::Raw(int32s_go(present(requirement, "values")));
        errors.push(FieldError::invalid(values_path, shown, "must be ordered"));
    }
    errors
}

/// `validatePodReplacementPolicy`: `Failed` alone with a pod failure policy, either policy
/// without one.
pub(crate) fn pod_replacement_policy_errors(spec: &Value, at: &str) -> Option<FieldError> {
    let policy = present(spec, "podReplacementPolicy")?.as_str().unwrap_or_default();
    let supported: &[&str] = if present(spec, "podFailurePolicy").is_some() {
        &["Failed"]
    } else {
        &REPLACEMENT_POLICIES
    };
    (!supported.contains(&policy)).then(|| FieldError::not_supported(at, policy.into(), &owned(supported)))
}

/// `validateSuccessPolicy` of an Indexed Job's spec at `at` (1.30+): 1 to 20 rules. The
/// caller has made sure `completions` is set: Go dereferences it here (see
/// `job_strategy::refuse_panicking`).
pub(crate) fn success_policy_errors(spec: &Value, at: &str, completions: i64) -> Vec<FieldError> {
    let rules = present(spec, "successPolicy").map_or(&[][..], |p| items(p, "rules"));
    let mut errors = Vec::new();
    if rules.is_empty() {
        let why = "at least one rules must be specified when the successPolicy is specified";
        errors.push(FieldError::required(format!("{at}.rules"), why));
    }
    if rules.len() > MAX_SUCCESS_RULES {
        errors.push(FieldError::too_many(
            format!("{at}.rules"),
            rules.len() as i64,
            MAX_SUCCESS_RULES as i64,
        ));
    }
    for (i, rule) in rules.iter().enumerate() {
        errors.extend(success_rule_errors(rule, &format!("{at}.rules[{i}]"), completions));
    }
    errors
}

/// `validateSuccessPolicyRule`: a count or indexes (or both), the indexes a valid list of
/// indexes below `completions`, the count no more than either allows.
fn success_rule_errors(rule: &Value, at: &str, completions: i64) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let indexes = present(rule, "succeededIndexes").map(|i| i.as_str().unwrap_or_default());
    let count = present(rule, "succeededCount").map(|c| c.as_i64().unwrap_or_default());
    if indexes.is_none() && count.is_none() {
        let why = "at least one of succeededCount or succeededIndexes must be specified";
        errors.push(FieldError::required(at, why));
    }
    let mut total = 0;
    if let Some(indexes) = indexes {
        let path = format!("{at}.succeededIndexes");
        if indexes.len() > MAX_SUCCEEDED_INDEXES_LENGTH {
            errors.push(FieldError::too_long(
                &path,
                indexes.into(),
                MAX_SUCCEEDED_INDEXES_LENGTH as i64,
            ));
        }
        match count_indexes(indexes, completions) {
            Ok(n) => total = n,
            Err(why) => errors.push(FieldError::invalid(
                path,
                indexes.into(),
                format!("error parsing succeededIndexes: {why}"),
            )),
        }
    }
    if let Some(count) = count {
        let path = format!("{at}.succeededCount");
        errors.extend(crate::semantics::field_error::nonnegative(count, &path));
        if count > completions {
            let why = format!("must be less than or equal to {completions} (the number of specified completions)");
            errors.push(FieldError::invalid(&path, BadValue::Int(count), why));
        }
        if indexes.is_some() && count > total {
            let why = format!(
                "must be less than or equal to {total} (the number of indexes in the specified succeededIndexes field)"
            );
            errors.push(FieldError::invalid(&path, BadValue::Int(count), why));
        }
    }
    errors
}

/// Go's `%#v` of a `[]int32`: `[]int32{1, 2}`, `[]int32{}` when empty, `[]int32(nil)` when
/// absent.
fn int32s_go(values: Option<&Value>) -> String {
    match values.and_then(Value::as_array) {
        None => "[]int32(nil)".to_owned(),
        Some(values) => {
            let shown: Vec<String> = values
                .iter()
                .map(|v| v.as_i64().unwrap_or_default().to_string())
                .collect();
            format!("[]int32{{{}}}", shown.join(", "))
        }
    }
}

/// Go's `%#v` of a slice of `ty` (`[]ty{…}`, `[]ty(nil)` when absent), each item shown by `show`.
fn slice_go(ty: &str, list: Option<&Value>, show: impl Fn(&Value) -> String) -> String {
    match list.and_then(Value::as_array) {
        None => format!("[]{ty}(nil)"),
        Some(list) => {
            let shown: Vec<String> = list.iter().map(show).collect();
            format!("[]{ty}{{{}}}", shown.join(", "))
        }
    }
}

/// Go's `%#v` of the internal `batch.PodFailurePolicy` (field errors dereference the pointer
/// they are given; the pointers inside print as addresses).
pub(crate) fn pod_failure_policy_go(policy: &Value) -> String {
    let rules = slice_go("batch.PodFailurePolicyRule", present(policy, "rules"), |rule| {
        let patterns = slice_go(
            "batch.PodFailurePolicyOnPodConditionsPattern",
            present(rule, "onPodConditions"),
            |pattern| {
                format!(
                    "batch.PodFailurePolicyOnPodConditionsPattern{{Type:{}, Status:{}}}",
                    go_quote(text(pattern, "type")),
                    go_quote(text(pattern, "status"))
                )
            },
        );
        format!(
            "batch.PodFailurePolicyRule{{Action:{}, OnExitCodes:{}, OnPodConditions:{patterns}}}",
            go_quote(text(rule, "action")),
            go_pointer("batch.PodFailurePolicyOnExitCodesRequirement", rule.get("onExitCodes")),
        )
    });
    format!("batch.PodFailurePolicy{{Rules:{rules}}}")
}

/// Go's `%#v` of the internal `batch.SuccessPolicy`.
pub(crate) fn success_policy_go(policy: &Value) -> String {
    let rules = slice_go("batch.SuccessPolicyRule", present(policy, "rules"), |rule| {
        format!(
            "batch.SuccessPolicyRule{{SucceededIndexes:{}, SucceededCount:{}}}",
            go_pointer("string", rule.get("succeededIndexes")),
            go_pointer("int32", rule.get("succeededCount")),
        )
    });
    format!("batch.SuccessPolicy{{Rules:{rules}}}")
}

#[cfg(test)]
#[path = "job_policy_validation_tests.rs"]
mod tests;
