//! Field sets recognized by fingerprint: an update whose managed-fields field sets have the
//! texts of those the cached object holds takes the cached trees over, and decodes none of its
//! own.
//!
//! Why: with managed fields, most of an object's decode is its `fieldsV1` trees (a `serde_json`
//! map per level: 8 B-tree nodes and 22 strings for a VirtualMachine), and a status update
//! seldom changes them. [`keep_unchanged`] spares the free of the cached trees, but the update
//! still builds its own, and comparing them reads the cached ones, cold. Here the update's
//! field sets are left as text in its watch line (`wire::capture`), and a keyed 128-bit hash of
//! those texts is compared with the one the store keeps beside the cached object, which
//! touches none of its trees. Equal texts are equal trees; a different text (another writer's
//! change, or keys in another order) only means the texts are decoded after all.
//!
//! [`keep_unchanged`]: super::reuse::keep_unchanged

use std::cell::RefCell;
use std::fmt;
use std::hash::{BuildHasher, Hasher, RandomState};
use std::ops::Range;
use std::sync::{Arc, LazyLock};

use bytes::Bytes;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{FieldsV1, ObjectMeta};
use kube::Resource;

use super::decode::Lenient;

/// A keyed hash of an object's field-set texts, in entry order; [`Fingerprint::NONE`] where
/// it is not known (an object without field sets, or one whose update was decoded whole).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Fingerprint([u64; 2]);

/// The process's hash key, random, so that no one can write field sets that collide.
static KEY: LazyLock<RandomState> = LazyLock::new(RandomState::new);

impl Fingerprint {
    /// Not known: equal to no other fingerprint.
    pub(crate) const NONE: Self = Self([0; 2]);

    /// The fingerprint of `texts`: two 64-bit SipHashes of them under the process's key, in
    /// two domains, so that two different texts match with a chance of 2^-128.
    pub(crate) fn of_texts<'t>(texts: impl Iterator<Item = &'t [u8]> + Clone) -> Self {
        let halves = [0u8, 1].map(|domain| {
            let mut hasher = KEY.build_hasher();
            hasher.write_u8(domain);
            for text in texts.clone() {
                hasher.write_usize(text.len());
                hasher.write(text);
            }
            hasher.finish()
        });
        Self(halves)
    }

    /// The fingerprint of `meta`'s field sets as kube-apiserver usually writes them: compact
    /// JSON, keys sorted as serde_json writes its maps. For a listed object; an update's texts
    /// replace it. Where the server writes them otherwise (it sorts a field set's keys by kind,
    /// and list keys by value; Go escapes `<`, `>` and `&`), the first update after a list
    /// decodes its field sets.
    pub(crate) fn of_trees(meta: &ObjectMeta) -> Self {
        thread_local! {
            static TEXTS: RefCell<(Vec<u8>, Vec<usize>)> = const { RefCell::new((Vec::new(), Vec::new())) };
        }
        TEXTS.with_borrow_mut(|(text, ends)| {
            text.clear();
            ends.clear();
            for FieldsV1(tree) in trees(meta) {
                if serde_json::to_writer(&mut *text, tree).is_err() {
                    return Self::NONE;
                }
                ends.push(text.len());
            }
            if ends.is_empty() {
                return Self::NONE;
            }
            let starts = std::iter::once(0).chain(ends.iter().copied());
            Self::of_texts(starts.zip(ends.iter()).map(|(start, &end)| &text[start..end]))
        })
    }
}

/// An update's field sets as their texts in its watch line, in the order of its managed-fields
/// entries that have one; the object holds `null`s in their place until
/// [`FieldSetTexts::decode_into`] fills them or [`take_field_sets`] moves the cached ones in.
pub(crate) struct FieldSetTexts {
    /// The watch line (a reference into the chunk it arrived in).
    line: Bytes,
    spans: Vec<Range<usize>>,
    fingerprint: Fingerprint,
}

