//! How generated apply configurations are written and read: the fields that are set, as one JSON
//! map. Generated code calls these instead of deriving serde's traits for every configuration,
//! which costs a crate of many kinds more to compile than the configurations themselves.

use serde::de::{DeserializeOwned, Deserializer};
use serde::ser::{Error as _, SerializeMap};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The JSON object a configuration is read from.
pub fn object<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Map<String, Value>, D::Error> {
    Map::deserialize(deserializer)
}

/// Takes the field `key` out of `map`: absent or `null` is unset.
pub fn field<T: DeserializeOwned, E: serde::de::Error>(
    map: &mut Map<String, Value>,
    key: &str,
) -> Result<Option<T>, E> {
    match map.remove(key) {
        None | Some(Value::Null) => Ok(None),
        Some(value) => serde_json::from_value(value)
            .map(Some)
            .map_err(|error| E::custom(format_args!("{key}: {error}"))),
    }
}

/// A flattened field: read from what the named fields left in `map`; unset when nothing is left.
pub fn rest<T: DeserializeOwned, E: serde::de::Error>(map: &Map<String, Value>) -> Result<Option<T>, E> {
    if map.is_empty() {
        return Ok(None);
    }
    serde_json::from_value(Value::Object(map.clone()))
        .map(Some)
        .map_err(E::custom)
}

/// Writes a flattened field's own fields into the enclosing `map`.
pub fn flatten<M: SerializeMap, T: Serialize>(map: &mut M, value: &T) -> Result<(), M::Error> {
    match serde_json::to_value(value).map_err(M::Error::custom)? {
        Value::Object(fields) => fields
            .iter()
            .try_for_each(|(key, value)| map.serialize_entry(key, value)),
        Value::Null => Ok(()),
        other => Err(M::Error::custom(format_args!(
            "a flattened field must be written as a map, not {other}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fields_should_be_taken_once_and_null_should_be_unset() {
        let mut map = json!({"a": 1, "b": null, "c": "x"}).as_object().unwrap().clone();
        assert_eq!(field::<i32, serde_json::Error>(&mut map, "a").unwrap(), Some(1));
        assert_eq!(field::<i32, serde_json::Error>(&mut map, "a").unwrap(), None);
        assert_eq!(field::<i32, serde_json::Error>(&mut map, "b").unwrap(), None);
        let wrong = field::<i32, serde_json::Error>(&mut map, "c").unwrap_err();
        assert!(wrong.to_string().starts_with("c: invalid type"), "{wrong}");
        assert_eq!(rest::<Map<String, Value>, serde_json::Error>(&map).unwrap(), None);
    }

    /// A configuration with a flattened part, written and read as generated code does.
    #[derive(Debug, PartialEq)]
    struct Outer {
        size: Option<i32>,
        extra: Option<Map<String, Value>>,
    }

    impl Serialize for Outer {
        fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let mut map = serializer.serialize_map(None)?;
            if let Some(size) = &self.size {
                map.serialize_entry("size", size)?;
            }
            if let Some(extra) = &self.extra {
                flatten(&mut map, extra)?;
            }
            map.end()
        }
    }

    impl<'de> Deserialize<'de> for Outer {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            let mut map = object(deserializer)?;
            let size = field(&mut map, "size")?;
            let extra = rest(&map)?;
            Ok(Self { size, extra })
        }
    }

    #[test]
    fn flattened_fields_should_share_the_map_both_ways() {
        let outer = Outer {
            size: Some(3),
            extra: json!({"color": "blue"}).as_object().cloned(),
        };
        let written = serde_json::to_value(&outer).unwrap();
        assert_eq!(written, json!({"size": 3, "color": "blue"}));
        assert_eq!(serde_json::from_value::<Outer>(written).unwrap(), outer);
        let bare: Outer = serde_json::from_value(json!({"size": 1})).unwrap();
        assert_eq!(
            bare,
            Outer {
                size: Some(1),
                extra: None
            }
        );
    }
}
