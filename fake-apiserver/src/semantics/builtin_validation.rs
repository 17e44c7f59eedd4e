//! Validation of built-in kinds beyond metadata, with kube-apiserver's fields and messages
//! (`k8s.io/kubernetes/pkg/apis/*/validation`) for the kinds this server serves.

use serde_json::Value;

use crate::semantics::admission_binding_validation;
use crate::semantics::admission_policy_validation as admission_policies;
use crate::semantics::apiservice_validation;
use crate::semantics::config_validation;
use crate::semantics::controllerrevision_validation as revisions;
use crate::semantics::csi_validation;
use crate::semantics::csr_validation;
use crate::semantics::daemonset_validation;
use crate::semantics::endpoints_validation;
use crate::semantics::endpointslice_validation;
use crate::semantics::field_error::FieldError;
use crate::semantics::hpa_strategy;
use crate::semantics::job_validation::{JobOptions, job_errors};
use crate::semantics::namespace_validation;
use crate::semantics::networkpolicy_validation;
use crate::semantics::node_validation;
use crate::semantics::pdb_validation;
use crate::semantics::priorityclass;
use crate::semantics::pvc_validation::{self, ClaimOptions};
use crate::semantics::rc_validation;
use crate::semantics::runtimeclass;
use crate::semantics::service_validation;
use crate::semantics::statefulset_validation;
use crate::semantics::storage_validation;
use crate::semantics::update_metadata;
use crate::semantics::validation::{metadata_causes, validate_metadata};
use crate::semantics::volume_attachment_validation;
use crate::semantics::webhook_validation as webhooks;
use crate::semantics::{cronjob_strategy, cronjob_validation};
use crate::semantics::{event_validation, lease_validation, rbac_validation, workload_validation};
use crate::semantics::{flowschema_validation, prioritylevel_validation};
use crate::semantics::{ingress_class_validation, ingress_validation};
use crate::semantics::{job_status_validation, job_strategy, job_update_validation};
use crate::semantics::{limitrange_validation, resourcequota_validation};
use crate::semantics::{pod_status_validation, pod_update_validation, pod_validation};
use crate::semantics::{pv_update_validation, pv_validation, pvc_update_validation};
use crate::status::ApiStatus;
use crate::storage::object;
use crate::storage::resource::ResourceInfo;

/// Refuses `object` (replacing `old`, if any, through `subresource`, if any) with 422 Invalid
/// when its metadata or its kind's validation fails, with every cause in one answer as the
/// strategies' `Validate` gives them (object metadata first).
pub(crate) fn check(
    info: &ResourceInfo,
    object: &Value,
    old: Option<&Value>,
    subresource: Option<&str>,
    minor: u32,
) -> Result<(), ApiStatus> {
    if !info.builtin {
        return validate_metadata(info, object);
    }
    cronjob_strategy::refuse_panicking(info, object, subresource)?;
    job_strategy::refuse_panicking(info, object, subresource, minor)?;
    let mut errors = metadata_causes(info, object);
    if old.is_some() {
        errors = update_metadata::repeated(info, subresource, errors);
    }
    let typed = typed_errors(info, object, old, subresource, minor);
    errors.extend(typed.iter().map(|e| (e.field.clone(), e.body())));
    if info.group.is_empty() && info.kind == "Event" && old.is_none() {
        // A core v1 Event's metadata is checked after its strategy, only if that passed.
        errors = match typed.is_empty() {
            true => event_validation::deferred_metadata_causes(object, metadata_causes(info, object)),
            false => typed.iter().map(|e| (e.field.clone(), e.body())).collect(),
        };
    }
    if info.group == "policy" && info.kind == "PodDisruptionBudget" && old.is_none() && !typed.is_empty() {
        // Its strategy validates the spec alone; `rest.BeforeCreate` checks the object
        // metadata only when that passed.
        errors = typed.iter().map(|e| (e.field.clone(), e.body())).collect();
    }
    if errors.is_empty() {
        return Ok(());
    }
    let name = object::name(object);
    // events.k8s.io Events are validated as the core Event they are stored as.
    let group = if info.kind == "Event" { "" } else { info.group.as_str() };
    Err(ApiStatus::invalid_kind(&info.kind, group, name, &errors))
}

