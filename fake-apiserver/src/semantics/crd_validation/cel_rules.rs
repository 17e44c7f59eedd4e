//! A CRD schema's CEL rules checked as apiextensions checks them when the CRD is written
//! (`pkg/apis/apiextensions/validation/validation.go`: the `x-kubernetes-validations` block of
//! `ValidateCustomResourceDefinitionOpenAPISchema`, `getExpressionCost`; `cel_validation.go`:
//! `CELSchemaContext`, `TotalCost`): compile errors, each rule's and message expression's
//! estimated cost times how often the node may occur, `oldSelf` where values do not
//! correlate, and the cost of all rules together.

use std::cell::RefCell;

use serde_json::Value;

use crate::semantics::cel::compile::{self, CompileError};
use crate::semantics::field_error::{BadValue, FieldError, go_quote};
use crate::semantics::schema::structural;

/// `StaticEstimatedCostLimit`: the most one rule may cost, times its node's cardinality.
const RULE_COST_LIMIT: u64 = 10_000_000;
/// `StaticEstimatedCRDCostLimit`: the most all rules of a schema may cost together.
const CRD_COST_LIMIT: u64 = 100_000_000;

/// The cost of all rules so far, and the most expensive of them (`TotalCost`).
#[derive(Default)]
pub(super) struct TotalCost {
    total: u64,
    most_expensive: Vec<(String, u64)>,
}

impl TotalCost {
    /// `ObserveExpressionCost`: rules under 1 % of the limit are not worth naming.
    fn observe(&mut self, path: String, cost: u64) {
        self.total = self.total.saturating_add(cost);
        if cost < CRD_COST_LIMIT / 100 {
            return;
        }
        self.most_expensive.push((path, cost));
        self.most_expensive.sort_by_key(|(_, cost)| std::cmp::Reverse(*cost));
        self.most_expensive.truncate(4);
    }

    /// The errors of a schema whose rules cost too much together.
    pub(super) fn errors(&self, root: &str) -> Vec<FieldError> {
        if self.total <= CRD_COST_LIMIT {
            return Vec::new();
        }
        let mut errors: Vec<FieldError> = self
            .most_expensive
            .iter()
            .map(|(path, _)| {
                FieldError::forbidden(
                    path,
                    "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
                )
            })
            .collect();
        let name = "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema";
        errors.push(FieldError::forbidden(
            root,
            cost_message(name, self.total, CRD_COST_LIMIT),
        ));
        errors
    }
}

/// Where a schema node is, for its rules (`CELSchemaContext` and the validator's
/// `forbidOldSelfValidations`).
#[derive(Clone)]
pub(super) struct Context<'t> {
    total: &'t RefCell<TotalCost>,
    /// How many values of the node a request may hold; `None` when nothing bounds it.
    max_cardinality: Option<u64>,
    /// The CRD's root or an embedded resource.
    resource_root: bool,
    /// The first ancestor whose values cannot be matched with their old ones.
    uncorrelatable: Option<String>,
}

impl<'t> Context<'t> {
    /// `RootCELContext`.
    pub(super) fn root(total: &'t RefCell<TotalCost>) -> Self {
        Self {
            total,
            max_cardinality: Some(1),
            resource_root: true,
            uncorrelatable: None,
        }
    }

    /// The context of a property of the object `parent` at `path`.
    pub(super) fn property(&self, parent: &Value, path: &str, child: &Value) -> Self {
        let mut context = self.child(parent, child);
        if !matches!(
            parent.get("x-kubernetes-map-type").and_then(Value::as_str),
            None | Some("granular" | "atomic")
        ) {
            context.forbid_old_self(path);
        }
        context
    }

    /// The context of the items of the array `parent` at `path`: only a `map` list's items
    /// correlate with their old selves.
    pub(super) fn items(&self, parent: &Value, path: &str, child: &Value) -> Self {
        let mut context = self.child(parent, child);
        if parent.get("x-kubernetes-list-type").and_then(Value::as_str) != Some("map") {
            context.forbid_old_self(path);
        }
        context
    }

    /// The context of the additional properties of `parent`.
    pub(super) fn additional(&self, parent: &Value, child: &Value) -> Self {
        self.child(parent, child)
    }

    /// `childContext`: the parent's cardinality times how many children it may have.
    fn child(&self, parent: &Value, child: &Value) -> Self {
        let per_parent = max_elements(parent);
        Self {
            total: self.total,
            max_cardinality: self.max_cardinality.zip(per_parent).map(|(a, b)| a.saturating_mul(b)),
            resource_root: structural::embedded_resource(child),
            uncorrelatable: self.uncorrelatable.clone(),
        }
    }

    /// `withForbidOldSelfValidations`: the highest such ancestor is kept.
    fn forbid_old_self(&mut self, path: &str) {
        self.uncorrelatable.get_or_insert_with(|| path.to_string());
    }

