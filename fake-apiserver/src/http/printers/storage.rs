//! The printers of ControllerRevisions and the storage.k8s.io kinds
//! (`pkg/printers/internalversion/printers.go`: `printControllerRevision`, `printStorageClass`,
//! `printCSIDriver`, `printCSINode`, `printVolumeAttachment`), and the default table convertor CSIStorageCapacities
//! keep (`rest.NewDefaultTableConvertor`: Name and Created At).

use serde_json::{Value, json};

use super::{AGE_DESCRIPTION, BuiltinColumn, column, count, name_column, text};

/// The columns after Name of these kinds' printers on the Kubernetes `minor`.
pub(super) fn columns(group: &str, kind: &str, age: BuiltinColumn, minor: u32) -> Option<Vec<BuiltinColumn>> {
    Some(match (group, kind) {
        ("apps", "ControllerRevision") => vec![
            column("Controller", "string", "Controller of the object", controller),
            column("Revision", "string", REVISION, |o| {
                json!(o.get("revision").and_then(Value::as_i64).unwrap_or_default())
            }),
            age,
        ],
        ("storage.k8s.io", "StorageClass") => vec![
            column("Provisioner", "string", PROVISIONER, |o| text(o, "/provisioner")),
            column("ReclaimPolicy", "string", RECLAIM_POLICY, |o| {
                or(o, "/reclaimPolicy", "Delete")
            }),
            column("VolumeBindingMode", "string", VOLUME_BINDING_MODE, |o| {
                or(o, "/volumeBindingMode", "Immediate")
            }),
            column("AllowVolumeExpansion", "string", ALLOW_VOLUME_EXPANSION, |o| {
                flag(o, "/allowVolumeExpansion", false)
            }),
            age,
        ],
        ("storage.k8s.io", "CSIDriver") => vec![
            column("AttachRequired", "boolean", ATTACH_REQUIRED, |o| {
                flag(o, "/spec/attachRequired", true)
            }),
            column(
                "PodInfoOnMount",
                "boolean",
                if minor >= 31 {
                    POD_INFO_ON_MOUNT_31
                } else {
                    POD_INFO_ON_MOUNT_28
                },
                |o| flag(o, "/spec/podInfoOnMount", false),
            ),
            column("StorageCapacity", "boolean", STORAGE_CAPACITY, |o| {
                flag(o, "/spec/storageCapacity", false)
            }),
            column("TokenRequests", "string", TOKEN_REQUESTS, token_requests),
            column("RequiresRepublish", "boolean", REQUIRES_REPUBLISH, |o| {
                flag(o, "/spec/requiresRepublish", false)
            }),
            column("Modes", "string", MODES, modes),
            age,
        ],
        ("storage.k8s.io", "CSINode") => vec![
            column(
                "Drivers",
                "integer",
                "Drivers indicates the number of CSI drivers registered on the node",
                |o| json!(o.get("spec").map_or(0, |spec| count(spec, "drivers"))),
            ),
            age,
        ],
        ("storage.k8s.io", "VolumeAttachment") => vec![
            name_column("Attacher", ATTACHER, |o| text(o, "/spec/attacher")),
            column("PV", "string", PERSISTENT_VOLUME_NAME, |o| {
                text(o, "/spec/source/persistentVolumeName")
            }),
            column("Node", "string", NODE_NAME, |o| text(o, "/spec/nodeName")),
            column("Attached", "boolean", ATTACHED, |o| flag(o, "/status/attached", false)),
            age,
        ],
        // The default table convertor: the creation time itself, as a date.
        ("storage.k8s.io", "CSIStorageCapacity") => vec![column("Created At", "date", AGE_DESCRIPTION, |o| {
            o.pointer("/metadata/creationTimestamp").cloned().unwrap_or(Value::Null)
        })],
        _ => return None,
    })
}

/// The Name cell of a kind whose printer writes more than the name: a default StorageClass is
/// marked `(default)` (`storageutil.IsDefaultAnnotation`).
pub(super) fn name_cell(group: &str, kind: &str) -> Option<fn(&Value) -> Value> {
    match (group, kind) {
        ("storage.k8s.io", "StorageClass") => Some(|o| {
            let name = o.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default();
            let annotation = |key: &str| {
                o.pointer("/metadata/annotations")
                    .and_then(|a| a.get(key))
                    .and_then(Value::as_str)
                    == Some("true")
            };
            let default = annotation("storageclass.kubernetes.io/is-default-class")
                || annotation("storageclass.beta.kubernetes.io/is-default-class");
            json!(if default {
                format!("{name} (default)")
            } else {
                name.to_owned()
            })
        }),
        _ => None,
    }
}

