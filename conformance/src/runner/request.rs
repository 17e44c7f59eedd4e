//! The request side of a step: what is sent (variables filled in), what is captured from the
//! answer, and when a polled answer is the awaited one.

use serde_json::{Map, Value, json};

use crate::node::Node;
use crate::path::{Path, scalar_text};
use crate::scenario::{Env, Step, substitute, substitute_text};

/// A request ready to send.
pub(super) struct Outgoing {
    pub(super) method: String,
    pub(super) path: String,
    /// Values are strings, or lists of strings sent as repeated parameters.
    pub(super) query: Map<String, Value>,
    pub(super) headers: Vec<(String, String)>,
    pub(super) body: Option<Vec<u8>>,
}

/// The request of a step with the scenario's variables filled in: what is sent, and its record.
pub(super) fn render(step: &Step, env: &Env) -> (Outgoing, Value) {
    let method = step.method.as_deref().unwrap_or("GET").to_uppercase();
    let path = substitute_text(&step.path, env);
    let mut query = Map::new();
    if let Some(Node::Map(entries)) = step.query.as_ref().map(|q| substitute(q, env)) {
        for (key, value) in entries {
            let text = |node: &Node| Value::String(scalar_text(&node.to_value()));
            let value = match value {
                Node::List(items) => Value::Array(items.iter().map(text).collect()),
                other => text(&other),
            };
            query.insert(key, value);
        }
    }
    let mut headers: Vec<(String, String)> = match step.headers.as_ref().map(|h| substitute(h, env)) {
        Some(Node::Map(entries)) => entries
            .into_iter()
            .map(|(k, v)| (k, scalar_text(&v.to_value())))
            .collect(),
        _ => Vec::new(),
    };
    if let Some(content_type) = step.patch_content_type()
        && !headers.iter().any(|(k, _)| k == "Content-Type")
    {
        headers.push(("Content-Type".into(), content_type.into()));
    }
    let body = step
        .body
        .as_ref()
        .map(|b| substitute(b, env))
        .filter(|b| *b != Node::Null);
    let bytes = body.as_ref().map(|node| match node {
        Node::Map(_) | Node::List(_) => node.to_python_json().into_bytes(),
        other => scalar_text(&other.to_value()).into_bytes(),
    });
    let record = json!({
        "method": method,
        "path": path,
        "query": query,
        "headers": headers.iter().map(|(k, v)| (k.clone(), Value::from(v.as_str()))).collect::<Map<_, _>>(),
        "body": body.as_ref().map_or(Value::Null, Node::to_value),
    });
    let outgoing = Outgoing {
        method,
        path,
        query,
        headers,
        body: bytes,
    };
    (outgoing, record)
}

/// The request of a step as the recorder records it (for checking the runner against a transcript).
pub fn rendered_request(step: &Step, env: &Env) -> Value {
    render(step, env).1
}

pub(super) fn capture(step: &Step, record: &mut Map<String, Value>, env: &mut Env) {
    let Some(Node::Map(captures)) = &step.capture else {
        return;
    };
    let mut captured = Map::new();
    for (var, path) in captures {
        let path = scalar_text(&path.to_value());
        let body = record
            .get("response")
            .and_then(|r| r.get("body"))
            .filter(|b| !b.is_null());
        let value = match body {
            Some(body) if !path.starts_with("header:") => Path::parse(&path).get(body).cloned(),
            _ => None,
        };
        match value {
            Some(value) => {
                env.insert(var.clone(), Node::from_value(&value));
                captured.insert(var.clone(), value);
            }
            None => {
                env.remove(var);
                captured.insert(var.clone(), Value::Null);
            }
        }
    }
    if !captured.is_empty() {
        record.insert("captured".into(), Value::Object(captured));
    }
}

/// Whether a polled response satisfies `until`.
pub(super) fn condition_met(until: &Node, response: &Value) -> bool {
    if let Some(code) = until.get("code")
        && response["code"] != code.to_value()
    {
        return false;
    }
    let Some(path) = until.get("path") else { return true };
    let body = &response["body"];
    let value = if body.is_object() || body.is_array() {
        Path::parse(&scalar_text(&path.to_value())).get(body)
    } else {
        None
    };
    let text = |node: &Node| scalar_text(&node.to_value());
    if let Some(equals) = until.get("equals")
        && value.map(scalar_text) != Some(text(equals))
    {
        return false;
    }
    if let Some(not_equals) = until.get("notEquals")
        && value.is_some_and(|v| scalar_text(v) == text(not_equals))
    {
        return false;
    }
    if let Some(exists) = until.get("exists")
        && value.is_some() != truthy(exists)
    {
        return false;
    }
    if let Some(length) = until.get("length") {
        let len = match value {
            Some(Value::Array(items)) => Some(items.len()),
            Some(Value::Object(map)) => Some(map.len()),
            _ => None,
        };
        if len.map(|l| l as u64) != length.to_value().as_u64() {
            return false;
        }
    }
    true
}

fn truthy(node: &Node) -> bool {
    match node {
        Node::Null => false,
        Node::Bool(b) => *b,
        Node::Number(n) => n.as_f64() != Some(0.0),
        Node::String(s) => !s.is_empty(),
        Node::List(items) => !items.is_empty(),
        Node::Map(entries) => !entries.is_empty(),
    }
}
