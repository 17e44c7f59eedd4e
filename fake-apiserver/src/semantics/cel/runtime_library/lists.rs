//! Kubernetes' lists library (`apiserver/pkg/cel/library/lists.go`), with the check cel-go's guard makes of a list's first element against the element type of the overloads (`list(int).sum()`), as the crate's lists have none; and cel-go's sets library (`ext/sets.go`), whose elements compare with CEL's equality (`1 == 1.0`).

use std::cmp::Ordering;

use cel::common::functions::Function;
use cel::common::types::{CelBool, CelDouble, CelDuration, CelInt, CelUInt, DYN_TYPE, LIST_TYPE};
use cel::common::value::{CowVal, Val};
use cel::{DeclarationError, Env, ExecutionError};

use super::{arguments, go_error, no_such_overload};

pub(super) fn register(env: &mut Env) -> Result<(), DeclarationError> {
    let two_lists = || vec![LIST_TYPE, LIST_TYPE];
    env.add_overload("sets.contains", "list_sets_contains_list", two_lists(), contains)?;
    env.add_overload("sets.equivalent", "list_sets_equivalent_list", two_lists(), equivalent)?;
    env.add_overload("sets.intersects", "list_sets_intersects_list", two_lists(), intersects)?;
    let aggregates: [(&str, Function); 4] = [("isSorted", is_sorted), ("sum", sum), ("min", min), ("max", max)];
    for (name, function) in aggregates {
        env.add_member_overload(name, &format!("list_{name}"), LIST_TYPE, vec![], function)?;
    }
    let searches: [(&str, Function); 2] = [("indexOf", index_of), ("lastIndexOf", last_index_of)];
    for (name, function) in searches {
        let id = format!("list_a_{name}_int");
        env.add_member_overload(name, &id, LIST_TYPE, vec![DYN_TYPE], function)?;
    }
    Ok(())
}

/// The types of the `comparableTypes` overloads, which are also those with cel-go's `Comparer`.
const COMPARABLE: &[&str] = &[
    "int",
    "uint",
    "double",
    "bool",
    "google.protobuf.Duration",
    "google.protobuf.Timestamp",
    "string",
    "bytes",
];

/// The types of the `summableTypes` overloads.
const SUMMABLE: &[&str] = &["int", "uint", "double", "google.protobuf.Duration"];

/// The elements of the list a call targets, after the overload's guard (`function` declared
/// for lists of `types`) accepted its first one.
fn guarded_elements<'a, 'v>(
    function: &str,
    args: &'a [CowVal<'_, 'v>],
    types: &[&str],
) -> Result<Vec<&'a (dyn Val + 'v)>, ExecutionError> {
    let [list] = arguments(args)?;
    let mut elements = Vec::new();
    if let Some(iterable) = list.as_iterable() {
        let mut iterator = iterable.iter();
        while let Some(element) = iterator.next() {
            elements.push(element);
        }
    }
    match elements.first() {
        Some(first) if !types.contains(&first.get_type().name()) => Err(no_such_overload(function, args)),
        _ => Ok(elements),
    }
}

/// How `element` compares to `other`; cel-go's `Compare` errors (a NaN, another type) are
/// neither `IntOne` nor `IntNegOne`, and so leave the aggregates unchanged.
fn compare(element: &dyn Val, other: &dyn Val) -> Result<Option<Ordering>, ExecutionError> {
    let comparer = element
        .as_comparer()
        .filter(|_| COMPARABLE.contains(&element.get_type().name()))
        .ok_or_else(|| go_error("compare", "no such overload"))?;
    if !COMPARABLE.contains(&other.get_type().name()) {
        return Err(go_error("compare", "no such overload"));
    }
    Ok(comparer.compare(other).ok())
}

fn is_sorted<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let elements = guarded_elements("isSorted", &args, COMPARABLE)?;
    let mut sorted = true;
    for pair in elements.windows(2) {
        if compare(pair[0], pair[1])? == Some(Ordering::Greater) {
            sorted = false;
            break;
        }
    }
    Ok(CowVal::owned(CelBool::from(sorted)))
}

