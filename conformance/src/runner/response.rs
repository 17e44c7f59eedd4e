//! The answer side of a step: a response, an error or a watch line as the recorder records them.

use bytes::Bytes;
use http_body_util::BodyExt;
use regex::Regex;
use serde_json::{Map, Value, json};

pub(super) fn head_record<B>(response: &http::Response<B>) -> Map<String, Value> {
    let content_type = response
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok());
    let warnings: Vec<Value> = response
        .headers()
        .get_all(http::header::WARNING)
        .iter()
        .map(|v| parse_warning(&String::from_utf8_lossy(v.as_bytes())))
        .collect();
    let mut head = Map::new();
    head.insert("code".into(), response.status().as_u16().into());
    head.insert("contentType".into(), content_type.map_or(Value::Null, Value::from));
    head.insert("warnings".into(), warnings.into());
    head
}

/// A response as the recorder records it: code, content type, warnings and the decoded body.
pub async fn response_record<B>(response: http::Response<B>) -> Value
where
    B: http_body::Body<Data = Bytes>,
    B::Error: std::error::Error,
{
    let mut head = head_record(&response);
    let bytes = match response.into_body().collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(error) => return error_record(&error),
    };
    head.insert("body".into(), decode_body(&bytes));
    Value::Object(head)
}

fn decode_body(bytes: &Bytes) -> Value {
    let text = String::from_utf8_lossy(bytes);
    if text.is_empty() {
        return Value::Null;
    }
    match serde_json::from_str(&text) {
        Ok(value) => value,
        Err(_) if text.chars().count() < 4000 => Value::String(text.into_owned()),
        Err(_) => Value::String(format!("{}...<truncated>", text.chars().take(4000).collect::<String>())),
    }
}

pub(super) fn error_record(error: &dyn std::error::Error) -> Value {
    let text: String = error.to_string().chars().take(500).collect();
    json!({"code": null, "error": "ConnectionError", "errorText": text})
}

fn parse_warning(header: &str) -> Value {
    static PATTERN: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    let pattern =
        PATTERN.get_or_init(|| Regex::new(r#"^\s*(\d{3})\s+(\S+)\s+"((?:[^"\\]|\\.)*)""#).expect("a valid pattern"));
    match pattern.captures(header) {
        Some(caps) => json!({"code": caps[1].parse::<u16>().ok(), "text": caps[3].replace("\\\"", "\"")}),
        None => json!({"code": null, "text": header}),
    }
}

pub(super) fn push_event(events: &mut Vec<Value>, line: &[u8]) {
    if line.iter().all(u8::is_ascii_whitespace) {
        return;
    }
    match serde_json::from_slice(line) {
        Ok(event) => events.push(event),
        Err(_) => {
            let text: String = String::from_utf8_lossy(line).chars().take(500).collect();
            events.push(json!({"type": "<unparseable>", "object": text}));
        }
    }
}
