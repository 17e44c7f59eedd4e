//! Objects the informer tests list and watch.

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::ObjectMeta;

/// An empty ConfigMap named `name`, in the client's namespace.
pub fn configmap(name: &str) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.into()),
            ..Default::default()
        },
        ..Default::default()
    }
}
