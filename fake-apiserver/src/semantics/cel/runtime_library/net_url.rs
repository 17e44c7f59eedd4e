//! Go 1.21's `net/url` as the URL library uses it (`url.go`): `ParseRequestURI`, `Parse`, `URL.String()`, `EscapedPath`, `Hostname`, `Port` and `Query`, with their escaping rules and their errors' texts.

/// A parsed URL, Go's `url.URL`: the unescaped parts are bytes, as a `%XX` may make them
/// invalid UTF-8.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Url {
    scheme: String,
    opaque: String,
    user: Option<(Vec<u8>, Option<Vec<u8>>)>,
    host: Vec<u8>,
    path: Vec<u8>,
    raw_path: String,
    omit_host: bool,
    force_query: bool,
    raw_query: String,
    fragment: Vec<u8>,
    raw_fragment: String,
}

impl Url {
    /// `url.ParseRequestURI`: an absolute URI or an absolute path, or the text of Go's
    /// `*url.Error` (`parse "<raw>": <reason>`).
    pub(super) fn parse_request_uri(raw: &str) -> Result<Url, String> {
        parse(raw, true).map_err(|reason| error(raw, &reason))
    }

    /// `url.Parse`: any URL reference, its `#fragment` cut off first.
    pub(super) fn parse(raw: &str) -> Result<Url, String> {
        let (before, fragment) = raw.split_once('#').unwrap_or((raw, ""));
        let mut url = parse(before, false).map_err(|reason| error(before, &reason))?;
        if !fragment.is_empty() {
            let unescaped = unescape(fragment, Mode::Fragment).map_err(|reason| error(raw, &reason))?;
            if escape(&unescaped, Mode::Fragment) != fragment {
                url.raw_fragment = fragment.to_owned();
            }
            url.fragment = unescaped;
        }
        Ok(url)
    }

    pub(super) fn scheme(&self) -> &str {
        &self.scheme
    }

    /// The host and its `:port`, unescaped.
    pub(super) fn host(&self) -> &[u8] {
        &self.host
    }

    /// `Hostname`: the host without a valid `:port`, and without the brackets of an IPv6 literal.
    pub(super) fn hostname(&self) -> &[u8] {
        split_host_port(&self.host).0
    }

    /// `Port`: the digits of a valid `:port`, if any.
    pub(super) fn port(&self) -> &[u8] {
        split_host_port(&self.host).1
    }

    /// `EscapedPath`: the raw path when it is a valid escaping of the path, else the path's
    /// escaping; a path of `*` as it is.
    pub(super) fn escaped_path(&self) -> String {
        let escaped = escaped(&self.raw_path, &self.path, Mode::Path);
        if self.path == b"*" && escaped != self.raw_path {
            return "*".to_owned();
        }
        escaped
    }

    /// `Query`: the `key=value` pairs of the raw query, unescaped, in order; `url.ParseQuery`'s
    /// malformed ones (a `;`, a bad escape) dropped.
    pub(super) fn query(&self) -> Vec<(Vec<u8>, Vec<u8>)> {
        let pairs = self
            .raw_query
            .split('&')
            .filter(|pair| !pair.is_empty() && !pair.contains(';'));
        let unescaped = |pair: &str| {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            Some((
                unescape(key, Mode::QueryComponent).ok()?,
                unescape(value, Mode::QueryComponent).ok()?,
            ))
        };
        pairs.filter_map(unescaped).collect()
    }

