//! The `uri` format: whether Go 1.21's `net/url.ParseRequestURI` accepts the text (`url.go`:
//! `parse` with `viaRequest`, `getScheme`, `parseAuthority`, `parseHost`, `unescape`). Only
//! acceptance is ported; the parsed URL is never built.

/// How `unescape` treats the component it checks.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Component {
    Path,
    Host,
    Zone,
    UserInfo,
}

/// Ports govalidator's `IsRequestURI`: `url.ParseRequestURI` succeeds.
pub(super) fn uri(value: &str) -> bool {
    // That takes an absolute path (`/a?b`), `*`, or a scheme followed by anything (`mailto:x` is
    // opaque); the query is not checked and a `#` is plain path text.
    // `stringContainsCTLByte`, then `empty url`.
    if value.is_empty() || value.bytes().any(|b| b < b' ' || b == 0x7f) {
        return false;
    }
    if value == "*" {
        return true;
    }
    let Some((scheme, rest)) = split_scheme(value) else {
        return false;
    };
    // Whether or not a lone trailing `?` forces an empty query, the path ends at the first `?`.
    let rest = rest.split_once('?').map_or(rest, |(path, _query)| path);
    if !rest.starts_with('/') {
        // A rootless path after a scheme is opaque; a request without a scheme needs a path.
        return !scheme.is_empty();
    }
    let path = match rest.strip_prefix("//") {
        // Without a scheme, `//x` is a path: a request URI has no authority of its own.
        Some(after) if !scheme.is_empty() => {
            let (authority_part, path) = after.find('/').map_or((after, ""), |at| after.split_at(at));
            if !authority(authority_part) {
                return false;
            }
            path
        }
        _ => rest,
    };
    unescapes(path, Component::Path)
}

/// `getScheme`: the text before the first `:` when it is a letter followed by letters, digits,
/// `+`, `-` or `.`, else no scheme; `None` for a leading `:` ("missing protocol scheme").
fn split_scheme(raw: &str) -> Option<(&str, &str)> {
    for (i, c) in raw.bytes().enumerate() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' if i > 0 => {}
            b':' if i > 0 => return Some((&raw[..i], &raw[i + 1..])),
            b':' => return None,
            _ => return Some(("", raw)),
        }
    }
    Some(("", raw))
}

/// `parseAuthority`: `[userinfo@]host`, split at the last `@`.
fn authority(authority: &str) -> bool {
    match authority.rsplit_once('@') {
        None => host(authority),
        Some((user_info, host_part)) => host(host_part) && valid_user_info(user_info),
    }
}

/// `validUserinfo`, then `unescape` of the user name and password (splitting at `:` cannot change
/// whether an escape is well formed, so the whole is checked at once).
fn valid_user_info(user_info: &str) -> bool {
    let allowed = |c: char| c.is_ascii_alphanumeric() || "-._:~!$&'()*+,;=%@".contains(c);
    user_info.chars().all(allowed) && unescapes(user_info, Component::UserInfo)
}

/// `parseHost`: a bracketed IP literal with an optional `%25` zone and port, or a name with an
/// optional port. The literal's content is not checked as an address, as Go does not.
fn host(host: &str) -> bool {
    if host.starts_with('[') {
        let Some(close) = host.rfind(']') else { return false };
        if !optional_port(&host[close + 1..]) {
            return false;
        }
        if let Some(zone) = host[..close].find("%25") {
            return unescapes(&host[..zone], Component::Host)
                && unescapes(&host[zone..close], Component::Zone)
                && unescapes(&host[close..], Component::Host);
        }
    } else if let Some(colon) = host.rfind(':')
        && !optional_port(&host[colon..])
    {
        return false;
    }
    unescapes(host, Component::Host)
}

/// `validOptionalPort`: nothing, or `:` and digits (possibly none).
fn optional_port(port: &str) -> bool {
    match port.strip_prefix(':') {
        None => port.is_empty(),
        Some(digits) => digits.bytes().all(|b| b.is_ascii_digit()),
    }
}

