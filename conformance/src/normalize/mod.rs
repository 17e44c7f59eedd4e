//! Normalization of one scenario transcript: what varies between runs and servers becomes a
//! placeholder, by the corpus README's rules, with scenario-wide tables so "the same object" and
//! "changed or not" survive.
//!
//! This is a port of the recorder's normalizer; the test `normalizer` checks that it reproduces the
//! normalized forms stored in every recorded transcript exactly, so both sides of a comparison are
//! normalized as the corpus was.

mod step;
mod strings;

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use crate::node::python_json_sorted;
pub use step::content_type_family;
use strings::{TIME_RE, UUID_RE};

/// The normalized form of one step: `hard` must match, `soft` is compared as wording.
#[derive(Debug, Clone, PartialEq)]
pub struct Normalized {
    /// Code, body, events: differences here are real differences.
    pub hard: Value,
    /// Messages, warnings, content type: differences here are wording.
    pub soft: Value,
}

/// Normalizes the steps of one transcript, in order.
pub struct Normalizer {
    namespace: Option<String>,
    run: Option<String>,
    now: f64,
    uids: HashMap<String, String>,
    /// How many uids were named `UID<n>` (the rest are named after their object).
    anonymous_uids: usize,
    gen_names: Vec<(String, String)>,
    rv_by_object: HashMap<String, HashMap<String, String>>,
    rv_any: HashMap<String, String>,
    literal_uids: HashSet<String>,
}

impl Normalizer {
    /// A normalizer for `transcript` (scans it for generated names and literal uids first).
    pub fn new(transcript: &Value) -> Self {
        let text = |key: &str| {
            transcript
                .get(key)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
        };
        let mut normalizer = Normalizer {
            namespace: text("namespace"),
            run: text("run"),
            now: transcript.get("recordedAt").and_then(Value::as_f64).unwrap_or(0.0),
            uids: HashMap::new(),
            anonymous_uids: 0,
            gen_names: Vec::new(),
            rv_by_object: HashMap::new(),
            rv_any: HashMap::new(),
            literal_uids: HashSet::new(),
        };
        let steps = steps_of(transcript);
        normalizer.scan_generated_names(steps);
        normalizer.scan_literal_uids(steps);
        normalizer
    }

    /// Every step's normalized form, in order.
    pub fn steps(&mut self, transcript: &Value) -> Vec<Normalized> {
        steps_of(transcript).iter().map(|step| self.step(step)).collect()
    }

    /// Uids that appear in a request before any response showed them: the scenario wrote them.
    fn scan_literal_uids(&mut self, steps: &[Value]) {
        let mut seen = HashSet::new();
        for step in steps {
            let request = python_json_sorted(step.get("request").unwrap_or(&Value::Null));
            for m in UUID_RE.find_iter(&request) {
                if !seen.contains(m.as_str()) {
                    self.literal_uids.insert(m.as_str().to_owned());
                }
            }
            for answer in [step.get("response"), step.get("events")].into_iter().flatten() {
                let text = python_json_sorted(answer);
                seen.extend(UUID_RE.find_iter(&text).map(|m| m.as_str().to_owned()));
            }
        }
    }

    /// Names made from `generateName` (prefix + 5 characters), numbered by first appearance.
    fn scan_generated_names(&mut self, steps: &[Value]) {
        for step in steps {
            if let Some(body) = step.get("response").and_then(|r| r.get("body")) {
                self.visit_generated(body);
            }
            for event in step.get("events").and_then(Value::as_array).into_iter().flatten() {
                self.visit_generated(event);
            }
        }
    }

    fn visit_generated(&mut self, value: &Value) {
        match value {
            Value::Object(map) => {
                if let Some(Value::Object(md)) = map.get("metadata")
                    && let (Some(Value::String(generate)), Some(Value::String(name))) =
                        (md.get("generateName"), md.get("name"))
                {
                    let name_chars = name.chars().count();
                    let prefix: String = name.chars().take(name_chars.saturating_sub(5)).collect();
                    if name_chars > 5
                        && name != generate
                        && generate.starts_with(&prefix)
                        && name_chars == generate.chars().count().min(58) + 5
                        && !self.gen_names.iter().any(|(raw, _)| raw == name)
                    {
                        let placeholder = format!("{generate}<gen{}>", self.gen_names.len() + 1);
                        self.gen_names.push((name.clone(), placeholder));
                    }
                }
                for value in map.values() {
                    self.visit_generated(value);
                }
            }
            Value::Array(items) => items.iter().for_each(|item| self.visit_generated(item)),
            _ => {}
        }
    }

