//! The writes the lifecycle controllers make, asked of the verbs through a trait so that the
//! controllers do not depend on the verbs that run them.

use std::sync::Arc;

use serde_json::Value;

use crate::status::ApiStatus;
use crate::storage::State;
use crate::storage::object;
use crate::storage::resource::ResourceInfo;

/// The writes the lifecycle controllers make, with the verbs' own rules.
pub(crate) trait Writes {
    /// DELETE of one object with a propagation policy (`None`: the resource's default); an
    /// object already gone is no error.
    fn delete_object(
        &mut self,
        info: &Arc<ResourceInfo>,
        namespace: Option<&str>,
        name: &str,
        propagation: Option<&str>,
    );

    /// DELETE of one pod with `gracePeriodSeconds: 0` (`metav1.NewDeleteOptions(0)`): a
    /// terminating pod's grace period shortened, removed unless a finalizer holds it.
    fn delete_pod_now(&mut self, info: &Arc<ResourceInfo>, namespace: &str, name: &str);

    /// A create of `object` by `manager` (`None` records no managed fields).
    fn create_object(
        &mut self,
        info: &Arc<ResourceInfo>,
        namespace: Option<&str>,
        object: Value,
        manager: Option<&str>,
    ) -> Result<Arc<Value>, ApiStatus>;

    /// A server-side apply of `config` to the cluster-scoped or namespaced object `name` by
    /// `manager`, forcing conflicts, through `subresource` (`status`) or to the whole object.
    fn apply_object(
        &mut self,
        info: &Arc<ResourceInfo>,
        namespace: Option<&str>,
        name: &str,
        config: Value,
        manager: &str,
        subresource: Option<&str>,
    ) -> Result<Arc<Value>, ApiStatus>;

    /// An update of `current` to `updated` by `manager` (`None` records no managed fields),
    /// through `subresource` (`status`) or of the whole object.
    fn update_object(
        &mut self,
        info: &Arc<ResourceInfo>,
        current: Arc<Value>,
        updated: Value,
        manager: Option<&str>,
        subresource: Option<&str>,
    ) -> Result<Arc<Value>, ApiStatus>;
}

/// Removes `finalizer` from a stored object through the normal update path.
pub(super) fn drop_finalizer(state: &mut State, info: &Arc<ResourceInfo>, current: &Arc<Value>, finalizer: &str) {
    let mut updated = (**current).clone();
    let remaining: Vec<String> = object::finalizers(current)
        .into_iter()
        .filter(|f| f != finalizer)
        .collect();
    object::set_finalizers(&mut updated, &remaining);
    if let Err(status) = state.update_object(info, current.clone(), updated, None, None) {
        tracing::warn!(object = object::name(current), %status, "could not remove finalizer {finalizer}");
    }
}
