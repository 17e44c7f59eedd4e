//! The printers of the cluster's own kinds served here: Leases
//! (`pkg/printers/internalversion/printers.go`: `printLease`) and APIServices (kube-aggregator's
//! `registry/apiservice/etcd/etcd.go`: `ConvertToTable`) and CertificateSigningRequests
//! (`printCertificateSigningRequest`), webhook configurations and ValidatingAdmissionPolicies
//! with their bindings (`printValidatingAdmissionPolicy`, `printValidatingAdmissionPolicyBinding`).

use serde_json::{Value, json};

use super::{BuiltinColumn, column, human_duration, text};

const HOLDER_28: &str = "holderIdentity contains the identity of the holder of a current lease.";
const HOLDER_31: &str = "holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field.";

/// The columns after Name of a cluster kind's printer (`age` is the Age column).
pub(super) fn columns(group: &str, kind: &str, age: BuiltinColumn, minor: u32) -> Option<Vec<BuiltinColumn>> {
    Some(match (group, kind) {
        ("coordination.k8s.io", "Lease") => vec![
            column(
                "Holder",
                "string",
                // The field's doc comment, which 1.31 extended for coordinated leader election.
                if minor >= 31 { HOLDER_31 } else { HOLDER_28 },
                |o| text(o, "/spec/holderIdentity"),
            ),
            age,
        ],
        ("apiregistration.k8s.io", "APIService") => vec![
            column(
                "Service",
                "string",
                "The reference to the service that hosts this API endpoint.",
                |o| match o.pointer("/spec/service").filter(|s| s.is_object()) {
                    Some(service) => json!(format!(
                        "{}/{}",
                        service.get("namespace").and_then(Value::as_str).unwrap_or_default(),
                        service.get("name").and_then(Value::as_str).unwrap_or_default()
                    )),
                    None => json!("Local"),
                },
            ),
            column(
                "Available",
                "string",
                "Whether this service is available.",
                api_service_available,
            ),
            age,
        ],
        ("certificates.k8s.io", "CertificateSigningRequest") => vec![
            age,
            column("SignerName", "string", SIGNER_NAME, |o| {
                json!(
                    o.pointer("/spec/signerName")
                        .and_then(Value::as_str)
                        .filter(|s| !s.is_empty())
                        .unwrap_or("<none>")
                )
            }),
            // kube-apiserver describes the requestor with the request's documentation.
            column("Requestor", "string", "Base64-encoded PKCS#10 CSR data", |o| {
                text(o, "/spec/username")
            }),
            column("RequestedDuration", "string", REQUESTED_DURATION, |o| {
                o.pointer("/spec/expirationSeconds")
                    .and_then(Value::as_i64)
                    .map_or(json!("<none>"), |s| json!(human_duration(s)))
            }),
            column(
                "Condition",
                "string",
                "Conditions applied to the request, such as approval or denial.",
                csr_condition,
            ),
        ],
        // `printValidatingWebhook`, `printMutatingWebhook`.
        ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration" | "MutatingWebhookConfiguration") => vec![
            column(
                "Webhooks",
                "integer",
                "Webhooks indicates the number of webhooks registered in this configuration",
                |o| json!(super::count(o, "webhooks")),
            ),
            age,
        ],
        ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy") => vec![
            column(
                "Validations",
                "integer",
                "Validations indicates the number of validation rules defined in this configuration",
                |o| {
                    json!(
                        o.pointer("/spec/validations")
                            .and_then(Value::as_array)
                            .map_or(0, Vec::len)
                    )
                },
            ),
            column(
                "ParamKind",
                "string",
                "ParamKind specifies the kind of resources used to parameterize this policy",
                |o| match o.pointer("/spec/paramKind").filter(|k| k.is_object()) {
                    Some(kind) => json!(format!("{}/{}", text_of(kind, "apiVersion"), text_of(kind, "kind"))),
                    None => json!("<unset>"),
                },
            ),
            age,
        ],
        ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding") => vec![
            column(
                "PolicyName",
                "string",
                "PolicyName indicates the policy definition which the policy binding binded to",
                |o| text(o, "/spec/policyName"),
            ),
            column(
                "ParamRef",
                "string",
                "ParamRef indicates the param resource which sets the configration param",
                |o| json!(param_ref_cell(o.pointer("/spec/paramRef"))),
            ),
            age,
        ],
        _ => return None,
    })
}

