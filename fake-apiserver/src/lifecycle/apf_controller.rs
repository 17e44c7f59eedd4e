//! The status side of kube-apiserver's API Priority and Fairness configuration controller
//! (`staging/src/k8s.io/apiserver/pkg/util/flowcontrol/apf_controller.go`): whenever a
//! FlowSchema or PriorityLevelConfiguration is written or removed, the controller digests the
//! whole configuration again (`digestConfigObjects`) and gives every FlowSchema whose
//! `Dangling` condition is not what it should be a new one (`presyncFlowSchemaStatus`):
//! `True`, reason `NotFound`, when no PriorityLevelConfiguration of the name it references
//! exists (`FoundToDangling` is `!found` in kube-apiserver), `False`, reason `Found`,
//! otherwise, each with its message and the time of the write as its transition time. The
//! condition is written by server-side apply of `/status`, forced, through the version the
//! server's own client speaks, as `api-priority-and-fairness-config-consumer-v1`.
//!
//! Not emulated: the request dispatching the configuration drives, the rate limit on updates
//! of one FlowSchema (more than five a minute wait 30–75 s), and priority levels the
//! controller ignores for a broken queuing configuration (validation refuses those).

use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::{Value, json};

use crate::lifecycle::writes::Writes;
use crate::semantics::flowcontrol_bootstrap::producer_version;
use crate::semantics::flowcontrol_conversion::{self, GROUP};
use crate::storage::State;
use crate::storage::object;
use crate::storage::resource::ResourceInfo;

/// `ConfigConsumerAsFieldManager`.
const MANAGER: &str = "api-priority-and-fairness-config-consumer-v1";

/// `flowcontrol.FlowSchemaConditionDangling`.
const DANGLING: &str = "Dangling";

/// Whether a write to `info` changes the configuration the controller digests.
pub(super) fn concerns(info: &ResourceInfo) -> bool {
    flowcontrol_conversion::concerns(info)
        && matches!(info.plural.as_str(), "flowschemas" | "prioritylevelconfigurations")
}

/// The `Dangling` condition a FlowSchema referencing `level` should carry: status, reason and
/// message.
fn desired(level: &str, exists: bool) -> (&'static str, &'static str, String) {
    let quoted = crate::semantics::field_error::go_quote(level);
    if exists {
        (
            "False",
            "Found",
            format!("This FlowSchema references the PriorityLevelConfiguration object named {quoted} and it exists"),
        )
    } else {
        (
            "True",
            "NotFound",
            format!(
                "This FlowSchema references the PriorityLevelConfiguration object named {quoted} but there is no such object"
            ),
        )
    }
}

/// Whether `condition` (a FlowSchema's `Dangling` condition, if any) already says `wanted`.
fn says(condition: Option<&Value>, wanted: &(&str, &str, String)) -> bool {
    let field = |key: &str| {
        condition
            .and_then(|c| c.get(key))
            .and_then(Value::as_str)
            .unwrap_or_default()
    };
    field("status") == wanted.0 && field("reason") == wanted.1 && field("message") == wanted.2
}

/// `digestConfigObjects`: brings every FlowSchema's `Dangling` condition up to date.
pub(super) fn sync(state: &mut State) {
    let version = producer_version(state.options.minor());
    let (Some(schemas), Some(levels)) = (
        state.registry.find(GROUP, version, "flowschemas").cloned(),
        state
            .registry
            .find(GROUP, version, "prioritylevelconfigurations")
            .cloned(),
    ) else {
        return;
    };
    let existing: BTreeSet<String> = state
        .store
        .iter(&levels.storage_key(), None)
        .map(|(_, level)| object::name(level).to_owned())
        .collect();
    let stored: Vec<Arc<Value>> = state
        .store
        .iter(&schemas.storage_key(), None)
        .map(|(_, schema)| schema.clone())
        .collect();
    for schema in stored {
        let level = schema
            .pointer("/spec/priorityLevelConfiguration/name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let wanted = desired(level, existing.contains(level));
        let conditions = schema.pointer("/status/conditions").and_then(Value::as_array);
        let current = conditions
            .into_iter()
            .flatten()
            .find(|c| c.get("type").and_then(Value::as_str) == Some(DANGLING));
        if says(current, &wanted) {
            continue;
        }
        let name = object::name(&schema).to_owned();
        let (status, reason, message) = wanted;
        let config = json!({
            "apiVersion": schemas.api_version(),
            "kind": "FlowSchema",
            "metadata": { "name": name },
            "status": { "conditions": [{
                "type": DANGLING,
                "status": status,
                "lastTransitionTime": object::now(),
                "reason": reason,
                "message": message,
            }] },
        });
        // A schema deleted meanwhile needs nothing more (its removal queues a new digest).
        if let Err(status) = state.apply_object(&schemas, None, &name, config, MANAGER, Some("status")) {
            tracing::warn!(flow_schema = name, %status, "could not write the Dangling condition");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_condition_should_say_whether_the_level_exists() {
        let found = desired("fc-pl", true);
        assert_eq!((found.0, found.1), ("False", "Found"));
        assert_eq!(
            found.2,
            "This FlowSchema references the PriorityLevelConfiguration object named \"fc-pl\" and it exists"
        );
        let missing = desired("nowhere", false);
        assert_eq!((missing.0, missing.1), ("True", "NotFound"));
        assert!(missing.2.ends_with("named \"nowhere\" but there is no such object"));
    }

    #[test]
    fn only_a_condition_that_differs_should_be_written_again() {
        let wanted = desired("p", true);
        let current = json!({"type": "Dangling", "status": "False", "reason": "Found", "message": wanted.2.clone(),
                             "lastTransitionTime": "2024-01-01T00:00:00Z"});
        assert!(says(Some(&current), &wanted));
        assert!(!says(Some(&current), &desired("p", false)));
        assert!(!says(None, &wanted));
    }
}
