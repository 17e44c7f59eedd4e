//! Reading a JSON object as Go's `encoding/json` fills a struct from it (`decode.go`): a key
//! matches its field exactly or else case-insensitively, `null` leaves a field unset, unknown
//! keys are ignored, and a value of the wrong type fails the whole decode. For JSON that
//! kube-apiserver unmarshals itself into typed structs (an autoscaler's v1 annotations).

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::semantics::go_json;
use crate::semantics::quantity::{Quantity, QuantityError};

/// Why a value does not decode into its Go field.
#[derive(Debug, thiserror::Error)]
pub(crate) enum FieldsError {
    /// `UnmarshalTypeError`: a value of another JSON type.
    #[error("json: cannot unmarshal {found} into Go struct field {field} of type {expected}")]
    Type {
        found: &'static str,
        field: String,
        expected: &'static str,
    },
    /// A quantity that does not parse (`resource.Quantity.UnmarshalJSON`).
    #[error("quantity of field {field}: {source}")]
    Quantity {
        field: String,
        #[source]
        source: QuantityError,
    },
}

/// The fields of one JSON object decoded into a Go struct.
#[derive(Clone, Copy)]
pub(crate) struct Fields<'a>(&'a Map<String, Value>);

impl<'a> Fields<'a> {
    /// A struct from a JSON value: `None` for `null`, an error for anything but an object.
    pub(crate) fn of(value: &'a Value, field: &str) -> Result<Option<Self>, FieldsError> {
        match value {
            Value::Null => Ok(None),
            Value::Object(map) => Ok(Some(Self(map))),
            other => Err(mismatch(other, field, "struct")),
        }
    }

    /// The value of field `name`, matched exactly or else ignoring ASCII case; `None` when
    /// absent or `null`.
    pub(crate) fn get(self, name: &str) -> Option<&'a Value> {
        let value = self.0.get(name).or_else(|| {
            self.0
                .iter()
                .find(|(key, _)| key.eq_ignore_ascii_case(name))
                .map(|(_, value)| value)
        })?;
        (!value.is_null()).then_some(value)
    }

    /// A string field, empty when unset.
    pub(crate) fn string(self, name: &str) -> Result<String, FieldsError> {
        match self.get(name) {
            None => Ok(String::new()),
            Some(Value::String(text)) => Ok(text.clone()),
            Some(other) => Err(mismatch(other, name, "string")),
        }
    }

    /// A `*string` field: `None` when unset.
    pub(crate) fn optional_string(self, name: &str) -> Result<Option<String>, FieldsError> {
        self.get(name).map(|_| self.string(name)).transpose()
    }

    /// An `int32` or `int64` field (`bits` wide): a JSON number without a fraction in range.
    pub(crate) fn int(self, name: &str, bits: u32) -> Result<Option<i64>, FieldsError> {
        let expected = if bits == 32 { "int32" } else { "int64" };
        let Some(value) = self.get(name) else {
            return Ok(None);
        };
        let limit = 1i128 << (bits - 1);
        match value.as_i64() {
            Some(n) if (-limit..limit).contains(&i128::from(n)) => Ok(Some(n)),
            _ => Err(mismatch(value, name, expected)),
        }
    }

    /// A nested struct field.
    pub(crate) fn object(self, name: &str) -> Result<Option<Fields<'a>>, FieldsError> {
        self.get(name).map_or(Ok(None), |value| Fields::of(value, name))
    }

    /// A list field: its items, none when unset.
    pub(crate) fn list(self, name: &str) -> Result<&'a [Value], FieldsError> {
        match self.get(name) {
            None => Ok(&[]),
            Some(Value::Array(items)) => Ok(items),
            Some(other) => Err(mismatch(other, name, "slice")),
        }
    }

    /// A `map[string]string` field, empty when unset.
    pub(crate) fn string_map(self, name: &str) -> Result<BTreeMap<String, String>, FieldsError> {
        let Some(map) = self.object(name)? else {
            return Ok(BTreeMap::new());
        };
        map.0
            .iter()
            .map(|(key, value)| match value {
                Value::String(text) => Ok((key.clone(), text.clone())),
                Value::Null => Ok((key.clone(), String::new())),
                other => Err(mismatch(other, name, "string")),
            })
            .collect()
    }

    /// A `resource.Quantity` field, as its canonical string: its `UnmarshalJSON` takes a JSON
    /// string or a bare number.
    pub(crate) fn quantity(self, name: &str) -> Result<Option<String>, FieldsError> {
        let text = match self.get(name) {
            None => return Ok(None),
            Some(Value::String(text)) => text.trim().to_owned(),
            Some(Value::Number(number)) => number.to_string(),
            Some(other) => return Err(mismatch(other, name, "resource.Quantity")),
        };
        Quantity::parse(&text)
            .map(|q| Some(q.to_string()))
            .map_err(|source| FieldsError::Quantity {
                field: name.to_owned(),
                source,
            })
    }
}

/// A string list, as a `[]string` field decodes.
pub(crate) fn strings(items: &[Value], field: &str) -> Result<Vec<String>, FieldsError> {
    items
        .iter()
        .map(|item| match item {
            Value::String(text) => Ok(text.clone()),
            // A null item is the zero string.
            Value::Null => Ok(String::new()),
            other => Err(mismatch(other, field, "string")),
        })
        .collect()
}

fn mismatch(value: &Value, field: &str, expected: &'static str) -> FieldsError {
    FieldsError::Type {
        found: go_json::type_name(value),
        field: field.to_owned(),
        expected,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn keys_should_match_exactly_or_else_ignoring_case() {
        let value = json!({"metricname": "a", "MetricName": "b", "Value": 3, "skip": null});
        let fields = Fields::of(&value, "x").unwrap().unwrap();
        assert_eq!(fields.string("MetricName").unwrap(), "b");
        assert_eq!(fields.int("value", 32).unwrap(), Some(3));
        assert_eq!(fields.string("skip").unwrap(), "");
        assert_eq!(fields.string("absent").unwrap(), "");
    }

    #[test]
    fn values_of_the_wrong_type_should_fail_the_decode() {
        let value = json!({"name": 1, "n": 1.5, "big": 4_294_967_296_i64, "q": "1.5.5", "ok": 1000});
        let fields = Fields::of(&value, "x").unwrap().unwrap();
        assert!(fields.string("name").is_err());
        assert!(fields.int("n", 32).is_err());
        assert!(fields.int("big", 32).is_err());
        assert_eq!(fields.int("big", 64).unwrap(), Some(4_294_967_296));
        assert!(fields.quantity("q").is_err());
        assert_eq!(fields.quantity("ok").unwrap().as_deref(), Some("1k"));
        assert!(Fields::of(&json!([1]), "x").is_err());
    }
}
