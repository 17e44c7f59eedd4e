//! The longer `PersistentVolumeSource` checks of `pkg/apis/core/validation/validation.go`:
//! `validateQuobyteVolumeSource`, `validateISCSIPersistentVolumeSource` (with the iSCSI name
//! formats), `validateFCVolumeSource`, `validateAzureDisk`,
//! `validateStorageOSPersistentVolumeSource`, `validateCSIPersistentVolumeSource` with
//! `validatePVSecretReference` and `ValidateCSIDriverName`.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::names;

/// `iscsiInitiatorIqnRegex`, `iscsiInitiatorEuiRegex`, `iscsiInitiatorNaaRegex`.
static IQN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"iqn\.\d{4}-\d{2}\.([[:alnum:]-.]+)(:[^,;*&$|\s]+)$").expect("valid pattern"));
static EUI: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^eui.[[:alnum:]]{16}$").expect("valid pattern"));
static NAA: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^naa.[[:alnum:]]{32}$").expect("valid pattern"));

/// `validateQuobyteVolumeSource`: each registry a `host:port` (`net.SplitHostPort`).
pub(super) fn quobyte_errors(source: &Value, at: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let registry = text(source, "registry");
    let why = "must be a host:port pair or multiple pairs separated by commas";
    if registry.is_empty() {
        errors.push(FieldError::required(format!("{at}.registry"), why));
    } else if text(source, "tenant").len() >= 65 {
        errors.push(FieldError::required(
            format!("{at}.tenant"),
            "must be a UUID and may not exceed a length of 64 characters",
        ));
    } else {
        for pair in registry.split(',') {
            if !splits_host_port(pair) {
                errors.push(FieldError::invalid(format!("{at}.registry"), registry.into(), why));
            }
        }
    }
    required(&mut errors, source, "volume", at);
    errors
}

/// Whether Go's `net.SplitHostPort` accepts `pair`: a last colon, a bracketed host when it
/// has colons itself, no stray brackets.
fn splits_host_port(pair: &str) -> bool {
    let Some(colon) = pair.rfind(':') else {
        return false;
    };
    let host = &pair[..colon];
    if let Some(inner) = host.strip_prefix('[') {
        // `[host]:port`: the bracket closes right before the colon.
        return inner.ends_with(']') && !inner[..inner.len() - 1].contains(['[', ']']);
    }
    !host.contains([':', '[', ']']) && !pair[colon + 1..].contains(['[', ']'])
}

/// `validateISCSIPersistentVolumeSource`.
pub(super) fn iscsi_errors(source: &Value, at: &str, pv_name: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let portal = text(source, "targetPortal");
    if portal.is_empty() {
        errors.push(FieldError::required(format!("{at}.targetPortal"), ""));
    }
    let initiator = source.get("initiatorName").and_then(Value::as_str);
    if initiator.is_some() && pv_name.len() + 1 + portal.len() > 64 {
        errors.push(FieldError::invalid(
            format!("{at}.targetportal"),
            portal.into(),
            "Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified.",
        ));
    }
    let iqn = text(source, "iqn");
    if iqn.is_empty() {
        errors.push(FieldError::required(format!("{at}.iqn"), ""));
    } else if !iscsi_name_valid(iqn) {
        errors.push(FieldError::invalid(
            format!("{at}.iqn"),
            iqn.into(),
            "must be valid format",
        ));
    }
    let lun = int(source, "lun");
    if !(0..=255).contains(&lun) {
        errors.push(FieldError::invalid(
            format!("{at}.lun"),
            BadValue::Int(lun),
            "must be between 0 and 255, inclusive",
        ));
    }
    let chap = ["chapAuthDiscovery", "chapAuthSession"]
        .iter()
        .any(|k| source.get(*k).and_then(Value::as_bool) == Some(true));
    let secret = source.get("secretRef").filter(|s| !s.is_null());
    if chap && secret.is_none() {
        errors.push(FieldError::required(format!("{at}.secretRef"), ""));
    }
    if let Some(secret) = secret {
        required(&mut errors, secret, "name", &format!("{at}.secretRef"));
    }
    if let Some(initiator) = initiator {
        let field = format!("{at}.initiatorname");
        let prefixed = ["iqn", "eui", "naa"].iter().any(|p| initiator.starts_with(p));
        if !prefixed {
            errors.push(FieldError::invalid(&field, initiator.into(), "must be valid format"));
        }
        if prefixed && !iscsi_name_valid(initiator) {
            errors.push(FieldError::invalid(field, initiator.into(), "must be valid format"));
        }
    }
    errors
}

