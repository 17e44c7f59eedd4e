//! Dotted paths into JSON (`a.b[0]`, `items[*].name`, `conditions[type=Ready]`, `labels["a/b"]`).
//!
//! The scenarios use them to capture values, wait for conditions, select and ignore parts of a
//! body. The grammar and matching are the recorder's (`conformance.py`), so a path means the same
//! thing here as when the corpus was recorded: a number indexes a list (negative from the end) or
//! names a map key, `*` walks every element, and a filter keeps list items whose field prints as
//! the given text.

use serde_json::Value;

/// One step of a parsed path.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Key(String),
    Index(i64),
    Any,
    Filter { field: String, equals: String },
}

/// A parsed dotted path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Path(Vec<Token>);

impl Path {
    /// Parses `path`; any text parses (an unclosed `[` takes the rest as a key).
    pub fn parse(path: &str) -> Self {
        let chars: Vec<char> = path.chars().collect();
        let mut tokens = Vec::new();
        let mut i = 0;
        while i < chars.len() {
            match chars[i] {
                '.' => i += 1,
                '[' => {
                    let end = chars[i..].iter().position(|&c| c == ']').map_or(chars.len(), |p| i + p);
                    let inner: String = chars[i + 1..end].iter().collect();
                    tokens.push(bracket_token(&inner));
                    i = end + 1;
                }
                _ => {
                    let end = chars[i..]
                        .iter()
                        .position(|&c| c == '.' || c == '[')
                        .map_or(chars.len(), |p| i + p);
                    let key: String = chars[i..end].iter().collect();
                    tokens.push(plain_token(key));
                    i = end;
                }
            }
        }
        Path(tokens)
    }

    /// The first value the path reaches.
    pub fn get<'a>(&self, root: &'a Value) -> Option<&'a Value> {
        self.get_all(root).into_iter().next()
    }

    /// Every value the path reaches, in document order.
    pub fn get_all<'a>(&self, root: &'a Value) -> Vec<&'a Value> {
        let mut nodes = vec![root];
        for token in &self.0 {
            nodes = nodes.into_iter().flat_map(|node| children(node, token)).collect();
        }
        nodes
    }

    /// Removes every value the path reaches (list items from the back, so indices stay valid).
    pub fn delete(&self, root: &mut Value) {
        let Some((last, parents)) = self.0.split_last() else {
            return;
        };
        let parent_paths = Path(parents.to_vec()).locations(root);
        for parent in parent_paths {
            let Some(container) = pointer_mut(root, &parent) else {
                continue;
            };
            let mut keys: Vec<Location> = children_locations(container, last);
            keys.sort_by_key(|loc| std::cmp::Reverse(loc.index()));
            for key in keys {
                match (container as &mut Value, key) {
                    (Value::Object(map), Location::Key(k)) => {
                        map.remove(&k);
                    }
                    (Value::Array(list), Location::Index(i)) if i < list.len() => {
                        list.remove(i);
                    }
                    _ => {}
                }
            }
        }
    }

    /// The concrete locations (as key/index chains) the path reaches.
    fn locations(&self, root: &Value) -> Vec<Vec<Location>> {
        let mut found: Vec<(Vec<Location>, &Value)> = vec![(Vec::new(), root)];
        for token in &self.0 {
            found = found
                .into_iter()
                .flat_map(|(at, node)| {
                    children_locations(node, token).into_iter().filter_map(move |loc| {
                        let child = loc.get(node)?;
                        let mut next = at.clone();
                        next.push(loc);
                        Some((next, child))
                    })
                })
                .collect();
        }
        found.into_iter().map(|(at, _)| at).collect()
    }
}

fn bracket_token(inner: &str) -> Token {
    if inner == "*" {
        return Token::Any;
    }
    if let Some(index) = parse_signed(inner) {
        return Token::Index(index);
    }
    if inner.starts_with('"') || inner.starts_with('\'') {
        let unquoted = inner.get(1..inner.len().saturating_sub(1)).unwrap_or("");
        return Token::Key(unquoted.to_owned());
    }
    if let Some((field, value)) = inner.split_once('=') {
        let equals = value.trim().trim_matches(|c| c == '"' || c == '\'');
        return Token::Filter {
            field: field.trim().to_owned(),
            equals: equals.to_owned(),
        };
    }
    Token::Key(inner.to_owned())
}

