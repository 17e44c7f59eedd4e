//! How often an update's validation reports a bad label, annotation or owner reference:
//! `rest.BeforeUpdate`'s `validateCommonFields` (`staging/src/k8s.io/apiserver/pkg/registry/rest/update.go`)
//! checks them twice (`ValidateObjectMetaAccessor`, then `ValidateObjectMetaAccessorUpdate`),
//! and each `ValidateObjectMeta` or `ValidateObjectMetaUpdate` of the strategy's `ValidateUpdate`
//! once more. Each check is a cause of its own; the message lists the text once.
//!
//! Counted for the kinds whose strategies are read for it; the others report each cause once.

use crate::storage::resource::ResourceInfo;

/// The fields `ValidateObjectMetaAccessorUpdate` checks again.
const RECHECKED: [&str; 3] = ["metadata.labels", "metadata.annotations", "metadata.ownerReferences"];

/// How many times an update of `info` through `subresource` checks the re-checked fields, when
/// known.
fn checks(info: &ResourceInfo, subresource: Option<&str>) -> Option<usize> {
    let common = 2;
    let strategy = match (info.group.as_str(), info.kind.as_str(), subresource) {
        // `ValidatePodDisruptionBudget` and its status validation check no metadata.
        ("policy", "PodDisruptionBudget", _) => 0,
        // `ValidateIngressStatusUpdate`: `ValidateObjectMetaUpdate`.
        ("networking.k8s.io", "Ingress", Some("status")) => 1,
        // `ValidatePriorityClassUpdate`: `ValidateObjectMetaUpdate`.
        ("scheduling.k8s.io", "PriorityClass", None) => 1,
        // `ValidateRuntimeClass` then `ValidateRuntimeClassUpdate`.
        ("node.k8s.io", "RuntimeClass", None) => 2,
        // Their update validation is `ValidateObjectMetaUpdate` plus the create validation's
        // `ValidateObjectMeta`.
        ("networking.k8s.io", "NetworkPolicy" | "Ingress" | "IngressClass", None) => 2,
        // `ValidateHorizontalPodAutoscalerUpdate` and its status validation:
        // `ValidateObjectMetaUpdate`.
        ("autoscaling", "HorizontalPodAutoscaler", _) => 1,
        // `ValidateConfigMapUpdate`, `ValidateSecretUpdate`, `ValidateServiceAccountUpdate`:
        // `ValidateObjectMetaUpdate`, then the create validation's `ValidateObjectMeta`.
        ("", "ConfigMap" | "Secret" | "ServiceAccount", None) => 2,
        // `ValidateEndpointSliceUpdate`: the create validation's `ValidateObjectMeta`.
        ("discovery.k8s.io", "EndpointSlice", None) => 1,
        _ => return None,
    };
    Some(common + strategy)
}

/// `causes` (the object metadata's, each once) with the re-checked ones repeated as the update's
/// validation repeats them.
pub(crate) fn repeated(
    info: &ResourceInfo,
    subresource: Option<&str>,
    causes: Vec<(String, String)>,
) -> Vec<(String, String)> {
    let Some(checks) = checks(info, subresource) else {
        return causes;
    };
    let again: Vec<(String, String)> = causes
        .iter()
        .filter(|(field, _)| RECHECKED.contains(&field.as_str()))
        .cloned()
        .collect();
    let mut all = causes;
    for _ in 1..checks {
        all.extend(again.iter().cloned());
    }
    all
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
