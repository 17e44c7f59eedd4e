//! Compiling a schema node's rules, as `Compile` and `compileRule` do
//! (`apiextensions-apiserver/pkg/apiserver/schema/cel/compilation.go`): parse, check with
//! `self` and `oldSelf` of the node's type (`oldSelf` optional where the rule says
//! `optionalOldSelf`), each expression in the environment its loader picks, require a bool (a
//! string for `messageExpression`), estimate the cost, and build the program the validator runs.

use std::collections::HashSet;
use std::sync::{Arc, OnceLock};

use cel::common::ast::IdedExpr;
use cel::parser::Parser;
use serde_json::Value;

use super::ast_validators;
use super::checker::{self, Reference};
use super::cost;
use super::decl_type::{self, DeclType, MAX_REQUEST_SIZE_BYTES};
use super::environment::{Environment, Library};
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

/// Which environment each expression compiles in (`EnvLoader`).
#[derive(Clone, Copy)]
pub(crate) enum Loader<'p> {
    /// `NewExpressionsEnvLoader`: a CRD being created, on a server of this minor.
    New(u32),
    /// `StoredExpressionsEnvLoader`: the rules objects are validated with.
    Stored(u32),
    /// An update of a CRD (`preexistingExpressions`): what the old CRD held is stored.
    Update(u32, &'p Preexisting),
}

/// The rules and message expressions a CRD held before an update, anywhere in its schemas.
#[derive(Debug, Default)]
pub(crate) struct Preexisting {
    pub(crate) rules: HashSet<String>,
    pub(crate) messages: HashSet<String>,
}

impl Loader<'_> {
    /// The minor of the server.
    pub(crate) fn server(self) -> u32 {
        match self {
            Loader::New(minor) | Loader::Stored(minor) | Loader::Update(minor, _) => minor,
        }
    }

    fn env(self, stored: impl Fn(&Preexisting) -> bool) -> Environment {
        match self {
            Loader::Stored(minor) => Environment::stored_expressions(minor),
            Loader::Update(minor, old) if stored(old) => Environment::stored_expressions(minor),
            other => Environment::new_expressions(other.server()),
        }
    }

    /// `RuleEnv`.
    fn rule_env(self, rule: &str) -> Environment {
        self.env(|old| old.rules.contains(rule))
    }

    /// `MessageExpressionEnv`.
    fn message_env(self, message: &str) -> Environment {
        self.env(|old| old.messages.contains(message))
    }
}

/// The rules of the schema node `schema` (`resource_root`: the CRD's root or an embedded
/// resource), compiled in order; empty when the node has none.
pub(crate) fn compile_node(
    schema: &Value,
    resource_root: bool,
    loader: Loader<'_>,
) -> Result<Vec<CompiledRule>, String> {
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
        .map(|rule| compile_rule(schema, rule, &decl, max_cardinality, loader))
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

/// A rule's `optionalOldSelf`, which a server heeds once validation ratcheting is on by
/// default (1.30; 1.28's internal type has no such field, 1.29's drops it with the gate off).
pub(crate) fn optional_old_self(rule: &Value, server: u32) -> Option<bool> {
    rule.get("optionalOldSelf")
        .and_then(Value::as_bool)
        .filter(|_| server >= 30)
}

fn compile_rule(
    schema: &Value,
    rule: &Value,
    decl: &Arc<DeclType>,
    max_cardinality: u64,
    loader: Loader<'_>,
) -> CompiledRule {
    let mut compiled = CompiledRule::default();
    let source = text(rule, "rule");
    if source.trim().is_empty() {
        return compiled;
    }
    let optional_old_self = optional_old_self(rule, loader.server()) == Some(true);
    let variables = Variables {
        decl,
        optional_old_self,
    };
    let checked = match check(source, &variables, loader.rule_env(source)) {
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
        match check(message_expression, &variables, loader.message_env(message_expression)) {
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

/// The parser of `env`: with optional types, their syntax and their `optMap` and `optFlatMap`
/// macros, which the `cel` crate's environment has (it binds a target that is not an
/// identifier to a variable, where cel-go repeats it: the type is the same).
pub(crate) fn parser(env: Environment) -> Parser {
    static OPTIONAL: OnceLock<cel::Env> = OnceLock::new();
    if env.has(Library::OptionalTypes) {
        OPTIONAL.get_or_init(cel::Env::stdlib).parser()
    } else {
        Parser::default()
    }
}

/// What `self` and `oldSelf` are.
struct Variables<'d> {
    decl: &'d Arc<DeclType>,
    optional_old_self: bool,
}

/// Parses and checks `source` in `env` (the optional syntax only where optional types are);
/// the error is cel-go's display of it.
fn check(source: &str, variables: &Variables<'_>, env: Environment) -> Result<CheckedExpression, String> {
    let decl = variables.decl;
    let self_type = decl.cel_type();
    let (expr, info) = parser(env)
        .parse_with_source_info(source)
        .map_err(|errors| issues::display(source, &issues::from_parse(&errors)))?;
    let old_self = if variables.optional_old_self {
        Type::optional(self_type.clone())
    } else {
        self_type.clone()
    };
    let declared = [("self", self_type), ("oldSelf", old_self)];
    // The environment's AST validators look at what checked.
    let checked = checker::check(&expr, &info, source, &declared, env)
        .and_then(|checked| ast_validators::validated(&expr, &info, source, checked, env))
        .map_err(|found| issues::display(source, &found))?;
    let reads_old_self = checked
        .references
        .values()
        .any(|r| *r == Reference::Ident("oldSelf".into()));
    let cost = cost::estimate(&expr, &checked, decl, env);
    Ok(CheckedExpression {
        result: checked.type_of(expr.id),
        reads_old_self,
        cost,
    })
}