impl FieldSetTexts {
    /// The texts `captured` from `line`, if they are exactly `meta`'s field sets: each of
    /// those a placeholder, one per text (not so when serde decoded the metadata out of the
    /// capture's way, buffered for a flattened or untagged `K`), and each text in `line`.
    pub(crate) fn new(line: &Bytes, captured: &[&str], meta: &ObjectMeta) -> Option<Self> {
        if !placeholders(meta, captured.len()) {
            return None;
        }
        let base = line.as_ptr() as usize;
        let spans = captured
            .iter()
            .map(|text| {
                let start = (text.as_ptr() as usize).checked_sub(base)?;
                let span = start..start + text.len();
                (span.end <= line.len()).then_some(span)
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Self {
            line: line.clone(),
            spans,
            fingerprint: Fingerprint::of_texts(captured.iter().map(|text| text.as_bytes())),
        })
    }

    /// `object` with these texts decoded into its field sets; a misfit if one does not decode,
    /// which the informer logs and skips as any object that does not decode.
    pub(crate) fn complete<K: Resource + Clone>(&self, mut object: Arc<K>) -> Lenient<K> {
        // Unshared (it comes from the decode), so this does not copy it.
        match self.decode_into(Arc::make_mut(&mut object).meta_mut()) {
            Ok(()) => Lenient::Decoded(object),
            Err(error) => Lenient::Failed {
                metadata: Box::new(object.meta().clone()),
                error: format!("metadata.managedFields: {error}"),
            },
        }
    }

    /// What the store keeps to recognize these field sets in the object's next update.
    pub(crate) fn fingerprint(&self) -> Fingerprint {
        self.fingerprint
    }

    /// Decodes the texts into `meta`'s field sets, in order; they must be the placeholders
    /// the texts were taken from.
    pub(crate) fn decode_into(&self, meta: &mut ObjectMeta) -> Result<(), serde_json::Error> {
        if !placeholders(meta, self.spans.len()) {
            return Err(serde::de::Error::custom(
                "the field sets are not the texts' placeholders",
            ));
        }
        for (FieldsV1(slot), span) in slots(meta).zip(&self.spans) {
            // Checked as UTF-8 with the line; a span starts and ends at a JSON value's bounds.
            let text = std::str::from_utf8(&self.line[span.clone()]).map_err(serde::de::Error::custom)?;
            *slot = serde_json::from_str(text)?;
        }
        Ok(())
    }
}

impl fmt::Debug for FieldSetTexts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FieldSetTexts").field("spans", &self.spans).finish()
    }
}

/// `meta`'s field sets, in entry order.
fn trees(meta: &ObjectMeta) -> impl Iterator<Item = &FieldsV1> + Clone {
    let entries = meta.managed_fields.iter().flatten();
    entries.filter_map(|entry| entry.fields_v1.as_ref())
}

/// Whether `meta` has `count` field sets, each a placeholder: `null`, which a decoded field set
/// never is (a `null` in the JSON is no field set).
fn placeholders(meta: &ObjectMeta, count: usize) -> bool {
    trees(meta).count() == count && trees(meta).all(|FieldsV1(tree)| tree.is_null())
}

/// Whether `cached`, whose field sets' fingerprint is `held`, holds the field sets `texts`
/// are of.
pub(crate) fn holds_field_sets(cached: &ObjectMeta, held: Fingerprint, texts: &FieldSetTexts) -> bool {
    held != Fingerprint::NONE && held == texts.fingerprint && trees(cached).count() == texts.spans.len()
}

/// Moves `cached`'s field sets into `fresh`'s, in order (where [`holds_field_sets`] says they
/// are the ones `fresh` was decoded without). `cached` is left with `fresh`'s placeholders:
/// it must be the replaced object, dropped unseen.
pub(crate) fn take_field_sets(fresh: &mut ObjectMeta, cached: &mut ObjectMeta) {
    for (fresh, cached) in slots(fresh).zip(slots(cached)) {
        std::mem::swap(fresh, cached);
    }
}

/// `meta`'s field sets, in entry order, to change.
fn slots(meta: &mut ObjectMeta) -> impl Iterator<Item = &mut FieldsV1> {
    let entries = meta.managed_fields.iter_mut().flatten();
    entries.filter_map(|entry| entry.fields_v1.as_mut())
}

#[cfg(test)]
mod tests {
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ManagedFieldsEntry;
    use serde_json::{Value, json};

    use super::*;

    fn meta(trees: &[Value]) -> ObjectMeta {
        let entry = |tree: &Value| ManagedFieldsEntry {
            manager: Some("m".to_owned()),
            fields_v1: Some(FieldsV1(tree.clone())),
            ..ManagedFieldsEntry::default()
        };
        ObjectMeta {
            managed_fields: Some(trees.iter().map(entry).collect()),
            ..ObjectMeta::default()
        }
    }

    fn spec() -> Value {
        json!({"f:spec": {".": {}, "f:cpu": {}, "f:memory": {}}})
    }

    fn status() -> Value {
        json!({"f:metadata": {"f:finalizers": {"v:\"a.b/c\"": {}}}, "f:status": {"f:phase": {}}})
    }

