//! Compiling a schema node's rules, as `Compile` and `compileRule` do
//! (`apiextensions-apiserver/pkg/apiserver/schema/cel/compilation.go`): parse, check with
//! `self` and `oldSelf` of the node's type, require a bool (a string for `messageExpression`),
//! estimate the cost, and build the program the validator runs.

use std::sync::Arc;

use cel::common::ast::IdedExpr;
use cel::parser::Parser;
use serde_json::Value;

use super::checker::{self, Reference};
use super::cost;
use super::decl_type::{self, DeclType, MAX_REQUEST_SIZE_BYTES};
use super::field_path;
use super::issues;
use super::list_equality;
use super::runtime_library;
use super::types::Type;

/// The name kube-apiserver gives `self`'s object type: `selfType` and the nanoseconds of the
/// clock, which no answer can depend on; this server uses zero.
const SELF_TYPE_NAME: &str = "selfType0";

/// Why a rule or its message expression did not compile (`apiservercel.Error`'s type).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum CompileError {
    /// `field.Invalid` with the rule as the value.
    Invalid(String),
}

impl CompileError {
    pub(crate) fn detail(&self) -> &str {
        match self {
            CompileError::Invalid(detail) => detail,
        }
    }
}

/// One compiled rule (`CompilationResult`).
#[derive(Default)]
pub(crate) struct CompiledRule {
    pub(crate) error: Option<CompileError>,
    pub(crate) message_expression_error: Option<CompileError>,
    /// The rule reads `oldSelf`, so it runs on updates only.
    pub(crate) transition: bool,
    pub(crate) max_cost: u64,
    /// How many values of this node a request may hold, bounded by their smallest size.
    pub(crate) max_cardinality: u64,
    pub(crate) message_expression_max_cost: Option<u64>,
    /// The rule as it runs: parsed with the runtime's macros, unordered-list comparisons
    /// rewritten.
    pub(crate) program: Option<IdedExpr>,
    pub(crate) message_program: Option<IdedExpr>,
    /// `fieldPath`, normalized (`.a['b']` is `a.b`), when it names a field of the node.
    pub(crate) field_path: Option<String>,
}

/// The rules of the schema node `schema` (`resource_root`: the CRD's root or an embedded
/// resource), compiled in order; empty when the node has none.
pub(crate) fn compile_node(schema: &Value, resource_root: bool) -> Result<Vec<CompiledRule>, String> {
    let rules = rules_of(schema);
    if rules.is_empty() {
        return Ok(Vec::new());
    }
    let decl = decl_type::schema_decl_type(schema, resource_root, SELF_TYPE_NAME)
        .ok_or_else(|| "unable to convert structural schema to CEL declarations".to_string())?;
    // Every value is at least its smallest serialization and a comma.
    let max_cardinality = (MAX_REQUEST_SIZE_BYTES / (decl.min_serialized_size + 1)) as u64;
    Ok(rules
        .iter()
        .map(|rule| compile_rule(schema, rule, &decl, max_cardinality))
        .collect())
}

/// The `x-kubernetes-validations` of a schema node.
pub(crate) fn rules_of(schema: &Value) -> &[Value] {
    schema
        .get("x-kubernetes-validations")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// A text field of a rule (`rule`, `message`, `messageExpression`, `fieldPath`, `reason`).
pub(crate) fn text<'r>(rule: &'r Value, key: &str) -> &'r str {
    rule.get(key).and_then(Value::as_str).unwrap_or_default()
}

fn compile_rule(schema: &Value, rule: &Value, decl: &Arc<DeclType>, max_cardinality: u64) -> CompiledRule {
    let mut compiled = CompiledRule::default();
    let source = text(rule, "rule");
    if source.trim().is_empty() {
        return compiled;
    }
    let checked = match check(source, decl) {
        Ok(checked) => checked,
        Err(detail) => {
            compiled.error = Some(CompileError::Invalid(format!("compilation failed: {detail}")));
            return compiled;
        }
    };
    if checked.result != Type::Bool {
        compiled.error = Some(CompileError::Invalid("cel expression must evaluate to a bool".into()));
        return compiled;
    }
    compiled.transition = checked.reads_old_self;
    match runtime_library::shared_env().parser().parse(source) {
        Ok(mut program) => {
            list_equality::rewrite(&mut program, decl);
            compiled.program = Some(program);
        }
        Err(errors) => {
            compiled.error = Some(CompileError::Invalid(format!("program instantiation failed: {errors}")));
            return compiled;
        }
    }
    compiled.max_cost = checked.cost.max;
    compiled.max_cardinality = max_cardinality;
    let message_expression = text(rule, "messageExpression");
    if !message_expression.is_empty() {
        match check(message_expression, decl) {
            Err(detail) => {
                compiled.message_expression_error = Some(CompileError::Invalid(format!(
                    "messageExpression compilation failed: {detail}"
                )));
                return compiled;
            }
            Ok(checked) if checked.result != Type::String => {
                compiled.message_expression_error = Some(CompileError::Invalid(
                    "messageExpression must evaluate to a string".into(),
                ));
                return compiled;
            }
            Ok(checked) => {
                compiled.message_program = runtime_library::shared_env()
                    .parser()
                    .parse(message_expression)
                    .ok()
                    .map(|mut program| {
                        list_equality::rewrite(&mut program, decl);
                        program
                    });
                compiled.message_expression_max_cost = Some(checked.cost.max);
            }
        }
    }
    let path = text(rule, "fieldPath");
    if !path.is_empty() {
        compiled.field_path = field_path::normalize(path, schema).ok();
    }
    compiled
}

/// What checking an expression found.
struct CheckedExpression {
    result: Type,
    reads_old_self: bool,
    cost: cost::CostEstimate,
}

/// Parses and checks `source` as a new expression (no optional syntax: kube-apiserver 1.28
/// compiles new rules at compatibility version 1.27); the error is cel-go's display of it.
fn check(source: &str, decl: &Arc<DeclType>) -> Result<CheckedExpression, String> {
    let self_type = decl.cel_type();
    let (expr, info) = Parser::default()
        .parse_with_source_info(source)
        .map_err(|errors| issues::display(source, &issues::from_parse(&errors)))?;
    let variables = [("self", self_type.clone()), ("oldSelf", self_type.clone())];
    let checked = checker::check(&expr, &info, source, &variables).map_err(|found| issues::display(source, &found))?;
    let reads_old_self = checked
        .references
        .values()
        .any(|r| *r == Reference::Ident("oldSelf".into()));
    let cost = cost::estimate(&expr, &checked, decl);
    Ok(CheckedExpression {
        result: checked.type_of(expr.id),
        reads_old_self,
        cost,
    })
}
