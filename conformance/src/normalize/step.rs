//! Normalization of a step's answer: Status bodies, Tables, set-like lists, `select`/`keys`/`ignore`.

use serde_json::{Map, Value};

use super::{Normalized, Normalizer, truthy};
use crate::node::python_json_sorted;
use crate::path::Path;

/// What `select` yields when the path reaches nothing.
pub const ABSENT: &str = "<absent>";

impl Normalizer {
    /// One step's normalized form (the tables advance: call in step order).
    pub fn step(&mut self, step: &Value) -> Normalized {
        let spec = step.get("spec").unwrap_or(&Value::Null);
        let response = step.get("response").unwrap_or(&Value::Null);
        let (mut hard, mut soft) = (Map::new(), Map::new());
        hard.insert("code".into(), response.get("code").cloned().unwrap_or(Value::Null));
        if let Some(error) = response.get("error").filter(|e| truthy(e)) {
            hard.insert("error".into(), error.clone());
        }
        if let Some(until) = step.get("until") {
            hard.insert("untilMet".into(), until.get("met").cloned().unwrap_or(Value::Null));
        }
        let warnings = response
            .get("warnings")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        if !warnings.is_empty() {
            let mut texts: Vec<String> = warnings
                .iter()
                .map(|w| self.string(w.get("text").and_then(Value::as_str).unwrap_or(""), true))
                .collect();
            texts.sort();
            soft.insert("warnings".into(), texts.into());
        }
        let content_type = response
            .get("contentType")
            .and_then(Value::as_str)
            .and_then(content_type_family);
        soft.insert("contentType".into(), content_type.map_or(Value::Null, Value::from));
        let ignores: Vec<String> = spec
            .get("ignore")
            .and_then(Value::as_array)
            .map(|list| list.iter().filter_map(Value::as_str).map(str::to_owned).collect())
            .unwrap_or_default();
        if let Some(body) = response.get("body").filter(|b| !b.is_null()) {
            let normalized = self.value(body, &mut soft, "");
            hard.insert("body".into(), shape(normalized, spec, &ignores, true));
        }
        if let Some(events) = step.get("events").and_then(Value::as_array) {
            let mut out = Vec::new();
            for (i, event) in events.iter().enumerate() {
                let Value::Object(event) = event else {
                    out.push(event.clone());
                    continue;
                };
                let mut normalized = Map::new();
                normalized.insert("type".into(), event.get("type").cloned().unwrap_or(Value::Null));
                if let Some(object) = event.get("object") {
                    let value = self.value(object, &mut soft, &format!(".events[{i}]"));
                    normalized.insert("object".into(), shape(value, spec, &ignores, false));
                }
                out.push(Value::Object(normalized));
            }
            hard.insert("events".into(), out.into());
        }
        Normalized {
            hard: Value::Object(hard),
            soft: Value::Object(soft),
        }
    }

    /// A Status body: code, reason, details hard; message and cause messages soft.
    pub(super) fn status(&mut self, st: &Map<String, Value>, soft: &mut Map<String, Value>, path: &str) -> Value {
        let mut hard = Map::new();
        hard.insert("kind".into(), "Status".into());
        for key in ["apiVersion", "status", "reason", "code"] {
            if let Some(v) = st.get(key).filter(|v| present(v)) {
                hard.insert(key.into(), v.clone());
            }
        }
        let mut messages = Map::new();
        let details = st.get("details");
        let causes = details
            .and_then(|d| d.get("causes"))
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        if let Some(message) = st.get("message").filter(|m| truthy(m)) {
            let text = self.string(message.as_str().unwrap_or_default(), true);
            messages.insert("message".into(), sort_aggregate(&text, causes).into());
        }
        if let Some(Value::Object(details)) = details {
            let mut hd = Map::new();
            for key in ["name", "group", "kind", "uid", "retryAfterSeconds"] {
                if let Some(v) = details.get(key).filter(|v| present(v)) {
                    let v = match v {
                        Value::String(s) => self.string(s, false).into(),
                        other => other.clone(),
                    };
                    hd.insert(key.into(), v);
                }
            }
            if !causes.is_empty() {
                let mut keyed: Vec<(String, Value)> = causes
                    .iter()
                    .map(|cause| {
                        let mut c = Map::new();
                        for key in ["reason", "field"] {
                            if let Some(Value::String(s)) = cause.get(key).filter(|v| truthy(v)) {
                                c.insert(key.into(), self.string(s, false).into());
                            }
                        }
                        let c = Value::Object(c);
                        (python_json_sorted(&c), c)
                    })
                    .collect();
                keyed.sort_by(|a, b| a.0.cmp(&b.0));
                hd.insert("causes".into(), keyed.into_iter().map(|(_, c)| c).collect());
                let mut texts: Vec<String> = causes
                    .iter()
                    .map(|cause| {
                        let field = cause.get("field").and_then(Value::as_str).unwrap_or("");
                        let reason = cause.get("reason").and_then(Value::as_str).unwrap_or("");
                        let message = self.string(cause.get("message").and_then(Value::as_str).unwrap_or(""), true);
                        format!("{field} [{reason}] {message}")
                    })
                    .collect();
                texts.sort();
                messages.insert("causes".into(), texts.into());
            }
            hard.insert("details".into(), Value::Object(hd));
        }
        if !messages.is_empty() {
            let key = if path.is_empty() {
                "status".to_owned()
            } else {
                format!("status{path}")
            };
            soft.insert(key, Value::Object(messages));
        }
        Value::Object(hard)
    }
}