fn plain_token(key: String) -> Token {
    if key == "*" {
        Token::Any
    } else if !key.is_empty() && key.bytes().all(|b| b.is_ascii_digit()) {
        key.parse().map_or(Token::Key(key), Token::Index)
    } else {
        Token::Key(key)
    }
}

fn parse_signed(text: &str) -> Option<i64> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// Where a child sits in its container.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Location {
    Key(String),
    Index(usize),
}

impl Location {
    fn index(&self) -> usize {
        match self {
            Location::Index(i) => *i,
            Location::Key(_) => 0,
        }
    }

    fn get<'a>(&self, node: &'a Value) -> Option<&'a Value> {
        match (node, self) {
            (Value::Object(map), Location::Key(k)) => map.get(k),
            (Value::Array(list), Location::Index(i)) => list.get(*i),
            _ => None,
        }
    }
}

fn pointer_mut<'a>(root: &'a mut Value, at: &[Location]) -> Option<&'a mut Value> {
    at.iter().try_fold(root, |node, loc| match (node, loc) {
        (Value::Object(map), Location::Key(k)) => map.get_mut(k),
        (Value::Array(list), Location::Index(i)) => list.get_mut(*i),
        _ => None,
    })
}

fn children<'a>(node: &'a Value, token: &Token) -> Vec<&'a Value> {
    children_locations(node, token)
        .iter()
        .filter_map(|loc| loc.get(node))
        .collect()
}

fn children_locations(node: &Value, token: &Token) -> Vec<Location> {
    match (token, node) {
        (Token::Key(k), Value::Object(map)) if map.contains_key(k) => vec![Location::Key(k.clone())],
        (Token::Index(i), Value::Array(list)) => {
            let len = list.len() as i64;
            if (-len..len).contains(i) {
                vec![Location::Index(i.rem_euclid(len) as usize)]
            } else {
                Vec::new()
            }
        }
        (Token::Index(i), Value::Object(map)) if map.contains_key(&i.to_string()) => vec![Location::Key(i.to_string())],
        (Token::Any, Value::Array(list)) => (0..list.len()).map(Location::Index).collect(),
        (Token::Any, Value::Object(map)) => map.keys().cloned().map(Location::Key).collect(),
        (Token::Filter { field, equals }, Value::Array(list)) => {
            let field = Path::parse(field);
            (0..list.len())
                .filter(|&i| list[i].is_object() && field.get(&list[i]).map(scalar_text) == Some(equals.clone()))
                .map(Location::Index)
                .collect()
        }
        _ => Vec::new(),
    }
}

/// A value as the recorder prints a scalar (`true`, `null`, numbers and strings as written);
/// lists and maps print in Python's repr, which no scenario compares against.
pub fn scalar_text(value: &Value) -> String {
    match value {
        Value::Bool(true) => "true".to_owned(),
        Value::Bool(false) => "false".to_owned(),
        Value::Null => "null".to_owned(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn gets_keys_indices_filters_and_quoted_keys() {
        let doc = json!({"a": {"b": [1, 2, 3]}, "conditions": [{"type": "Ready", "status": "True"}],
                         "annotations": {"a.b/c": "x"}, "m": {"0": "zero"}});
        assert_eq!(Path::parse("a.b[0]").get(&doc), Some(&json!(1)));
        assert_eq!(Path::parse("a.b[-1]").get(&doc), Some(&json!(3)));
        assert_eq!(Path::parse("a.b.1").get(&doc), Some(&json!(2)));
        assert_eq!(
            Path::parse("conditions[type=Ready].status").get(&doc),
            Some(&json!("True"))
        );
        assert_eq!(Path::parse("annotations[\"a.b/c\"]").get(&doc), Some(&json!("x")));
        assert_eq!(Path::parse("m.0").get(&doc), Some(&json!("zero")));
        assert_eq!(Path::parse("a.b[*]").get_all(&doc).len(), 3);
        assert_eq!(Path::parse("a.c").get(&doc), None);
    }

    #[test]
    fn deletes_every_match_keeping_indices_valid() {
        let mut doc = json!({"items": [{"x": 1, "y": 2}, {"x": 3}], "list": [1, 2, 3]});
        Path::parse("items[*].x").delete(&mut doc);
        Path::parse("list[*]").delete(&mut doc);
        assert_eq!(doc, json!({"items": [{"y": 2}, {}], "list": []}));
    }
}
