//! The empty object of each built-in kind as kube-apiserver's field manager sees it.
//!
//! A create is recorded in managed fields as a change from `New(kind)`: Go's zero value of the
//! type, encoded. Its fields without `omitempty` are there (structs as `{}`, pointers and slices
//! as `null`, strings as `""`), so a map that exists in the zero value is not itself owned by the
//! creator (no `"."` entry in FieldsV1) and an empty string it leaves empty is not owned at all.
//! A custom resource's zero value is empty: everything its creator sends is new.

use serde_json::{Value, json};

use crate::storage::resource::ResourceInfo;

/// The zero value of `info`'s kind, without type meta and metadata (field management strips those).
pub(crate) fn zero_object(info: &ResourceInfo) -> Value {
    if info.builtin && info.group == "autoscaling" && info.kind == "HorizontalPodAutoscaler" && info.version == "v1" {
        // v1's status counts have no `omitempty`, v2's current replicas have.
        return json!({"spec": {"scaleTargetRef": {"kind": "", "name": ""}, "maxReplicas": 0},
                      "status": {"currentReplicas": 0, "desiredReplicas": 0}});
    }
    if info.builtin {
        zero_of(&info.group, &info.kind)
    } else {
        json!({})
    }
}

/// Sets the top-level fields of a built-in `kind`'s zero value that `object` lacks, as Go
/// encodes them: what kube-apiserver answers and stores for fields without `omitempty`.
pub(crate) fn fill_unset(object: &mut Value, group: &str, kind: &str) {
    if let (Some(map), Value::Object(zero)) = (object.as_object_mut(), zero_of(group, kind)) {
        for (field, value) in zero {
            map.entry(field).or_insert(value);
        }
    }
}

