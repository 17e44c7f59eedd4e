//! The built-in rows of the resource table.

use crate::storage::resource::{Lifecycle, ResourceInfo};
use crate::storage::verb::Verb;

impl ResourceInfo {
    /// Whether the resource's objects are stored: the computed ones (component statuses,
    /// bindings, token, access and self reviews) have no storage version, so discovery lists no `storageVersionHash`
    /// for them.
    pub fn is_stored(&self) -> bool {
        let computed = match self.group.as_str() {
            "" => matches!(self.plural.as_str(), "componentstatuses" | "bindings"),
            "authentication.k8s.io" | "authorization.k8s.io" => true,
            _ => false,
        };
        !(self.builtin && computed)
    }
}

impl ResourceInfo {
    /// Whether a create keeps the status it was sent: a node registers with its status (the
    /// other strategies reset it in `PrepareForCreate`). A claim's and a volume's strategies
    /// reset their own to phase `Pending` (`semantics/claim_strategy.rs`, `volume_strategy.rs`).
    pub(crate) fn create_keeps_status(&self) -> bool {
        self.builtin
            && self.group.is_empty()
            && matches!(
                self.kind.as_str(),
                "Node" | "PersistentVolumeClaim" | "PersistentVolume"
            )
    }

    /// Whether a PUT of a missing object creates it (`AllowCreateOnUpdate`), among the kinds
    /// whose strategies are ported with it: RuntimeClasses.
    pub(crate) fn creates_on_update(&self) -> bool {
        self.builtin && self.group == "node.k8s.io" && self.kind == "RuntimeClass"
    }

    /// Sets kubectl categories (`all` for what `kubectl get all` shows).
    fn with_categories(mut self, categories: &[&str]) -> Self {
        self.categories = categories.iter().map(|c| (*c).to_owned()).collect();
        self
    }

    /// The propagation policy of a delete that names none, when it is not the garbage
    /// collector's default (Background): batch/v1 Jobs and core/v1 ReplicationControllers
    /// orphan their pods, for compatibility (`jobStrategy.DefaultGarbageCollectionPolicy`,
    /// `rcStrategy.DefaultGarbageCollectionPolicy`).
    pub(crate) fn default_propagation(&self) -> Option<&'static str> {
        let orphans = matches!(
            (self.group.as_str(), self.version.as_str(), self.kind.as_str()),
            ("batch", "v1", "Job") | ("", "v1", "ReplicationController")
        );
        (self.builtin && orphans).then_some("Orphan")
    }
}

