//! A deserializer that leaves an object's managed-fields field sets as text: it wraps
//! serde_json's and forwards every call unchanged, except k8s-openapi's `FieldsV1`, whose JSON
//! text it takes through serde_json's raw-value protocol (borrowed from the line: no copy)
//! while the object gets `null` there ([`FieldSetTexts`] says why).
//!
//! [`FieldSetTexts`]: crate::cache::field_sets::FieldSetTexts

use std::cell::RefCell;
use std::fmt;

use serde::de::value::UnitDeserializer;
use serde::de::{DeserializeSeed, Deserializer, EnumAccess, IgnoredAny, MapAccess, SeqAccess, VariantAccess, Visitor};

use crate::cache::decode::RAW_VALUE_TOKEN;

/// The name k8s-openapi's `FieldsV1` gives serde (`deserialize_newtype_struct`).
const FIELDS_V1: &str = "FieldsV1";

/// Where a [`Capturing`] deserializer puts the field sets' texts it takes, in order.
pub(crate) type Captured<'de> = RefCell<Vec<&'de str>>;

/// A deserializer that forwards to `inner`, taking every `FieldsV1` as text into `texts`.
pub(crate) struct Capturing<'a, 'de, D> {
    pub(crate) inner: D,
    pub(crate) texts: &'a Captured<'de>,
}

/// The text of a raw value, as serde_json hands it over: one entry whose value is the text.
/// Only a borrowed text will do (a span of the line); serde_json's `StrRead` always lends it.
struct RawText;

impl<'de> Visitor<'de> for RawText {
    type Value = &'de str;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a field set's JSON text")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<&'de str, A::Error> {
        map.next_key::<IgnoredAny>()?;
        map.next_value::<&'de str>()
    }
}

/// Forwards `deserialize_*` methods to the inner deserializer, the visitor wrapped.
macro_rules! forward_deserialize {
    ($($method:ident($($arg:ident: $type:ty),*);)*) => {$(
        fn $method<V: Visitor<'de>>(self, $($arg: $type,)* visitor: V) -> Result<V::Value, D::Error> {
            let visitor = Wrapped { inner: visitor, texts: self.texts };
            self.inner.$method($($arg,)* visitor)
        }
    )*};
}

impl<'a, 'de, D: Deserializer<'de>> Deserializer<'de> for Capturing<'a, 'de, D> {
    type Error = D::Error;

