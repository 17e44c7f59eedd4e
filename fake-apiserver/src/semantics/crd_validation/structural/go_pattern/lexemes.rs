//! The pieces of a Go pattern that `regexp/syntax/parse.go` reads outside its parse stack:
//! repetition counts, escapes, and the character classes of `[…]`, `\p{…}` and `\d`.

use super::{INVALID_CHAR_RANGE, INVALID_ESCAPE, MISSING_BRACKET, Parsed, TRAILING_BACKSLASH, error, names};

/// `parseRepeat`: `{min}`, `{min,}` (max -1) or `{min,max}` at the start of `s`, with its length;
/// `None` when `s` starts no such form. A number too big reads as min -1.
pub(super) fn parse_repeat(s: &str) -> Option<(i64, i64, usize)> {
    let bytes = s.as_bytes();
    let (mut min, len) = parse_int(&s[1..])?;
    let mut pos = 1 + len;
    let max = match bytes.get(pos)? {
        b',' => {
            pos += 1;
            if *bytes.get(pos)? == b'}' {
                -1
            } else {
                let (max, len) = parse_int(&s[pos..])?;
                pos += len;
                if max < 0 {
                    min = -1;
                }
                max
            }
        }
        _ => min,
    };
    (bytes.get(pos) == Some(&b'}')).then_some((min, max, pos + 1))
}

/// `parseInt`: a decimal number without leading zeros and its length; -1 when it is too big.
fn parse_int(s: &str) -> Option<(i64, usize)> {
    let bytes = s.as_bytes();
    if !bytes.first().is_some_and(u8::is_ascii_digit) {
        return None;
    }
    if bytes.len() >= 2 && bytes[0] == b'0' && bytes[1].is_ascii_digit() {
        return None;
    }
    let digits = bytes.iter().take_while(|c| c.is_ascii_digit()).count();
    let mut n: i64 = 0;
    for &digit in &bytes[..digits] {
        if n >= 100_000_000 {
            n = -1;
            break;
        }
        n = n * 10 + i64::from(digit - b'0');
    }
    Some((n, digits))
}

/// `parseNamedClass`: a POSIX class like `[:alpha:]` at the start of `t`, with its length; `None`
/// when `t` starts no `[:` or no `:]` follows (the `[` is then a literal).
pub(super) fn named_class(t: &str) -> Parsed<Option<usize>> {
    if t.len() <= 2 || !t.starts_with("[:") {
        return Ok(None);
    }
    let Some(end) = t[2..].find(":]") else {
        return Ok(None);
    };
    let name = &t[..end + 4];
    if names::POSIX_CLASSES.contains(&name) {
        Ok(Some(name.len()))
    } else {
        Err(error(INVALID_CHAR_RANGE, name))
    }
}

/// `parseUnicodeClass`: `\pN`, `\p{Name}`, `\PN`, `\P{^Name}` at the start of `s`, with its length.
pub(super) fn unicode_class(s: &str) -> Parsed<Option<usize>> {
    let bytes = s.as_bytes();
    if bytes.len() < 2 || bytes[0] != b'\\' || (bytes[1] != b'p' && bytes[1] != b'P') {
        return Ok(None);
    }
    let (len, name) = match s[2..].chars().next() {
        Some('{') => {
            let Some(end) = s.find('}') else {
                return Err(error(INVALID_CHAR_RANGE, s));
            };
            (end + 1, &s[3..end])
        }
        Some(c) => (2 + c.len_utf8(), &s[2..2 + c.len_utf8()]),
        None => (2, ""),
    };
    let name = name.strip_prefix('^').unwrap_or(name);
    if names::is_unicode_table(name) {
        Ok(Some(len))
    } else {
        Err(error(INVALID_CHAR_RANGE, &s[..len]))
    }
}

/// `parsePerlClassEscape`: `\d`, `\s`, `\w` or their negations.
pub(super) fn is_perl_class(t: &str) -> bool {
    matches!(t.as_bytes(), [b'\\', b'd' | b'D' | b's' | b'S' | b'w' | b'W', ..])
}

/// `parseClassChar`: one character of a class (`whole` is the class, for the error).
pub(super) fn class_char(t: &str, whole: &str) -> Parsed<(u32, usize)> {
    match t.chars().next() {
        None => Err(error(MISSING_BRACKET, whole)),
        Some('\\') => escape(t),
        Some(c) => Ok((u32::from(c), c.len_utf8())),
    }
}

/// `parseEscape`: the character a `\` escape at the start of `s` stands for, and its length.
pub(super) fn escape(s: &str) -> Parsed<(u32, usize)> {
    let Some(c) = s[1..].chars().next() else {
        return Err(error(TRAILING_BACKSLASH, ""));
    };
    let mut pos = 1 + c.len_utf8();
    match c {
        // A single non-zero digit would be a backreference, which Go does not support.
        '1'..='7' if !s.as_bytes().get(pos).is_some_and(|d| (b'0'..=b'7').contains(d)) => {}
        '0'..='7' => {
            let mut code = u32::from(c) - u32::from('0');
            for _ in 1..3 {
                match s.as_bytes().get(pos).copied() {
                    Some(d @ b'0'..=b'7') => {
                        code = code * 8 + u32::from(d - b'0');
                        pos += 1;
                    }
                    _ => break,
                }
            }
            return Ok((code, pos));
        }
        'x' => {
            if let Some(code) = hex_escape(s, &mut pos) {
                return Ok((code, pos));
            }
        }
        'a' => return Ok((7, pos)),
        'f' => return Ok((12, pos)),
        'n' => return Ok((10, pos)),
        'r' => return Ok((13, pos)),
        't' => return Ok((9, pos)),
        'v' => return Ok((11, pos)),
        // Escaped punctuation stands for itself; escaped letters and digits Go does not know fail.
        c if c.is_ascii() && !c.is_ascii_alphanumeric() => return Ok((u32::from(c), pos)),
        _ => {}
    }
    Err(error(INVALID_ESCAPE, &s[..pos]))
}

/// The `\x41` or `\x{10FFFF}` escape whose digits start at `pos`, advancing `pos` past what Go
/// reads of it (also when it fails, for the error's text).
fn hex_escape(s: &str, pos: &mut usize) -> Option<u32> {
    let first = next_char(s, pos)?;
    if first == '{' {
        let mut code: u32 = 0;
        let mut digits = 0;
        loop {
            let c = next_char(s, pos)?;
            if c == '}' {
                break;
            }
            code = code * 16 + c.to_digit(16)?;
            if code > 0x10_FFFF {
                return None;
            }
            digits += 1;
        }
        return (digits > 0).then_some(code);
    }
    // Go reads the second digit even when the first is no hex digit.
    let high = first.to_digit(16);
    let low = next_char(s, pos).and_then(|c| c.to_digit(16));
    Some(high? * 16 + low?)
}

/// The character at `pos`, advancing `pos` past it.
fn next_char(s: &str, pos: &mut usize) -> Option<char> {
    let c = s.get(*pos..)?.chars().next()?;
    *pos += c.len_utf8();
    Some(c)
}