fn zero_of(group: &str, kind: &str) -> Value {
    let template = json!({"metadata": {"creationTimestamp": null}, "spec": {"containers": null}});
    match (group, kind) {
        ("", "Namespace") => json!({"spec": {}, "status": {}}),
        ("", "Service") => json!({"spec": {}, "status": {"loadBalancer": {}}}),
        ("", "Pod") => json!({"spec": {"containers": null}, "status": {}}),
        ("", "Event") => json!({
            "involvedObject": {}, "source": {}, "firstTimestamp": null, "lastTimestamp": null,
            "eventTime": null, "reportingComponent": "", "reportingInstance": "",
        }),
        ("events.k8s.io", "Event") => json!({
            "eventTime": null, "regarding": {}, "deprecatedSource": {},
            "deprecatedFirstTimestamp": null, "deprecatedLastTimestamp": null,
        }),
        ("apps", "Deployment") => {
            json!({"spec": {"selector": null, "template": template, "strategy": {}}, "status": {}})
        }
        ("apps", "ReplicaSet") => json!({"spec": {"selector": null, "template": template}, "status": {"replicas": 0}}),
        ("apps", "StatefulSet") => json!({
            "spec": {"selector": null, "template": template, "serviceName": "", "updateStrategy": {}},
            "status": {"replicas": 0, "availableReplicas": 0},
        }),
        ("apps", "DaemonSet") => json!({
            "spec": {"selector": null, "template": template, "updateStrategy": {}},
            "status": {
                "currentNumberScheduled": 0, "numberMisscheduled": 0, "desiredNumberScheduled": 0, "numberReady": 0,
            },
        }),
        ("", "Node") => json!({"spec": {}, "status": {
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 0}},
            "nodeInfo": {
                "machineID": "", "systemUUID": "", "bootID": "", "kernelVersion": "", "osImage": "",
                "containerRuntimeVersion": "", "kubeletVersion": "", "kubeProxyVersion": "",
                "operatingSystem": "", "architecture": "",
            },
        }}),
        ("certificates.k8s.io", "CertificateSigningRequest") => {
            json!({"spec": {"request": null, "signerName": ""}, "status": {}})
        }
        ("authentication.k8s.io", "TokenRequest") => {
            json!({"spec": {"audiences": null, "boundObjectRef": null}, "status": {"token": "", "expirationTimestamp": null}})
        }
        ("authentication.k8s.io", "TokenReview") => json!({"spec": {}, "status": {"user": {}}}),
        ("authentication.k8s.io", "SelfSubjectReview") => json!({"status": {"userInfo": {}}}),
        ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy") => json!({"spec": {}, "status": {}}),
        ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding") => json!({"spec": {}}),
        ("authorization.k8s.io", "SubjectAccessReview" | "SelfSubjectAccessReview" | "LocalSubjectAccessReview") => {
            json!({"spec": {}, "status": {"allowed": false}})
        }
        ("batch", "Job") => json!({"spec": {"template": template}, "status": {}}),
        ("batch", "CronJob") => json!({
            "spec": {"schedule": "", "jobTemplate": {"metadata": {"creationTimestamp": null}, "spec": {"template": template}}},
            "status": {},
        }),
        ("networking.k8s.io", "NetworkPolicy") => json!({"spec": {"podSelector": {}}}),
        ("networking.k8s.io", "Ingress") => json!({"spec": {}, "status": {"loadBalancer": {}}}),
        ("networking.k8s.io", "IngressClass") => json!({"spec": {}}),
        ("scheduling.k8s.io", "PriorityClass") => json!({"value": 0}),
        ("node.k8s.io", "RuntimeClass") => json!({"handler": ""}),
        ("discovery.k8s.io", "EndpointSlice") => json!({"addressType": "", "endpoints": null, "ports": null}),
        ("autoscaling", "HorizontalPodAutoscaler") => json!({
            "spec": {"scaleTargetRef": {"kind": "", "name": ""}, "maxReplicas": 0},
            "status": {"desiredReplicas": 0, "currentMetrics": null},
        }),
        ("policy", "PodDisruptionBudget") => json!({"spec": {}, "status": {
            "disruptionsAllowed": 0, "currentHealthy": 0, "desiredHealthy": 0, "expectedPods": 0,
        }}),
        ("", "PersistentVolume") => json!({"spec": {}, "status": {}}),
        ("", "ResourceQuota") => json!({"spec": {}, "status": {}}),
        ("", "LimitRange") => json!({"spec": {}}),
        ("", "PodTemplate") => json!({"template": template}),
        ("", "ReplicationController") => json!({"spec": {}, "status": {"replicas": 0}}),
        ("", "PersistentVolumeClaim") => json!({"spec": {"resources": {}}, "status": {}}),
        ("coordination.k8s.io", "Lease") => json!({"spec": {}}),
        ("apps", "ControllerRevision") => json!({"revision": 0}),
        ("storage.k8s.io", "StorageClass") => json!({"provisioner": ""}),
        ("storage.k8s.io", "CSIDriver") => json!({"spec": {}}),
        ("storage.k8s.io", "CSINode") => json!({"spec": {"drivers": null}}),
        ("storage.k8s.io", "CSIStorageCapacity") => json!({"storageClassName": ""}),
        ("storage.k8s.io", "VolumeAttachment") => {
            json!({"spec": {"attacher": "", "source": {}, "nodeName": ""}, "status": {"attached": false}})
        }
        ("apiregistration.k8s.io", "APIService") => {
            json!({"spec": {"groupPriorityMinimum": 0, "versionPriority": 0}, "status": {}})
        }
        ("rbac.authorization.k8s.io", "ClusterRole" | "Role") => json!({"rules": null}),
        ("rbac.authorization.k8s.io", "RoleBinding" | "ClusterRoleBinding") => {
            json!({"roleRef": {"apiGroup": "", "kind": "", "name": ""}})
        }
        ("apiextensions.k8s.io", "CustomResourceDefinition") => json!({
            "spec": {"group": "", "names": {"plural": "", "kind": ""}, "scope": "", "versions": null},
            "status": {"acceptedNames": {"plural": "", "kind": ""}, "storedVersions": null},
        }),
        ("flowcontrol.apiserver.k8s.io", "FlowSchema") => json!({
            "spec": {"priorityLevelConfiguration": {"name": ""}, "matchingPrecedence": 0},
            "status": {},
        }),
        ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration") => json!({"spec": {"type": ""}, "status": {}}),
        // ConfigMap, Secret, ServiceAccount: every field is optional.
        _ => json!({}),
    }
}
