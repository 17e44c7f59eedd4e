//! kube-apiserver's checks of label keys and values, annotation keys and finalizer names
//! (`k8s.io/apimachinery/pkg/util/validation`), with its exact messages.

use serde_json::Value;

use crate::storage::object::{self, is_dns_subdomain, is_label_shaped};

const QUALIFIED_NAME: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const DNS_SUBDOMAIN: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

const DNS_LABEL: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const DNS_1035_LABEL: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

/// Why `name` is not an object name of `kind`, as its strategy's name validation says it:
/// Namespaces and StatefulSets (`ValidateStatefulSetName`) are RFC 1123 labels, Services
/// DNS-1035 labels, RBAC's roles and bindings and APIServices path segments
/// (`ValidateRBACName`, so `system:discovery` is a name; an APIService's must also be
/// `version.group`, which its own validation checks), everything else RFC 1123 subdomains. Each reason is a cause of its own.
pub(crate) fn object_name_errors(kind: &str, name: &str) -> Vec<String> {
    // A CSR's name is not validated at all (`ValidateCertificateRequestName`).
    if kind == "CertificateSigningRequest" {
        return Vec::new();
    }
    // A PodDisruptionBudget's strategy validates no name: `rest.BeforeCreate`'s path segment
    // check is all.
    if takes_path_segment_names(kind) {
        return path_segment_errors(name);
    }
    let mut errors = Vec::new();
    let (limit, shaped, why) = match kind {
        "Namespace" | "StatefulSet" => (63, is_label_shaped(name), DNS_LABEL),
        "Service" => (
            63,
            is_label_shaped(name) && name.starts_with(|c: char| c.is_ascii_lowercase()),
            DNS_1035_LABEL,
        ),
        _ => (253, name.split('.').all(is_label_shaped), DNS_SUBDOMAIN),
    };
    if name.len() > limit {
        errors.push(format!("must be no more than {limit} characters"));
    }
    if !shaped {
        // `IsDNS1123Label`: a name that is a subdomain fails as a label by its dots alone.
        let dotted = why == DNS_LABEL && name.split('.').all(is_label_shaped);
        errors.push(if dotted { "must not contain dots" } else { why }.to_owned());
    }
    errors
}

/// apimachinery's `rand` alphabet: no vowels (no words) and no look-alikes (`0`, `1`, `3`).
const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

/// The five characters kube-apiserver appends to `generateName`.
pub(crate) fn generated_suffix() -> String {
    let bytes = uuid::Uuid::new_v4().into_bytes();
    safe_encode(&bytes[..5])
}

/// `rand.SafeEncodeString`: each byte as one character of the alphabet.
pub(crate) fn safe_encode(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| ALPHABET[*b as usize % ALPHABET.len()] as char)
        .collect()
}

/// `validation.IsDNS1123Subdomain`.
pub(crate) fn dns1123_subdomain_errors(value: &str) -> Vec<String> {
    object_name_errors("", value)
}

/// `validation.IsDNS1123Label`.
pub(crate) fn dns1123_label_errors(value: &str) -> Vec<String> {
    object_name_errors("Namespace", value)
}

/// `validation.IsDNS1035Label`.
pub(crate) fn dns1035_label_errors(value: &str) -> Vec<String> {
    object_name_errors("Service", value)
}

/// Whether a kind's names are only checked as a path segment (and a CSR's not at all).
pub(crate) fn takes_path_segment_names(kind: &str) -> bool {
    matches!(
        kind,
        "Role"
            | "ClusterRole"
            | "RoleBinding"
            | "ClusterRoleBinding"
            | "APIService"
            | "PodDisruptionBudget"
            | "CertificateSigningRequest"
    )
}

