//! A CRD schema's CEL rules checked as apiextensions checks them when the CRD is written
//! (`pkg/apis/apiextensions/validation/validation.go`: the `x-kubernetes-validations` block of
//! `ValidateCustomResourceDefinitionOpenAPISchema`, `getExpressionCost`; `cel_validation.go`:
//! `CELSchemaContext`, `TotalCost`): compile errors, each rule's and message expression's
//! estimated cost times how often the node may occur, `oldSelf` where values do not
//! correlate, and the cost of all rules together. An update compiles the expressions the old
//! CRD held as stored ones (`findPreexistingExpressions`).

use std::cell::RefCell;

use serde_json::Value;

use super::internal::{Spec, has_keyword};
use crate::semantics::cel::compile::{self, CompileError};
use crate::semantics::cel::{Loader, Preexisting};
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
    /// Which environment each expression compiles in.
    loader: Loader<'t>,
    /// How many values of the node a request may hold; `None` when nothing bounds it.
    max_cardinality: Option<u64>,
    /// The CRD's root or an embedded resource.
    resource_root: bool,
    /// The first ancestor whose values cannot be matched with their old ones.
    uncorrelatable: Option<String>,
}

impl<'t> Context<'t> {
    /// `RootCELContext`.
    pub(super) fn root(total: &'t RefCell<TotalCost>, loader: Loader<'t>) -> Self {
        Self {
            total,
            loader,
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
            loader: self.loader,
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
        let minor = self.loader.server();
        let compiled = match compile::compile_node(schema, self.resource_root, self.loader) {
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
                    BadValue::Raw(go_rule(rule, minor)),
                    detail.clone(),
                ));
            }
            match (&result.message_expression_error, result.message_expression_max_cost) {
                (Some(CompileError::Invalid(detail)), _) => {
                    errors.push(FieldError::invalid(
                        at(i, "messageExpression"),
                        BadValue::Raw(go_rule(rule, minor)),
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
            match (
                result.transition,
                &self.uncorrelatable,
                compile::optional_old_self(rule, minor),
            ) {
                (true, Some(ancestor), _) => {
                    let detail =
                        format!("oldSelf cannot be used on the uncorrelatable portion of the schema within {ancestor}");
                    errors.push(FieldError::invalid(
                        at(i, "rule"),
                        BadValue::from(compile::text(rule, "rule")),
                        detail,
                    ));
                }
                // A rule that does not read `oldSelf` (or did not compile) may not say how to.
                (false, _, Some(optional)) => errors.push(FieldError::invalid(
                    at(i, "optionalOldSelf"),
                    BadValue::Json(Value::Bool(optional)),
                    "may not be set if oldSelf is not used in rule",
                )),
                _ => {}
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

/// `findPreexistingExpressions`: every rule and message expression of the CRD's schemas.
pub(super) fn preexisting(spec: &Spec<'_>) -> Preexisting {
    let found = RefCell::new(Preexisting::default());
    let collect = |schema: &Value| {
        let mut found = found.borrow_mut();
        for rule in compile::rules_of(schema) {
            found.rules.insert(compile::text(rule, "rule").to_owned());
            let message = compile::text(rule, "messageExpression");
            if !message.is_empty() {
                found.messages.insert(message.to_owned());
            }
        }
        false
    };
    for schema in spec.schemas() {
        has_keyword(schema, &collect);
    }
    found.into_inner()
}

/// A rule as Go's `%#v` prints the internal `ValidationRule` on a server of `minor` (which has
/// `OptionalOldSelf` from 1.29). A pointer Go prints by address, which no answer can depend
/// on: this server prints a fixed one.
pub(super) fn go_rule(rule: &Value, minor: u32) -> String {
    const ADDRESS: &str = "0xc000000000";
    let text = |key: &str| go_quote(compile::text(rule, key));
    let reason = match rule.get("reason").and_then(Value::as_str) {
        Some(_) => format!("(*apiextensions.FieldValueErrorReason)({ADDRESS})"),
        None => "(*apiextensions.FieldValueErrorReason)(nil)".to_owned(),
    };
    let optional_old_self = match (minor >= 29, compile::optional_old_self(rule, minor)) {
        (false, _) => String::new(),
        (true, None) => ", OptionalOldSelf:(*bool)(nil)".to_owned(),
        (true, Some(_)) => format!(", OptionalOldSelf:(*bool)({ADDRESS})"),
    };
    format!(
        "apiextensions.ValidationRule{{Rule:{}, Message:{}, MessageExpression:{}, Reason:{reason}, FieldPath:{}{optional_old_self}}}",
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
            go_rule(&json!({"rule": "self.min <"}), 28),
            r#"apiextensions.ValidationRule{Rule:"self.min <", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:""}"#
        );
        assert!(go_rule(&json!({"rule": "x"}), 31).ends_with(r#"FieldPath:"", OptionalOldSelf:(*bool)(nil)}"#));
        let optional = json!({"rule": "x", "optionalOldSelf": true});
        assert!(go_rule(&optional, 31).ends_with("OptionalOldSelf:(*bool)(0xc000000000)}"));
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
    fn an_update_should_compile_the_rules_the_old_crd_held_as_stored_expressions() {
        let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}},
            "x-kubernetes-validations": [{"rule": "self.n < 1.5"}]});
        let total = RefCell::new(TotalCost::default());
        // 1.28 compiles a new rule at 1.27, without cross-type comparisons.
        let new = Context::root(&total, Loader::New(28)).errors(&schema, "s");
        assert!(
            new.iter()
                .any(|e| e.to_string().contains("'_<_' applied to '(int, double)'")),
            "{new:?}"
        );
        let old = Preexisting {
            rules: ["self.n < 1.5".to_owned()].into(),
            messages: Default::default(),
        };
        assert!(
            Context::root(&total, Loader::Update(28, &old))
                .errors(&schema, "s")
                .is_empty()
        );
        // 1.31 compiles a new rule at 1.30, which has them.
        assert!(Context::root(&total, Loader::New(31)).errors(&schema, "s").is_empty());
    }

    #[test]
    fn optional_old_self_should_need_a_rule_reading_old_self_from_1_30() {
        let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}},
            "x-kubernetes-validations": [{"rule": "self.n > 0", "optionalOldSelf": true}]});
        let total = RefCell::new(TotalCost::default());
        let errors = Context::root(&total, Loader::New(31)).errors(&schema, "s");
        assert_eq!(
            errors.iter().map(ToString::to_string).collect::<Vec<_>>(),
            [
                "s.x-kubernetes-validations[0].optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule"
            ]
        );
        assert!(Context::root(&total, Loader::New(28)).errors(&schema, "s").is_empty());
    }

    #[test]
    fn cardinality_should_multiply_down_bounded_collections_only() {
        let total = RefCell::new(TotalCost::default());
        let root = Context::root(&total, Loader::New(28));
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
