//! Watch events: one line decoded in one pass with serde_json (where [`LineDecoder`] does not
//! take it), or a run of a streaming list's initial events decoded as one document with
//! simd-json.
//!
//! [`LineDecoder`]: super::LineDecoder

use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use bytes::Bytes;
use kube::Resource;
use kube::core::Status;
use serde::Deserialize;
use serde::de::{
    DeserializeOwned, DeserializeSeed, Deserializer, Error as _, IgnoredAny, MapAccess, SeqAccess, Visitor,
};
use serde_json::value::RawValue;

use super::capture::{Aim, Captured, decode_object};
use super::{ManagedFields, text};
use crate::cache::decode::Lenient;
use crate::cache::field_sets::FieldSetTexts;

/// One watch event, as kube-apiserver sends it (one JSON object per line).
pub(crate) enum WireEvent<K> {
    Added(Lenient<K>),
    Modified(Lenient<K>),
    /// A MODIFIED object decoded with its managed fields' field sets left as text: `null`s
    /// in `object` until the store takes the cached ones over or decodes `field_sets`.
    ModifiedPending {
        object: Arc<K>,
        field_sets: FieldSetTexts,
    },
    Deleted(Lenient<K>),
    /// A progress mark: the resourceVersion reached, and whether it ends a streaming list's
    /// initial events.
    Bookmark {
        resource_version: String,
        initial_events_end: bool,
    },
    /// An in-stream error, e.g. 410 Expired (boxed: rare, and large).
    Error(Box<Status>),
    /// An event of a type this client does not know, its object unread: skipped, as client-go
    /// skips it ("unable to understand watch event"), rather than ending the watch to be
    /// resumed into the same event again.
    Unknown(String),
}

/// The annotation a streaming list's closing bookmark carries.
const INITIAL_EVENTS_END: &str = "k8s.io/initial-events-end";

/// Decodes one watch event: the object once, into `K`, when it fits; leniently otherwise. A
/// MODIFIED object's field sets may be left as text in `line` ([`WireEvent::ModifiedPending`]),
/// or every object's managed fields skipped, as `managed_fields` says.
pub(super) fn decode_event<K: DeserializeOwned + Resource>(
    line: &Bytes,
    managed_fields: ManagedFields,
) -> Result<WireEvent<K>, serde_json::Error> {
    let text = text(line)?;
    if managed_fields == ManagedFields::FieldSetsAsText {
        let captured = Captured::default();
        // A failure here fails again below, where the error is reported.
        if let Ok(event) = parse::<K>(text, false, Some(Aim::FieldSetsAsText(&captured))) {
            let captured = captured.into_inner();
            match event {
                WireEvent::Modified(Lenient::Decoded(object)) if !captured.is_empty() => {
                    if let Some(field_sets) = FieldSetTexts::new(line, &captured, object.meta()) {
                        return Ok(WireEvent::ModifiedPending { object, field_sets });
                    }
                    // Not the object's own field sets (serde decoded its metadata out of the
                    // capture's way): decoded whole.
                }
                event if captured.is_empty() => return Ok(event),
                _ => {}
            }
        }
    }
    // A misfit keeps its managed fields: the informer strips them before it is stored.
    parse(text, false, managed_fields.skipping()).or_else(|_| decode_event_leniently(line))
}

/// Decodes one watch event the lenient way: an object that does not fit `K` is named by its
/// metadata ([`Lenient::Failed`]), and an error is serde_json's.
pub(super) fn decode_event_leniently<K: DeserializeOwned>(line: &Bytes) -> Result<WireEvent<K>, serde_json::Error> {
    parse(text(line)?, true, None)
}

/// Decodes the watch event `text`, as [`decode_event`] says.
fn parse<'de, K: DeserializeOwned>(
    text: &'de str,
    lenient: bool,
    aim: Option<Aim<'_, 'de>>,
) -> Result<WireEvent<K>, serde_json::Error> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let event = deserializer.deserialize_map(EventVisitor {
        lenient,
        aim,
        object: PhantomData::<K>,
    })?;
    deserializer.end()?;
    Ok(event)
}

