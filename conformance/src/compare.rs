//! Comparison of two normalized transcripts of a scenario, step by step.
//!
//! A step is *identical*, differs only *softly* (message wording, warning texts, content-type
//! family, `""`/`{}`/`[]` against absent outside managedFields) or *differs*. List items are
//! aligned by name (or `type`, or manager) so one extra item reads as one difference.

use std::fmt;

use serde_json::Value;

use crate::node::python_json_sorted;
use crate::normalize::{Normalized, Normalizer};

/// A value that one side lacks.
pub const ABSENT: &str = "<absent>";

/// How far a step is from the recorded answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Verdict {
    /// The same normalized answer.
    Identical,
    /// The same except wording, warnings, content-type parameters or empty-vs-absent.
    Soft,
    /// A different answer.
    Differ,
}

impl Verdict {
    /// The verdict's name in reports and the pending file.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Identical => "identical",
            Verdict::Soft => "soft",
            Verdict::Differ => "differ",
        }
    }

    /// Parses [`Verdict::name`].
    pub fn parse(text: &str) -> Option<Self> {
        [Verdict::Identical, Verdict::Soft, Verdict::Differ]
            .into_iter()
            .find(|v| v.name() == text)
    }
}

/// One difference: where, the recorded value, ours.
#[derive(Debug, Clone, PartialEq)]
pub struct Difference {
    /// The dotted path (`body.metadata.labels`, `events[0].type`, `body.items[name=a]`).
    pub path: String,
    /// The recorded (kube-apiserver's) value, or [`ABSENT`].
    pub real: Value,
    /// Ours, or [`ABSENT`].
    pub ours: Value,
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = if self.path.is_empty() { "<root>" } else { &self.path };
        write!(f, "{path}: real={} ours={}", short(&self.real), short(&self.ours))
    }
}

fn short(value: &Value) -> String {
    let text = match value {
        Value::String(s) if s == ABSENT => s.clone(),
        other => other.to_string(),
    };
    if text.chars().count() <= 110 {
        text
    } else {
        format!("{}...", text.chars().take(107).collect::<String>())
    }
}

/// The comparison of one step.
#[derive(Debug, Clone)]
pub struct StepResult {
    /// The scenario.
    pub scenario: String,
    /// Its category.
    pub category: String,
    /// The step.
    pub step: String,
    /// `METHOD path?query`.
    pub request: String,
    /// The verdict.
    pub verdict: Verdict,
    /// Hard differences.
    pub hard: Vec<Difference>,
    /// Soft differences.
    pub soft: Vec<Difference>,
}

impl StepResult {
    /// Whether every hard difference is in managedFields.
    pub fn managed_fields_only(&self) -> bool {
        !self.hard.is_empty() && self.hard.iter().all(|d| d.path.contains("managedFields"))
    }
}

/// Compares our transcript of a scenario with the recorded one (steps matched by name; steps
/// with `diff: false` are normalized, so the tables advance, but not compared).
pub fn compare(real: &Value, ours: &Value) -> Vec<StepResult> {
    let scenario = real["scenario"].as_str().unwrap_or_default().to_owned();
    let category = real["category"].as_str().unwrap_or("uncategorized").to_owned();
    let (mut norm_real, mut norm_ours) = (Normalizer::new(real), Normalizer::new(ours));
    let ours_steps: Vec<&Value> = ours["steps"].as_array().map(|s| s.iter().collect()).unwrap_or_default();
    let mut results = Vec::new();
    for step in real["steps"].as_array().into_iter().flatten() {
        let name = step["name"].as_str().unwrap_or_default();
        let expected = norm_real.step(step);
        let actual = match ours_steps.iter().rev().find(|s| s["name"] == step["name"]) {
            Some(ours) => norm_ours.step(ours),
            None => Normalized {
                hard: serde_json::json!({"<step>": "missing"}),
                soft: serde_json::json!({}),
            },
        };
        if step["spec"]["diff"] == Value::Bool(false) {
            continue;
        }
        let (mut hard, mut soft) = (Vec::new(), Vec::new());
        deep_diff(&expected.hard, &actual.hard, "", &mut hard);
        deep_diff(&expected.soft, &actual.soft, "", &mut soft);
        // "" / {} / [] on one side and nothing on the other decode alike in typed clients (not in
        // managedFields, where an empty {} marks ownership of the field).
        let (empty, hard): (Vec<Difference>, Vec<Difference>) = hard
            .into_iter()
            .partition(|d| !d.path.contains("managedFields") && empty_vs_absent(d));
        soft.extend(empty.into_iter().map(|d| Difference {
            path: format!("empty-vs-absent:{}", d.path),
            ..d
        }));
        let verdict = if !hard.is_empty() {
            Verdict::Differ
        } else if !soft.is_empty() {
            Verdict::Soft
        } else {
            Verdict::Identical
        };
        results.push(StepResult {
            scenario: scenario.clone(),
            category: category.clone(),
            step: name.to_owned(),
            request: request_line(step),
            verdict,
            hard,
            soft,
        });
    }
    results
}