fn min<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    extreme("min", Ordering::Greater, &args)
}

fn max<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    extreme("max", Ordering::Less, &args)
}

/// The first element the others don't beat: `replace_when` is how the one kept so far compares
/// to an element that replaces it.
fn extreme<'b, 'v>(
    function: &str,
    replace_when: Ordering,
    args: &[CowVal<'_, 'v>],
) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let elements = guarded_elements(function, args, COMPARABLE)?;
    let (first, rest) = elements
        .split_first()
        .ok_or_else(|| go_error(function, format!("{function} called on empty list")))?;
    let mut kept = *first;
    for &element in rest {
        if compare(kept, element)? == Some(replace_when) {
            kept = element;
        }
    }
    Ok(CowVal::Owned(kept.clone_as_boxed()))
}

/// The elements added up, from the zero of the first one's type (`int` for an empty list, the
/// first of the overloads cel-go's dispatch tries).
fn sum<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let elements = guarded_elements("sum", &args, SUMMABLE)?;
    let mut total: Box<dyn Val + 'v> = match elements.first().map(|e| e.get_type().name()) {
        Some("uint") => Box::new(CelUInt::from(0u64)),
        Some("double") => Box::new(CelDouble::from(0.0)),
        Some("google.protobuf.Duration") => Box::new(CelDuration::default()),
        _ => Box::new(CelInt::from(0i64)),
    };
    for element in elements {
        let adder = total.as_adder().ok_or_else(|| go_error("sum", "no such overload"))?;
        // An error is the crate's for `total + element`, which go_error_text words as Go's.
        let next = adder.add(element)?.into_owned();
        total = next;
    }
    Ok(CowVal::Owned(total))
}

fn index_of<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    position(&args, false)
}

fn last_index_of<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    position(&args, true)
}

/// The index of the first (or last) element equal to the item, or -1.
fn position<'b, 'v>(args: &[CowVal<'_, 'v>], last: bool) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let [list, item] = arguments(args)?;
    let mut elements = Vec::new();
    if let Some(iterable) = list.as_iterable() {
        let mut iterator = iterable.iter();
        while let Some(element) = iterator.next() {
            elements.push(element);
        }
    }
    let equal = |i: &usize| elements[*i].equals(item);
    let found = if last {
        (0..elements.len()).rev().find(equal)
    } else {
        (0..elements.len()).find(equal)
    };
    Ok(CowVal::owned(CelInt::from(found.map_or(-1, |i| i as i64))))
}

/// The elements of a list argument.
fn elements<'a, 'v>(function: &str, list: &'a (dyn Val + 'v)) -> Result<Vec<&'a (dyn Val + 'v)>, ExecutionError> {
    let iterable = list
        .as_iterable()
        .ok_or_else(|| go_error(function, "no such overload"))?;
    let mut items = Vec::new();
    let mut iterator = iterable.iter();
    while let Some(item) = iterator.next() {
        items.push(item);
    }
    Ok(items)
}

/// `setsContains`: every element of `sublist` is in `list`.
fn all_in(list: &[&dyn Val], sublist: &[&dyn Val]) -> bool {
    sublist.iter().all(|x| list.iter().any(|y| y.equals(*x)))
}

/// The elements of the two lists a sets function takes.
type TwoLists<'a, 'v> = (Vec<&'a (dyn Val + 'v)>, Vec<&'a (dyn Val + 'v)>);

fn lists<'a, 'v>(function: &str, args: &'a [CowVal<'_, 'v>]) -> Result<TwoLists<'a, 'v>, ExecutionError> {
    let [a, b] = arguments(args)?;
    Ok((elements(function, a)?, elements(function, b)?))
}

fn contains<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let (list, sublist) = lists("sets.contains", &args)?;
    Ok(CowVal::owned(CelBool::from(all_in(&list, &sublist))))
}

fn equivalent<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let (a, b) = lists("sets.equivalent", &args)?;
    Ok(CowVal::owned(CelBool::from(all_in(&a, &b) && all_in(&b, &a))))
}

