//! Validation of CertificateSigningRequests as `pkg/apis/certificates/validation/validation.go`
//! has it: the request (a PEM PKCS#10 request whose signature verifies), the usages, the signer
//! name, the requested duration, the conditions (Approved, Denied and Failed only True,
//! Approved and Denied exclusive, no type twice), the issued certificate; and on update, what
//! each path may change: the approval conditions only through `/approval`, the certificate
//! only through `/status`, and no Approved, Denied or Failed condition removed. What an old
//! object already broke is tolerated again (the compatibility options).

use base64::Engine as _;
use serde_json::Value;

use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::names;
use crate::semantics::x509_request::{check_certificates, check_request};
use crate::storage::object;

/// The key usages a request may ask for (`allValidUsages`, sorted as Go lists them).
const USAGES: &[&str] = &[
    "any",
    "cert sign",
    "client auth",
    "code signing",
    "content commitment",
    "crl sign",
    "data encipherment",
    "decipher only",
    "digital signature",
    "email protection",
    "encipher only",
    "ipsec end system",
    "ipsec tunnel",
    "ipsec user",
    "key agreement",
    "key encipherment",
    "microsoft sgc",
    "netscape sgc",
    "ocsp signing",
    "s/mime",
    "server auth",
    "signing",
    "timestamping",
];

/// Which path an update took, deciding what it may change.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Write {
    Update,
    Status,
    Approval,
}

/// `validateCertificateSigningRequest`, less the object metadata checked for every kind, with
/// the compatibility options `old` allows.
pub(crate) fn csr_errors(csr: &Value, old: Option<&Value>) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let request = bytes(csr, "/spec/request");
    if let Err(why) = check_request(&request) {
        errors.push(FieldError::invalid(
            "spec.request",
            BadValue::Raw(go_bytes(&request)),
            why,
        ));
    }
    let usages = object::string_list(csr.pointer("/spec/usages"));
    if usages.is_empty() {
        errors.push(FieldError::required("spec.usages", ""));
    }
    let old_usages = old
        .map(|o| object::string_list(o.pointer("/spec/usages")))
        .unwrap_or_default();
    if !old_usages.iter().any(|u| !USAGES.contains(&u.as_str())) {
        let supported: Vec<String> = USAGES.iter().map(|u| (*u).to_owned()).collect();
        for (i, usage) in usages.iter().enumerate().filter(|(_, u)| !USAGES.contains(&u.as_str())) {
            errors.push(FieldError::not_supported(
                format!("spec.usages[{i}]"),
                usage.as_str().into(),
                &supported,
            ));
        }
    }
    if !has_duplicates(&old_usages) {
        for (i, usage) in usages.iter().enumerate().filter(|(i, u)| usages[..*i].contains(u)) {
            errors.push(FieldError::duplicate(
                format!("spec.usages[{i}]"),
                usage.as_str().into(),
            ));
        }
    }
    let signer = csr
        .pointer("/spec/signerName")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let old_signer = old.and_then(|o| o.pointer("/spec/signerName")).and_then(Value::as_str);
    if signer == "kubernetes.io/legacy-unknown" && old_signer != Some(signer) {
        let why = "the legacy signerName is not allowed via this API version";
        errors.push(FieldError::invalid("spec.signerName", signer.into(), why));
    } else {
        errors.extend(signer_name_errors(signer));
    }
    if let Some(seconds) = csr
        .pointer("/spec/expirationSeconds")
        .and_then(Value::as_i64)
        .filter(|s| *s < 600)
    {
        let why = "may not specify a duration less than 600 seconds (10 minutes)";
        errors.push(FieldError::invalid(
            "spec.expirationSeconds",
            BadValue::Int(seconds),
            why,
        ));
    }
    errors.extend(condition_errors(csr, old));
    let certificate = bytes(csr, "/status/certificate");
    let unchanged = old.is_some_and(|o| bytes(o, "/status/certificate") == certificate);
    let broken_before = old.is_some_and(|o| check_certificates(&bytes(o, "/status/certificate")).is_err());
    if !unchanged
        && !broken_before
        && let Err(why) = check_certificates(&certificate)
    {
        errors.push(FieldError::invalid(
            "status.certificate",
            "<certificate data>".into(),
            why,
        ));
    }
    errors
}