    /// Go's `URL.String()`: `scheme:opaque?query#fragment` or
    /// `scheme://userinfo@host/path?query#fragment`, the parts that are empty left out.
    pub(super) fn go_string(&self) -> String {
        let mut out = String::new();
        if !self.scheme.is_empty() {
            out.push_str(&self.scheme);
            out.push(':');
        }
        if self.opaque.is_empty() {
            let has_authority = !self.scheme.is_empty() || !self.host.is_empty() || self.user.is_some();
            if has_authority && !(self.omit_host && self.host.is_empty() && self.user.is_none()) {
                if !self.host.is_empty() || !self.path.is_empty() || self.user.is_some() {
                    out.push_str("//");
                }
                if let Some((name, password)) = &self.user {
                    out.push_str(&escape(name, Mode::UserPassword));
                    if let Some(password) = password {
                        out.push(':');
                        out.push_str(&escape(password, Mode::UserPassword));
                    }
                    out.push('@');
                }
                out.push_str(&escape(&self.host, Mode::Host));
            }
            let path = self.escaped_path();
            if !path.is_empty() && !path.starts_with('/') && !self.host.is_empty() {
                out.push('/');
            }
            // A first segment with a colon would read as a scheme (RFC 3986 4.2).
            if out.is_empty() && path.split('/').next().is_some_and(|segment| segment.contains(':')) {
                out.push_str("./");
            }
            out.push_str(&path);
        } else {
            out.push_str(&self.opaque);
        }
        if self.force_query || !self.raw_query.is_empty() {
            out.push('?');
            out.push_str(&self.raw_query);
        }
        if !self.fragment.is_empty() {
            out.push('#');
            out.push_str(&escaped(&self.raw_fragment, &self.fragment, Mode::Fragment));
        }
        out
    }
}

/// Go's `*url.Error` text.
fn error(raw: &str, reason: &str) -> String {
    format!("parse {}: {reason}", quote(raw.as_bytes()))
}

/// `EscapedPath` and `EscapedFragment`: the raw text when it is a valid escaping of the
/// unescaped one, else the latter's escaping.
fn escaped(raw: &str, unescaped: &[u8], mode: Mode) -> String {
    let raw_fits =
        !raw.is_empty() && valid_encoded(raw, mode) && unescape(raw, mode).is_ok_and(|decoded| decoded == unescaped);
    if raw_fits {
        raw.to_owned()
    } else {
        escape(unescaped, mode)
    }
}

/// Go's `net/url` `parse(rawURL, viaRequest)`, the error's text on failure.
fn parse(raw: &str, via_request: bool) -> Result<Url, String> {
    if raw.bytes().any(|b| b < b' ' || b == 0x7f) {
        return Err("net/url: invalid control character in URL".to_owned());
    }
    if raw.is_empty() && via_request {
        return Err("empty url".to_owned());
    }
    let mut url = Url::default();
    if raw == "*" {
        url.path = b"*".to_vec();
        return Ok(url);
    }
    let (scheme, mut rest) = split_scheme(raw)?;
    url.scheme = scheme.to_ascii_lowercase();
    if rest.ends_with('?') && rest.matches('?').count() == 1 {
        url.force_query = true;
        rest = &rest[..rest.len() - 1];
    } else if let Some((before, query)) = rest.split_once('?') {
        url.raw_query = query.to_owned();
        rest = before;
    }
    if !rest.starts_with('/') {
        if !url.scheme.is_empty() {
            // A rootless path is opaque (RFC 3986).
            url.opaque = rest.to_owned();
            return Ok(url);
        }
        if via_request {
            return Err("invalid URI for request".to_owned());
        }
        if rest.split('/').next().is_some_and(|segment| segment.contains(':')) {
            return Err("first path segment in URL cannot contain colon".to_owned());
        }
    }
    let authority = !url.scheme.is_empty() || (!via_request && !rest.starts_with("///"));
    if authority && rest.starts_with("//") {
        let (authority, path) = rest[2..].find('/').map_or((&rest[2..], ""), |i| rest[2..].split_at(i));
        let (user, host) = parse_authority(authority)?;
        (url.user, url.host, rest) = (user, host, path);
    } else if !url.scheme.is_empty() && rest.starts_with('/') {
        url.omit_host = true;
    }
    url.path = unescape(rest, Mode::Path)?;
    if escape(&url.path, Mode::Path) != rest {
        url.raw_path = rest.to_owned();
    }
    Ok(url)
}

/// `getScheme`: a leading `[a-zA-Z][a-zA-Z0-9+.-]*:` and the rest, or no scheme.
fn split_scheme(raw: &str) -> Result<(&str, &str), String> {
    for (i, c) in raw.bytes().enumerate() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' if i > 0 => {}
            b':' if i == 0 => return Err("missing protocol scheme".to_owned()),
            b':' => return Ok((&raw[..i], &raw[i + 1..])),
            _ => break,
        }
    }
    Ok(("", raw))
}