/// An iSCSI qualified name: `iqn.`, `eui.` or `naa.` in its format.
fn iscsi_name_valid(name: &str) -> bool {
    if name.starts_with("iqn") {
        IQN.is_match(name)
    } else if name.starts_with("eui") {
        EUI.is_match(name)
    } else if name.starts_with("naa") {
        NAA.is_match(name)
    } else {
        false
    }
}

/// `validateFCVolumeSource`.
pub(super) fn fc_errors(source: &Value, at: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let (wwns, wwids) = (count(source, "targetWWNs"), count(source, "wwids"));
    if wwns < 1 && wwids < 1 {
        errors.push(FieldError::required(
            format!("{at}.targetWWNs"),
            "must specify either targetWWNs or wwids, but not both",
        ));
    }
    if wwns != 0 && wwids != 0 {
        let targets: Vec<String> = source["targetWWNs"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|v| v.as_str().unwrap_or_default().to_owned())
            .collect();
        errors.push(FieldError::invalid(
            format!("{at}.targetWWNs"),
            BadValue::Strings(targets),
            "targetWWNs and wwids can not be specified simultaneously",
        ));
    }
    if wwns != 0 {
        match source.get("lun").and_then(Value::as_i64) {
            None => errors.push(FieldError::required(
                format!("{at}.lun"),
                "lun is required if targetWWNs is specified",
            )),
            Some(lun) if !(0..=255).contains(&lun) => errors.push(FieldError::invalid(
                format!("{at}.lun"),
                BadValue::Int(lun),
                "must be between 0 and 255, inclusive",
            )),
            Some(_) => {}
        }
    }
    errors
}

/// `validateAzureDisk`.
pub(super) fn azure_disk_errors(source: &Value, at: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    required(&mut errors, source, "diskName", at);
    required(&mut errors, source, "diskURI", at);
    let uri = text(source, "diskURI");
    if let Some(mode) = source.get("cachingMode").and_then(Value::as_str)
        && !matches!(mode, "None" | "ReadOnly" | "ReadWrite")
    {
        let supported = ["None", "ReadOnly", "ReadWrite"].map(str::to_owned);
        errors.push(FieldError::not_supported(
            format!("{at}.cachingMode"),
            mode.into(),
            &supported,
        ));
    }
    if let Some(kind) = source.get("kind").and_then(Value::as_str) {
        if !matches!(kind, "Dedicated" | "Managed" | "Shared") {
            let supported = ["Dedicated", "Managed", "Shared"].map(str::to_owned);
            errors.push(FieldError::not_supported(format!("{at}.kind"), kind.into(), &supported));
        }
        let (prefix, shape) = if kind == "Managed" {
            (
                "/subscriptions/",
                "/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/{disk-id}",
            )
        } else {
            (
                "https://",
                "https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd",
            )
        };
        if !uri.starts_with(prefix) {
            errors.push(FieldError::not_supported(
                format!("{at}.diskURI"),
                uri.into(),
                &[shape.to_owned()],
            ));
        }
    }
    errors
}

/// `validateStorageOSPersistentVolumeSource`.
pub(super) fn storageos_errors(source: &Value, at: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    for (key, needed) in [("volumeName", true), ("volumeNamespace", false)] {
        let value = text(source, key);
        if value.is_empty() {
            if needed {
                errors.push(FieldError::required(format!("{at}.{key}"), ""));
            }
            continue;
        }
        for why in names::dns1123_label_errors(value) {
            errors.push(FieldError::invalid(format!("{at}.{key}"), value.into(), why));
        }
    }
    if let Some(secret) = source.get("secretRef").filter(|s| !s.is_null()) {
        required(&mut errors, secret, "name", &format!("{at}.secretRef"));
        required(&mut errors, secret, "namespace", &format!("{at}.secretRef"));
    }
    errors
}