fn text_of<'v>(object: &'v Value, key: &str) -> &'v str {
    object.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// A binding's param reference: `namespace/name` (`*/name` in every namespace), else its
/// selector as gogo-protobuf's `String()` writes it, else `<unset>`.
fn param_ref_cell(reference: Option<&Value>) -> String {
    let Some(reference) = reference.filter(|r| r.is_object()) else {
        return "<unset>".to_owned();
    };
    let (name, namespace) = (text_of(reference, "name"), text_of(reference, "namespace"));
    if !name.is_empty() {
        return match namespace {
            "" => format!("*/{name}"),
            namespace => format!("{namespace}/{name}"),
        };
    }
    let Some(selector) = reference.get("selector").filter(|s| s.is_object()) else {
        return "<unset>".to_owned();
    };
    crate::semantics::selector::gogo_string(selector)
}

/// `spec.signerName`'s documentation.
const SIGNER_NAME: &str = "Requested signer for the request. It is a qualified name in the form: `scope-hostname.io/name`. If empty, it will be defaulted:\n 1. If it's a kubelet client certificate, it is assigned\n    \"kubernetes.io/kube-apiserver-client-kubelet\".\n 2. If it's a kubelet serving certificate, it is assigned\n    \"kubernetes.io/kubelet-serving\".\n 3. Otherwise, it is assigned \"kubernetes.io/legacy-unknown\".\nDistribution of trust for signers happens out of band. You can select on this field using `spec.signerName`.";

/// `spec.expirationSeconds`' documentation.
const REQUESTED_DURATION: &str = "expirationSeconds is the requested duration of validity of the issued certificate. The certificate signer may issue a certificate with a different validity duration so a client must check the delta between the notBefore and and notAfter fields in the issued certificate to determine the actual duration.\n\nThe v1.22+ in-tree implementations of the well-known Kubernetes signers will honor this field as long as the requested duration is not greater than the maximum duration they will honor per the --cluster-signing-duration CLI flag to the Kubernetes controller manager.\n\nCertificate signers may not honor this field for various reasons:\n\n  1. Old signer that is unaware of the field (such as the in-tree\n     implementations prior to v1.22)\n  2. Signer whose configured maximum is shorter than the requested duration\n  3. Signer whose configured minimum is longer than the requested duration\n\nThe minimum valid value for expirationSeconds is 600, i.e. 10 minutes.";

/// `extractCSRStatus`: Denied, else Approved, else Pending; then Failed and Issued.
fn csr_condition(csr: &Value) -> Value {
    let conditions = csr.pointer("/status/conditions").and_then(Value::as_array);
    let has = |kind: &str| {
        conditions
            .into_iter()
            .flatten()
            .any(|c| c.get("type").and_then(Value::as_str) == Some(kind))
    };
    let mut status = if has("Denied") {
        "Denied".to_owned()
    } else if has("Approved") {
        "Approved".to_owned()
    } else {
        "Pending".to_owned()
    };
    if has("Failed") {
        status.push_str(",Failed");
    }
    if csr
        .pointer("/status/certificate")
        .and_then(Value::as_str)
        .is_some_and(|c| !c.is_empty())
    {
        status.push_str(",Issued");
    }
    json!(status)
}

/// The Available condition's status, with its reason unless it is True; Unknown without one.
fn api_service_available(service: &Value) -> Value {
    let condition = service
        .pointer("/status/conditions")
        .and_then(Value::as_array)
        .and_then(|c| {
            c.iter()
                .find(|c| c.get("type").and_then(Value::as_str) == Some("Available"))
        });
    let Some(condition) = condition else {
        return json!("Unknown");
    };
    let status = condition.get("status").and_then(Value::as_str).unwrap_or_default();
    match condition.get("reason").and_then(Value::as_str).unwrap_or_default() {
        reason if status != "True" && !reason.is_empty() => json!(format!("{status} ({reason})")),
        _ => json!(status),
    }
}
