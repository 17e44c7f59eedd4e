//! The `ipv4`, `ipv6`, `cidr` and `mac` formats: Go 1.21's `net.ParseIP` (`netip.ParseAddr`) and
//! `net.ParseMAC`, and k8s.io/utils' fork of the pre-1.17 parser (`ParseIPSloppy`,
//! `ParseCIDRSloppy`) that still takes leading zeros in IPv4 fields.

/// Ports strfmt's `isIPv4`: `ParseIPSloppy` succeeds and the text has a dot.
pub(super) fn ipv4(value: &str) -> bool {
    // The fork's `ParseIP` picks its parser by whichever of `.` and `:` comes first; an IPv6
    // address with an IPv4 tail (`::ffff:1.2.3.4`) has a dot, so it passes too.
    let bytes = value.as_bytes();
    let parsed = match first_separator(bytes) {
        Some(b'.') => ipv4_fields(bytes, true),
        Some(_) => parse_ipv6(bytes, true),
        None => false,
    };
    parsed && value.contains('.')
}

/// Ports govalidator's `IsIPv6`: `net.ParseIP` succeeds and the text has a colon.
pub(super) fn ipv6(value: &str) -> bool {
    // Zones (`fe80::1%eth0`) are refused, and an IPv4 tail must have no leading zeros.
    // `netip.ParseAddr` reads text whose first separator is a dot as IPv4, which has no colon.
    first_separator(value.as_bytes()) == Some(b':') && parse_ipv6(value.as_bytes(), false)
}

/// Ports strfmt's `isCIDR`: `ParseCIDRSloppy` succeeds.
pub(super) fn cidr(value: &str) -> bool {
    // An address (IPv4 tried first, leading zeros allowed), `/`, a prefix within its bits.
    let Some((address, prefix)) = value.split_once('/') else {
        return false;
    };
    let bits = if ipv4_fields(address.as_bytes(), true) {
        32
    } else if parse_ipv6(address.as_bytes(), true) {
        128
    } else {
        return false;
    };
    // `dtoi` takes leading zeros (`/024`) but no sign or trailing text.
    !prefix.is_empty() && prefix.bytes().all(|b| b.is_ascii_digit()) && decimal(prefix.as_bytes()) <= bits
}

/// Ports govalidator's `IsMAC`: `net.ParseMAC` succeeds.
pub(super) fn mac(value: &str) -> bool {
    // 6, 8 or 20 octets as `xx:xx:…`, `xx-xx-…` or `xxxx.xxxx.…`, one separator throughout.
    let s = value.as_bytes();
    if s.len() < 14 {
        return false;
    }
    if s[2] == b':' || s[2] == b'-' {
        let octets = (s.len() + 1) / 3;
        (s.len() + 1).is_multiple_of(3)
            && matches!(octets, 6 | 8 | 20)
            && (0..octets).all(|i| hex_pair(&s[3 * i..], s[2]))
    } else if s[4] == b'.' {
        let octets = 2 * (s.len() + 1) / 5;
        (s.len() + 1).is_multiple_of(5)
            && matches!(octets, 6 | 8 | 20)
            && (0..octets / 2).all(|group| {
                let at = 5 * group;
                hex_pair(&s[at..at + 2], 0) && hex_pair(&s[at + 2..], s[4])
            })
    } else {
        false
    }
}

/// `xtoi2`: two hex digits, followed by `separator` unless the text ends after them.
fn hex_pair(s: &[u8], separator: u8) -> bool {
    if s.len() > 2 && s[2] != separator {
        return false;
    }
    s.len() >= 2 && s[0].is_ascii_hexdigit() && s[1].is_ascii_hexdigit()
}

/// The first `.` or `:` in the text, which decides how Go's `ParseIP` reads it.
fn first_separator(s: &[u8]) -> Option<u8> {
    s.iter().copied().find(|&b| b == b'.' || b == b':')
}

/// A run of decimal digits as a number, saturating (every caller compares it to a small bound).
fn decimal(digits: &[u8]) -> u32 {
    digits
        .iter()
        .fold(0u32, |n, &d| n.saturating_mul(10).saturating_add(u32::from(d - b'0')))
}

/// IPv4's four dot-separated decimal fields of at most 255. `leading_zeros` is the fork's
/// `parseIPv4` (`010.1.1.1` passes); without it, `netip`'s, where a field may only start with `0`
/// when it is `0`.
fn ipv4_fields(s: &[u8], leading_zeros: bool) -> bool {
    let mut fields = 0;
    for field in s.split(|&b| b == b'.') {
        fields += 1;
        if fields > 4 || field.is_empty() || !field.iter().all(u8::is_ascii_digit) {
            return false;
        }
        if !leading_zeros && field.len() > 1 && field[0] == b'0' {
            return false;
        }
        if decimal(field) > 255 {
            return false;
        }
    }
    fields == 4
}

