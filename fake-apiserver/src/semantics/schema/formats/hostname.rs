//! The `hostname` format: strfmt's `IsHostname`, its `HostnamePattern` (Unicode letters and
//! symbols allowed) matched by hand, then its length limits.

use std::sync::LazyLock;

use regex::Regex;

// The pattern's Unicode classes, asked about one character at a time: the Go pattern repeats
// them up to 63 times, and `regex` would copy their large UTF-8 automata for each repetition.
// `regex` has Unicode 16 tables where Go 1.21 has Unicode 15: characters new in 16 differ.
static SYMBOL_OR_LETTER: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^[\p{S}\p{L}]$").expect("valid regex"));
static LETTER: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^\p{L}$").expect("valid regex"));

/// Ports strfmt's `IsHostname`: `HostnamePattern`, then at most 255 bytes and 63 per part.
pub(super) fn hostname(value: &str) -> bool {
    // The pattern's first branch has no dot and its second needs one, so the dot picks the branch.
    let shaped = if value.contains('.') {
        is_dotted_hostname(value)
    } else {
        is_single_label(value)
    };
    shaped && value.len() <= 255 && value.split('.').all(|part| part.len() <= 63)
}

/// `[a-zA-Z0-9\p{S}\p{L}]`: what may start or end a hostname label (ASCII symbols such as `+`
/// or `$` are in `\p{S}`, so they count; `_` does not).
fn is_label_char(c: char) -> bool {
    let mut buf = [0; 4];
    c.is_ascii_alphanumeric() || SYMBOL_OR_LETTER.is_match(c.encode_utf8(&mut buf))
}

/// The pattern's first branch, `[C]((-?[C]{0,62})?)`: one label character, an optional hyphen
/// right after it, then up to 62 label characters. So `a-` passes and `my-host` does not.
fn is_single_label(value: &str) -> bool {
    let mut chars = value.chars();
    let Some(first) = chars.next() else { return false };
    let rest = chars.as_str();
    let rest = rest.strip_prefix('-').unwrap_or(rest);
    is_label_char(first) && rest.chars().count() <= 62 && rest.chars().all(is_label_char)
}

/// The pattern's second branch, `([C](([C-]{0,61}[C])?)(\.)){1,}([a-zA-Z\p{L}]){2,63}`: labels of
/// 1 to 63 characters that neither start nor end with `-`, each followed by a dot, then a
/// top-level domain of 2 to 63 letters.
fn is_dotted_hostname(value: &str) -> bool {
    let Some((labels, top)) = value.rsplit_once('.') else {
        return false;
    };
    let letter = |c: char| {
        let mut buf = [0; 4];
        LETTER.is_match(c.encode_utf8(&mut buf))
    };
    (2..=63).contains(&top.chars().count())
        && top.chars().all(letter)
        && labels.split('.').all(|label| {
            let chars: Vec<char> = label.chars().collect();
            match chars.as_slice() {
                [] => false,
                [only] => is_label_char(*only),
                [first, middle @ .., last] => {
                    middle.len() <= 61
                        && is_label_char(*first)
                        && is_label_char(*last)
                        && middle.iter().all(|&c| c == '-' || is_label_char(c))
                }
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostname_should_follow_go_pattern() {
        let valid = [
            "localhost",
            "example.com",
            "my-host.com",
            "a-",
            "a-b",
            "$.com",
            "xn--bcher-kva.example",
        ];
        for valid in valid.into_iter().chain(["münchen.de", "☃.net"]) {
            assert!(hostname(valid), "{valid}");
        }
        // The single-label branch allows one hyphen, right after the first character.
        let invalid = [
            "",
            "my-host",
            "a-b-c",
            "-a",
            "a_b",
            "1.2.3.4",
            "example.c0m",
            "a..com",
            ".com",
            "a.com.",
        ];
        for invalid in invalid.into_iter().chain(["-a.com"]) {
            assert!(!hostname(invalid), "{invalid}");
        }
        let label = "a".repeat(63);
        assert!(hostname(&format!("{label}.com")));
        assert!(!hostname(&format!("{label}a.com")));
        // 62 two-byte letters pass the pattern but not the 63-byte limit on parts.
        assert!(!hostname(&format!("{}.com", "é".repeat(62))));
    }
}