/// Neither null nor `""`.
fn present(value: &Value) -> bool {
    !value.is_null() && value.as_str() != Some("")
}

/// The map with Tables and set-like lists normalized, or `None` when it has neither (most maps:
/// they are read as they are, uncopied).
pub(super) fn reshape(map: &Map<String, Value>, soft: &mut Map<String, Value>) -> Option<Map<String, Value>> {
    let is_table = map.get("kind") == Some(&Value::from("Table")) && map.get("rows").is_some_and(Value::is_array);
    let kind = map.get("kind").and_then(Value::as_str);
    let set_like = map.contains_key("verbs")
        || map.contains_key("freshness")
        || map.contains_key("resourceRules")
        || map.contains_key("nonResourceRules")
        || matches!(kind, Some("APIResourceList" | "APIGroupList"));
    if !is_table && !set_like {
        return None;
    }
    let map = if is_table {
        table(map.clone(), Some(soft))
    } else {
        map.clone()
    };
    Some(sort_set_like(map))
}

/// Whether a map is a Status answer (not a Status-shaped object of another kind).
pub(super) fn is_status(map: &Map<String, Value>) -> bool {
    map.get("kind") == Some(&Value::from("Status")) && (map.contains_key("status") || map.contains_key("code"))
}

/// A Table with column descriptions moved to `soft` (prose) and date/Age cells as `<age>`.
fn table(mut t: Map<String, Value>, soft: Option<&mut Map<String, Value>>) -> Map<String, Value> {
    let columns = t.get_mut("columnDefinitions").and_then(Value::as_array_mut);
    let mut dates = Vec::new();
    let mut descriptions = Map::new();
    for (i, column) in columns.into_iter().flatten().enumerate() {
        let Value::Object(column) = column else { continue };
        if soft.is_some()
            && let Some(description) = column.remove("description")
        {
            let name = column.get("name").and_then(Value::as_str).unwrap_or("null").to_owned();
            descriptions.insert(name, description);
        }
        if column.get("type") == Some(&Value::from("date")) || column.get("name") == Some(&Value::from("Age")) {
            dates.push(i);
        }
    }
    if let Some(soft) = soft
        && !descriptions.is_empty()
    {
        soft.insert("columnDescriptions".into(), Value::Object(descriptions));
    }
    for row in t.get_mut("rows").and_then(Value::as_array_mut).into_iter().flatten() {
        let Some(cells) = row.get_mut("cells").and_then(Value::as_array_mut) else {
            continue;
        };
        for &i in &dates {
            if let Some(cell @ Value::String(_)) = cells.get_mut(i) {
                *cell = "<age>".into();
            }
        }
    }
    t
}

/// Lists whose order means nothing, sorted: verbs, discovery resources and groups, and a rules
/// review's rules (kube-apiserver lists bindings in its informer cache's map order).
fn sort_set_like(mut v: Map<String, Value>) -> Map<String, Value> {
    if let Some(Value::Array(verbs)) = v.get_mut("verbs")
        && verbs.iter().all(Value::is_string)
    {
        verbs.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
    }
    let by = |key: &'static str| {
        move |x: &Value| match x {
            Value::Object(m) => m.get(key).map_or("None".to_owned(), python_str),
            other => python_str(other),
        }
    };
    let spec = match v.get("kind").and_then(Value::as_str) {
        Some("APIResourceList") => Some(("resources", "name")),
        Some("APIGroupList") => Some(("groups", "name")),
        _ => None,
    };
    if let Some((list, key)) = spec
        && let Some(Value::Array(items)) = v.get_mut(list)
    {
        items.sort_by_cached_key(by(key));
    }
    if v.contains_key("freshness")
        && let Some(Value::Array(resources)) = v.get_mut("resources")
        && resources.iter().all(|x| x.get("resource").is_some())
    {
        resources.sort_by_cached_key(by("resource"));
    }
    for rules in ["resourceRules", "nonResourceRules"] {
        if let Some(Value::Array(items)) = v.get_mut(rules)
            && items.iter().all(Value::is_object)
        {
            items.sort_by_cached_key(rule_key);
        }
    }
    v
}

