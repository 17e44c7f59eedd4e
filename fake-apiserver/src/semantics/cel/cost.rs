//! A rule's static cost: cel-go's `checker/cost.go` (v0.16.1, or v0.20.1 on 1.31) with Kubernetes' `library/cost.go` and CRD `sizeEstimator`.

mod estimate;
mod kubernetes;
mod path;
mod standard;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::sync::Arc;

use cel::common::ast::{EntryExpr, Expr, IdedExpr, LiteralValue};

pub(crate) use self::estimate::CostEstimate;
use self::estimate::{CONST, LIST_CREATE, MAP_CREATE, SELECT_AND_IDENT, STRUCT_CREATE, SizeEstimate};
use self::path::{Arrays, Path};
use super::checker::{Checked, Reference};
use super::decl_type::DeclType;
use super::environment::{CelGo, Environment};
use super::types::Type;

/// `EstimateCost` of a checked rule (or messageExpression) whose variables `self`/`oldSelf` are
/// of `root`'s type, in `env`.
pub(crate) fn estimate(expr: &IdedExpr, checked: &Checked, root: &Arc<DeclType>, env: Environment) -> CostEstimate {
    let mut coster = Coster {
        checked,
        root,
        env,
        arrays: Arrays::default(),
        paths: HashMap::new(),
        iter_ranges: HashMap::new(),
        computed_sizes: HashMap::new(),
    };
    coster.cost(expr)
}

/// The accumulator of cel-go's macros (`parser.AccumulatorName`), and the `cel` crate's name
/// for it: paths rooted there are not the schema's.
const ACCUMULATORS: [&str; 2] = ["__result__", "@result"];

/// cel-go's `coster`.
struct Coster<'e> {
    checked: &'e Checked,
    root: &'e DeclType,
    env: Environment,
    arrays: Arrays,
    /// `exprPath`: the path through the schema of an expression's value, by expression id.
    paths: HashMap<u64, Path>,
    /// `iterRanges`: for each comprehension variable in scope, its range's id, innermost last.
    iter_ranges: HashMap<&'e str, Vec<u64>>,
    /// `computedSizes`: the result sizes of calls.
    computed_sizes: HashMap<u64, SizeEstimate>,
}

/// cel-go's `AstNode`: what an overload's cost is estimated from.
struct Node<'e> {
    path: Option<NodePath>,
    ty: Type,
    expr: Option<&'e IdedExpr>,
    derived_size: Option<SizeEstimate>,
}

/// A node's path: an expression's, read when its size is wanted (Go keeps the slice, whose
/// shared array later appends may write), or a list element's own copy (`listElementNode`).
enum NodePath {
    Shared(Path),
    Owned(Vec<String>),
}

impl Node<'_> {
    /// `ComputedSize`: a size the expression itself tells (a literal's, a call's result).
    fn computed_size(&self) -> Option<SizeEstimate> {
        if self.derived_size.is_some() {
            return self.derived_size;
        }
        let size = match &self.expr?.expr {
            // The size of a string is its count of code points, as CEL's `size()`.
            Expr::Literal(LiteralValue::String(s)) => s.inner().chars().count(),
            Expr::Literal(LiteralValue::Bytes(b)) => b.inner().len(),
            Expr::Literal(_) => 1,
            Expr::List(list) => list.elements.len(),
            Expr::Map(map) => map.entries.len(),
            // A message construction is a `StructExpr` with a name, which Go sizes 0.
            Expr::Struct(_) => 0,
            _ => return None,
        };
        Some(SizeEstimate::exactly(size as u64))
    }
}