/// The built-in resources every fake API server of the Kubernetes `minor` serves: what the
/// bundled controllers, leader election, event recording and `kubectl apply -f deploy/` need,
/// and the other kinds ported.
pub(crate) fn builtins(minor: u32) -> Vec<ResourceInfo> {
    let b = ResourceInfo::builtin;
    let endpoint_slices = b("discovery.k8s.io", "v1", "EndpointSlice", "endpointslices").with_generation();
    // Before 1.31 kube-apiserver encodes stored slices as v1beta1 (the storage factory's
    // choice, which discovery's `storageVersionHash` shows); the objects are the same.
    let endpoint_slices = if minor < 31 {
        endpoint_slices.stored_as("discovery.k8s.io/v1beta1")
    } else {
        endpoint_slices
    };
    let mut resources = vec![
        b("", "v1", "Namespace", "namespaces")
            .cluster_scoped()
            .with_status()
            .without_verb(Verb::DeleteCollection)
            .with_lifecycle(Lifecycle::Namespace)
            .with_short_names(&["ns"]),
        b("", "v1", "ConfigMap", "configmaps").with_short_names(&["cm"]),
        b("", "v1", "Secret", "secrets"),
        b("", "v1", "ServiceAccount", "serviceaccounts")
            .returning_deleted_object()
            .with_short_names(&["sa"]),
        ResourceInfo {
            // 1.31's conversion admits a Service's cluster IP and type in field selectors.
            selectable_fields: match minor {
                31.. => vec!["spec.clusterIP".to_owned(), "spec.type".to_owned()],
                _ => Vec::new(),
            },
            ..b("", "v1", "Service", "services")
                .with_categories(&["all"])
                .with_status()
                .returning_deleted_object()
                .with_short_names(&["svc"])
        },
        b("", "v1", "Pod", "pods")
            .with_categories(&["all"])
            .with_status()
            .returning_deleted_object()
            .with_short_names(&["po"]),
        b("", "v1", "Event", "events").with_short_names(&["ev"]),
        // A pod's binding to a node, created through the collection as through `pods/binding`.
        ResourceInfo {
            verbs: vec![Verb::Create],
            ..b("", "v1", "Binding", "bindings")
        },
        b("", "v1", "Endpoints", "endpoints").with_short_names(&["ep"]),
        b("", "v1", "PersistentVolumeClaim", "persistentvolumeclaims")
            .with_status()
            .with_short_names(&["pvc"]),
        b("", "v1", "PodTemplate", "podtemplates").with_generation(),
        b("", "v1", "ReplicationController", "replicationcontrollers")
            .with_categories(&["all"])
            .with_status()
            .with_generation()
            .with_scale(Some(".spec.selector"))
            .with_short_names(&["rc"]),
        b("", "v1", "ResourceQuota", "resourcequotas")
            .with_status()
            .with_short_names(&["quota"]),
        b("", "v1", "LimitRange", "limitranges").with_short_names(&["limits"]),
        b("", "v1", "PersistentVolume", "persistentvolumes")
            .cluster_scoped()
            .with_status()
            .with_short_names(&["pv"]),
        b("", "v1", "Node", "nodes")
            .cluster_scoped()
            .with_status()
            .with_short_names(&["no"]),
        ResourceInfo {
            verbs: vec![Verb::Get, Verb::List],
            deprecation_warning: Some("v1 ComponentStatus is deprecated in v1.19+".to_owned()),
            ..b("", "v1", "ComponentStatus", "componentstatuses")
                .cluster_scoped()
                .with_short_names(&["cs"])
        },
        b("apps", "v1", "Deployment", "deployments")
            .with_categories(&["all"])
            .with_status()
            .with_generation()
            .with_scale(Some(".spec.selector"))
            .with_short_names(&["deploy"]),
        b("apps", "v1", "ReplicaSet", "replicasets")
            .with_categories(&["all"])
            .with_status()
            .with_generation()
            .with_scale(Some(".spec.selector"))
            .with_short_names(&["rs"]),
        b("apps", "v1", "StatefulSet", "statefulsets")
            .with_categories(&["all"])
            .with_status()
            .with_generation()
            .with_scale(Some(".spec.selector"))
            .with_short_names(&["sts"]),
        b("apps", "v1", "DaemonSet", "daemonsets")
            .with_categories(&["all"])
            .with_status()
            .with_generation()
            .with_short_names(&["ds"]),
        b("apps", "v1", "ControllerRevision", "controllerrevisions"),
        ResourceInfo {
            categories: vec!["all".to_owned()],
            ..b("batch", "v1", "Job", "jobs").with_status().with_generation()
        },
        // One store, kept as autoscaling/v2 (the storage version); v1 shows it converted.
        b(
            "autoscaling",
            "v2",
            "HorizontalPodAutoscaler",
            "horizontalpodautoscalers",
        )
        .with_categories(&["all"])
        .with_status()
        .with_short_names(&["hpa"]),
        b(
            "autoscaling",
            "v1",
            "HorizontalPodAutoscaler",
            "horizontalpodautoscalers",
        )
        .stored_as("autoscaling/v2")
        .with_categories(&["all"])
        .with_status()
        .with_short_names(&["hpa"]),
        b("batch", "v1", "CronJob", "cronjobs")
            .with_categories(&["all"])
            .with_status()
            .with_generation()
            .with_short_names(&["cj"]),
        b(
            "certificates.k8s.io",
            "v1",
            "CertificateSigningRequest",
            "certificatesigningrequests",
        )
        .cluster_scoped()
        .with_status()
        .with_short_names(&["csr"]),
        // One store with the core Events, seen through the events.k8s.io field names.
        b("events.k8s.io", "v1", "Event", "events")
            .stored_as("v1")
            .with_short_names(&["ev"]),
        b("coordination.k8s.io", "v1", "Lease", "leases"),
        b("policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets")
            .with_status()
            .with_generation()
            .conditional_updates_only()
            .with_short_names(&["pdb"]),
        endpoint_slices,
        b("node.k8s.io", "v1", "RuntimeClass", "runtimeclasses")
            .cluster_scoped()
            .conditional_updates_only(),
        b("scheduling.k8s.io", "v1", "PriorityClass", "priorityclasses")
            .cluster_scoped()
            .with_generation()
            .with_short_names(&["pc"]),
        b("networking.k8s.io", "v1", "Ingress", "ingresses")
            .with_status()
            .with_generation()
            .with_short_names(&["ing"]),
        b("networking.k8s.io", "v1", "IngressClass", "ingressclasses")
            .cluster_scoped()
            .with_generation(),
        b("networking.k8s.io", "v1", "NetworkPolicy", "networkpolicies")
            .with_generation()
            .with_short_names(&["netpol"]),
        b("storage.k8s.io", "v1", "StorageClass", "storageclasses")
            .cluster_scoped()
            .with_short_names(&["sc"]),
        b("storage.k8s.io", "v1", "CSIDriver", "csidrivers").cluster_scoped(),
        b("storage.k8s.io", "v1", "CSINode", "csinodes").cluster_scoped(),
        b("storage.k8s.io", "v1", "CSIStorageCapacity", "csistoragecapacities"),
        b("storage.k8s.io", "v1", "VolumeAttachment", "volumeattachments")
            .cluster_scoped()
            .with_status()
            .conditional_updates_only()
            .returning_deleted_object(),
        ResourceInfo {
            verbs: vec![Verb::Create],
            ..b("authentication.k8s.io", "v1", "TokenReview", "tokenreviews").cluster_scoped()
        },
        ResourceInfo {
            verbs: vec![Verb::Create],
            ..b("authentication.k8s.io", "v1", "SelfSubjectReview", "selfsubjectreviews").cluster_scoped()
        },
        ResourceInfo {
            verbs: vec![Verb::Create],
            ..b(
                "authorization.k8s.io",
                "v1",
                "SubjectAccessReview",
                "subjectaccessreviews",
            )
            .cluster_scoped()
        },
        ResourceInfo {
            verbs: vec![Verb::Create],
            ..b(
                "authorization.k8s.io",
                "v1",
                "SelfSubjectAccessReview",
                "selfsubjectaccessreviews",
            )
            .cluster_scoped()
        },
        ResourceInfo {
            verbs: vec![Verb::Create],
            ..b(
                "authorization.k8s.io",
                "v1",
                "SelfSubjectRulesReview",
                "selfsubjectrulesreviews",
            )
            .cluster_scoped()
        },
        ResourceInfo {
            verbs: vec![Verb::Create],
            ..b(
                "authorization.k8s.io",
                "v1",
                "LocalSubjectAccessReview",
                "localsubjectaccessreviews",
            )
        },
        ResourceInfo {
            categories: vec!["api-extensions".to_owned()],
            ..b("apiregistration.k8s.io", "v1", "APIService", "apiservices")
                .cluster_scoped()
                .with_status()
                .conditional_updates_only()
                .with_categories(&["api-extensions"])
        },
        // Registered only: this server calls no webhooks.
        b(
            "admissionregistration.k8s.io",
            "v1",
            "ValidatingWebhookConfiguration",
            "validatingwebhookconfigurations",
        )
        .cluster_scoped()
        .with_generation()
        .with_categories(&["api-extensions"]),
        b(
            "admissionregistration.k8s.io",
            "v1",
            "MutatingWebhookConfiguration",
            "mutatingwebhookconfigurations",
        )
        .cluster_scoped()
        .with_generation()
        .with_categories(&["api-extensions"]),
        b("rbac.authorization.k8s.io", "v1", "ClusterRole", "clusterroles").cluster_scoped(),
        b(
            "rbac.authorization.k8s.io",
            "v1",
            "ClusterRoleBinding",
            "clusterrolebindings",
        )
        .cluster_scoped(),
        b("rbac.authorization.k8s.io", "v1", "Role", "roles"),
        b("rbac.authorization.k8s.io", "v1", "RoleBinding", "rolebindings"),
        b(
            "apiextensions.k8s.io",
            "v1",
            "CustomResourceDefinition",
            "customresourcedefinitions",
        )
        .cluster_scoped()
        .with_status()
        .with_generation()
        .returning_deleted_object()
        .with_lifecycle(Lifecycle::CustomResourceDefinition)
        .conditional_updates_only()
        .with_short_names(&["crd", "crds"])
        .with_categories(&["api-extensions"]),
    ];
    resources.extend(flowcontrol(minor));
    resources.extend(admission_policies(minor));
    resources
}

