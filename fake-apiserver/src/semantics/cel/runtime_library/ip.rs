//! Kubernetes' IP and CIDR libraries (`apiserver/pkg/cel/library/{ip,cidr}.go`) and their `net.IP` and `net.CIDR` values (`apiserver/pkg/cel/{ip,cidr}.go`), on the `net/netip` port of `netip.rs`.

use std::any::Any;

use cel::common::types::{CelBool, CelInt, CelString, Type};
use cel::common::value::{StaticVal, Val};
use cel::{DeclarationError, Env, ExecutionError, add_member_overload, add_overload};

use super::go_error;
use crate::semantics::field_error::go_quote;
use crate::semantics::go_netip::{self as netip, Addr, Prefix};

static IP_TYPE: Type = Type::new_unspecified_type("net.IP");
static CIDR_TYPE: Type = Type::new_unspecified_type("net.CIDR");

/// A `net.IP`: an address without a zone that is not an IPv4-mapped IPv6 one.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Ip(Addr);

/// A `net.CIDR`.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Cidr(Prefix);

pub(super) fn register(env: &mut Env) -> Result<(), DeclarationError> {
    add_overload!(env, fn ip: (CelString) -> Result<Ip>, id = "string_to_ip")?;
    add_member_overload!(env, fn family: (Ip) -> CelInt, id = "ip_family")?;
    add_overload!(env, fn is_canonical: (CelString) -> Result<CelBool>, name = "ip.isCanonical", id = "ip_is_canonical")?;
    add_member_overload!(env, fn is_unspecified: (Ip) -> CelBool, id = "ip_is_unspecified")?;
    add_member_overload!(env, fn is_loopback: (Ip) -> CelBool, id = "ip_is_loopback")?;
    add_member_overload!(env, fn is_link_local_multicast: (Ip) -> CelBool, id = "ip_is_link_local_multicast")?;
    add_member_overload!(env, fn is_link_local_unicast: (Ip) -> CelBool, id = "ip_is_link_local_unicast")?;
    add_member_overload!(env, fn is_global_unicast: (Ip) -> CelBool, id = "ip_is_global_unicast")?;
    add_overload!(env, fn is_ip: (CelString) -> CelBool, name = "isIP", id = "is_ip")?;
    add_overload!(env, fn cidr: (CelString) -> Result<Cidr>, id = "string_to_cidr")?;
    add_member_overload!(env, fn contains_ip_string: (Cidr, CelString) -> Result<CelBool>, name = "containsIP", id = "cidr_contains_ip_string")?;
    add_member_overload!(env, fn contains_ip: (Cidr, Ip) -> CelBool, name = "containsIP", id = "cidr_contains_ip_ip")?;
    add_member_overload!(env, fn contains_cidr_string: (Cidr, CelString) -> Result<CelBool>, name = "containsCIDR", id = "cidr_contains_cidr_string")?;
    add_member_overload!(env, fn contains_cidr: (Cidr, Cidr) -> CelBool, name = "containsCIDR", id = "cidr_contains_cidr")?;
    add_member_overload!(env, fn cidr_ip: (Cidr) -> Ip, name = "ip", id = "cidr_ip")?;
    add_member_overload!(env, fn prefix_length: (Cidr) -> CelInt, id = "cidr_prefix_length")?;
    add_member_overload!(env, fn masked: (Cidr) -> Cidr, id = "cidr_masked")?;
    add_overload!(env, fn is_cidr: (CelString) -> CelBool, name = "isCIDR", id = "is_cidr")?;
    Ok(())
}

/// `string()` of an IP or a CIDR, which `ConvertToType` gives.
pub(super) fn display(value: &dyn Val) -> Option<String> {
    if let Some(Ip(addr)) = value.downcast_ref::<Ip>() {
        return Some(addr.to_string());
    }
    value.downcast_ref::<Cidr>().map(|Cidr(prefix)| prefix.to_string())
}

macro_rules! opaque_value {
    ($value:ty, $type:ident) => {
        impl Val for $value {
            fn get_type(&self) -> &Type {
                &$type
            }

            fn cel_type() -> &'static Type {
                &$type
            }

            /// `Equal`: the same address (and prefix length).
            fn equals(&self, other: &dyn Val) -> bool {
                other.downcast_ref::<$value>().is_some_and(|other| other == self)
            }

            fn clone_as_boxed<'v>(&self) -> Box<dyn Val + 'v> {
                Box::new(self.clone())
            }

            fn as_any(&self) -> Option<&dyn Any> {
                Some(self)
            }
        }

        impl StaticVal for $value {}
    };
}

opaque_value!(Ip, IP_TYPE);
opaque_value!(Cidr, CIDR_TYPE);

/// `parseIPAddr`.
fn parse_ip(raw: &str) -> Result<Addr, String> {
    let addr = netip::parse_addr(raw).map_err(|e| {
        format!(
            "IP Address {} parse error during conversion from string: {e}",
            go_quote(raw)
        )
    })?;
    if !addr.zone().is_empty() {
        return Err(format!("IP address {} with zone value is not allowed", go_quote(raw)));
    }
    if addr.is_4in6() {
        return Err(format!("IPv4-mapped IPv6 address {} is not allowed", go_quote(raw)));
    }
    Ok(addr)
}

/// `parseCIDR`.
fn parse_cidr(raw: &str) -> Result<Prefix, String> {
    let prefix = netip::parse_prefix(raw)
        .map_err(|e| format!("network address parse error during conversion from string: {e}"))?;
    if prefix.addr.is_4in6() {
        return Err(format!("IPv4-mapped IPv6 address {} is not allowed", go_quote(raw)));
    }
    Ok(prefix)
}

