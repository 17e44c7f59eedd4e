//! The AST validators kube-apiserver's environments run on a rule that checked (`cel-go/cel/validator.go`): homogeneous list and map literals (in cel-go v0.20 the validator `HomogeneousAggregateLiterals` has become), from 1.29 the literal arguments of `duration`, `timestamp` and `matches`, and the literal calls of `format` (`ext/formatting.go`'s `stringFormatValidator`).

use cel::common::ast::{EntryExpr, Expr, IdedExpr, LiteralValue, SourceInfo};
use cel::objects::Value;

use super::checker::{Checked, Reference};
use super::environment::{CelGo, Environment, Library};
use super::issues::{self, Issue};
use super::runtime_library::{self, Clause};
use super::types::{CelTypeName, Type};

/// `checked` as the environment's AST validators leave it: unchanged, or their findings as
/// issues at the expressions they name.
pub(crate) fn validated(
    expr: &IdedExpr,
    source_info: &SourceInfo,
    source: &str,
    checked: Checked,
    env: Environment,
) -> Result<Checked, Vec<Issue>> {
    let found = validate(expr, &checked, env);
    if found.is_empty() {
        return Ok(checked);
    }
    Err(found
        .into_iter()
        .map(|(id, message)| issues::at(source, source_info, id, message))
        .collect())
}

/// The issues the validators of `env` find in the checked `expr`, by expression id.
fn validate(expr: &IdedExpr, checked: &Checked, env: Environment) -> Vec<(u64, String)> {
    let mut validation = Validation {
        checked,
        homogeneous: env.cel_go() == CelGo::V020,
        literals: env.validates_literals(),
        formats: env.has(Library::StringsV2),
        found: Vec::new(),
    };
    validation.walk(expr, false);
    validation.found
}

struct Validation<'c> {
    checked: &'c Checked,
    /// `ValidateHomogeneousAggregateLiterals`.
    homogeneous: bool,
    /// `ValidateDurationLiterals`, `ValidateTimestampLiterals`, `ValidateRegexLiterals`.
    literals: bool,
    /// The strings library's `stringFormatValidator`.
    formats: bool,
    found: Vec<(u64, String)>,
}

