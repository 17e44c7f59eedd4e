//! List pages: the continue token read from a page's head, the items decoded straight into `K`
//! (with simd-json), and a page with a misfit read again object by object (with serde_json).

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ListMeta;
use serde::de::{
    DeserializeOwned, DeserializeSeed, Deserializer, Error as _, IgnoredAny, MapAccess, SeqAccess, Visitor,
};

use super::capture::{Aim, decode_object};
use super::{ManagedFields, text};
use crate::cache::decode::Lenient;

/// Decodes a list page into `K`, handing each object to `sink` in order; returns the list's
/// metadata. simd-json parses a page's ~0.5 MB 1.1–1.2× as fast as serde_json (`bench
/// parsers`), and lists ingest 1.3–1.45× as fast through it; it parses in place, so it reads a
/// copy of the shared response bytes. Any error sends the page to the lenient path. Managed
/// fields are skipped or decoded as `managed_fields` says (none are left as text in a page).
pub(super) fn decode_page_fast<K: DeserializeOwned>(
    bytes: &[u8],
    managed_fields: ManagedFields,
    sink: &mut impl FnMut(Lenient<K>),
) -> Result<ListMeta, simd_json::Error> {
    let mut copy = bytes.to_vec();
    let mut deserializer = simd_json::Deserializer::from_slice(&mut copy)?;
    (&mut deserializer).deserialize_map(ListVisitor {
        sink,
        decoding: Decoding::Strict(managed_fields),
        object: PhantomData::<K>,
    })
}

/// Decodes a list page object by object through [`Lenient`], with serde_json: its errors are
/// the ones reported, and its raw-value protocol lets a misfit keep its metadata.
fn decode_page_lenient<K: DeserializeOwned>(
    bytes: &[u8],
    sink: &mut impl FnMut(Lenient<K>),
) -> Result<ListMeta, serde_json::Error> {
    let mut deserializer = serde_json::Deserializer::from_str(text(bytes)?);
    let meta = deserializer.deserialize_map(ListVisitor {
        sink,
        decoding: Decoding::Lenient,
        object: PhantomData::<K>,
    })?;
    deserializer.end()?;
    Ok(meta)
}

/// Decodes a list page, appending what `keep` makes of each object to `objects`: in one pass
/// when every object fits `K`; object by object otherwise, the misfits going to `failures`
/// (as [`Lenient::Failed`], with their metadata). Where `managed_fields` says to skip them,
/// the one pass does (the objects decoded object by object keep them).
pub(crate) fn decode_page<K: DeserializeOwned, T>(
    bytes: &[u8],
    managed_fields: ManagedFields,
    objects: &mut Vec<T>,
    failures: &mut Vec<Lenient<K>>,
    mut keep: impl FnMut(Arc<K>) -> T,
) -> Result<ListMeta, serde_json::Error> {
    let mark = objects.len();
    let fast = decode_page_fast(bytes, managed_fields, &mut |object| {
        if let Lenient::Decoded(object) = object {
            objects.push(keep(object));
        }
    });
    if let Ok(meta) = fast {
        return Ok(meta);
    }
    // The objects before the misfit arrived already: take the page again from its start.
    objects.truncate(mark);
    decode_page_lenient(bytes, &mut |object| match object {
        Lenient::Decoded(object) => objects.push(keep(object)),
        failed => failures.push(failed),
    })
}

/// The continue token of a list page, read from its head without decoding its items:
/// kube-apiserver writes `metadata` before `items`, so the next page can be asked for while
/// this one is decoded. `None` when the page has none, or puts its items first.
pub(crate) fn continue_token(bytes: &[u8]) -> Option<String> {
    let mut meta = None;
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    // The visitor stops at `metadata` (or `items`) with an error, so the rest is never parsed.
    let _ = deserializer.deserialize_map(HeadVisitor { meta: &mut meta });
    meta.and_then(|meta| meta.continue_).filter(|token| !token.is_empty())
}

/// Reads a list's keys up to its `metadata`.
struct HeadVisitor<'m> {
    meta: &'m mut Option<ListMeta>,
}

impl<'de> Visitor<'de> for HeadVisitor<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a Kubernetes list")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<&str>()? {
            match key {
                "metadata" => {
                    *self.meta = Some(map.next_value()?);
                    return Err(A::Error::custom("the head is read"));
                }
                "items" => return Err(A::Error::custom("items before metadata")),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

/// How a page's items are decoded.
#[derive(Clone, Copy)]
enum Decoding {
    /// Each into `K`, any misfit failing the page; managed fields as this says.
    Strict(ManagedFields),
    /// Each through [`Lenient`].
    Lenient,
}

/// A `*List` object: its metadata kept, its items handed to the sink one by one.
struct ListVisitor<'s, K, F> {
    sink: &'s mut F,
    decoding: Decoding,
    object: PhantomData<K>,
}

impl<'de, K: DeserializeOwned, F: FnMut(Lenient<K>)> Visitor<'de> for ListVisitor<'_, K, F> {
    type Value = ListMeta;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a Kubernetes list")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ListMeta, A::Error> {
        let mut meta = ListMeta::default();
        while let Some(key) = map.next_key::<&str>()? {
            match key {
                "metadata" => meta = map.next_value()?,
                "items" => map.next_value_seed(Items {
                    sink: &mut *self.sink,
                    decoding: self.decoding,
                    object: PhantomData::<K>,
                })?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(meta)
    }
}

/// The `items` of a list, each decoded into `K` (or leniently) and handed to the sink.
struct Items<'s, K, F> {
    sink: &'s mut F,
    decoding: Decoding,
    object: PhantomData<K>,
}

impl<'de, K: DeserializeOwned, F: FnMut(Lenient<K>)> DeserializeSeed<'de> for Items<'_, K, F> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de, K: DeserializeOwned, F: FnMut(Lenient<K>)> Visitor<'de> for Items<'_, K, F> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of objects")
    }

    /// Go writes an empty list's items as `null` when the slice is nil.
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        match self.decoding {
            Decoding::Lenient => {
                while let Some(object) = seq.next_element::<Lenient<K>>()? {
                    (self.sink)(object);
                }
            }
            Decoding::Strict(managed_fields) => {
                let aim = managed_fields.skipping();
                while let Some(object) = seq.next_element_seed(Strict::<K> {
                    aim,
                    object: PhantomData,
                })? {
                    (self.sink)(Lenient::Decoded(Arc::new(object)));
                }
            }
        }
        Ok(())
    }
}

/// One item decoded into `K`, doing at its managed fields what `aim` says.
struct Strict<'a, 'de, K> {
    aim: Option<Aim<'a, 'de>>,
    object: PhantomData<K>,
}

impl<'de, K: DeserializeOwned> DeserializeSeed<'de> for Strict<'_, 'de, K> {
    type Value = K;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<K, D::Error> {
        decode_object(deserializer, self.aim)
    }
}