/// `parseIPv6`, which Go 1.21's `netip` and the k8s fork share but for the IPv4 tail's leading
/// zeros: hex fields of at most `ffff` (any number of digits), at most one `::` standing for at
/// least one zero field, and an IPv4 tail only as the last 32 bits. A `%` zone fails here, as
/// both callers refuse zones.
fn parse_ipv6(mut s: &[u8], leading_zeros: bool) -> bool {
    let mut ellipsis = false;
    if s.starts_with(b"::") {
        ellipsis = true;
        s = &s[2..];
        if s.is_empty() {
            return true;
        }
    }
    // `i` counts the bytes of the address filled so far.
    let mut i = 0;
    while i < 16 {
        let digits = s.iter().take_while(|b| b.is_ascii_hexdigit()).count();
        let field = s[..digits].iter().fold(0u32, |n, &d| {
            let nibble = char::from(d).to_digit(16).unwrap_or(0);
            n.saturating_mul(16).saturating_add(nibble)
        });
        if digits == 0 || field > 0xFFFF {
            return false;
        }
        if s.get(digits) == Some(&b'.') {
            if (!ellipsis && i != 12) || i + 4 > 16 || !ipv4_fields(s, leading_zeros) {
                return false;
            }
            s = &[];
            i += 4;
            break;
        }
        i += 2;
        s = &s[digits..];
        if s.is_empty() {
            break;
        }
        if s[0] != b':' || s.len() == 1 {
            return false;
        }
        s = &s[1..];
        if s[0] == b':' {
            if ellipsis {
                return false;
            }
            ellipsis = true;
            s = &s[1..];
            if s.is_empty() {
                break;
            }
        }
    }
    // The whole text is used, and `::` stands for at least one field exactly when fields are missing.
    s.is_empty() && (i < 16) == ellipsis
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipv4_should_take_leading_zeros_and_ipv4_tails() {
        for valid in [
            "192.168.0.1",
            "0.0.0.0",
            "010.001.000.255",
            "::ffff:1.2.3.4",
            "::1.2.3.4",
        ] {
            assert!(ipv4(valid), "{valid}");
        }
        assert!(ipv4("1:2:3:4:5:6:7.8.9.10"));
        // `::1` parses but has no dot; `1.2.3` is short; zones are unknown to the fork.
        for invalid in [
            "",
            "::1",
            "1.2.3",
            "1.2.3.256",
            "1.2.3.4.",
            "1..2.3",
            "+1.2.3.4",
            " 1.2.3.4",
            "1.2.3.4%eth0",
        ] {
            assert!(!ipv4(invalid), "{invalid}");
        }
    }

    #[test]
    fn ipv6_should_follow_go_parse_ip() {
        for valid in [
            "::",
            "::1",
            "2001:db8::68",
            "fe80::1:2:3:4",
            "1:2:3:4:5:6:7:8",
            "::ffff:1.2.3.4",
            "00000001::",
        ] {
            assert!(ipv6(valid), "{valid}");
        }
        // A leading zero in the IPv4 tail, a zone, a `::` standing for nothing, an IPv4 address.
        for invalid in [
            "::ffff:01.2.3.4",
            "fe80::1%eth0",
            "1:2:3:4:5:6:7::8",
            "1.2.3.4",
            "1:2:3:4:5:6:7",
            "::1::",
        ] {
            assert!(!ipv6(invalid), "{invalid}");
        }
        for invalid in [
            "1:2:3:4:5:6:7:8:9",
            "12345::",
            ":1::",
            "1:",
            "1.2.3.4::",
            "::g",
            "1:2:3:4:5:1.2.3.4",
        ] {
            assert!(!ipv6(invalid), "{invalid}");
        }
    }

    #[test]
    fn cidr_should_follow_the_sloppy_parser() {
        for valid in [
            "10.0.0.0/8",
            "010.0.0.0/08",
            "0.0.0.0/0",
            "2001:db8::/32",
            "::ffff:1.2.3.4/128",
            "1.2.3.4/32",
        ] {
            assert!(cidr(valid), "{valid}");
        }
        for invalid in [
            "10.0.0.0",
            "10.0.0.0/33",
            "::/129",
            "10.0.0.0/",
            "10.0.0.0/+8",
            "10.0.0.0/8/8",
        ] {
            assert!(!cidr(invalid), "{invalid}");
        }
        assert!(!cidr("fe80::%1/64"));
    }

    #[test]
    fn mac_should_follow_go_parse_mac() {
        let valid = [
            "00:00:5e:00:53:01",
            "00-00-5E-00-53-01",
            "0000.5e00.5301",
            "02:00:5e:10:00:00:00:01",
        ];
        for valid in valid
            .into_iter()
            .chain(["00:00:00:00:fe:80:00:00:00:00:00:00:02:00:5e:10:00:00:00:01"])
        {
            assert!(mac(valid), "{valid}");
        }
        // Mixed separators, a wrong count of octets, a short group, a non-hex digit.
        for invalid in [
            "00:00:5e:00-53:01",
            "00:00:5e:00:53",
            "00:00:5e:00:53:01:02",
            "0000.5e00.530",
        ] {
            assert!(!mac(invalid), "{invalid}");
        }
        assert!(!mac("00:00:5e:00:53:0g"));
        assert!(!mac("0000-5e00-5301"));
    }
}