impl Validation<'_> {
    /// Visits `e` and below; `exempt`: inside a `format` call, whose list of arguments may mix
    /// types (the ext strings' format validator exempts it).
    fn walk(&mut self, e: &IdedExpr, exempt: bool) {
        match &e.expr {
            Expr::List(list) => {
                if self.homogeneous && !exempt {
                    self.homogeneous_list(&list.elements, &list.optional_indices);
                }
                list.elements.iter().for_each(|x| self.walk(x, exempt));
            }
            Expr::Map(map) => {
                let entries: Vec<_> = map
                    .entries
                    .iter()
                    .filter_map(|entry| match &entry.expr {
                        EntryExpr::MapEntry(entry) => Some(entry),
                        EntryExpr::StructField(_) => None,
                    })
                    .collect();
                if self.homogeneous && !exempt {
                    self.homogeneous_map(&entries);
                }
                for entry in entries {
                    self.walk(&entry.key, exempt);
                    self.walk(&entry.value, exempt);
                }
            }
            Expr::Call(call) => {
                if self.literals {
                    self.literal_argument(&call.func_name, &call.args);
                }
                if self.formats && call.func_name == "format" {
                    self.format_call(e.id, call.target.as_deref(), &call.args);
                }
                let exempt = exempt || call.func_name == "format";
                call.target.iter().for_each(|t| self.walk(t, exempt));
                call.args.iter().for_each(|x| self.walk(x, exempt));
            }
            Expr::Select(select) => self.walk(&select.operand, exempt),
            Expr::Struct(create) => {
                for entry in &create.entries {
                    if let EntryExpr::StructField(field) = &entry.expr {
                        self.walk(&field.value, exempt);
                    }
                }
            }
            Expr::Comprehension(comp) => {
                for part in [
                    &comp.iter_range,
                    &comp.accu_init,
                    &comp.loop_cond,
                    &comp.loop_step,
                    &comp.result,
                ] {
                    self.walk(part, exempt);
                }
            }
            Expr::Literal(_) | Expr::Ident(_) | Expr::Unspecified => {}
        }
    }

    /// The type of an element; one given with `?` is the optional's value.
    fn element_type(&self, e: &IdedExpr, optional: bool) -> Type {
        let t = self.checked.type_of(e.id);
        if optional { t.unwrap_optional().0.clone() } else { t }
    }

    /// Every element must be of the first's type; the first that is not is reported.
    fn homogeneous_list(&mut self, elements: &[IdedExpr], optional_indices: &[usize]) {
        let mut first: Option<Type> = None;
        for (i, element) in elements.iter().enumerate() {
            let t = self.element_type(element, optional_indices.contains(&i));
            match &first {
                None => first = Some(t),
                Some(expected) if !equivalent(expected, &t) => {
                    self.mismatch(element.id, expected, &t);
                    break;
                }
                Some(_) => {}
            }
        }
    }

    /// Every key and every value must be of the first entry's types; each that is not is
    /// reported.
    fn homogeneous_map(&mut self, entries: &[&cel::common::ast::MapEntryExpr]) {
        let mut first: Option<(Type, Type)> = None;
        for entry in entries {
            let key = self.checked.type_of(entry.key.id);
            let value = self.element_type(&entry.value, entry.optional);
            let Some((expected_key, expected_value)) = &first else {
                first = Some((key, value));
                continue;
            };
            let (expected_key, expected_value) = (expected_key.clone(), expected_value.clone());
            if !equivalent(&expected_key, &key) {
                self.mismatch(entry.key.id, &expected_key, &key);
            }
            if !equivalent(&expected_value, &value) {
                self.mismatch(entry.value.id, &expected_value, &value);
            }
        }
    }

    fn mismatch(&mut self, id: u64, expected: &Type, actual: &Type) {
        let message = format!(
            "expected type '{}' but found '{}'",
            CelTypeName(expected),
            CelTypeName(actual)
        );
        self.found.push((id, message));
    }

    /// `formatValidator`: a literal first argument of `duration`, `timestamp` or `matches`
    /// (the pattern of `s.matches(p)`, but the text of `matches(s, p)`) must evaluate.
    fn literal_argument(&mut self, function: &str, args: &[IdedExpr]) {
        if !matches!(function, "duration" | "timestamp" | "matches") {
            return;
        }
        let Some(Expr::Literal(literal)) = args.first().map(|a| &a.expr) else {
            return;
        };
        let value = match literal {
            LiteralValue::String(s) => Value::String(s.inner().to_owned().into()),
            LiteralValue::Int(i) => Value::Int(*i.inner()),
            LiteralValue::UInt(u) => Value::UInt(*u.inner()),
            LiteralValue::Double(d) => Value::Float(*d.inner()),
            LiteralValue::Boolean(b) => Value::Bool(*b.inner()),
            LiteralValue::Bytes(b) => Value::Bytes(b.inner().to_vec().into()),
            LiteralValue::Null => Value::Null,
        };
        if runtime_library::call_fails(function, value) {
            let id = args.first().map_or(0, |a| a.id);
            self.found.push((id, format!("invalid {function} argument")));
        }
    }
}

impl Validation<'_> {
    /// `stringFormatValidator`: a literal format string with a literal list of arguments must
    /// format, each clause given an argument of a type it takes, and no argument left over.
    fn format_call(&mut self, id: u64, target: Option<&IdedExpr>, args: &[IdedExpr]) {
        let is_format = match self.checked.references.get(&id) {
            Some(Reference::Function(ids)) if !ids.is_empty() => ids.iter().any(|o| o == "string_format"),
            _ => true,
        };
        let (
            Some(IdedExpr {
                expr: Expr::Literal(LiteralValue::String(format)),
                ..
            }),
            [list],
        ) = (target, args)
        else {
            return;
        };
        let Expr::List(list) = &list.expr else { return };
        if !is_format {
            return;
        }
        let elements = &list.elements;
        let checked = |index: usize, clause: Clause| -> Result<String, (Option<u64>, String)> {
            let arg = &elements[index];
            let (valid, bad) = match clause {
                Clause::String => self.verify_string(arg),
                other => (self.verify_kind(arg.id, clause_kinds(other)), arg.id),
            };
            if valid {
                return Ok(String::new());
            }
            let what = match clause {
                Clause::String => {
                    "string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps"
                }
                Clause::Decimal => "decimal clause can only be used on integers",
                Clause::Fixed(_) => "fixed-point clause can only be used on doubles",
                Clause::Scientific => "scientific clause can only be used on doubles",
                Clause::Binary => "only integers and bools can be formatted as binary",
                Clause::Hex { .. } => "only integers, byte buffers, and strings can be formatted as hex",
                Clause::Octal => "octal clause can only be used on integers",
            };
            Err((
                Some(bad),
                format!("{what}, was given {}", type_name(&self.checked.type_of(bad))),
            ))
        };
        match runtime_library::interpolate(format.inner(), elements.len(), true, checked) {
            Err((at, message)) => self.found.push((at.unwrap_or(id), message)),
            Ok((_, requested)) if elements.len() > requested => {
                let message = format!(
                    "too many arguments supplied to string.format (expected {requested}, got {})",
                    elements.len()
                );
                self.found.push((id, message));
            }
            Ok(_) => {}
        }
    }

    /// `verifyTypeOneOf`: `dyn`, or a type of one of `kinds`' kinds.
    fn verify_kind(&self, id: u64, kinds: &[fn(&Type) -> bool]) -> bool {
        let t = self.checked.type_of(id);
        t.is_dyn() || kinds.iter().any(|kind| kind(&t))
    }

    /// `verifyString`: what `%s` takes, list and map literals looked into; the expression
    /// that is not.
    fn verify_string(&self, e: &IdedExpr) -> (bool, u64) {
        if !self.verify_kind(e.id, STRING_KINDS) {
            return (false, e.id);
        }
        let nested: Vec<&IdedExpr> = match &e.expr {
            Expr::List(list) => list.elements.iter().collect(),
            Expr::Map(map) => map
                .entries
                .iter()
                .filter_map(|entry| match &entry.expr {
                    EntryExpr::MapEntry(entry) => Some([&entry.key, &entry.value]),
                    EntryExpr::StructField(_) => None,
                })
                .flatten()
                .collect(),
            _ => Vec::new(),
        };
        for element in nested {
            let (valid, bad) = self.verify_string(element);
            if !valid {
                return (false, bad);
            }
        }
        (true, e.id)
    }
}

