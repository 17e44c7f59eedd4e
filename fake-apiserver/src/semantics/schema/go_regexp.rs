//! Go `regexp` patterns (RE2 syntax) run with the `regex` crate, as kube-openapi's `pattern`
//! check runs them (`validate/rexp.go`: compiled once, cached by pattern).
//!
//! The two engines share RE2's syntax; they differ in the Perl classes, which are ASCII-only in
//! Go and Unicode-aware in `regex`: `\d`, `\w`, `\s` (and their negations) and `\b` are rewritten
//! to their ASCII meaning before compiling.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};

use regex::Regex;

/// A pattern that Go's `regexp` refuses, with why.
#[derive(Clone, Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct PatternError(String);

type Cache = Mutex<HashMap<String, Result<Arc<Regex>, PatternError>>>;

static CACHE: LazyLock<Cache> = LazyLock::new(|| Mutex::new(HashMap::new()));

/// Whether `text` holds a match of the Go pattern `pattern` (unanchored, as `MatchString`).
pub(crate) fn is_match(pattern: &str, text: &str) -> Result<bool, PatternError> {
    Ok(compile(pattern)?.is_match(text))
}

/// The compiled form of `pattern`, from the cache when it was compiled before.
fn compile(pattern: &str) -> Result<Arc<Regex>, PatternError> {
    let mut cache = CACHE.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(found) = cache.get(pattern) {
        return found.clone();
    }
    let compiled = Regex::new(&ascii_classes(pattern))
        .map(Arc::new)
        .map_err(|e| PatternError(e.to_string()));
    cache.insert(pattern.to_owned(), compiled.clone());
    compiled
}

/// Rewrites Go's ASCII-only Perl classes into explicit ASCII classes, inside and outside
/// brackets.
fn ascii_classes(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 16);
    let mut chars = pattern.chars().peekable();
    let mut in_class = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let Some(next) = chars.next() else {
                    out.push('\\');
                    break;
                };
                out.push_str(&rewrite_escape(next, in_class));
            }
            '[' if !in_class => {
                in_class = true;
                out.push('[');
                // `]` right after `[` or `[^` is a literal, not the end of the class.
                if chars.peek() == Some(&'^') {
                    out.push('^');
                    chars.next();
                }
                if chars.peek() == Some(&']') {
                    out.push_str("\\]");
                    chars.next();
                }
            }
            ']' if in_class => {
                in_class = false;
                out.push(']');
            }
            other => out.push(other),
        }
    }
    out
}

/// The ASCII meaning of `\<c>`: a bracket class outside brackets, its ranges inside.
fn rewrite_escape(c: char, in_class: bool) -> String {
    let (ranges, negated) = match c {
        'd' => ("0-9", false),
        'D' => ("0-9", true),
        'w' => ("0-9A-Za-z_", false),
        'W' => ("0-9A-Za-z_", true),
        's' => ("\\t\\n\\x0C\\r ", false),
        'S' => ("\\t\\n\\x0C\\r ", true),
        'b' if !in_class => return "(?-u:\\b)".to_owned(),
        'B' if !in_class => return "(?-u:\\B)".to_owned(),
        other => return format!("\\{other}"),
    };
    match (in_class, negated) {
        (false, false) => format!("[{ranges}]"),
        (false, true) => format!("[^{ranges}]"),
        (true, false) => ranges.to_owned(),
        // A negated class inside brackets has no range form; a nested class keeps its meaning.
        (true, true) => format!("[^{ranges}]"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perl_classes_should_match_ascii_only_as_in_go() {
        assert!(is_match(r"^\d+$", "123").unwrap());
        assert!(!is_match(r"^\d+$", "١٢٣").unwrap());
        assert!(!is_match(r"^\w+$", "héllo").unwrap());
        assert!(is_match(r"^[\w-]+$", "a-b_c").unwrap());
        assert!(is_match(r"^[^\d]+$", "abc").unwrap());
        assert!(is_match(r"^\S+\s\S+$", "a b").unwrap());
    }

    #[test]
    fn patterns_should_match_unanchored_and_keep_literal_brackets() {
        assert!(is_match("b", "abc").unwrap());
        assert!(is_match(r"^[]a]+$", "]a").unwrap());
        assert!(is_match(r"^\.$", ".").unwrap());
        assert!(is_match("(", "x").is_err());
    }
}