type User = Option<(Vec<u8>, Option<Vec<u8>>)>;

fn parse_authority(authority: &str) -> Result<(User, Vec<u8>), String> {
    let Some(at) = authority.rfind('@') else {
        return Ok((None, parse_host(authority)?));
    };
    let host = parse_host(&authority[at + 1..])?;
    let userinfo = &authority[..at];
    let valid = userinfo
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "-._:~!$&'()*+,;=%@".contains(c));
    if !valid {
        return Err("net/url: invalid userinfo".to_owned());
    }
    let user = match userinfo.split_once(':') {
        None => (unescape(userinfo, Mode::UserPassword)?, None),
        Some((name, password)) => (
            unescape(name, Mode::UserPassword)?,
            Some(unescape(password, Mode::UserPassword)?),
        ),
    };
    Ok((Some(user), host))
}

/// `parseHost`: `host[:port]`, an IPv6 literal in brackets, with an RFC 6874 zone (`%25`).
fn parse_host(host: &str) -> Result<Vec<u8>, String> {
    let invalid_port = |port: &str| format!("invalid port {} after host", quote(port.as_bytes()));
    if host.starts_with('[') {
        let end = host.rfind(']').ok_or("missing ']' in host")?;
        if !valid_optional_port(&host.as_bytes()[end + 1..]) {
            return Err(invalid_port(&host[end + 1..]));
        }
        if let Some(zone) = host[..end].find("%25") {
            let mut unescaped = unescape(&host[..zone], Mode::Host)?;
            unescaped.extend(unescape(&host[zone..end], Mode::Zone)?);
            unescaped.extend(unescape(&host[end..], Mode::Host)?);
            return Ok(unescaped);
        }
    } else if let Some(colon) = host.rfind(':').filter(|&i| !valid_optional_port(&host.as_bytes()[i..])) {
        return Err(invalid_port(&host[colon..]));
    }
    unescape(host, Mode::Host)
}

/// Empty, or `:` and digits.
fn valid_optional_port(port: &[u8]) -> bool {
    match port.split_first() {
        None => true,
        Some((b':', digits)) => digits.iter().all(u8::is_ascii_digit),
        Some(_) => false,
    }
}

/// `splitHostPort`: the host without a valid `:port` (and the port), unbracketed.
fn split_host_port(host_port: &[u8]) -> (&[u8], &[u8]) {
    let (mut host, mut port) = (host_port, &host_port[..0]);
    let colon = host_port.iter().rposition(|&b| b == b':');
    if let Some(colon) = colon.filter(|&i| valid_optional_port(&host_port[i..])) {
        (host, port) = (&host_port[..colon], &host_port[colon + 1..]);
    }
    if let [b'[', inner @ .., b']'] = host {
        host = inner;
    }
    (host, port)
}

/// The parts of a URL, which escape differently.
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Path,
    Host,
    Zone,
    UserPassword,
    QueryComponent,
    Fragment,
}

/// `shouldEscape`: whether `c` is escaped in the `mode` part of a URL.
fn should_escape(c: u8, mode: Mode) -> bool {
    if c.is_ascii_alphanumeric() {
        return false;
    }
    if matches!(mode, Mode::Host | Mode::Zone) && b"!$&'()*+,;=:[]<>\"".contains(&c) {
        return false;
    }
    match c {
        b'-' | b'_' | b'.' | b'~' => false,
        b'$' | b'&' | b'+' | b',' | b'/' | b':' | b';' | b'=' | b'?' | b'@' => match mode {
            Mode::Path => c == b'?',
            Mode::UserPassword => matches!(c, b'@' | b'/' | b'?' | b':'),
            Mode::QueryComponent => true,
            Mode::Fragment => false,
            Mode::Host | Mode::Zone => true,
        },
        b'!' | b'(' | b')' | b'*' if mode == Mode::Fragment => false,
        _ => true,
    }
}

