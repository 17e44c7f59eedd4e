//! Value validations in a structural schema (`validateValueValidation` and
//! `validateNestedValueValidation`): what the logical junctors `allOf`, `anyOf`, `oneOf` and `not`
//! may not hold, and the shapes Go compares with `reflect.DeepEqual` against its zero values.

use serde_json::Value;

use super::{child, flag, go_pattern, index, items, key, list, properties, property, set, string};
use crate::semantics::field_error::{BadValue, FieldError};

/// `validateValueValidation`: the junctors of `s` at `path`, and its `pattern`.
/// `skip_any_of` and `skip_first_all_of_any_of` leave out the int-or-string shapes.
pub(super) fn value_validation(
    s: &Value,
    skip_any_of: bool,
    skip_first_all_of_any_of: bool,
    path: &str,
    errors: &mut Vec<FieldError>,
) {
    if !skip_any_of {
        for (i, clause) in list(s, "anyOf").iter().enumerate() {
            nested(clause, false, &index(&child(path, "anyOf"), i), errors);
        }
    }
    for (i, clause) in list(s, "allOf").iter().enumerate() {
        let skip = skip_first_all_of_any_of && i == 0;
        nested(clause, skip, &index(&child(path, "allOf"), i), errors);
    }
    for (i, clause) in list(s, "oneOf").iter().enumerate() {
        nested(clause, false, &index(&child(path, "oneOf"), i), errors);
    }
    if let Some(not) = set(s, "not") {
        nested(not, false, &child(path, "not"), errors);
    }
    let pattern = string(s, "pattern");
    if !pattern.is_empty()
        && let Some(why) = go_pattern::compile_error(pattern)
    {
        errors.push(FieldError::invalid(
            child(path, "pattern"),
            BadValue::Str(pattern.to_owned()),
            format!("must be a valid regular expression, but isn't: {why}"),
        ));
    }
}

/// `validateNestedValueValidation`: a schema under a junctor, which may only restrict values.
fn nested(v: &Value, skip_any_of: bool, path: &str, errors: &mut Vec<FieldError>) {
    const EMPTY: &str = "must be empty to be structural";
    const UNDEFINED: &str = "must be undefined to be structural";
    const FALSE: &str = "must be false to be structural";

    value_validation(v, skip_any_of, false, path, errors);
    if let Some(items) = items(v) {
        nested(items, false, &child(path, "items"), errors);
    }
    for (name, property) in properties(v) {
        nested(property, false, &key(&child(path, "properties"), name), errors);
    }

    let forbidden = [
        ("type", !string(v, "type").is_empty(), EMPTY),
        (
            "additionalProperties",
            set(v, "additionalProperties").is_some(),
            UNDEFINED,
        ),
        ("default", set(v, "default").is_some(), UNDEFINED),
        ("title", !string(v, "title").is_empty(), EMPTY),
        ("description", !string(v, "description").is_empty(), EMPTY),
        ("nullable", flag(v, "nullable"), FALSE),
        (
            "x-kubernetes-preserve-unknown-fields",
            flag(v, "x-kubernetes-preserve-unknown-fields"),
            FALSE,
        ),
        (
            "x-kubernetes-embedded-resource",
            flag(v, "x-kubernetes-embedded-resource"),
            FALSE,
        ),
        (
            "x-kubernetes-int-or-string",
            flag(v, "x-kubernetes-int-or-string"),
            FALSE,
        ),
        (
            "x-kubernetes-list-map-keys",
            !list(v, "x-kubernetes-list-map-keys").is_empty(),
            EMPTY,
        ),
        (
            "x-kubernetes-list-type",
            set(v, "x-kubernetes-list-type").is_some(),
            UNDEFINED,
        ),
        (
            "x-kubernetes-map-type",
            set(v, "x-kubernetes-map-type").is_some(),
            UNDEFINED,
        ),
        (
            "x-kubernetes-validations",
            !list(v, "x-kubernetes-validations").is_empty(),
            EMPTY,
        ),
    ];
    for (keyword, present, detail) in forbidden {
        if present {
            errors.push(FieldError::forbidden(child(path, keyword), detail));
        }
    }
    // Reasoning about metadata could restrict it in ways kube-apiserver does not want.
    if property(v, "metadata").is_some() {
        errors.push(FieldError::forbidden(
            key(&child(path, "properties"), "metadata"),
            "must not be specified in a nested context",
        ));
    }
}

