//! The evaluator of client-go's JSONPath (`util/jsonpath/jsonpath.go`, the same in
//! kube-apiserver v1.28 and v1.31): `FindResults` and the walk of each node, on a JSON object.

use std::cell::Cell;

use serde_json::Value;

use super::parser::parse;
use super::syntax::{Node, Param, ParseError};
use super::value::{self, CompareError, Found};

/// Why a walk fails, in the words of `jsonpath.go`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum EvalError {
    #[error("{0} is not found")]
    NotFound(String),
    #[error("not in range, nothing to end")]
    NotInRange,
    #[error("unrecognized identifier {0}")]
    Identifier(String),
    #[error("{0} is not array or slice")]
    NotArray(&'static str),
    #[error("array index out of bounds: index {index}, length {length}")]
    OutOfBounds { index: i64, length: i64 },
    #[error("starting index {start} is greater than ending index {end}")]
    StartAfterEnd { start: i64, end: i64 },
    #[error("step must be > 0")]
    Step,
    #[error("{0} is not array or slice and cannot be filtered")]
    NotFilterable(String),
    #[error("can only compare one element at a time")]
    CompareOne,
    #[error("unrecognized filter operator {0}")]
    Operator(String),
    #[error(transparent)]
    Compare(#[from] CompareError),
    /// Where Go panics: indexing the zero `Value` a `range` over nothing walks.
    #[error("reflect: call of reflect.Value.Type on zero Value")]
    ZeroValue,
}

/// What a walk gives back. Go returns values alongside an error, and an `exists` filter keeps
/// an item when its path gave values even though it failed (`[?(@.a[9])]`).
type Walked<'a> = (Vec<Found<'a>>, Option<EvalError>);

/// A parsed template and the state Go keeps on its `JSONPath` between calls.
#[derive(Debug)]
pub(crate) struct JsonPath {
    root: Vec<Node>,
    allow_missing_keys: bool,
    /// Where `j.parser.Root.Nodes` starts: `FindResults` re-slices it to a range's body and
    /// never restores it, so a template with a range reads differently the next time.
    root_start: Cell<usize>,
    begin_range: Cell<usize>,
    in_range: Cell<usize>,
    end_range: Cell<usize>,
    /// The root node of the last `end` seen (`lastEndNode`).
    last_end: Cell<Option<usize>>,
}

impl JsonPath {
    /// `New(…).Parse(text)`.
    pub(crate) fn parse(text: &str) -> Result<Self, ParseError> {
        Ok(Self {
            root: parse(text)?,
            allow_missing_keys: false,
            root_start: Cell::new(0),
            begin_range: Cell::new(0),
            in_range: Cell::new(0),
            end_range: Cell::new(0),
            last_end: Cell::new(None),
        })
    }

    /// `AllowMissingKeys`: a missing key gives nothing rather than an error.
    pub(crate) fn allow_missing_keys(mut self, allow: bool) -> Self {
        self.allow_missing_keys = allow;
        self
    }

    /// `FindResults`: the values of each of the root's nodes on `data`, a range's body giving
    /// one set for each value it ranges over.
    pub(crate) fn find_results<'a>(&'a self, data: &'a Value) -> Result<Vec<Vec<Found<'a>>>, EvalError> {
        self.find(Found::of(data).rewrapped())
    }

    fn find<'a>(&'a self, data: Found<'a>) -> Result<Vec<Vec<Found<'a>>>, EvalError> {
        let base = self.root_start.get();
        let nodes = &self.root[base.min(self.root.len())..];
        let mut full = Vec::new();
        let mut i = 0;
        while i < nodes.len() {
            let (results, error) = self.walk(vec![data], &nodes[i]);
            if let Some(error) = error {
                return Err(error);
            }
            if self.end_range.get() > 0 && self.end_range.get() <= self.in_range.get() {
                decrement(&self.end_range);
                self.last_end.set(Some(base + i));
                break;
            }
            if self.begin_range.get() > 0 {
                decrement(&self.begin_range);
                self.in_range.set(self.in_range.get() + 1);
                self.root_start.set(base + i + 1);
                if results.is_empty() {
                    // Walked for its `end`, from nothing.
                    self.find(Found::Invalid)?;
                }
                for value in results {
                    self.root_start.set(base + i + 1);
                    full.extend(self.find(value.rewrapped())?);
                }
                decrement(&self.in_range);
                if let Some(end) = (i + 1..nodes.len()).find(|k| self.last_end.get() == Some(base + k)) {
                    i = end;
                }
                i += 1;
                continue;
            }
            full.push(results);
            i += 1;
        }
        Ok(full)
    }

