//! Go's `regexp` patterns (`regexp/syntax/parse.go` of Go 1.21, with the Perl flags `regexp.Compile` parses with) run with the `regex` crate, for kube-openapi's `pattern` check and CEL's `matches`, `find` and `findAll`: a pattern Go refuses fails with Go's error, and where the two syntaxes differ the pattern is rewritten (ASCII `\d`, `\s`, `\w` and `\b`; a `{` that starts no repetition is literal; no `(?<name>`; `(?i)` before a repetition).

mod classes;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use regex::Regex;

use classes::{Item, class, escape, push_literal};

/// Whether `text` holds a match of the Go pattern `pattern` (unanchored, as `MatchString`), or
/// Go's error text for a pattern it refuses.
pub(crate) fn is_match(pattern: &str, text: &str) -> Result<bool, String> {
    Ok(compile(pattern)?.is_match(text))
}

/// `pattern` compiled with Go's meaning, or Go's `error parsing regexp: ...` text. Compiled
/// patterns are kept, as kube-openapi caches them and cel-go compiles a constant one once.
pub(crate) fn compile(pattern: &str) -> Result<Arc<Regex>, String> {
    type Cache = HashMap<String, Result<Arc<Regex>, String>>;
    static COMPILED: Mutex<Option<Cache>> = Mutex::new(None);
    let mut compiled = COMPILED.lock().unwrap_or_else(PoisonError::into_inner);
    let cache = compiled.get_or_insert_with(HashMap::new);
    if let Some(found) = cache.get(pattern) {
        return found.clone();
    }
    let regex = translate(pattern).and_then(|rust| {
        Regex::new(&rust).map(Arc::new).map_err(|error| match error {
            regex::Error::CompiledTooBig(_) => format!("error parsing regexp: expression too large: `{pattern}`"),
            other => format!(
                "error parsing regexp: {}",
                other.to_string().lines().last().unwrap_or_default()
            ),
        })
    });
    // Bounded, as rules may build patterns at run time.
    if cache.len() >= 256 {
        cache.clear();
    }
    cache.insert(pattern.to_owned(), regex.clone());
    regex
}

/// The Rust pattern matching what Go's parser makes of `pattern`, or Go's error text:
/// `error parsing regexp: `, the error's code, and the part of the pattern it names.
fn translate(pattern: &str) -> Result<String, String> {
    rewrite(pattern).map_err(|(code, expr)| format!("error parsing regexp: {code}: `{expr}`"))
}

