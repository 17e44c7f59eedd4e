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

/// Decodes JSON, noting duplicate keys; the error is Go's `encoding/json` wording.
pub(crate) fn decode(bytes: &[u8]) -> Result<Decoded, go_json::SyntaxError> {
    let mut duplicates = Vec::new();
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let parsed = Node {
        path: None,
        duplicates: &mut duplicates,
    }
    .deserialize(&mut deserializer)
    .and_then(|value| deserializer.end().map(|()| value));
    match parsed {
        Ok(value) => Ok(Decoded {
            value,
            duplicates,
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
    match decode(bytes) {
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
    let text = String::from_utf8_lossy(bytes);
    ApiStatus::bad_request(format!(
        "the object provided is unrecognized (must be of type {}): {why} ({})",
        info.kind,
        summarize(&text)
    ))
}

/// kube-apiserver's summary of a body it could not decode: its first 30 bytes.
fn summarize(text: &str) -> String {
    match text.char_indices().nth(30) {
        Some((end, _)) => format!("{} ...", &text[..end]),
        None => text.to_owned(),
    }
}

/// What the strict decoder finds in `decoded` as an object of `info`, which loses the unknown
/// fields: `duplicate field "a.b"` first, then `unknown field "a.b"` in path order. Unknown are
/// keys of `metadata` that `ObjectMeta` lacks, and the fields the kind's type (a built-in
/// kind, as the emulated `minor` has it) or schema (a custom resource) does not know.
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
    } else {
        unknown.extend(typed::prune_unknown(info, object, minor));
        unknown.sort();
    }
    let duplicates = decoded.duplicates.iter().map(|p| format!("duplicate field \"{p}\""));
    duplicates
        .chain(unknown.iter().map(|p| format!("unknown field \"{p}\"")))
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
    duplicates: &'d mut Vec<String>,
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
                duplicates: &mut *self.duplicates,
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
            let value = access.next_value_seed(Node {
                path: Some(&path),
                duplicates: &mut *self.duplicates,
            })?;
            if map.contains_key(&key) {
                self.duplicates.push(path.to_string());
            }
            map.insert(key, value);
        }
        Ok(Value::Object(map))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

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