/// A policy rule's sort key, as the recorder computes it: its lists in a fixed order, verbs
/// sorted.
fn rule_key(rule: &Value) -> String {
    let parts: Vec<String> = ["verbs", "apiGroups", "resources", "resourceNames", "nonResourceURLs"]
        .into_iter()
        .map(|field| {
            let mut items: Vec<String> = rule
                .get(field)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(python_str)
                .collect();
            if field == "verbs" {
                items.sort();
            }
            items.join(",")
        })
        .collect();
    parts.join("|")
}

/// Python's `str()` of a JSON value, as far as the sort keys need it.
fn python_str(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => "None".to_owned(),
        Value::Bool(true) => "True".to_owned(),
        Value::Bool(false) => "False".to_owned(),
        other => other.to_string(),
    }
}

/// `X is invalid: [a: …, b: …]` lists its errors in map order: sorted by field here.
fn sort_aggregate(message: &str, causes: &[Value]) -> String {
    let fields: Vec<&str> = causes
        .iter()
        .filter_map(|c| c.get("field").filter(|f| truthy(f)).and_then(Value::as_str))
        .collect();
    let Some(open) = message.find(": [") else {
        return message.to_owned();
    };
    if fields.is_empty() || !message.ends_with(']') || message.len() < open + 4 {
        return message.to_owned();
    }
    let (head, inner) = (&message[..open + 3], &message[open + 3..message.len() - 1]);
    // Split at ", " followed by one of the fields (or <nil>) and a colon.
    let mut items = Vec::new();
    let (mut start, mut at) = (0, 0);
    while let Some(found) = inner[at..].find(", ") {
        let comma = at + found;
        let rest = &inner[comma + 2..];
        if fields
            .iter()
            .chain(["<nil>"].iter())
            .any(|f| rest.strip_prefix(f).is_some_and(|r| r.starts_with(':')))
        {
            items.push(&inner[start..comma]);
            start = comma + 2;
        }
        at = comma + 2;
    }
    items.push(&inner[start..]);
    items.sort();
    format!("{head}{}]", items.join(", "))
}

/// A content type without charset, parameters sorted: `application/json`, `…;stream=watch`.
pub fn content_type_family(content_type: &str) -> Option<String> {
    if content_type.is_empty() {
        return None;
    }
    let mut parts = content_type.split(';').map(str::trim).filter(|p| !p.is_empty());
    let media = parts.next()?.to_lowercase();
    let mut params: Vec<String> = parts
        .filter(|p| !p.to_lowercase().starts_with("charset"))
        .map(|p| p.replace(' ', ""))
        .collect();
    params.sort();
    Some(std::iter::once(media).chain(params).collect::<Vec<_>>().join(";"))
}

/// `select`, `keys` and `ignore` of the step applied to a normalized body or event object.
fn shape(mut value: Value, spec: &Value, ignores: &[String], select: bool) -> Value {
    if select
        && let Some(path) = spec.get("select").and_then(Value::as_str)
        && (value.is_object() || value.is_array())
    {
        let picked = Path::parse(path).get(&value).cloned().unwrap_or_else(|| ABSENT.into());
        value = serde_json::json!({"select": path, "value": picked});
    }
    if spec.get("keys").is_some_and(truthy)
        && let Value::Object(map) = &value
    {
        value = map.keys().cloned().map(Value::from).collect();
    }
    for ignore in ignores {
        if value.is_object() || value.is_array() {
            Path::parse(ignore).delete(&mut value);
            if !["items", "value", "rows", "*"].iter().any(|p| ignore.starts_with(p)) {
                for prefix in ["items[*].", "value.", "rows[*].object."] {
                    Path::parse(&format!("{prefix}{ignore}")).delete(&mut value);
                }
            }
        }
    }
    value
}