    /// The CEL errors of the node `schema` at `path`, whose schema errors are none.
    pub(super) fn errors(&self, schema: &Value, path: &str) -> Vec<FieldError> {
        let rules = compile::rules_of(schema);
        if rules.is_empty() {
            return Vec::new();
        }
        let at = |i: usize, key: &str| format!("{path}.x-kubernetes-validations[{i}].{key}");
        let compiled = match compile::compile_node(schema, self.resource_root) {
            Ok(compiled) => compiled,
            Err(why) => {
                let detail = format!(
                    "internal error: failed to construct type information for x-kubernetes-validations rules: {why}"
                );
                return vec![FieldError::invalid(
                    format!("{path}.x-kubernetes-validations"),
                    BadValue::Omit,
                    detail,
                )];
            }
        };
        let mut errors = Vec::new();
        for (i, (rule, result)) in rules.iter().zip(&compiled).enumerate() {
            let cost = match self.max_cardinality {
                Some(cardinality) => result.max_cost.saturating_mul(cardinality),
                None => result.max_cost.saturating_mul(result.max_cardinality),
            };
            if cost > RULE_COST_LIMIT {
                errors.push(FieldError::forbidden(
                    at(i, "rule"),
                    cost_message("estimated rule cost", cost, RULE_COST_LIMIT),
                ));
            }
            self.total.borrow_mut().observe(at(i, "rule"), cost);
            if let Some(CompileError::Invalid(detail)) = &result.error {
                errors.push(FieldError::invalid(
                    at(i, "rule"),
                    BadValue::Raw(go_rule(rule)),
                    detail.clone(),
                ));
            }
            match (&result.message_expression_error, result.message_expression_max_cost) {
                (Some(CompileError::Invalid(detail)), _) => {
                    errors.push(FieldError::invalid(
                        at(i, "messageExpression"),
                        BadValue::Raw(go_rule(rule)),
                        detail.clone(),
                    ));
                }
                (None, Some(cost)) => {
                    if cost > RULE_COST_LIMIT {
                        let message = cost_message("estimated messageExpression cost", cost, RULE_COST_LIMIT);
                        errors.push(FieldError::forbidden(at(i, "messageExpression"), message));
                    }
                    self.total.borrow_mut().observe(at(i, "messageExpression"), cost);
                }
                (None, None) => {}
            }
            if let (true, Some(ancestor)) = (result.transition, &self.uncorrelatable) {
                let detail =
                    format!("oldSelf cannot be used on the uncorrelatable portion of the schema within {ancestor}");
                errors.push(FieldError::invalid(
                    at(i, "rule"),
                    BadValue::from(compile::text(rule, "rule")),
                    detail,
                ));
            }
        }
        errors
    }
}

/// `extractMaxElements`: how many children a value of `schema` may have.
fn max_elements(schema: &Value) -> Option<u64> {
    let bound = |key: &str| structural::int(schema, key).map(|m| m.max(0) as u64);
    match schema.get("type").and_then(Value::as_str) {
        Some("object") if schema.get("additionalProperties").is_some_and(|a| !a.is_null()) => bound("maxProperties"),
        Some("array") => bound("maxItems"),
        _ => Some(1),
    }
}

/// `getCostErrorMessage`.
fn cost_message(name: &str, cost: u64, limit: u64) -> String {
    let factor = cost as f64 / limit as f64;
    let factor = if factor > 100.0 {
        "more than 100x".to_string()
    } else if factor < 1.5 {
        format!("{factor:.6}x")
    } else {
        format!("{factor:.1}x")
    };
    format!(
        "{name} exceeds budget by factor of {factor} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"
    )
}

/// A rule as Go's `%#v` prints the internal `ValidationRule`. A reason is a pointer Go prints
/// by address, which no answer can depend on: this server prints a fixed one.
pub(super) fn go_rule(rule: &Value) -> String {
    let text = |key: &str| go_quote(compile::text(rule, key));
    let reason = match rule.get("reason").and_then(Value::as_str) {
        Some(_) => "(*apiextensions.FieldValueErrorReason)(0xc000000000)",
        None => "(*apiextensions.FieldValueErrorReason)(nil)",
    };
    format!(
        "apiextensions.ValidationRule{{Rule:{}, Message:{}, MessageExpression:{}, Reason:{reason}, FieldPath:{}}}",
        text("rule"),
        text("message"),
        text("messageExpression"),
        text("fieldPath"),
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_rule_should_print_as_go_prints_the_internal_struct() {
        assert_eq!(
            go_rule(&json!({"rule": "self.min <"})),
            r#"apiextensions.ValidationRule{Rule:"self.min <", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:""}"#
        );
    }

    #[test]
    fn cost_messages_should_word_the_factor_as_go() {
        assert!(
            cost_message("estimated rule cost", 2_000_000_000, RULE_COST_LIMIT).contains("factor of more than 100x")
        );
        assert!(cost_message("estimated rule cost", 25_000_000, RULE_COST_LIMIT).contains("factor of 2.5x"));
        assert!(cost_message("estimated rule cost", 12_000_000, RULE_COST_LIMIT).contains("factor of 1.200000x"));
    }

    #[test]
    fn cardinality_should_multiply_down_bounded_collections_only() {
        let total = RefCell::new(TotalCost::default());
        let root = Context::root(&total);
        let list = json!({"type": "array", "maxItems": 5, "items": {"type": "string"}});
        let items = root.items(&list, "p", &list["items"]);
        assert_eq!(items.max_cardinality, Some(5));
        assert_eq!(items.uncorrelatable.as_deref(), Some("p"));
        let unbounded = json!({"type": "object", "additionalProperties": {"type": "string"}});
        assert_eq!(
            root.additional(&unbounded, &unbounded["additionalProperties"])
                .max_cardinality,
            None
        );
    }
}
