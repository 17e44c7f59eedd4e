//! Runs scenarios against a server and records transcripts in the recorder's format.
//!
//! Requests go out as the recorder (`conformance.py`) sends them — the same headers, the same body
//! bytes, the same query encoding — through a `kube::Client`'s raw `send`, so one runner serves
//! the in-memory server in process (its tower service) and any server behind a kubeconfig.

mod request;
mod response;

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use http_body_util::BodyExt;
use kube::client::Body;
use secrecy::ExposeSecret;
use serde_json::{Map, Value, json};

use crate::node::Node;
use crate::path::scalar_text;
use crate::scenario::{Env, Scenario, Step};
pub use request::rendered_request;
use request::{Outgoing, capture, condition_met, render};
pub use response::response_record;
use response::{error_record, head_record, push_event};

/// The recorder's User-Agent: kube-apiserver derives the default field manager from it.
pub const USER_AGENT: &str = "conformance/v1.0 (linux/amd64) python-requests";
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a replay polls a condition kube-apiserver never met in its recording: the recorded
/// answer is the state after the full timeout, and a server that meets the condition within
/// seconds differs anyway, so waiting out the full timeout again proves nothing more.
const KNOWN_UNMET_WAIT: Duration = Duration::from_secs(3);

/// Records scenarios through one client.
pub struct Recorder {
    client: kube::Client,
    server: String,
    /// The `Authorization` header every request carries unless its step sends its own (the
    /// Python recorder's session header): a kubeconfig's bearer token, taken out of the client,
    /// whose auth layer would replace a step's header.
    authorization: Option<String>,
}

impl Recorder {
    /// A recorder sending through `client`; `server` is written into transcripts.
    pub fn new(client: kube::Client, server: impl Into<String>) -> Self {
        Recorder {
            client,
            server: server.into(),
            authorization: None,
        }
    }

    /// A recorder for the server of `config`. Like the Python recorder, it sends every request
    /// once: kube's default retry of 429, 503 and 504 answers is turned off, since those answers
    /// are what a step compares.
    pub fn for_config(mut config: kube::Config, server: impl Into<String>) -> Result<Self, kube::Error> {
        config.default_retry = false;
        let token = config.auth_info.token.take();
        let mut recorder = Self::new(kube::Client::try_from(config)?, server);
        recorder.authorization = token.map(|token| format!("Bearer {}", token.expose_secret()));
        Ok(recorder)
    }

    /// Runs one scenario and returns its transcript.
    pub async fn run(&self, scenario: &Scenario, source: &str, run_id: &str) -> Value {
        self.replay(scenario, source, run_id, None).await
    }

    /// Runs one scenario as [`Recorder::run`] does, where `recorded` (kube-apiserver's transcript
    /// of it) shortens the polls it recorded as never met to a few seconds (`KNOWN_UNMET_WAIT`).
    pub async fn replay(&self, scenario: &Scenario, source: &str, run_id: &str, recorded: Option<&Value>) -> Value {
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
        for (i, step) in scenario.steps.iter().enumerate() {
            let unmet = recorded
                .and_then(|r| r.pointer(&format!("/steps/{i}/until/met")))
                .is_some_and(|met| met == false);
            let wait = unmet.then_some(KNOWN_UNMET_WAIT);
            steps.push(self.run_step_within(step, "step", &mut env, wait).await);
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
        self.run_step_within(step, default_name, env, None).await
    }

    /// [`Recorder::run_step`], a poll giving up after `wait` when that is shorter than its own
    /// timeout.
    async fn run_step_within(&self, step: &Step, default_name: &str, env: &mut Env, wait: Option<Duration>) -> Value {
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
            self.poll(&mut record, until, &outgoing, wait).await;
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

    async fn poll(&self, record: &mut Map<String, Value>, until: &Node, outgoing: &Outgoing, wait: Option<Duration>) {
        let seconds = |key: &str, default: f64| until.get(key).and_then(|n| n.to_value().as_f64()).unwrap_or(default);
        let timeout = Duration::from_secs_f64(seconds("timeoutSeconds", DEFAULT_TIMEOUT.as_secs_f64()));
        let deadline = Instant::now() + wait.map_or(timeout, |wait| wait.min(timeout));
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
        let mut builder = http::Request::builder().method(outgoing.method.as_str()).uri(uri);
        // A step's own headers replace these defaults.
        let mut headers: Vec<(String, String)> = vec![
            ("Accept".into(), "application/json".into()),
            ("User-Agent".into(), USER_AGENT.into()),
        ];
        if let Some(authorization) = &self.authorization {
            headers.push(("Authorization".into(), authorization.clone()));
        }
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