/// A string field, or what the printer shows when it is unset.
fn or(object: &Value, pointer: &str, unset: &str) -> Value {
    json!(object.pointer(pointer).and_then(Value::as_str).unwrap_or(unset))
}

/// A bool field, or what the printer shows when it is unset.
fn flag(object: &Value, pointer: &str, unset: bool) -> Value {
    json!(object.pointer(pointer).and_then(Value::as_bool).unwrap_or(unset))
}

/// The controller owner as `formatResourceName` writes it with its kind: `kind.group/name` in
/// lower case (`kind/name` for the core group), `<none>` without one.
fn controller(object: &Value) -> Value {
    let owners = object.pointer("/metadata/ownerReferences").and_then(Value::as_array);
    let controller = owners
        .into_iter()
        .flatten()
        .find(|o| o.get("controller").and_then(Value::as_bool) == Some(true));
    let Some(owner) = controller else {
        return json!("<none>");
    };
    let field = |key: &str| owner.get(key).and_then(Value::as_str).unwrap_or_default();
    let api_version = field("apiVersion");
    // `schema.ParseGroupVersion`: `v1` is the core group, `group/version` the rest.
    let group = api_version.split_once('/').map_or("", |(group, _)| group);
    let kind = field("kind");
    let group_kind = if group.is_empty() {
        kind.to_owned()
    } else {
        format!("{kind}.{group}")
    };
    if group_kind.is_empty() {
        return json!(field("name"));
    }
    json!(format!("{}/{}", group_kind.to_lowercase(), field("name")))
}

/// The audiences of the token requests, `<unset>` when there is no list.
fn token_requests(object: &Value) -> Value {
    match object.pointer("/spec/tokenRequests").and_then(Value::as_array) {
        Some(requests) => {
            let audiences: Vec<&str> = requests
                .iter()
                .map(|r| r.get("audience").and_then(Value::as_str).unwrap_or_default())
                .collect();
            json!(audiences.join(","))
        }
        None => json!("<unset>"),
    }
}

/// The volume lifecycle modes, `<none>` without any.
fn modes(object: &Value) -> Value {
    let modes: Vec<&str> = object
        .pointer("/spec/volumeLifecycleModes")
        .and_then(Value::as_array)
        .map(|m| m.iter().map(|s| s.as_str().unwrap_or_default()).collect())
        .unwrap_or_default();
    json!(if modes.is_empty() {
        "<none>".to_owned()
    } else {
        modes.join(",")
    })
}