/// Decodes a run of watch lines (what one chunk of a streaming list's initial events holds), in
/// order: as one document when every object fits `K`, line by line otherwise. Managed fields
/// are skipped or decoded as `managed_fields` says (the document leaves no field set as text).
pub(crate) fn decode_events<K: DeserializeOwned + Resource>(
    lines: &[Bytes],
    managed_fields: ManagedFields,
) -> Vec<Result<WireEvent<K>, serde_json::Error>> {
    // A single line is faster through serde_json than through simd-json with fresh buffers
    // (`bench parsers`, in `wire`'s doc).
    if lines.len() > 1
        && let Some(events) = decode_events_fast(lines, managed_fields)
    {
        return events.into_iter().map(Ok).collect();
    }
    lines.iter().map(|line| decode_event(line, managed_fields)).collect()
}

/// Decodes a run of watch lines as one simd-json document, `[line,…]`: line by line simd-json
/// loses to serde_json, but a run pays its setup once, as a page does. `None` if any line does
/// not decode strictly into its event.
pub(super) fn decode_events_fast<K: DeserializeOwned>(
    lines: &[Bytes],
    managed_fields: ManagedFields,
) -> Option<Vec<WireEvent<K>>> {
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
        .deserialize_seq(EventsVisitor::<K> {
            managed_fields,
            object: PhantomData,
        })
        .ok()
}

/// A run of watch events, each decoded strictly.
struct EventsVisitor<K> {
    managed_fields: ManagedFields,
    object: PhantomData<K>,
}

impl<'de, K: DeserializeOwned> Visitor<'de> for EventsVisitor<K> {
    type Value = Vec<WireEvent<K>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("watch events")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut events = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(event) = seq.next_element_seed(StrictEvent::<K>::new(self.managed_fields))? {
            events.push(event);
        }
        Ok(events)
    }
}

/// One watch event whose object must fit `K`.
pub(super) struct StrictEvent<K> {
    managed_fields: ManagedFields,
    object: PhantomData<K>,
}

impl<K> StrictEvent<K> {
    /// An event whose managed fields are skipped or decoded as `managed_fields` says (none
    /// left as text).
    pub(super) fn new(managed_fields: ManagedFields) -> Self {
        StrictEvent {
            managed_fields,
            object: PhantomData,
        }
    }
}

impl<'de, K: DeserializeOwned> DeserializeSeed<'de> for StrictEvent<K> {
    type Value = WireEvent<K>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<WireEvent<K>, D::Error> {
        deserializer.deserialize_map(EventVisitor {
            lenient: false,
            aim: self.managed_fields.skipping(),
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

struct EventVisitor<'a, 'de, K> {
    lenient: bool,
    /// What a strict decode does at the managed fields: a MODIFIED object's field sets left
    /// as text, or every object's managed fields skipped.
    aim: Option<Aim<'a, 'de>>,
    object: PhantomData<K>,
}

impl<'de, K: DeserializeOwned> EventVisitor<'_, 'de, K> {
    /// Decodes `object` for an event of type `kind` from `deserializer`.
    fn object<D: Deserializer<'de>>(&self, kind: &str, deserializer: D) -> Result<WireEvent<K>, D::Error> {
        // Field sets are left as text in updates only.
        let aim = match self.aim {
            Some(Aim::FieldSetsAsText(_)) if kind != "MODIFIED" => None,
            aim => aim,
        };
        let object = |d: D| -> Result<Lenient<K>, D::Error> {
            if self.lenient {
                Lenient::deserialize(d)
            } else {
                decode_object(d, aim).map(|object| Lenient::Decoded(Arc::new(object)))
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
            other => {
                IgnoredAny::deserialize(deserializer)?;
                WireEvent::Unknown(other.to_owned())
            }
        })
    }
}

impl<'de, K: DeserializeOwned> Visitor<'de> for EventVisitor<'_, 'de, K> {
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
struct ObjectSeed<'v, 'a, 'de, K> {
    visitor: &'v EventVisitor<'a, 'de, K>,
    kind: &'v str,
}

impl<'de, K: DeserializeOwned> DeserializeSeed<'de> for ObjectSeed<'_, '_, 'de, K> {
    type Value = WireEvent<K>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<WireEvent<K>, D::Error> {
        self.visitor.object(self.kind, deserializer)
    }
}
