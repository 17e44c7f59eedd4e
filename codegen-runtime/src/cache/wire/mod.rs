//! List pages and watch events decoded in one pass, straight from the response bytes into `K`.
//!
//! Pages, and a streaming list's initial events a chunk at a time, go through simd-json, and so
//! do single watch lines, with its buffers kept from line to line ([`LineDecoder`]). `bench
//! parsers` measured simd-json 1.1–1.2× as fast as serde_json on 0.5 MB pages, and on 1 KB lines
//! 1.08–1.12× with kept buffers (0.8–0.9× with fresh ones); both read every body of the
//! conformance corpus alike. serde_json reads an update whose field sets are left as text (its
//! raw-value protocol borrows them from the line), and every line or page simd-json does not
//! take, so that errors are serde_json's.
//!
//! The fast path parses each object once, into `K` itself, and hands it over as it completes
//! (no intermediate `Value`, raw text or `Vec` of the page). Only when that fails — an object
//! that does not fit `K` — is the page or event parsed again through [`Lenient`], which keeps the
//! objects that decode and names the ones that do not by their metadata. An update of an
//! informer without handlers is decoded with its managed fields' field sets left as text
//! (`capture`), for the store to take the cached trees over ([`FieldSetTexts`]); an informer
//! that strips managed fields skips them unread, everywhere.
//!
//! [`Lenient`]: super::decode::Lenient
//! [`FieldSetTexts`]: super::field_sets::FieldSetTexts

mod capture;
mod event;
mod line;
mod page;

pub(crate) use event::{WireEvent, decode_events};
pub(crate) use line::LineDecoder;
pub(crate) use page::{continue_token, decode_page};

use serde::de::Error as _;

/// What decoding does with an object's managed fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ManagedFields {
    /// Decoded with the object.
    Decode,
    /// An update's field sets left as text ([`WireEvent::ModifiedPending`]).
    FieldSetsAsText,
    /// Skipped unread: objects come without any (`InformerOptions::strip_managed_fields`).
    Skip,
}

impl ManagedFields {
    /// What a decode that leaves no field set as text does at the managed fields: skips them,
    /// or nothing special (field sets are left as text in single watch lines' updates only).
    fn skipping<'a, 'de>(self) -> Option<capture::Aim<'a, 'de>> {
        (self == ManagedFields::Skip).then_some(capture::Aim::SkipManagedFields)
    }
}

/// The body as text, its UTF-8 checked once: serde_json then reads strings without checking
/// each again (its `StrRead`), which is what kube's own decoding does.
pub(super) fn text(bytes: &[u8]) -> Result<&str, serde_json::Error> {
    std::str::from_utf8(bytes).map_err(serde_json::Error::custom)
}

/// `object` as a watch line's update decodes it for an informer without handlers: its field
/// sets left as text.
#[cfg(test)]
pub(crate) fn pending<K>(object: &K) -> (std::sync::Arc<K>, crate::cache::field_sets::FieldSetTexts)
where
    K: serde::Serialize + serde::de::DeserializeOwned + kube::Resource,
{
    let line = format!(
        r#"{{"type":"MODIFIED","object":{}}}"#,
        serde_json::to_string(object).unwrap()
    );
    match event::decode_event(&bytes::Bytes::from(line), ManagedFields::FieldSetsAsText).unwrap() {
        WireEvent::ModifiedPending { object, field_sets } => (object, field_sets),
        _ => panic!("the field sets were not left as text"),
    }
}

#[cfg(test)]
mod tests;
