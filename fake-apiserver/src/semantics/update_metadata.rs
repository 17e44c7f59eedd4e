//! How often an update's validation reports a bad label, annotation, owner reference or
//! finalizer: `rest.BeforeUpdate`'s `validateCommonFields` (`staging/src/k8s.io/apiserver/pkg/registry/rest/update.go`)
//! checks labels, annotations and owner references twice (`ValidateObjectMetaAccessor`, then
//! `ValidateObjectMetaAccessorUpdate`) and finalizer names once (the first only), and each
//! `ValidateObjectMeta` or `ValidateObjectMetaUpdate` of the strategy's `ValidateUpdate` once
//! more; core's two (`pkg/apis/core/validation`) add `validateKubeFinalizerName`, and only the
//! create's checks finalizer names. Each check is a cause of its own; the message lists the text
//! once.
//!
//! Counted for the kinds whose strategies are read for it; the others report each cause once.

use crate::storage::resource::ResourceInfo;

/// The fields `ValidateObjectMetaAccessorUpdate` checks again.
const RECHECKED: [&str; 3] = ["metadata.labels", "metadata.annotations", "metadata.ownerReferences"];

/// The metadata validations of the strategy's `ValidateUpdate` of `info` through `subresource`,
/// when known: how many `ValidateObjectMetaUpdate` and how many `ValidateObjectMeta`.
fn checks(info: &ResourceInfo, subresource: Option<&str>) -> Option<(usize, usize)> {
    Some(match (info.group.as_str(), info.kind.as_str(), subresource) {
        // `ValidatePodDisruptionBudget` and its status validation check no metadata.
        ("policy", "PodDisruptionBudget", _) => (0, 0),
        // `ValidateIngressStatusUpdate`: `ValidateObjectMetaUpdate`.
        ("networking.k8s.io", "Ingress", Some("status")) => (1, 0),
        // `ValidatePriorityClassUpdate`: `ValidateObjectMetaUpdate`.
        ("scheduling.k8s.io", "PriorityClass", None) => (1, 0),
        // `ValidateRuntimeClass` then `ValidateRuntimeClassUpdate`.
        ("node.k8s.io", "RuntimeClass", None) => (1, 1),
        // Their update validation is `ValidateObjectMetaUpdate` plus the create validation's
        // `ValidateObjectMeta`.
        ("networking.k8s.io", "NetworkPolicy" | "Ingress" | "IngressClass", None) => (1, 1),
        // `ValidateHorizontalPodAutoscalerUpdate` and its status validation:
        // `ValidateObjectMetaUpdate`.
        ("autoscaling", "HorizontalPodAutoscaler", _) => (1, 0),
        // `ValidateConfigMapUpdate`, `ValidateSecretUpdate`, `ValidateServiceAccountUpdate`:
        // `ValidateObjectMetaUpdate`, then the create validation's `ValidateObjectMeta`.
        ("", "ConfigMap" | "Secret" | "ServiceAccount", None) => (1, 1),
        // `ValidateEndpointSliceUpdate`: the create validation's `ValidateObjectMeta`.
        ("discovery.k8s.io", "EndpointSlice", None) => (0, 1),
        _ => return None,
    })
}

/// How many times the update reports a cause of `field`.
fn times(field: &str, (updates, creates): (usize, usize)) -> usize {
    if RECHECKED.contains(&field) {
        2 + updates + creates
    } else if field == "metadata.finalizers" {
        1 + creates
    } else if field.starts_with("metadata.finalizers[") {
        updates + creates
    } else {
        1
    }
}

/// `causes` (the object metadata's, each once) repeated, or left out, as the update's
/// validation reports them.
pub(crate) fn repeated(
    info: &ResourceInfo,
    subresource: Option<&str>,
    causes: Vec<(String, String)>,
) -> Vec<(String, String)> {
    let Some(checks) = checks(info, subresource) else {
        return causes;
    };
    let counted: Vec<(usize, (String, String))> = causes.into_iter().map(|c| (times(&c.0, checks), c)).collect();
    let rounds = counted.iter().map(|(n, _)| *n).max().unwrap_or_default();
    (0..rounds)
        .flat_map(|round| {
            counted
                .iter()
                .filter(move |(n, _)| *n > round)
                .map(|(_, cause)| cause.clone())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_causes_should_repeat_as_the_strategy_checks_them() {
        let causes = vec![
            ("metadata.name".to_owned(), "bad".to_owned()),
            ("metadata.labels".to_owned(), "bad".to_owned()),
        ];
        let pdb = ResourceInfo::builtin("policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets");
        assert_eq!(repeated(&pdb, None, causes.clone()).len(), 3);
        let policies = ResourceInfo::builtin("networking.k8s.io", "v1", "NetworkPolicy", "networkpolicies");
        assert_eq!(repeated(&policies, None, causes.clone()).len(), 5);
        let maps = ResourceInfo::builtin("", "v1", "ConfigMap", "configmaps");
        assert_eq!(repeated(&maps, None, causes.clone()).len(), 5);
        let unread = ResourceInfo::builtin("", "v1", "Namespace", "namespaces");
        assert_eq!(repeated(&unread, None, causes.clone()), causes);
    }
}
