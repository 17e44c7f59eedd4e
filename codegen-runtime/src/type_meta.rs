//! `apiVersion` and `kind` on the wire: the two fields every `+genclient` type carries, as Go's
//! API types embed `metav1.TypeMeta`.
//!
//! kube-apiserver refuses a custom resource without `kind` and `apiVersion` (400), and a server-side
//! apply patch needs them for every kind. Go's typed clients get them from the codec, which sets
//! them on encode; kube-rs's `Api<K>` serializes `K` as it is. So the type itself writes them:
//!
//! ```
//! # use codegen_runtime::{ApiVersion, Kind};
//! # use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
//! #[derive(serde::Serialize, serde::Deserialize, Default)]
//! #[serde(rename_all = "camelCase")]
//! pub struct Widget {
//!     /// Always `example.dev/v1` on the wire.
//!     pub api_version: ApiVersion<Widget>,
//!     /// Always `Widget` on the wire.
//!     pub kind: Kind<Widget>,
//!     /// Standard object metadata.
//!     pub metadata: ObjectMeta,
//! }
//! # impl kube::Resource for Widget {
//! #     type DynamicType = ();
//! #     type Scope = k8s_openapi::NamespaceResourceScope;
//! #     fn kind(_: &()) -> std::borrow::Cow<'_, str> { "Widget".into() }
//! #     fn group(_: &()) -> std::borrow::Cow<'_, str> { "example.dev".into() }
//! #     fn version(_: &()) -> std::borrow::Cow<'_, str> { "v1".into() }
//! #     fn plural(_: &()) -> std::borrow::Cow<'_, str> { "widgets".into() }
//! #     fn meta(&self) -> &ObjectMeta { &self.metadata }
//! #     fn meta_mut(&mut self) -> &mut ObjectMeta { &mut self.metadata }
//! # }
//! let json = serde_json::to_string(&Widget::default()).unwrap();
//! assert_eq!(json, r#"{"apiVersion":"example.dev/v1","kind":"Widget","metadata":{}}"#);
//! ```
//!
//! Both are zero-sized: nothing to fill in, nothing to get wrong, and nothing stored per object.
//! They serialize the type's `kube::Resource` values; decoding accepts them absent (list items and
//! watch objects of some servers lack them) and refuses another kind or group, as k8s-openapi's
//! types do, so an object of another type is never read as this one. Another version of the same
//! group is accepted: reading one version's JSON into another's type is a conversion the caller
//! asked for.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::marker::PhantomData;

use kube::Resource;
use serde::de::{self, Deserialize, Deserializer, Unexpected, Visitor};
use serde::{Serialize, Serializer};

/// The `apiVersion` of `K` (`group/version`, or `version` for the core group), written on every
/// serialization of `K`. Zero-sized.
pub struct ApiVersion<K>(PhantomData<fn() -> K>);

/// The `kind` of `K`, written on every serialization of `K`. Zero-sized.
pub struct Kind<K>(PhantomData<fn() -> K>);

/// What the two fields have in common: the value on the wire and the check of a decoded one.
trait TypeMetaField<K: Resource<DynamicType = ()>> {
    /// The JSON field, for errors.
    const FIELD: &'static str;
    /// The value `K` writes.
    fn value() -> Cow<'static, str>;
    /// Whether a decoded value is one this type may read.
    fn accepts(decoded: &str) -> bool;
}

impl<K: Resource<DynamicType = ()>> TypeMetaField<K> for ApiVersion<K> {
    const FIELD: &'static str = "apiVersion";
    fn value() -> Cow<'static, str> {
        K::api_version(&())
    }
    fn accepts(decoded: &str) -> bool {
        let group = decoded.rsplit_once('/').map_or("", |(group, _)| group);
        group == K::group(&())
    }
}

impl<K: Resource<DynamicType = ()>> TypeMetaField<K> for Kind<K> {
    const FIELD: &'static str = "kind";
    fn value() -> Cow<'static, str> {
        K::kind(&())
    }
    fn accepts(decoded: &str) -> bool {
        decoded == K::kind(&())
    }
}

/// Implements what a zero-sized field needs for the derives users put on their API types,
/// without bounds on `K` (a derive would require `K: Clone` and so on).
macro_rules! zero_sized_field {
    ($field:ident) => {
        impl<K> $field<K> {
            /// The field; every value is the same.
            pub const fn new() -> Self {
                Self(PhantomData)
            }
        }

        impl<K> Default for $field<K> {
            fn default() -> Self {
                Self::new()
            }
        }

        impl<K> Clone for $field<K> {
            fn clone(&self) -> Self {
                *self
            }
        }

        impl<K> Copy for $field<K> {}

        impl<K> PartialEq for $field<K> {
            fn eq(&self, _: &Self) -> bool {
                true
            }
        }

        impl<K> Eq for $field<K> {}

        impl<K> PartialOrd for $field<K> {
            fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
                Some(self.cmp(other))
            }
        }

        impl<K> Ord for $field<K> {
            fn cmp(&self, _: &Self) -> Ordering {
                Ordering::Equal
            }
        }

        impl<K> Hash for $field<K> {
            fn hash<H: Hasher>(&self, _: &mut H) {}
        }

        impl<K: Resource<DynamicType = ()>> $field<K> {
            /// The value written on the wire.
            pub fn value(&self) -> Cow<'static, str> {
                <Self as TypeMetaField<K>>::value()
            }
        }

        impl<K: Resource<DynamicType = ()>> fmt::Debug for $field<K> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&self.value(), f)
            }
        }

        impl<K: Resource<DynamicType = ()>> fmt::Display for $field<K> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.value())
            }
        }

        impl<K: Resource<DynamicType = ()>> Serialize for $field<K> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(&self.value())
            }
        }

        impl<'de, K: Resource<DynamicType = ()>> Deserialize<'de> for $field<K> {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                // Through `deserialize_option`, as `Option` does: serde calls it with "none" for a
                // missing field, so the field needs no `#[serde(default)]`.
                deserializer.deserialize_option(Check::<Self, K>(PhantomData))
            }
        }

        impl<K> schemars::JsonSchema for $field<K> {
            fn schema_name() -> Cow<'static, str> {
                Cow::Borrowed(stringify!($field))
            }

            fn inline_schema() -> bool {
                true
            }

            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({ "type": "string" })
            }
        }
    };
}

