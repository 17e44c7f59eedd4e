//! Estimates worked out by hand from cel-go v0.16.1's `checker/cost.go` and Kubernetes'
//! `library/cost.go`, and the verdicts kube-apiserver v1.28.7 gave on real CRDs.

use std::sync::Arc;

use cel::parser::Parser;
use serde_json::{Value, json};

use super::*;
use crate::semantics::cel::checker::check;
use crate::semantics::cel::decl_type::schema_decl_type;
use crate::semantics::cel::environment::Environment;

/// `StaticEstimatedCostLimit`: the most one rule may cost.
const PER_RULE_LIMIT: u64 = 10_000_000;

fn root(schema: Value) -> Arc<DeclType> {
    schema_decl_type(&schema, false, "selfType0").expect("declared")
}

/// The object of the ground-truth CRD: bounded lists, strings and a map.
fn bounded() -> Arc<DeclType> {
    root(json!({"type": "object", "properties": {
        "words": {"type": "array", "maxItems": 10, "items": {"type": "string", "maxLength": 20}},
        "nums": {"type": "array", "maxItems": 10, "items": {"type": "integer"}},
        "name": {"type": "string", "maxLength": 20},
        "link": {"type": "string", "maxLength": 100},
        "opts": {"type": "object", "maxProperties": 5, "additionalProperties": {"type": "string", "maxLength": 10}},
        "max": {"type": "integer"}
    }}))
}

/// A new rule's cost on kube-apiserver 1.28.
fn cost(source: &str, root: &Arc<DeclType>) -> CostEstimate {
    cost_in(source, root, Environment::new_expressions(28))
}

fn cost_in(source: &str, root: &Arc<DeclType>, env: Environment) -> CostEstimate {
    let (expr, info) = Parser::default()
        .enable_optional_syntax(true)
        .parse_with_source_info(source)
        .expect("parses");
    let t = root.cel_type();
    let checked = check(&expr, &info, source, &[("self", t.clone()), ("oldSelf", t)], env).expect("checks");
    estimate(&expr, &checked, root, env)
}

fn range(min: u64, max: u64) -> CostEstimate {
    CostEstimate { min, max }
}

#[test]
fn bounded_comprehensions_and_list_functions_should_cost_as_cel_go() {
    let decl = bounded();
    // costComprehension: range `self.words` 2 + result 1 + {0,10} × (loop 2 + step). The step is
    // `_&&_` {1, 1 + matches}; matches_string: ({0,80} + 1) × 0.1 = {1,9} times 8 × 0.25 = 2,
    // plus the target 1: {3,19}. So {3, 3 + 10 × 22}. isSorted (library): {0,10} × (1 + {0,80} ×
    // 0.1) + target 2 = {2,92}. `&&`: {3, 223 + 92}.
    assert_eq!(
        cost(
            "self.words.all(w, w.matches('^[a-z]+$')) && self.words.isSorted()",
            &decl
        ),
        range(3, 315)
    );
    // sum/min/indexOf: {0,10} × 1 + target 2; `<`, `>=`: 1 + that = {3,13}; `!=` of two ints:
    // sizes {1,1} (isScalar) and {1,1} (literal) so 0.1 → 1, plus {2,12}.
    let nums = "self.nums.sum() < 100 && self.nums.min() >= 0 && self.nums.indexOf(3) != 0";
    assert_eq!(cost(nums, &decl), range(3, 39));
    // String indexOf: {0,80} × 0.1 + 2 then `<` {3,11}; split: {0,80} × 0.2 + 2, size() +1,
    // `<` +1: {4,20}; upperAscii {2,10}, `!=` against a 1-character literal +{1,1}: {3,11}.
    let strings = "self.name.indexOf('x') < 5 && self.name.split('-').size() < 3 && self.name.upperAscii() != 'X'";
    assert_eq!(cost(strings, &decl), range(3, 42));
}

