//! Decoding a request body as kube-apiserver's strict decoder does: Go's wording when it is not
//! JSON, and the fields it sent twice or that the kind does not know, which `fieldValidation`
//! refuses (Strict), reports in `Warning` headers (Warn, the default) or drops (Ignore).

use std::fmt;

use bytes::Bytes;
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use crate::semantics::schema::object_meta;
use crate::semantics::{go_json, schema, typed};
use crate::status::ApiStatus;
use crate::storage::resource::ResourceInfo;
use crate::verbs::options::{FieldValidation, WriteOpts};

/// A JSON body and the paths of the keys it sent more than once (the last one wins, as in Go).
#[derive(Debug, Default)]
pub(crate) struct Decoded {
    pub(crate) value: Value,
    pub(crate) duplicates: Vec<String>,
    /// The body as sent, which some errors quote.
    pub(crate) raw: Option<Bytes>,
}

impl From<Value> for Decoded {
    fn from(value: Value) -> Self {
        Self {
            value,
            duplicates: Vec::new(),
            raw: None,
        }
    }
}

/// Decodes JSON into untyped values (`map[string]interface{}`: a duplicate key's last value
/// wins), noting duplicate keys; the error is Go's `encoding/json` wording.
pub(crate) fn decode(bytes: &[u8]) -> Result<Decoded, go_json::SyntaxError> {
    decode_as(bytes, false)
}

/// Decodes JSON, noting duplicate keys. With `typed` (a built-in kind's Go struct), a duplicate
/// key whose values are both objects merges the second into the first, as `encoding/json`
/// decodes into the struct or map the first one already filled; otherwise the last value wins.
fn decode_as(bytes: &[u8], typed: bool) -> Result<Decoded, go_json::SyntaxError> {
    let mut notes = Notes::default();
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let parsed = Node {
        path: None,
        notes: &mut notes,
        typed,
    }
    .deserialize(&mut deserializer)
    .and_then(|value| deserializer.end().map(|()| value));
    match parsed {
        Ok(value) => Ok(Decoded {
            value,
            duplicates: notes.duplicates,
            raw: None,
        }),
        Err(e) => Err(go_json::SyntaxError(
            go_json::syntax_error(bytes).unwrap_or_else(|| e.to_string()),
        )),
    }
}

/// Decodes the body of a create or update of `info`; a body that is not JSON is refused as
/// kube-apiserver refuses it, quoting its first 30 bytes.
pub(crate) fn decode_object(info: &ResourceInfo, bytes: &Bytes) -> Result<Decoded, ApiStatus> {
    // A custom resource decodes into `map[string]interface{}`, a built-in kind into its type.
    match decode_as(bytes, info.schema.is_none()) {
        Ok(decoded) => Ok(Decoded {
            raw: Some(bytes.clone()),
            ..decoded
        }),
        Err(why) => Err(unrecognized(
            info,
            &format!("couldn't get version/kind; json parse error: {why}"),
            bytes,
        )),
    }
}

/// kube-apiserver's 400 for a body it cannot take as an object of any kind.
pub(crate) fn unrecognized(info: &ResourceInfo, why: &str, bytes: &[u8]) -> ApiStatus {
    unrecognized_kind(&info.kind, why, bytes)
}

/// [`unrecognized`] for a body of `kind` (a subresource's, such as `Scale`).
pub(crate) fn unrecognized_kind(kind: &str, why: &str, bytes: &[u8]) -> ApiStatus {
    ApiStatus::bad_request(format!(
        "the object provided is unrecognized (must be of type {kind}): {why} ({})",
        summarize(bytes)
    ))
}

