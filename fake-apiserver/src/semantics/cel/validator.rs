//! Evaluating a CRD's rules on a write, as the `Validator` of
//! `apiextensions-apiserver/pkg/apiserver/schema/cel/validation.go` does: every node's rules
//! with `self` (and `oldSelf` for transition rules, on updates, where the old value
//! correlates: same property, same map key, same list-map item), in schema order, failures
//! worded with the rule's message, `messageExpression`, `reason` and `fieldPath`.

use std::collections::BTreeMap;

use cel::common::types::CelOptional;
use cel::common::value::Val;
use cel::{Context, Value as Cel};
use serde_json::Value;

use super::compile::{self, CompiledRule};
use super::runtime_library::{self, go_error_text};
use super::values;
use crate::semantics::field_error::{BadValue, ErrorType, FieldError};
use crate::semantics::schema::correlation::{self, Correlated};
use crate::semantics::schema::structural;

/// The longest message a `messageExpression` may produce (`MaxEvaluatedMessageExpressionSizeBytes`).
const MAX_MESSAGE_BYTES: usize = 5 * 1024;

/// The compiled rules of a schema, node by node (`NewValidator`).
#[derive(Default)]
pub(crate) struct Validator {
    /// The minor of the server.
    minor: u32,
    rules: Vec<(Value, CompiledRule)>,
    compile_error: Option<String>,
    resource_root: bool,
    items: Option<Box<Validator>>,
    properties: BTreeMap<String, Validator>,
    additional: Option<Box<Validator>>,
}

impl std::fmt::Debug for Validator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Validator")
            .field("rules", &self.rules.len())
            .finish_non_exhaustive()
    }
}

/// The validator of a CRD version's schema on a server of `minor`, `None` when no node has
/// rules. Every rule is compiled as a stored expression.
pub(crate) fn build(schema: &Value, minor: u32) -> Option<Validator> {
    has_rules(schema).then(|| node(schema, true, minor))
}

fn has_rules(schema: &Value) -> bool {
    !compile::rules_of(schema).is_empty()
        || structural::items(schema).is_some_and(has_rules)
        || structural::additional(schema).is_some_and(has_rules)
        || schema
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|p| p.values().any(has_rules))
}

fn node(schema: &Value, resource_root: bool, minor: u32) -> Validator {
    let (rules, compile_error) = match compile::compile_node(schema, resource_root, compile::Loader::Stored(minor)) {
        Ok(compiled) => (compile::rules_of(schema).iter().cloned().zip(compiled).collect(), None),
        Err(error) => (Vec::new(), Some(error)),
    };
    let child = |s: &Value| has_rules(s).then(|| Box::new(node(s, structural::embedded_resource(s), minor)));
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter(|(_, p)| has_rules(p))
        .map(|(name, p)| (name.clone(), node(p, structural::embedded_resource(p), minor)))
        .collect();
    Validator {
        minor,
        rules,
        compile_error,
        resource_root,
        items: structural::items(schema).and_then(child),
        properties,
        additional: structural::additional(schema).and_then(child),
    }
}

/// Where a value is, and the value it had before (on an update, when it correlates).
pub(crate) struct At<'a> {
    pub(crate) path: String,
    pub(crate) schema: &'a Value,
    pub(crate) value: &'a Value,
    pub(crate) old: Option<&'a Value>,
    pub(crate) ratchet: Ratchet<'a>,
}

