//! Label selectors (equality- and set-based) and field selectors, parsed and matched like kube-apiserver.

use std::collections::BTreeSet;

use serde_json::Value;

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
}

/// Why a selector does not parse; the server answers 400 BadRequest with it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum SelectorError {
    /// A label requirement with no operator kube-apiserver knows; the word found instead.
    #[error("unable to parse requirement: found '{0}', expected: in, notin, =, ==, !=, gt, lt")]
    Operator(String),
    /// `in`/`notin` without `( … )`; the word found instead of `(`.
    #[error("unable to parse requirement: found '{0}' expected: '('")]
    ValueSet(String),
    /// A label key with characters a label key cannot have.
    #[error("invalid label key {0:?}")]
    LabelKey(String),
    /// A field selector term without `=`, `==` or `!=`.
    #[error("invalid field selector: {0:?}: expected =, == or !=")]
    FieldTerm(String),
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
    /// Parses `a=b,c!=d,e in (x,y),f notin (z),g,!h`.
    pub(crate) fn parse(text: &str) -> Result<Self, SelectorError> {
        let mut requirements = Vec::new();
        for part in split_top_level(text) {
            let part = part.trim();
            if part.is_empty() {
                continue;
            }
            requirements.push(parse_requirement(part)?);
        }
        Ok(Self(requirements))
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
        })
    }
}

/// Splits on commas that are not inside `( … )`.
fn split_top_level(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

fn parse_requirement(part: &str) -> Result<Requirement, SelectorError> {
    if let Some(key) = part.strip_prefix('!') {
        return Ok(Requirement::DoesNotExist(valid_key(key.trim())?));
    }
    for (op, build) in [
        ("!=", Requirement::NotEquals as fn(String, String) -> Requirement),
        ("==", Requirement::Equals),
        ("=", Requirement::Equals),
    ] {
        if let Some((key, value)) = part.split_once(op) {
            return Ok(build(valid_key(key.trim())?, value.trim().to_owned()));
        }
    }
    let words: Vec<&str> = part.splitn(2, char::is_whitespace).collect();
    if let [key, rest] = words[..] {
        let rest = rest.trim_start();
        let (set, negated) = if let Some(rest) = rest.strip_prefix("notin") {
            (rest, true)
        } else if let Some(rest) = rest.strip_prefix("in") {
            (rest, false)
        } else {
            return Err(SelectorError::Operator(first_word(rest).to_owned()));
        };
        let values = set
            .trim()
            .strip_prefix('(')
            .and_then(|s| s.strip_suffix(')'))
            .ok_or_else(|| SelectorError::ValueSet(first_word(set).to_owned()))?
            .split(',')
            .map(|v| v.trim().to_owned())
            .collect();
        let key = valid_key(key)?;
        return Ok(if negated {
            Requirement::NotIn(key, values)
        } else {
            Requirement::In(key, values)
        });
    }
    Ok(Requirement::Exists(valid_key(part)?))
}

/// The token Go's selector lexer reads next: a word up to a space or one of `!=(),<>`.
fn first_word(text: &str) -> &str {
    let text = text.trim_start();
    let end = text
        .find(|c: char| c.is_whitespace() || "!=(),<>".contains(c))
        .unwrap_or(text.len());
    &text[..end]
}

fn valid_key(key: &str) -> Result<String, SelectorError> {
    let ok = !key.is_empty()
        && key.len() <= 317
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'));
    if ok {
        Ok(key.to_owned())
    } else {
        Err(SelectorError::LabelKey(key.to_owned()))
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
        let mut terms = Vec::new();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (path, equal, value) = if let Some((p, v)) = part.split_once("!=") {
                (p, false, v)
            } else if let Some((p, v)) = part.split_once("==") {
                (p, true, v)
            } else if let Some((p, v)) = part.split_once('=') {
                (p, true, v)
            } else {
                return Err(SelectorError::FieldTerm(part.to_owned()));
            };
            let path = path.trim();
            if !supported.iter().any(|s| s == path) {
                if metadata_only {
                    return Err(SelectorError::NotKnownField(path.to_owned()));
                }
                return Err(SelectorError::UnsupportedField(path.to_owned()));
            }
            terms.push((path.to_owned(), equal, value.trim().to_owned()));
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

/// One `matchExpressions` requirement as a selector string writes it (`key in (a,b)`,
/// `key notin (a)`, `key`, `!key`); `sorted` writes the values as a parsed selector's
/// `String()` does, sorted and without duplicates.
pub(crate) fn requirement_text(expression: &Value, sorted: bool) -> String {
    let key = expression.get("key").and_then(Value::as_str).unwrap_or_default();
    let mut values: Vec<&str> = expression
        .get("values")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    if sorted {
        values.sort_unstable();
        values.dedup();
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
    fn label_selector_should_reject_garbage_in_go_words() {
        let error = |text: &str| LabelSelector::parse(text).unwrap_err().to_string();
        assert_eq!(
            error("a b c"),
            "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"
        );
        assert_eq!(
            error("app in web"),
            "unable to parse requirement: found 'web' expected: '('"
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
