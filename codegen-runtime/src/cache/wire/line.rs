//! Watch lines decoded one at a time by simd-json, its buffers and tape kept from line to line.
//!
//! simd-json with fresh buffers loses to serde_json on a 1 KB line (its setup allocates a
//! tape, a structural index, a string buffer and a padded copy of the input each time), and
//! wins on pages, where that setup is paid once per 0.5 MB. Kept
//! across the lines of a watch, the setup is gone: `bench parsers` measured 1.12× serde_json's
//! rate on lines without managedFields and 1.08× with them. Decoding one line at a time, not a
//! chunk's lines as one document, keeps each replaced object's free right after its update,
//! where it is cheapest ("Where the time goes" in BENCHMARKS.md).

use bytes::Bytes;
use kube::Resource;
use serde::de::{DeserializeOwned, DeserializeSeed};
use simd_json::{Buffers, Deserializer, INPUT_PADDING, Tape};

use super::ManagedFields;
use super::event::{StrictEvent, WireEvent, decode_event, decode_event_leniently};

/// Lines longer than this leave their buffers behind, so that one large object does not keep
/// its size of buffers for the rest of the watch.
const KEPT_CAPACITY: usize = 1 << 20;

/// The state simd-json reuses from one watch line to the next: the padded copy of the line
/// (simd-json parses in place, and the response bytes are shared), its buffers and its tape.
#[derive(Default)]
pub(crate) struct LineDecoder {
    input: Vec<u8>,
    buffers: Buffers,
    /// Empty between lines: [`Tape::reset`] frees it of the last line's lifetime.
    tape: Option<Tape<'static>>,
}

impl LineDecoder {
    /// Decodes one watch event as [`decode_event`] does: strictly with simd-json where no field
    /// set is left as text, with serde_json where they are. What simd-json does not take goes
    /// straight to serde_json's lenient decode (a strict one would fail again), so that a misfit
    /// is named by its metadata and an error is serde_json's.
    pub(crate) fn decode<K: DeserializeOwned + Resource>(
        &mut self,
        line: &Bytes,
        managed_fields: ManagedFields,
    ) -> Result<WireEvent<K>, serde_json::Error> {
        if managed_fields == ManagedFields::FieldSetsAsText {
            return decode_event(line, managed_fields);
        }
        match self.decode_strict(line, managed_fields) {
            Some(event) => Ok(event),
            None => decode_event_leniently(line),
        }
    }

