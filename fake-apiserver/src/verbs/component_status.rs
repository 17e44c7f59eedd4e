//! `componentstatuses`: kube-apiserver's health of the control plane's components, computed on
//! every read and never stored (`pkg/registry/core/componentstatus/rest.go`, with the servers
//! `pkg/controlplane/instance.go` probes). This server stands for a control plane whose etcd and
//! kube-controller-manager answer and whose scheduler does not run (there are no nodes to
//! schedule to): the scheduler is reported unhealthy with the dial error kube-apiserver's probe
//! gets when nothing listens on the scheduler's port.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::status::ApiStatus;
use crate::storage::resource::ResourceInfo;
use crate::verbs::options::Query;
use crate::verbs::read::{Filter, ListPage};

/// The probed components in kube-apiserver's list, with whether each answers and what it said.
const COMPONENTS: &[(&str, bool, &str)] = &[
    (
        "scheduler",
        false,
        "Get \"https://127.0.0.1:10259/healthz\": dial tcp 127.0.0.1:10259: connect: connection refused",
    ),
    ("etcd-0", true, "ok"),
    ("controller-manager", true, "ok"),
];

/// Whether `info` is the computed `componentstatuses` resource.
pub(crate) fn concerns(info: &ResourceInfo) -> bool {
    info.builtin && info.group.is_empty() && info.plural == "componentstatuses"
}

/// One component's status as the REST handler builds it: a name, no other metadata, and one
/// `Healthy` condition (`creationTimestamp` is written null, as Go writes a zero `metav1.Time`).
fn status(name: &str, healthy: bool, message: &str) -> Value {
    json!({
        "kind": "ComponentStatus",
        "apiVersion": "v1",
        "metadata": { "name": name, "creationTimestamp": null },
        "conditions": [{
            "type": "Healthy",
            "status": if healthy { "True" } else { "False" },
            "message": message,
        }],
    })
}

/// GET of one component. An unknown one is an error the REST handler does not convert: a 500
/// without a reason.
pub(crate) fn get(name: &str) -> Result<Arc<Value>, ApiStatus> {
    COMPONENTS
        .iter()
        .find(|(component, _, _)| *component == name)
        .map(|(component, healthy, message)| Arc::new(status(component, *healthy, message)))
        .ok_or_else(|| ApiStatus::new(500, "", format!("Component not found: {name}")))
}

/// The list, filtered by the label and field selectors (metadata fields only); it has no
/// resourceVersion, since nothing is stored.
pub(crate) fn list(info: &ResourceInfo, query: &Query) -> Result<ListPage, ApiStatus> {
    let filter = Filter::from_query(info, query)?;
    let items = COMPONENTS
        .iter()
        .map(|(name, healthy, message)| status(name, *healthy, message))
        .filter(|status| filter.matches(status))
        .map(Arc::new)
        .collect();
    Ok(ListPage {
        items,
        resource_version: None,
        continue_token: None,
        remaining: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_should_be_probed_by_name() {
        assert_eq!(get("etcd-0").unwrap()["conditions"][0]["status"], "True");
        assert_eq!(get("scheduler").unwrap()["conditions"][0]["status"], "False");
        let unknown = get("nope").unwrap_err();
        assert_eq!((unknown.code, unknown.reason.as_str()), (500, ""));
    }
}
