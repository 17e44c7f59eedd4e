//! Label selectors (equality- and set-based) and field selectors, parsed and matched like kube-apiserver.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::semantics::label_selector_parser::{self, Operator, ParsedRequirement};
use crate::storage::field_selectors::FieldValue;

/// One requirement of a label selector.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Requirement {
    Equals(String, String),
    NotEquals(String, String),
    In(String, BTreeSet<String>),
    NotIn(String, BTreeSet<String>),
    Exists(String),
    DoesNotExist(String),
    GreaterThan(String, i64),
    LessThan(String, i64),
}

impl Requirement {
    fn of(parsed: ParsedRequirement) -> Self {
        let ParsedRequirement { key, operator, values } = parsed;
        let first = || values.first().cloned().unwrap_or_default();
        // The parser has checked that `gt`/`lt` take one integer.
        let number = || first().parse::<i64>().unwrap_or_default();
        match operator {
            Operator::Equals => Self::Equals(key, first()),
            Operator::NotEquals => Self::NotEquals(key, first()),
            Operator::In => Self::In(key, values.into_iter().collect()),
            Operator::NotIn => Self::NotIn(key, values.into_iter().collect()),
            Operator::Exists => Self::Exists(key),
            Operator::DoesNotExist => Self::DoesNotExist(key),
            Operator::GreaterThan => Self::GreaterThan(key, number()),
            Operator::LessThan => Self::LessThan(key, number()),
        }
    }
}

/// Why a selector does not parse; the server answers 400 BadRequest with it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum SelectorError {
    /// A label selector `labels.Parse` refuses, in its words.
    #[error("{0}")]
    Label(String),
    /// A field selector term without `=`, `==` or `!=`: the selector, then the term.
    #[error("invalid selector: '{0}'; can't understand '{1}'")]
    FieldTerm(String, String),
    /// A backslash before anything but `\`, `,` or `=` (or at the end) in a field value.
    #[error("invalid field selector: invalid escape sequence: {0}")]
    FieldEscape(String),
    /// An unescaped `,` or `=` in a field value, as the number of the character (Go's `%v` of a rune).
    #[error("invalid field selector: unescaped character in value: {0}")]
    FieldUnescaped(u32),
    /// A field path a kind with selectable fields of its own does not index.
    #[error("field label not supported: {0}")]
    UnsupportedField(String),
    /// A field path other than the metadata ones, for a kind that selects on nothing else.
    #[error("{0:?} is not a known field selector: only \"metadata.name\", \"metadata.namespace\"")]
    NotKnownField(String),
}

/// A parsed `labelSelector` query parameter; the empty selector matches everything.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct LabelSelector(Vec<Requirement>);

impl LabelSelector {
    /// Parses `a=b,c!=d,e in (x,y),f notin (z),g,!h,n>1` as `labels.Parse` does.
    pub(crate) fn parse(text: &str) -> Result<Self, SelectorError> {
        let parsed = label_selector_parser::parse(text).map_err(SelectorError::Label)?;
        Ok(Self(parsed.into_iter().map(Requirement::of).collect()))
    }

    /// Whether an object with these labels is selected.
    pub(crate) fn matches(&self, labels: Option<&serde_json::Map<String, Value>>) -> bool {
        let get = |key: &str| labels.and_then(|l| l.get(key)).and_then(Value::as_str);
        self.0.iter().all(|requirement| match requirement {
            Requirement::Equals(k, v) => get(k) == Some(v.as_str()),
            Requirement::NotEquals(k, v) => get(k) != Some(v.as_str()),
            Requirement::In(k, values) => get(k).is_some_and(|v| values.contains(v)),
            Requirement::NotIn(k, values) => get(k).is_none_or(|v| !values.contains(v)),
            Requirement::Exists(k) => get(k).is_some(),
            Requirement::DoesNotExist(k) => get(k).is_none(),
            // A label that is no integer matches neither.
            Requirement::GreaterThan(k, n) => get(k).and_then(|v| v.parse::<i64>().ok()).is_some_and(|v| v > *n),
            Requirement::LessThan(k, n) => get(k).and_then(|v| v.parse::<i64>().ok()).is_some_and(|v| v < *n),
        })
    }
}

/// A parsed `fieldSelector` query parameter: `path=value`, `path==value` or `path!=value`, comma-separated.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct FieldSelector(Vec<(String, bool, String)>);

