//! Calls as cel-go's checker resolves them (`checker/checker.go`: `checkCall`, `checkOptSelect`, `resolveOverload`, v0.16.1 and v0.20.1): namespaced functions (`optional.of(x)`), overloads with type parameters, `a.?b`, and v0.20's own check of `&&` and `||` operands.

use cel::common::ast::{Expr, IdedExpr, LiteralValue};

use super::checker::{Checker, Reference};
use super::declarations::Overload;
use super::environment::CelGo;
use super::types::{Mapping, Type, is_assignable_list, substitute};

impl Checker<'_> {
    /// `checkCall`.
    pub(super) fn check_call(&mut self, e: &IdedExpr, name: &str, target: Option<&IdedExpr>, args: &[IdedExpr]) {
        if name == "_?._" {
            return self.check_opt_select(e, args);
        }
        for arg in args {
            self.check(arg);
        }
        let Some(target) = target else {
            match self.declarations.function(name) {
                Some(overloads) => self.resolve(e, name, overloads, None, args),
                None => {
                    self.report(e, format!("undeclared reference to '{name}' (in container '')"));
                    self.set_type(e, Type::Error);
                }
            }
            return;
        };
        // `a.b.f(x)` calls the function `a.b.f` when one is declared: the target is a
        // namespace, not an operand.
        if let Some(prefix) = qualified_name(target) {
            let namespaced = format!("{prefix}.{name}");
            if let Some(overloads) = self.declarations.function(&namespaced) {
                self.checked.namespaced.insert(e.id, namespaced.clone());
                return self.resolve(e, &namespaced, overloads, None, args);
            }
        }
        self.check(target);
        match self.declarations.function(name) {
            Some(overloads) => self.resolve(e, name, overloads, Some(target), args),
            None => {
                // v0.16 records no type, so the call is `<nil>` to its parent.
                if self.cel_go == CelGo::V020 {
                    self.set_type(e, Type::Error);
                }
                self.report(e, format!("undeclared reference to '{name}' (in container '')"));
            }
        }
    }

    /// `checkOptSelect`: `operand.?field`, which the parser makes `_?._(operand, 'field')`.
    fn check_opt_select(&mut self, e: &IdedExpr, args: &[IdedExpr]) {
        let (Some(operand), Some(field)) = (args.first(), args.get(1)) else {
            return;
        };
        let Expr::Literal(LiteralValue::String(name)) = &field.expr else {
            return self.report(field, "unsupported optional field selection".into());
        };
        let t = self.check_select_field(e, operand, name.inner(), true);
        let t = substitute(&self.mappings, &t, false);
        self.set_type(e, t);
        // v0.20 references the function, which the cost estimator then prices.
        if self.cel_go == CelGo::V020 {
            let reference = Reference::Function(vec!["select_optional_field".into()]);
            self.checked.references.insert(e.id, reference);
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
        if self.cel_go == CelGo::V020 && matches!(name, "_&&_" | "_||_") {
            return self.resolve_logical(e, overloads, args, &arg_types);
        }
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
                    .map(|t| self.spell(&substitute(&self.mappings, t, true)))
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

    /// v0.20's `&&` and `||`: each operand must be a bool, and is reported where it is.
    fn resolve_logical(&mut self, e: &IdedExpr, overloads: &[Overload], args: &[IdedExpr], arg_types: &[Type]) {
        let mut failed = false;
        for (arg, t) in args.iter().zip(arg_types) {
            if !self.assignable(t, &Type::Bool) {
                let message = format!("expected type 'bool' but found '{}'", self.spell(t));
                self.report(arg, message);
                failed = true;
            }
        }
        if failed {
            return self.set_type(e, Type::Error);
        }
        self.set_type(e, Type::Bool);
        let ids = overloads.iter().take(1).map(|o| o.id.clone()).collect();
        self.checked.references.insert(e.id, Reference::Function(ids));
    }
}

/// `containers.ToQualifiedName`: `a.b.c` of identifiers and plain selections.
fn qualified_name(e: &IdedExpr) -> Option<String> {
    match &e.expr {
        Expr::Ident(name) => Some(name.clone()),
        Expr::Select(select) if !select.test => {
            qualified_name(&select.operand).map(|prefix| format!("{prefix}.{}", select.field))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use cel::parser::Parser;

    use super::*;

    fn parsed(source: &str) -> IdedExpr {
        Parser::default().parse(source).expect("parses")
    }

    #[test]
    fn a_qualified_name_should_be_read_from_identifiers_and_selections_only() {
        let Expr::Call(call) = parsed("a.b.f(1)").expr else {
            panic!("a call")
        };
        let target = call.target.expect("a target");
        assert_eq!(qualified_name(&target).as_deref(), Some("a.b"));
        let Expr::Call(call) = parsed("a[0].f(1)").expr else {
            panic!("a call")
        };
        assert_eq!(qualified_name(&call.target.expect("a target")), None);
    }
}
