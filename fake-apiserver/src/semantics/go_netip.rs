//! Go 1.22's `net/netip` (`netip.go`) as kube-apiserver uses it: `ParseAddr` and `ParsePrefix` with their error texts (quoted in Service warnings and CEL errors), `String`, the address classes, `Masked` and `Contains` (the CEL IP and CIDR libraries).

use crate::semantics::field_error::go_quote;

/// An IP address: four bytes, or sixteen with a zone (empty for none).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Addr {
    V4(u32),
    V6(u128, String),
}

/// An address and a prefix length (not masked).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Prefix {
    pub(crate) addr: Addr,
    pub(crate) bits: u32,
}

/// `parseAddrError.Error`.
fn addr_error(input: &str, message: &str, at: &str) -> String {
    let at = if at.is_empty() {
        String::new()
    } else {
        format!(" (at {})", go_quote(at))
    };
    format!("ParseAddr({}): {message}{at}", go_quote(input))
}

/// `ParseAddr`.
pub(crate) fn parse_addr(s: &str) -> Result<Addr, String> {
    for c in s.bytes() {
        match c {
            b'.' => return parse_v4(s).map(Addr::V4).map_err(|(m, at)| addr_error(s, &m, at)),
            b':' => return parse_v6(s),
            b'%' => return Err(addr_error(s, "missing IPv6 address", "")),
            _ => {}
        }
    }
    Err(addr_error(s, "unable to parse IP", ""))
}

/// `parseIPv4`: the address, or the message and where it failed.
fn parse_v4(s: &str) -> Result<u32, (String, &str)> {
    let (mut fields, mut value, mut pos, mut digits) = ([0u8; 4], 0u32, 0usize, 0);
    let bytes = s.as_bytes();
    for (i, &c) in bytes.iter().enumerate() {
        match c {
            b'0'..=b'9' => {
                if digits == 1 && value == 0 {
                    return Err(("IPv4 field has octet with leading zero".into(), ""));
                }
                value = value * 10 + u32::from(c - b'0');
                digits += 1;
                if value > 255 {
                    return Err(("IPv4 field has value >255".into(), ""));
                }
            }
            b'.' => {
                if i == 0 || i == bytes.len() - 1 || bytes[i - 1] == b'.' {
                    return Err(("IPv4 field must have at least one digit".into(), &s[i..]));
                }
                if pos == 3 {
                    return Err(("IPv4 address too long".into(), ""));
                }
                fields[pos] = value as u8;
                pos += 1;
                value = 0;
                digits = 0;
            }
            _ => return Err(("unexpected character".into(), &s[i..])),
        }
    }
    if pos < 3 {
        return Err(("IPv4 address too short".into(), ""));
    }
    fields[3] = value as u8;
    Ok(u32::from_be_bytes(fields))
}

/// `parseIPv6`.
fn parse_v6(input: &str) -> Result<Addr, String> {
    let fail = |message: &str, at: &str| Err(addr_error(input, message, at));
    let (mut s, zone) = match input.split_once('%') {
        Some((_, "")) => return fail("zone must be a non-empty string", ""),
        Some((address, zone)) => (address, zone),
        None => (input, ""),
    };
    let mut ip = [0u8; 16];
    let mut ellipsis: Option<usize> = None;
    if let Some(rest) = s.strip_prefix("::") {
        ellipsis = Some(0);
        s = rest;
        if s.is_empty() {
            return Ok(Addr::V6(0, zone.to_owned()));
        }
    }
    let mut i = 0;
    while i < 16 {
        let hex = s.bytes().take_while(u8::is_ascii_hexdigit).count();
        let mut acc = 0u32;
        for c in s[..hex].chars() {
            acc = (acc << 4) + c.to_digit(16).unwrap_or(0);
            if acc > 0xffff {
                return fail("IPv6 field has value >=2^16", s);
            }
        }
        if hex == 0 {
            return fail("each colon-separated field must have at least one digit", s);
        }
        if s.as_bytes().get(hex) == Some(&b'.') {
            if ellipsis.is_none() && i != 12 {
                return fail(
                    "embedded IPv4 address must replace the final 2 fields of the address",
                    s,
                );
            }
            if i + 4 > 16 {
                return fail(
                    "too many hex fields to fit an embedded IPv4 at the end of the address",
                    s,
                );
            }
            let v4 = parse_v4(s).map_err(|(m, at)| addr_error(s, &m, at));
            match v4 {
                Ok(v4) => ip[i..i + 4].copy_from_slice(&v4.to_be_bytes()),
                Err(message) => return fail(&message, s),
            }
            s = "";
            i += 4;
            break;
        }
        ip[i] = (acc >> 8) as u8;
        ip[i + 1] = acc as u8;
        i += 2;
        s = &s[hex..];
        if s.is_empty() {
            break;
        }
        if !s.starts_with(':') {
            return fail("unexpected character, want colon", s);
        } else if s.len() == 1 {
            return fail("colon must be followed by more characters", s);
        }
        s = &s[1..];
        if s.starts_with(':') {
            if ellipsis.is_some() {
                return fail("multiple :: in address", s);
            }
            ellipsis = Some(i);
            s = &s[1..];
            if s.is_empty() {
                break;
            }
        }
    }
    if !s.is_empty() {
        return fail("trailing garbage after address", s);
    }
    if i < 16 {
        let Some(at) = ellipsis else {
            return fail("address string too short", "");
        };
        let n = 16 - i;
        ip.copy_within(at..i, at + n);
        ip[at..at + n].fill(0);
    } else if ellipsis.is_some() {
        return fail("the :: must expand to at least one field of zeros", "");
    }
    Ok(Addr::V6(u128::from_be_bytes(ip), zone.to_owned()))
}