fn ip(s: &CelString<'_>) -> Result<Ip, ExecutionError> {
    parse_ip(s).map(Ip).map_err(|e| go_error("ip", e))
}

fn family(ip: &Ip) -> CelInt {
    CelInt::from(if ip.0.is_v4() { 4 } else { 6 })
}

/// Whether the string is the address as Go prints it.
fn is_canonical(s: &CelString<'_>) -> Result<CelBool, ExecutionError> {
    let addr = parse_ip(s).map_err(|e| go_error("ip.isCanonical", e))?;
    Ok(CelBool::from(addr.to_string() == s.inner()))
}

fn is_unspecified(ip: &Ip) -> CelBool {
    CelBool::from(ip.0.is_unspecified())
}

fn is_loopback(ip: &Ip) -> CelBool {
    CelBool::from(ip.0.is_loopback())
}

fn is_link_local_multicast(ip: &Ip) -> CelBool {
    CelBool::from(ip.0.is_link_local_multicast())
}

fn is_link_local_unicast(ip: &Ip) -> CelBool {
    CelBool::from(ip.0.is_link_local_unicast())
}

fn is_global_unicast(ip: &Ip) -> CelBool {
    CelBool::from(ip.0.is_global_unicast())
}

fn is_ip(s: &CelString<'_>) -> CelBool {
    CelBool::from(parse_ip(s).is_ok())
}

fn cidr(s: &CelString<'_>) -> Result<Cidr, ExecutionError> {
    // `stringToCIDR` wraps `parseCIDR`'s error in the same words again.
    parse_cidr(s).map(Cidr).map_err(|e| {
        go_error(
            "cidr",
            format!("network address parse error during conversion from string: {e}"),
        )
    })
}

/// A string that is no IP makes an error value, which the IP overload refuses as "no such
/// overload".
fn contains_ip_string(cidr: &Cidr, s: &CelString<'_>) -> Result<CelBool, ExecutionError> {
    let addr = parse_ip(s).map_err(|_| go_error("containsIP", "no such overload"))?;
    Ok(contains_ip(cidr, &Ip(addr)))
}

fn contains_ip(cidr: &Cidr, ip: &Ip) -> CelBool {
    CelBool::from(cidr.0.contains(&ip.0))
}

fn contains_cidr_string(cidr: &Cidr, s: &CelString<'_>) -> Result<CelBool, ExecutionError> {
    let prefix = parse_cidr(s).map_err(|_| go_error("containsCIDR", "no such overload"))?;
    Ok(contains_cidr(cidr, &Cidr(prefix)))
}

/// `cidrContainsCIDR`: the masked prefix equals the other's address (unmasked) at this
/// prefix's length, and the other is no wider.
fn contains_cidr(cidr: &Cidr, other: &Cidr) -> CelBool {
    let same_network = cidr.0.masked()
        == Prefix {
            addr: other.0.addr.clone(),
            bits: cidr.0.bits,
        };
    CelBool::from(same_network && cidr.0.bits <= other.0.bits)
}

fn cidr_ip(cidr: &Cidr) -> Ip {
    Ip(cidr.0.addr.clone())
}

fn prefix_length(cidr: &Cidr) -> CelInt {
    CelInt::from(i64::from(cidr.0.bits))
}

fn masked(cidr: &Cidr) -> Cidr {
    Cidr(cidr.0.masked())
}

fn is_cidr(s: &CelString<'_>) -> CelBool {
    CelBool::from(parse_cidr(s).is_ok())
}

#[cfg(test)]
mod tests {
    // Expected values are kube-apiserver 1.31.2's (`conformance/corpus/real-v1.31.2/cel-libraries-runtime.json`).
    use super::super::tests::check;

    #[test]
    fn addresses_should_read_and_print_as_go_s_netip() {
        check("string(ip('2001:DB8::1'))", Ok("2001:db8::1".into()));
        check("ip.isCanonical('2001:DB8::1')", Ok(false.into()));
        check("ip('::1').family() == 6 && ip('::1').isLoopback()", Ok(true.into()));
        check(
            "ip.isCanonical('::ffff:10.0.0.1')",
            Err(r#"IPv4-mapped IPv6 address "::ffff:10.0.0.1" is not allowed"#),
        );
        check(
            "ip('not-an-ip')",
            Err(
                r#"IP Address "not-an-ip" parse error during conversion from string: ParseAddr("not-an-ip"): unable to parse IP"#,
            ),
        );
        check(
            "ip('10.0.0.1') == ip('10.0.0.1') && isIP('1.2.3.4') && !isIP('1.2.3')",
            Ok(true.into()),
        );
    }

    #[test]
    fn cidrs_should_mask_and_contain_as_kubernetes_does() {
        check("string(cidr('10.1.2.3/8').masked())", Ok("10.0.0.0/8".into()));
        check("string(cidr('10.1.2.3/8').ip())", Ok("10.1.2.3".into()));
        check("cidr('2001:db8::/32').containsIP('2001:DB8::1')", Ok(true.into()));
        check(
            "cidr('10.0.0.0/8').containsIP('::ffff:10.0.0.1')",
            Err("no such overload"),
        );
        check(
            "cidr('10.0.0.0/33')",
            Err(
                r#"network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("10.0.0.0/33"): prefix length out of range"#,
            ),
        );
        // The other prefix's address is compared unmasked.
        check("cidr('192.168.0.0/24').containsCIDR('192.168.0.0/25')", Ok(true.into()));
        check("cidr('10.0.0.0/8').containsCIDR(cidr('10.1.0.0/16'))", Ok(false.into()));
        check(
            "cidr('10.0.0.0/8').prefixLength() == 8 && isCIDR('::/0')",
            Ok(true.into()),
        );
    }
}
