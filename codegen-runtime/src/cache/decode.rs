//! Per-object decoding for informers: a list or watch event whose object does not decode into
//! `K` yields a failure naming the object, instead of failing the whole list or watch.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use kube::Resource;
use kube::api::ObjectMeta;
use kube::core::DynamicResourceScope;
use serde::de::{DeserializeOwned, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};

/// An object as listed or watched: decoded into `K`, or the reason it did not decode.
///
/// Its scope is dynamic so that one informer type serves both a namespace and all namespaces.
/// A decoded object is put in its `Arc` as soon as serde returns it: the events and pages that
/// carry it then move a pointer, not the object (several hundred bytes), at every step. Not
/// `Clone`: the `Arc` must reach the store unshared, for a transform to change it in place.
pub(crate) enum Lenient<K> {
    Decoded(Arc<K>),
    // Boxed: failures are rare, and every decoded object would otherwise carry their size.
    Failed { metadata: Box<ObjectMeta>, error: String },
}

#[derive(Deserialize)]
struct MetadataOnly {
    #[serde(default)]
    metadata: ObjectMeta,
}

impl<K: DeserializeOwned> Lenient<K> {
    fn from_text(text: &str) -> Self {
        match serde_json::from_str::<K>(text) {
            Ok(object) => Lenient::Decoded(Arc::new(object)),
            Err(error) => Lenient::Failed {
                metadata: Box::new(
                    serde_json::from_str::<MetadataOnly>(text)
                        .map(|m| m.metadata)
                        .unwrap_or_default(),
                ),
                error: error.to_string(),
            },
        }
    }

    fn from_value(value: serde_json::Value) -> Self {
        let metadata = value.get("metadata").cloned();
        match serde_json::from_value::<K>(value) {
            Ok(object) => Lenient::Decoded(Arc::new(object)),
            Err(error) => Lenient::Failed {
                metadata: Box::new(
                    metadata
                        .and_then(|m| serde_json::from_value(m).ok())
                        .unwrap_or_default(),
                ),
                error: error.to_string(),
            },
        }
    }
}

/// serde_json's name for raw values: asked for it, its deserializer hands over the object's
/// JSON text instead of parsing it (the protocol behind `Box<RawValue>`).
pub(crate) const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

struct LenientVisitor<K>(std::marker::PhantomData<K>);

impl<'de, K: DeserializeOwned> Visitor<'de> for LenientVisitor<K> {
    type Value = Lenient<K>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a Kubernetes object")
    }

    /// serde_json's raw-value protocol: one entry whose value is the object's text. Scanning
    /// the text is much cheaper than building a value, and lists (the bulk) arrive this way.
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        map.next_key::<IgnoredAny>()?;
        let text: Cow<'de, str> = map.next_value::<CowStr<'de>>()?.0;
        Ok(Lenient::from_text(&text))
    }

    /// Any other deserializer (e.g. a watch event, which serde buffers to find its tag).
    fn visit_newtype_struct<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        Ok(Lenient::from_value(serde_json::Value::deserialize(deserializer)?))
    }
}

/// A string that borrows when it can.
struct CowStr<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for CowStr<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct CowVisitor;
        impl<'de> Visitor<'de> for CowVisitor {
            type Value = CowStr<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("JSON text")
            }
            fn visit_borrowed_str<E: serde::de::Error>(self, text: &'de str) -> Result<Self::Value, E> {
                Ok(CowStr(Cow::Borrowed(text)))
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Self::Value, E> {
                Ok(CowStr(Cow::Owned(text.to_owned())))
            }
            fn visit_string<E: serde::de::Error>(self, text: String) -> Result<Self::Value, E> {
                Ok(CowStr(Cow::Owned(text)))
            }
        }
        deserializer.deserialize_str(CowVisitor)
    }
}

impl<'de, K: DeserializeOwned> Deserialize<'de> for Lenient<K> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_newtype_struct(RAW_VALUE_TOKEN, LenientVisitor(std::marker::PhantomData))
    }
}

impl<K> fmt::Debug for Lenient<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Lenient::Decoded(_) => f.write_str("Decoded"),
            Lenient::Failed { metadata, error } => write!(f, "Failed({:?}: {error})", metadata.name),
        }
    }
}

impl<K: Resource + Clone> Resource for Lenient<K> {
    type DynamicType = K::DynamicType;
    type Scope = DynamicResourceScope;

    fn kind(dt: &Self::DynamicType) -> Cow<'_, str> {
        K::kind(dt)
    }

    fn group(dt: &Self::DynamicType) -> Cow<'_, str> {
        K::group(dt)
    }

    fn version(dt: &Self::DynamicType) -> Cow<'_, str> {
        K::version(dt)
    }

    fn plural(dt: &Self::DynamicType) -> Cow<'_, str> {
        K::plural(dt)
    }

    fn meta(&self) -> &ObjectMeta {
        match self {
            Lenient::Decoded(object) => object.meta(),
            Lenient::Failed { metadata, .. } => metadata,
        }
    }

    fn meta_mut(&mut self) -> &mut ObjectMeta {
        match self {
            Lenient::Decoded(object) => Arc::make_mut(object).meta_mut(),
            Lenient::Failed { metadata, .. } => metadata,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::ConfigMap;

    #[derive(Deserialize)]
    #[serde(tag = "type", content = "object")]
    enum Event {
        #[serde(rename = "ADDED")]
        Added(Lenient<ConfigMap>),
    }

    #[test]
    fn buffered_and_value_deserializers_should_work_too() {
        let Event::Added(event) =
            serde_json::from_str(r#"{"type":"ADDED","object":{"metadata":{"name":"w"},"data":{"a":"b"}}}"#).unwrap();
        assert!(matches!(event, Lenient::Decoded(cm) if cm.metadata.name.as_deref() == Some("w")));
        let Event::Added(event) =
            serde_json::from_str(r#"{"type":"ADDED","object":{"metadata":{"name":"x"},"data":7}}"#).unwrap();
        assert!(matches!(event, Lenient::Failed { metadata, .. } if metadata.name.as_deref() == Some("x")));
        let from_value: Lenient<ConfigMap> =
            serde_json::from_value(serde_json::json!({"metadata": {"name": "v"}})).unwrap();
        assert!(matches!(from_value, Lenient::Decoded(_)));
        let reader: Lenient<ConfigMap> = serde_json::from_reader(&br#"{"metadata":{"name":"r"}}"#[..]).unwrap();
        assert!(matches!(reader, Lenient::Decoded(_)));
    }

    #[test]
    fn a_bad_object_should_fail_alone_with_its_name() {
        let list: Vec<Lenient<ConfigMap>> = serde_json::from_str(
            r#"[{"metadata":{"name":"good"},"data":{"a":"b"}},
                {"metadata":{"name":"bad","namespace":"ns"},"data":{"a":1}}]"#,
        )
        .unwrap();
        assert!(matches!(&list[0], Lenient::Decoded(cm) if cm.metadata.name.as_deref() == Some("good")));
        match &list[1] {
            Lenient::Failed { metadata, error } => {
                assert_eq!(
                    (metadata.namespace.as_deref(), metadata.name.as_deref()),
                    (Some("ns"), Some("bad"))
                );
                assert!(error.contains("invalid type"), "{error}");
            }
            other => panic!("expected a failure, got {other:?}"),
        }
    }
}
