//! The address rules of a Service, as kube-apiserver v1.28's
//! `pkg/apis/core/validation/validation.go` has them: `ValidateServiceClusterIPsRelatedFields`
//! (clusterIP, clusterIPs, ipFamilies, ipFamilyPolicy on their own and together),
//! `validateUpgradeDowngradeClusterIPs` and `validateUpgradeDowngradeIPFamilies` (what an
//! update may change), `ValidateNonSpecialIP` (external IPs), and the IP parsing they rest on
//! (`netutils.ParseIPSloppy`: IPv4 fields may have leading zeros).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use serde_json::Value;

use crate::semantics::field_error::{BadValue, FieldError};
use crate::storage::object;

/// What `validation.IsValidIP` answers for text that is no IP address.
pub(crate) const NOT_AN_IP: &str = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)";

/// A string field of a Service's spec ("" when unset).
pub(crate) fn text<'a>(spec: &'a Value, key: &str) -> &'a str {
    spec.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// A string list field of a Service's spec (empty when unset).
pub(crate) fn strings(spec: &Value, key: &str) -> Vec<String> {
    object::string_list(spec.get(key))
}

/// Whether a pointer field of a Service's spec is set (JSON `null` is Go's nil).
pub(crate) fn is_set(spec: &Value, key: &str) -> bool {
    spec.get(key).is_some_and(|v| !v.is_null())
}

/// `isHeadlessService`: the one cluster IP is `None`.
pub(crate) fn is_headless(spec: &Value) -> bool {
    strings(spec, "clusterIPs") == ["None"]
}

/// `netutils.ParseIPSloppy`: Go's pre-1.17 `net.ParseIP`, which reads `010.1.1.1` as
/// `10.1.1.1`; the parser is chosen by the first of `.` and `:`.
pub(crate) fn parse_ip(text: &str) -> Option<IpAddr> {
    let first = text.bytes().find(|b| matches!(b, b'.' | b':'))?;
    if first == b':' {
        return text.parse::<Ipv6Addr>().ok().map(IpAddr::V6);
    }
    let fields: Vec<&str> = text.split('.').collect();
    if fields.len() != 4 {
        return None;
    }
    let mut octets = [0u8; 4];
    for (octet, field) in octets.iter_mut().zip(&fields) {
        if field.is_empty() || !field.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let digits = field.trim_start_matches('0');
        *octet = if digits.is_empty() { 0 } else { digits.parse().ok()? };
    }
    Some(IpAddr::V4(Ipv4Addr::from(octets)))
}

/// `netutils.IsIPv6String`: an address that is not IPv4 (an IPv4-mapped one counts as IPv4).
pub(crate) fn is_ipv6(text: &str) -> bool {
    matches!(parse_ip(text), Some(IpAddr::V6(ip)) if ip.to_ipv4_mapped().is_none())
}

/// `ValidateNonSpecialIP`: an address a Service may route (external IPs).
pub(crate) fn non_special_ip_errors(address: &str, field: &str) -> Vec<FieldError> {
    let Some(ip) = parse_ip(address) else {
        return vec![FieldError::invalid(field, address.into(), "must be a valid IP address")];
    };
    // Go works on the 16-byte form: an IPv4-mapped address is judged as IPv4.
    let ip = match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    };
    let (unspecified, loopback, link_local, link_local_multicast) = match ip {
        IpAddr::V4(v4) => (
            v4.is_unspecified(),
            v4.is_loopback(),
            v4.is_link_local(),
            v4.octets()[..3] == [224, 0, 0],
        ),
        IpAddr::V6(v6) => (
            v6.is_unspecified(),
            v6.is_loopback(),
            v6.segments()[0] & 0xffc0 == 0xfe80,
            v6.octets()[0] == 0xff && v6.octets()[1] & 0x0f == 0x02,
        ),
    };
    let mut errors = Vec::new();
    let mut refuse = |why: String| errors.push(FieldError::invalid(field, address.into(), why));
    if unspecified {
        refuse(format!("may not be unspecified ({address})"));
    }
    if loopback {
        refuse("may not be in the loopback range (127.0.0.0/8, ::1/128)".to_owned());
    }
    if link_local {
        refuse("may not be in the link-local range (169.254.0.0/16, fe80::/10)".to_owned());
    }
    if link_local_multicast {
        refuse("may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)".to_owned());
    }
    errors
}