impl<'e> Coster<'e> {
    fn cost(&mut self, e: &'e IdedExpr) -> CostEstimate {
        match &e.expr {
            Expr::Literal(_) => CONST,
            Expr::Ident(name) => self.cost_ident(e, name),
            Expr::Select(select) if select.test => {
                // `has()`: the presence test costs 1 (`PresenceTestHasCost` defaults to true,
                // 1.31 turns it off) and records no path.
                let presence = if self.env.free_presence_test() {
                    CostEstimate::ZERO
                } else {
                    SELECT_AND_IDENT
                };
                presence.add(self.cost(&select.operand))
            }
            Expr::Select(select) => {
                let cost = self.cost(&select.operand);
                let operand = self.checked.type_of(select.operand.id);
                let cost = match operand {
                    Type::Map(..) | Type::Object(_) | Type::Named(_) | Type::Param(_) => cost.add(SELECT_AND_IDENT),
                    _ => cost,
                };
                let path = self
                    .arrays
                    .append(self.paths.get(&select.operand.id).copied(), &select.field);
                self.paths.insert(e.id, path);
                cost
            }
            Expr::Call(call) => self.cost_call(e, &call.func_name, call.target.as_deref(), &call.args),
            Expr::List(list) => list
                .elements
                .iter()
                .fold(CostEstimate::ZERO, |sum, x| sum.add(self.cost(x)))
                .add(LIST_CREATE),
            Expr::Map(map) => {
                let mut sum = CostEstimate::ZERO;
                for entry in &map.entries {
                    match &entry.expr {
                        EntryExpr::MapEntry(entry) => sum = sum.add(self.cost(&entry.key)).add(self.cost(&entry.value)),
                        // A map literal's entries are key-value pairs; a stray field costs its value.
                        EntryExpr::StructField(field) => sum = sum.add(self.cost(&field.value)),
                    }
                }
                sum.add(MAP_CREATE)
            }
            Expr::Struct(create) => {
                let mut sum = CostEstimate::ZERO;
                for entry in &create.entries {
                    match &entry.expr {
                        EntryExpr::StructField(field) => sum = sum.add(self.cost(&field.value)),
                        EntryExpr::MapEntry(entry) => sum = sum.add(self.cost(&entry.value)),
                    }
                }
                sum.add(STRUCT_CREATE)
            }
            Expr::Comprehension(comp) => {
                let mut sum = self.cost(&comp.iter_range).add(self.cost(&comp.accu_init));
                // Two-variable comprehensions are not in cel-go v0.16.1; only `iter_var` is tracked.
                self.iter_ranges
                    .entry(&comp.iter_var)
                    .or_default()
                    .push(comp.iter_range.id);
                let loop_cost = self.cost(&comp.loop_cond);
                let step_cost = self.cost(&comp.loop_step);
                if let Some(scope) = self.iter_ranges.get_mut(comp.iter_var.as_str()) {
                    scope.pop();
                }
                sum = sum.add(self.cost(&comp.result));
                let range = self.node(&comp.iter_range);
                let count = self.cel_size(&range);
                // v0.20 knows a comprehension yields at most as many values as it ranges over.
                if self.env.cel_go() == CelGo::V020 {
                    self.computed_sizes.insert(e.id, count);
                }
                sum.add(count.multiply_by_cost(step_cost.add(loop_cost)))
            }
            Expr::Unspecified => CostEstimate::ZERO,
        }
    }

    /// `costIdent`: a comprehension variable's path is its range's items (or keys).
    fn cost_ident(&mut self, e: &IdedExpr, name: &'e str) -> CostEstimate {
        match self.iter_ranges.get(name).and_then(|scope| scope.last()).copied() {
            Some(range) => {
                let element = match self.checked.types.get(&range) {
                    Some(Type::List(_)) => Some("@items"),
                    Some(Type::Map(..)) => Some("@keys"),
                    _ => None,
                };
                if let Some(element) = element {
                    let path = self.arrays.append(self.paths.get(&range).copied(), element);
                    self.paths.insert(e.id, path);
                }
            }
            None => {
                let path = self.arrays.append(None, name);
                self.paths.insert(e.id, path);
            }
        }
        SELECT_AND_IDENT
    }