    /// A string with names, uids and recent times replaced; `message` also replaces pointers,
    /// times inside the text and numbers in sentences about resource versions.
    pub fn string(&mut self, text: &str, message: bool) -> String {
        let mut s = text.to_owned();
        if let Some(ns) = &self.namespace {
            s = s.replace(ns.as_str(), "{ns}");
        }
        if let Some(run) = &self.run {
            s = s.replace(run.as_str(), "{run}");
        }
        for (raw, placeholder) in &self.gen_names {
            if s.contains(raw.as_str()) {
                s = s.replace(raw.as_str(), placeholder);
            }
        }
        s = self.replace_uids(&s);
        if let Some(now) = self.recent_time(&s) {
            return now;
        }
        if message {
            s = strings::POINTER_RE.replace_all(&s, "<ptr>").into_owned();
            s = strings::SCHEME_NAME_RE
                .replace_all(&s, r#"in scheme "<scheme>""#)
                .into_owned();
            s = strings::TIME_IN_TEXT_RE
                .replace_all(&s, |caps: &regex::Captures| {
                    self.recent_time(&caps[0]).unwrap_or_else(|| caps[0].to_owned())
                })
                .into_owned();
            if strings::RV_MESSAGE_RE.is_match(&s) {
                s = strings::replace_rv_numbers(&s);
            }
        }
        s
    }

    fn replace_uids(&mut self, s: &str) -> String {
        let mut out = String::new();
        let mut last = 0;
        for m in UUID_RE.find_iter(s) {
            out.push_str(&s[last..m.start()]);
            out.push_str(&self.uid(m.as_str()));
            last = m.end();
        }
        out.push_str(&s[last..]);
        out
    }

    fn uid(&mut self, uid: &str) -> String {
        if self.literal_uids.contains(uid) {
            return uid.to_owned();
        }
        if let Some(placeholder) = self.uids.get(uid) {
            return placeholder.clone();
        }
        // Numbered among the anonymous uids only: an object one server listed and the other had
        // not made yet (named `uid(name)`) must not renumber the uids seen after it.
        self.anonymous_uids += 1;
        let placeholder = format!("UID{}", self.anonymous_uids);
        self.uids.insert(uid.to_owned(), placeholder.clone());
        placeholder
    }

    /// `<now>` (`<now.N>` with N fraction digits) for an RFC 3339 time within 3 days of the recording.
    fn recent_time(&self, s: &str) -> Option<String> {
        let caps = TIME_RE.captures(s)?;
        let offset = if &caps[3] == "Z" { "+00:00" } else { &caps[3] };
        let time: jiff::Timestamp = format!("{}{offset}", &caps[1]).parse().ok()?;
        let seconds = time.as_second() as f64;
        if (seconds - self.now).abs() >= 3.0 * 86400.0 {
            return None;
        }
        Some(match caps.get(2) {
            None => "<now>".to_owned(),
            Some(fraction) => format!("<now.{}>", fraction.as_str().len() - 1),
        })
    }

    /// Names an object's uid after the object (`uid(name)`, `uid(name)#2` for a re-created one), so
    /// an extra object on one server does not renumber every later uid.
    fn register_uid(&mut self, md: &Map<String, Value>) {
        let (Some(Value::String(uid)), Some(Value::String(name))) = (md.get("uid"), md.get("name")) else {
            return;
        };
        let whole = UUID_RE
            .find(uid)
            .is_some_and(|m| m.start() == 0 && m.end() == uid.len());
        if !whole || self.uids.contains_key(uid) || self.literal_uids.contains(uid) {
            return;
        }
        let base = format!("uid({})", self.string(name, false));
        let taken = self
            .uids
            .values()
            .filter(|v| **v == base || v.starts_with(&format!("{base}#")))
            .count();
        let placeholder = if taken == 0 {
            base
        } else {
            format!("{base}#{}", taken + 1)
        };
        self.uids.insert(uid.clone(), placeholder);
    }

    fn object_rv(&mut self, md: &Map<String, Value>, raw: &str) -> String {
        let identity = match md.get("uid") {
            Some(uid) if truthy(uid) => python_json_sorted(uid),
            _ => python_json_sorted(&Value::Array(vec![
                md.get("namespace").cloned().unwrap_or(Value::Null),
                md.get("name").cloned().unwrap_or(Value::Null),
            ])),
        };
        let table = self.rv_by_object.entry(identity).or_default();
        let next = format!("RV{}", table.len() + 1);
        let placeholder = table.entry(raw.to_owned()).or_insert(next).clone();
        self.rv_any.entry(raw.to_owned()).or_insert_with(|| placeholder.clone());
        placeholder
    }

    /// A normalized value; Status bodies and Tables get their own treatment.
    fn value(&mut self, v: &Value, soft: &mut Map<String, Value>, path: &str) -> Value {
        match v {
            Value::Object(map) => {
                if step::is_status(map) {
                    return self.status(map, soft, path);
                }
                let reshaped = step::reshape(map, soft);
                let mut out = Map::new();
                for (key, x) in reshaped.as_ref().unwrap_or(map) {
                    if x.is_null() {
                        continue;
                    }
                    let key = if key.contains('-') || key.contains('{') {
                        self.string(key, false)
                    } else {
                        key.clone()
                    };
                    let normalized = match (key.as_str(), x) {
                        ("metadata", Value::Object(md)) => self.metadata(md, soft, &format!("{path}.metadata")),
                        ("resourceVersion", Value::String(rv)) if rv.is_empty() => x.clone(),
                        ("resourceVersion", Value::String(rv)) => {
                            self.rv_any.get(rv).cloned().unwrap_or_else(|| "<rv>".to_owned()).into()
                        }
                        ("continue", Value::String(c)) if !c.is_empty() => "<continue>".into(),
                        _ => self.value(x, soft, &format!("{path}.{key}")),
                    };
                    out.insert(key, normalized);
                }
                Value::Object(out)
            }
            Value::Array(items) => Value::Array(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, x)| self.value(x, soft, &format!("{path}[{i}]")))
                    .collect(),
            ),
            Value::String(s) => Value::String(self.string(s, false)),
            other => other.clone(),
        }
    }

    fn metadata(&mut self, md: &Map<String, Value>, soft: &mut Map<String, Value>, path: &str) -> Value {
        let is_object = ["name", "generateName", "uid"].iter().any(|k| md.contains_key(*k));
        self.register_uid(md);
        let mut out = Map::new();
        for (key, x) in md {
            if is_empty(x) {
                continue; // ObjectMeta and ListMeta omit empty fields: empty and absent decode alike
            }
            let normalized = match (key.as_str(), x) {
                ("resourceVersion", Value::String(rv)) if is_object => self.object_rv(md, rv).into(),
                ("resourceVersion", Value::String(_)) => "<listRV>".into(),
                ("continue", Value::String(_)) => "<continue>".into(),
                ("selfLink", Value::String(_)) => "<selfLink>".into(),
                _ => self.value(x, soft, &format!("{path}.{key}")),
            };
            out.insert(key.clone(), normalized);
        }
        Value::Object(out)
    }
}

fn steps_of(transcript: &Value) -> &[Value] {
    transcript
        .get("steps")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// `null`, `""`, `[]` or `{}`.
pub(crate) fn is_empty(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Array(items) => items.is_empty(),
        Value::Object(map) => map.is_empty(),
        _ => false,
    }
}

/// Python's truthiness of a JSON value.
pub(crate) fn truthy(value: &Value) -> bool {
    match value {
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64() != Some(0.0),
        other => !is_empty(other),
    }
}
