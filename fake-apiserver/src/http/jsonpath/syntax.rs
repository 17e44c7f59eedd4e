//! What client-go's JSONPath parser (`util/jsonpath/parser.go`) builds and reads with: the
//! nodes of `node.go`, its errors, a slice's bounds, Go's character classes it scans by, and
//! `UnquoteExtend`.

use std::sync::LazyLock;

use regex::Regex;

/// A node of the parse tree (`node.go`).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Node {
    /// Text outside actions, or a quoted string: a Go string, so not always UTF-8 (`"\xff"`).
    Text(Vec<u8>),
    /// An action's nodes, walked one after the other.
    List(Vec<Node>),
    /// `.name`: a map key.
    Field(String),
    /// A bare word other than `true` and `false`: `range`, `end`, or an error once walked.
    Identifier(String),
    /// `[start:end:step]`; an index is a slice one element long.
    Array([Param; 3]),
    /// `[?(left operator right)]`, the operator being `exists` when there is none.
    Filter {
        left: Vec<Node>,
        right: Vec<Node>,
        operator: String,
    },
    /// An integer literal (a Go `int`).
    Int(i64),
    /// A number literal with a fraction.
    Float(f64),
    /// `.*`.
    Wildcard,
    /// `..`.
    Recursive,
    /// `[a,b]`: each part parsed as an action of its own.
    Union(Vec<Vec<Node>>),
    /// `true` or `false`.
    Bool(bool),
}

/// One bound of an array node (`ParamsEntry`): `known` when written, `derived` for the end an
/// index implies (`[i]` is `[i:i+1]`, and `[-1]` must reach the end).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Param {
    pub(crate) value: i64,
    pub(crate) known: bool,
    pub(crate) derived: bool,
}

/// Why a template does not parse, in the words of `parser.go`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ParseError {
    #[error("unclosed action")]
    UnclosedAction,
    #[error("unrecognized character in action: {}", go_rune(*.0))]
    UnrecognizedCharacter(char),
    #[error("invalid multiple recursive descent")]
    MultipleRecursive,
    #[error("cannot parse number {0}")]
    Number(String),
    #[error("unterminated array")]
    UnterminatedArray,
    #[error("invalid array index {0}")]
    ArrayIndex(String),
    #[error("array index {0} is not a number")]
    IndexNotNumber(String),
    #[error("unterminated filter")]
    UnterminatedFilter,
    #[error("unclosed array expect ]")]
    UnclosedFilter,
    #[error("unterminated quoted string")]
    UnterminatedQuote,
    /// `strconv`'s only error, `ErrSyntax`.
    #[error("unquote string {0} error invalid syntax")]
    Unquote(String),
}
// Go's `unicode.IsLetter`, `unicode.IsDigit` (`Nd` only) and `strconv.IsPrint`, by category.
// Go's `\d` is ASCII only, Rust's is not.
static SLICE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^(-?[0-9]*)(:-?[0-9]*)?(:-?[0-9]*)?$").expect("valid"));
static LETTER: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^\p{L}$").expect("valid"));
static DIGIT: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^\p{Nd}$").expect("valid"));
static PRINT: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$").expect("valid"));

/// `parseArray`'s slice `start:end:step`, each part optional: an index `i` is `i:i+1`, the
/// end derived so that `[-1]` reaches the end.
pub(super) fn slice_params(text: &str) -> Result<[Param; 3], ParseError> {
    let Some(captures) = SLICE.captures(text) else {
        return Err(ParseError::ArrayIndex(text.to_owned()));
    };
    let mut params = [Param::default(); 3];
    for i in 0..3 {
        let written = captures.get(i + 1).map_or("", |m| m.as_str());
        if written.is_empty() {
            if i == 1 {
                params[1] = Param {
                    value: params[0].value.wrapping_add(1),
                    known: true,
                    derived: true,
                };
            }
            continue;
        }
        let digits = if i > 0 { &written[1..] } else { written };
        if i > 0 && digits.is_empty() {
            continue;
        }
        let value = digits
            .parse::<i64>()
            .map_err(|_| ParseError::IndexNotNumber(digits.to_owned()))?;
        params[i] = Param {
            value,
            known: true,
            derived: false,
        };
    }
    Ok(params)
}

/// `isTerminator`: what ends a field or an identifier (`None` being the end of input).
pub(super) fn is_terminator(c: Option<char>) -> bool {
    matches!(
        c,
        None | Some(' ' | '\t' | '\r' | '\n' | '.' | ',' | '[' | ']' | '$' | '@' | '{' | '}')
    )
}

pub(super) fn is_alphanumeric(c: char) -> bool {
    c == '_' || is_letter(c) || is_digit(c)
}

fn is_letter(c: char) -> bool {
    c.is_ascii_alphabetic() || (!c.is_ascii() && LETTER.is_match(c.encode_utf8(&mut [0; 4])))
}

pub(super) fn is_digit(c: char) -> bool {
    c.is_ascii_digit() || (!c.is_ascii() && DIGIT.is_match(c.encode_utf8(&mut [0; 4])))
}

/// Go's `%#U`: `U+002A '*'`, the character shown only when printable.
fn go_rune(c: char) -> String {
    if PRINT.is_match(c.encode_utf8(&mut [0; 4])) {
        format!("U+{:04X} '{c}'", u32::from(c))
    } else {
        format!("U+{:04X}", u32::from(c))
    }
}