    /// The event in `line` if it decodes strictly into `K` through simd-json.
    fn decode_strict<K: DeserializeOwned>(
        &mut self,
        line: &[u8],
        managed_fields: ManagedFields,
    ) -> Option<WireEvent<K>> {
        let Self { input, buffers, tape } = self;
        input.clear();
        input.extend_from_slice(line);
        input.resize(line.len() + INPUT_PADDING, 0);
        let mut filled = tape.take().unwrap_or_else(Tape::null).reset();
        let event = match simd_json::fill_tape_padded(input, line.len(), buffers, &mut filled) {
            Ok(()) => {
                let mut deserializer = Deserializer::from_tape(filled);
                let event = StrictEvent::new(managed_fields).deserialize(&mut deserializer).ok();
                filled = deserializer.into_tape();
                event
            }
            Err(_) => None,
        };
        let filled = filled.reset();
        if self.input.capacity() > KEPT_CAPACITY {
            *self = Self::default();
        } else {
            self.tape = Some(filled);
        }
        event
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::ConfigMap;

    use super::*;
    use crate::cache::decode::Lenient;

    /// What a decoded line says, to compare two decodes of it.
    fn summary(decoded: Result<WireEvent<ConfigMap>, serde_json::Error>) -> String {
        let object = |object: Lenient<ConfigMap>| match object {
            Lenient::Decoded(object) => serde_json::to_string(&*object).unwrap(),
            Lenient::Failed { metadata, error } => format!("misfit {:?}: {error}", metadata.name),
        };
        match decoded {
            Ok(WireEvent::Added(o)) => format!("added {}", object(o)),
            Ok(WireEvent::Modified(o)) => format!("modified {}", object(o)),
            Ok(WireEvent::ModifiedPending { object, .. }) => {
                format!("pending {}", serde_json::to_string(&*object).unwrap())
            }
            Ok(WireEvent::Deleted(o)) => format!("deleted {}", object(o)),
            Ok(WireEvent::Bookmark {
                resource_version,
                initial_events_end,
            }) => format!("bookmark {resource_version} {initial_events_end}"),
            Ok(WireEvent::Error(status)) => format!("error {} {}", status.code, status.reason),
            Ok(WireEvent::Unknown(kind)) => format!("unknown {kind}"),
            Err(error) => format!("refused: {error}"),
        }
    }

    const MANAGED: &str = r#""managedFields":[{"manager":"m","operation":"Update","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:k":{}}}}]"#;

    #[test]
    fn lines_should_decode_through_simd_json_as_through_serde_json() {
        let big = "x".repeat(70_000);
        let lines = [
            format!(
                r#"{{"type":"ADDED","object":{{"metadata":{{"name":"\u00e9t\u00e9","resourceVersion":"3","generation":9007199254740993,{MANAGED},"labels":{{"a/b":"x\"y\\z"}}}},"data":{{"k":"line\nnext 日本語 \ud83d\ude00"}}}}}}"#
            ),
            format!(r#"{{"type":"MODIFIED","object":{{"metadata":{{"name":"long","resourceVersion":"4"}},"data":{{"k":"{big}"}}}}}}"#),
            r#"{"type":"MODIFIED","object":{"metadata":{"name":"short","resourceVersion":"5"},"immutable":true}}"#.to_owned(),
            r#"{"type":"DELETED","object":{"metadata":{"name":"short","resourceVersion":"6"}}}"#.to_owned(),
            r#"{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"7","annotations":{"k8s.io/initial-events-end":"true"}}}}"#.to_owned(),
            r#"{"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired","message":"too old"}}"#.to_owned(),
            r#"{"type":"RENAMED","object":{"metadata":{"name":"short"},"to":[1,{"x":null}]}}"#.to_owned(),
        ];
        // One decoder for every line: what one leaves in the buffers must not show in the next.
        let mut decoder = LineDecoder::default();
        for managed_fields in [ManagedFields::Decode, ManagedFields::Skip] {
            for line in &lines {
                let line = Bytes::from(line.clone());
                assert!(
                    decoder.decode_strict::<ConfigMap>(&line, managed_fields).is_some(),
                    "simd-json did not take {:.60}",
                    String::from_utf8_lossy(&line)
                );
                let decoded = summary(decoder.decode(&line, managed_fields));
                assert_eq!(decoded, summary(decode_event(&line, managed_fields)));
                if decoded.contains("\u{e9}t\u{e9}") {
                    let kept = decoded.contains(r#""manager":"m""#);
                    assert_eq!(kept, managed_fields == ManagedFields::Decode, "{decoded}");
                }
            }
        }
    }

    #[test]
    fn what_simd_json_does_not_take_should_be_decoded_as_serde_json_does() {
        let mut decoder = LineDecoder::default();
        let mut both = |line: &str, managed_fields: ManagedFields| {
            let line = Bytes::from(line.to_owned());
            let simd_json_took = decoder.decode_strict::<ConfigMap>(&line, managed_fields).is_some();
            let decoded = summary(decoder.decode(&line, managed_fields));
            assert_eq!(decoded, summary(decode_event(&line, managed_fields)));
            (simd_json_took, decoded)
        };
        let decode = ManagedFields::Decode;
        let (took, misfit) = both(
            r#"{"type":"ADDED","object":{"metadata":{"name":"m"},"data":7}}"#,
            decode,
        );
        assert!(
            !took && misfit.starts_with(r#"added misfit Some("m"): invalid type"#),
            "{misfit}"
        );
        // serde_json's raw-value protocol keeps an object that comes before its type.
        let (took, early) = both(r#"{"object":{"metadata":{"name":"e"}},"type":"ADDED"}"#, decode);
        assert!(!took && early.contains(r#""metadata":{"name":"e"}"#), "{early}");
        // Errors are serde_json's.
        let (took, malformed) = both(r#"{"type":"ADDED","object":{"metadata":"#, decode);
        assert!(
            !took && malformed.starts_with("refused: EOF while parsing"),
            "{malformed}"
        );
        let (took, trailing) = both(r#"{"type":"ADDED","object":{"metadata":{"name":"t"}}} x"#, decode);
        assert!(
            !took && trailing.starts_with("refused: trailing characters"),
            "{trailing}"
        );
        // An update's field sets left as text go through serde_json, for its raw text.
        let pending = format!(r#"{{"type":"MODIFIED","object":{{"metadata":{{"name":"p",{MANAGED}}}}}}}"#);
        let (_, pending) = both(&pending, ManagedFields::FieldSetsAsText);
        assert!(pending.starts_with("pending "), "{pending}");
    }

    #[test]
    fn a_line_over_a_mebibyte_should_not_keep_its_buffers() {
        let line = |size: usize| {
            let data = "x".repeat(size);
            Bytes::from(format!(
                r#"{{"type":"ADDED","object":{{"metadata":{{"name":"a"}},"data":{{"k":"{data}"}}}}}}"#
            ))
        };
        let mut decoder = LineDecoder::default();
        assert!(
            decoder
                .decode_strict::<ConfigMap>(&line(1000), ManagedFields::Decode)
                .is_some()
        );
        assert!(
            decoder.input.capacity() > 1000 && decoder.tape.is_some(),
            "kept for the next line"
        );
        let big = decoder.decode_strict::<ConfigMap>(&line(KEPT_CAPACITY), ManagedFields::Decode);
        match big {
            Some(WireEvent::Added(Lenient::Decoded(cm))) => {
                assert_eq!(cm.data.as_ref().unwrap()["k"].len(), KEPT_CAPACITY)
            }
            _ => panic!("the long line did not decode"),
        }
        assert_eq!((decoder.input.capacity(), decoder.tape.is_none()), (0, true));
    }
}
