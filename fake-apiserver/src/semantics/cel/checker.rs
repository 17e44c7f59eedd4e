//! The type checker of a parsed rule, cel-go's `checker/checker.go` (v0.16.1 for 1.28, v0.20.1
//! for 1.31) over the `cel` crate's AST: identifiers, field selection on the schema's object
//! types, optional field selection, overload resolution with type parameters (calls are in
//! [`super::checker_calls`]), homogeneous list and map literals, and the comprehensions macros
//! expand to. Its types and references feed the cost estimator.

use std::collections::HashMap;

use cel::common::ast::{EntryExpr, Expr, IdedExpr, LiteralValue, SourceInfo};

use super::declarations::{Declarations, declarations};
use super::environment::{CelGo, Environment};
use super::issues::{self, Issue};
use super::types::{CelTypeName, Mapping, Type, is_assignable, most_general, substitute};

/// What an identifier or a call resolved to.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Reference {
    Ident(String),
    /// The overloads a call may take, by id.
    Function(Vec<String>),
}

/// A checked expression's types and references, by expression id.
#[derive(Debug, Default)]
pub(crate) struct Checked {
    pub(crate) types: HashMap<u64, Type>,
    pub(crate) references: HashMap<u64, Reference>,
    /// The calls of a namespaced function (`sets.contains(a, b)`), by the function's name:
    /// cel-go drops their target, which is the namespace, not an operand.
    pub(crate) namespaced: HashMap<u64, String>,
}

impl Checked {
    /// The type of the expression `id` (`<nil>` when none was recorded).
    pub(crate) fn type_of(&self, id: u64) -> Type {
        self.types.get(&id).cloned().unwrap_or(Type::Unknown)
    }
}

/// Checks `expr`, parsed from `source`, with the `variables` declared, in `env`.
pub(crate) fn check(
    expr: &IdedExpr,
    source_info: &SourceInfo,
    source: &str,
    variables: &[(&str, Type)],
    env: Environment,
) -> Result<Checked, Vec<Issue>> {
    let mut checker = Checker {
        source,
        source_info,
        cel_go: env.cel_go(),
        declarations: declarations(env),
        variables: variables.iter().map(|(n, t)| (n.to_string(), t.clone())).collect(),
        scopes: Vec::new(),
        mappings: Mapping::default(),
        free_vars: 0,
        checked: Checked::default(),
        issues: Vec::new(),
    };
    checker.check(expr);
    if !checker.issues.is_empty() {
        return Err(checker.issues);
    }
    let mappings = checker.mappings;
    let mut checked = checker.checked;
    for t in checked.types.values_mut() {
        *t = substitute(&mappings, t, true);
    }
    Ok(checked)
}

pub(super) struct Checker<'a> {
    source: &'a str,
    source_info: &'a SourceInfo,
    pub(super) cel_go: CelGo,
    pub(super) declarations: &'static Declarations,
    variables: HashMap<String, Type>,
    /// Comprehension variables, innermost last.
    scopes: Vec<(String, Type)>,
    pub(super) mappings: Mapping,
    free_vars: usize,
    pub(super) checked: Checked,
    issues: Vec<Issue>,
}