/// `UnquoteExtend`: `strconv.Unquote` for double and single quotes alike, to Go's bytes (`\xff`
/// is one byte, not a character); `None` for `ErrSyntax`.
pub(super) fn unquote_extend(s: &str) -> Option<Vec<u8>> {
    let quote = s.chars().next().filter(|q| matches!(q, '"' | '\''))?;
    if s.len() < 2 || !s.ends_with(quote) {
        return None;
    }
    let mut rest = &s[1..s.len() - 1];
    if !rest.contains(['\\', quote]) {
        return Some(rest.as_bytes().to_vec());
    }
    let mut out = Vec::with_capacity(rest.len());
    while !rest.is_empty() {
        rest = unquote_char(rest, quote, &mut out)?;
    }
    Some(out)
}

/// `strconv.UnquoteChar`: one character or escape of `s` onto `out`; the rest of `s`.
fn unquote_char<'s>(s: &'s str, quote: char, out: &mut Vec<u8>) -> Option<&'s str> {
    let mut chars = s.chars();
    let c = chars.next()?;
    if c == quote {
        return None;
    }
    if c != '\\' {
        out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
        return Some(chars.as_str());
    }
    let escape = chars.next()?;
    let rest = chars.as_str();
    let simple = match escape {
        'a' => Some(0x07),
        'b' => Some(0x08),
        'f' => Some(0x0c),
        'n' => Some(b'\n'),
        'r' => Some(b'\r'),
        't' => Some(b'\t'),
        'v' => Some(0x0b),
        '\\' => Some(b'\\'),
        '\'' | '"' if escape == quote => Some(escape as u8),
        _ => None,
    };
    if let Some(byte) = simple {
        out.push(byte);
        return Some(rest);
    }
    match escape {
        'x' | 'u' | 'U' => {
            let n = match escape {
                'x' => 2,
                'u' => 4,
                _ => 8,
            };
            let digits = rest.get(..n).filter(|d| d.bytes().all(|b| b.is_ascii_hexdigit()))?;
            let value = u32::from_str_radix(digits, 16).ok()?;
            if escape == 'x' {
                out.push(u8::try_from(value).ok()?);
            } else {
                out.extend_from_slice(char::from_u32(value)?.encode_utf8(&mut [0; 4]).as_bytes());
            }
            Some(&rest[n..])
        }
        '0'..='7' => {
            let digits = rest
                .get(..2)
                .filter(|d| d.bytes().all(|b| (b'0'..=b'7').contains(&b)))?;
            let value = digits
                .bytes()
                .fold(u32::from(escape) - u32::from('0'), |v, d| v << 3 | u32::from(d - b'0'));
            out.push(u8::try_from(value).ok()?);
            Some(&rest[2..])
        }
        _ => None,
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unquote_extend_should_read_go_escapes_to_bytes() {
        let unquote = |s: &str| unquote_extend(s).map(|b| String::from_utf8_lossy(&b).into_owned());
        assert_eq!(unquote(r#""a\tb\u00e9\x41\101""#).as_deref(), Some("a\tbéAA"));
        assert_eq!(unquote(r"'it\'s'").as_deref(), Some("it's"));
        assert_eq!(unquote(r#"'say "hi"'"#).as_deref(), Some("say \"hi\""));
        assert_eq!(unquote_extend(r#""\xff""#), Some(vec![0xff]));
        assert_eq!(unquote_extend(r#""\q""#), None);
        assert_eq!(unquote_extend(r#""\'""#), None, "only the string's own quote escapes");
        assert_eq!(unquote_extend(r#""\400""#), None, "octal past a byte");
        assert_eq!(unquote_extend(r#""\ud800""#), None, "a surrogate");
        assert_eq!(unquote_extend(r#""\x+f""#), None);
        assert_eq!(unquote_extend("'a"), None);
    }

    #[test]
    fn slice_params_should_read_bounds_as_go_does() {
        let param = |value, known, derived| Param { value, known, derived };
        let unknown = Param::default();
        let parsed = |s: &str| slice_params(s).unwrap();
        assert_eq!(parsed("2"), [param(2, true, false), param(3, true, true), unknown]);
        assert_eq!(parsed("-1"), [param(-1, true, false), param(0, true, true), unknown]);
        assert_eq!(parsed(""), [unknown, param(1, true, true), unknown]);
        assert_eq!(parsed(":"), [unknown; 3]);
        assert_eq!(parsed("::"), [unknown; 3]);
        let full = [param(1, true, false), param(-2, true, false), param(3, true, false)];
        assert_eq!(parsed("1:-2:3"), full);
        assert_eq!(slice_params("1:-"), Err(ParseError::IndexNotNumber("-".into())));
        assert_eq!(slice_params("a"), Err(ParseError::ArrayIndex("a".into())));
    }

    #[test]
    fn classes_should_follow_go_unicode_tables() {
        assert!(is_alphanumeric('é') && is_alphanumeric('_') && is_alphanumeric('٣'));
        assert!(!is_digit('²'), "No, not Nd");
        assert!(!is_alphanumeric('-'));
        assert_eq!(go_rune('*'), "U+002A '*'");
        assert_eq!(go_rune('\u{200b}'), "U+200B");
    }
}