/// `ratchetingOptions`: the node of the update's correlation a failure is ratcheted by
/// (from 1.30, on updates of the object): the node itself when it correlates, else its
/// nearest correlated ancestor, whose unchanged value turns a failure into a warning.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Ratchet<'a> {
    /// No ratcheting: a create, a `/status` write, or below the type meta of the root.
    Off,
    /// The node correlates.
    Current(Correlated<'a>),
    /// The node does not correlate; this is its nearest ancestor that does.
    Below(Correlated<'a>),
}

impl<'a> Ratchet<'a> {
    /// `key`: the property `field` (`root`: of the resource, whose type meta never ratchets).
    fn key(self, field: &str, root: bool) -> Self {
        match self {
            Self::Current(_) if root && (field == "apiVersion" || field == "kind") => Self::Off,
            Self::Current(node) => node.key(field).map_or(Self::Below(node), Self::Current),
            other => other,
        }
    }

    /// `index`: the list item `i`.
    fn index(self, i: usize) -> Self {
        match self {
            Self::Current(node) => node.index(i).map_or(Self::Below(node), Self::Current),
            other => other,
        }
    }

    /// `shouldRatchetError`.
    fn applies(self) -> bool {
        match self {
            Self::Off => false,
            Self::Current(node) | Self::Below(node) => node.unchanged(),
        }
    }
}

/// What a validation found: the failures, and those ratcheted (kube-apiserver answers them
/// as warnings).
#[derive(Debug, Default)]
pub(crate) struct Found {
    pub(crate) errors: Vec<FieldError>,
    pub(crate) ratcheted: Vec<FieldError>,
}

impl Validator {
    /// `hasBlockingErr` of the custom resource strategy: whether `errors` keep the rules from
    /// running, as they would read values of the wrong shape. 1.31 counts a value outside an
    /// `enum` too (1.28 does not).
    pub(crate) fn blocked_by(&self, errors: &[FieldError]) -> bool {
        let blocking = |kind: ErrorType| match kind {
            ErrorType::Required | ErrorType::TooLong | ErrorType::TooMany | ErrorType::TypeInvalid => true,
            ErrorType::NotSupported => self.minor >= 31,
            _ => false,
        };
        errors.iter().any(|e| blocking(e.kind))
    }

    /// `Validate`: the failures of every rule of this node and below, in kube-apiserver's order.
    pub(crate) fn validate(&self, at: &At<'_>) -> Found {
        let mut found = Found::default();
        self.walk(at, &mut found);
        found
    }

    fn walk(&self, at: &At<'_>, found: &mut Found) {
        if at.value.is_null() {
            return;
        }
        self.validate_expressions(at, found);
        match at.value {
            Value::Array(items) => {
                if let (Some(validator), Some(items_schema)) = (&self.items, structural::items(at.schema)) {
                    for (i, item) in items.iter().enumerate() {
                        let old = at
                            .old
                            .and_then(Value::as_array)
                            .and_then(|old| correlation::map_list_item(at.schema, old, item));
                        let path = format!("{}[{i}]", at.path);
                        validator.walk(
                            &At {
                                path,
                                schema: items_schema,
                                value: item,
                                old,
                                ratchet: at.ratchet.index(i),
                            },
                            found,
                        );
                    }
                }
            }
            Value::Object(fields) => {
                let correlatable = map_correlatable(at.schema);
                let old_field = |key: &str| {
                    if correlatable {
                        at.old.and_then(|o| o.get(key))
                    } else {
                        None
                    }
                };
                let root = at.path == "<nil>";
                if let (Some(validator), Some(additional)) = (&self.additional, structural::additional(at.schema)) {
                    for (key, value) in fields {
                        let path = format!("{}[{key}]", at.path);
                        validator.walk(
                            &At {
                                path,
                                schema: additional,
                                value,
                                old: old_field(key),
                                ratchet: at.ratchet.key(key, root),
                            },
                            found,
                        );
                    }
                }
                for (key, value) in fields {
                    let (Some(validator), Some(prop)) =
                        (self.properties.get(key), structural::property(at.schema, key))
                    else {
                        continue;
                    };
                    let path = child(&at.path, key);
                    validator.walk(
                        &At {
                            path,
                            schema: prop,
                            value,
                            old: old_field(key),
                            ratchet: at.ratchet.key(key, root),
                        },
                        found,
                    );
                }
            }
            _ => {}
        }
    }

    /// `validateExpressions`: this node's rules.
    fn validate_expressions(&self, at: &At<'_>, found: &mut Found) {
        let node_type = BadValue::from(at.schema.get("type").and_then(Value::as_str).unwrap_or_default());
        if let Some(error) = &self.compile_error {
            let detail = format!("rule compiler initialization error: {error}");
            found.errors.push(FieldError::invalid(&at.path, node_type, detail));
            return;
        }
        if self.rules.is_empty() {
            return;
        }
        let convert = |v: &Value| {
            if self.resource_root {
                values::resource_to_cel(v, at.schema)
            } else {
                values::to_cel(v, at.schema)
            }
        };
        let mut context = Context::with_env(runtime_library::shared_env().clone());
        context.add_variable_from_value("self", convert(at.value).unwrap_or(Cel::Null));
        let old = at.old.filter(|o| !o.is_null()).and_then(convert);
        if let Some(old) = &old {
            context.add_variable_from_value("oldSelf", old.clone());
        }
        let errors = &mut found.errors;
        for (rule, compiled) in &self.rules {
            if let Some(error) = &compiled.error {
                errors.push(FieldError::invalid(
                    &at.path,
                    node_type.clone(),
                    format!("rule compile error: {}", error.detail()),
                ));
                continue;
            }
            let Some(program) = &compiled.program else { continue };
            // `optionalOldSelf`: the rule runs on a create too, `oldSelf` an optional.
            let optional_old_self = compile::optional_old_self(rule, self.minor) == Some(true);
            if compiled.transition && old.is_none() && !optional_old_self {
                continue;
            }
            let mut optional_scope = context.new_inner_scope();
            if optional_old_self {
                let old_self = match old.clone().map(Box::<dyn Val>::try_from) {
                    Some(Ok(old)) => CelOptional::of(old),
                    _ => CelOptional::none(),
                };
                optional_scope.add_variable_as_val("oldSelf", Box::new(old_self));
            }
            match Cel::resolve(program, &optional_scope) {
                Ok(Cel::Bool(true)) => {}
                Ok(_) => {
                    let failure = self.failure(at, rule, compiled, &context, &node_type);
                    // A rule that does not read `oldSelf` does not hold an unchanged value back.
                    if !compiled.transition && at.ratchet.applies() {
                        found.ratcheted.push(failure);
                    } else {
                        errors.push(failure);
                    }
                }
                Err(error) => {
                    let text = go_error_text(&error);
                    let shown = rule_error_string(rule);
                    let detail = if text.starts_with("no such overload") {
                        format!(
                            "'{text}': call arguments did not match a supported operator, function or macro signature for rule: {shown}"
                        )
                    } else {
                        format!("{text} evaluating rule: {shown}")
                    };
                    errors.push(FieldError::invalid(&at.path, node_type.clone(), detail));
                }
            }
        }
    }

    /// The error of a rule that evaluated to false: at its `fieldPath`, of its `reason`,
    /// worded by its `messageExpression` when that gives a usable message, else its message.
    fn failure(
        &self,
        at: &At<'_>,
        rule: &Value,
        compiled: &CompiledRule,
        context: &Context<'_, '_>,
        node_type: &BadValue,
    ) -> FieldError {
        let path = match &compiled.field_path {
            Some(field_path) if !field_path.is_empty() => child(&at.path, field_path),
            _ => at.path.clone(),
        };
        let message = compiled
            .message_program
            .as_ref()
            .and_then(|program| match Cel::resolve(program, context) {
                Ok(Cel::String(s)) => Some(s.trim().to_string()),
                _ => None,
            })
            .filter(|m| !m.is_empty() && m.len() <= MAX_MESSAGE_BYTES && !m.contains('\n'))
            .unwrap_or_else(|| message_or_default(rule));
        match compile::text(rule, "reason") {
            "FieldValueForbidden" => FieldError::forbidden(path, message),
            "FieldValueRequired" => FieldError::required(path, message),
            "FieldValueDuplicate" => FieldError::duplicate(path, node_type.clone()),
            _ => FieldError::invalid(path, node_type.clone(), message),
        }
    }
}

/// `ruleMessageOrDefault`.
fn message_or_default(rule: &Value) -> String {
    match compile::text(rule, "message") {
        "" => format!("failed rule: {}", rule_error_string(rule)),
        message => message.trim().to_string(),
    }
}

/// `ruleErrorString`: the message, else the rule.
fn rule_error_string(rule: &Value) -> String {
    match compile::text(rule, "message") {
        "" => compile::text(rule, "rule").trim().to_string(),
        message => message.trim().to_string(),
    }
}

/// `fldPath.Child(name)`, from the root's `<nil>`.
fn child(path: &str, name: &str) -> String {
    if path.is_empty() || path == "<nil>" {
        name.to_string()
    } else {
        format!("{path}.{name}")
    }
}

/// `MapIsCorrelatable`: maps are, unless `x-kubernetes-map-type` says otherwise.
fn map_correlatable(schema: &Value) -> bool {
    matches!(
        schema.get("x-kubernetes-map-type").and_then(Value::as_str),
        None | Some("granular" | "atomic")
    )
}
