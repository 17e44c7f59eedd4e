//! Go's regular expression syntax (`regexp/syntax/parse.go` with its Perl flags, as `regexp.Compile` parses), read into the `regex` crate's: a pattern Go refuses fails with Go's error, and where the two syntaxes differ the pattern is rewritten (ASCII `\d`, `\s`, `\w` and `\b`; a `{` that starts no repetition is literal; no `(?<name>`; `(?i)` before a repetition).

use regex::Regex;

/// The Rust pattern matching what Go's parser makes of `pattern`, or Go's error text:
/// `error parsing regexp: `, the error's code, and the part of the pattern it names.
pub(super) fn translate(pattern: &str) -> Result<String, String> {
    rewrite(pattern).map_err(|(code, expr)| format!("error parsing regexp: {code}: `{expr}`"))
}

/// A Go parse error: its code and the part of the pattern it names.
type GoError = (&'static str, String);

const MISSING_BRACKET: &str = "missing closing ]";
const INVALID_CHAR_RANGE: &str = "invalid character class range";
const INVALID_ESCAPE: &str = "invalid escape sequence";

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

/// What an escape or class item stands for.
#[derive(PartialEq)]
enum Item {
    /// A literal code point.
    Char(char),
    /// Rust syntax for a class or an assertion, used as is.
    Raw(String),
    /// `\Q\E`: nothing.
    Nothing,
}

impl Item {
    fn push_to(self, out: &mut String) {
        match self {
            Item::Char(c) => push_literal(out, c),
            Item::Raw(raw) => out.push_str(&raw),
            Item::Nothing => {}
        }
    }
}

fn push_literal(out: &mut String, c: char) {
    out.push_str(&regex::escape(c.encode_utf8(&mut [0; 4])));
}

/// The escape at the start of `s` (a `\`), its length and meaning; `in_class` for one within
/// `[...]`, where Go takes neither assertions nor `\Q`.
fn escape(s: &str, in_class: bool) -> Result<(usize, Item), GoError> {
    let next = s[1..].chars().next();
    let perl_class = |negated: bool, set: &str| {
        let class = if negated { format!("[^{set}]") } else { set.to_owned() };
        Item::Raw(if in_class || negated { class } else { format!("[{set}]") })
    };
    let item = match next {
        None => return Err(("trailing backslash at end of expression", String::new())),
        Some('A') if !in_class => Item::Raw(r"(?:\A)".to_owned()),
        Some('z') if !in_class => Item::Raw(r"(?:\z)".to_owned()),
        Some('b') if !in_class => Item::Raw(r"(?:(?-u:\b))".to_owned()),
        Some('B') if !in_class => Item::Raw(r"(?:(?-u:\B))".to_owned()),
        Some('C') if !in_class => return Err((INVALID_ESCAPE, s[..2].to_owned())),
        Some('Q') if !in_class => {
            let (quoted, len) = match s[2..].find(r"\E") {
                Some(end) => (&s[2..2 + end], 2 + end + 2),
                None => (&s[2..], s.len()),
            };
            let mut raw = String::new();
            quoted.chars().for_each(|c| push_literal(&mut raw, c));
            let item = if raw.is_empty() {
                Item::Nothing
            } else {
                Item::Raw(format!("(?:{raw})"))
            };
            return Ok((len, item));
        }
        Some('p' | 'P') => return unicode_class(s),
        Some(c @ ('d' | 'D')) => perl_class(c == 'D', "0-9"),
        Some(c @ ('s' | 'S')) => perl_class(c == 'S', r"\t\n\x0C\r "),
        Some(c @ ('w' | 'W')) => perl_class(c == 'W', "0-9A-Za-z_"),
        Some(_) => {
            let (len, c) = escaped_char(s)?;
            return Ok((len, Item::Char(c)));
        }
    };
    Ok((2, item))
}

/// Go's `parseEscape`: the code point an escape at the start of `s` stands for, and its length.
fn escaped_char(s: &str) -> Result<(usize, char), GoError> {
    let invalid = |len: usize| Err((INVALID_ESCAPE, s[..len.min(s.len())].to_owned()));
    let mut chars = s[1..].chars();
    let Some(c) = chars.next() else {
        return Err(("trailing backslash at end of expression", String::new()));
    };
    let after = 1 + c.len_utf8();
    let octal = |b: Option<&u8>| b.is_some_and(|b| (b'0'..=b'7').contains(b));
    match c {
        c if c.is_ascii() && !c.is_ascii_alphanumeric() => Ok((after, c)),
        '1'..='7' if !octal(s.as_bytes().get(2)) => invalid(after),
        '0'..='7' => {
            let len = 2 + s.as_bytes()[2..].iter().take(2).take_while(|b| octal(Some(b))).count();
            let value = u32::from_str_radix(&s[1..len], 8).unwrap_or_default();
            Ok((len, char::from_u32(value).unwrap_or_default()))
        }
        'x' => hex_escape(s).map_or_else(invalid, Ok),
        'a' => Ok((after, '\x07')),
        'f' => Ok((after, '\x0C')),
        'n' => Ok((after, '\n')),
        'r' => Ok((after, '\r')),
        't' => Ok((after, '\t')),
        'v' => Ok((after, '\x0B')),
        _ => invalid(after),
    }
}

/// `\xHH` or `\x{H...}`, or the length Go had read when it gave up.
fn hex_escape(s: &str) -> Result<(usize, char), usize> {
    let mut chars = s.char_indices().skip(2);
    match chars.next() {
        None => Err(2),
        Some((_, '{')) => {
            let mut value = 0u32;
            for (i, c) in chars {
                match (c, c.to_digit(16)) {
                    // At least one digit: `\x{` is 3 bytes.
                    ('}', _) if i > 3 => return char::from_u32(value).map(|c| (i + 1, c)).ok_or(i + 1),
                    (_, Some(digit)) => {
                        value = value * 16 + digit;
                        if value > 0x10FFFF {
                            return Err(i + 1);
                        }
                    }
                    _ => return Err(i + c.len_utf8()),
                }
            }
            Err(s.len())
        }
        Some((i, high)) => {
            let low = chars.next();
            let len = low.map_or(i + high.len_utf8(), |(j, c)| j + c.len_utf8());
            match (high.to_digit(16), low.and_then(|(_, c)| c.to_digit(16))) {
                (Some(h), Some(l)) => char::from_u32(h * 16 + l).map(|c| (len, c)).ok_or(len),
                _ => Err(len),
            }
        }
    }
}

/// Unicode general categories as Go names them (`unicode.Categories`); scripts are checked
/// with Rust's `Script=` property, so that its other properties (`\p{Alphabetic}`) aren't taken.
const CATEGORIES: &[&str] = &[
    "C", "Cc", "Cf", "Co", "Cs", "L", "Ll", "Lm", "Lo", "Lt", "Lu", "M", "Mc", "Me", "Mn", "N", "Nd", "Nl", "No", "P",
    "Pc", "Pd", "Pe", "Pf", "Pi", "Po", "Ps", "S", "Sc", "Sk", "Sm", "So", "Z", "Zl", "Zp", "Zs",
];

/// Go's `parseUnicodeClass` of `\pN`, `\p{Name}`, `\P...` or `\p{^Name}` at the start of `s`.
fn unicode_class(s: &str) -> Result<(usize, Item), GoError> {
    let mut negated = s.as_bytes()[1] == b'P';
    let (sequence, name) = match s[2..].chars().next() {
        Some('{') => {
            let end = s.find('}').ok_or_else(|| (INVALID_CHAR_RANGE, s.to_owned()))?;
            (&s[..=end], &s[3..end])
        }
        Some(c) => (&s[..2 + c.len_utf8()], &s[2..2 + c.len_utf8()]),
        None => (s, ""),
    };
    let name = match name.strip_prefix('^') {
        Some(name) => {
            negated = !negated;
            name
        }
        None => name,
    };
    let known = name == "Any"
        || CATEGORIES.contains(&name)
        || (name.starts_with(|c: char| c.is_ascii_uppercase())
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
            && Regex::new(&format!(r"\p{{Script={name}}}")).is_ok());
    if !known {
        return Err((INVALID_CHAR_RANGE, sequence.to_owned()));
    }
    let property = if CATEGORIES.contains(&name) || name == "Any" {
        name.to_owned()
    } else {
        format!("Script={name}")
    };
    let letter = if negated { 'P' } else { 'p' };
    Ok((sequence.len(), Item::Raw(format!(r"\{letter}{{{property}}}"))))
}

/// Go's `parseClass` of the `[...]` at the start of `s`, pushed to `out`; its length.
fn class(s: &str, out: &mut String) -> Result<usize, GoError> {
    let missing = || (MISSING_BRACKET, s.to_owned());
    let mut at = 1;
    out.push('[');
    if s[at..].starts_with('^') {
        out.push('^');
        at += 1;
    }
    let mut first = true;
    while first || !s[at..].starts_with(']') {
        first = false;
        let rest = &s[at..];
        if rest.is_empty() {
            return Err(missing());
        }
        if let Some(end) = rest.strip_prefix("[:").and_then(|r| r.find(":]")) {
            let name = &rest[..end + 4];
            const POSIX: &[&str] = &[
                "alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower", "print", "punct", "space",
                "upper", "word", "xdigit",
            ];
            let inner = &name[2..name.len() - 2];
            if !POSIX.contains(&inner.strip_prefix('^').unwrap_or(inner)) {
                return Err((INVALID_CHAR_RANGE, name.to_owned()));
            }
            out.push_str(name);
            at += name.len();
            continue;
        }
        let perl_class = rest.strip_prefix('\\').and_then(|r| r.chars().next());
        if let Some(letter @ ('p' | 'P' | 'd' | 'D' | 's' | 'S' | 'w' | 'W')) = perl_class {
            let (len, item) = if matches!(letter, 'p' | 'P') {
                unicode_class(rest)?
            } else {
                escape(rest, true)?
            };
            item.push_to(out);
            at += len;
            continue;
        }
        let (len, low) = class_char(rest).ok_or_else(missing)??;
        let mut range_len = len;
        let mut high = low;
        if rest[len..].len() >= 2 && rest[len..].starts_with('-') && !rest[len + 1..].starts_with(']') {
            let (high_len, c) = class_char(&rest[len + 1..]).ok_or_else(missing)??;
            range_len = len + 1 + high_len;
            high = c;
            if high < low {
                return Err((INVALID_CHAR_RANGE, rest[..range_len].to_owned()));
            }
        }
        push_literal(out, low);
        if high != low {
            out.push('-');
            push_literal(out, high);
        }
        at += range_len;
    }
    out.push(']');
    Ok(at + 1)
}

/// A class's single character at the start of `s`: `None` at the end of the pattern.
fn class_char(s: &str) -> Option<Result<(usize, char), GoError>> {
    let c = s.chars().next()?;
    Some(if c == '\\' {
        escaped_char(s)
    } else {
        Ok((c.len_utf8(), c))
    })
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