fn intersects<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let (a, b) = lists("sets.intersects", &args)?;
    Ok(CowVal::owned(CelBool::from(
        a.iter().any(|x| b.iter().any(|y| y.equals(*x))),
    )))
}

#[cfg(test)]
mod tests {
    // Expected values are cel-go v0.16.1's with `library.Lists()`.
    use super::super::tests::check;

    #[test]
    fn is_sorted_ignores_comparisons_that_fail() {
        check("[1, 2, 2, 3].isSorted()", Ok(true.into()));
        check("['b', 'a'].isSorted()", Ok(false.into()));
        check("[].isSorted()", Ok(true.into()));
        check(
            "[timestamp('2000-01-01T00:00:00Z'), timestamp('1999-01-01T00:00:00Z')].isSorted()",
            Ok(false.into()),
        );
        // Go's Compare of 2 and 'a' is an error value, which is not IntOne.
        check("[2, dyn('a'), 1].isSorted()", Ok(true.into()));
        check("[1.0, double('NaN')].isSorted()", Ok(true.into()));
        check(
            "[dyn([1]), dyn([0])].isSorted()",
            Err("no such overload: isSorted(list)"),
        );
        check("[1, dyn({})].isSorted()", Err("no such overload"));
    }

    #[test]
    fn min_and_max_keep_the_first_extreme() {
        check("[1, 3, 2].max()", Ok(3.into()));
        check("[3, 1, 2].min()", Ok(1.into()));
        check("['b', 'a', 'c'].min()", Ok("a".into()));
        check("[1, dyn(true)].min()", Ok(1.into()));
        check("[1, dyn('a'), 0].min()", Ok(0.into()));
        check("[2.0, double('NaN'), 1.0].max()", Ok(2.0.into()));
        check("[].min()", Err("min called on empty list"));
        check("[].max()", Err("max called on empty list"));
        check("[dyn({})].max()", Err("no such overload: max(list)"));
    }

    #[test]
    fn sum_starts_from_the_zero_of_the_elements_type() {
        check("[1, 2, 3].sum()", Ok(6.into()));
        check("[1u, 2u].sum()", Ok(3u64.into()));
        check("[1.5, 2.0].sum()", Ok(3.5.into()));
        check(
            "[duration('1s'), duration('2s')].sum() == duration('3s')",
            Ok(true.into()),
        );
        check("[].sum()", Ok(0.into()));
        check("[9223372036854775807, 1].sum()", Err("integer overflow"));
        check("[1, dyn('a')].sum()", Err("no such overload"));
        check("[1.5, dyn(2)].sum()", Err("no such overload"));
        check("dyn(['a']).sum()", Err("no such overload: sum(list)"));
    }

    #[test]
    fn index_of_uses_cel_equality() {
        check("[1, 2, 1].indexOf(1)", Ok(0.into()));
        check("[1, 2, 1].lastIndexOf(1)", Ok(2.into()));
        check("[1, 2].indexOf(3)", Ok((-1).into()));
        check("[dyn(1), dyn(2.0)].indexOf(dyn(2u))", Ok(1.into()));
        check("[[1], [2]].lastIndexOf([2])", Ok(1.into()));
        check("dyn(1).indexOf(1)", Err("no such overload: indexOf(int, int)"));
        check("dyn(1).sum()", Err("no such overload: sum(int)"));
    }

    #[test]
    fn sets_should_compare_elements_by_value() {
        check("sets.contains([1, 2, 3, 4], [2, 3])", Ok(true.into()));
        check("sets.contains([1, 2.0, 3u], [1.0, 2u, 3])", Ok(true.into()));
        check("sets.contains([1], [])", Ok(true.into()));
        check(
            "sets.equivalent([1], [1u, 1.0]) && !sets.equivalent([1, 2], [1])",
            Ok(true.into()),
        );
        check("sets.intersects([[1], [2, 3]], [[1, 2], [2, 3.0]])", Ok(true.into()));
        check("sets.intersects([1], [])", Ok(false.into()));
    }
}
