//! The pod as the checks see it, and the wording they share: `policy/visitor.go`
//! (`visitContainers`) and `policy/helpers.go` (`joinQuote`, `pluralize`).
//!
//! The checks read the v1 pod as JSON where Go reads the decoded `corev1.PodSpec`. A field that
//! is absent, null or of the wrong type reads as Go's zero value — a nil pointer, an empty string
//! or list, `false` — so a malformed pod is judged, never a panic.

use serde_json::Value;

/// The object at `key`, Go's non-nil pointer to a struct (`securityContext`, `hostPath`).
pub(crate) fn object<'v>(value: &'v Value, key: &str) -> Option<&'v Value> {
    value.get(key).filter(|field| field.is_object())
}

/// The boolean at `key` when it is set, Go's `*bool`.
pub(crate) fn flag(value: &Value, key: &str) -> Option<bool> {
    value.get(key).and_then(Value::as_bool)
}

/// The string at `key`, empty when unset: Go's `string` fields (a name, a profile type) read ""
/// when the JSON leaves them out.
pub(crate) fn text<'v>(value: &'v Value, key: &str) -> &'v str {
    value.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// The items of the list at `key`; none when unset.
pub(crate) fn items<'v>(value: &'v Value, key: &str) -> impl Iterator<Item = &'v Value> {
    value.get(key).and_then(Value::as_array).into_iter().flatten()
}

/// The `securityContext` of the pod spec or of a container.
pub(crate) fn security_context(holder: &Value) -> Option<&Value> {
    object(holder, "securityContext")
}

/// `visitContainers`: init containers, then containers, then ephemeral containers — the order
/// every list of container names in a detail follows.
pub(crate) fn containers(spec: &Value) -> impl Iterator<Item = &Value> {
    ["initContainers", "containers", "ephemeralContainers"]
        .into_iter()
        .flat_map(move |key| items(spec, key))
}

/// A container's (or a volume's) name.
pub(crate) fn name(item: &Value) -> &str {
    text(item, "name")
}

/// `podSpec.OS.Name == corev1.Windows`: from 1.25 the restricted checks whose fields a Windows
/// pod cannot set (pod validation refuses them) exempt such pods.
pub(crate) fn windows_pod(spec: &Value) -> bool {
    object(spec, "os").is_some_and(|os| text(os, "name") == "windows")
}

/// The string annotations of the pod's (or template's) metadata; `meta` may be null.
pub(crate) fn annotations(meta: &Value) -> impl Iterator<Item = (&str, &str)> {
    object(meta, "annotations")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(key, value)| Some((key.as_str(), value.as_str()?)))
}

/// The annotation at `key`, when set.
pub(crate) fn annotation<'v>(meta: &'v Value, key: &str) -> Option<&'v str> {
    object(meta, "annotations")
        .and_then(|map| map.get(key))
        .and_then(Value::as_str)
}

/// `pluralize`: `singular` for exactly one, `plural` otherwise (zero included).
pub(crate) fn pluralize<'w>(singular: &'w str, plural: &'w str, count: usize) -> &'w str {
    if count == 1 { singular } else { plural }
}

/// `joinQuote`: `"a", "b"`, nothing for no items. Go quotes with plain `"` here, not `%q`,
/// so a name is never escaped.
pub(crate) fn join_quote<S: AsRef<str>>(items: &[S]) -> String {
    if items.is_empty() {
        return String::new();
    }
    let joined: Vec<&str> = items.iter().map(AsRef::as_ref).collect();
    format!("\"{}\"", joined.join("\", \""))
}

/// `pluralize(singular, plural, n) + " " + joinQuote(names)`: `container "a"`, `volumes "a", "b"`.
pub(crate) fn named<S: AsRef<str>>(singular: &str, plural: &str, names: &[S]) -> String {
    format!("{} {}", pluralize(singular, plural, names.len()), join_quote(names))
}

/// The `badSetters` most checks build: `pod` when the pod-level field is bad, then the bad
/// containers; the caller joins them with " and ".
pub(crate) fn bad_setters(pod: bool, containers: &[&str]) -> Vec<String> {
    let mut setters = Vec::new();
    if pod {
        setters.push("pod".to_owned());
    }
    if !containers.is_empty() {
        setters.push(named("container", "containers", containers));
    }
    setters
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn containers_are_visited_init_first_then_regular_then_ephemeral() {
        let spec = json!({
            "ephemeralContainers": [{"name": "e"}],
            "containers": [{"name": "c1"}, {"name": "c2"}],
            "initContainers": [{"name": "i"}],
        });
        let names: Vec<&str> = containers(&spec).map(name).collect();
        assert_eq!(names, ["i", "c1", "c2", "e"]);
    }

    #[test]
    fn fields_of_the_wrong_type_read_as_absent() {
        let spec = json!({"containers": "x", "securityContext": [], "os": {"name": 3}});
        assert_eq!(containers(&spec).count(), 0);
        assert!(security_context(&spec).is_none());
        assert!(!windows_pod(&spec));
        let meta = json!({"annotations": {"a": "1", "b": 2}});
        assert_eq!(annotations(&meta).collect::<Vec<_>>(), [("a", "1")]);
        assert_eq!(annotation(&meta, "b"), None);
        assert_eq!(annotations(&Value::Null).count(), 0);
        assert_eq!(name(&Value::Null), "");
    }

    #[test]
    fn wording_follows_helpers_go() {
        assert_eq!(join_quote::<&str>(&[]), "");
        assert_eq!(join_quote(&["a"]), r#""a""#);
        assert_eq!(join_quote(&["a", "b\"c"]), r#""a", "b"c""#);
        assert_eq!(pluralize("one", "many", 0), "many");
        assert_eq!(named("container", "containers", &["a", "b"]), r#"containers "a", "b""#);
        assert_eq!(bad_setters(true, &["a"]), ["pod", r#"container "a""#]);
        assert!(bad_setters(false, &[]).is_empty());
    }
}
