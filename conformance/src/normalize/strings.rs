//! The patterns the normalizer recognizes in strings: uids, times, pointers, resource versions.

use std::sync::LazyLock;

use regex::Regex;

fn pattern(re: &str) -> Regex {
    Regex::new(re).expect("a valid pattern")
}

/// A uid anywhere in a string.
pub static UUID_RE: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"));

/// A whole string that is an RFC 3339 time: seconds, fraction, offset.
pub static TIME_RE: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d+)?(Z|[+-]\d\d:\d\d)$"));

/// A message that talks about resource versions.
pub static RV_MESSAGE_RE: LazyLock<Regex> = LazyLock::new(|| pattern(r"(?i)resource ?version"));

/// A pointer in a Go `%#v` dump.
pub static POINTER_RE: LazyLock<Regex> = LazyLock::new(|| pattern(r"0x[0-9a-f]{6,}"));

/// The name of a Go scheme in a decoder's error, which depends on how kube-apiserver was built
/// (`naming.GetNameFromCallsite`: `pkg/runtime/scheme.go:100` in module mode,
/// `pkg/api/legacyscheme/scheme.go:30` vendored).
pub static SCHEME_NAME_RE: LazyLock<Regex> = LazyLock::new(|| pattern(r#"in scheme "[^"]*""#));

/// An RFC 3339 time inside a text.
pub static TIME_IN_TEXT_RE: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)"));

static RV_NUMBER_RE: LazyLock<Regex> = LazyLock::new(|| pattern(r"\b\d{2,}\b"));

/// Every number of two or more digits in `text` as `<rv>` (resource versions quoted in a message).
pub fn replace_rv_numbers(text: &str) -> String {
    RV_NUMBER_RE.replace_all(text, "<rv>").into_owned()
}