/// A Go parse error: its code and the part of the pattern it names.
type GoError = (&'static str, String);

/// The Rust pattern matching what Go's parser makes of `pattern` with its Perl flags.
fn rewrite(pattern: &str) -> Result<String, GoError> {
    let mut out = String::with_capacity(pattern.len());
    let mut depth = 0usize;
    // Whether the parse stack's top is something to repeat (not empty, `(` nor `|`).
    let mut operand = false;
    // Where the previous item started, if it was a repetition: Go forbids stacking them.
    let mut last_repeat: Option<usize> = None;
    // Flags set alone (`(?i)`), held back past a repetition: Go repeats what precedes them,
    // where Rust would find nothing to repeat.
    let mut flags = String::new();
    let mut at = 0;
    while at < pattern.len() {
        let rest = &pattern[at..];
        let mut repeat = None;
        let c = rest.chars().next().unwrap_or_default();
        let repetition_next = matches!(c, '*' | '+' | '?') || (c == '{' && repetition(rest).is_some());
        if !repetition_next && !rest.starts_with("(?") {
            out.push_str(&std::mem::take(&mut flags));
        }
        let consumed = match c {
            '(' if rest.starts_with("(?") => {
                let (len, group, text) = perl_flags(rest)?;
                if group {
                    out.push_str(&std::mem::take(&mut flags));
                    out.push_str(&text);
                    depth += 1;
                    operand = false;
                } else {
                    flags.push_str(&text);
                }
                len
            }
            '(' => {
                // Captures are never read: a group that doesn't capture matches alike.
                out.push_str("(?:");
                depth += 1;
                operand = false;
                1
            }
            '|' => {
                out.push('|');
                operand = false;
                1
            }
            ')' if depth == 0 => return Err(("unexpected )", pattern.to_owned())),
            ')' => {
                out.push(')');
                depth -= 1;
                operand = true;
                1
            }
            // Wrapped, as Go repeats an anchor where Rust would not.
            '^' | '$' => {
                out.push_str(&format!("(?:{c})"));
                operand = true;
                1
            }
            '.' => {
                out.push('.');
                operand = true;
                1
            }
            '[' => {
                let len = class(rest, &mut out)?;
                operand = true;
                len
            }
            '{' if repetition(rest).is_none() => {
                out.push_str(r"\{");
                operand = true;
                1
            }
            '*' | '+' | '?' | '{' => {
                let len = match repetition(rest) {
                    Some((min, max, len)) => {
                        if !(0..=1000).contains(&min) || max > 1000 || (max >= 0 && min > max) {
                            return Err(("invalid repeat count", rest[..len].to_owned()));
                        }
                        len
                    }
                    None => 1,
                };
                let len = if rest[len..].starts_with('?') { len + 1 } else { len };
                if let Some(previous) = last_repeat {
                    let text = pattern[previous..at + len].to_owned();
                    return Err(("invalid nested repetition operator", text));
                }
                if !operand {
                    let text = rest[..len].to_owned();
                    return Err(("missing argument to repetition operator", text));
                }
                out.push_str(&rest[..len]);
                repeat = Some(at);
                len
            }
            '\\' => {
                let (len, item) = escape(rest, false)?;
                if item != Item::Nothing {
                    operand = true;
                }
                item.push_to(&mut out);
                len
            }
            c => {
                push_literal(&mut out, c);
                operand = true;
                c.len_utf8()
            }
        };
        last_repeat = repeat;
        at += consumed;
    }
    if depth != 0 {
        return Err(("missing closing )", pattern.to_owned()));
    }
    out.push_str(&flags);
    Ok(out)
}

/// Go's `parseRepeat`: `{min}`, `{min,}` (`max` -1) or `{min,max}`, and its length; a number
/// too large (`parseInt` stops at 10^8) makes `min` -1. `None` if `s` starts no repetition.
fn repetition(s: &str) -> Option<(i64, i64, usize)> {
    let number = |s: &str| -> Option<(i64, usize)> {
        let len = s.bytes().take_while(u8::is_ascii_digit).count();
        if len == 0 || (len >= 2 && s.starts_with('0')) {
            return None;
        }
        let mut n = 0i64;
        for digit in s[..len].bytes() {
            if n >= 100_000_000 {
                return Some((-1, len));
            }
            n = n * 10 + i64::from(digit - b'0');
        }
        Some((n, len))
    };
    let (mut min, min_len) = number(s.strip_prefix('{')?)?;
    let mut at = 1 + min_len;
    let max = match s[at..].strip_prefix(',') {
        None => min,
        Some(after) if after.starts_with('}') => {
            at += 1;
            -1
        }
        Some(after) => {
            let (max, max_len) = number(after)?;
            at += 1 + max_len;
            if max < 0 {
                min = -1;
            }
            max
        }
    };
    s[at..].starts_with('}').then_some((min, max, at + 1))
}

/// Go's `parsePerlFlags` of the `(?` at the start of `s`: a named capture, a group with flags,
/// or flags alone; its length, whether it opens a group, and its Rust syntax.
fn perl_flags(s: &str) -> Result<(usize, bool, String), GoError> {
    if s.len() > 4 && s[2..].starts_with("P<") {
        let end = s.find('>').ok_or_else(|| ("invalid named capture", s.to_owned()))?;
        let name = &s[4..end];
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            return Err(("invalid named capture", s[..=end].to_owned()));
        }
        return Ok((end + 1, true, "(?:".to_owned()));
    }
    let (mut negated, mut saw_flag) = (false, false);
    let mut flags = String::new();
    for (i, c) in s.char_indices().skip(2) {
        match c {
            'i' | 'm' | 's' | 'U' => {
                flags.push(c);
                saw_flag = true;
            }
            '-' if !negated => {
                flags.push(c);
                negated = true;
                saw_flag = false;
            }
            ':' | ')' if !negated || saw_flag => {
                let group = c == ':';
                // Rust takes no empty `(?)`.
                let text = if group || !flags.is_empty() {
                    format!("(?{flags}{c}")
                } else {
                    String::new()
                };
                return Ok((i + 1, group, text));
            }
            _ => return Err(("invalid or unsupported Perl syntax", s[..i + c.len_utf8()].to_owned())),
        }
    }
    Err(("invalid or unsupported Perl syntax", s.to_owned()))
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

    #[test]
    fn patterns_should_read_with_go_syntax_and_fail_with_go_errors() {
        // Go's syntax where the `regex` crate's differs: a literal `{`, `\Q...\E`, octal escapes.
        assert!(is_match("^a{,5}$", "a{,5}").unwrap());
        assert!(is_match(r"^\Qa*\E$", "a*").unwrap());
        assert!(is_match(r"^x\0$", "x\0").unwrap());
        // kube-openapi quotes `err.Error()` of a pattern that does not compile.
        assert_eq!(
            is_match("(", "x"),
            Err("error parsing regexp: missing closing ): `(`".to_owned())
        );
    }
}
