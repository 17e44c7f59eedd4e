//! The benchmark server's objects: N VirtualMachines of about 1 KB shaped like controller101's
//! example (with the managed fields a real server adds), kept as JSON text split around the
//! values a status update changes (the resourceVersion, `status.lastUpdateTime` and the time of
//! the controller's managed-fields entry), so that a page or a watch event costs a copy, not a
//! serialization. Watch event `j` is a status update of object `j % N`.

use std::io::Write as _;

use k8s_openapi::jiff::Timestamp;
use serde_json::json;

/// The resourceVersion placeholder each object is split around.
const RV_PLACEHOLDER: &str = "@RV@";
/// The placeholder of the times a status update sets, which objects are split around too.
const TIME_PLACEHOLDER: &str = "@T@";

/// The namespace of object `i`: objects are spread over 100 namespaces.
pub fn namespace_of(i: usize) -> String {
    format!("bench-{:02}", i % 100)
}

/// The name of object `i`.
pub fn name_of(i: usize) -> String {
    format!("vm-{i:07}")
}

/// What goes between two pieces of an object's text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    ResourceVersion,
    UpdateTime,
}

/// The objects as JSON text, each split around its resourceVersion and update times.
pub struct Catalog {
    pieces: Vec<Vec<Vec<u8>>>,
    /// What follows each piece but the last (the same in every object).
    slots: Vec<Slot>,
    /// Watch events to send after the list; `None` for endless.
    events: Option<usize>,
}

impl Catalog {
    /// `objects` VirtualMachines (with the managed fields a real API server adds, or none),
    /// then `events` MODIFIED events (`None`: endless).
    pub fn new(objects: usize, events: Option<usize>, managed_fields: bool) -> Self {
        let split: Vec<_> = (0..objects)
            .map(|i| {
                let mut object = object(i);
                if !managed_fields {
                    object["metadata"]
                        .as_object_mut()
                        .expect("metadata")
                        .remove("managedFields");
                }
                split_at_slots(&object.to_string())
            })
            .collect();
        let slots = split.first().map(|(_, slots)| slots.clone()).unwrap_or_default();
        assert!(
            split.iter().all(|(_, these)| *these == slots),
            "every object has its placeholders in the same order"
        );
        let pieces = split.into_iter().map(|(pieces, _)| pieces).collect();
        Self { pieces, slots, events }
    }

    /// How many objects there are.
    pub fn len(&self) -> usize {
        self.pieces.len()
    }

    /// How many watch events follow the list; `None` for endless.
    pub(crate) fn events(&self) -> Option<usize> {
        self.events
    }

    /// The resourceVersion of the list: object `i` was created at `i + 1`.
    pub(crate) fn list_version(&self) -> u64 {
        self.pieces.len() as u64
    }

    /// Object `i` at resourceVersion `version`, last updated at a time that follows from it.
    fn write_object(&self, out: &mut Vec<u8>, i: usize, version: u64) {
        let pieces = &self.pieces[i];
        for (piece, slot) in pieces.iter().zip(&self.slots) {
            out.extend_from_slice(piece);
            match slot {
                Slot::ResourceVersion => write!(out, "{version}"),
                Slot::UpdateTime => write_time(out, version),
            }
            .expect("writing to a Vec cannot fail");
        }
        out.extend_from_slice(pieces.last().expect("an object has a last piece"));
    }