impl Checker<'_> {
    pub(super) fn check(&mut self, e: &IdedExpr) {
        match &e.expr {
            Expr::Literal(literal) => {
                let t = match literal {
                    LiteralValue::Boolean(_) => Type::Bool,
                    LiteralValue::Bytes(_) => Type::Bytes,
                    LiteralValue::Double(_) => Type::Double,
                    LiteralValue::Int(_) => Type::Int,
                    LiteralValue::Null => Type::Null,
                    LiteralValue::String(_) => Type::String,
                    LiteralValue::UInt(_) => Type::Uint,
                };
                self.set_type(e, t);
            }
            Expr::Ident(name) => self.check_ident(e, name),
            Expr::Select(select) => {
                // `checkSelect` first tries the whole chain as a qualified name: a variable
                // such as `authorizer.requestResource`.
                if !select.test
                    && let Some(name) = qualified_name(e)
                    && let Some(t) = self.variables.get(&name).cloned()
                {
                    self.set_type(e, t);
                    self.checked.references.insert(e.id, Reference::Ident(name));
                    return;
                }
                let mut t = self.check_select_field(e, &select.operand, &select.field, false);
                if select.test {
                    t = Type::Bool;
                }
                let t = substitute(&self.mappings, &t, false);
                self.set_type(e, t);
            }
            Expr::Call(call) => self.check_call(e, &call.func_name, call.target.as_deref(), &call.args),
            Expr::List(list) => {
                let mut elems: Option<Type> = None;
                for (i, element) in list.elements.iter().enumerate() {
                    self.check(element);
                    let mut t = self.type_of(element);
                    if list.optional_indices.contains(&i) {
                        t = self.unwrap_optional_entry(element, t);
                    }
                    elems = Some(self.join_types(element, elems, t));
                }
                let elems = elems.unwrap_or_else(|| self.new_type_var());
                self.set_type(e, Type::list(elems));
            }
            Expr::Map(map) => {
                let (mut keys, mut values): (Option<Type>, Option<Type>) = (None, None);
                for entry in &map.entries {
                    let EntryExpr::MapEntry(entry) = &entry.expr else {
                        continue;
                    };
                    self.check(&entry.key);
                    let key = self.type_of(&entry.key);
                    keys = Some(self.join_types(&entry.key, keys, key));
                    self.check(&entry.value);
                    let mut value = self.type_of(&entry.value);
                    if entry.optional {
                        value = self.unwrap_optional_entry(&entry.value, value);
                    }
                    values = Some(self.join_types(&entry.value, values, value));
                }
                let t = match (keys, values) {
                    (Some(k), Some(v)) => Type::map(k, v),
                    _ => Type::map(self.new_type_var(), self.new_type_var()),
                };
                self.set_type(e, t);
            }
            Expr::Struct(create) => {
                // No message type is declared to a CRD rule. v0.20 gives up on the literal
                // there; v0.16 checks its fields first and records no type.
                if self.cel_go == CelGo::V020 {
                    self.set_type(e, Type::Error);
                    let message = format!("undeclared reference to '{}' (in container '')", create.type_name);
                    return self.report(e, message);
                }
                for entry in &create.entries {
                    if let EntryExpr::StructField(field) = &entry.expr {
                        self.check(&field.value);
                    }
                }
                self.report(
                    e,
                    format!("undeclared reference to '{}' (in container '')", create.type_name),
                );
            }
            Expr::Comprehension(comp) => {
                self.check(&comp.iter_range);
                self.check(&comp.accu_init);
                let accu = self.type_of(&comp.accu_init);
                let range = substitute(&self.mappings, &self.type_of(&comp.iter_range), false);
                let var = match &range {
                    Type::List(elem) => (**elem).clone(),
                    Type::Map(key, _) => (**key).clone(),
                    Type::Dyn | Type::Error | Type::Param(_) => {
                        self.assignable(&Type::Dyn, &range);
                        Type::Dyn
                    }
                    other => {
                        let message = format!(
                            "expression of type '{}' cannot be range of a comprehension (must be list, map, or dynamic)",
                            self.spell(other)
                        );
                        self.report(&comp.iter_range, message);
                        Type::Error
                    }
                };
                self.scopes.push((comp.accu_var.clone(), accu.clone()));
                self.scopes.push((comp.iter_var.clone(), var));
                self.check(&comp.loop_cond);
                self.assert_type(&comp.loop_cond, &Type::Bool);
                self.check(&comp.loop_step);
                self.assert_type(&comp.loop_step, &accu);
                self.scopes.pop();
                self.check(&comp.result);
                self.scopes.pop();
                let t = substitute(&self.mappings, &self.type_of(&comp.result), false);
                self.set_type(e, t);
            }
            Expr::Unspecified => {}
        }
    }

    fn check_ident(&mut self, e: &IdedExpr, name: &str) {
        let found = self
            .scopes
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, t)| t.clone())
            .or_else(|| self.variables.get(name).cloned())
            .or_else(|| self.declarations.ident(name));
        match found {
            Some(t) => {
                self.set_type(e, t);
                self.checked.references.insert(e.id, Reference::Ident(name.to_string()));
            }
            None => {
                self.set_type(e, Type::Error);
                self.report(e, format!("undeclared reference to '{name}' (in container '')"));
            }
        }
    }

    /// `checkSelectField`: the type of `operand.field` (`operand.?field` when `optional`).
    pub(super) fn check_select_field(&mut self, e: &IdedExpr, operand: &IdedExpr, field: &str, optional: bool) -> Type {
        self.check(operand);
        let operand_type = substitute(&self.mappings, &self.type_of(operand), false);
        let (target, selects_optional) = operand_type.unwrap_optional();
        let result = match target {
            Type::Map(_, value) => (**value).clone(),
            Type::Object(decl) => match decl.field(field) {
                Some(field_type) => field_type.cel_type(),
                None => {
                    self.report(e, format!("undefined field '{field}'"));
                    Type::Error
                }
            },
            // A library's object type is not known to the type provider.
            Type::Named(name) => {
                self.report(e, format!("unexpected failed resolution of '{name}'"));
                Type::Error
            }
            Type::Param(_) => {
                let target = target.clone();
                self.assignable(&Type::Dyn, &target);
                Type::Dyn
            }
            other => {
                if !other.is_dyn_or_error() {
                    let shown = match self.cel_go {
                        CelGo::V016 => proto_text(other),
                        CelGo::V020 => CelTypeName(other).to_string(),
                    };
                    self.report(e, format!("type '{shown}' does not support field selection"));
                }
                Type::Dyn
            }
        };
        if optional || selects_optional {
            Type::optional(result)
        } else {
            result
        }
    }

    /// An element of a list or a map value given with `?`: it must be an optional (or `dyn`),
    /// whose value joins the others.
    fn unwrap_optional_entry(&mut self, e: &IdedExpr, t: Type) -> Type {
        let (inner, was_optional) = t.unwrap_optional();
        let inner = inner.clone();
        if !was_optional && !inner.is_dyn() {
            let message = format!(
                "expected type '{}' but found '{}'",
                self.spell(&Type::optional(inner.clone())),
                self.spell(&inner)
            );
            self.report(e, message);
        }
        inner
    }

    /// `joinTypes`: v0.16's checker refuses mixed literals itself (Kubernetes sets
    /// `HomogeneousAggregateLiterals`); v0.20's makes them `dyn`, and leaves refusing them to the
    /// validator that option has become.
    fn join_types(&mut self, at: &IdedExpr, previous: Option<Type>, current: Type) -> Type {
        let Some(previous) = previous else { return current };
        if self.assignable(&previous, &current) {
            return most_general(&previous, &current);
        }
        if self.cel_go == CelGo::V020 {
            return Type::Dyn;
        }
        let message = format!(
            "expected type '{}' but found '{}'",
            self.spell(&previous),
            self.spell(&current)
        );
        self.report(at, message);
        Type::Error
    }

    fn assert_type(&mut self, e: &IdedExpr, expected: &Type) {
        let actual = self.type_of(e);
        if !self.assignable(expected, &actual) {
            let message = format!(
                "expected type '{}' but found '{}'",
                self.spell(expected),
                self.spell(&actual)
            );
            self.report(e, message);
        }
    }

    /// A type in a message: `FormatCheckedType` in v0.16, `FormatCELType` in v0.20.
    pub(super) fn spell(&self, t: &Type) -> String {
        match self.cel_go {
            CelGo::V016 => t.to_string(),
            CelGo::V020 => CelTypeName(t).to_string(),
        }
    }

    pub(super) fn assignable(&mut self, t1: &Type, t2: &Type) -> bool {
        match is_assignable(&self.mappings, t1, t2) {
            Some(mappings) => {
                self.mappings = mappings;
                true
            }
            None => false,
        }
    }

    pub(super) fn new_type_var(&mut self) -> Type {
        let var = Type::Param(format!("_var{}", self.free_vars));
        self.free_vars += 1;
        var
    }

    pub(super) fn set_type(&mut self, e: &IdedExpr, t: Type) {
        self.checked.types.entry(e.id).or_insert(t);
    }

    pub(super) fn type_of(&self, e: &IdedExpr) -> Type {
        self.checked.type_of(e.id)
    }

    pub(super) fn report(&mut self, e: &IdedExpr, message: String) {
        self.issues
            .push(issues::at(self.source, self.source_info, e.id, message));
    }
}