/// ValidatingAdmissionPolicies and their bindings, served (as v1 alone, by default) from 1.30
/// (`pkg/registry/admissionregistration/rest/storage_apiserver.go`, with the versions
/// `pkg/controlplane/instance.go` enables by default): cluster-scoped, the policy with its
/// status, both in `api-extensions` and without short names.
fn admission_policies(minor: u32) -> Vec<ResourceInfo> {
    if minor < 30 {
        return Vec::new();
    }
    const GROUP: &str = "admissionregistration.k8s.io";
    let policies =
        ResourceInfo::builtin(GROUP, "v1", "ValidatingAdmissionPolicy", "validatingadmissionpolicies").with_status();
    let bindings = ResourceInfo::builtin(
        GROUP,
        "v1",
        "ValidatingAdmissionPolicyBinding",
        "validatingadmissionpolicybindings",
    );
    [policies, bindings]
        .into_iter()
        .map(|r| {
            r.cluster_scoped()
                .with_generation()
                .with_categories(&["api-extensions"])
        })
        .collect()
}

/// The `flowcontrol.apiserver.k8s.io` resources of the Kubernetes `minor`, preferred version
/// first (`pkg/registry/flowcontrol/rest/storage_flowcontrol.go`, with the versions its
/// default resource configuration enables): 1.28 stores and prefers v1beta3 and still serves
/// v1beta2; from 1.29 v1 is stored and preferred, v1beta3 served. The older version carries
/// its deprecation warning (`deprecation.WarningMessage` of its `zz_generated.prerelease-lifecycle.go`).
fn flowcontrol(minor: u32) -> Vec<ResourceInfo> {
    const GROUP: &str = "flowcontrol.apiserver.k8s.io";
    // The preferred version, and the older one with the minors it is deprecated and removed in.
    let (preferred, (older, deprecated, removed)) = if minor >= 29 {
        ("v1", ("v1beta3", 29, 32))
    } else {
        ("v1beta3", ("v1beta2", 26, 29))
    };
    let kinds = [
        ("FlowSchema", "flowschemas"),
        ("PriorityLevelConfiguration", "prioritylevelconfigurations"),
    ];
    let resource = |version: &str, kind: &str, plural: &str| {
        ResourceInfo::builtin(GROUP, version, kind, plural)
            .cluster_scoped()
            .with_status()
            .with_generation()
    };
    let current = kinds.iter().map(|(kind, plural)| resource(preferred, kind, plural));
    let previous = kinds.iter().map(|(kind, plural)| ResourceInfo {
        deprecation_warning: Some(format!(
            "{GROUP}/{older} {kind} is deprecated in v1.{deprecated}+, unavailable in v1.{removed}+; use {GROUP}/{preferred} {kind}"
        )),
        ..resource(older, kind, plural).stored_as(&format!("{GROUP}/{preferred}"))
    });
    current.chain(previous).collect()
}