/// `ParsePrefix`.
pub(crate) fn parse_prefix(s: &str) -> Result<Prefix, String> {
    let fail = |why: &str| Err(format!("netip.ParsePrefix({}): {why}", go_quote(s)));
    let Some(slash) = s.rfind('/') else {
        return fail("no '/'");
    };
    let addr = match parse_addr(&s[..slash]) {
        Ok(addr) => addr,
        Err(error) => return fail(&error),
    };
    if matches!(&addr, Addr::V6(_, zone) if !zone.is_empty()) {
        return fail("IPv6 zones cannot be present in a prefix");
    }
    let bits_text = &s[slash + 1..];
    let bad_bits = || format!("bad bits after slash: {}", go_quote(bits_text));
    if bits_text.len() > 1 && !matches!(bits_text.as_bytes()[0], b'1'..=b'9') {
        return fail(&bad_bits());
    }
    // `strconv.Atoi`: an optional sign and decimal digits.
    let Ok(bits) = bits_text.parse::<i64>() else {
        return fail(&bad_bits());
    };
    let max = if addr.is_v4() { 32 } else { 128 };
    if !(0..=max).contains(&bits) {
        return fail("prefix length out of range");
    }
    Ok(Prefix {
        addr,
        bits: bits as u32,
    })
}

impl Addr {
    pub(crate) fn is_v4(&self) -> bool {
        matches!(self, Addr::V4(_))
    }

    /// `Is4In6`: `::ffff:a.b.c.d`.
    pub(crate) fn is_4in6(&self) -> bool {
        matches!(self, Addr::V6(v, _) if v >> 32 == 0xffff)
    }

    pub(crate) fn zone(&self) -> &str {
        if let Addr::V6(_, zone) = self { zone } else { "" }
    }

    /// The address in its other family's view: an IPv4-mapped address as IPv4 (`Unmap`).
    fn unmapped(&self) -> Addr {
        match self {
            Addr::V6(v, _) if self.is_4in6() => Addr::V4(*v as u32),
            other => other.clone(),
        }
    }

    pub(crate) fn is_unspecified(&self) -> bool {
        matches!(self, Addr::V4(0)) || matches!(self, Addr::V6(0, zone) if zone.is_empty())
    }

    pub(crate) fn is_loopback(&self) -> bool {
        match self.unmapped() {
            Addr::V4(v) => v >> 24 == 127,
            Addr::V6(v, _) => v == 1,
        }
    }

    fn is_multicast(&self) -> bool {
        match self.unmapped() {
            Addr::V4(v) => v >> 28 == 0xe,
            Addr::V6(v, _) => v >> 120 == 0xff,
        }
    }

    pub(crate) fn is_link_local_unicast(&self) -> bool {
        match self.unmapped() {
            Addr::V4(v) => v >> 16 == 0xa9fe,
            Addr::V6(v, _) => (v >> 112) as u16 & 0xffc0 == 0xfe80,
        }
    }

    pub(crate) fn is_link_local_multicast(&self) -> bool {
        match self.unmapped() {
            Addr::V4(v) => v >> 8 == 0xe0_0000,
            Addr::V6(v, _) => (v >> 112) as u16 & 0xff0f == 0xff02,
        }
    }

    pub(crate) fn is_global_unicast(&self) -> bool {
        let ip = self.unmapped();
        if matches!(ip, Addr::V4(0 | u32::MAX)) || matches!(&ip, Addr::V6(0, zone) if zone.is_empty()) {
            return false;
        }
        !ip.is_loopback() && !ip.is_multicast() && !ip.is_link_local_unicast()
    }

