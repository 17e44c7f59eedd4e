//! An ordered YAML/JSON tree, and JSON text written the way the recorder (Python's `json.dumps`)
//! writes it.
//!
//! Request bodies must go out byte for byte as they did when the corpus was recorded: the server
//! quotes some of them back in messages (`Object 'Kind' is missing in '{…}'`). `serde_json::Value`
//! sorts map keys, so the scenario bodies keep their written order here. The same writer with
//! sorted keys gives the sort keys the normalizer orders causes by.

use std::fmt::{self, Write as _};

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Number, Value};

/// A YAML or JSON value whose maps keep their written key order.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    /// `null` (also YAML's `~` and empty values).
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// An integer or a float.
    Number(Number),
    /// A string.
    String(String),
    /// A sequence.
    List(Vec<Node>),
    /// A mapping, in written order.
    Map(Vec<(String, Node)>),
}

impl Node {
    /// The same value as `serde_json::Value` (key order is lost).
    pub fn to_value(&self) -> Value {
        match self {
            Node::Null => Value::Null,
            Node::Bool(b) => Value::Bool(*b),
            Node::Number(n) => Value::Number(n.clone()),
            Node::String(s) => Value::String(s.clone()),
            Node::List(items) => Value::Array(items.iter().map(Node::to_value).collect()),
            Node::Map(entries) => Value::Object(entries.iter().map(|(k, v)| (k.clone(), v.to_value())).collect()),
        }
    }

    /// A value captured from a response, as a node (keys in `serde_json`'s order).
    pub fn from_value(value: &Value) -> Node {
        match value {
            Value::Null => Node::Null,
            Value::Bool(b) => Node::Bool(*b),
            Value::Number(n) => Node::Number(n.clone()),
            Value::String(s) => Node::String(s.clone()),
            Value::Array(items) => Node::List(items.iter().map(Node::from_value).collect()),
            Value::Object(map) => Node::Map(map.iter().map(|(k, v)| (k.clone(), Node::from_value(v))).collect()),
        }
    }

    /// The member `key` of a map.
    pub fn get(&self, key: &str) -> Option<&Node> {
        match self {
            Node::Map(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// JSON text as Python's `json.dumps(value)` writes it: `", "` and `": "` separators,
    /// non-ASCII escaped, keys in written order.
    pub fn to_python_json(&self) -> String {
        let mut out = String::new();
        write_node(&mut out, self);
        out
    }
}

/// JSON text as Python's `json.dumps(value, sort_keys=True)` writes it.
pub fn python_json_sorted(value: &Value) -> String {
    let mut out = String::new();
    write_node(&mut out, &Node::from_value(value));
    out
}

fn write_node(out: &mut String, node: &Node) {
    match node {
        Node::Null => out.push_str("null"),
        Node::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Node::Number(n) => write_number(out, n),
        Node::String(s) => write_string(out, s),
        Node::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_node(out, item);
            }
            out.push(']');
        }
        Node::Map(entries) => {
            out.push('{');
            for (i, (key, value)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_string(out, key);
                out.push_str(": ");
                write_node(out, value);
            }
            out.push('}');
        }
    }
}

/// Python writes floats with `repr`: a whole float keeps its `.0`.
fn write_number(out: &mut String, n: &Number) {
    match n.as_f64() {
        Some(f) if n.is_f64() && f.is_finite() && f.fract() == 0.0 && f.abs() < 1e16 => {
            let _ = write!(out, "{f:.1}");
        }
        _ => {
            let _ = write!(out, "{n}");
        }
    }
}

fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || (c as u32) > 0x7e => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(NodeVisitor)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a YAML value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Node, D::Error> {
        Node::deserialize(deserializer)
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Node, E> {
        Ok(Node::Bool(b))
    }

    fn visit_i64<E: de::Error>(self, n: i64) -> Result<Node, E> {
        Ok(Node::Number(n.into()))
    }

    fn visit_u64<E: de::Error>(self, n: u64) -> Result<Node, E> {
        Ok(Node::Number(n.into()))
    }

    fn visit_f64<E: de::Error>(self, f: f64) -> Result<Node, E> {
        Number::from_f64(f)
            .map(Node::Number)
            .ok_or_else(|| E::custom("a non-finite number has no JSON form"))
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Node, E> {
        Ok(Node::String(s.to_owned()))
    }

    fn visit_string<E: de::Error>(self, s: String) -> Result<Node, E> {
        Ok(Node::String(s))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Node::List(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut entries: Vec<(String, Node)> = Vec::new();
        while let Some((key, value)) = map.next_entry::<Node, Node>()? {
            let key = match key {
                Node::String(s) => s,
                Node::Null => "null".to_owned(),
                other => crate::path::scalar_text(&other.to_value()),
            };
            // A repeated key replaces the earlier value in place, as a Python dict does.
            match entries.iter_mut().find(|(k, _)| *k == key) {
                Some(slot) => slot.1 = value,
                None => entries.push((key, value)),
            }
        }
        Ok(Node::Map(entries))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn writes_json_as_python_does() {
        let node: Node = serde_json::from_str(r#"{"b": [1, 2.0, "é"], "a": null, "c": {"x": true}}"#).unwrap();
        assert_eq!(
            node.to_python_json(),
            r#"{"b": [1, 2.0, "\u00e9"], "a": null, "c": {"x": true}}"#
        );
        assert_eq!(
            python_json_sorted(&json!({"reason": "R", "field": "f"})),
            r#"{"field": "f", "reason": "R"}"#
        );
    }
}