/// The JSON serializer's first step, `SimpleMetaFactory.Interpret`: reading `apiVersion` and
/// `kind` of a body (or a patched object) into a struct of two strings, which null passes.
pub(crate) fn interpret_error(body: &Value) -> Option<String> {
    const FIND_KIND: &str =
        r#"struct { APIVersion string "json:\"apiVersion,omitempty\""; Kind string "json:\"kind,omitempty\"" }"#;
    let why = match body {
        Value::Null => return None,
        Value::Object(map) => ["apiVersion", "kind"].iter().find_map(|field| {
            let value = map.get(*field).filter(|v| !v.is_string() && !v.is_null())?;
            Some(format!(
                "json: cannot unmarshal {} into Go struct field .{field} of type string",
                go_json::type_name(value)
            ))
        })?,
        other => format!(
            "json: cannot unmarshal {} into Go value of type {FIND_KIND}",
            go_json::type_name(other)
        ),
    };
    Some(format!("couldn't get version/kind; json parse error: {why}"))
}

/// `summarizeData` of the handlers: the first 30 bytes of a body, as text when it starts
/// like a JSON object, in hex otherwise (YAML, garbage).
fn summarize(bytes: &[u8]) -> String {
    const MAX: usize = 30;
    let shown = &bytes[..bytes.len().min(MAX)];
    let text = match bytes.first() {
        None => return "<empty>".to_owned(),
        Some(b'{') => String::from_utf8_lossy(shown).into_owned(),
        Some(_) => shown.iter().map(|byte| format!("{byte:02x}")).collect(),
    };
    if bytes.len() > MAX { format!("{text} ...") } else { text }
}

/// What the strict decoder finds in `decoded` as an object of `info`, which loses the unknown
/// fields. Unknown are keys of `metadata` that `ObjectMeta` lacks, and the fields the kind's
/// type (a built-in kind, as the emulated `minor` has it) or schema (a custom resource) does
/// not know. A built-in kind's decoder reports both kinds as it meets them in the body
/// (`sigs.k8s.io/json`'s saved strict errors): in document order for a body as sent, in path
/// order for an object Go re-encoded (a patched one, whose keys `json.Marshal` sorted). A custom
/// resource's lists duplicates, then the metadata's unknown fields, then its schema's.
pub(crate) fn strict_findings(info: &ResourceInfo, decoded: &mut Decoded, minor: u32) -> Vec<String> {
    let object = &mut decoded.value;
    let mut unknown = Vec::new();
    if let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.retain(|key, _| {
            let known = object_meta::is_field(key);
            if !known {
                unknown.push(format!("metadata.{key}"));
            }
            known
        });
    }
    unknown.sort();
    // A custom resource's decoder lists the metadata's unknown fields, then the schema's in its
    // own order (`unstructuredSchemaCoercer.apply`).
    if info.schema.is_some() {
        unknown.extend(schema::prune_unknown(info, object));
        let duplicates = decoded.duplicates.iter().map(|p| format!("duplicate field \"{p}\""));
        return duplicates
            .chain(unknown.iter().map(|p| format!("unknown field \"{p}\"")))
            .collect();
    }
    unknown.extend(typed::prune_unknown(info, object, minor));
    let mut findings: Vec<(String, &str)> = decoded
        .duplicates
        .iter()
        .map(|p| (p.clone(), "duplicate"))
        .chain(unknown.into_iter().map(|p| (p, "unknown")))
        .collect();
    match &decoded.raw {
        Some(raw) if findings.len() > 1 => {
            let order = document_order(raw);
            // A duplicate is met at its second occurrence, an unknown field at its first.
            let position = |(path, kind): &(String, &str)| {
                let mut at = order.iter().enumerate().filter(|(_, p)| *p == path).map(|(i, _)| i);
                let found = if *kind == "duplicate" { at.nth(1) } else { at.next() };
                found.unwrap_or(usize::MAX)
            };
            findings.sort_by(|a, b| position(a).cmp(&position(b)).then_with(|| a.0.cmp(&b.0)));
        }
        // Without the body as sent: the duplicates as found, then the unknown fields by path.
        _ => findings.sort_by(|a, b| match (a.1, b.1) {
            ("duplicate", "duplicate") => std::cmp::Ordering::Equal,
            ("duplicate", _) => std::cmp::Ordering::Less,
            (_, "duplicate") => std::cmp::Ordering::Greater,
            _ => a.0.cmp(&b.0),
        }),
    }
    findings
        .into_iter()
        .map(|(path, kind)| format!("{kind} field \"{path}\""))
        .collect()
}

