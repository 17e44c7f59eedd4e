//! List pages and watch events decoded in one pass, straight from the response bytes into `K`.
//!
//! Pages go through simd-json and watch lines through serde_json: `bench parsers` measured
//! each faster on what it reads here (simd-json 1.1–1.2× on 0.5 MB pages, serde_json 1.1–1.3×
//! on 1 KB lines), and both read every body of the conformance corpus alike.
//!
//! The fast path parses each object once, into `K` itself, and hands it over as it completes
//! (no intermediate `Value`, raw text or `Vec` of the page). Only when that fails — an object
//! that does not fit `K` — is the page or event parsed again through [`Lenient`], which keeps the
//! objects that decode and names the ones that do not by their metadata.

use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ListMeta;
use kube::core::Status;
use serde::Deserialize;
use serde::de::{
    DeserializeOwned, DeserializeSeed, Deserializer, Error as _, IgnoredAny, MapAccess, SeqAccess, Visitor,
};
use serde_json::value::RawValue;

use super::decode::Lenient;

/// Decodes a list page into `K`, handing each object to `sink` in order; returns the list's
/// metadata. simd-json parses a page's ~0.5 MB 1.1–1.2× as fast as serde_json (`bench
/// parsers`), and lists ingest 1.3–1.45× as fast through it; it parses in place, so it reads a
/// copy of the shared response bytes. Any error sends the page to the lenient path.
fn decode_page_fast<K: DeserializeOwned>(
    bytes: &[u8],
    sink: &mut impl FnMut(Lenient<K>),
) -> Result<ListMeta, simd_json::Error> {
    let mut copy = bytes.to_vec();
    let mut deserializer = simd_json::Deserializer::from_slice(&mut copy)?;
    (&mut deserializer).deserialize_map(ListVisitor {
        sink,
        lenient: false,
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
        lenient: true,
        object: PhantomData::<K>,
    })?;
    deserializer.end()?;
    Ok(meta)
}