/// `path.IsValidPathSegmentName`: not `.` or `..`, without `/` or `%`.
pub(crate) fn path_segment_errors(name: &str) -> Vec<String> {
    if let Some(bad) = [".", ".."].into_iter().find(|bad| name == *bad) {
        return vec![format!("may not be '{bad}'")];
    }
    ["/", "%"]
        .into_iter()
        .filter(|bad| name.contains(bad))
        .map(|bad| format!("may not contain '{bad}'"))
        .collect()
}

/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`, non-empty.
fn is_qualified_part(name: &str) -> bool {
    let bytes = name.as_bytes();
    let inner = |b: &u8| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.');
    !bytes.is_empty()
        && bytes[0].is_ascii_alphanumeric()
        && bytes[bytes.len() - 1].is_ascii_alphanumeric()
        && bytes.iter().all(inner)
}

/// Why `value` is not a qualified name (`[prefix/]name`), as `IsQualifiedName` says it.
pub(crate) fn qualified_name_errors(value: &str) -> Vec<String> {
    let parts: Vec<&str> = value.split('/').collect();
    let mut errors = Vec::new();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                errors.push("prefix part must be non-empty".to_owned());
            } else if prefix.len() > 253 {
                errors.push("prefix part must be no more than 253 characters".to_owned());
            } else if !is_dns_subdomain(prefix) {
                errors.push(format!("prefix part {DNS_SUBDOMAIN}"));
            }
            *name
        }
        _ => {
            return vec![format!(
                "a qualified name {QUALIFIED_NAME} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
            )];
        }
    };
    if name.is_empty() {
        errors.push("name part must be non-empty".to_owned());
    } else if name.len() > 63 {
        errors.push("name part must be no more than 63 characters".to_owned());
    }
    if !is_qualified_part(name) {
        errors.push(format!("name part {QUALIFIED_NAME}"));
    }
    errors
}

/// Why `value` is not a label value.
pub(crate) fn label_value_errors(value: &str) -> Vec<String> {
    let mut errors = Vec::new();
    if value.len() > 63 {
        errors.push("must be no more than 63 characters".to_owned());
    }
    if !value.is_empty() && !is_qualified_part(value) {
        errors.push(LABEL_VALUE.to_owned());
    }
    errors
}

/// `Invalid value: <Go's %#v of the value>: <why>`, the message of a field error.
pub(crate) fn invalid(value: &Value, why: &str) -> String {
    let shown = match value {
        Value::String(s) => format!("{s:?}"),
        other => other.to_string(),
    };
    format!("Invalid value: {shown}: {why}")
}

/// Go's `%#v` of a decoded JSON value, as field errors print values that are not strings or
/// numbers: `map[string]interface {}{"name":"http"}` (keys sorted), `[]interface {}{"a", 1}`.
pub(crate) fn go_syntax(value: &Value) -> String {
    match value {
        Value::Null => "interface {}(nil)".to_owned(),
        Value::String(s) => format!("{s:?}"),
        Value::Bool(_) | Value::Number(_) => value.to_string(),
        Value::Array(items) => {
            let shown: Vec<String> = items.iter().map(go_syntax).collect();
            format!("[]interface {{}}{{{}}}", shown.join(", "))
        }
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            let shown: Vec<String> = entries.iter().map(|(k, v)| format!("{k:?}:{}", go_syntax(v))).collect();
            format!("map[string]interface {{}}{{{}}}", shown.join(", "))
        }
    }
}

/// What Go prints for a pointer that is not nil: its address, which no answer can depend on,
/// so this server prints a fixed one.
pub(crate) const ADDRESS: &str = "0xc000000000";

/// Go's `%#v` of a pointer field: `(*T)(nil)`, or the address when the field is set.
pub(crate) fn go_pointer(ty: &str, value: Option<&Value>) -> String {
    match value.filter(|v| !v.is_null()) {
        Some(_) => format!("(*{ty})({ADDRESS})"),
        None => format!("(*{ty})(nil)"),
    }
}