    /// `costCall`: the arguments, then (when the call resolved) the target and the widest of
    /// its overloads' costs. An unresolved call costs nothing at all, as in Go.
    fn cost_call(
        &mut self,
        e: &'e IdedExpr,
        function: &str,
        target: Option<&'e IdedExpr>,
        args: &'e [IdedExpr],
    ) -> CostEstimate {
        let mut arg_costs = Vec::with_capacity(args.len());
        let mut arg_nodes = Vec::with_capacity(args.len());
        for arg in args {
            arg_costs.push(self.cost(arg));
            arg_nodes.push(self.node(arg));
        }
        let checked = self.checked;
        let overloads = match checked.references.get(&e.id) {
            Some(Reference::Function(ids)) if !ids.is_empty() => ids,
            _ => return CostEstimate::ZERO,
        };
        // A namespaced function is called without its namespace, by its whole name.
        let (function, target) = match checked.namespaced.get(&e.id) {
            Some(name) => (name.as_str(), None),
            None => (function, target),
        };
        let mut sum = CostEstimate::ZERO;
        let target = target.map(|t| {
            sum = sum.add(self.cost(t));
            self.node(t)
        });
        let mut fn_cost = CostEstimate { min: u64::MAX, max: 0 };
        let mut result_size: Option<SizeEstimate> = None;
        for overload in overloads {
            let call = self.function_cost(function, overload, target.as_ref(), &arg_nodes, &arg_costs);
            fn_cost = fn_cost.union(call.cost);
            if let Some(size) = call.result_size {
                result_size = Some(result_size.map_or(size, |r| r.union(size)));
            }
            let element = match overload.as_str() {
                "index_list" => "@items",
                "index_map" => "@values",
                _ => continue,
            };
            if let Some(list) = args.first() {
                let path = self.arrays.append(self.paths.get(&list.id).copied(), element);
                self.paths.insert(e.id, path);
            }
        }
        if let Some(size) = result_size {
            self.computed_sizes.insert(e.id, size);
        }
        sum.add(fn_cost)
    }

    /// `newAstNode`.
    fn node(&self, e: &'e IdedExpr) -> Node<'e> {
        let path = self.paths.get(&e.id).copied().filter(|p| {
            let first = self.arrays.view(*p).first();
            !first.is_some_and(|name| ACCUMULATORS.contains(&name.as_str()))
        });
        Node {
            path: path.map(NodePath::Shared),
            ty: self.checked.type_of(e.id),
            expr: Some(e),
            derived_size: self.computed_sizes.get(&e.id).copied(),
        }
    }

    /// The node's path as it reads now (`AstNode.Path`).
    fn path_of<'a>(&'a self, node: &'a Node) -> Option<&'a [String]> {
        match node.path.as_ref()? {
            NodePath::Shared(path) => Some(self.arrays.view(*path)),
            NodePath::Owned(path) => Some(path.as_slice()),
        }
    }

    /// The size bound the schema gives the node's path (Kubernetes' `EstimateSize`).
    fn schema_size(&self, node: &Node) -> Option<SizeEstimate> {
        path::estimate_size(self.root, self.path_of(node)?)
    }

    /// cel-go's `coster.sizeEstimate`: a fixed-size value (a number, a timestamp) counts 1,
    /// anything else nothing bounds is unbounded.
    fn cel_size(&self, node: &Node) -> SizeEstimate {
        if let Some(size) = node.computed_size().or_else(|| self.schema_size(node)) {
            return size;
        }
        match node.ty {
            Type::Bool | Type::Int | Type::Uint | Type::Double | Type::Timestamp | Type::Duration => {
                SizeEstimate::exactly(1)
            }
            _ => SizeEstimate::UNBOUNDED,
        }
    }

    /// Kubernetes' `CostEstimator.sizeEstimate`, which has no fixed-size fallback.
    fn library_size(&self, node: &Node) -> SizeEstimate {
        node.computed_size()
            .or_else(|| self.schema_size(node))
            .unwrap_or(SizeEstimate::UNBOUNDED)
    }
}
