//! Runs scenarios against a server and records transcripts in the recorder's format.
//!
//! Requests go out as the recorder (`conformance.py`) sends them — the same headers, the same body
//! bytes, the same query encoding — through a `kube::Client`'s raw `send`, so one runner serves
//! the in-memory server in process (its tower service) and any server behind a kubeconfig.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use http_body_util::BodyExt;
use kube::client::Body;
use regex::Regex;
use serde_json::{Map, Value, json};

use crate::node::Node;
use crate::path::{Path, scalar_text};
use crate::scenario::{Env, Scenario, Step, substitute, substitute_text};

/// The recorder's User-Agent: kube-apiserver derives the default field manager from it.
pub const USER_AGENT: &str = "conformance/v1.0 (linux/amd64) python-requests";
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// Records scenarios through one client.
pub struct Recorder {
    client: kube::Client,
    server: String,
}

/// A request ready to send.
struct Outgoing {
    method: String,
    path: String,
    /// Values are strings, or lists of strings sent as repeated parameters.
    query: Map<String, Value>,
    headers: Vec<(String, String)>,
    body: Option<Vec<u8>>,
}

impl Recorder {
    /// A recorder sending through `client`; `server` is written into transcripts.
    pub fn new(client: kube::Client, server: impl Into<String>) -> Self {
        Recorder {
            client,
            server: server.into(),
        }
    }

    /// Runs one scenario and returns its transcript.
    pub async fn run(&self, scenario: &Scenario, source: &str, run_id: &str) -> Value {
        let namespace = format!("cf-{}-{}", slug(&scenario.name), random_id(5));
        let mut env = Env::new();
        env.insert("ns".into(), Node::String(namespace.clone()));
        env.insert("run".into(), Node::String(run_id.to_owned()));
        if let Some(Node::Map(vars)) = &scenario.vars {
            env.extend(vars.iter().cloned());
        }
        let mut setup = Vec::new();
        if scenario.namespace {
            let body = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}});
            let code = self.status_of("POST", "/api/v1/namespaces", Some(&body)).await;
            setup.push(json!({"createNamespace": namespace, "code": code}));
        }
        let recorded_at = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs_f64();
        let mut steps = Vec::new();
        for step in &scenario.steps {
            steps.push(self.run_step(step, "step", &mut env).await);
        }
        let mut cleanup = Vec::new();
        for step in &scenario.cleanup {
            let record = self.run_step(step, "cleanup", &mut env).await;
            cleanup.push(json!({"request": record["request"], "code": record["response"]["code"]}));
        }
        if scenario.namespace {
            let code = self
                .status_of("DELETE", &format!("/api/v1/namespaces/{namespace}"), None)
                .await;
            cleanup.push(json!({"deleteNamespace": namespace, "code": code}));
        }
        json!({
            "scenario": scenario.name, "category": scenario.category, "source": source,
            "server": self.server, "namespace": namespace, "run": run_id, "recordedAt": recorded_at,
            "setup": setup, "steps": steps, "cleanup": cleanup,
        })
    }

    async fn status_of(&self, method: &str, path: &str, body: Option<&Value>) -> Value {
        let outgoing = Outgoing {
            method: method.into(),
            path: path.into(),
            query: Map::new(),
            headers: Vec::new(),
            body: body.map(|b| Node::from_value(b).to_python_json().into_bytes()),
        };
        match self.send(&outgoing).await {
            Ok(response) => response.status().as_u16().into(),
            Err(_) => Value::Null,
        }
    }

    /// Runs one step: sends it (once, as a watch, or until its condition holds) and captures.
    pub async fn run_step(&self, step: &Step, default_name: &str, env: &mut Env) -> Value {
        if let Some(seconds) = step.sleep {
            tokio::time::sleep(Duration::from_secs_f64(seconds)).await;
        }
        let (outgoing, request) = render(step, env);
        let mut record = Map::new();
        record.insert(
            "name".into(),
            step.name.clone().unwrap_or_else(|| default_name.to_owned()).into(),
        );
        record.insert("spec".into(), step.spec());
        record.insert("request".into(), request);
        let started = Instant::now();
        if let Some(watch) = &step.watch {
            self.watch(&mut record, watch, outgoing).await;
        } else if let Some(until) = &step.until {
            self.poll(&mut record, until, &outgoing).await;
        } else {
            let response = self.exchange(&outgoing).await;
            record.insert("response".into(), response);
        }
        let elapsed = (started.elapsed().as_secs_f64() * 1000.0).round() / 1000.0;
        record.insert("elapsed".into(), elapsed.into());
        capture(step, &mut record, env);
        Value::Object(record)
    }

    async fn exchange(&self, outgoing: &Outgoing) -> Value {
        match self.send(outgoing).await {
            Ok(response) => response_record(response).await,
            Err(error) => error_record(&error),
        }
    }

    async fn poll(&self, record: &mut Map<String, Value>, until: &Node, outgoing: &Outgoing) {
        let seconds = |key: &str, default: f64| until.get(key).and_then(|n| n.to_value().as_f64()).unwrap_or(default);
        let deadline = Instant::now() + Duration::from_secs_f64(seconds("timeoutSeconds", 30.0));
        let interval = Duration::from_secs_f64(seconds("intervalSeconds", 0.5));
        let mut attempts = 0;
        loop {
            attempts += 1;
            let response = match self.send(outgoing).await {
                Ok(response) => response_record(response).await,
                Err(error) => {
                    record.insert("response".into(), error_record(&error));
                    return;
                }
            };
            let met = condition_met(until, &response);
            if met || Instant::now() >= deadline {
                record.insert("response".into(), response);
                record.insert("until".into(), json!({"met": met, "attempts": attempts}));
                return;
            }
            tokio::time::sleep(interval).await;
        }
    }

    async fn watch(&self, record: &mut Map<String, Value>, watch: &Node, mut outgoing: Outgoing) {
        let number = |key: &str, default: u64| watch.get(key).and_then(|n| n.to_value().as_u64()).unwrap_or(default);
        let timeout = number("timeoutSeconds", 3);
        let max_events = usize::try_from(number("maxEvents", 1000)).unwrap_or(usize::MAX);
        outgoing.query.insert("watch".into(), "true".into());
        outgoing
            .query
            .entry("timeoutSeconds")
            .or_insert_with(|| timeout.to_string().into());
        record["request"]["query"] = Value::Object(outgoing.query.clone());
        let response = match self.send(&outgoing).await {
            Ok(response) => response,
            Err(error) => {
                record.insert("response".into(), error_record(&error));
                return;
            }
        };
        if response.status() != http::StatusCode::OK {
            record.insert("response".into(), response_record(response).await);
            record.insert("events".into(), json!([]));
            record.insert("watchEnd".into(), "status".into());
            return;
        }
        let mut head = head_record(&response);
        head.insert("body".into(), Value::Null);
        let deadline = tokio::time::Instant::now() + Duration::from_secs(timeout + 5);
        let mut body = response.into_body();
        let (mut events, mut buffer, mut ended) = (Vec::new(), Vec::<u8>::new(), "server");
        loop {
            let frame = match tokio::time::timeout_at(deadline, body.frame()).await {
                Err(_) => {
                    ended = "clientTimeout";
                    break;
                }
                Ok(None) => break,
                Ok(Some(Err(_))) => {
                    ended = "clientTimeout";
                    break;
                }
                Ok(Some(Ok(frame))) => frame,
            };
            let Ok(data) = frame.into_data() else { continue };
            buffer.extend_from_slice(&data);
            while let Some(newline) = buffer.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = buffer.drain(..=newline).collect();
                push_event(&mut events, &line[..line.len() - 1]);
            }
            if events.len() >= max_events {
                ended = "maxEvents";
                break;
            }
        }
        if events.len() < max_events {
            push_event(&mut events, &buffer);
        }
        events.truncate(max_events);
        record.insert("response".into(), Value::Object(head));
        record.insert("events".into(), Value::Array(events));
        record.insert("watchEnd".into(), ended.into());
    }

    async fn send(&self, outgoing: &Outgoing) -> Result<http::Response<Body>, kube::Error> {
        let mut uri = outgoing.path.clone();
        if !outgoing.query.is_empty() {
            let mut query = form_urlencoded::Serializer::new(String::new());
            for (key, value) in &outgoing.query {
                match value {
                    Value::Array(values) => {
                        query.extend_pairs(values.iter().map(|v| (key, scalar_text(v))));
                    }
                    other => {
                        query.append_pair(key, &scalar_text(other));
                    }
                }
            }
            uri = format!("{uri}?{}", query.finish());
        }
        let mut builder = http::Request::builder()
            .method(outgoing.method.as_str())
            .uri(uri)
            .header(http::header::USER_AGENT, USER_AGENT);
        let mut headers: Vec<(String, String)> = vec![("Accept".into(), "application/json".into())];
        if outgoing.body.is_some() {
            headers.push(("Content-Type".into(), "application/json".into()));
        }
        for (name, value) in &outgoing.headers {
            headers.retain(|(k, _)| !k.eq_ignore_ascii_case(name));
            headers.push((name.clone(), value.clone()));
        }
        for (name, value) in headers {
            builder = builder.header(name, value);
        }
        let body = outgoing.body.clone().map_or_else(Body::empty, Body::from);
        let request = builder.body(body).map_err(kube::Error::HttpError)?;
        match tokio::time::timeout(DEFAULT_TIMEOUT, self.client.send(request)).await {
            Ok(result) => result,
            Err(_) => Err(kube::Error::Service("ReadTimeout".into())),
        }
    }
}

