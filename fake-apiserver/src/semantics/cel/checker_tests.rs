//! The checker against the errors kube-apiserver v1.28.7 gave for the same rules
//! (`conformance/corpus/real/cel-compile.json`).

use std::sync::Arc;

use serde_json::json;

use super::*;
use crate::semantics::cel::decl_type::{DeclType, schema_decl_type};
use crate::semantics::cel::environment::Environment;

fn spec_type() -> Arc<DeclType> {
    let schema = json!({"type": "object", "properties": {
        "min": {"type": "integer"},
        "name": {"type": "string", "maxLength": 20},
        "tags": {"type": "array", "items": {"type": "string"}},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}}
    }});
    schema_decl_type(&schema, false, "selfType0").expect("declared")
}

/// The checked new rule with `self` of `decl`'s type on kube-apiserver 1.28, or its errors as
/// cel-go displays them.
fn check_rule(rule: &str, decl: &Arc<DeclType>) -> Result<Type, String> {
    check_in(rule, decl, Environment::new_expressions(28))
}

fn check_in(rule: &str, decl: &Arc<DeclType>, env: Environment) -> Result<Type, String> {
    let (expr, info) = crate::semantics::cel::compile::parser(env)
        .parse_with_source_info(rule)
        .map_err(|e| e.to_string())?;
    let self_type = decl.cel_type();
    let vars = [("self", self_type.clone()), ("oldSelf", self_type)];
    match check(&expr, &info, rule, &vars, env)
        .and_then(|checked| crate::semantics::cel::ast_validators::validated(&expr, &info, rule, checked, env))
    {
        Ok(checked) => Ok(checked.type_of(expr.id)),
        Err(found) => Err(issues::display(rule, &found)),
    }
}

#[test]
fn well_typed_rules_should_check_to_bool() {
    let decl = spec_type();
    for rule in [
        "self.min > 0",
        "has(self.name) && self.name.startsWith('a')",
        "self.tags.all(t, t.size() < 10)",
        "self.labels.exists(k, self.labels[k] == 'v')",
        "self.tags.isSorted() && self.tags.indexOf('a') >= 0",
        "self == oldSelf",
        "[1, 2].map(x, x * 2).filter(y, y > 2).size() == 1",
        "type(self.min) == int",
        "url(self.name).getScheme() == 'https'",
    ] {
        assert_eq!(check_rule(rule, &decl), Ok(Type::Bool), "{rule}");
    }
}

#[test]
fn an_undefined_field_should_be_reported_at_the_selection() {
    assert_eq!(
        check_rule("self.nope == 1", &spec_type()),
        Err("ERROR: <input>:1:5: undefined field 'nope'\n | self.nope == 1\n | ....^".into())
    );
}

#[test]
fn an_undeclared_variable_should_be_reported() {
    assert_eq!(
        check_rule("other.min == 1", &spec_type()),
        Err("ERROR: <input>:1:1: undeclared reference to 'other' (in container '')\n | other.min == 1\n | ^".into())
    );
}

#[test]
fn operands_no_overload_takes_should_be_reported_with_their_types() {
    let decl = spec_type();
    let name = decl.field("name").expect("name").clone();
    assert_eq!(
        check_rule("self > 1", &name),
        Err("ERROR: <input>:1:6: found no matching overload for '_>_' applied to '(string, int)'\n | self > 1\n | .....^".into())
    );
}

#[test]
fn an_undeclared_member_function_should_leave_its_call_untyped() {
    let name = spec_type().field("name").expect("name").clone();
    let expected = "ERROR: <input>:1:11: undeclared reference to 'shout' (in container '')\n | self.shout() == 'A'\n | ..........^\n\
                    ERROR: <input>:1:14: found no matching overload for '_==_' applied to '(<nil>, string)'\n | self.shout() == 'A'\n | .............^";
    assert_eq!(check_rule("self.shout() == 'A'", &name), Err(expected.into()));
}

#[test]
fn a_resource_root_should_see_only_name_and_generate_name_of_metadata() {
    let root = schema_decl_type(
        &json!({"type": "object", "properties": {"spec": {"type": "object"}}}),
        true,
        "selfType0",
    )
    .expect("declared");
    assert!(check_rule("self.metadata.name.size() < 20", &root).is_ok());
    let found = check_rule("size(self.metadata.labels) > 0", &root).expect_err("labels are not declared");
    assert!(
        found.starts_with("ERROR: <input>:1:19: undefined field 'labels'"),
        "{found}"
    );
}

#[test]
fn mixed_literals_should_be_refused_as_homogeneous_aggregates() {
    let found = check_rule("[1, 'a'].size() == 2", &spec_type()).expect_err("mixed list");
    assert!(
        found.starts_with("ERROR: <input>:1:5: expected type 'int' but found 'string'"),
        "{found}"
    );
}

#[test]
fn the_result_type_should_be_what_the_rule_computes() {
    assert_eq!(check_rule("self.min + 1", &spec_type()), Ok(Type::Int));
    assert_eq!(
        check_rule("self.tags", &spec_type()).map(|t| t.to_string()),
        Ok("list(string)".into())
    );
}

