//! The type checker of a parsed rule, cel-go v0.16.1's `checker/checker.go` over the `cel`
//! crate's AST: identifiers, field selection on the schema's object types, overload
//! resolution with type parameters, homogeneous list and map literals, and the
//! comprehensions macros expand to. Its types and references feed the cost estimator.

use std::collections::HashMap;

use cel::common::ast::{EntryExpr, Expr, IdedExpr, LiteralValue, SourceInfo};

use super::declarations::{Overload, declarations};
use super::issues::{self, Issue};
use super::types::{Mapping, Type, is_assignable, is_assignable_list, most_general, substitute};

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
}

impl Checked {
    /// The type of the expression `id` (`<nil>` when none was recorded).
    pub(crate) fn type_of(&self, id: u64) -> Type {
        self.types.get(&id).cloned().unwrap_or(Type::Unknown)
    }
}

/// Checks `expr`, parsed from `source`, with the `variables` declared.
pub(crate) fn check(
    expr: &IdedExpr,
    source_info: &SourceInfo,
    source: &str,
    variables: &[(&str, Type)],
) -> Result<Checked, Vec<Issue>> {
    let mut checker = Checker {
        source,
        source_info,
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

struct Checker<'a> {
    source: &'a str,
    source_info: &'a SourceInfo,
    variables: HashMap<String, Type>,
    /// Comprehension variables, innermost last.
    scopes: Vec<(String, Type)>,
    mappings: Mapping,
    free_vars: usize,
    checked: Checked,
    issues: Vec<Issue>,
}

impl Checker<'_> {
    fn check(&mut self, e: &IdedExpr) {
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
                let mut t = self.check_select_field(e, &select.operand, &select.field);
                if select.test {
                    t = Type::Bool;
                }
                let t = substitute(&self.mappings, &t, false);
                self.set_type(e, t);
            }
            Expr::Call(call) => self.check_call(e, &call.func_name, call.target.as_deref(), &call.args),
            Expr::List(list) => {
                let mut elems: Option<Type> = None;
                for element in &list.elements {
                    self.check(element);
                    let t = self.type_of(element);
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
                    let value = self.type_of(&entry.value);
                    values = Some(self.join_types(&entry.value, values, value));
                }
                let t = match (keys, values) {
                    (Some(k), Some(v)) => Type::map(k, v),
                    _ => Type::map(self.new_type_var(), self.new_type_var()),
                };
                self.set_type(e, t);
            }
            Expr::Struct(create) => {
                // No message type is declared to a CRD rule.
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
                            "expression of type '{other}' cannot be range of a comprehension (must be list, map, or dynamic)"
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
            .or_else(|| declarations().ident(name));
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

    /// `checkSelectField`: the type of `operand.field`.
    fn check_select_field(&mut self, e: &IdedExpr, operand: &IdedExpr, field: &str) -> Type {
        self.check(operand);
        let operand_type = substitute(&self.mappings, &self.type_of(operand), false);
        let (target, optional) = operand_type.unwrap_optional();
        let result = match target {
            Type::Map(_, value) => (**value).clone(),
            Type::Object(decl) => match decl.field(field) {
                Some(field_type) => field_type.cel_type(),
                None => {
                    self.report(e, format!("undefined field '{field}'"));
                    Type::Error
                }
            },
            Type::Url => {
                self.report(e, format!("undefined field '{field}'"));
                Type::Error
            }
            Type::Param(_) => {
                let target = target.clone();
                self.assignable(&Type::Dyn, &target);
                Type::Dyn
            }
            other => {
                if !other.is_dyn_or_error() {
                    self.report(
                        e,
                        format!("type '{}' does not support field selection", proto_text(other)),
                    );
                }
                Type::Dyn
            }
        };
        if optional { Type::optional(result) } else { result }
    }

    fn check_call(&mut self, e: &IdedExpr, name: &str, target: Option<&IdedExpr>, args: &[IdedExpr]) {
        for arg in args {
            self.check(arg);
        }
        let overloads = declarations().function(name);
        match target {
            None => match overloads {
                Some(overloads) => self.resolve(e, name, overloads, None, args),
                None => {
                    self.report(e, format!("undeclared reference to '{name}' (in container '')"));
                    self.set_type(e, Type::Error);
                }
            },
            Some(target) => {
                self.check(target);
                match overloads {
                    Some(overloads) => self.resolve(e, name, overloads, Some(target), args),
                    // cel-go records no type here: the call is `<nil>` to its parent.
                    None => self.report(e, format!("undeclared reference to '{name}' (in container '')")),
                }
            }
        }
    }

    /// `resolveOverloadOrError`.
    fn resolve(
        &mut self,
        e: &IdedExpr,
        name: &str,
        overloads: &[Overload],
        target: Option<&IdedExpr>,
        args: &[IdedExpr],
    ) {
        let mut arg_types: Vec<Type> = target.iter().map(|t| self.type_of(t)).collect();
        arg_types.extend(args.iter().map(|a| self.type_of(a)));
        let mut result: Option<Type> = None;
        let mut matched = Vec::new();
        for overload in overloads.iter().filter(|o| o.member == target.is_some()) {
            let mut instance = Mapping::default();
            for param in &overload.type_params {
                let var = self.new_type_var();
                instance.add(&Type::Param(param.clone()), var);
            }
            let params: Vec<Type> = overload
                .params
                .iter()
                .map(|p| substitute(&instance, p, false))
                .collect();
            let overload_result = substitute(&instance, &overload.result, false);
            if let Some(mappings) = is_assignable_list(&self.mappings, &arg_types, &params) {
                self.mappings = mappings;
                matched.push(overload.id.clone());
                let fn_result = substitute(&self.mappings, &overload_result, false);
                result = Some(match result {
                    None => fn_result,
                    Some(previous) if !previous.is_dyn() && previous != fn_result => Type::Dyn,
                    Some(previous) => previous,
                });
            }
        }
        match result {
            Some(t) => {
                self.set_type(e, t);
                self.checked.references.insert(e.id, Reference::Function(matched));
            }
            None => {
                let shown: Vec<String> = arg_types
                    .iter()
                    .map(|t| substitute(&self.mappings, t, true).to_string())
                    .collect();
                let signature = match target {
                    Some(_) => format!("{}.({})", shown[0], shown[1..].join(", ")),
                    None => format!("({})", shown.join(", ")),
                };
                self.report(
                    e,
                    format!("found no matching overload for '{name}' applied to '{signature}'"),
                );
                self.set_type(e, Type::Error);
            }
        }
    }

    /// `joinTypes` with homogeneous aggregate literals, as Kubernetes configures cel-go.
    fn join_types(&mut self, at: &IdedExpr, previous: Option<Type>, current: Type) -> Type {
        let Some(previous) = previous else { return current };
        if self.assignable(&previous, &current) {
            return most_general(&previous, &current);
        }
        self.report(at, format!("expected type '{previous}' but found '{current}'"));
        Type::Error
    }

    fn assert_type(&mut self, e: &IdedExpr, expected: &Type) {
        let actual = self.type_of(e);
        if !self.assignable(expected, &actual) {
            self.report(e, format!("expected type '{expected}' but found '{actual}'"));
        }
    }

    fn assignable(&mut self, t1: &Type, t2: &Type) -> bool {
        match is_assignable(&self.mappings, t1, t2) {
            Some(mappings) => {
                self.mappings = mappings;
                true
            }
            None => false,
        }
    }

    fn new_type_var(&mut self) -> Type {
        let var = Type::Param(format!("_var{}", self.free_vars));
        self.free_vars += 1;
        var
    }

    fn set_type(&mut self, e: &IdedExpr, t: Type) {
        self.checked.types.entry(e.id).or_insert(t);
    }

    fn type_of(&self, e: &IdedExpr) -> Type {
        self.checked.type_of(e.id)
    }

    fn report(&mut self, e: &IdedExpr, message: String) {
        let offset = self.source_info.offset_for(e.id).map_or(0, |(start, _)| start as usize);
        let (line, column) = issues::location(self.source, offset);
        self.issues.push(Issue { line, column, message });
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

#[cfg(test)]
#[path = "checker_tests.rs"]
mod tests;