/// The request of a step with the scenario's variables filled in: what is sent, and its record.
fn render(step: &Step, env: &Env) -> (Outgoing, Value) {
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

fn capture(step: &Step, record: &mut Map<String, Value>, env: &mut Env) {
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
fn condition_met(until: &Node, response: &Value) -> bool {
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

fn head_record<B>(response: &http::Response<B>) -> Map<String, Value> {
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

async fn response_record(response: http::Response<Body>) -> Value {
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

fn error_record(error: &dyn std::error::Error) -> Value {
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

fn push_event(events: &mut Vec<Value>, line: &[u8]) {
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

/// The scenario name as a namespace fragment: lowercase, each run of other characters one dash,
/// at most 40 characters.
fn slug(name: &str) -> String {
    let mut out = String::new();
    let mut in_run = false;
    for c in name.to_lowercase().chars() {
        let kept = c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-';
        if kept {
            out.push(c);
        } else if !in_run {
            out.push('-');
        }
        in_run = !kept;
    }
    let trimmed: String = out.trim_matches('-').chars().take(40).collect();
    trimmed.trim_matches('-').to_owned()
}

/// `len` random characters of `[a-z0-9]`.
pub fn random_id(len: usize) -> String {
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    let mut out = String::new();
    while out.len() < len {
        for byte in uuid::Uuid::new_v4().as_bytes() {
            if out.len() < len {
                out.push(ALPHABET[usize::from(*byte) % ALPHABET.len()] as char);
            }
        }
    }
    out
}