/// kube-apiserver v1.31.2's new rules (`conformance/corpus/real-v1.31.2/cel-compile-more.json`).
fn check_131(rule: &str) -> Result<Type, String> {
    let schema = json!({"type": "object", "properties": {
        "n": {"type": "integer"},
        "s": {"type": "string"},
        "l": {"type": "array", "items": {"type": "string"}}
    }});
    let decl = schema_decl_type(&schema, false, "selfType0").expect("declared");
    check_in(rule, &decl, Environment::new_expressions(31))
}

#[test]
fn v020_should_check_each_operand_of_a_logical_operator() {
    assert_eq!(
        check_131("self.l.all(x, x)"),
        Err(
            "ERROR: <input>:1:15: expected type 'bool' but found 'string'\n | self.l.all(x, x)\n | ..............^"
                .into()
        )
    );
}

#[test]
fn v020_should_spell_types_as_format_cel_type() {
    let found = check_131("self.s.foo == 1").expect_err("a string has no fields");
    assert!(
        found.starts_with("ERROR: <input>:1:7: type 'string' does not support field selection"),
        "{found}"
    );
    assert_eq!(
        check_131("self.?s == 'a'"),
        Err("ERROR: <input>:1:9: found no matching overload for '_==_' applied to '(optional_type(string), string)'\n | self.?s == 'a'\n | ........^".into())
    );
}

#[test]
fn v020_should_type_an_undeclared_member_call_as_an_error_without_a_second_report() {
    assert_eq!(
        check_131("self.s.shout() == 'A'"),
        Err("ERROR: <input>:1:13: undeclared reference to 'shout' (in container '')\n | self.s.shout() == 'A'\n | ............^".into())
    );
}

#[test]
fn libraries_of_the_compatibility_version_should_be_declared() {
    let on_128 = |rule: &str| check_rule(rule, &spec_type());
    for rule in [
        "self.n < 1.5",
        "quantity('1Gi').isInteger()",
        "optional.of(1).hasValue()",
        "sets.contains([1], [1])",
        "'%s'.format(['a']) == 'a'",
    ] {
        assert_eq!(check_131(rule), Ok(Type::Bool), "{rule}");
        let n_is_min = rule.replace("self.n", "self.min");
        assert!(on_128(&n_is_min).is_err(), "{rule} is new on 1.31");
    }
    assert_eq!(check_131("sign(quantity('-1')) == -1"), Ok(Type::Bool));
    let member = check_131("quantity('-1').sign() == -1").expect_err("sign is declared global");
    assert!(
        member.contains("found no matching overload for 'sign' applied to 'kubernetes.Quantity.()'"),
        "{member}"
    );
    assert_eq!(check_131("self.?s.orValue('') == ''"), Ok(Type::Bool));
    assert_eq!(
        check_131("[?optional.none(), ?optional.of(1)].size() == 1"),
        Ok(Type::Bool)
    );
}

#[test]
fn v020_should_leave_mixed_literals_to_the_homogeneous_validator() {
    let found = check_131("[1, 'a'].size() == 2").expect_err("mixed list");
    assert!(
        found.starts_with("ERROR: <input>:1:5: expected type 'int' but found 'string'"),
        "{found}"
    );
    // v0.16's checker takes `dyn` with an int; v0.20's validator compares the types as they are.
    let found = check_131("[1, dyn(2)].size() == 2").expect_err("int then dyn");
    assert!(
        found.starts_with("ERROR: <input>:1:8: expected type 'int' but found 'dyn'"),
        "{found}"
    );
    assert!(check_rule("[1, dyn(2)].size() == 2", &spec_type()).is_ok());
    // The arguments of `format` may mix types.
    assert_eq!(check_131("'%s %d'.format(['a', 1]) == 'a 1'"), Ok(Type::Bool));
}

#[test]
fn literal_arguments_should_be_validated_from_1_29() {
    let found = check_131("duration('1x') > duration('1s')").expect_err("a bad duration");
    assert_eq!(
        found,
        "ERROR: <input>:1:10: invalid duration argument\n | duration('1x') > duration('1s')\n | .........^"
    );
    assert!(check_131("timestamp('yesterday') < timestamp(0)").is_err());
    assert!(check_131("self.s.matches('[')").is_err());
    // A global call's first argument is the text, which is compiled as if it were the pattern.
    assert!(check_131("matches('[', 'a')").is_err());
    assert_eq!(
        check_131("self.s.matches('^a+$') && duration('1h') > duration('1m')"),
        Ok(Type::Bool)
    );
    assert!(check_rule("duration('1x') > duration('1s')", &spec_type()).is_ok());
}

#[test]
fn optional_macros_should_expand_and_check() {
    assert_eq!(check_131("self.?s.optMap(o, o.size()).orValue(0) < 10"), Ok(Type::Bool));
    assert_eq!(
        check_131("optional.of('a').optMap(o, o.size()).orValue(0) < 10"),
        Ok(Type::Bool)
    );
    // Each call instantiates the optional's type parameter anew.
    let rule = "(self.?s.hasValue() ? optional.of(1) : optional.none()).hasValue()";
    assert_eq!(check_131(rule), Ok(Type::Bool));
}

#[test]
fn a_library_object_type_should_be_unknown_to_the_type_provider() {
    let found = check_rule("url('https://a').host == 'a'", &spec_type()).expect_err("no fields");
    assert!(
        found.starts_with("ERROR: <input>:1:17: unexpected failed resolution of 'kubernetes.URL'"),
        "{found}"
    );
}