/// Acts on strict findings as `fieldValidation` says: Strict refuses the write with the error
/// `refuse` words from `strict decoding error: …`, Warn adds them to the warnings.
pub(crate) fn enforce(
    findings: Vec<String>,
    opts: &WriteOpts,
    refuse: impl FnOnce(String) -> ApiStatus,
) -> Result<(), ApiStatus> {
    if findings.is_empty() {
        return Ok(());
    }
    match opts.validation {
        FieldValidation::Strict => Err(refuse(format!("strict decoding error: {}", findings.join(", ")))),
        FieldValidation::Warn => {
            opts.warnings.extend(findings);
            Ok(())
        }
        FieldValidation::Ignore => Ok(()),
    }
}

/// How create and update word a strict decoding error (Go's `transformDecodeError`).
pub(crate) fn cannot_handle(info: &ResourceInfo) -> impl FnOnce(String) -> ApiStatus + '_ {
    move |why| ApiStatus::cannot_handle(info, &why)
}

/// One step of a path: a key or a list index.
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// A path as a chain of steps back to the root, so that decoding allocates nothing for it.
struct Path<'a> {
    parent: Option<&'a Path<'a>>,
    step: Step<'a>,
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(parent) = self.parent {
            parent.fmt(f)?;
        }
        match self.step {
            Step::Key(key) if self.parent.is_some() => write!(f, ".{key}"),
            Step::Key(key) => f.write_str(key),
            Step::Index(i) => write!(f, "[{i}]"),
        }
    }
}

/// Deserializes one JSON value at `path` into a `Value`, recording duplicate keys.
struct Node<'p, 'd> {
    path: Option<&'p Path<'p>>,
    notes: &'d mut Notes,
    /// Duplicate objects merge (see `decode_as`).
    typed: bool,
}

/// What decoding notes besides the value.
#[derive(Default)]
struct Notes {
    /// The paths of keys seen a second time.
    duplicates: Vec<String>,
    /// Every key's path in document order, when asked for.
    keys: Option<Vec<String>>,
}

/// Every object key's path in `bytes`, in document order (a repeated key twice).
fn document_order(bytes: &[u8]) -> Vec<String> {
    let mut notes = Notes {
        keys: Some(Vec::new()),
        ..Notes::default()
    };
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let node = Node {
        path: None,
        notes: &mut notes,
        typed: false,
    };
    // Only bodies that already decoded come here.
    let _ = node.deserialize(&mut deserializer);
    notes.keys.unwrap_or_default()
}

