//! The cost of one overload of a call: an overload's own estimator (ext sets'), else
//! Kubernetes' estimate when it has one, else cel-go's `coster.functionCost`
//! (`checker/cost.go`) for the standard and ext strings functions.

use super::estimate::{CallEstimate, CostEstimate, REGEX_LENGTH, STRING_TRAVERSAL, SizeEstimate};
use super::{Coster, Node};

impl Coster<'_> {
    /// `functionCost`. `target` is `None` for a global call; Go passes a pointer to a nil
    /// interface there, which only member overloads would dereference (and no member overload
    /// is ever called globally once checked), so the cases that need a target fall through to
    /// the constant cost instead.
    pub(super) fn function_cost(
        &self,
        function: &str,
        overload: &str,
        target: Option<&Node>,
        args: &[Node],
        arg_costs: &[CostEstimate],
    ) -> CallEstimate {
        let arg_sum = arg_costs.iter().fold(CostEstimate::ZERO, |sum, c| sum.add(*c));
        // `ext/sets.go`'s `estimateSetsCost`: every element of one list against every one of
        // the other (twice for equivalence), plus the call.
        let sets_factor = match overload {
            "list_sets_contains_list" | "list_sets_intersects_list" => Some(1.0),
            "list_sets_equivalent_list" => Some(2.0),
            _ => None,
        };
        if let (Some(factor), [a, b]) = (sets_factor, args) {
            let pairs = self.library_size(a).multiply(self.library_size(b));
            let cost = pairs.multiply_by_cost_factor(factor).add(CostEstimate::exactly(1));
            return CallEstimate::cost(cost.add(arg_sum));
        }
        if let Some(call) = self.library_call_cost(function, target, args) {
            return CallEstimate {
                cost: call.cost.add(arg_sum),
                result_size: call.result_size,
            };
        }
        let traversal = |size: SizeEstimate| size.multiply_by_cost_factor(STRING_TRAVERSAL).add(arg_sum);
        match (overload, target, args, arg_costs) {
            // O(n): one walk over a string.
            ("string_format", Some(target), _, _) => CallEstimate::cost(traversal(self.cel_size(target))),
            ("strings_quote", _, [arg], _) => {
                let size = self.cel_size(arg);
                // Every character may be escaped; the quotes are added. Go's arithmetic wraps.
                let result = SizeEstimate {
                    min: size.min.wrapping_add(2),
                    max: size.max.wrapping_mul(2).wrapping_add(2),
                };
                CallEstimate {
                    cost: traversal(size),
                    result_size: Some(result),
                }
            }
            ("string_to_bytes", _, [arg], _) => {
                let size = self.cel_size(arg);
                // A character is at most four bytes. Go multiplies without the overflow guard,
                // so an unbounded string's bytes wrap around.
                let result = SizeEstimate {
                    min: size.min,
                    max: size.max.wrapping_mul(4),
                };
                CallEstimate {
                    cost: traversal(size),
                    result_size: Some(result),
                }
            }
            ("bytes_to_string", _, [arg], _) => {
                let size = self.cel_size(arg);
                let result = SizeEstimate {
                    min: size.min / 4,
                    max: size.max,
                };
                CallEstimate {
                    cost: traversal(size),
                    result_size: Some(result),
                }
            }
            ("starts_with_string" | "ends_with_string", _, [prefix], _) => {
                CallEstimate::cost(traversal(self.cel_size(prefix)))
            }
            // Containment in a list is assumed linear, even for a list of constants.
            ("in_list", _, [_, list], _) => {
                CallEstimate::cost(self.cel_size(list).multiply_by_cost_factor(1.0).add(arg_sum))
            }
            // O(n·m): RE2 over the string (plus one, so an empty string still costs), guessing
            // one regex state per four pattern characters.
            ("matches_string", Some(target), [pattern], _) => {
                let string = self.cel_size(target).add(SizeEstimate::exactly(1));
                let string = string.multiply_by_cost_factor(STRING_TRAVERSAL);
                let regex = self.cel_size(pattern).multiply_by_cost_factor(REGEX_LENGTH);
                CallEstimate::cost(string.multiply(regex).add(arg_sum))
            }
            ("contains_string", Some(target), [substring], _) => {
                let string = self.cel_size(target).multiply_by_cost_factor(STRING_TRAVERSAL);
                let substring = self.cel_size(substring).multiply_by_cost_factor(STRING_TRAVERSAL);
                CallEstimate::cost(string.multiply(substring).add(arg_sum))
            }
            // Short-circuiting: at least the left operand, at most both; no cost of its own.
            ("logical_or" | "logical_and", _, _, [lhs, rhs, ..]) => CallEstimate::cost(CostEstimate {
                min: lhs.min,
                max: lhs.add(*rhs).max,
            }),
            ("conditional", _, [_, if_true, if_false, ..], [condition, true_cost, false_cost, ..]) => {
                let size = self.cel_size(if_true).union(self.cel_size(if_false));
                CallEstimate {
                    cost: condition.add(true_cost.union(*false_cost)),
                    result_size: Some(size),
                }
            }
            ("add_string" | "add_bytes" | "add_list", _, [lhs, rhs], _) => {
                let size = self.cel_size(lhs).add(self.cel_size(rhs));
                let cost = match overload {
                    // Concatenating lists is O(1); it is priced here to track the result's size.
                    "add_list" => CostEstimate::exactly(1).add(arg_sum),
                    _ => traversal(size),
                };
                CallEstimate {
                    cost,
                    result_size: Some(size),
                }
            }
            // Comparing two strings walks the shorter; equal scalars cost 1 (0.1 rounded up).
            (
                "less_string"
                | "greater_string"
                | "less_equals_string"
                | "greater_equals_string"
                | "less_bytes"
                | "greater_bytes"
                | "less_equals_bytes"
                | "greater_equals_bytes"
                | "equals"
                | "not_equals",
                _,
                [lhs, rhs, ..],
                _,
            ) => {
                let smallest_max = self.cel_size(lhs).max.min(self.cel_size(rhs).max);
                let min = u64::from(smallest_max > 0);
                CallEstimate::cost(traversal(SizeEstimate { min, max: smallest_max }))
            }
            // Everything else is O(1): about one base unit (50ns) each.
            _ => CallEstimate::cost(CostEstimate::exactly(1).add(arg_sum)),
        }
    }
}