/// The steps of a scenario kube-apiserver's corpus has no transcript of: each differs.
pub fn unrecorded(scenario: &crate::scenario::Scenario) -> Vec<StepResult> {
    scenario
        .steps
        .iter()
        .filter(|step| step.diff != Some(false))
        .map(|step| StepResult {
            scenario: scenario.name.clone(),
            category: scenario.category.clone(),
            step: step.name.clone().unwrap_or_default(),
            request: format!("{} {}", step.method.as_deref().unwrap_or("GET"), step.path),
            verdict: Verdict::Differ,
            hard: vec![Difference {
                path: "<scenario>".into(),
                real: "missing".into(),
                ours: "present".into(),
            }],
            soft: Vec::new(),
        })
        .collect()
}

fn empty_vs_absent(d: &Difference) -> bool {
    let absent = |v: &Value| v.as_str() == Some(ABSENT);
    let empty = |v: &Value| {
        matches!(v, Value::String(s) if s.is_empty()) || v == &serde_json::json!({}) || v == &serde_json::json!([])
    };
    (absent(&d.real) && empty(&d.ours)) || (absent(&d.ours) && empty(&d.real))
}

/// `METHOD path?query` of a recorded step.
pub fn request_line(step: &Value) -> String {
    let request = &step["request"];
    let query: Vec<String> = request["query"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| format!("{k}={}", v.as_str().map_or_else(|| v.to_string(), str::to_owned)))
        .collect();
    let method = request["method"].as_str().unwrap_or_default();
    let path = request["path"].as_str().unwrap_or_default();
    if query.is_empty() {
        format!("{method} {path}")
    } else {
        format!("{method} {path}?{}", query.join("&"))
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "int",
        Value::String(_) => "str",
        Value::Array(_) => "list",
        Value::Object(_) => "dict",
    }
}

/// How list items are matched between the two sides: by name, type or manager.
fn align_key(x: &Value) -> Option<String> {
    let map = x.as_object()?;
    if let Some(name) = map.get("metadata").and_then(|m| m.get("name")).and_then(Value::as_str) {
        return Some(format!("name={name}"));
    }
    for key in ["name", "type", "manager"] {
        if let Some(v) = map.get(key).and_then(Value::as_str) {
            if key == "manager" {
                let operation = map.get("operation").and_then(Value::as_str).unwrap_or("None");
                let subresource = map.get("subresource").and_then(Value::as_str).unwrap_or("");
                // One manager's entries of two API versions are two entries.
                let version = map.get("apiVersion").and_then(Value::as_str).map(|v| format!("@{v}"));
                let version = version.unwrap_or_default();
                return Some(format!("manager={v}{version}/{operation}/{subresource}"));
            }
            return Some(format!("{key}={v}"));
        }
    }
    None
}

/// The operation of a managedFields entry from its alignment key `manager=M/OPERATION/SUB`.
fn entry_operation(key: &str) -> String {
    key.rsplit('/').nth(1).unwrap_or_default().to_owned()
}

