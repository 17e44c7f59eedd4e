//! Events the controllers record about the objects they act on, as client-go's event recorder
//! writes them (`tools/record/event.go`): a core/v1 Event named after the object and a unique
//! suffix, in its namespace (`default` for a cluster-scoped one).

use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use crate::lifecycle::writes::Writes;
use crate::storage::State;
use crate::storage::key::ObjectKey;
use crate::storage::object;
use crate::storage::resource::ResourceInfo;

/// Records a Warning event about `subject` (of `info`) from `component`.
pub(super) fn warn(
    state: &mut State,
    info: &ResourceInfo,
    subject: &Value,
    reason: &str,
    message: &str,
    component: &str,
) {
    record(state, info, subject, "Warning", reason, message, component);
}

/// Records an event of `kind` (`Normal`, `Warning`) about `subject` (of `info`) from
/// `component`. The same event again only counts once more and moves its last timestamp, as
/// the recorder's correlator aggregates it (`events_cache.go`, `eventLogger`).
pub(super) fn record(
    state: &mut State,
    info: &ResourceInfo,
    subject: &Value,
    kind: &str,
    reason: &str,
    message: &str,
    component: &str,
) {
    let mut involved = json!({
        "kind": info.kind,
        "name": object::name(subject),
        "uid": object::uid(subject),
        "apiVersion": info.api_version(),
    });
    if info.namespaced {
        involved["namespace"] = json!(object::namespace(subject));
    }
    record_about(state, involved, kind, reason, message, component);
}

/// Records an event about the object `involved` refers to (an `ObjectReference`, as a
/// controller built it: some only name the kind, namespace and name).
pub(super) fn record_about(
    state: &mut State,
    involved: Value,
    kind: &str,
    reason: &str,
    message: &str,
    component: &str,
) {
    let name = object::text(involved.get("name")).to_owned();
    let namespace = match object::text(involved.get("namespace")) {
        "" => "default".to_owned(),
        namespace => namespace.to_owned(),
    };
    // The recorder's names end in the hex of the time in nanoseconds.
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let now = object::now();
    let event = json!({
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": { "name": format!("{name}.{nanos:x}"), "namespace": namespace },
        "involvedObject": involved,
        "reason": reason,
        "message": message,
        "source": { "component": component },
        "firstTimestamp": now,
        "lastTimestamp": now,
        "count": 1,
        "type": kind,
        "reportingComponent": component,
        "reportingInstance": "",
    });
    let events = state.info("", "v1", "events");
    let same = |stored: &Value| {
        ["involvedObject", "reason", "message", "type", "source"]
            .iter()
            .all(|key| stored.get(*key) == event.get(*key))
    };
    // The correlator only aggregates what this recorder wrote, all named `<subject>.<hex>`: the
    // search starts there rather than at every event of the namespace.
    let prefix = format!("{name}.");
    let seen = state
        .store
        .iter_after(
            &events.storage_key(),
            Some(&namespace),
            Some(&ObjectKey::new(&namespace, &prefix)),
        )
        .take_while(|(key, _)| key.name.starts_with(&prefix))
        .map(|(_, stored)| stored)
        .find(|stored| same(stored))
        .cloned();
    let written = match seen {
        Some(stored) => {
            let mut counted = (*stored).clone();
            counted["count"] = json!(stored.get("count").and_then(Value::as_i64).unwrap_or(1) + 1);
            counted["lastTimestamp"] = json!(now);
            state.update_object(&events, stored, counted, Some("kube-controller-manager"), None)
        }
        None => state.create_object(&events, Some(&namespace), event, Some("kube-controller-manager")),
    };
    if let Err(status) = written {
        tracing::warn!(%status, reason, "could not record an event");
    }
}