/// `ValidateServiceClusterIPsRelatedFields`: also run by the allocator before it allocates.
pub(crate) fn cluster_ips_related_errors(spec: &Value) -> Vec<FieldError> {
    if text(spec, "type") == "ExternalName" {
        // ValidateService forbids all of them for an ExternalName Service.
        return Vec::new();
    }
    let mut errors = Vec::new();
    let ips = strings(spec, "clusterIPs");
    let shown = || BadValue::Strings(ips.clone());
    let field = "spec.clusterIPs";
    if !text(spec, "clusterIP").is_empty() {
        if ips.is_empty() {
            errors.push(FieldError::required(field, ""));
        } else if ips[0] != text(spec, "clusterIP") {
            errors.push(FieldError::invalid(
                field,
                shown(),
                "first value must match `clusterIP`",
            ));
        }
    } else if !ips.is_empty() {
        let why = "must be empty when `clusterIP` is not specified";
        errors.push(FieldError::invalid(field, shown(), why));
    }
    let families = strings(spec, "ipFamilies");
    for (i, family) in families.iter().enumerate() {
        let at = format!("spec.ipFamilies[{i}]");
        if !matches!(family.as_str(), "IPv4" | "IPv6") {
            let supported = ["IPv4".to_owned(), "IPv6".to_owned()];
            errors.push(FieldError::not_supported(&at, family.as_str().into(), &supported));
        }
        if families[..i].contains(family) {
            errors.push(FieldError::duplicate(&at, family.as_str().into()));
        }
    }
    let policy = text(spec, "ipFamilyPolicy");
    if is_set(spec, "ipFamilyPolicy") && !matches!(policy, "SingleStack" | "PreferDualStack" | "RequireDualStack") {
        let supported = ["PreferDualStack", "RequireDualStack", "SingleStack"].map(str::to_owned);
        errors.push(FieldError::not_supported(
            "spec.ipFamilyPolicy",
            policy.into(),
            &supported,
        ));
    }
    let mut has_invalid_ips = false;
    for (i, ip) in ips.iter().enumerate() {
        if i == 0 && ip == "None" {
            if ips.len() > 1 {
                has_invalid_ips = true;
                errors.push(FieldError::invalid(
                    field,
                    shown(),
                    "'None' must be the first and only value",
                ));
            }
            continue;
        }
        if parse_ip(ip).is_none() {
            has_invalid_ips = true;
            errors.push(FieldError::invalid(
                format!("{field}[{i}]"),
                ip.as_str().into(),
                NOT_AN_IP,
            ));
        }
    }
    if ips.len() > 2 {
        errors.push(FieldError::invalid(field, shown(), "may only hold up to 2 values"));
    }
    // A bad address would skew the dual-stack checks: Go stops here.
    if has_invalid_ips {
        return errors;
    }
    if ips.len() > 1 {
        // `IsDualStackIPStrings`: at least one address of each family.
        let v6 = ips.iter().filter(|ip| is_ipv6(ip)).count();
        if v6 == 0 || v6 == ips.len() {
            let why = "may specify no more than one IP for each IP family";
            errors.push(FieldError::invalid(field, shown(), why));
        }
    }
    if !is_headless(spec) {
        for (i, (ip, family)) in ips.iter().zip(&families).enumerate() {
            let wanted = match (family.as_str(), is_ipv6(ip)) {
                ("IPv4", true) => "IPv4",
                ("IPv6", false) => "IPv6",
                _ => continue,
            };
            let why = format!("expected an {wanted} value as indicated by `ipFamilies[{i}]`");
            errors.push(FieldError::invalid(format!("{field}[{i}]"), ip.as_str().into(), why));
        }
    }
    errors
}

