//! Watch events: one line decoded in one pass with serde_json, or a run of a streaming list's
//! initial events decoded as one document with simd-json.

use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use bytes::Bytes;
use kube::core::Status;
use serde::Deserialize;
use serde::de::{
    DeserializeOwned, DeserializeSeed, Deserializer, Error as _, IgnoredAny, MapAccess, SeqAccess, Visitor,
};
use serde_json::value::RawValue;

use super::text;
use crate::cache::decode::Lenient;

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

/// Decodes a run of watch lines (what one chunk of a streaming list's initial events holds), in
/// order: as one document when every object fits `K`, line by line otherwise.
pub(crate) fn decode_events<K: DeserializeOwned>(lines: &[Bytes]) -> Vec<Result<WireEvent<K>, serde_json::Error>> {
    // A single line is faster through serde_json (`bench parsers`, in `wire`'s doc).
    if lines.len() > 1
        && let Some(events) = decode_events_fast(lines)
    {
        return events.into_iter().map(Ok).collect();
    }
    lines.iter().map(|line| decode_event(line)).collect()
}

/// Decodes a run of watch lines as one simd-json document, `[line,…]`: line by line simd-json
/// loses to serde_json, but a run pays its setup once, as a page does. `None` if any line does
/// not decode strictly into its event.
pub(super) fn decode_events_fast<K: DeserializeOwned>(lines: &[Bytes]) -> Option<Vec<WireEvent<K>>> {
    let mut document = Vec::with_capacity(lines.iter().map(|line| line.len() + 1).sum::<usize>() + 1);
    document.push(b'[');
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            document.push(b',');
        }
        document.extend_from_slice(line);
    }
    document.push(b']');
    let mut deserializer = simd_json::Deserializer::from_slice(&mut document).ok()?;
    (&mut deserializer)
        .deserialize_seq(EventsVisitor::<K>(PhantomData))
        .ok()
}

/// A run of watch events, each decoded strictly.
struct EventsVisitor<K>(PhantomData<K>);

impl<'de, K: DeserializeOwned> Visitor<'de> for EventsVisitor<K> {
    type Value = Vec<WireEvent<K>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("watch events")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut events = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(event) = seq.next_element_seed(StrictEvent::<K>(PhantomData))? {
            events.push(event);
        }
        Ok(events)
    }
}

/// One watch event whose object must fit `K`.
struct StrictEvent<K>(PhantomData<K>);

impl<'de, K: DeserializeOwned> DeserializeSeed<'de> for StrictEvent<K> {
    type Value = WireEvent<K>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<WireEvent<K>, D::Error> {
        deserializer.deserialize_map(EventVisitor {
            lenient: false,
            object: PhantomData::<K>,
        })
    }
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
                K::deserialize(d).map(|object| Lenient::Decoded(Arc::new(object)))
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