    fn walk<'a>(&'a self, input: Vec<Found<'a>>, node: &'a Node) -> Walked<'a> {
        match node {
            Node::List(nodes) => self.eval_list(input, nodes),
            Node::Text(text) => (vec![Found::String(text)], None),
            Node::Field(name) => self.eval_field(input, name),
            Node::Array(params) => eval_array(input, params),
            Node::Filter { left, right, operator } => self.eval_filter(input, left, right, operator),
            Node::Int(n) => (vec![Found::Int(*n); input.len()], None),
            Node::Float(f) => (vec![Found::Float64(*f); input.len()], None),
            Node::Bool(b) => (vec![Found::Bool(*b); input.len()], None),
            Node::Wildcard => (
                input
                    .into_iter()
                    .filter_map(Found::indirect)
                    .flat_map(Found::children)
                    .collect(),
                None,
            ),
            Node::Recursive => (eval_recursive(input), None),
            Node::Union(lists) => self.eval_union(input, lists),
            Node::Identifier(name) => self.eval_identifier(input, name),
        }
    }

    fn eval_list<'a>(&'a self, input: Vec<Found<'a>>, nodes: &'a [Node]) -> Walked<'a> {
        let mut current = input;
        for node in nodes {
            let (next, error) = self.walk(current, node);
            if error.is_some() {
                return (next, error);
            }
            current = next;
        }
        (current, None)
    }

    /// `range` marks the values to range over; `end` closes the innermost range.
    fn eval_identifier<'a>(&self, input: Vec<Found<'a>>, name: &str) -> Walked<'a> {
        match name {
            "range" => {
                self.begin_range.set(self.begin_range.get() + 1);
                (input, None)
            }
            "end" if self.in_range.get() > 0 => {
                self.end_range.set(self.end_range.get() + 1);
                (Vec::new(), None)
            }
            "end" => (Vec::new(), Some(EvalError::NotInRange)),
            _ => (input, Some(EvalError::Identifier(name.to_owned()))),
        }
    }

    fn eval_union<'a>(&'a self, input: Vec<Found<'a>>, lists: &'a [Vec<Node>]) -> Walked<'a> {
        let mut result = Vec::new();
        for list in lists {
            match self.eval_list(input.clone(), list) {
                (values, None) => result.extend(values),
                (_, error) => return (input, error),
            }
        }
        (result, None)
    }

    /// A key of each map; nothing at all is an error unless missing keys are allowed.
    fn eval_field<'a>(&self, input: Vec<Found<'a>>, name: &str) -> Walked<'a> {
        if input.is_empty() {
            return (input, None);
        }
        let results: Vec<Found<'a>> = input
            .into_iter()
            .filter_map(|value| match value {
                Found::Map(map) => map.get(name).map(Found::of),
                _ => None,
            })
            .collect();
        if results.is_empty() && !self.allow_missing_keys {
            return (results, Some(EvalError::NotFound(name.to_owned())));
        }
        (results, None)
    }

    /// The items of each slice for which `left operator right` holds, or `left` gives anything.
    fn eval_filter<'a>(
        &'a self,
        input: Vec<Found<'a>>,
        left: &'a [Node],
        right: &'a [Node],
        operator: &str,
    ) -> Walked<'a> {
        let mut results = Vec::new();
        for value in input.clone() {
            let Found::Slice(items) = value else {
                return (input, Some(EvalError::NotFilterable(value::go_fmt(value))));
            };
            for item in items {
                let temp = vec![Found::of(item)];
                let (lefts, error) = self.eval_list(temp.clone(), left);
                if operator == "exists" {
                    if !lefts.is_empty() {
                        results.push(Found::of(item));
                    }
                    continue;
                }
                if error.is_some() {
                    return (input, error);
                }
                let left = match lefts[..] {
                    [] => continue,
                    [one] => one,
                    _ => return (input, Some(EvalError::CompareOne)),
                };
                let right = match self.eval_list(temp, right) {
                    (_, Some(error)) => return (input, Some(error)),
                    (rights, None) => match rights[..] {
                        [] => continue,
                        [one] => one,
                        _ => return (input, Some(EvalError::CompareOne)),
                    },
                };
                let pass = match operator {
                    "<" => value::less(left, right),
                    ">" => value::less_equal(left, right).map(|le| !le),
                    "==" => value::equal(left, right),
                    "!=" => value::equal(left, right).map(|eq| !eq),
                    "<=" => value::less_equal(left, right),
                    ">=" => value::less(left, right).map(|lt| !lt),
                    _ => return (results, Some(EvalError::Operator(operator.to_owned()))),
                };
                match pass {
                    Ok(true) => results.push(Found::of(item)),
                    Ok(false) => {}
                    Err(error) => return (results, Some(error.into())),
                }
            }
        }
        (results, None)
    }
}