impl FieldSelector {
    /// Parses a field selector, accepting only the field paths in `supported`. A built-in kind
    /// that selects on metadata alone refuses others through apimachinery's default
    /// conversion, in its own words (`metadata_only`).
    pub(crate) fn parse(text: &str, supported: &[String], metadata_only: bool) -> Result<Self, SelectorError> {
        // `parseSelector`: every term is parsed (in sorted order) before any is converted.
        let mut parts = split_field_terms(text);
        parts.sort_unstable();
        let mut terms = Vec::new();
        for part in parts.into_iter().filter(|p| !p.is_empty()) {
            let (path, equal, value) =
                split_field_term(part).ok_or_else(|| SelectorError::FieldTerm(text.to_owned(), part.to_owned()))?;
            terms.push((path.to_owned(), equal, unescape_field_value(value)?));
        }
        for (path, _, _) in &terms {
            if !supported.iter().any(|s| s == path) {
                if metadata_only {
                    return Err(SelectorError::NotKnownField(path.clone()));
                }
                return Err(SelectorError::UnsupportedField(path.clone()));
            }
        }
        Ok(Self(terms))
    }

    /// The same selector reading other field paths (another version's names for the fields).
    pub(crate) fn map_paths(self, map: impl Fn(&str) -> String) -> Self {
        Self(
            self.0
                .into_iter()
                .map(|(path, equal, value)| (map(&path), equal, value))
                .collect(),
        )
    }

    /// Whether `object` is selected, its fields read by `read` (the kind's `GetAttrs`).
    pub(crate) fn matches(&self, object: &Value, read: FieldValue) -> bool {
        self.0.iter().all(|(path, equal, value)| {
            let actual = read(object, path);
            (actual.as_deref().unwrap_or("") == value) == *equal
        })
    }
}

/// `splitTerms`: the terms between commas no backslash escapes.
fn split_field_terms(text: &str) -> Vec<&str> {
    if text.is_empty() {
        return Vec::new();
    }
    let mut terms = Vec::new();
    let (mut start, mut escaped) = (0, false);
    for (i, c) in text.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            ',' => {
                terms.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    terms.push(&text[start..]);
    terms
}

/// `splitTerm`: the field before the first operator (`!=`, `==`, `=`, tried in that order at
/// each position), whether it asks for equality, and the raw value after it. Nothing is trimmed.
fn split_field_term(term: &str) -> Option<(&str, bool, &str)> {
    term.char_indices().find_map(|(i, _)| {
        let rest = &term[i..];
        [("!=", false), ("==", true), ("=", true)]
            .into_iter()
            .find(|(op, _)| rest.starts_with(op))
            .map(|(op, equal)| (&term[..i], equal, &rest[op.len()..]))
    })
}

/// `UnescapeValue`: `\\`, `\,` and `\=` stand for themselves; any other escape, and a bare `,`
/// or `=`, is refused.
fn unescape_field_value(value: &str) -> Result<String, SelectorError> {
    let mut out = String::with_capacity(value.len());
    let mut escaped = false;
    for c in value.chars() {
        if escaped {
            if !matches!(c, '\\' | ',' | '=') {
                return Err(SelectorError::FieldEscape(format!("\\{c}")));
            }
            out.push(c);
            escaped = false;
            continue;
        }
        match c {
            '\\' => escaped = true,
            ',' | '=' => return Err(SelectorError::FieldUnescaped(u32::from(c))),
            _ => out.push(c),
        }
    }
    if escaped {
        return Err(SelectorError::FieldEscape("\\".to_owned()));
    }
    Ok(out)
}

/// A `LabelSelector` object (`matchLabels`, `matchExpressions`) in the string form the
/// `labelSelector` parameter and `Scale.status.selector` use; a string is taken as it is.
pub(crate) fn label_selector_text(selector: &Value) -> String {
    if let Some(text) = selector.as_str() {
        return text.to_owned();
    }
    let mut terms: Vec<String> = selector
        .get("matchLabels")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default()))
        .collect();
    for expression in selector
        .get("matchExpressions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        terms.push(requirement_text(expression, false));
    }
    terms.join(",")
}

/// Go's `%v` of a `*metav1.LabelSelector`, gogo-protobuf's `String()`: the labels sorted,
/// every entry and requirement followed by a comma
/// (`&LabelSelector{MatchLabels:map[string]string{a: b,},MatchExpressions:[]LabelSelectorRequirement{},}`).
pub(crate) fn gogo_string(selector: &Value) -> String {
    let text = |value: &Value, key: &str| value.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
    let mut labels: Vec<(String, String)> = selector
        .get("matchLabels")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned()))
        .collect();
    labels.sort();
    let labels: String = labels.iter().map(|(k, v)| format!("{k}: {v},")).collect();
    let expressions: String = selector
        .get("matchExpressions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|e| {
            format!(
                "LabelSelectorRequirement{{Key:{},Operator:{},Values:[{}],}},",
                text(e, "key"),
                text(e, "operator"),
                values_of(e).join(" ")
            )
        })
        .collect();
    format!(
        "&LabelSelector{{MatchLabels:map[string]string{{{labels}}},MatchExpressions:[]LabelSelectorRequirement{{{expressions}}},}}"
    )
}