/// Decodes a list page, appending what `keep` makes of each object to `objects`: in one pass
/// when every object fits `K`; object by object otherwise, the misfits going to `failures`
/// (as [`Lenient::Failed`], with their metadata).
pub(crate) fn decode_page<K: DeserializeOwned, T>(
    bytes: &[u8],
    objects: &mut Vec<T>,
    failures: &mut Vec<Lenient<K>>,
    mut keep: impl FnMut(K) -> T,
) -> Result<ListMeta, serde_json::Error> {
    let mark = objects.len();
    let fast = decode_page_fast(bytes, &mut |object| {
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

/// The body as text, its UTF-8 checked once: serde_json then reads strings without checking
/// each again (its `StrRead`), which is what kube's own decoding does.
fn text(bytes: &[u8]) -> Result<&str, serde_json::Error> {
    std::str::from_utf8(bytes).map_err(serde_json::Error::custom)
}

/// A `*List` object: its metadata kept, its items handed to the sink one by one.
struct ListVisitor<'s, K, F> {
    sink: &'s mut F,
    lenient: bool,
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
                    lenient: self.lenient,
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
    lenient: bool,
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
        if self.lenient {
            while let Some(object) = seq.next_element::<Lenient<K>>()? {
                (self.sink)(object);
            }
        } else {
            while let Some(object) = seq.next_element::<K>()? {
                (self.sink)(Lenient::Decoded(object));
            }
        }
        Ok(())
    }
}

/// One watch event, as kube-apiserver sends it (one JSON object per line).
pub(crate) enum WireEvent<K> {
    Added(Lenient<K>),
    Modified(Lenient<K>),
    Deleted(Lenient<K>),
    /// A progress mark: the resourceVersion reached, and whether it ends a streaming list's
    /// initial events.
    Bookmark {
        resource_version: String,
        initial_events_end: bool,
    },
    /// An in-stream error, e.g. 410 Expired (boxed: rare, and large).
    Error(Box<Status>),
}

/// The annotation a streaming list's closing bookmark carries.
const INITIAL_EVENTS_END: &str = "k8s.io/initial-events-end";

/// Decodes one watch event: the object once, into `K`, when it fits; leniently otherwise.
pub(crate) fn decode_event<K: DeserializeOwned>(line: &[u8]) -> Result<WireEvent<K>, serde_json::Error> {
    let line = text(line)?;
    let parse = |lenient| {
        let mut deserializer = serde_json::Deserializer::from_str(line);
        let event = deserializer.deserialize_map(EventVisitor {
            lenient,
            object: PhantomData::<K>,
        })?;
        deserializer.end()?;
        Ok::<_, serde_json::Error>(event)
    };
    parse(false).or_else(|_| parse(true))
}

#[derive(Deserialize)]
struct BookmarkObject {
    metadata: BookmarkMeta,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct BookmarkMeta {
    #[serde(default)]
    resource_version: String,
    #[serde(default)]
    annotations: BTreeMap<String, String>,
}

struct EventVisitor<K> {
    lenient: bool,
    object: PhantomData<K>,
}

impl<K: DeserializeOwned> EventVisitor<K> {
    /// Decodes `object` for an event of type `kind` from `deserializer`.
    fn object<'de, D: Deserializer<'de>>(&self, kind: &str, deserializer: D) -> Result<WireEvent<K>, D::Error> {
        let object = |d: D| -> Result<Lenient<K>, D::Error> {
            if self.lenient {
                Lenient::deserialize(d)
            } else {
                K::deserialize(d).map(Lenient::Decoded)
            }
        };
        Ok(match kind {
            "ADDED" => WireEvent::Added(object(deserializer)?),
            "MODIFIED" => WireEvent::Modified(object(deserializer)?),
            "DELETED" => WireEvent::Deleted(object(deserializer)?),
            "BOOKMARK" => {
                let bookmark = BookmarkObject::deserialize(deserializer)?;
                WireEvent::Bookmark {
                    initial_events_end: bookmark
                        .metadata
                        .annotations
                        .get(INITIAL_EVENTS_END)
                        .map(String::as_str)
                        == Some("true"),
                    resource_version: bookmark.metadata.resource_version,
                }
            }
            "ERROR" => WireEvent::Error(Box::new(Status::deserialize(deserializer)?)),
            other => return Err(D::Error::custom(format!("unknown watch event type {other:?}"))),
        })
    }
}

impl<'de, K: DeserializeOwned> Visitor<'de> for EventVisitor<K> {
    type Value = WireEvent<K>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a watch event")
    }

    /// kube-apiserver writes `type` before `object`, so the object is decoded as it is read;
    /// an object that comes first is kept as raw text until the type is known.
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<WireEvent<K>, A::Error> {
        // Event types are plain words: borrowed, never escaped.
        let mut kind: Option<&'de str> = None;
        let mut early: Option<&'de RawValue> = None;
        let mut event = None;
        while let Some(key) = map.next_key::<&str>()? {
            match key {
                "type" => kind = Some(map.next_value()?),
                "object" => match kind {
                    Some(kind) => event = Some(map.next_value_seed(ObjectSeed { visitor: &self, kind })?),
                    None => early = Some(map.next_value()?),
                },
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let kind = kind.ok_or_else(|| A::Error::missing_field("type"))?;
        match (event, early) {
            (Some(event), _) => Ok(event),
            (None, Some(raw)) => self.object(kind, raw).map_err(A::Error::custom),
            (None, None) => Err(A::Error::missing_field("object")),
        }
    }
}

/// The `object` of an event whose type is known.
struct ObjectSeed<'v, K> {
    visitor: &'v EventVisitor<K>,
    kind: &'v str,
}

impl<'de, K: DeserializeOwned> DeserializeSeed<'de> for ObjectSeed<'_, K> {
    type Value = WireEvent<K>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<WireEvent<K>, D::Error> {
        self.visitor.object(self.kind, deserializer)
    }
}

#[cfg(test)]
#[path = "wire_tests.rs"]
mod tests;
