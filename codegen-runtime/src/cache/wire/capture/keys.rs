//! A map key on the way to the field sets, looked at as it passes: whether its value is on the
//! way too.

use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use super::Level;

/// A map key at `level`, read on its way to the seed: whether its value is on the way goes to
/// `next`.
pub(super) struct KeySeed<'n, S> {
    pub(super) inner: S,
    pub(super) level: Level,
    pub(super) next: &'n mut Option<Level>,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for KeySeed<'_, S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<S::Value, D::Error> {
        let Self { inner, level, next } = self;
        inner.deserialize(KeyDeserializer {
            inner: deserializer,
            level,
            next,
        })
    }
}

/// A map key's deserializer: a string read through it is looked at on its way.
struct KeyDeserializer<'n, D> {
    inner: D,
    level: Level,
    next: &'n mut Option<Level>,
}

/// Forwards `deserialize_*` methods to `inner` with the visitor as it is.
macro_rules! forward_key_deserialize {
    ($($method:ident($($arg:ident: $type:ty),*);)*) => {$(
        fn $method<V: Visitor<'de>>(self, $($arg: $type,)* visitor: V) -> Result<V::Value, D::Error> {
            self.inner.$method($($arg,)* visitor)
        }
    )*};
}

impl<'n, D> KeyDeserializer<'n, D> {
    /// The inner deserializer, and `visitor` made to look at the key.
    fn split<V>(self, visitor: V) -> (D, KeyVisitor<'n, V>) {
        let visitor = KeyVisitor {
            inner: visitor,
            level: self.level,
            next: self.next,
        };
        (self.inner, visitor)
    }
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for KeyDeserializer<'_, D> {
    type Error = D::Error;

    forward_key_deserialize! {
        deserialize_any(); deserialize_bool(); deserialize_i8(); deserialize_i16(); deserialize_i32();
        deserialize_i64(); deserialize_i128(); deserialize_u8(); deserialize_u16(); deserialize_u32();
        deserialize_u64(); deserialize_u128(); deserialize_f32(); deserialize_f64(); deserialize_char();
        deserialize_bytes(); deserialize_byte_buf(); deserialize_option(); deserialize_unit();
        deserialize_unit_struct(name: &'static str); deserialize_newtype_struct(name: &'static str);
        deserialize_seq(); deserialize_tuple(len: usize);
        deserialize_tuple_struct(name: &'static str, len: usize); deserialize_map();
        deserialize_struct(name: &'static str, fields: &'static [&'static str]);
        deserialize_enum(name: &'static str, variants: &'static [&'static str]);
        deserialize_ignored_any();
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        let (inner, visitor) = self.split(visitor);
        inner.deserialize_identifier(visitor)
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        let (inner, visitor) = self.split(visitor);
        inner.deserialize_str(visitor)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        let (inner, visitor) = self.split(visitor);
        inner.deserialize_string(visitor)
    }

    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }
}

/// A map key's visitor: notes whether the key's value is on the way, then hands the key on.
struct KeyVisitor<'n, V> {
    inner: V,
    level: Level,
    next: &'n mut Option<Level>,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for KeyVisitor<'_, V> {
    type Value = V::Value;

    forward_plain_visits!();

    fn visit_str<E: serde::de::Error>(self, key: &str) -> Result<V::Value, E> {
        *self.next = self.level.child(key);
        self.inner.visit_str(key)
    }

    fn visit_borrowed_str<E: serde::de::Error>(self, key: &'de str) -> Result<V::Value, E> {
        *self.next = self.level.child(key);
        self.inner.visit_borrowed_str(key)
    }

    fn visit_string<E: serde::de::Error>(self, key: String) -> Result<V::Value, E> {
        *self.next = self.level.child(&key);
        self.inner.visit_string(key)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<V::Value, D::Error> {
        self.inner.visit_some(deserializer)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, deserializer: D) -> Result<V::Value, D::Error> {
        self.inner.visit_newtype_struct(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        self.inner.visit_seq(seq)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.inner.visit_map(map)
    }
}