#[test]
fn urls_regexes_and_maps_should_cost_as_kubernetes() {
    let decl = bounded();
    // `!has()`: 1 + 1 + 1; isURL: 1 + 2; url: {0,400} × 0.1 + 2, getHost +1 = {3,43}, compared
    // with '' (size 0): +0. `&&` {3,46}, `||` {3,49}.
    assert_eq!(
        cost(
            "!has(self.link) || isURL(self.link) && url(self.link).getHost() != ''",
            &decl
        ),
        range(3, 49)
    );
    // find: ({0,80} + 1) × 0.1 = {1,9} times ceil(6 × 0.25) = 2, + target 2 = {4,20}; findAll
    // with 'a': {1,9} × 1 + 2, size() and `>=` +2 = {5,13}. `||`: {4, 33}.
    assert_eq!(
        cost(
            "self.name.find('[0-9]+') != '' || self.name.findAll('a').size() >= 0",
            &decl
        ),
        range(4, 33)
    );
    // exists: keys are StringType (size 0) so `k == 'a'` is 1 (k); loop 3, step `||` {1,2}:
    // 2 + 1 + {0,5} × {4,5} = {3,28}. all: `self.opts[k]` is 4, `!= ''` 0, step {1,5}, loop 2:
    // 2 + 1 + {0,5} × {3,7} = {3,38}.
    assert_eq!(
        cost(
            "self.opts.exists(k, k == 'a') && self.opts.all(k, self.opts[k] != '')",
            &decl
        ),
        range(3, 66)
    );
}

#[test]
fn result_sizes_should_flow_into_the_callers() {
    let decl = bounded();
    // replace 'a' by 'bb' in {0,80}: at most 80 replacements of 2, so {0,160}; cost {0,80} × 0.2
    // + 2. contains: {0,160} × 0.1 = {0,16} times {1,1}: {2, 18 + 16}.
    assert_eq!(cost("self.name.replace('a', 'bb').contains('x')", &decl), range(2, 34));
    // join: {0,10} × {0,80} + ', ' × {0,9} = {0,818}, cost ceil(81.8) = 82 + 2; contains {0,82}.
    assert_eq!(cost("self.words.join(', ').contains('x')", &decl), range(2, 166));
    // split with a constant limit sizes {0,3}; the range has no path, so `p`'s is ["@items"],
    // which Kubernetes resolves to the root object itself (MaxElements 0): `p == 'x'` is 1.
    // {2,18} + 1 + {0,3} × (2 + {1,2}).
    assert_eq!(cost("self.name.split('-', 3).all(p, p == 'x')", &decl), range(3, 31));
}

#[test]
fn an_unbounded_list_in_list_should_convert_as_go_on_amd64() {
    // map: 2 + [] 10 + result 1 + {0,10} × (`@result + [w]`: 1 + 1 + 11) = {13,143}. in_list:
    // the comprehension's size is unbounded; × 1.0 in float64 is 2^64, which Go turns into 2^63.
    assert_eq!(
        cost("'a' in self.words.map(w, w)", &bounded()),
        range(13, (1 << 63) + 143)
    );
}

#[test]
fn sibling_paths_should_share_an_array_as_in_go() {
    let items = json!({"type": "object", "properties": {
        "name": {"type": "string", "maxLength": 5},
        "image": {"type": "string", "maxLength": 100}
    }});
    let d = json!({"type": "array", "maxItems": 10, "items": items});
    let nest = |inner: Value, name: &str| json!({"type": "object", "properties": {name: inner}});
    let decl = root(nest(nest(nest(nest(d, "d"), "c"), "b"), "a"));
    // `self.a.b.c.d` is a path of 5 in an array of 8, so `x.name` and `x.image` write the same
    // slot; the target is costed after the argument, which then reads `image`: {0,400} × 0.1.
    // startsWith {0,40} + 2 + target 2 = {4,44}; 5 + 1 + {0,10} × (2 + {1,45}).
    assert_eq!(
        cost("self.a.b.c.d.all(x, x.image.startsWith(x.name))", &decl),
        range(6, 476)
    );
}

