//! The warnings a kind's strategy returns for a write that passed validation
//! (`WarningsOnCreate`/`WarningsOnUpdate` of the `pkg/registry/*/strategy.go` files), by kind:
//! `rest.BeforeCreate` and `rest.BeforeUpdate` add them to the response after validating.

use serde_json::Value;

use super::cronjob_strategy;
use super::service_warnings::service_warnings;
use crate::storage::resource::ResourceInfo;

/// `WarningsOnCreate` of the kind's strategy.
pub(crate) fn on_create(info: &ResourceInfo, object: &Value) -> Vec<String> {
    match (info.builtin, info.group.as_str(), info.kind.as_str()) {
        (true, "", "Service") => service_warnings(object),
        (true, "batch", "CronJob") => cronjob_strategy::create_warnings(info, object),
        _ => Vec::new(),
    }
}

/// `WarningsOnUpdate` of the kind's strategy, or of its status strategy for `/status` (which
/// returns none for the kinds here).
pub(crate) fn on_update(info: &ResourceInfo, object: &Value, old: &Value, subresource: Option<&str>) -> Vec<String> {
    match (info.builtin, info.group.as_str(), info.kind.as_str(), subresource) {
        (true, "", "Service", None) => service_warnings(object),
        (true, "batch", "CronJob", None) => cronjob_strategy::update_warnings(info, object, old, subresource),
        _ => Vec::new(),
    }
}