/// `ControllerRevision.revision`'s documentation (apps/v1beta1's, which the printer names).
const REVISION: &str = "revision indicates the revision of the state represented by Data.";
/// The documentation of the fields the columns show (`types_swagger_doc_generated.go`).
const PROVISIONER: &str = "provisioner indicates the type of the provisioner.";
const RECLAIM_POLICY: &str = "reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class. Defaults to Delete.";
const VOLUME_BINDING_MODE: &str = "volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.  When unset, VolumeBindingImmediate is used. This field is only honored by servers that enable the VolumeScheduling feature.";
const ALLOW_VOLUME_EXPANSION: &str = "allowVolumeExpansion shows whether the storage class allow volume expand.";
const ATTACH_REQUIRED: &str = "attachRequired indicates this CSI volume driver requires an attach operation (because it implements the CSI ControllerPublishVolume() method), and that the Kubernetes attach detach controller should call the attach volume interface which checks the volumeattachment status and waits until the volume is attached before proceeding to mounting. The CSI external-attacher coordinates with CSI volume driver and updates the volumeattachment status when the attach operation is complete. If the CSIDriverRegistry feature gate is enabled and the value is specified to false, the attach operation will be skipped. Otherwise the attach operation will be called.\n\nThis field is immutable.";
const POD_INFO_ON_MOUNT_28: &str = "podInfoOnMount indicates this CSI volume driver requires additional pod information (like podName, podUID, etc.) during mount operations, if set to true. If set to false, pod information will not be passed on mount. Default is false.\n\nThe CSI driver specifies podInfoOnMount as part of driver deployment. If true, Kubelet will pass pod information as VolumeContext in the CSI NodePublishVolume() calls. The CSI driver is responsible for parsing and validating the information passed in as VolumeContext.\n\nThe following VolumeConext will be passed if podInfoOnMount is set to true. This list might grow, but the prefix will be used. \"csi.storage.k8s.io/pod.name\": pod.Name \"csi.storage.k8s.io/pod.namespace\": pod.Namespace \"csi.storage.k8s.io/pod.uid\": string(pod.UID) \"csi.storage.k8s.io/ephemeral\": \"true\" if the volume is an ephemeral inline volume\n                                defined by a CSIVolumeSource, otherwise \"false\"\n\n\"csi.storage.k8s.io/ephemeral\" is a new feature in Kubernetes 1.16. It is only required for drivers which support both the \"Persistent\" and \"Ephemeral\" VolumeLifecycleMode. Other drivers can leave pod info disabled and/or ignore this field. As Kubernetes 1.15 doesn't support this field, drivers can only support one mode when deployed on such a cluster and the deployment determines which mode that is, for example via a command line parameter of the driver.\n\nThis field is immutable.";
const STORAGE_CAPACITY: &str = "storageCapacity indicates that the CSI volume driver wants pod scheduling to consider the storage capacity that the driver deployment will report by creating CSIStorageCapacity objects with capacity information, if set to true.\n\nThe check can be enabled immediately when deploying a driver. In that case, provisioning new volumes with late binding will pause until the driver deployment has published some suitable CSIStorageCapacity object.\n\nAlternatively, the driver can be deployed with the field unset or false and it can be flipped later when storage capacity information has been published.\n\nThis field was immutable in Kubernetes <= 1.22 and now is mutable.";
const TOKEN_REQUESTS: &str = "tokenRequests indicates the CSI driver needs pods' service account tokens it is mounting volume for to do necessary authentication. Kubelet will pass the tokens in VolumeContext in the CSI NodePublishVolume calls. The CSI driver should parse and validate the following VolumeContext: \"csi.storage.k8s.io/serviceAccount.tokens\": {\n  \"<audience>\": {\n    \"token\": <token>,\n    \"expirationTimestamp\": <expiration timestamp in RFC3339>,\n  },\n  ...\n}\n\nNote: Audience in each TokenRequest should be different and at most one token is empty string. To receive a new token after expiry, RequiresRepublish can be used to trigger NodePublishVolume periodically.";
const REQUIRES_REPUBLISH: &str = "requiresRepublish indicates the CSI driver wants `NodePublishVolume` being periodically called to reflect any possible change in the mounted volume. This field defaults to false.\n\nNote: After a successful initial NodePublishVolume call, subsequent calls to NodePublishVolume should only update the contents of the volume. New mount points will not be seen by a running container.";
const MODES: &str = "volumeLifecycleModes defines what kind of volumes this CSI volume driver supports. The default if the list is empty is \"Persistent\", which is the usage defined by the CSI specification and implemented in Kubernetes via the usual PV/PVC mechanism.\n\nThe other mode is \"Ephemeral\". In this mode, volumes are defined inline inside the pod spec with CSIVolumeSource and their lifecycle is tied to the lifecycle of that pod. A driver has to be aware of this because it is only going to get a NodePublishVolume call for such a volume.\n\nFor more information about implementing this mode, see https://kubernetes-csi.github.io/docs/ephemeral-local-volumes.html A driver can support one or more of these modes and more modes may be added in the future.\n\nThis field is beta. This field is immutable.";
/// 1.31 made it mutable.
const POD_INFO_ON_MOUNT_31: &str = "podInfoOnMount indicates this CSI volume driver requires additional pod information (like podName, podUID, etc.) during mount operations, if set to true. If set to false, pod information will not be passed on mount. Default is false.\n\nThe CSI driver specifies podInfoOnMount as part of driver deployment. If true, Kubelet will pass pod information as VolumeContext in the CSI NodePublishVolume() calls. The CSI driver is responsible for parsing and validating the information passed in as VolumeContext.\n\nThe following VolumeConext will be passed if podInfoOnMount is set to true. This list might grow, but the prefix will be used. \"csi.storage.k8s.io/pod.name\": pod.Name \"csi.storage.k8s.io/pod.namespace\": pod.Namespace \"csi.storage.k8s.io/pod.uid\": string(pod.UID) \"csi.storage.k8s.io/ephemeral\": \"true\" if the volume is an ephemeral inline volume\n                                defined by a CSIVolumeSource, otherwise \"false\"\n\n\"csi.storage.k8s.io/ephemeral\" is a new feature in Kubernetes 1.16. It is only required for drivers which support both the \"Persistent\" and \"Ephemeral\" VolumeLifecycleMode. Other drivers can leave pod info disabled and/or ignore this field. As Kubernetes 1.15 doesn't support this field, drivers can only support one mode when deployed on such a cluster and the deployment determines which mode that is, for example via a command line parameter of the driver.\n\nThis field was immutable in Kubernetes < 1.29 and now is mutable.";

const ATTACHER: &str = "attacher indicates the name of the volume driver that MUST handle this request. This is the name returned by GetPluginName().";
const PERSISTENT_VOLUME_NAME: &str = "persistentVolumeName represents the name of the persistent volume to attach.";
const NODE_NAME: &str = "nodeName represents the node that the volume should be attached to.";
const ATTACHED: &str = "attached indicates the volume is successfully attached. This field must only be set by the entity completing the attach operation, i.e. the external-attacher.";