fn decrement(counter: &Cell<usize>) {
    counter.set(counter.get().saturating_sub(1));
}

/// `evalArray`: `[start:end:step]` of each slice, with Go's bounds: negative bounds count from
/// the end, an empty selection ends the walk, a bound outside the slice is an error.
fn eval_array<'a>(input: Vec<Found<'a>>, params: &[Param; 3]) -> Walked<'a> {
    let mut result = Vec::new();
    for value in input.clone().into_iter().filter_map(Found::indirect) {
        let items = match value {
            Found::Slice(items) => items,
            other => {
                return (
                    input,
                    Some(other.go_type().map_or(EvalError::ZeroValue, EvalError::NotArray)),
                );
            }
        };
        let length = i64::try_from(items.len()).unwrap_or(i64::MAX);
        let mut p = *params;
        if !p[0].known {
            p[0].value = 0;
        }
        if p[0].value < 0 {
            p[0].value = p[0].value.wrapping_add(length);
        }
        if !p[1].known {
            p[1].value = length;
        }
        if p[1].value < 0 || (p[1].value == 0 && p[1].derived) {
            p[1].value = p[1].value.wrapping_add(length);
        }
        let (start, end) = (p[0].value, p[1].value);
        if start == end {
            // Go returns here, leaving any further input unwalked.
            return (result, None);
        }
        let error = if !(0..length).contains(&start) {
            Some(EvalError::OutOfBounds { index: start, length })
        } else if !(0..=length).contains(&end) {
            Some(EvalError::OutOfBounds {
                index: end.wrapping_sub(1),
                length,
            })
        } else if start > end {
            Some(EvalError::StartAfterEnd { start, end })
        } else {
            None
        };
        if error.is_some() {
            return (input, error);
        }
        let step = match p[2] {
            Param { known: true, value, .. } if value <= 0 => return (input, Some(EvalError::Step)),
            Param { known: true, value, .. } => usize::try_from(value).unwrap_or(usize::MAX),
            _ => 1,
        };
        // Both bounds are within 0..=length here.
        let selected = &items[start as usize..end as usize];
        result.extend(selected.iter().step_by(step).map(Found::of));
    }
    (result, None)
}

/// `evalRecursive`: each value that has children, then its descendants, depth first.
fn eval_recursive(input: Vec<Found<'_>>) -> Vec<Found<'_>> {
    let mut result = Vec::new();
    for value in input.into_iter().filter_map(Found::indirect) {
        let children = value.children();
        if !children.is_empty() {
            result.push(value);
            result.extend(eval_recursive(children));
        }
    }
    result
}