/// `isIntOrStringAnyOfPattern`: `anyOf` is exactly `[{type: integer}, {type: string}]`.
/// Go does not ask for `x-kubernetes-int-or-string` here; neither does this.
pub(super) fn is_int_or_string_any_of(s: &Value) -> bool {
    matches!(list(s, "anyOf"), [integer, text] if is_only_type(integer, "integer") && is_only_type(text, "string"))
}

/// `isIntOrStringAllOfPattern`: the first `allOf` clause has that `anyOf`.
pub(super) fn is_int_or_string_all_of(s: &Value) -> bool {
    list(s, "allOf").first().is_some_and(is_int_or_string_any_of)
}

/// Whether the clause `v` converts to a `NestedValueValidation` equal to
/// `{ForbiddenGenerics: Generic{Type: ty}}`. Unlike a `Structural`, a nested clause keeps an empty
/// `properties` map, which then differs from the nil one.
fn is_only_type(v: &Value, ty: &str) -> bool {
    string(v, "type") == ty
        && no_value_validation(v)
        && items(v).is_none()
        && set(v, "properties").is_none()
        && string(v, "description").is_empty()
        && string(v, "title").is_empty()
        && set(v, "default").is_none()
        && set(v, "additionalProperties").is_none()
        && !flag(v, "nullable")
        && no_extensions(v)
}

/// Whether the root's `metadata` schema, once `validateStructuralMetadataInvariants` dropped its
/// `type`, `default` and `name`/`generateName` properties, equals `Structural{ValueValidation:
/// &ValueValidation{}}`: whether it restricts nothing but the names.
pub(super) fn restricts_only_names(metadata: &Value) -> bool {
    properties(metadata)
        .iter()
        .all(|(name, _)| matches!(*name, "name" | "generateName"))
        && items(metadata).is_none()
        && string(metadata, "description").is_empty()
        && string(metadata, "title").is_empty()
        && set(metadata, "additionalProperties").is_none()
        && !flag(metadata, "nullable")
        && no_extensions(metadata)
        && no_value_validation(metadata)
}

/// Whether the value validations of `s` convert to Go's zero `ValueValidation`. Pointers and
/// `required` count once set, even to zero or `[]`; `enum` and the junctors only when not empty,
/// since `newValueValidation` appends them one by one.
fn no_value_validation(s: &Value) -> bool {
    const POINTERS: [&str; 11] = [
        "maximum",
        "minimum",
        "maxLength",
        "minLength",
        "maxItems",
        "minItems",
        "multipleOf",
        "maxProperties",
        "minProperties",
        "required",
        "not",
    ];
    string(s, "format").is_empty()
        && string(s, "pattern").is_empty()
        && !flag(s, "exclusiveMaximum")
        && !flag(s, "exclusiveMinimum")
        && !flag(s, "uniqueItems")
        && POINTERS.iter().all(|keyword| set(s, keyword).is_none())
        && ["enum", "allOf", "anyOf", "oneOf"]
            .iter()
            .all(|keyword| list(s, keyword).is_empty())
}

/// Whether the vendor extensions of `s` convert to Go's zero `Extensions`: lists count once set,
/// even to `[]`.
fn no_extensions(s: &Value) -> bool {
    !flag(s, "x-kubernetes-preserve-unknown-fields")
        && !flag(s, "x-kubernetes-embedded-resource")
        && !flag(s, "x-kubernetes-int-or-string")
        && [
            "x-kubernetes-list-map-keys",
            "x-kubernetes-list-type",
            "x-kubernetes-map-type",
            "x-kubernetes-validations",
        ]
        .iter()
        .all(|keyword| set(s, keyword).is_none())
}