/// A requirement's values, in order.
fn values_of(expression: &Value) -> Vec<&str> {
    let values = expression.get("values").and_then(Value::as_array);
    values.into_iter().flatten().filter_map(Value::as_str).collect()
}

/// One `matchExpressions` requirement as a selector string writes it (`key in (a,b)`,
/// `key notin (a)`, `key`, `!key`); `sorted` writes the values as `Requirement.String()`
/// does, sorted (`safeSort`), duplicates kept as `LabelSelectorAsSelector` keeps them.
pub(crate) fn requirement_text(expression: &Value, sorted: bool) -> String {
    let key = expression.get("key").and_then(Value::as_str).unwrap_or_default();
    let mut values = values_of(expression);
    if sorted {
        values.sort_unstable();
    }
    match expression.get("operator").and_then(Value::as_str).unwrap_or_default() {
        "In" => format!("{key} in ({})", values.join(",")),
        "NotIn" => format!("{key} notin ({})", values.join(",")),
        "Exists" => key.to_owned(),
        _ => format!("!{key}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::object;
    use serde_json::json;

    fn labels(value: Value) -> serde_json::Map<String, Value> {
        value.as_object().cloned().unwrap()
    }

    #[test]
    fn label_selector_should_match_equality_and_set_requirements() {
        let selector = LabelSelector::parse("app=web, tier in (front, back),env notin (prod),team,!legacy").unwrap();
        assert!(selector.matches(Some(&labels(json!({"app": "web", "tier": "front", "team": "a"})))));
        assert!(!selector.matches(Some(&labels(json!({"app": "web", "tier": "db", "team": "a"})))));
        assert!(!selector.matches(Some(&labels(
            json!({"app": "web", "tier": "front", "team": "a", "env": "prod"})
        ))));
        assert!(!selector.matches(Some(&labels(
            json!({"app": "web", "tier": "front", "team": "a", "legacy": "y"})
        ))));
        assert!(!selector.matches(None));
        assert!(LabelSelector::parse("").unwrap().matches(None));
        assert!(LabelSelector::parse("app!=web").unwrap().matches(None));
    }

    #[test]
    fn field_selectors_should_parse_as_fields_parse_does() {
        let supported = vec!["metadata.name".to_owned(), "type".to_owned()];
        let parse = |text: &str| FieldSelector::parse(text, &supported, false);
        assert_eq!(
            parse("type=a\\,b,metadata.name!=x").unwrap(),
            FieldSelector(vec![
                ("metadata.name".into(), false, "x".into()),
                ("type".into(), true, "a,b".into())
            ])
        );
        assert_eq!(
            parse("type").unwrap_err().to_string(),
            "invalid selector: 'type'; can't understand 'type'"
        );
        assert_eq!(
            parse("type=a=b").unwrap_err().to_string(),
            "invalid field selector: unescaped character in value: 61"
        );
        assert_eq!(
            parse("type=a\\x").unwrap_err().to_string(),
            "invalid field selector: invalid escape sequence: \\x"
        );
        assert_eq!(
            parse("type = a").unwrap_err().to_string(),
            "field label not supported: type ",
            "nothing is trimmed"
        );
        assert_eq!(
            parse("zzz=1,bad").unwrap_err().to_string(),
            "invalid selector: 'zzz=1,bad'; can't understand 'bad'",
            "every term parses before any converts"
        );
    }

    #[test]
    fn field_selector_should_reject_unsupported_fields() {
        let supported = vec!["metadata.name".to_owned(), "type".to_owned()];
        let err = FieldSelector::parse("spec.x=1", &supported, false).unwrap_err();
        assert_eq!(err.to_string(), "field label not supported: spec.x");
        let err = FieldSelector::parse("data.x=1", &supported[..1], true).unwrap_err();
        assert_eq!(
            err.to_string(),
            r#""data.x" is not a known field selector: only "metadata.name", "metadata.namespace""#
        );
        let selector = FieldSelector::parse("metadata.name!=a", &supported, false).unwrap();
        assert!(selector.matches(&json!({"metadata": {"name": "b"}}), object::field_text));
        assert!(!selector.matches(&json!({"metadata": {"name": "a"}}), object::field_text));
    }
}
