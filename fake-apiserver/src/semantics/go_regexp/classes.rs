//! The escapes and bracket classes of Go's `regexp/syntax/parse.go` (`parseEscape`, `parseClass`, `parseUnicodeClass`, the Perl and POSIX classes), written in the `regex` crate's syntax.

use regex::Regex;

use super::GoError;

const MISSING_BRACKET: &str = "missing closing ]";
const INVALID_CHAR_RANGE: &str = "invalid character class range";
const INVALID_ESCAPE: &str = "invalid escape sequence";

/// What an escape or class item stands for.
#[derive(PartialEq)]
pub(super) enum Item {
    /// A literal code point.
    Char(char),
    /// Rust syntax for a class or an assertion, used as is.
    Raw(String),
    /// `\Q\E`: nothing.
    Nothing,
}

impl Item {
    pub(super) fn push_to(self, out: &mut String) {
        match self {
            Item::Char(c) => push_literal(out, c),
            Item::Raw(raw) => out.push_str(&raw),
            Item::Nothing => {}
        }
    }
}

pub(super) fn push_literal(out: &mut String, c: char) {
    out.push_str(&regex::escape(c.encode_utf8(&mut [0; 4])));
}

/// The escape at the start of `s` (a `\`), its length and meaning; `in_class` for one within
/// `[...]`, where Go takes neither assertions nor `\Q`.
pub(super) fn escape(s: &str, in_class: bool) -> Result<(usize, Item), GoError> {
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
pub(super) fn class(s: &str, out: &mut String) -> Result<usize, GoError> {
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