    /// The address with only its first `bits` bits kept (`Prefix(bits)`'s address).
    fn masked(&self, bits: u32) -> Addr {
        match self {
            Addr::V4(v) => Addr::V4(v & u32::MAX.checked_shl(32 - bits).unwrap_or(0)),
            // `Addr.Prefix` drops the zone.
            Addr::V6(v, _) => Addr::V6(v & u128::MAX.checked_shl(128 - bits).unwrap_or(0), String::new()),
        }
    }
}

impl std::fmt::Display for Addr {
    /// `String`: dotted decimal, or IPv6 with the longest run of two or more zero fields as
    /// `::` (the first of equal runs) and `::ffff:a.b.c.d` for a mapped IPv4 address.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let zone = match self.zone() {
            "" => String::new(),
            zone => format!("%{zone}"),
        };
        match self {
            Addr::V4(v) => {
                let [a, b, c, d] = v.to_be_bytes();
                write!(f, "{a}.{b}.{c}.{d}")
            }
            Addr::V6(v, _) if self.is_4in6() => write!(f, "::ffff:{}{zone}", Addr::V4(*v as u32)),
            Addr::V6(v, _) => {
                let fields: Vec<u16> = (0..8).map(|i| (v >> (112 - 16 * i)) as u16).collect();
                let (mut start, mut end) = (8, 8);
                for i in 0..8 {
                    let j = (i..8).find(|&j| fields[j] != 0).unwrap_or(8);
                    if j - i >= 2 && j - i > end - start {
                        (start, end) = (i, j);
                    }
                }
                let mut i = 0;
                while i < 8 {
                    if i == start {
                        f.write_str("::")?;
                        i = end;
                        if i >= 8 {
                            break;
                        }
                    } else if i > 0 {
                        f.write_str(":")?;
                    }
                    write!(f, "{:x}", fields[i])?;
                    i += 1;
                }
                f.write_str(&zone)
            }
        }
    }
}

impl Prefix {
    /// `Masked`.
    pub(crate) fn masked(&self) -> Prefix {
        Prefix {
            addr: self.addr.masked(self.bits),
            bits: self.bits,
        }
    }

    /// `Contains`: an address of the same family whose first `bits` bits are the prefix's.
    pub(crate) fn contains(&self, ip: &Addr) -> bool {
        if !ip.zone().is_empty() || self.addr.is_v4() != ip.is_v4() {
            return false;
        }
        self.addr.masked(self.bits) == ip.masked(self.bits)
    }
}

impl std::fmt::Display for Prefix {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.addr, self.bits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_should_parse_and_print_as_go() {
        for (given, shown) in [
            ("10.0.0.1", "10.0.0.1"),
            ("2001:DB8::1", "2001:db8::1"),
            ("::1", "::1"),
            ("::", "::"),
            ("1:0:0:1:0:0:0:1", "1:0:0:1::1"),
            ("::ffff:10.0.0.1", "::ffff:10.0.0.1"),
            ("fe80::1%eth0", "fe80::1%eth0"),
        ] {
            assert_eq!(
                parse_addr(given).map(|a| a.to_string()),
                Ok(shown.to_owned()),
                "{given}"
            );
        }
    }

    #[test]
    fn parse_errors_should_read_as_go_s() {
        assert_eq!(
            parse_addr("not-an-ip"),
            Err(r#"ParseAddr("not-an-ip"): unable to parse IP"#.into())
        );
        assert_eq!(
            parse_addr("1.2.3.256"),
            Err(r#"ParseAddr("1.2.3.256"): IPv4 field has value >255"#.into())
        );
        assert_eq!(
            parse_addr("1..2.3"),
            Err(r#"ParseAddr("1..2.3"): IPv4 field must have at least one digit (at ".2.3")"#.into())
        );
        assert_eq!(
            parse_prefix("10.0.0.0/33"),
            Err(r#"netip.ParsePrefix("10.0.0.0/33"): prefix length out of range"#.into())
        );
        assert_eq!(
            parse_prefix("10.0.0.0/08"),
            Err(r#"netip.ParsePrefix("10.0.0.0/08"): bad bits after slash: "08""#.into())
        );
    }

    #[test]
    fn prefixes_should_mask_and_contain_by_family() {
        let prefix = parse_prefix("10.1.2.3/8").expect("a prefix");
        assert_eq!(prefix.masked().to_string(), "10.0.0.0/8");
        assert!(prefix.contains(&parse_addr("10.200.0.1").expect("an address")));
        assert!(!prefix.contains(&parse_addr("::1").expect("an address")));
        assert!(parse_addr("169.254.0.1").expect("link local").is_link_local_unicast());
        assert!(!parse_addr("127.0.0.1").expect("loopback").is_global_unicast());
    }
}
