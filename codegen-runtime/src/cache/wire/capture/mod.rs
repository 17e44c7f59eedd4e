//! A deserializer that leaves an object's managed-fields field sets as text, or skips its
//! managed fields unread. It wraps serde_json's (or simd-json's) on the way from the object to
//! them (`metadata`, `managedFields`, each entry, `fieldsV1`) and hands everything else to the
//! inner deserializer directly, so that the rest of the object decodes as it always does (no
//! second copy of its decoding code). At `fieldsV1` it takes the JSON text through serde_json's
//! raw-value protocol (borrowed from the line: no copy) while the object gets `null` there
//! ([`FieldSetTexts`] says why). Skipping, it parses `managedFields` without building anything
//! and the object gets none.
//!
//! [`FieldSetTexts`]: crate::cache::field_sets::FieldSetTexts

use std::cell::RefCell;
use std::fmt;

use serde::Deserialize;
use serde::de::value::UnitDeserializer;
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::cache::decode::RAW_VALUE_TOKEN;
use keys::KeySeed;

/// The name k8s-openapi's `FieldsV1` gives serde (`deserialize_newtype_struct`).
const FIELDS_V1: &str = "FieldsV1";

/// Where the field sets' texts go, in the order they are read.
pub(crate) type Captured<'de> = RefCell<Vec<&'de str>>;

/// Where a value is on the way from the object to its field sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Level {
    Object,
    Metadata,
    /// The list of entries.
    ManagedFields,
    Entry,
    FieldSet,
}

impl Level {
    /// The level of key `key`'s value under this one, if it is on the way.
    fn child(self, key: &str) -> Option<Level> {
        match (self, key) {
            (Level::Object, "metadata") => Some(Level::Metadata),
            (Level::Metadata, "managedFields") => Some(Level::ManagedFields),
            (Level::Entry, "fieldsV1") => Some(Level::FieldSet),
            _ => None,
        }
    }
}

/// What the way to the managed fields leads to.
#[derive(Clone, Copy)]
pub(crate) enum Aim<'a, 'de> {
    /// Each field set taken as text, into the list.
    FieldSetsAsText(&'a Captured<'de>),
    /// The managed fields skipped unread: the object gets none.
    SkipManagedFields,
}

/// A deserializer at `level` that forwards to `inner`, doing at the managed fields what `aim`
/// says.
struct Capturing<'a, 'de, D> {
    inner: D,
    aim: Aim<'a, 'de>,
    level: Level,
}

impl<D> Capturing<'_, '_, D> {
    /// Whether this value is managed fields to skip.
    fn skips(&self) -> bool {
        self.level == Level::ManagedFields && matches!(self.aim, Aim::SkipManagedFields)
    }
}

/// Decodes `K` from `deserializer`, doing at its managed fields what `aim` says; as `K` always
/// decodes without one.
pub(crate) fn decode_object<'de, K, D>(deserializer: D, aim: Option<Aim<'_, 'de>>) -> Result<K, D::Error>
where
    K: Deserialize<'de>,
    D: Deserializer<'de>,
{
    match aim {
        Some(aim) => K::deserialize(Capturing {
            inner: deserializer,
            aim,
            level: Level::Object,
        }),
        None => K::deserialize(deserializer),
    }
}

/// Parses the value `inner` is at without building anything, and gives `visitor` none: what
/// `Option<Vec<ManagedFieldsEntry>>`, k8s-openapi's field, makes `None` of. A metadata type of
/// another shape fails here, and its page or line is decoded again the lenient way, which
/// keeps the managed fields for the informer to clear before it stores the object.
fn skip<'de, D: Deserializer<'de>, V: Visitor<'de>>(inner: D, visitor: V) -> Result<V::Value, D::Error> {
    inner.deserialize_ignored_any(IgnoredAny)?;
    visitor.visit_none()
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

