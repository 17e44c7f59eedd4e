//! Kubernetes' call costs (`apiserver/pkg/cel/library/cost.go`: `EstimateCallCost`), which
//! cel-go asks before its own, for the lists, regex, URL, ext strings, and (1.31) quantity, IP
//! and CIDR functions. Matched by function name, as Kubernetes does; the authorizer library's
//! functions it also prices are not declared to CRD rules, so they never reach here.

use cel::common::ast::{Expr, LiteralValue};

use super::estimate::{CallEstimate, CostEstimate, REGEX_LENGTH, STRING_TRAVERSAL, SizeEstimate, go_f64_to_u64};
use super::{Coster, Node, NodePath};
use crate::semantics::cel::environment::CelGo;
use crate::semantics::cel::types::Type;

impl Coster<'_> {
    /// `EstimateCallCost`, before the arguments' costs are added. `None` leaves the call to
    /// cel-go. A member function called without a target cannot pass the checker; Go would
    /// dereference a nil node there, and this leaves it to cel-go instead.
    pub(super) fn library_call_cost(
        &self,
        function: &str,
        target: Option<&Node>,
        args: &[Node],
    ) -> Option<CallEstimate> {
        match function {
            "isSorted" | "sum" | "max" | "min" | "indexOf" | "lastIndexOf" => {
                let target = target?;
                let cost = match self.list_element_node(target) {
                    Some(element) => {
                        // One comparison per element, plus a walk of each string or bytes.
                        let mut per_element = CostEstimate::exactly(1);
                        if matches!(element.ty, Type::String | Type::Bytes) {
                            let walk = self.library_size(&element).multiply_by_cost_factor(STRING_TRAVERSAL);
                            per_element = per_element.add(walk);
                        }
                        self.library_size(target).multiply_by_cost(per_element)
                    }
                    // `indexOf` and `lastIndexOf` of a string.
                    None => self.library_size(target).multiply_by_cost_factor(STRING_TRAVERSAL),
                };
                Some(CallEstimate::cost(cost))
            }
            "url" => match args {
                [string] => Some(CallEstimate::cost(
                    self.library_size(string).multiply_by_cost_factor(STRING_TRAVERSAL),
                )),
                _ => None,
            },
            "lowerAscii" | "upperAscii" | "substring" | "trim" => {
                let size = self.library_size(target?);
                Some(CallEstimate {
                    cost: size.multiply_by_cost_factor(STRING_TRAVERSAL),
                    result_size: Some(size),
                })
            }
            "replace" => match (target, args) {
                (Some(target), [from, to, ..]) => Some(self.replace_cost(target, from, to)),
                _ => None,
            },
            "split" => {
                let size = self.library_size(target?);
                // The worst case splits at every character, unless a constant limit is given.
                let mut max = size.max;
                if let Some(Expr::Literal(limit)) = args.get(1).and_then(|a| a.expr).map(|e| &e.expr) {
                    // Go's `uint64(GetInt64Value())`: a negative limit wraps, another constant is 0.
                    max = match limit {
                        LiteralValue::Int(n) => *n.inner() as u64,
                        _ => 0,
                    };
                }
                let cost = size.multiply_by_cost_factor(2.0 * STRING_TRAVERSAL);
                Some(CallEstimate {
                    cost,
                    result_size: Some(SizeEstimate { min: 0, max }),
                })
            }
            "join" => {
                let target = target?;
                let list = self.library_size(target);
                let mut size = match self.list_element_node(target) {
                    Some(element) => list.multiply(self.library_size(&element)),
                    None => SizeEstimate::ZERO,
                };
                if let Some(separator) = args.first() {
                    let separators = SizeEstimate {
                        min: list.min.saturating_sub(1),
                        max: list.max.saturating_sub(1),
                    };
                    size = size.add(self.library_size(separator).multiply(separators));
                }
                Some(CallEstimate {
                    cost: size.multiply_by_cost_factor(STRING_TRAVERSAL),
                    result_size: Some(size),
                })
            }
            "find" | "findAll" => {
                let (target, pattern) = (target?, args.first()?);
                let size = self.library_size(target);
                let string = size
                    .add(SizeEstimate::exactly(1))
                    .multiply_by_cost_factor(STRING_TRAVERSAL);
                let regex = self.library_size(pattern).multiply_by_cost_factor(REGEX_LENGTH);
                // At worst every character is a match of its own.
                let result = SizeEstimate { min: 0, max: size.max };
                Some(CallEstimate {
                    cost: string.multiply(regex),
                    result_size: Some(result),
                })
            }
            // Go's target is never nil (a pointer to a nil node for a global call): only the
            // argument counts are checked.
            "quantity" | "isQuantity" | "cidr" | "isIP" | "isCIDR" if self.prices_131() => {
                Some(CallEstimate::cost(self.traversal(args.first()?, 1.0)))
            }
            "ip" if self.prices_131() => match args.first() {
                Some(string) => Some(CallEstimate::cost(self.traversal(string, 1.0))),
                // `cidr.ip()` reads a field.
                None => Some(CallEstimate::cost(CostEstimate::exactly(1))),
            },
            "ip.isCanonical" if self.prices_131() => Some(CallEstimate::cost(self.traversal(args.first()?, 2.0))),
            "masked"
            | "prefixLength"
            | "family"
            | "isUnspecified"
            | "isLoopback"
            | "isLinkLocalMulticast"
            | "isLinkLocalUnicast"
            | "isGlobalUnicast"
                if self.prices_131() =>
            {
                Some(CallEstimate::cost(CostEstimate::exactly(1)))
            }
            "containsIP" | "containsCIDR" if self.prices_131() => {
                let other = args.first()?;
                // Two addresses of 4 or 16 bytes are compared; a CIDR's prefix is masked too.
                let address = SizeEstimate { min: 4, max: 16 };
                let mut cost = address.add(address).multiply_by_cost_factor(STRING_TRAVERSAL);
                if function == "containsCIDR" {
                    cost = cost
                        .add(address.multiply_by_cost_factor(STRING_TRAVERSAL))
                        .add(CostEstimate::exactly(1));
                }
                // A string argument is parsed first.
                if other.ty == Type::String {
                    cost = cost.add(self.traversal(other, 1.0));
                }
                Some(CallEstimate::cost(cost))
            }
            _ => None,
        }
    }

    /// Whether Kubernetes prices the libraries 1.31 has (quantity, IP, CIDR); 1.28's
    /// `EstimateCallCost` leaves the quantity functions to cel-go.
    fn prices_131(&self) -> bool {
        self.env.cel_go() == CelGo::V020
    }

    /// A walk over a string `times` over: its size times the traversal factor.
    fn traversal(&self, string: &Node, times: f64) -> CostEstimate {
        self.library_size(string)
            .multiply_by_cost_factor(times * STRING_TRAVERSAL)
    }

    /// `replace`: a walk and a rebuild of the string; the result is longest when the shortest
    /// match is replaced by the longest replacement as often as fits, shortest conversely.
    fn replace_cost(&self, target: &Node, from: &Node, to: &Node) -> CallEstimate {
        let size = self.library_size(target);
        let from = self.library_size(from);
        let to = self.library_size(to);
        let (mut count, mut retained) = (SizeEstimate::ZERO, SizeEstimate::ZERO);
        if from.min == 0 {
            // Replacing "" surrounds every character.
            count.max = if size.max < u64::MAX { size.max + 1 } else { size.max };
            retained.max = size.max;
        } else if to.max <= from.min {
            retained.max = size.max;
        } else {
            count.max = go_f64_to_u64((size.max as f64 / from.min as f64).ceil());
        }
        if from.max == 0 {
            count.min = if size.min < u64::MAX { size.min + 1 } else { size.min };
            retained.min = size.min;
        } else if from.max <= to.min {
            retained.min = size.min;
        } else {
            count.min = go_f64_to_u64((size.min as f64 / from.max as f64).ceil());
        }
        let result = count.multiply(to).add(retained);
        CallEstimate {
            cost: size.multiply_by_cost_factor(2.0 * STRING_TRAVERSAL),
            result_size: Some(result),
        }
    }

    /// `listElementNode`: a list's element, with the list's path and `@items` when it has one
    /// (so that the items' `maxLength` is found), or `None` when the node is not a list.
    fn list_element_node(&self, list: &Node) -> Option<Node<'static>> {
        let Type::List(element) = &list.ty else { return None };
        let path = self.path_of(list).map(|path| {
            let mut path = path.to_vec();
            path.push("@items".to_string());
            NodePath::Owned(path)
        });
        Some(Node {
            path,
            ty: (**element).clone(),
            expr: None,
            derived_size: None,
        })
    }
}
