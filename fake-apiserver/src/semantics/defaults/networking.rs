//! networking.k8s.io/v1 defaulting as in `pkg/apis/networking/v1/defaults.go`:
//! `SetDefaults_NetworkPolicy`, `SetDefaults_NetworkPolicyPort` and `SetDefaults_IngressClass`.

use serde_json::{Value, json};

use super::default;

/// `SetDefaults_NetworkPolicy` (a policy without types is an Ingress policy, and an Egress one
/// too when it has egress rules) and `SetDefaults_NetworkPolicyPort` (TCP) on every rule's ports.
pub(super) fn network_policy(object: &mut Value) {
    let Some(spec) = object.get_mut("spec").filter(|s| s.is_object()) else {
        return;
    };
    for direction in ["ingress", "egress"] {
        let rules = spec.get_mut(direction).and_then(Value::as_array_mut);
        for rule in rules.into_iter().flatten() {
            let ports = rule.get_mut("ports").and_then(Value::as_array_mut);
            for port in ports.into_iter().flatten() {
                // A nil protocol only: an empty string is a protocol, refused by validation.
                default(port, "protocol", json!("TCP"));
            }
        }
    }
    let has = |key: &str| spec.get(key).and_then(Value::as_array).is_some_and(|l| !l.is_empty());
    if !has("policyTypes") {
        let mut types = vec![json!("Ingress")];
        if has("egress") {
            types.push(json!("Egress"));
        }
        spec["policyTypes"] = Value::Array(types);
    }
}

/// `SetDefaults_IngressClass`: parameters without a scope are cluster-scoped.
pub(super) fn ingress_class(object: &mut Value) {
    if let Some(parameters) = object.pointer_mut("/spec/parameters").filter(|p| p.is_object()) {
        default(parameters, "scope", json!("Cluster"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policies_should_default_types_and_protocols() {
        let mut policy = json!({"spec": {"ingress": [{"ports": [{"port": 80}, {"protocol": "UDP"}]}], "egress": [{}]}});
        network_policy(&mut policy);
        assert_eq!(policy["spec"]["policyTypes"], json!(["Ingress", "Egress"]));
        assert_eq!(policy["spec"]["ingress"][0]["ports"][0]["protocol"], "TCP");
        assert_eq!(policy["spec"]["ingress"][0]["ports"][1]["protocol"], "UDP");
        let mut explicit = json!({"spec": {"policyTypes": ["Egress"], "egress": []}});
        network_policy(&mut explicit);
        assert_eq!(explicit["spec"]["policyTypes"], json!(["Egress"]));
        let mut bare = json!({"spec": {"egress": []}});
        network_policy(&mut bare);
        assert_eq!(bare["spec"]["policyTypes"], json!(["Ingress"]));
    }

    #[test]
    fn ingress_class_parameters_should_default_to_cluster_scope() {
        let mut class = json!({"spec": {"parameters": {"kind": "K", "name": "n"}}});
        ingress_class(&mut class);
        assert_eq!(class["spec"]["parameters"]["scope"], "Cluster");
        let mut none = json!({"spec": {}});
        ingress_class(&mut none);
        assert_eq!(none, json!({"spec": {}}));
    }
}