/// Go's `%#v` of a `[]string`: `[]string{"a", "b"}`.
pub(crate) fn go_strings(items: &[String]) -> String {
    let shown: Vec<String> = items.iter().map(|s| format!("{s:?}")).collect();
    format!("[]string{{{}}}", shown.join(", "))
}

/// The field errors of an object's labels, annotation keys and finalizer names.
pub(crate) fn metadata_errors(object: &Value) -> Vec<(String, String)> {
    let mut errors = Vec::new();
    let meta = object.get("metadata");
    let map = |key: &str| meta.and_then(|m| m.get(key)).and_then(Value::as_object);
    for (key, value) in map("labels").into_iter().flatten() {
        for why in qualified_name_errors(key) {
            errors.push(("metadata.labels".to_owned(), invalid(&Value::from(key.as_str()), &why)));
        }
        for why in label_value_errors(value.as_str().unwrap_or_default()) {
            errors.push(("metadata.labels".to_owned(), invalid(value, &why)));
        }
    }
    for key in map("annotations").into_iter().flatten().map(|(k, _)| k) {
        for why in qualified_name_errors(&key.to_lowercase()) {
            errors.push((
                "metadata.annotations".to_owned(),
                invalid(&Value::from(key.as_str()), &why),
            ));
        }
    }
    // `ValidateFinalizers`: each name, then the two deletion policies' finalizers together.
    let finalizers = object::finalizers(object);
    for finalizer in &finalizers {
        for why in qualified_name_errors(finalizer) {
            errors.push((
                "metadata.finalizers".to_owned(),
                invalid(&Value::from(finalizer.as_str()), &why),
            ));
        }
    }
    let has = |name: &str| finalizers.iter().any(|f| f == name);
    if has("orphan") && has("foregroundDeletion") {
        errors.push((
            "metadata.finalizers".to_owned(),
            format!(
                "Invalid value: {}: finalizer orphan and foregroundDeletion cannot be both set",
                go_strings(&finalizers)
            ),
        ));
    }
    errors
}

/// `validation.IsValidPortName`: an IANA service name.
pub(crate) fn port_name_errors(name: &str) -> Vec<&'static str> {
    let mut errors = Vec::new();
    if name.len() > 15 {
        errors.push("must be no more than 15 characters");
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        errors.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
    }
    if name.contains("--") {
        errors.push("must not contain consecutive hyphens");
    }
    if !name.bytes().any(|b| b.is_ascii_lowercase()) {
        errors.push("must contain at least one letter (a-z)");
    }
    if name.starts_with('-') || name.ends_with('-') {
        errors.push("must not begin or end with a hyphen");
    }
    errors
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn object_names_are_checked_per_kind() {
        assert!(object_name_errors("ConfigMap", "a.b-c").is_empty());
        assert_eq!(
            object_name_errors("ConfigMap", &"a".repeat(254)),
            ["must be no more than 253 characters"]
        );
        // A subdomain is no label by its dots alone (`IsDNS1123Label`).
        assert_eq!(object_name_errors("Namespace", "a.b"), ["must not contain dots"]);
        assert!(object_name_errors("Namespace", "a_b")[0].starts_with("a lowercase RFC 1123 label"));
        assert!(dns1123_label_errors("a..b")[0].starts_with("a lowercase RFC 1123 label"));
        assert!(object_name_errors("Service", "1abc")[0].starts_with("a DNS-1035 label"));
        assert_eq!(object_name_errors("Namespace", &"A".repeat(64)).len(), 2);
    }

    #[test]
    fn qualified_names_are_checked_as_kube_apiserver_does() {
        assert!(qualified_name_errors("app.kubernetes.io/name").is_empty());
        assert!(qualified_name_errors("-bad/key/x")[0].starts_with("a qualified name must consist"));
        assert!(qualified_name_errors("Bad_Prefix/x")[0].starts_with("prefix part a lowercase RFC 1123"));
        assert!(label_value_errors("").is_empty());
        assert_eq!(label_value_errors("not a valid value!").len(), 1);
    }
}