/// Forwards `deserialize_*` methods to `inner`, the visitor wrapped at the same level.
macro_rules! forward_deserialize {
    ($($method:ident($($arg:ident: $type:ty),*);)*) => {$(
        fn $method<V: Visitor<'de>>(self, $($arg: $type,)* visitor: V) -> Result<V::Value, D::Error> {
            if self.skips() {
                return skip(self.inner, visitor);
            }
            let visitor = Wrapped { inner: visitor, aim: self.aim, level: self.level };
            self.inner.$method($($arg,)* visitor)
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Capturing<'_, 'de, D> {
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
        if self.skips() {
            return skip(self.inner, visitor);
        }
        let texts = match self.aim {
            Aim::FieldSetsAsText(texts) if self.level == Level::FieldSet && name == FIELDS_V1 => texts,
            aim => {
                let visitor = Wrapped {
                    inner: visitor,
                    aim,
                    level: self.level,
                };
                return self.inner.deserialize_newtype_struct(name, visitor);
            }
        };
        let text = self.inner.deserialize_newtype_struct(RAW_VALUE_TOKEN, RawText)?;
        texts.borrow_mut().push(text);
        // `FieldsV1` decodes a `serde_json::Value` from this: `null`, which no field set
        // decodes to (a `null` there is no field set), so a placeholder is never taken for one.
        visitor.visit_newtype_struct(UnitDeserializer::<D::Error>::new())
    }

    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }
}

/// A visitor at `level`: the options, newtypes, maps and sequences it is handed stay on the
/// way; anything else is handed over as it is.
struct Wrapped<'a, 'de, V> {
    inner: V,
    aim: Aim<'a, 'de>,
    level: Level,
}

impl<'a, 'de, V> Wrapped<'a, 'de, V> {
    fn wrap<D>(&self, inner: D) -> Capturing<'a, 'de, D> {
        Capturing {
            inner,
            aim: self.aim,
            level: self.level,
        }
    }

    fn access<A>(&self, inner: A) -> Access<'a, 'de, A> {
        Access {
            inner,
            aim: self.aim,
            level: self.level,
            next: None,
        }
    }
}

/// Forwards `visit_*` methods that take a plain value.
macro_rules! forward_visit {
    ($($method:ident($type:ty);)*) => {$(
        fn $method<E: serde::de::Error>(self, value: $type) -> Result<Self::Value, E> {
            self.inner.$method(value)
        }
    )*};
}

/// The `visit_*` methods every wrapped visitor forwards as they are.
macro_rules! forward_plain_visits {
    () => {
        forward_visit! {
            visit_bool(bool); visit_i8(i8); visit_i16(i16); visit_i32(i32); visit_i64(i64); visit_i128(i128);
            visit_u8(u8); visit_u16(u16); visit_u32(u32); visit_u64(u64); visit_u128(u128);
            visit_f32(f32); visit_f64(f64); visit_char(char);
            visit_bytes(&[u8]); visit_borrowed_bytes(&'de [u8]); visit_byte_buf(Vec<u8>);
        }

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            self.inner.expecting(f)
        }

        fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            self.inner.visit_none()
        }

        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            self.inner.visit_unit()
        }

        fn visit_enum<A: serde::de::EnumAccess<'de>>(self, data: A) -> Result<Self::Value, A::Error> {
            self.inner.visit_enum(data)
        }
    };
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Wrapped<'_, 'de, V> {
    type Value = V::Value;

    forward_plain_visits!();

    forward_visit! {
        visit_str(&str); visit_borrowed_str(&'de str); visit_string(String);
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
}

/// A seed whose deserializer is at `level`.
struct Seed<'a, 'de, S> {
    inner: S,
    aim: Aim<'a, 'de>,
    level: Level,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Seed<'_, 'de, S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<S::Value, D::Error> {
        self.inner.deserialize(Capturing {
            inner: deserializer,
            aim: self.aim,
            level: self.level,
        })
    }
}

/// A map or sequence at `level`: a map's key that is on the way (`next`) puts its value on
/// the way; a list of entries puts each element there.
struct Access<'a, 'de, A> {
    inner: A,
    aim: Aim<'a, 'de>,
    level: Level,
    next: Option<Level>,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Access<'_, 'de, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, A::Error> {
        let seed = KeySeed {
            inner: seed,
            level: self.level,
            next: &mut self.next,
        };
        self.inner.next_key_seed(seed)
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, A::Error> {
        match self.next.take() {
            Some(level) => self.inner.next_value_seed(Seed {
                inner: seed,
                aim: self.aim,
                level,
            }),
            None => self.inner.next_value_seed(seed),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for Access<'_, 'de, A> {
    type Error = A::Error;

    fn next_element_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<Option<S::Value>, A::Error> {
        if self.level != Level::ManagedFields {
            return self.inner.next_element_seed(seed);
        }
        let seed = Seed {
            inner: seed,
            aim: self.aim,
            level: Level::Entry,
        };
        self.inner.next_element_seed(seed)
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

// After the macros, which it uses.
mod keys;