#[test]
fn rules_kube_apiserver_rejected_should_exceed_the_budget_a_hundredfold() {
    let unbounded = root(json!({"type": "array", "items": {"type": "string"}}));
    // 1048575 strings of up to 3145726 bytes. The step's max is 1 + (1 + ceil(3145727 × 0.1) ×
    // 2) = 629148; with the loop's 2, 629150 per element, plus the range and result, 2.
    let estimate = cost("self.all(w, w.matches('^[a-z]+$'))", &unbounded);
    assert_eq!(estimate, range(2, 2 + 1_048_575 * 629_150));
    assert!(estimate.max > 100 * PER_RULE_LIMIT);
    // string(int) has no size bound: the concatenation walks up to 2^64 × 0.1 characters.
    let message = cost("'max must be 0 when off, got ' + string(self.max)", &bounded());
    assert_eq!(message, range(6, 1_844_674_407_370_955_264 + 3));
    let counter = root(json!({"type": "integer"}));
    let message = cost(
        "'counter went down from ' + string(oldSelf) + ' to ' + string(self)",
        &counter,
    );
    assert!(message.max > 100 * PER_RULE_LIMIT);
}

#[test]
fn rules_kube_apiserver_accepted_should_fit_the_budget() {
    let decl = bounded();
    for rule in [
        "self.words.all(w, w.matches('^[a-z]+$')) && self.words.isSorted()",
        "self.nums.sum() < 100 && self.nums.min() >= 0 && self.nums.indexOf(3) != 0",
        "self.name.indexOf('x') < 5 && self.name.split('-').size() < 3 && self.name.upperAscii() != 'X'",
        "!has(self.link) || isURL(self.link) && url(self.link).getHost() != ''",
        "self.name.find('[0-9]+') != '' || self.name.findAll('a').size() >= 0",
        "self.opts.exists(k, k == 'a') && self.opts.all(k, self.opts[k] != '')",
    ] {
        assert!(cost(rule, &decl).max <= PER_RULE_LIMIT, "{rule}");
    }
    // `self` is the string: its path is just the variable, sized by the root (63 × 4 = 252).
    // Literal 10 + {0,252}, × 0.1 = {1,27}, + self 1.
    let host = root(json!({"type": "string", "maxLength": 63}));
    assert_eq!(cost("'bad host: ' + self", &host), range(2, 28));
    // metadata.name is unbounded, but only the literal prefix is walked: 3 + 1.
    let resource = schema_decl_type(&json!({"type": "object", "properties": {}}), true, "selfType0").expect("declared");
    assert_eq!(cost("self.metadata.name.startsWith('g')", &resource), range(4, 4));
}

/// kube-apiserver 1.31's estimates (cel-go v0.20.1; `real-v1.31.2/cel-libraries-compile.json`).
#[test]
fn v020_should_price_sets_and_size_comprehension_results() {
    let decl = root(json!({"type": "object", "properties": {
        "bl": {"type": "array", "maxItems": 4000, "items": {"type": "string", "maxLength": 10}}
    }}));
    let on_131 = Environment::new_expressions(31);
    // estimateSetsCost(2): 4000 × 4000 × 2 + 1, plus `self.bl` twice (2 each): 3.2× the limit.
    assert_eq!(
        cost_in("sets.equivalent(self.bl, self.bl)", &decl, on_131),
        range(5, 32_000_005)
    );
    // `map` yields at most as many items as it ranges over, so `all` over it is bounded.
    let mapped = cost_in("self.bl.map(x, x + x).all(y, y.size() < 30)", &decl, on_131);
    assert!(mapped.max < PER_RULE_LIMIT, "{mapped:?}");
    let stored_128 = Environment::stored_expressions(28);
    let unbounded = cost_in("self.bl.map(x, x + x).all(y, y.size() < 30)", &decl, stored_128);
    assert!(unbounded.max > PER_RULE_LIMIT, "{unbounded:?}");
    // `has()` is free on 1.31.
    assert_eq!(cost_in("has(self.bl)", &decl, on_131), range(1, 1));
    assert_eq!(cost_in("has(self.bl)", &decl, stored_128), range(2, 2));
}
