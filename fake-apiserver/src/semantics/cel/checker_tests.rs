//! The checker against the errors kube-apiserver v1.28.7 gave for the same rules
//! (`conformance/corpus/real/cel-compile.json`).

use std::sync::Arc;

use cel::parser::Parser;
use serde_json::json;

use super::*;
use crate::semantics::cel::decl_type::{DeclType, schema_decl_type};

fn spec_type() -> Arc<DeclType> {
    let schema = json!({"type": "object", "properties": {
        "min": {"type": "integer"},
        "name": {"type": "string", "maxLength": 20},
        "tags": {"type": "array", "items": {"type": "string"}},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}}
    }});
    schema_decl_type(&schema, false, "selfType0").expect("declared")
}

/// The checked rule with `self` of `decl`'s type, or its errors as cel-go displays them.
fn check_rule(rule: &str, decl: &Arc<DeclType>) -> Result<Type, String> {
    let (expr, info) = Parser::default()
        .parse_with_source_info(rule)
        .map_err(|e| e.to_string())?;
    let self_type = decl.cel_type();
    let vars = [("self", self_type.clone()), ("oldSelf", self_type)];
    match check(&expr, &info, rule, &vars) {
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