    /// One page of the list, from `offset`, of at most `limit` objects.
    pub(crate) fn page(&self, offset: usize, limit: usize) -> Vec<u8> {
        let end = offset.saturating_add(limit).min(self.len());
        let mut out = Vec::with_capacity((end - offset.min(end)) * 1100 + 200);
        let next = if end < self.len() {
            format!(r#","continue":"{end}""#)
        } else {
            String::new()
        };
        write!(
            out,
            r#"{{"apiVersion":"cloudnative.tw/v1alpha1","kind":"VirtualMachineList","metadata":{{"resourceVersion":"{}"{next}}},"items":["#,
            self.list_version()
        )
        .expect("writing to a Vec cannot fail");
        for i in offset..end {
            if i > offset {
                out.push(b',');
            }
            self.write_object(&mut out, i, i as u64 + 1);
        }
        out.extend_from_slice(b"]}");
        out
    }

    /// Watch event `j` modifies object `j % N` to resourceVersion `N + j + 1`.
    pub(crate) fn write_event(&self, out: &mut Vec<u8>, j: usize) {
        out.extend_from_slice(br#"{"type":"MODIFIED","object":"#);
        self.write_object(out, j % self.len(), self.list_version() + j as u64 + 1);
        out.extend_from_slice(b"}\n");
    }

    /// Writes the event at `cursor` and returns the next cursor, or `None` at the end.
    pub(crate) fn write_next(&self, out: &mut Vec<u8>, cursor: Cursor, end: usize) -> Option<Cursor> {
        match cursor {
            Cursor::Added(i) if i < self.len() => {
                out.extend_from_slice(br#"{"type":"ADDED","object":"#);
                self.write_object(out, i, i as u64 + 1);
                out.extend_from_slice(b"}\n");
                Some(Cursor::Added(i + 1))
            }
            Cursor::Added(_) => {
                // The bookmark that ends a streaming list's initial events.
                write!(
                    out,
                    r#"{{"type":"BOOKMARK","object":{{"apiVersion":"cloudnative.tw/v1alpha1","kind":"VirtualMachine","metadata":{{"resourceVersion":"{}","annotations":{{"k8s.io/initial-events-end":"true"}}}}}}}}"#,
                    self.list_version()
                )
                .expect("writing to a Vec cannot fail");
                out.push(b'\n');
                Some(Cursor::Modified(0))
            }
            Cursor::Modified(j) if j < end => {
                self.write_event(out, j);
                Some(Cursor::Modified(j + 1))
            }
            Cursor::Modified(_) => None,
        }
    }
}

/// Where a watch stream is: in a streaming list's initial events, or in the modifications.
#[derive(Clone, Copy)]
pub(crate) enum Cursor {
    Added(usize),
    Modified(usize),
}

/// Splits an object's text at its placeholders: the pieces, and what goes between them.
fn split_at_slots(text: &str) -> (Vec<Vec<u8>>, Vec<Slot>) {
    let (mut pieces, mut slots) = (Vec::new(), Vec::new());
    let mut rest = text;
    loop {
        let next = [
            (RV_PLACEHOLDER, Slot::ResourceVersion),
            (TIME_PLACEHOLDER, Slot::UpdateTime),
        ]
        .into_iter()
        .filter_map(|(placeholder, slot)| Some((rest.find(placeholder)?, placeholder, slot)))
        .min_by_key(|(at, _, _)| *at);
        let Some((at, placeholder, slot)) = next else {
            pieces.push(rest.as_bytes().to_vec());
            return (pieces, slots);
        };
        pieces.push(rest.as_bytes()[..at].to_vec());
        slots.push(slot);
        rest = &rest[at + placeholder.len()..];
    }
}

/// The time of the update that made `version`: a second per version, from the objects'
/// creation at 2026-11-23T10:00:00Z (wrapping after a week, for endless watches).
fn write_time(out: &mut Vec<u8>, version: u64) -> std::io::Result<()> {
    const CREATED: i64 = 1_795_428_000;
    const WEEK: u64 = 7 * 86_400;
    let second = CREATED + i64::try_from(version % WEEK).expect("under a week of seconds");
    let time = Timestamp::from_second(second).expect("a time in 2026");
    write!(out, "{time}")
}

/// VirtualMachine `i`, with [`RV_PLACEHOLDER`] for its resourceVersion and [`TIME_PLACEHOLDER`]
/// for the times its last status update set: about 1 KB of JSON.
fn object(i: usize) -> serde_json::Value {
    let time = "2026-11-23T10:00:00Z";
    json!({
        "apiVersion": "cloudnative.tw/v1alpha1",
        "kind": "VirtualMachine",
        "metadata": {
            "name": name_of(i),
            "namespace": namespace_of(i),
            "uid": format!("6b1f0c2e-9d7a-4c55-8e0b-{i:012x}"),
            "resourceVersion": RV_PLACEHOLDER,
            "generation": 1,
            "creationTimestamp": time,
            "labels": { "app": "bench", "shard": (i % 7).to_string() },
            "finalizers": [controller::vm::FINALIZER],
            "managedFields": [
                {
                    "manager": "kubectl-client-side-apply", "operation": "Update",
                    "apiVersion": "cloudnative.tw/v1alpha1", "time": time, "fieldsType": "FieldsV1",
                    "fieldsV1": { "f:spec": { ".": {}, "f:resource": { ".": {}, "f:cpu": {}, "f:memory": {} } } },
                },
                {
                    "manager": "controller", "operation": "Update",
                    "apiVersion": "cloudnative.tw/v1alpha1", "time": TIME_PLACEHOLDER, "fieldsType": "FieldsV1",
                    "fieldsV1": { "f:metadata": { "f:finalizers": { ".": {}, "v:\"finalizer.cloudnative.tw\"": {} } },
                        "f:status": { ".": {}, "f:lastUpdateTime": {}, "f:phase": {}, "f:server": { ".": {}, "f:id": {}, "f:state": {}, "f:usage": {} } } },
                },
            ],
        },
        "spec": { "action": "active", "resource": { "cpu": "1", "memory": "4G", "rootDisk": "40Gi" } },
        "status": {
            "phase": "Active",
            "reason": "",
            "server": {
                "id": format!("srv-{i:012x}"),
                "state": "ACTIVE",
                "usage": { "cpu": (i % 100) as f64 + 0.5, "memory": (i % 64) as f64 + 0.25 },
            },
            "lastUpdateTime": TIME_PLACEHOLDER,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_object_should_be_about_a_kilobyte_and_decode_as_a_virtual_machine() {
        let catalog = Catalog::new(3, Some(0), true);
        let mut text = Vec::new();
        catalog.write_object(&mut text, 2, 42);
        assert!((900..1300).contains(&text.len()), "{} bytes", text.len());
        let vm: generated_example::apis::cloudnative::v1alpha1::VirtualMachine = serde_json::from_slice(&text).unwrap();
        assert_eq!(vm.metadata.resource_version.as_deref(), Some("42"));
        assert_eq!(vm.metadata.namespace.as_deref(), Some("bench-02"));
    }

    #[test]
    fn pages_should_chain_by_continue_tokens_and_events_should_follow_the_list() {
        let catalog = Catalog::new(5, Some(3), true);
        let page: serde_json::Value = serde_json::from_slice(&catalog.page(3, 2)).unwrap();
        assert_eq!(page["items"].as_array().unwrap().len(), 2);
        assert!(page["metadata"].get("continue").is_none(), "the last page");
        let page: serde_json::Value = serde_json::from_slice(&catalog.page(0, 2)).unwrap();
        assert_eq!(page["metadata"]["continue"], "2");
        assert_eq!(page["metadata"]["resourceVersion"], "5");
        let mut event = Vec::new();
        catalog.write_event(&mut event, 6);
        let event: serde_json::Value = serde_json::from_slice(&event).unwrap();
        assert_eq!(event["object"]["metadata"]["name"], "vm-0000001");
        assert_eq!(event["object"]["metadata"]["resourceVersion"], "12");
        let mut initial = Vec::new();
        let mut cursor = Some(Cursor::Added(0));
        while let Some(at) = cursor {
            cursor = catalog.write_next(&mut initial, at, 1);
        }
        let lines: Vec<serde_json::Value> = initial
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 7, "5 added, a bookmark, 1 modified");
        assert_eq!(lines[5]["type"], "BOOKMARK");
        assert_eq!(lines[6]["object"]["metadata"]["resourceVersion"], "6");
    }

    #[test]
    fn an_event_should_update_the_status_time_and_the_controllers_entry_only() {
        let catalog = Catalog::new(2, Some(4), true);
        let (mut listed, mut modified) = (Vec::new(), Vec::new());
        catalog.write_object(&mut listed, 1, 2);
        catalog.write_event(&mut modified, 3);
        let listed: serde_json::Value = serde_json::from_slice(&listed).unwrap();
        let modified: serde_json::Value = serde_json::from_slice(&modified).unwrap();
        let modified = &modified["object"];
        assert_eq!(listed["status"]["lastUpdateTime"], "2026-11-23T10:00:02Z");
        assert_eq!(modified["status"]["lastUpdateTime"], "2026-11-23T10:00:06Z");
        let (before, after) = (
            &listed["metadata"]["managedFields"],
            &modified["metadata"]["managedFields"],
        );
        assert_eq!(before[0], after[0], "kubectl's entry is as it was");
        assert_eq!(
            before[1]["fieldsV1"], after[1]["fieldsV1"],
            "the controller owns the same fields"
        );
        assert_eq!(after[1]["time"], "2026-11-23T10:00:06Z");
        let vm: generated_example::apis::cloudnative::v1alpha1::VirtualMachine =
            serde_json::from_value(modified.clone()).unwrap();
        assert_eq!(vm.metadata.resource_version.as_deref(), Some("6"));
        let without = Catalog::new(1, Some(1), false);
        assert_eq!(without.slots, [Slot::ResourceVersion, Slot::UpdateTime]);
    }
}