/// `unescape`'s checks, without decoding: every `%` starts two hex digits; a host may only
/// escape non-ASCII bytes or `%25`, a zone only bytes a host could hold unescaped (or a space);
/// neither may hold an ASCII byte that a host escapes.
fn unescapes(s: &str, component: Component) -> bool {
    let s = s.as_bytes();
    let hostish = matches!(component, Component::Host | Component::Zone);
    let mut i = 0;
    while i < s.len() {
        if s[i] != b'%' {
            if hostish && s[i] < 0x80 && host_escapes(s[i]) {
                return false;
            }
            i += 1;
            continue;
        }
        if i + 2 >= s.len() || !s[i + 1].is_ascii_hexdigit() || !s[i + 2].is_ascii_hexdigit() {
            return false;
        }
        let is_percent = &s[i..i + 3] == b"%25";
        let (high, low) = (unhex(s[i + 1]), unhex(s[i + 2]));
        let byte = (high << 4) | low;
        match component {
            Component::Host if high < 8 && !is_percent => return false,
            Component::Zone if !is_percent && byte != b' ' && host_escapes(byte) => return false,
            _ => {}
        }
        i += 3;
    }
    true
}

/// The value of a hex digit.
fn unhex(digit: u8) -> u8 {
    match digit {
        b'0'..=b'9' => digit - b'0',
        b'a'..=b'f' => digit - b'a' + 10,
        b'A'..=b'F' => digit - b'A' + 10,
        _ => 0,
    }
}

/// `shouldEscape(c, encodeHost)`: a host keeps alphanumerics, `-_.~`, the sub-delims and
/// `:[]<>"` (Go allows these for ports, IPv6 literals and later checks); every other byte,
/// non-ASCII ones included, would be escaped.
fn host_escapes(c: u8) -> bool {
    !c.is_ascii_alphanumeric() && !b"-_.~!$&'()*+,;=:[]<>\"".contains(&c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uri_should_accept_what_parse_request_uri_accepts() {
        for valid in [
            "http://example.com/a?b#c",
            "/relative/path",
            "*",
            "http://",
            "http://h:/",
            "http://u@s@h/",
        ] {
            assert!(uri(valid), "{valid}");
        }
        // A rootless path after a scheme is opaque, and `//x` without a scheme is a path.
        for valid in [
            "mailto:someone@example.com",
            "http:opaque",
            "x:",
            "a+b.c-d:x",
            "//no-scheme-is-a-path",
        ] {
            assert!(uri(valid), "{valid}");
        }
        // Hosts may escape non-ASCII bytes, zones anything a host holds (`%41` is `A`).
        for valid in [
            "https://user:p%40ss@host:8080/x",
            "http://h%e2%82%ac/",
            "http://[fe80::1%25%41]/",
        ] {
            assert!(uri(valid), "{valid}");
        }
        assert!(uri("http://[zzz]/"));
        // The query is never unescaped, so a bad escape there passes.
        assert!(uri("http://h/?%zz"));
    }

    #[test]
    fn uri_should_refuse_what_parse_request_uri_refuses() {
        // No leading `/` without a scheme, a leading `:`, a scheme starting with a digit.
        for invalid in ["", "relative/path", "example.com", ":x", "1http://x"] {
            assert!(!uri(invalid), "{invalid}");
        }
        // A control byte, bad escapes (a `#` is path text), a bad port.
        for invalid in [
            "http://h/\n",
            "http://h\x7f/",
            "/a%2",
            "/a%zz",
            "http://h/#%zz",
            "http://h:80x/",
        ] {
            assert!(!uri(invalid), "{invalid}");
        }
        // A space in the host or user, an escaped ASCII byte in the host or a `/` in the zone.
        for invalid in [
            "http://a b/",
            "http://us er@h/",
            "http://h%41/",
            "http://[fe80::1%25%2F]/",
            "http://[::1]x/",
        ] {
            assert!(!uri(invalid), "{invalid}");
        }
    }
}