/// A type as Go's `%s` prints its protobuf message (the field-selection error does): the
/// proto text form, without the random spaces protobuf-go adds to discourage parsing it.
fn proto_text(t: &Type) -> String {
    match t {
        Type::Bool => "primitive:BOOL".into(),
        Type::Int => "primitive:INT64".into(),
        Type::Uint => "primitive:UINT64".into(),
        Type::Double => "primitive:DOUBLE".into(),
        Type::String => "primitive:STRING".into(),
        Type::Bytes => "primitive:BYTES".into(),
        Type::Timestamp => "well_known:TIMESTAMP".into(),
        Type::Duration => "well_known:DURATION".into(),
        Type::Null => "null:NULL_VALUE".into(),
        Type::List(elem) => format!("list_type:{{elem_type:{{{}}}}}", proto_text(elem)),
        Type::Map(key, value) => {
            format!(
                "map_type:{{key_type:{{{}}} value_type:{{{}}}}}",
                proto_text(key),
                proto_text(value)
            )
        }
        Type::Meta(Some(of)) => format!("type:{{{}}}", proto_text(of)),
        Type::Meta(None) => "type:{}".into(),
        Type::Abstract(name, params) => {
            let params: String = params
                .iter()
                .map(|p| format!(" parameter_types:{{{}}}", proto_text(p)))
                .collect();
            format!("abstract_type:{{name:{name:?}{params}}}")
        }
        other => other.to_string(),
    }
}

/// `containers.ToQualifiedName`: `a.b.c` of identifiers and field selections, `None` for any
/// other expression in the chain.
fn qualified_name(e: &IdedExpr) -> Option<String> {
    match &e.expr {
        Expr::Ident(name) => Some(name.clone()),
        Expr::Select(select) if !select.test => Some(format!("{}.{}", qualified_name(&select.operand)?, select.field)),
        _ => None,
    }
}

#[cfg(test)]
#[path = "checker_tests.rs"]
mod tests;
