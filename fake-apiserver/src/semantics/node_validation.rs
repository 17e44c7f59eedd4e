//! Validation of Nodes as kube-apiserver's `pkg/apis/core/validation/validation.go` has it:
//! `ValidateNode` (taints, resource quantities, pod CIDRs) and `ValidateNodeUpdate` (what may
//! not change once set, duplicate addresses). The node strategy runs both on an update of the
//! node and only the second on a `/status` write (`pkg/registry/core/node/strategy.go`), so
//! an update reports a bad taint twice, as kube-apiserver does. Taint errors are reported under
//! `metadata.taints`, as `ValidateNode` (wrongly, but observably) names them.

use std::net::IpAddr;

use serde_json::Value;

use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::names;
use crate::semantics::quantity_validation::resource_quantity_errors;
use crate::storage::object;

/// The taint effects a node's taint may have.
const TAINT_EFFECTS: &[&str] = &["NoSchedule", "PreferNoSchedule", "NoExecute"];

/// `ValidateNode`, less the object metadata checked for every kind.
pub(crate) fn node_errors(node: &Value) -> Vec<FieldError> {
    let mut errors = taint_errors(node.pointer("/spec/taints"), "metadata.taints");
    errors.extend(resource_errors(node));
    let cidrs = object::string_list(node.pointer("/spec/podCIDRs"));
    let field = "spec.podCIDRs";
    for (i, cidr) in cidrs.iter().enumerate() {
        if parse_cidr(cidr).is_err() {
            let shown = BadValue::Strings(cidrs.clone());
            errors.push(FieldError::invalid(
                format!("{field}[{i}]"),
                shown,
                "must be valid CIDR",
            ));
        }
    }
    if cidrs.len() > 1 {
        let dual_stack = match dual_stack(&cidrs) {
            Ok(dual) => dual,
            Err(why) => {
                let detail = format!("invalid PodCIDRs. failed to check with dual stack with error:{why}");
                errors.push(FieldError::internal(field, detail));
                false
            }
        };
        if !dual_stack || cidrs.len() > 2 {
            let detail = "may specify no more than one CIDR for each IP family";
            errors.push(FieldError::invalid(field, BadValue::Strings(cidrs.clone()), detail));
        }
        for (i, cidr) in cidrs.iter().enumerate() {
            if cidrs[..i].contains(cidr) {
                errors.push(FieldError::duplicate(format!("{field}[{i}]"), cidr.as_str().into()));
            }
        }
    }
    errors
}

/// `ValidateNodeUpdate`, less the object metadata checked for every kind.
pub(crate) fn node_update_errors(node: &Value, old: &Value) -> Vec<FieldError> {
    let mut errors = resource_errors(node);
    let addresses = node
        .pointer("/status/addresses")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    for (i, address) in addresses.iter().enumerate() {
        if addresses[..i].contains(address) {
            let text = |key: &str| address.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
            let shown = format!(
                "core.NodeAddress{{Type:{:?}, Address:{:?}}}",
                text("type"),
                text("address")
            );
            errors.push(FieldError::duplicate(
                format!("status.addresses[{i}]"),
                BadValue::Raw(shown),
            ));
        }
    }
    let old_cidrs = object::string_list(old.pointer("/spec/podCIDRs"));
    let new_cidrs = object::string_list(node.pointer("/spec/podCIDRs"));
    let forbidden = || {
        FieldError::forbidden(
            "spec.podCIDRs",
            "node updates may not change podCIDR except from \"\" to valid",
        )
    };
    if !old_cidrs.is_empty() {
        if old_cidrs.len() != new_cidrs.len() {
            errors.push(forbidden());
        } else {
            errors.extend(
                old_cidrs
                    .iter()
                    .zip(&new_cidrs)
                    .filter(|(a, b)| a != b)
                    .map(|_| forbidden()),
            );
        }
    }
    let provider = |node: &Value| {
        node.pointer("/spec/providerID")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    if !provider(old).is_empty() && provider(old) != provider(node) {
        errors.push(FieldError::forbidden(
            "spec.providerID",
            "node updates may not change providerID except from \"\" to valid",
        ));
    }
    errors.extend(taint_errors(node.pointer("/spec/taints"), "metadata.taints"));
    if node.pointer("/spec/externalID") != old.pointer("/spec/externalID") {
        errors.push(FieldError::forbidden("spec.externalID", "may not be updated"));
    }
    errors
}

/// `ValidateNodeResources`: capacity and allocatable quantities.
fn resource_errors(node: &Value) -> Vec<FieldError> {
    let mut errors = Vec::new();
    for list in ["capacity", "allocatable"] {
        let entries = node.pointer(&format!("/status/{list}")).and_then(Value::as_object);
        for (resource, value) in entries.into_iter().flatten() {
            let field = format!("status.{list}.{resource}");
            errors.extend(resource_quantity_errors(
                resource,
                value.as_str().unwrap_or_default(),
                &field,
            ));
        }
    }
    errors
}

/// `validateNodeTaints`: each key a qualified name, each value a label value, each effect one
/// of the three, and no key repeated with the same effect.
fn taint_errors(taints: Option<&Value>, field: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let mut seen: Vec<(String, String)> = Vec::new();
    for (i, taint) in taints.and_then(Value::as_array).into_iter().flatten().enumerate() {
        let text = |key: &str| taint.get(key).and_then(Value::as_str).unwrap_or_default();
        let (key, value, effect) = (text("key"), text("value"), text("effect"));
        let at = format!("{field}[{i}]");
        for why in names::qualified_name_errors(key) {
            errors.push(FieldError::invalid(format!("{at}.key"), key.into(), why));
        }
        let value_errors = names::label_value_errors(value);
        if !value_errors.is_empty() {
            errors.push(FieldError::invalid(
                format!("{at}.value"),
                value.into(),
                value_errors.join(";"),
            ));
        }
        errors.extend(FieldError::enum_string(&format!("{at}.effect"), effect, TAINT_EFFECTS));
        let pair = (effect.to_owned(), key.to_owned());
        if seen.contains(&pair) {
            let added = if taint.get("timeAdded").is_some_and(|t| !t.is_null()) {
                "(*v1.Time)(0xc000100000)"
            } else {
                "<nil>"
            };
            let shown = format!("core.Taint{{Key:{key:?}, Value:{value:?}, Effect:{effect:?}, TimeAdded:{added}}}");
            let mut error = FieldError::duplicate(at, BadValue::Raw(shown));
            error.detail = "taints must be unique by key and effect pair".to_owned();
            errors.push(error);
            continue;
        }
        seen.push(pair);
    }
    errors
}

/// Go's `net.ParseCIDR`, as netutils' sloppy variant (leading zeros in IPv4 octets allowed):
/// the address and prefix length, or Go's `invalid CIDR address: <text>`.
pub(crate) fn parse_cidr(text: &str) -> Result<(IpAddr, u8), String> {
    let invalid = || format!("invalid CIDR address: {text}");
    let (address, bits) = text.split_once('/').ok_or_else(invalid)?;
    let address = if address.contains(':') {
        address.to_owned()
    } else {
        // Sloppy parsing reads `010` as ten.
        let octets: Vec<String> = address
            .split('.')
            .map(|o| {
                let trimmed = o.trim_start_matches('0');
                if trimmed.is_empty() && !o.is_empty() {
                    "0".to_owned()
                } else {
                    trimmed.to_owned()
                }
            })
            .collect();
        octets.join(".")
    };
    let ip: IpAddr = address.parse().map_err(|_| invalid())?;
    let max = if ip.is_ipv4() { 32 } else { 128 };
    if bits.is_empty() || bits.len() > 3 || !bits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(invalid());
    }
    let bits: u8 = bits.parse().map_err(|_| invalid())?;
    if bits > max {
        return Err(invalid());
    }
    Ok((ip, bits))
}

