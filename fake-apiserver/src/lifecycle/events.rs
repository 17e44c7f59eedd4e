//! Events the controllers record about the objects they act on, as client-go's event recorder
//! writes them (`tools/record/event.go`): a core/v1 Event named after the object and a unique
//! suffix, in its namespace (`default` for a cluster-scoped one).

use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use crate::lifecycle::writes::Writes;
use crate::storage::State;
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
    let namespace = if info.namespaced {
        object::namespace(subject).to_owned()
    } else {
        "default".to_owned()
    };
    // The recorder's names end in the hex of the time in nanoseconds.
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let mut involved = json!({
        "kind": info.kind,
        "name": object::name(subject),
        "uid": object::uid(subject),
        "apiVersion": info.api_version(),
    });
    if info.namespaced {
        involved["namespace"] = json!(namespace);
    }
    let now = object::now();
    let event = json!({
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": { "name": format!("{}.{nanos:x}", object::name(subject)), "namespace": namespace },
        "involvedObject": involved,
        "reason": reason,
        "message": message,
        "source": { "component": component },
        "firstTimestamp": now,
        "lastTimestamp": now,
        "count": 1,
        "type": "Warning",
        "reportingComponent": component,
        "reportingInstance": "",
    });
    let events = state.info("", "v1", "events");
    if let Err(status) = state.create_object(&events, Some(&namespace), event, Some("kube-controller-manager")) {
        tracing::warn!(%status, reason, "could not record an event");
    }
}