/// `validateUpgradeDowngradeClusterIPs` and `validateUpgradeDowngradeIPFamilies`: an update
/// may add or release the secondary address or family, never change the primary one (unless
/// it is from, to or on an ExternalName Service).
pub(crate) fn upgrade_downgrade_errors(new: &Value, old: &Value) -> Vec<FieldError> {
    if text(new, "type") == "ExternalName" || text(old, "type") == "ExternalName" {
        return Vec::new();
    }
    let mut errors = Vec::new();
    let (old_headless, new_headless) = (is_headless(old), is_headless(new));
    let (old_ips, new_ips) = (strings(old, "clusterIPs"), strings(new, "clusterIPs"));
    let ips_shown = || BadValue::Strings(new_ips.clone());
    let policy_shown = || match new.get("ipFamilyPolicy").and_then(Value::as_str) {
        Some(policy) => BadValue::Str(policy.to_owned()),
        None => BadValue::Json(Value::Null),
    };
    let changed = "may not change once set";
    let ip0 = "spec.clusterIPs[0]";
    if !(old_headless && new_headless) {
        if old_ips.len() == new_ips.len() {
            for (i, (a, b)) in old_ips.iter().zip(&new_ips).enumerate() {
                if a != b {
                    errors.push(FieldError::invalid(
                        format!("spec.clusterIPs[{i}]"),
                        ips_shown(),
                        changed,
                    ));
                }
            }
        } else if old_ips.len() > new_ips.len() {
            if new_ips.is_empty() {
                errors.push(FieldError::invalid(
                    ip0,
                    ips_shown(),
                    "primary clusterIP can not be unset",
                ));
            }
            if !old_ips.is_empty() && !new_ips.is_empty() && new_ips[0] != old_ips[0] {
                errors.push(FieldError::invalid(ip0, ips_shown(), changed));
            }
            if new_ips.len() == 1 && text(new, "ipFamilyPolicy") != "SingleStack" {
                let why = "must be set to 'SingleStack' when releasing the secondary clusterIP";
                errors.push(FieldError::invalid("spec.ipFamilyPolicy", policy_shown(), why));
            }
        } else if !old_ips.is_empty() && new_ips[0] != old_ips[0] {
            errors.push(FieldError::invalid(ip0, ips_shown(), changed));
        }
    }
    // Families: headless Services, and changes to or from headless, may change them.
    if old_headless != new_headless || new_headless {
        return errors;
    }
    let (old_families, new_families) = (strings(old, "ipFamilies"), strings(new, "ipFamilies"));
    // The Go value is a []core.IPFamily, printed with %#v.
    let families_shown = || {
        if new_families.is_empty() {
            BadValue::Raw("[]core.IPFamily(nil)".to_owned())
        } else {
            let quoted: Vec<String> = new_families.iter().map(|f| format!("{f:?}")).collect();
            BadValue::Raw(format!("[]core.IPFamily{{{}}}", quoted.join(", ")))
        }
    };
    let family0 = "spec.ipFamilies[0]";
    if old_families.len() == new_families.len() {
        // Go names the first family whichever differs.
        for (a, b) in old_families.iter().zip(&new_families) {
            if a != b {
                errors.push(FieldError::invalid(family0, families_shown(), changed));
            }
        }
    } else if old_families.len() > new_families.len() {
        if new_ips.is_empty() {
            let why = "primary ipFamily can not be unset";
            errors.push(FieldError::invalid(family0, families_shown(), why));
        }
        if !new_families.is_empty() && new_families[0] != old_families[0] {
            errors.push(FieldError::invalid(family0, ips_shown(), changed));
        }
        if new_families.len() == 1 && text(new, "ipFamilyPolicy") != "SingleStack" {
            let why = "must be set to 'SingleStack' when releasing the secondary ipFamily";
            errors.push(FieldError::invalid("spec.ipFamilyPolicy", policy_shown(), why));
        }
    } else if !old_families.is_empty() && !new_families.is_empty() && new_families[0] != old_families[0] {
        errors.push(FieldError::invalid(family0, ips_shown(), changed));
    }
    errors
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn rendered(errors: &[FieldError]) -> Vec<String> {
        errors.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn parse_ip_should_take_leading_zeros_as_the_sloppy_parser_does() {
        assert_eq!(
            parse_ip("010.096.000.001"),
            Some(IpAddr::V4(Ipv4Addr::new(10, 96, 0, 1)))
        );
        assert!(parse_ip("10.96.0").is_none());
        assert!(parse_ip("256.1.1.1").is_none());
        assert!(parse_ip("not-an-ip").is_none());
        assert!(is_ipv6("2001:db8::1"));
        assert!(!is_ipv6("::ffff:10.0.0.1"));
    }

    #[test]
    fn special_ips_should_be_refused_as_external_ips() {
        let errors = rendered(&non_special_ip_errors("0.0.0.0", "spec.externalIPs[1]"));
        assert_eq!(
            errors,
            ["spec.externalIPs[1]: Invalid value: \"0.0.0.0\": may not be unspecified (0.0.0.0)"]
        );
        assert_eq!(non_special_ip_errors("169.254.1.1", "f").len(), 1);
        assert_eq!(non_special_ip_errors("224.0.0.5", "f").len(), 1);
        assert!(non_special_ip_errors("192.0.2.1", "f").is_empty());
    }

    #[test]
    fn cluster_ips_should_match_the_cluster_ip_and_their_families() {
        let spec = json!({"clusterIP": "10.96.0.247", "clusterIPs": ["10.96.0.248"]});
        assert_eq!(
            rendered(&cluster_ips_related_errors(&spec)),
            ["spec.clusterIPs: Invalid value: []string{\"10.96.0.248\"}: first value must match `clusterIP`"]
        );
        let spec = json!({"clusterIP": "10.96.0.252", "clusterIPs": ["10.96.0.252"], "ipFamilies": ["IPv6"]});
        assert_eq!(
            rendered(&cluster_ips_related_errors(&spec)),
            [
                "spec.clusterIPs[0]: Invalid value: \"10.96.0.252\": expected an IPv6 value as indicated by `ipFamilies[0]`"
            ]
        );
        let spec = json!({"ipFamilyPolicy": "Dual"});
        assert_eq!(
            rendered(&cluster_ips_related_errors(&spec)),
            [
                "spec.ipFamilyPolicy: Unsupported value: \"Dual\": supported values: \"PreferDualStack\", \"RequireDualStack\", \"SingleStack\""
            ]
        );
    }

    #[test]
    fn the_primary_cluster_ip_should_not_change() {
        let old = json!({"type": "ClusterIP", "clusterIPs": ["10.96.0.250"], "ipFamilies": ["IPv4"]});
        let new = json!({"type": "ClusterIP", "clusterIPs": ["None"], "ipFamilies": ["IPv4"]});
        assert_eq!(
            rendered(&upgrade_downgrade_errors(&new, &old)),
            ["spec.clusterIPs[0]: Invalid value: []string{\"None\"}: may not change once set"]
        );
        let to_external = json!({"type": "ExternalName"});
        assert!(upgrade_downgrade_errors(&to_external, &old).is_empty());
    }
}