/// netutils' `IsDualStackCIDRStrings`: whether the CIDRs hold both families; the first that
/// does not parse is an error, printed as netutils prints it.
fn dual_stack(cidrs: &[String]) -> Result<bool, String> {
    let mut families = (false, false);
    for (i, cidr) in cidrs.iter().enumerate() {
        let (ip, _) = parse_cidr(cidr).map_err(|why| format!("invalid CIDR[{i}]: <nil> ({why})"))?;
        if ip.is_ipv4() {
            families.0 = true;
        } else {
            families.1 = true;
        }
    }
    Ok(families.0 && families.1)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn rendered(errors: &[FieldError]) -> Vec<String> {
        errors.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn a_node_should_be_refused_as_validate_node_refuses_it() {
        let node = json!({
            "spec": {"podCIDRs": ["not-a-cidr", "10.0.0.0/24", "10.1.0.0/24"],
                     "taints": [{"key": "k", "value": "bad value!", "effect": "NoSchedule"}]},
            "status": {"capacity": {"cpu": "-1"}}
        });
        let errors = rendered(&node_errors(&node));
        assert!(errors[0].starts_with("metadata.taints[0].value: Invalid value: \"bad value!\""));
        assert_eq!(
            errors[1],
            "status.capacity.cpu: Invalid value: \"-1\": must be greater than or equal to 0"
        );
        assert!(errors[2].starts_with("spec.podCIDRs[0]: Invalid value: []string{\"not-a-cidr\""));
        assert_eq!(
            errors[3],
            "spec.podCIDRs: Internal error: invalid PodCIDRs. failed to check with dual stack with error:invalid CIDR[0]: <nil> (invalid CIDR address: not-a-cidr)"
        );
        assert!(errors[4].ends_with("may specify no more than one CIDR for each IP family"));
    }

    #[test]
    fn taints_should_be_unique_by_key_and_effect() {
        let taints = json!([{"key": "a", "effect": "NoSchedule"}, {"key": "a", "effect": "NoSchedule"}, {"key": "a"}]);
        let errors = rendered(&taint_errors(Some(&taints), "metadata.taints"));
        assert_eq!(
            errors,
            [
                "metadata.taints[1]: Duplicate value: core.Taint{Key:\"a\", Value:\"\", Effect:\"NoSchedule\", TimeAdded:<nil>}: taints must be unique by key and effect pair",
                "metadata.taints[2].effect: Required value",
            ]
        );
    }

    #[test]
    fn pod_cidrs_and_provider_ids_should_be_set_once() {
        let old = json!({"spec": {"podCIDRs": ["10.0.0.0/24"], "providerID": "a"}});
        let new = json!({"spec": {"podCIDRs": ["10.0.1.0/24"], "providerID": "b"}});
        let errors = rendered(&node_update_errors(&new, &old));
        assert_eq!(errors.len(), 2);
        assert!(node_update_errors(&old, &json!({"spec": {}})).is_empty());
        assert_eq!(parse_cidr("010.0.0.0/8").map(|(_, bits)| bits), Ok(8));
        assert!(parse_cidr("fd00::/129").is_err());
    }
}