/// The kinds of the types `%s` takes.
const STRING_KINDS: &[fn(&Type) -> bool] = &[
    |t| matches!(t, Type::List(_) | Type::Map(..)),
    |t| {
        matches!(
            t,
            Type::Int | Type::Uint | Type::Double | Type::Bool | Type::String | Type::Bytes
        )
    },
    |t| matches!(t, Type::Timestamp | Type::Duration | Type::Meta(_) | Type::Null),
];

/// The kinds of the types a clause other than `%s` takes.
fn clause_kinds(clause: Clause) -> &'static [fn(&Type) -> bool] {
    match clause {
        Clause::Decimal | Clause::Octal => &[|t| matches!(t, Type::Int | Type::Uint)],
        Clause::Fixed(_) | Clause::Scientific => &[|t| matches!(t, Type::Double | Type::String)],
        Clause::Binary => &[|t| matches!(t, Type::Int | Type::Uint | Type::Bool)],
        Clause::Hex { .. } => &[|t| matches!(t, Type::Int | Type::Uint | Type::String | Type::Bytes)],
        Clause::String => STRING_KINDS,
    }
}

/// `Type.TypeName()` of a checked type, as the format validator's errors name it.
fn type_name(t: &Type) -> String {
    match t {
        Type::List(_) => "list".into(),
        Type::Map(..) => "map".into(),
        Type::Null => "null_type".into(),
        Type::Timestamp => "google.protobuf.Timestamp".into(),
        Type::Duration => "google.protobuf.Duration".into(),
        Type::Meta(_) => "type".into(),
        Type::Error => "*error*".into(),
        Type::Abstract(name, _) if name == "optional" => "optional_type".into(),
        Type::Abstract(name, _) => name.clone(),
        other => other.to_string(),
    }
}

/// `IsEquivalentType`: the same type, whatever its type parameters are named.
fn equivalent(a: &Type, b: &Type) -> bool {
    match (a, b) {
        (Type::Param(_), Type::Param(_)) => true,
        (Type::List(x), Type::List(y)) => equivalent(x, y),
        (Type::Map(k1, v1), Type::Map(k2, v2)) => equivalent(k1, k2) && equivalent(v1, v2),
        (Type::Meta(Some(x)), Type::Meta(Some(y))) => equivalent(x, y),
        (Type::Abstract(n1, p1), Type::Abstract(n2, p2)) => {
            n1 == n2 && p1.len() == p2.len() && p1.iter().zip(p2).all(|(x, y)| equivalent(x, y))
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equivalence_should_ignore_type_parameter_names_only() {
        let a = Type::list(Type::Param("A".into()));
        assert!(equivalent(&a, &Type::list(Type::Param("_var0".into()))));
        assert!(!equivalent(&Type::Int, &Type::Dyn));
        assert!(!equivalent(&Type::optional(Type::Int), &Type::optional(Type::String)));
    }
}
