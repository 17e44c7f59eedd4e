//! A CertificateSigningRequest's strategies (`pkg/registry/certificates/certificates/
//! strategy.go`): the requester recorded on create, an update of the request itself keeping
//! its spec and status, a `/status` write keeping the spec and the approval conditions, an
//! `/approval` write changing the conditions alone; and the conditions' timestamps, set when a
//! write leaves them unset (a transition keeps its time while the status stays).

use serde_json::{Value, json};

use crate::auth::UserInfo;
use crate::storage::object;
use crate::storage::resource::ResourceInfo;

/// `PrepareForCreate`: the requester's identity in place of what was sent, and no status.
pub(crate) fn prepare_create(csr: &mut Value, requester: &UserInfo) {
    let Some(spec) = csr.get_mut("spec").and_then(Value::as_object_mut) else {
        return;
    };
    spec.remove("extra");
    spec.insert("username".to_owned(), json!(requester.name));
    spec.insert("uid".to_owned(), json!(requester.uid));
    spec.insert("groups".to_owned(), json!(requester.groups));
    if !requester.extra.is_empty() {
        spec.insert("extra".to_owned(), json!(requester.extra));
    }
    csr["status"] = json!({});
}

/// Whether `info` is the CertificateSigningRequests resource.
pub(crate) fn concerns(info: &ResourceInfo) -> bool {
    info.builtin && info.group == "certificates.k8s.io" && info.plural == "certificatesigningrequests"
}

/// The strategies' `PrepareForUpdate` beyond the status handling every kind shares: the spec
/// never changes, a `/status` write keeps the approval conditions, and conditions are stamped.
pub(crate) fn prepare_update(new: &mut Value, old: &Value, subresource: Option<&str>) {
    if let Some(fields) = new.as_object_mut() {
        match old.get("spec") {
            Some(spec) => fields.insert("spec".to_owned(), spec.clone()),
            None => fields.remove("spec"),
        };
    }
    match subresource {
        Some("status") => prepare_status(new, old),
        Some("approval") => populate_timestamps(new, old),
        _ => {}
    }
}

/// What a subresource's field manager ignores besides the spec (`GetResetFields`): the
/// conditions of a `/status` write, the certificate of an `/approval` write.
pub(crate) fn reset_in_view(view: &mut Value, old: &Value, subresource: &str) {
    let field = if subresource == "approval" {
        "certificate"
    } else {
        "conditions"
    };
    let Some(status) = view.get_mut("status").and_then(Value::as_object_mut) else {
        return;
    };
    // Go encodes a condition's unset times as null, which the field manager counts as set:
    // the writer of a new condition owns its times too.
    for condition in status
        .get_mut("conditions")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
    {
        for time in ["lastUpdateTime", "lastTransitionTime"] {
            if let Some(fields) = condition.as_object_mut() {
                fields.entry(time).or_insert(Value::Null);
            }
        }
    }
    match old.pointer(&format!("/status/{field}")) {
        Some(kept) => status.insert(field.to_owned(), kept.clone()),
        None => status.remove(field),
    };
}

/// `csrStatusStrategy.PrepareForUpdate` on the status written: the Approved and Denied
/// conditions stay as they were (when as many remain), timestamps are filled in.
pub(crate) fn prepare_status(new: &mut Value, old: &Value) {
    for kind in ["Approved", "Denied"] {
        let old_indices = indices(old, kind);
        let new_indices = indices(new, kind);
        if old_indices.len() == new_indices.len() {
            for (o, n) in old_indices.into_iter().zip(new_indices) {
                new["status"]["conditions"][n] = old["status"]["conditions"][o].clone();
            }
        }
    }
    populate_timestamps(new, old);
}

fn conditions(csr: &Value) -> &[Value] {
    csr.pointer("/status/conditions")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn indices(csr: &Value, kind: &str) -> Vec<usize> {
    conditions(csr)
        .iter()
        .enumerate()
        .filter(|(_, c)| c.get("type").and_then(Value::as_str) == Some(kind))
        .map(|(i, _)| i)
        .collect()
}

/// `populateConditionTimestamps`: an unset update time is now; an unset transition time is the
/// old one of a condition of the same type and status, else now.
pub(crate) fn populate_timestamps(new: &mut Value, old: &Value) {
    let now = object::now();
    let olds = conditions(old).to_vec();
    let Some(list) = new.pointer_mut("/status/conditions").and_then(Value::as_array_mut) else {
        return;
    };
    let unset = |c: &Value, key: &str| c.get(key).is_none_or(|t| t.is_null() || t.as_str() == Some(""));
    for condition in list {
        if unset(condition, "lastUpdateTime") {
            condition["lastUpdateTime"] = json!(now);
        }
        if unset(condition, "lastTransitionTime") {
            let kept = olds.iter().find(|o| {
                o.get("type") == condition.get("type")
                    && o.get("status") == condition.get("status")
                    && !unset(o, "lastTransitionTime")
            });
            condition["lastTransitionTime"] = kept.map_or(json!(now), |o| o["lastTransitionTime"].clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_write_should_keep_the_approval_and_stamp_the_rest() {
        let old = json!({"status": {"conditions": [{"type": "Approved", "status": "True", "reason": "Old", "lastTransitionTime": "t0"}]}});
        let mut new = json!({"status": {"conditions": [{"type": "Approved", "status": "True", "reason": "New"}, {"type": "Failed", "status": "True"}]}});
        prepare_status(&mut new, &old);
        assert_eq!(new["status"]["conditions"][0]["reason"], "Old");
        assert!(new["status"]["conditions"][1]["lastUpdateTime"].is_string());
        let mut created = json!({"spec": {"username": "someone", "extra": {"a": ["b"]}}});
        prepare_create(&mut created, &UserInfo::admin());
        assert_eq!(created["spec"]["username"], "admin");
        assert!(created["spec"].get("extra").is_none());
    }
}