/// The checks of the kinds ported with typed field errors.
fn typed_errors(
    info: &ResourceInfo,
    object: &Value,
    old: Option<&Value>,
    subresource: Option<&str>,
    minor: u32,
) -> Vec<FieldError> {
    match (info.group.as_str(), info.kind.as_str(), old) {
        ("", "Node", None) => node_validation::node_errors(object),
        ("", "Node", Some(old)) if subresource == Some("status") => node_validation::node_update_errors(object, old),
        ("", "Node", Some(old)) => {
            let mut errors = node_validation::node_errors(object);
            errors.extend(node_validation::node_update_errors(object, old));
            errors
        }
        ("", "Pod", None) => pod_validation::pod_create_errors(object, minor),
        ("", "Pod", Some(old)) if subresource == Some("ephemeralcontainers") => {
            pod_update_validation::ephemeral_update_errors(object, old, minor)
        }
        ("", "Pod", Some(old)) if subresource == Some("status") => {
            pod_status_validation::pod_status_update_errors(object, old, minor)
        }
        ("", "Pod", Some(old)) => pod_update_validation::pod_update_errors(object, old, minor),
        ("certificates.k8s.io", "CertificateSigningRequest", None) => csr_validation::csr_errors(object, None),
        ("certificates.k8s.io", "CertificateSigningRequest", Some(old)) => {
            let write = match subresource {
                Some("status") => csr_validation::Write::Status,
                Some("approval") => csr_validation::Write::Approval,
                _ => csr_validation::Write::Update,
            };
            let mut errors = csr_validation::csr_errors(object, Some(old));
            errors.extend(csr_validation::csr_update_errors(object, old, write));
            errors
        }
        ("batch", "Job", None) => job_errors(object, &JobOptions::for_job(None, minor)),
        ("batch", "Job", Some(old)) if subresource == Some("status") => {
            job_status_validation::status_update_errors(object, old, minor)
        }
        ("batch", "Job", Some(old)) => {
            let opts = JobOptions::for_job(Some(old), minor);
            let mut errors = job_errors(object, &opts);
            errors.extend(job_update_validation::job_update_errors(object, old, &opts));
            errors
        }
        ("batch", "CronJob", None) => cronjob_validation::create_errors(object, minor),
        // The status strategy validates nothing of its own.
        ("batch", "CronJob", Some(_)) if subresource == Some("status") => Vec::new(),
        ("batch", "CronJob", Some(old)) => cronjob_validation::update_errors(object, old, minor),
        // `ValidateEndpointsUpdate` is the create's validation and every kind's metadata rules.
        ("", "PersistentVolumeClaim", None) => {
            pvc_validation::claim_errors(object, ClaimOptions::for_claim(None, minor))
        }
        ("", "PersistentVolumeClaim", Some(old)) if subresource == Some("status") => {
            pvc_update_validation::claim_status_update_errors(object, ClaimOptions::for_claim(Some(old), minor))
        }
        ("", "PersistentVolumeClaim", Some(old)) => {
            pvc_update_validation::claim_update_errors(object, old, ClaimOptions::for_claim(Some(old), minor))
        }
        ("", "PodTemplate", old) => rc_validation::pod_template_object_errors(object, old, minor),
        ("", "ReplicationController", None) => rc_validation::controller_errors(object, None, false, minor),
        ("", "ReplicationController", Some(_)) if subresource == Some("status") => {
            rc_validation::controller_status_errors(object)
        }
        ("", "ReplicationController", Some(old)) => rc_validation::controller_update_errors(object, old, minor),
        ("", "ResourceQuota", None) => resourcequota_validation::quota_errors(object, minor),
        ("", "ResourceQuota", Some(_)) if subresource == Some("status") => {
            resourcequota_validation::quota_status_errors(object, minor)
        }
        ("", "ResourceQuota", Some(old)) => resourcequota_validation::quota_update_errors(object, old, minor),
        ("", "LimitRange", _) => limitrange_validation::limit_range_errors(object, minor),
        ("", "PersistentVolume", None) => pv_validation::volume_errors(object, false, minor),
        // `ValidatePersistentVolumeStatusUpdate` checks the metadata alone.
        ("", "PersistentVolume", Some(_)) if subresource == Some("status") => Vec::new(),
        ("", "PersistentVolume", Some(old)) => pv_update_validation::volume_update_errors(object, old, minor),
        ("", "Endpoints", _) => endpoints_validation::endpoints_errors(object),
        ("autoscaling", "HorizontalPodAutoscaler", old) => hpa_strategy::errors(object, old, subresource, minor),
        ("networking.k8s.io", "NetworkPolicy", None) => networkpolicy_validation::create_errors(object, minor),
        ("networking.k8s.io", "NetworkPolicy", Some(old)) => {
            networkpolicy_validation::update_errors(object, old, minor)
        }
        ("networking.k8s.io", "Ingress", None) => ingress_validation::create_errors(object),
        ("networking.k8s.io", "Ingress", Some(_)) if subresource == Some("status") => {
            ingress_validation::status_update_errors(object, minor)
        }
        ("networking.k8s.io", "Ingress", Some(old)) => ingress_validation::update_errors(object, old),
        ("networking.k8s.io", "IngressClass", None) => ingress_class_validation::class_errors(object),
        ("networking.k8s.io", "IngressClass", Some(old)) => ingress_class_validation::class_update_errors(object, old),
        ("policy", "PodDisruptionBudget", Some(_)) if subresource == Some("status") => {
            pdb_validation::status_update_errors(object)
        }
        ("policy", "PodDisruptionBudget", old) => pdb_validation::spec_errors(object, old),
        ("discovery.k8s.io", "EndpointSlice", None) => endpointslice_validation::create_errors(object),
        ("discovery.k8s.io", "EndpointSlice", Some(old)) => endpointslice_validation::update_errors(object, old),
        ("node.k8s.io", "RuntimeClass", None) => runtimeclass::create_errors(object, minor),
        ("node.k8s.io", "RuntimeClass", Some(old)) => runtimeclass::update_errors(object, old, minor),
        ("scheduling.k8s.io", "PriorityClass", None) => priorityclass::create_errors(object),
        ("scheduling.k8s.io", "PriorityClass", Some(old)) => priorityclass::update_errors(object, old),
        ("apiregistration.k8s.io", "APIService", Some(_)) if subresource == Some("status") => {
            apiservice_validation::api_service_status_errors(object)
        }
        ("apiregistration.k8s.io", "APIService", _) => apiservice_validation::api_service_errors(object),
        ("", "ConfigMap", None) => config_validation::config_map_errors(object),
        ("", "ConfigMap", Some(old)) => config_validation::config_map_update_errors(object, old),
        ("", "Secret", None) => config_validation::secret_errors(object),
        ("", "Secret", Some(old)) => config_validation::secret_update_errors(object, old),
        ("", "Service", None) => service_validation::service_create_errors(object, minor),
        ("", "Service", Some(_)) if subresource == Some("status") => {
            service_validation::service_status_errors(object, minor)
        }
        ("", "Service", Some(old)) => service_validation::service_update_errors(object, old, minor),
        // `ValidateServiceAccount` is its metadata alone, checked for every kind.
        ("", "ServiceAccount", _) => Vec::new(),
        ("", "Namespace", None) => namespace_validation::namespace_errors(object),
        ("", "Namespace", Some(_)) if subresource == Some("status") => {
            namespace_validation::namespace_status_update_errors(object)
        }
        ("", "Namespace", Some(_)) if subresource == Some("finalize") => {
            namespace_validation::namespace_finalize_update_errors(object)
        }
        ("", "Namespace", Some(old)) => namespace_validation::namespace_update_errors(object, old),
        ("apps", "Deployment", None) => workload_validation::deployment_errors(object, minor),
        ("apps", "Deployment", Some(old)) if subresource == Some("status") => {
            workload_validation::deployment_status_update_errors(object, old)
        }
        ("apps", "Deployment", Some(old)) => workload_validation::deployment_update_errors(object, old, minor),
        ("apps", "ReplicaSet", None) => workload_validation::replica_set_errors(object, minor),
        ("apps", "ReplicaSet", Some(_)) if subresource == Some("status") => {
            workload_validation::replica_set_status_errors(object)
        }
        ("apps", "ReplicaSet", Some(old)) => workload_validation::replica_set_update_errors(object, old, minor),
        ("apps", "StatefulSet", None) => statefulset_validation::stateful_set_errors(object),
        ("apps", "StatefulSet", Some(old)) if subresource == Some("status") => {
            statefulset_validation::stateful_set_status_update_errors(object, old)
        }
        ("apps", "StatefulSet", Some(old)) => statefulset_validation::stateful_set_update_errors(object, old),
        ("apps", "DaemonSet", None) => daemonset_validation::daemon_set_errors(object, minor),
        ("apps", "DaemonSet", Some(old)) if subresource == Some("status") => {
            daemonset_validation::daemon_set_status_update_errors(object, old)
        }
        ("apps", "DaemonSet", Some(old)) => daemonset_validation::daemon_set_update_errors(object, old, minor),
        (
            "admissionregistration.k8s.io",
            kind @ ("ValidatingWebhookConfiguration" | "MutatingWebhookConfiguration"),
            old,
        ) => {
            let mutating = kind == "MutatingWebhookConfiguration";
            match old {
                None => webhooks::configuration_errors(object, mutating, minor),
                Some(old) => webhooks::configuration_update_errors(object, old, mutating, minor),
            }
        }
        ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy", old) => match (old, subresource) {
            (Some(_), Some("status")) => admission_policies::status_errors(object),
            (old, _) => admission_policies::policy_errors(object, old, minor),
        },
        ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding", _) => {
            admission_binding_validation::binding_errors(object)
        }
        ("apps", "ControllerRevision", None) => revisions::controller_revision_errors(object, minor),
        ("apps", "ControllerRevision", Some(old)) => revisions::controller_revision_update_errors(object, old, minor),
        ("storage.k8s.io", "StorageClass", None) => storage_validation::storage_class_errors(object),
        ("storage.k8s.io", "StorageClass", Some(old)) => storage_validation::storage_class_update_errors(object, old),
        ("storage.k8s.io", "CSIStorageCapacity", None) => {
            storage_validation::csi_storage_capacity_errors(object, false)
        }
        ("storage.k8s.io", "CSIStorageCapacity", Some(old)) => {
            storage_validation::csi_storage_capacity_update_errors(object, old)
        }
        ("storage.k8s.io", "CSIDriver", None) => csi_validation::csi_driver_errors(object),
        ("storage.k8s.io", "CSIDriver", Some(old)) => csi_validation::csi_driver_update_errors(object, old, minor),
        ("storage.k8s.io", "VolumeAttachment", None) => volume_attachment_validation::create_errors(object),
        ("storage.k8s.io", "VolumeAttachment", Some(old)) => volume_attachment_validation::update_errors(object, old),
        ("storage.k8s.io", "CSINode", None) => csi_validation::csi_node_errors(object),
        ("storage.k8s.io", "CSINode", Some(old)) => csi_validation::csi_node_update_errors(object, old),
        ("" | "events.k8s.io", "Event", old) => event_validation::event_errors(info, object, old),
        ("coordination.k8s.io", "Lease", _) => lease_validation::lease_errors(object),
        ("flowcontrol.apiserver.k8s.io", _, Some(_)) if subresource == Some("status") => {
            flowschema_validation::status_errors(object)
        }
        ("flowcontrol.apiserver.k8s.io", "FlowSchema", _) => flowschema_validation::flow_schema_errors(object),
        ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration", _) => {
            prioritylevel_validation::priority_level_errors(object, &info.version, minor)
        }
        ("rbac.authorization.k8s.io", kind @ ("Role" | "ClusterRole"), None) => {
            rbac_validation::role_errors(object, kind == "Role", false)
        }
        ("rbac.authorization.k8s.io", kind @ ("Role" | "ClusterRole"), Some(old)) => {
            rbac_validation::role_update_errors(object, old, kind == "Role")
        }
        ("rbac.authorization.k8s.io", kind @ ("RoleBinding" | "ClusterRoleBinding"), None) => {
            rbac_validation::binding_errors(object, kind == "RoleBinding")
        }
        ("rbac.authorization.k8s.io", kind @ ("RoleBinding" | "ClusterRoleBinding"), Some(old)) => {
            rbac_validation::binding_update_errors(object, old, kind == "RoleBinding")
        }
        _ => Vec::new(),
    }
}