    /// `meta`'s field sets as an update's texts, in the line `{"trees":[…]}`, and `meta` with
    /// placeholders in their place, as an update is decoded.
    fn pending(trees: &[Value]) -> (FieldSetTexts, ObjectMeta) {
        let texts: Vec<String> = trees.iter().map(Value::to_string).collect();
        let line = Bytes::from(format!("{{\"trees\":[{}]}}", texts.join(",")));
        let mut at = "{\"trees\":[".len();
        let captured: Vec<&str> = texts
            .iter()
            .map(|text| {
                let span = std::str::from_utf8(&line[at..at + text.len()]).unwrap();
                at += text.len() + 1;
                span
            })
            .collect();
        let placeholders = meta(&vec![Value::Null; trees.len()]);
        let texts = FieldSetTexts::new(&line, &captured, &placeholders).expect("the texts are the field sets");
        (texts, placeholders)
    }

    #[test]
    fn a_listed_object_should_have_the_fingerprint_of_its_texts_as_the_server_writes_them() {
        let (texts, _) = pending(&[spec(), status()]);
        assert_eq!(Fingerprint::of_trees(&meta(&[spec(), status()])), texts.fingerprint());
        assert_ne!(texts.fingerprint(), Fingerprint::NONE);
        for other in [
            vec![status(), spec()],
            vec![spec()],
            vec![spec(), json!({"f:status": {}})],
        ] {
            assert_ne!(Fingerprint::of_trees(&meta(&other)), texts.fingerprint(), "{other:?}");
        }
        assert_eq!(Fingerprint::of_trees(&ObjectMeta::default()), Fingerprint::NONE);
    }

    #[test]
    fn texts_should_decode_into_their_entries_in_order() {
        let (texts, mut decoded) = pending(&[spec(), status()]);
        texts.decode_into(&mut decoded).unwrap();
        assert_eq!(decoded, meta(&[spec(), status()]));
    }

    #[test]
    fn field_sets_should_be_taken_only_from_an_object_that_holds_them() {
        let mut cached = meta(&[spec(), status()]);
        let held = Fingerprint::of_trees(&cached);
        let (texts, mut fresh) = pending(&[spec(), status()]);
        assert!(!holds_field_sets(&cached, Fingerprint::NONE, &texts), "unknown");
        assert!(!holds_field_sets(&meta(&[spec()]), held, &texts), "fewer entries");
        let (changed, _) = pending(&[spec(), json!({"f:status": {}})]);
        assert!(!holds_field_sets(&cached, held, &changed), "a changed field set");
        assert!(holds_field_sets(&cached, held, &texts));

        let first_level = |meta: &ObjectMeta| {
            let tree = &meta.managed_fields.as_ref().unwrap()[1].fields_v1.as_ref().unwrap().0;
            std::ptr::from_ref(&tree["f:status"]) as usize
        };
        let cached_tree = first_level(&cached);
        take_field_sets(&mut fresh, &mut cached);
        assert_eq!(fresh, meta(&[spec(), status()]));
        assert_eq!(first_level(&fresh), cached_tree, "moved, not copied");
        assert_eq!(
            cached,
            meta(&[Value::Null, Value::Null]),
            "the replaced object is left the placeholders"
        );
    }

    #[test]
    fn texts_from_elsewhere_than_the_line_or_the_placeholders_should_not_be_taken_for_field_sets() {
        let line = Bytes::from_static(b"{\"a\":{}}");
        let elsewhere = String::from("{}");
        let two = meta(&[Value::Null, Value::Null]);
        assert!(FieldSetTexts::new(&line, &[&elsewhere, &elsewhere], &two).is_none());
        let inside = std::str::from_utf8(&line[5..7]).unwrap();
        assert!(
            FieldSetTexts::new(&line, &[inside], &two).is_none(),
            "one text for two entries"
        );
        // Field sets decoded whole (an object whose metadata serde buffers), and as many texts
        // taken from elsewhere in it: not the object's.
        let decoded = meta(&[spec(), status()]);
        assert!(FieldSetTexts::new(&line, &[inside, inside], &decoded).is_none());
        let texts = FieldSetTexts::new(&line, &[inside, inside], &two).expect("the placeholders' texts");
        assert!(texts.decode_into(&mut decoded.clone()).is_err(), "not placeholders");
    }

    #[test]
    fn a_text_that_does_not_decode_into_a_field_set_should_fail_its_object() {
        let (texts, mut placeholders) = pending(&[spec()]);
        let line = Bytes::from_static(b"{\"f:a\":1e999}");
        let text = std::str::from_utf8(&line[..]).unwrap();
        let out_of_range = FieldSetTexts::new(&line, &[text], &placeholders).expect("a placeholder's text");
        let error = out_of_range.decode_into(&mut placeholders.clone()).unwrap_err();
        assert!(error.to_string().contains("out of range"), "{error}");
        texts.decode_into(&mut placeholders).unwrap();
        assert_eq!(placeholders, meta(&[spec()]));
    }
}