zero_sized_field!(ApiVersion);
zero_sized_field!(Kind);

/// Decodes one of the fields: absent, null or a value `F` accepts.
struct Check<F, K>(PhantomData<fn() -> (F, K)>);

impl<'de, F, K> Visitor<'de> for Check<F, K>
where
    F: TypeMetaField<K> + Default,
    K: Resource<DynamicType = ()>,
{
    type Value = F;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {:?}", F::FIELD, F::value())
    }

    fn visit_none<E: de::Error>(self) -> Result<F, E> {
        Ok(F::default())
    }

    fn visit_unit<E: de::Error>(self) -> Result<F, E> {
        Ok(F::default())
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<F, D::Error> {
        deserializer.deserialize_str(self)
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<F, E> {
        if F::accepts(value) {
            Ok(F::default())
        } else {
            Err(E::invalid_value(Unexpected::Str(value), &self))
        }
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::ConfigMap;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
    use serde::{Deserialize, Serialize};

    use super::{ApiVersion, Kind};

    #[derive(Serialize, Deserialize, Default, Debug, PartialEq, Clone)]
    #[serde(rename_all = "camelCase")]
    struct Widget {
        api_version: ApiVersion<Widget>,
        kind: Kind<Widget>,
        metadata: ObjectMeta,
    }

    impl kube::Resource for Widget {
        type DynamicType = ();
        type Scope = k8s_openapi::NamespaceResourceScope;
        fn kind(_: &()) -> std::borrow::Cow<'_, str> {
            "Widget".into()
        }
        fn group(_: &()) -> std::borrow::Cow<'_, str> {
            "example.dev".into()
        }
        fn version(_: &()) -> std::borrow::Cow<'_, str> {
            "v1".into()
        }
        fn plural(_: &()) -> std::borrow::Cow<'_, str> {
            "widgets".into()
        }
        fn meta(&self) -> &ObjectMeta {
            &self.metadata
        }
        fn meta_mut(&mut self) -> &mut ObjectMeta {
            &mut self.metadata
        }
    }

    #[test]
    fn every_serialization_carries_api_version_and_kind() {
        let value = serde_json::to_value(Widget::default()).unwrap();
        assert_eq!(value["apiVersion"], "example.dev/v1");
        assert_eq!(value["kind"], "Widget");
    }

    #[test]
    fn decoding_accepts_them_absent_null_or_of_this_type() {
        for json in [
            r#"{"metadata":{}}"#,
            r#"{"apiVersion":null,"kind":null,"metadata":{}}"#,
            r#"{"apiVersion":"example.dev/v1","kind":"Widget","metadata":{}}"#,
            r#"{"apiVersion":"example.dev/v2","kind":"Widget","metadata":{}}"#,
        ] {
            let decoded: Widget = serde_json::from_str(json).unwrap();
            assert_eq!(decoded, Widget::default(), "{json}");
        }
    }

    #[test]
    fn decoding_refuses_another_kind_or_group_and_says_which() {
        let other_kind = r#"{"apiVersion":"example.dev/v1","kind":"Status","metadata":{}}"#;
        let error = serde_json::from_str::<Widget>(other_kind).unwrap_err().to_string();
        assert!(
            error.contains(r#"invalid value: string "Status", expected kind "Widget""#),
            "{error}"
        );
        let other_group = r#"{"apiVersion":"other.dev/v1","kind":"Widget","metadata":{}}"#;
        let error = serde_json::from_str::<Widget>(other_group).unwrap_err().to_string();
        assert!(error.contains(r#"expected apiVersion "example.dev/v1""#), "{error}");
        assert!(serde_json::from_str::<Widget>(r#"{"kind":7,"metadata":{}}"#).is_err());
    }

    #[test]
    fn debug_shows_the_values_and_the_fields_take_no_space() {
        let debug = format!("{:?}", Widget::default());
        assert!(
            debug.contains(r#"api_version: "example.dev/v1", kind: "Widget""#),
            "{debug}"
        );
        assert_eq!(size_of::<ApiVersion<Widget>>(), 0);
        assert_eq!(size_of::<Kind<ConfigMap>>(), 0);
    }
}