fn deep_diff(a: &Value, b: &Value, path: &str, out: &mut Vec<Difference>) {
    let push = |out: &mut Vec<Difference>, path: String, real: Value, ours: Value| {
        out.push(Difference { path, real, ours });
    };
    if type_name(a) != type_name(b) {
        return push(out, path.to_owned(), a.clone(), b.clone());
    }
    match (a, b) {
        (Value::Object(ma), Value::Object(mb)) => {
            let mut keys: Vec<&String> = ma.keys().chain(mb.keys()).collect();
            keys.sort();
            keys.dedup();
            for key in keys {
                let p = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                match (ma.get(key), mb.get(key)) {
                    (None, Some(y)) => push(out, p, ABSENT.into(), y.clone()),
                    (Some(x), None) => push(out, p, x.clone(), ABSENT.into()),
                    (Some(x), Some(y)) => deep_diff(x, y, &p, out),
                    (None, None) => {}
                }
            }
        }
        (Value::Array(la), Value::Array(lb)) if path.ends_with("causes") => {
            let ja: Vec<String> = la.iter().map(python_json_sorted).collect();
            let jb: Vec<String> = lb.iter().map(python_json_sorted).collect();
            let count = |list: &[String], x: &String| list.iter().filter(|y| *y == x).count();
            let only = |from: &[String], other: &[String], values: &[Value]| -> Vec<Value> {
                from.iter()
                    .zip(values)
                    .filter(|(x, _)| !other.contains(x) || count(from, x) > count(other, x))
                    .map(|(_, v)| v.clone())
                    .collect()
            };
            let (only_a, only_b) = (only(&ja, &jb, la), only(&jb, &ja, lb));
            if !only_a.is_empty() || !only_b.is_empty() {
                let side = |list: Vec<Value>| {
                    if list.is_empty() {
                        ABSENT.into()
                    } else {
                        Value::Array(list)
                    }
                };
                push(out, path.to_owned(), side(only_a), side(only_b));
            }
        }
        (Value::Array(la), Value::Array(lb)) => {
            let ka: Vec<Option<String>> = la.iter().map(align_key).collect();
            let kb: Vec<Option<String>> = lb.iter().map(align_key).collect();
            let unique = |keys: &[Option<String>]| {
                let mut seen = std::collections::HashSet::new();
                keys.iter().all(|k| k.as_ref().is_some_and(|k| seen.insert(k.clone())))
            };
            if !la.is_empty() && !lb.is_empty() && unique(&ka) && unique(&kb) {
                let ka: Vec<String> = ka.into_iter().flatten().collect();
                let kb: Vec<String> = kb.into_iter().flatten().collect();
                // Within one operation kube-apiserver orders managedFields entries by their
                // time to the second, which a replay cannot reproduce (its steps straddle second
                // boundaries at random, and times normalize to `<now>`): there only the order
                // of operations (Apply before Update) is compared.
                // A step that selects the managedFields list compares it under `value`.
                let entry = |v: &Value| v.get("manager").is_some() && v.get("operation").is_some();
                let managed = path.ends_with("managedFields") || la.iter().chain(lb).all(entry);
                let order_key = |k: &String| if managed { entry_operation(k) } else { k.clone() };
                let common_a: Vec<String> = ka.iter().filter(|k| kb.contains(k)).map(order_key).collect();
                let common_b: Vec<String> = kb.iter().filter(|k| ka.contains(k)).map(order_key).collect();
                if common_a != common_b {
                    let keys = |k: &[String]| Value::from(k.to_vec());
                    push(out, format!("{path}<order>"), keys(&ka), keys(&kb));
                }
                for (k, x) in ka.iter().zip(la) {
                    match kb.iter().position(|y| y == k) {
                        Some(j) => deep_diff(x, &lb[j], &format!("{path}[{k}]"), out),
                        None => push(out, format!("{path}[{k}]"), x.clone(), ABSENT.into()),
                    }
                }
                for (k, y) in kb.iter().zip(lb) {
                    if !ka.contains(k) {
                        push(out, format!("{path}[{k}]"), ABSENT.into(), y.clone());
                    }
                }
            } else {
                for i in 0..la.len().max(lb.len()) {
                    let p = format!("{path}[{i}]");
                    match (la.get(i), lb.get(i)) {
                        (Some(x), Some(y)) => deep_diff(x, y, &p, out),
                        (Some(x), None) => push(out, p, x.clone(), ABSENT.into()),
                        (None, Some(y)) => push(out, p, ABSENT.into(), y.clone()),
                        (None, None) => {}
                    }
                }
            }
        }
        _ if a != b => push(out, path.to_owned(), a.clone(), b.clone()),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn aligns_list_items_by_name_and_reports_order() {
        let a = json!([{"name": "a", "v": 1}, {"name": "b", "v": 2}]);
        let b = json!([{"name": "b", "v": 2}, {"name": "a", "v": 3}]);
        let mut out = Vec::new();
        deep_diff(&a, &b, "x", &mut out);
        let paths: Vec<&str> = out.iter().map(|d| d.path.as_str()).collect();
        assert_eq!(paths, ["x<order>", "x[name=a].v"]);
    }

    #[test]
    fn managed_fields_order_is_compared_by_operation_only() {
        let entry = |op: &str, sub: &str| json!({"manager": "m", "operation": op, "subresource": sub});
        let real = json!([entry("Apply", ""), entry("Update", ""), entry("Update", "status")]);
        let swapped = json!([entry("Apply", ""), entry("Update", "status"), entry("Update", "")]);
        let mut out = Vec::new();
        deep_diff(&real, &swapped, "metadata.managedFields", &mut out);
        assert!(out.is_empty(), "{out:?}");
        let update_first = json!([entry("Update", ""), entry("Apply", ""), entry("Update", "status")]);
        deep_diff(&real, &update_first, "metadata.managedFields", &mut out);
        let paths: Vec<&str> = out.iter().map(|d| d.path.as_str()).collect();
        assert_eq!(paths, ["metadata.managedFields<order>"]);
        let mut selected = Vec::new();
        deep_diff(&real, &swapped, "body.value", &mut selected);
        assert!(selected.is_empty(), "{selected:?}");
        // One manager's updates through two versions are told apart by version, not position.
        let versioned = |v: &str, field: &str| json!({"manager": "m", "operation": "Update", "apiVersion": v, "fieldsV1": {field: {}}});
        let real = json!([versioned("g/v1", "f:a"), versioned("g/v2", "f:b")]);
        let later = json!([versioned("g/v2", "f:b"), versioned("g/v1", "f:a")]);
        let mut versions = Vec::new();
        deep_diff(&real, &later, "metadata.managedFields", &mut versions);
        assert!(versions.is_empty(), "{versions:?}");
    }

    #[test]
    fn int_and_float_differ() {
        let mut out = Vec::new();
        deep_diff(&json!(1), &json!(1.0), "n", &mut out);
        assert_eq!(out.len(), 1);
    }
}