    forward_deserialize! {
        deserialize_any(); deserialize_bool(); deserialize_i8(); deserialize_i16(); deserialize_i32();
        deserialize_i64(); deserialize_i128(); deserialize_u8(); deserialize_u16(); deserialize_u32();
        deserialize_u64(); deserialize_u128(); deserialize_f32(); deserialize_f64(); deserialize_char();
        deserialize_str(); deserialize_string(); deserialize_bytes(); deserialize_byte_buf();
        deserialize_option(); deserialize_unit(); deserialize_unit_struct(name: &'static str);
        deserialize_seq(); deserialize_tuple(len: usize);
        deserialize_tuple_struct(name: &'static str, len: usize); deserialize_map();
        deserialize_struct(name: &'static str, fields: &'static [&'static str]);
        deserialize_enum(name: &'static str, variants: &'static [&'static str]);
        deserialize_identifier(); deserialize_ignored_any();
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, name: &'static str, visitor: V) -> Result<V::Value, D::Error> {
        if name != FIELDS_V1 {
            let visitor = Wrapped {
                inner: visitor,
                texts: self.texts,
            };
            return self.inner.deserialize_newtype_struct(name, visitor);
        }
        let text = self.inner.deserialize_newtype_struct(RAW_VALUE_TOKEN, RawText)?;
        self.texts.borrow_mut().push(text);
        // `FieldsV1` decodes a `serde_json::Value` from this: `null`, which no field set
        // decodes to (a `null` there is no field set), so a placeholder is never taken for one.
        visitor.visit_newtype_struct(UnitDeserializer::<D::Error>::new())
    }

    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }
}

/// A visitor that wraps whatever deserializer or access it is handed, so that the capture
/// reaches every level of the object.
struct Wrapped<'a, 'de, V> {
    inner: V,
    texts: &'a Captured<'de>,
}

impl<'a, 'de, V> Wrapped<'a, 'de, V> {
    fn wrap<T>(&self, inner: T) -> Capturing<'a, 'de, T> {
        Capturing {
            inner,
            texts: self.texts,
        }
    }

    fn access<T>(&self, inner: T) -> Access<'a, 'de, T> {
        Access {
            inner,
            texts: self.texts,
        }
    }
}

/// Forwards `visit_*` methods that take a plain value.
macro_rules! forward_visit {
    ($($method:ident($type:ty);)*) => {$(
        fn $method<E: serde::de::Error>(self, value: $type) -> Result<V::Value, E> {
            self.inner.$method(value)
        }
    )*};
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Wrapped<'_, 'de, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.expecting(f)
    }

    forward_visit! {
        visit_bool(bool); visit_i8(i8); visit_i16(i16); visit_i32(i32); visit_i64(i64); visit_i128(i128);
        visit_u8(u8); visit_u16(u16); visit_u32(u32); visit_u64(u64); visit_u128(u128);
        visit_f32(f32); visit_f64(f64); visit_char(char); visit_str(&str); visit_borrowed_str(&'de str);
        visit_string(String); visit_bytes(&[u8]); visit_borrowed_bytes(&'de [u8]); visit_byte_buf(Vec<u8>);
    }

    fn visit_none<E: serde::de::Error>(self) -> Result<V::Value, E> {
        self.inner.visit_none()
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<V::Value, E> {
        self.inner.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<V::Value, D::Error> {
        let deserializer = self.wrap(deserializer);
        self.inner.visit_some(deserializer)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, deserializer: D) -> Result<V::Value, D::Error> {
        let deserializer = self.wrap(deserializer);
        self.inner.visit_newtype_struct(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        let seq = self.access(seq);
        self.inner.visit_seq(seq)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        let map = self.access(map);
        self.inner.visit_map(map)
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        let data = self.access(data);
        self.inner.visit_enum(data)
    }
}

/// A seed whose deserializer is wrapped.
struct Seed<'a, 'de, S> {
    inner: S,
    texts: &'a Captured<'de>,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Seed<'_, 'de, S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<S::Value, D::Error> {
        self.inner.deserialize(Capturing {
            inner: deserializer,
            texts: self.texts,
        })
    }
}

/// A map, sequence, enum or variant access whose values' deserializers are wrapped.
struct Access<'a, 'de, A> {
    inner: A,
    texts: &'a Captured<'de>,
}

impl<'a, 'de, A> Access<'a, 'de, A> {
    fn seed<S>(&self, inner: S) -> Seed<'a, 'de, S> {
        Seed {
            inner,
            texts: self.texts,
        }
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Access<'_, 'de, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, A::Error> {
        let seed = self.seed(seed);
        self.inner.next_key_seed(seed)
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, A::Error> {
        let seed = self.seed(seed);
        self.inner.next_value_seed(seed)
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for Access<'_, 'de, A> {
    type Error = A::Error;

    fn next_element_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<Option<S::Value>, A::Error> {
        let seed = self.seed(seed);
        self.inner.next_element_seed(seed)
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

impl<'a, 'de, A: EnumAccess<'de>> EnumAccess<'de> for Access<'a, 'de, A> {
    type Error = A::Error;
    type Variant = Access<'a, 'de, A::Variant>;

    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Self::Variant), A::Error> {
        let texts = self.texts;
        let (value, variant) = self.inner.variant_seed(Seed { inner: seed, texts })?;
        Ok((value, Access { inner: variant, texts }))
    }
}

impl<'de, A: VariantAccess<'de>> VariantAccess<'de> for Access<'_, 'de, A> {
    type Error = A::Error;

    fn unit_variant(self) -> Result<(), A::Error> {
        self.inner.unit_variant()
    }

    fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<S::Value, A::Error> {
        let seed = self.seed(seed);
        self.inner.newtype_variant_seed(seed)
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, A::Error> {
        let texts = self.texts;
        self.inner.tuple_variant(len, Wrapped { inner: visitor, texts })
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        let texts = self.texts;
        self.inner.struct_variant(fields, Wrapped { inner: visitor, texts })
    }
}
