//! Equality of `set` and `map` lists, which kube-apiserver's CEL values define without order
//! (`apiserver/pkg/cel/common/values.go`: `unstructuredSetList.Equal`, `unstructuredMapList.Equal`:
//! the same number of items, each found in the other list). The `cel` crate compares lists in
//! order, so an `==` or `!=` with an operand that names such a list (`self`, `self.tags`,
//! `oldSelf.spec.ports`) is rewritten before it runs into that comparison.

use std::sync::{Arc, OnceLock};

use cel::common::ast::{CallExpr, Expr, IdedExpr};

use super::decl_type::DeclType;
use super::runtime_library::shared_env as runtime_env;

const LEFT: &str = "__k8s_left__";
const RIGHT: &str = "__k8s_right__";

/// `left == right` for lists whose order does not count (each list's items are unique).
const TEMPLATE: &str =
    "__k8s_left__.size() == __k8s_right__.size() && __k8s_left__.all(__k8s_item__, __k8s_item__ in __k8s_right__)";

/// Rewrites, in `expr`, every comparison of an unordered list of `root` (the type of `self`
/// and `oldSelf`) into one that ignores its order.
pub(crate) fn rewrite(expr: &mut IdedExpr, root: &Arc<DeclType>) {
    if let Expr::Call(call) = &mut expr.expr {
        let equals = call.func_name == "_==_";
        if (equals || call.func_name == "_!=_")
            && call.target.is_none()
            && call.args.len() == 2
            && call.args.iter().any(|arg| names_unordered_list(arg, root))
        {
            let (left, right) = (call.args[0].clone(), call.args[1].clone());
            let mut compared = template().clone();
            substitute(&mut compared, &left, &right);
            expr.expr = if equals {
                compared.expr
            } else {
                Expr::Call(CallExpr {
                    func_name: "!_".into(),
                    target: None,
                    args: vec![compared],
                })
            };
            return;
        }
    }
    for child in children(expr) {
        rewrite(child, root);
    }
}

/// The parsed template, with the runtime's macros expanded.
fn template() -> &'static IdedExpr {
    static TEMPLATE_EXPR: OnceLock<IdedExpr> = OnceLock::new();
    TEMPLATE_EXPR.get_or_init(|| {
        runtime_env()
            .parser()
            .parse(TEMPLATE)
            .expect("the comparison template parses")
    })
}

/// Whether `expr` is `self` or `oldSelf` followed by field selections, naming a list whose
/// order does not count.
fn names_unordered_list(expr: &IdedExpr, root: &Arc<DeclType>) -> bool {
    declared(expr, root).is_some_and(|decl| decl.unordered)
}

fn declared<'d>(expr: &IdedExpr, root: &'d Arc<DeclType>) -> Option<&'d Arc<DeclType>> {
    match &expr.expr {
        Expr::Ident(name) if name == "self" || name == "oldSelf" => Some(root),
        Expr::Select(select) if !select.test => declared(&select.operand, root)?.field(&select.field),
        _ => None,
    }
}

/// Puts the operands where the template names them.
fn substitute(expr: &mut IdedExpr, left: &IdedExpr, right: &IdedExpr) {
    match &expr.expr {
        Expr::Ident(name) if name == LEFT => *expr = left.clone(),
        Expr::Ident(name) if name == RIGHT => *expr = right.clone(),
        _ => {
            for child in children(expr) {
                substitute(child, left, right);
            }
        }
    }
}

/// The direct subexpressions of `expr`.
fn children(expr: &mut IdedExpr) -> Vec<&mut IdedExpr> {
    match &mut expr.expr {
        Expr::Call(call) => call
            .target
            .iter_mut()
            .map(|t| &mut **t)
            .chain(call.args.iter_mut())
            .collect(),
        Expr::Select(select) => vec![&mut *select.operand],
        Expr::List(list) => list.elements.iter_mut().collect(),
        Expr::Comprehension(comp) => vec![
            &mut comp.iter_range,
            &mut comp.accu_init,
            &mut comp.loop_cond,
            &mut comp.loop_step,
            &mut comp.result,
        ],
        Expr::Map(map) => map
            .entries
            .iter_mut()
            .flat_map(|entry| match &mut entry.expr {
                cel::common::ast::EntryExpr::MapEntry(e) => vec![&mut e.key, &mut e.value],
                cel::common::ast::EntryExpr::StructField(f) => vec![&mut f.value],
            })
            .collect(),
        Expr::Struct(create) => create
            .entries
            .iter_mut()
            .filter_map(|entry| match &mut entry.expr {
                cel::common::ast::EntryExpr::StructField(f) => Some(&mut f.value),
                cel::common::ast::EntryExpr::MapEntry(_) => None,
            })
            .collect(),
        Expr::Ident(_) | Expr::Literal(_) | Expr::Unspecified => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use cel::{Context, Value};
    use serde_json::json;

    use super::*;
    use crate::semantics::cel::decl_type::schema_decl_type;

    fn evaluate(rule: &str, schema: &serde_json::Value, this: Value, old: Value) -> Value {
        let root = schema_decl_type(schema, false, "selfType0").expect("declared");
        let mut expr = runtime_env().parser().parse(rule).expect("parses");
        rewrite(&mut expr, &root);
        let mut context = Context::with_env(runtime_env().clone());
        context.add_variable_from_value("self", this);
        context.add_variable_from_value("oldSelf", old);
        Value::resolve(&expr, &context).expect("evaluates")
    }

    #[test]
    fn a_set_should_equal_its_reordering_and_an_atomic_list_should_not() {
        let list = |items: &[&str]| Value::List(Arc::new(items.iter().map(|i| Value::from(*i)).collect()));
        let set = json!({"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}});
        assert_eq!(
            evaluate("self == oldSelf", &set, list(&["b", "a"]), list(&["a", "b"])),
            Value::Bool(true)
        );
        assert_eq!(
            evaluate("self != oldSelf", &set, list(&["b", "a"]), list(&["a", "c"])),
            Value::Bool(true)
        );
        let atomic = json!({"type": "array", "items": {"type": "string"}});
        assert_eq!(
            evaluate("self == oldSelf", &atomic, list(&["b", "a"]), list(&["a", "b"])),
            Value::Bool(false)
        );
    }
}