/// `validateCSIPersistentVolumeSource`: the driver's name, the handle, each secret reference.
pub(super) fn csi_errors(source: &Value, at: &str) -> Vec<FieldError> {
    let mut errors = csi_driver_name_errors(text(source, "driver"), &format!("{at}.driver"));
    required(&mut errors, source, "volumeHandle", at);
    for key in [
        "controllerPublishSecretRef",
        "controllerExpandSecretRef",
        "nodePublishSecretRef",
        "nodeExpandSecretRef",
    ] {
        if !is_set(source, key) {
            continue;
        }
        let (secret, path) = (&source[key], format!("{at}.{key}"));
        let name = text(secret, "name");
        if name.is_empty() {
            errors.push(FieldError::required(format!("{path}.name"), ""));
        }
        for why in names::dns1123_subdomain_errors(name)
            .into_iter()
            .filter(|_| !name.is_empty())
        {
            errors.push(FieldError::invalid(format!("{path}.name"), name.into(), why));
        }
        let namespace = text(secret, "namespace");
        if namespace.is_empty() {
            errors.push(FieldError::required(format!("{path}.namespace"), ""));
        }
        for why in names::dns1123_label_errors(namespace)
            .into_iter()
            .filter(|_| !namespace.is_empty())
        {
            errors.push(FieldError::invalid(format!("{path}.namespace"), namespace.into(), why));
        }
    }
    errors
}

/// `ValidateCSIDriverName`: required, at most 63 characters, a subdomain once lowercased.
pub(crate) fn csi_driver_name_errors(driver: &str, at: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if driver.is_empty() {
        errors.push(FieldError::required(at, ""));
    }
    if driver.len() > 63 {
        errors.push(FieldError::too_long_max_length(at, driver.into(), 63));
    }
    for why in names::dns1123_subdomain_errors(&driver.to_lowercase()) {
        errors.push(FieldError::invalid(at, driver.into(), why));
    }
    errors
}

/// The readers of a source's fields, shared with `pv_sources` and the pod volumes' checks.
pub(super) fn text<'v>(value: &'v Value, key: &str) -> &'v str {
    value.get(key).and_then(Value::as_str).unwrap_or_default()
}

pub(super) fn int(value: &Value, key: &str) -> i64 {
    value.get(key).and_then(Value::as_i64).unwrap_or(0)
}

pub(super) fn is_set(value: &Value, key: &str) -> bool {
    value.get(key).is_some_and(|v| !v.is_null())
}

pub(super) fn count(value: &Value, key: &str) -> usize {
    match value.get(key) {
        Some(Value::Array(items)) => items.len(),
        Some(Value::Object(map)) => map.len(),
        _ => 0,
    }
}

pub(super) fn required(errors: &mut Vec<FieldError>, value: &Value, key: &str, at: &str) {
    if text(value, key).is_empty() {
        errors.push(FieldError::required(format!("{at}.{key}"), ""));
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn fields(source: &Value) -> Vec<String> {
        iscsi_errors(&source["iscsi"], "spec.iscsi", "pv")
            .iter()
            .map(|e| e.field.clone())
            .collect()
    }

    #[test]
    fn iscsi_names_should_keep_their_format() {
        assert!(iscsi_name_valid("iqn.2001-04.com.example:storage"));
        assert!(!iscsi_name_valid("iqn.bogus"));
        assert!(!iscsi_name_valid("eui.123"));
        let spec = json!({"iscsi": {"targetPortal": "", "iqn": "bogus", "lun": 300, "chapAuthSession": true, "initiatorName": "eui.123"}});
        assert_eq!(
            fields(&spec),
            [
                "spec.iscsi.targetPortal",
                "spec.iscsi.iqn",
                "spec.iscsi.lun",
                "spec.iscsi.secretRef",
                "spec.iscsi.initiatorname"
            ]
        );
    }

    #[test]
    fn registries_should_be_host_port_pairs() {
        assert!(splits_host_port("a:1"));
        assert!(splits_host_port("[::1]:80"));
        assert!(!splits_host_port("host"));
        assert!(!splits_host_port("a:b:c"));
    }
}
