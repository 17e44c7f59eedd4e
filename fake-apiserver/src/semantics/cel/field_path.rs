//! A rule's `fieldPath` (`.a.b`, `.a['b.c']`), read as `ValidFieldPath` reads it
//! (`apiextensions-apiserver/pkg/apiserver/schema/cel/validation.go`): each step names a
//! property of the schema, or a key of its additional properties.

use serde_json::Value;
use thiserror::Error;

use crate::semantics::schema::structural;

/// Why a `fieldPath` names no field (the texts are Go's, though only their presence shows).
#[derive(Debug, Error, PartialEq)]
pub(crate) enum FieldPathError {
    #[error("does not refer to a valid field")]
    NotAField,
    #[error("unexpected end of JSON path")]
    UnexpectedEnd,
    #[error("expected single quoted string but got {0}")]
    NotQuoted(String),
    #[error("invalid string literal: invalid escape char {0}")]
    BadEscape(String),
    #[error("expected ] but got {0}")]
    NotClosed(String),
    #[error("expected [ or . but got: {0}")]
    Unexpected(String),
    #[error("array notation is not allowed")]
    ArrayNotation,
}

/// The path as apimachinery's `field.Path` prints it, relative to the rule's node.
pub(crate) fn normalize(path: &str, schema: &Value) -> Result<String, FieldPathError> {
    resolve(path, schema, true).map(|(normalized, _)| normalized)
}

/// The path as apimachinery's `field.Path` prints it, and the schema of the field it names;
/// `brackets` false refuses `['name']` steps (`WithFieldPathAllowArrayNotation(false)`).
pub(crate) fn resolve<'a>(
    path: &str,
    schema: &'a Value,
    brackets: bool,
) -> Result<(String, &'a Value), FieldPathError> {
    let mut tokens = tokens(path).into_iter();
    let mut node = schema;
    let mut normalized = String::new();
    while let Some(token) = tokens.next() {
        let (name, bracketed) = match token {
            "[" if !brackets => return Err(FieldPathError::ArrayNotation),
            "[" => {
                let quoted = tokens.next().ok_or(FieldPathError::UnexpectedEnd)?;
                if quoted.len() < 2 || !quoted.starts_with('\'') || !quoted.ends_with('\'') {
                    return Err(FieldPathError::NotQuoted(quoted.into()));
                }
                let name = unescape(&quoted[1..quoted.len() - 1])?;
                (name, true)
            }
            "." => (tokens.next().ok_or(FieldPathError::UnexpectedEnd)?.to_string(), false),
            other => return Err(FieldPathError::Unexpected(other.into())),
        };
        if schema_has(node, "properties") {
            node = structural::property(node, &name).ok_or(FieldPathError::NotAField)?;
            if !normalized.is_empty() {
                normalized.push('.');
            }
            normalized.push_str(&name);
        } else if schema_has(node, "additionalProperties") {
            node = structural::additional(node).ok_or(FieldPathError::NotAField)?;
            normalized.push_str(&format!("[{name}]"));
        } else {
            return Err(FieldPathError::NotAField);
        }
        if bracketed {
            match tokens.next() {
                Some("]") => {}
                Some(other) => return Err(FieldPathError::NotClosed(other.into())),
                None => return Err(FieldPathError::UnexpectedEnd),
            }
        }
    }
    Ok((normalized, node))
}

/// Whether Go's structural schema has the (non-nil) keyword.
fn schema_has(schema: &Value, key: &str) -> bool {
    schema.get(key).is_some_and(|v| !v.is_null())
}

/// The scanner's tokens: `.`, `[`, `]`, a quoted string with its quotes, or a name.
fn tokens(path: &str) -> Vec<&str> {
    let bytes = path.as_bytes();
    let (mut tokens, mut start) = (Vec::new(), 0);
    while start < bytes.len() {
        let end = if bytes[start] == b'\'' {
            // Up to the first quote not escaped by a backslash, or to the end.
            (start + 1..bytes.len())
                .find(|&i| bytes[i] == b'\'' && bytes[i - 1] != b'\\')
                .map_or(bytes.len(), |i| i + 1)
        } else if matches!(bytes[start], b'.' | b'[' | b']') {
            start + 1
        } else {
            (start..bytes.len())
                .find(|&i| matches!(bytes[i], b'.' | b'[' | b']'))
                .unwrap_or(bytes.len())
        };
        tokens.push(&path[start..end]);
        start = end;
    }
    tokens
}

/// `unescapeSingleQuote`: Go's escapes of a single-quoted name.
fn unescape(quoted: &str) -> Result<String, FieldPathError> {
    let mut out = String::with_capacity(quoted.len());
    let mut chars = quoted.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(directive) = chars.next() else {
            out.push(c);
            break;
        };
        out.push(match directive {
            'a' => '\u{7}',
            'b' => '\u{8}',
            'f' => '\u{c}',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'v' => '\u{b}',
            '\'' => '\'',
            '\\' => '\\',
            other => return Err(FieldPathError::BadEscape(format!("\\{other}"))),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn schema() -> Value {
        json!({"type": "object", "properties": {
            "max": {"type": "integer"},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            "a.b": {"type": "object", "properties": {"c": {"type": "string"}}}
        }})
    }

    #[test]
    fn properties_should_join_with_dots_and_keys_in_brackets() {
        assert_eq!(normalize(".max", &schema()), Ok("max".into()));
        assert_eq!(normalize(".labels.team", &schema()), Ok("labels[team]".into()));
        assert_eq!(normalize("['a.b'].c", &schema()), Ok("a.b.c".into()));
    }

    #[test]
    fn paths_naming_no_field_should_be_refused() {
        assert_eq!(normalize(".nope", &schema()), Err(FieldPathError::NotAField));
        assert_eq!(normalize(".max.x", &schema()), Err(FieldPathError::NotAField));
        assert_eq!(
            normalize("max", &schema()),
            Err(FieldPathError::Unexpected("max".into()))
        );
        assert_eq!(normalize(".", &schema()), Err(FieldPathError::UnexpectedEnd));
        assert_eq!(normalize("[0]", &schema()), Err(FieldPathError::NotQuoted("0".into())));
    }
}
