//! The tolerations a pod's `scheduler.alpha.kubernetes.io/tolerations` annotation holds, as
//! `helper.GetTolerationsFromPodAnnotations` (`pkg/apis/core/helper/helpers.go`) reads them:
//! `encoding/json`'s `Unmarshal` into a `[]core.Toleration`, whose error text
//! `ValidateTolerationsInPodAnnotations` quotes. A syntax error comes first (Go checks the whole
//! input before decoding); then the first value, in document order, of a type its Go field
//! cannot hold. The internal `core.Toleration` has no JSON tags: its keys are the Go field names,
//! matched exactly or else case-folded, and the errors name them so (`Toleration.Key`).

use serde_json::{Map, Value, json};

use crate::semantics::go_json;
use crate::semantics::go_json_reader::{Item, Reader};

/// The Go type the annotation decodes into, and that of one item.
const LIST_TYPE: &str = "[]core.Toleration";
const ITEM_TYPE: &str = "core.Toleration";

/// The fields of a `core.Toleration`: Go name, v1 JSON name, Go type.
const FIELDS: [(&str, &str, &str); 5] = [
    ("Key", "key", "string"),
    ("Operator", "operator", "core.TolerationOperator"),
    ("Value", "value", "string"),
    ("Effect", "effect", "core.TaintEffect"),
    ("TolerationSeconds", "tolerationSeconds", "int64"),
];

/// The annotation's tolerations as v1 JSON objects (a `null` item is the zero toleration), or
/// the error text of Go's `json.Unmarshal`.
pub(crate) fn tolerations_from_annotation(text: &str) -> Result<Vec<Value>, String> {
    if let Some(syntax) = go_json::syntax_error(text.as_bytes()) {
        return Err(syntax);
    }
    let mut reader = Reader::new(text);
    let malformed = || "unexpected end of JSON input".to_owned();
    match reader.item().ok_or_else(malformed)? {
        Item::Null => return Ok(Vec::new()),
        Item::Array => {}
        other => return Err(type_error(other.go_kind(), None, LIST_TYPE)),
    }
    let mut tolerations = Vec::new();
    while reader.more() {
        let item = reader.item().ok_or_else(malformed)?;
        match item {
            Item::Object => tolerations.push(toleration(&mut reader)?),
            // `null` leaves the item its zero value.
            Item::Null => tolerations.push(Value::Object(Map::new())),
            other => return Err(type_error(other.go_kind(), None, ITEM_TYPE)),
        }
    }
    Ok(tolerations)
}

/// One toleration object, opened: its members decoded into the fields they name (unknown ones
/// skipped), a later member overwriting an earlier one as Go's decoder does.
fn toleration(reader: &mut Reader<'_>) -> Result<Value, String> {
    let mut fields = Map::new();
    while reader.more() {
        let key = reader.key().ok_or("unexpected end of JSON input")?;
        let item = reader.item().ok_or("unexpected end of JSON input")?;
        let Some((go_name, name, go_type)) = field_named(&key) else {
            reader.skip(&item);
            continue;
        };
        let wrong = |kind: &str| type_error(kind, Some(go_name), go_type);
        match (item, go_type) {
            // `null` leaves a string as it was, and sets a pointer to nil.
            (Item::Null, "int64") => {
                fields.remove(name);
            }
            (Item::Null, _) => {}
            (Item::Str(text), go_type) if go_type != "int64" => {
                fields.insert(name.to_owned(), json!(text));
            }
            // `literalStore` parses the number's text as a 64-bit integer: no fraction, no
            // exponent.
            (Item::Number(number), "int64") => match number.parse::<i64>() {
                Ok(seconds) => {
                    fields.insert(name.to_owned(), json!(seconds));
                }
                Err(_) => return Err(wrong(&format!("number {number}"))),
            },
            (other, _) => return Err(wrong(other.go_kind())),
        }
    }
    Ok(Value::Object(fields))
}

/// The field a key names: its Go name exactly, or else case-folded as Go's `foldName` does.
fn field_named(key: &str) -> Option<(&'static str, &'static str, &'static str)> {
    FIELDS
        .iter()
        .find(|(go_name, ..)| *go_name == key)
        .or_else(|| FIELDS.iter().find(|(go_name, ..)| fold(go_name) == fold(key)))
        .copied()
}

/// Go's `foldName`: ASCII letters in upper case, and the two other runes whose simple case
/// folding reaches an ASCII letter (the Kelvin sign and the long s) as that letter. Other runes
/// cannot match a field name, which is ASCII.
fn fold(name: &str) -> String {
    name.chars()
        .map(|c| match c {
            '\u{212A}' => 'K',
            '\u{17F}' => 'S',
            c => c.to_ascii_uppercase(),
        })
        .collect()
}

/// Go's `UnmarshalTypeError` text, with the struct field when inside a toleration.
fn type_error(found: &str, field: Option<&str>, go_type: &str) -> String {
    match field {
        Some(field) => {
            format!("json: cannot unmarshal {found} into Go struct field Toleration.{field} of type {go_type}")
        }
        None => format!("json: cannot unmarshal {found} into Go value of type {go_type}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tolerations_should_decode_as_go_fills_the_struct() {
        let text = r#"[{"key":"k","OPERATOR":"Exists","extra":{"a":[1]},"Key":"K2"}, null,
            {"\u212aey":"kelvin","tolerationſeconds":-0,"effect":"NoExecute","value":null}]"#;
        assert_eq!(
            tolerations_from_annotation(text),
            Ok(vec![
                json!({"key": "K2", "operator": "Exists"}),
                json!({}),
                json!({"key": "kelvin", "tolerationSeconds": 0, "effect": "NoExecute"}),
            ])
        );
        assert_eq!(tolerations_from_annotation("null"), Ok(Vec::new()));
        assert_eq!(tolerations_from_annotation(" [ ] "), Ok(Vec::new()));
    }

    #[test]
    fn errors_should_read_as_encoding_json_words_them() {
        let cases = [
            ("not json", "invalid character 'o' in literal null (expecting 'u')"),
            (
                "[{]",
                "invalid character ']' looking for beginning of object key string",
            ),
            (
                "{}",
                "json: cannot unmarshal object into Go value of type []core.Toleration",
            ),
            (
                r#""x""#,
                "json: cannot unmarshal string into Go value of type []core.Toleration",
            ),
            (
                "[1]",
                "json: cannot unmarshal number into Go value of type core.Toleration",
            ),
            (
                "[[]]",
                "json: cannot unmarshal array into Go value of type core.Toleration",
            ),
            (
                r#"[{"operator":true,"key":1}]"#,
                "json: cannot unmarshal bool into Go struct field Toleration.Operator of type core.TolerationOperator",
            ),
            (
                r#"[{"effect":{"a":1}}]"#,
                "json: cannot unmarshal object into Go struct field Toleration.Effect of type core.TaintEffect",
            ),
            (
                r#"[{"tolerationSeconds":1.5}]"#,
                "json: cannot unmarshal number 1.5 into Go struct field Toleration.TolerationSeconds of type int64",
            ),
            (
                r#"[{"tolerationSeconds":"5"}]"#,
                "json: cannot unmarshal string into Go struct field Toleration.TolerationSeconds of type int64",
            ),
            (
                r#"[{"value":3}, 4]"#,
                "json: cannot unmarshal number into Go struct field Toleration.Value of type string",
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(tolerations_from_annotation(text), Err(expected.to_owned()), "{text}");
        }
    }
}