impl<'de> DeserializeSeed<'de> for Node<'_, '_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Node<'_, '_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        // serde_json reads `-0` as a float to keep its sign; Go reads it as the integer 0
        // (`0.0` stays a float, which an integer field refuses).
        if v == 0.0 && v.is_sign_negative() {
            return Ok(Value::from(0));
        }
        Ok(Value::from(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        loop {
            let path = Path {
                parent: self.path,
                step: Step::Index(items.len()),
            };
            let node = Node {
                path: Some(&path),
                notes: &mut *self.notes,
                typed: self.typed,
            };
            match seq.next_element_seed(node)? {
                Some(item) => items.push(item),
                None => return Ok(Value::Array(items)),
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Value, A::Error> {
        let mut map = Map::new();
        while let Some(key) = access.next_key::<String>()? {
            let path = Path {
                parent: self.path,
                step: Step::Key(&key),
            };
            if let Some(keys) = self.notes.keys.as_mut() {
                keys.push(path.to_string());
            }
            let value = access.next_value_seed(Node {
                path: Some(&path),
                notes: &mut *self.notes,
                typed: self.typed,
            })?;
            match map.get_mut(&key) {
                Some(first) => {
                    self.notes.duplicates.push(path.to_string());
                    if self.typed {
                        merge_into(first, value);
                    } else {
                        *first = value;
                    }
                }
                None => {
                    map.insert(key, value);
                }
            }
        }
        Ok(Value::Object(map))
    }
}

/// `encoding/json` decoding `second` into what `first` filled: objects merge key by key,
/// anything else (a list, a scalar, null) replaces.
fn merge_into(first: &mut Value, second: Value) {
    match (first, second) {
        (Value::Object(into), Value::Object(from)) => {
            for (key, value) in from {
                match into.get_mut(&key) {
                    Some(existing) => merge_into(existing, value),
                    None => {
                        into.insert(key, value);
                    }
                }
            }
        }
        (slot, value) => *slot = value,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_typed_decode_should_merge_duplicate_objects_as_go_does() {
        let decoded = decode_as(br#"{"data": {"a": "1"}, "spec": {"x": [1], "y": {"p": 1}}, "data": {"b": "2"}, "spec": {"x": [2], "y": {"q": 2}}}"#, true).unwrap();
        assert_eq!(
            decoded.value,
            json!({"data": {"a": "1", "b": "2"}, "spec": {"x": [2], "y": {"p": 1, "q": 2}}})
        );
        assert_eq!(decoded.duplicates, ["data", "spec"]);
    }

    #[test]
    fn decode_should_keep_the_last_duplicate_and_name_its_path() {
        let decoded = decode(br#"{"a": 1, "b": {"c": [{"d": 1, "d": 2}]}, "a": 3}"#).unwrap();
        assert_eq!(decoded.value, json!({"a": 3, "b": {"c": [{"d": 2}]}}));
        assert_eq!(decoded.duplicates, ["b.c[0].d", "a"]);
        assert_eq!(
            decode(br#"{"n": 1.5e3, "m": -7}"#).unwrap().value,
            json!({"n": 1500.0, "m": -7})
        );
    }

    #[test]
    fn strict_findings_should_list_duplicates_then_unknown_fields_in_path_order() {
        let info = ResourceInfo::builtin("", "v1", "ConfigMap", "configmaps");
        let mut decoded =
            decode(br#"{"metadata": {"name": "a", "colour": 1}, "data": {"k": "v"}, "dta": 1, "data": {}}"#).unwrap();
        let findings = strict_findings(&info, &mut decoded, 28);
        assert_eq!(
            findings,
            [
                "duplicate field \"data\"",
                "unknown field \"dta\"",
                "unknown field \"metadata.colour\""
            ]
        );
        assert_eq!(decoded.value, json!({"metadata": {"name": "a"}, "data": {}}));
    }

    #[test]
    fn strict_findings_of_a_body_as_sent_should_follow_its_document_order() {
        let info = ResourceInfo::builtin("", "v1", "ConfigMap", "configmaps");
        let raw = Bytes::from_static(
            br#"{"metadata": {"name": "a", "colour": 1}, "data": {"k": "v"}, "dta": 1, "data": {}}"#,
        );
        let mut decoded = decode_object(&info, &raw).unwrap();
        let findings = strict_findings(&info, &mut decoded, 28);
        assert_eq!(
            findings,
            [
                "unknown field \"metadata.colour\"",
                "unknown field \"dta\"",
                "duplicate field \"data\""
            ]
        );
        assert_eq!(decoded.value["data"], json!({"k": "v"}));
    }

    #[test]
    fn decode_should_word_errors_as_go() {
        assert_eq!(
            decode(b"{\"a\": ").unwrap_err().to_string(),
            "unexpected end of JSON input"
        );
        assert_eq!(
            decode(b"{\"a\": x}").unwrap_err().to_string(),
            "invalid character 'x' looking for beginning of value"
        );
    }
}