/// `unescape`: `%XX` decoded (and `+` as a space in a query component), or the error's text.
fn unescape(s: &str, mode: Mode) -> Result<Vec<u8>, String> {
    let bytes = s.as_bytes();
    let hex = |b: u8| char::from(b).to_digit(16).map(|d| d as u8);
    let escape_error = |from: usize, len: usize| {
        let end = (from + len).min(bytes.len());
        format!("invalid URL escape {}", quote(&bytes[from..end]))
    };
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let (Some(high), Some(low)) = (
                    bytes.get(i + 1).and_then(|&b| hex(b)),
                    bytes.get(i + 2).and_then(|&b| hex(b)),
                ) else {
                    return Err(escape_error(i, 3));
                };
                let escaped = &s[i..i + 3];
                // Only non-ASCII bytes may be escaped in a host, and `%25` in an IPv6 zone.
                if mode == Mode::Host && high < 8 && escaped != "%25" {
                    return Err(escape_error(i, 3));
                }
                let value = high << 4 | low;
                if mode == Mode::Zone && escaped != "%25" && value != b' ' && should_escape(value, Mode::Host) {
                    return Err(escape_error(i, 3));
                }
                out.push(value);
                i += 3;
            }
            b'+' if mode == Mode::QueryComponent => {
                out.push(b' ');
                i += 1;
            }
            c => {
                if matches!(mode, Mode::Host | Mode::Zone) && c < 0x80 && should_escape(c, mode) {
                    return Err(format!("invalid character {} in host name", quote(&[c])));
                }
                out.push(c);
                i += 1;
            }
        }
    }
    Ok(out)
}

/// `escape`: the bytes `mode` escapes as `%XX` (a space as `+` in a query component).
fn escape(bytes: &[u8], mode: Mode) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &c in bytes {
        if c == b' ' && mode == Mode::QueryComponent {
            out.push('+');
        } else if should_escape(c, mode) {
            out.push_str(&format!("%{c:02X}"));
        } else {
            out.push(char::from(c));
        }
    }
    out
}

/// `validEncoded`: whether `s` has no byte that escaping would change, `%` aside.
fn valid_encoded(s: &str, mode: Mode) -> bool {
    s.bytes()
        .all(|c| b"!$&'()*+,;=:@[]%".contains(&c) || !should_escape(c, mode))
}

/// Go's `strconv.Quote`: printable characters as they are, the others escaped, and each byte
/// of invalid UTF-8 as `\x..`. Go's `unicode.IsPrint` is approximated: Rust has no general
/// categories, so only control, white space and the common format characters are escaped.
fn quote(bytes: &[u8]) -> String {
    let mut out = String::from('"');
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '"' | '\\' => out.extend(['\\', c]),
                '\x07' => out.push_str(r"\a"),
                '\x08' => out.push_str(r"\b"),
                '\x0C' => out.push_str(r"\f"),
                '\n' => out.push_str(r"\n"),
                '\r' => out.push_str(r"\r"),
                '\t' => out.push_str(r"\t"),
                '\x0B' => out.push_str(r"\v"),
                c if c < ' ' || c == '\x7f' => out.push_str(&format!(r"\x{:02x}", u32::from(c))),
                c if c == ' ' || !(c.is_control() || c.is_whitespace() || is_format(c)) => out.push(c),
                c if u32::from(c) < 0x10000 => out.push_str(&format!(r"\u{:04x}", u32::from(c))),
                c => out.push_str(&format!(r"\U{:08x}", u32::from(c))),
            }
        }
        for byte in chunk.invalid() {
            out.push_str(&format!(r"\x{byte:02x}"));
        }
    }
    out.push('"');
    out
}

/// Common format (`Cf`) and private use characters, which Go doesn't print as they are.
fn is_format(c: char) -> bool {
    matches!(u32::from(c), 0xAD | 0x600..=0x605 | 0x61C | 0x6DD | 0x70F | 0x180E | 0x200B..=0x200F
        | 0x202A..=0x202E | 0x2060..=0x206F | 0xFEFF | 0xFFF9..=0xFFFB | 0xE000..=0xF8FF)
}