/// `validateConditions`.
fn condition_errors(csr: &Value, old: Option<&Value>) -> Vec<FieldError> {
    let conditions = |c: &Value| {
        c.pointer("/status/conditions")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let kind = |c: &Value| c.get("type").and_then(Value::as_str).unwrap_or_default().to_owned();
    let old_conditions = old.map(conditions).unwrap_or_default();
    let old_kinds: Vec<String> = old_conditions.iter().map(kind).collect();
    let allow_empty = old_kinds.iter().any(String::is_empty);
    let allow_duplicates = has_duplicates(&old_kinds);
    let allow_both = old_kinds.iter().any(|k| k == "Approved") && old_kinds.iter().any(|k| k == "Denied");
    let mut errors = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    let (mut approved, mut denied) = (false, false);
    for (i, condition) in conditions(csr).iter().enumerate() {
        let at = format!("status.conditions[{i}]");
        let kind = kind(condition);
        if kind.is_empty() && !allow_empty {
            errors.push(FieldError::required(format!("{at}.type"), ""));
        }
        let status = condition.get("status").and_then(Value::as_str).unwrap_or_default();
        let allowed: &[&str] = if matches!(kind.as_str(), "Approved" | "Denied" | "Failed") {
            &["True"]
        } else {
            &["False", "True", "Unknown"]
        };
        errors.extend(FieldError::enum_string(&format!("{at}.status"), status, allowed));
        if !allow_both {
            let exclusive = match kind.as_str() {
                "Approved" => {
                    approved = true;
                    denied
                }
                "Denied" => {
                    denied = true;
                    approved
                }
                _ => false,
            };
            if exclusive {
                let why = "Approved and Denied conditions are mutually exclusive";
                errors.push(FieldError::invalid(format!("{at}.type"), kind.as_str().into(), why));
            }
        }
        if !allow_duplicates && seen.contains(&kind) {
            errors.push(FieldError::duplicate(format!("{at}.type"), kind.as_str().into()));
        }
        seen.push(kind);
    }
    errors
}

/// `validateCertificateSigningRequestUpdate`'s own rules, after `csr_errors`.
pub(crate) fn csr_update_errors(csr: &Value, old: &Value, write: Write) -> Vec<FieldError> {
    let count = |c: &Value, kind: &str| {
        c.pointer("/status/conditions")
            .and_then(Value::as_array)
            .map(|l| {
                l.iter()
                    .filter(|x| x.get("type").and_then(Value::as_str) == Some(kind))
                    .cloned()
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default()
    };
    let mut errors = Vec::new();
    for kind in ["Approved", "Denied", "Failed"] {
        if count(csr, kind).len() < count(old, kind).len() {
            errors.push(FieldError::forbidden(
                "status.conditions",
                format!("updates may not remove a condition of type {kind:?}"),
            ));
        }
    }
    if write != Write::Approval {
        for kind in ["Approved", "Denied"] {
            let (new, before) = (count(csr, kind), count(old, kind));
            if new.len() > before.len() {
                errors.push(FieldError::forbidden(
                    "status.conditions",
                    format!("updates may not add a condition of type {kind:?}"),
                ));
            } else if new.len() == before.len() && new != before {
                errors.push(FieldError::forbidden(
                    "status.conditions",
                    format!("updates may not modify a condition of type {kind:?}\n"),
                ));
            }
        }
    }
    if bytes(csr, "/status/certificate") != bytes(old, "/status/certificate") {
        if write != Write::Status {
            errors.push(FieldError::forbidden(
                "status.certificate",
                "updates may not set certificate content",
            ));
        } else if !bytes(old, "/status/certificate").is_empty() {
            errors.push(FieldError::forbidden(
                "status.certificate",
                "updates may not modify existing certificate content",
            ));
        }
    }
    errors
}

/// `ValidateSignerName`: `domain/path`, the domain of DNS labels with at least one dot, the
/// path of DNS subdomains.
fn signer_name_errors(signer: &str) -> Vec<FieldError> {
    let field = "spec.signerName";
    if signer.is_empty() {
        return vec![FieldError::required(field, "")];
    }
    let Some((domain, path)) = signer.split_once('/').filter(|(_, p)| !p.contains('/')) else {
        let why = "must be a fully qualified domain and path of the form 'example.com/signer-name'";
        return vec![FieldError::invalid(field, signer.into(), why)];
    };
    let mut errors = Vec::new();
    if domain.len() > 253 {
        errors.push(FieldError::too_long_max_length(field, domain.into(), 253));
    }
    let labels: Vec<&str> = domain.split('.').collect();
    if let Some((label, why)) = labels
        .iter()
        .find_map(|l| Some((l, names::dns1123_label_errors(l))).filter(|(_, w)| !w.is_empty()))
    {
        for why in why {
            errors.push(FieldError::invalid(
                field,
                domain.into(),
                format!("validating label {label:?}: {why}"),
            ));
        }
    }
    if labels.len() < 2 {
        errors.push(FieldError::invalid(
            field,
            domain.into(),
            "should be a domain with at least two segments separated by dots",
        ));
    }
    if let Some((label, why)) = path
        .split('.')
        .find_map(|l| Some((l, names::dns1123_subdomain_errors(l))).filter(|(_, w)| !w.is_empty()))
    {
        for why in why {
            errors.push(FieldError::invalid(
                field,
                path.into(),
                format!("validating label {label:?}: {why}"),
            ));
        }
    }
    if signer.len() > 253 + 253 + 63 + 2 {
        errors.push(FieldError::too_long_max_length(
            field,
            signer.into(),
            253 + 253 + 63 + 2,
        ));
    }
    errors
}

/// The bytes of a base64 field (refused when it was decoded if it is not base64).
fn bytes(csr: &Value, pointer: &str) -> Vec<u8> {
    let text = csr.pointer(pointer).and_then(Value::as_str).unwrap_or_default();
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .unwrap_or_default()
}

fn has_duplicates(items: &[String]) -> bool {
    items.iter().enumerate().any(|(i, item)| items[..i].contains(item))
}

/// Go's `%#v` of a `[]byte`.
fn go_bytes(bytes: &[u8]) -> String {
    let shown: Vec<String> = bytes.iter().map(|b| format!("{b:#x}")).collect();
    format!("[]byte{{{}}}", shown.join(", "))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn signer_names_should_be_domain_and_path() {
        let shown: Vec<String> = signer_name_errors("Not_A/Signer")
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(shown.len(), 3);
        assert!(shown[1].ends_with("should be a domain with at least two segments separated by dots"));
        assert!(signer_name_errors("example.com/custom").is_empty());
        assert_eq!(signer_name_errors("example.com").len(), 1);
    }

    #[test]
    fn approvals_should_only_change_through_their_subresource() {
        let old = json!({"status": {"conditions": [{"type": "Approved", "status": "True"}]}});
        let removed = json!({"status": {"conditions": []}});
        assert_eq!(csr_update_errors(&removed, &old, Write::Approval).len(), 1);
        let denied = json!({"status": {"conditions": [{"type": "Approved", "status": "True"}, {"type": "Denied", "status": "True"}]}});
        assert_eq!(
            csr_update_errors(&denied, &old, Write::Status)[0].detail,
            "updates may not add a condition of type \"Denied\""
        );
        assert_eq!(go_bytes(b"-\n"), "[]byte{0x2d, 0xa}");
        assert_eq!(condition_errors(&denied, None).len(), 1);
    }
}
