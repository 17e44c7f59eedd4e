//! Go's `encoding/json` syntax errors, word for word: kube-apiserver quotes them when a body is
//! not JSON ("unexpected end of JSON input", "invalid character 'x' looking for beginning of
//! value"), and clients and tests match on them.
//!
//! A small port of the state machine of Go's `encoding/json` scanner, run only on bodies that
//! serde_json already refused; it reports the first error as Go would.

use serde_json::Value;

/// A syntax error in Go's words (`unexpected end of JSON input`, `invalid character …`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct SyntaxError(pub(crate) String);

/// How Go's `encoding/json` names the JSON type of a value in its unmarshal errors
/// (`json: cannot unmarshal object into Go value of type …`).
pub(crate) fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Object(_) => "object",
        Value::Array(_) => "array",
        Value::String(_) => "string",
        Value::Number(_) => "number",
        Value::Bool(_) => "bool",
        Value::Null => "null",
    }
}

/// The scanner's `maxNestingDepth`: deeper arrays and objects are a syntax error.
const MAX_NESTING_DEPTH: usize = 10_000;

/// Where the scanner is: what the next byte may be.
#[derive(Clone, Copy, PartialEq)]
enum State {
    BeginValue,
    /// Right after `[`: a value or `]`.
    BeginElementOrEnd,
    BeginKeyOrEnd,
    BeginKey,
    AfterKey,
    AfterObjectValue,
    AfterArrayValue,
    /// Inside a string; `bool` says whether it is an object key.
    InString(bool),
    InEscape(bool),
    /// Inside a `\u` escape, with this many hex digits still to come.
    InUnicode(bool, u8),
    /// A number: after `-`, after `0`, after other digits, after `.`, in the fraction, after
    /// `e`, after the exponent's sign, in the exponent.
    Minus,
    Zero,
    Digits,
    Dot,
    Fraction,
    Exponent,
    ExponentSign,
    ExponentDigits,
    /// Inside `true`, `false` or `null`, with the rest of the literal to come.
    Literal(&'static str, usize),
    End,
}

/// The text of the error Go's `json.Unmarshal` reports for `bytes`, or `None` if Go would
/// find the input well-formed.
pub(crate) fn syntax_error(bytes: &[u8]) -> Option<String> {
    let mut stack: Vec<u8> = Vec::new();
    let mut state = State::BeginValue;
    for &c in bytes {
        match step(state, c, &mut stack) {
            Ok(next) => state = next,
            Err(context) => return Some(invalid(c, context)),
        }
    }
    finish(state, &stack)
}

fn finish(state: State, stack: &[u8]) -> Option<String> {
    let complete = stack.is_empty()
        && matches!(
            state,
            State::End | State::Zero | State::Digits | State::Fraction | State::ExponentDigits
        );
    (!complete).then(|| "unexpected end of JSON input".to_owned())
}

/// Go's `quoteChar`: the byte as the rune of the same value, quoted by `strconv.Quote` (whose
/// `IsPrint` takes Latin-1 letters and signs as they are) between single quotes.
fn invalid(c: u8, context: &str) -> String {
    let quoted = match c {
        b'\'' => "\\'".to_owned(),
        b'"' => "\"".to_owned(),
        b'\\' => "\\\\".to_owned(),
        0x07 => "\\a".to_owned(),
        0x08 => "\\b".to_owned(),
        0x0c => "\\f".to_owned(),
        b'\n' => "\\n".to_owned(),
        b'\r' => "\\r".to_owned(),
        b'\t' => "\\t".to_owned(),
        0x0b => "\\v".to_owned(),
        0x20..=0x7e => char::from(c).to_string(),
        0x00..=0x1f | 0x7f => format!("\\x{c:02x}"),
        0xa1..=0xff if c != 0xad => char::from(c).to_string(),
        _ => format!("\\u{:04x}", u32::from(c)),
    };
    format!("invalid character '{quoted}' {context}")
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

/// The state after the value that just ended, from the enclosing container.
fn after_value(stack: &[u8]) -> State {
    match stack.last() {
        Some(b'{') => State::AfterObjectValue,
        Some(_) => State::AfterArrayValue,
        None => State::End,
    }
}

fn step(state: State, c: u8, stack: &mut Vec<u8>) -> Result<State, &'static str> {
    use State::*;
    Ok(match state {
        BeginValue | BeginElementOrEnd | BeginKeyOrEnd | BeginKey | AfterKey | AfterObjectValue | AfterArrayValue
        | End
            if is_space(c) =>
        {
            state
        }
        BeginValue => match c {
            b'{' | b'[' if stack.len() >= MAX_NESTING_DEPTH => return Err("exceeded max depth"),
            b'{' => {
                stack.push(b'{');
                BeginKeyOrEnd
            }
            b'[' => {
                stack.push(b'[');
                BeginElementOrEnd
            }
            b'"' => InString(false),
            b'-' => Minus,
            b'0' => Zero,
            b'1'..=b'9' => Digits,
            b't' => Literal("rue", 0),
            b'f' => Literal("alse", 0),
            b'n' => Literal("ull", 0),
            _ => return Err("looking for beginning of value"),
        },
        BeginElementOrEnd if c == b']' => {
            stack.pop();
            after_value(stack)
        }
        BeginElementOrEnd => step(BeginValue, c, stack)?,
        BeginKeyOrEnd if c == b'}' => {
            stack.pop();
            after_value(stack)
        }
        BeginKeyOrEnd | BeginKey => match c {
            b'"' => InString(true),
            _ => return Err("looking for beginning of object key string"),
        },
        AfterKey => match c {
            b':' => BeginValue,
            _ => return Err("after object key"),
        },
        AfterObjectValue => match c {
            b',' => BeginKey,
            b'}' => {
                stack.pop();
                after_value(stack)
            }
            _ => return Err("after object key:value pair"),
        },
        AfterArrayValue => match c {
            b',' => BeginValue,
            b']' => {
                stack.pop();
                after_value(stack)
            }
            _ => return Err("after array element"),
        },
        End => return Err("after top-level value"),
        InString(key) => match c {
            b'"' if key => AfterKey,
            b'"' => after_value(stack),
            b'\\' => InEscape(key),
            0..=0x1f => return Err("in string literal"),
            _ => state,
        },
        InEscape(key) => match c {
            b'b' | b'f' | b'n' | b'r' | b't' | b'\\' | b'/' | b'"' => InString(key),
            b'u' => InUnicode(key, 4),
            _ => return Err("in string escape code"),
        },
        InUnicode(key, left) => match c {
            b'0'..=b'9' | b'a'..=b'f' | b'A'..=b'F' if left == 1 => InString(key),
            b'0'..=b'9' | b'a'..=b'f' | b'A'..=b'F' => InUnicode(key, left - 1),
            _ => return Err("in \\u hexadecimal character escape"),
        },
        Minus => match c {
            b'0' => Zero,
            b'1'..=b'9' => Digits,
            _ => return Err("in numeric literal"),
        },
        Zero | Digits | Fraction | ExponentDigits => match (state, c) {
            (Digits, b'0'..=b'9') | (Fraction, b'0'..=b'9') | (ExponentDigits, b'0'..=b'9') => state,
            (Zero | Digits, b'.') => Dot,
            (Zero | Digits | Fraction, b'e' | b'E') => Exponent,
            _ => return step(after_value(stack), c, stack),
        },
        Dot => match c {
            b'0'..=b'9' => Fraction,
            _ => return Err("after decimal point in numeric literal"),
        },
        Exponent => match c {
            b'+' | b'-' => ExponentSign,
            b'0'..=b'9' => ExponentDigits,
            _ => return Err("in exponent of numeric literal"),
        },
        ExponentSign => match c {
            b'0'..=b'9' => ExponentDigits,
            _ => return Err("in exponent of numeric literal"),
        },
        Literal(rest, at) => {
            let expected = rest.as_bytes()[at];
            if c != expected {
                return Err(literal_context(rest, at));
            }
            if at + 1 == rest.len() {
                after_value(stack)
            } else {
                Literal(rest, at + 1)
            }
        }
    })
}

/// Go's context for a wrong byte inside `true`, `false` or `null`.
fn literal_context(rest: &'static str, at: usize) -> &'static str {
    match (rest, at) {
        ("rue", 0) => "in literal true (expecting 'r')",
        ("rue", 1) => "in literal true (expecting 'u')",
        ("rue", _) => "in literal true (expecting 'e')",
        ("alse", 0) => "in literal false (expecting 'a')",
        ("alse", 1) => "in literal false (expecting 'l')",
        ("alse", 2) => "in literal false (expecting 's')",
        ("alse", _) => "in literal false (expecting 'e')",
        ("ull", 0) => "in literal null (expecting 'u')",
        _ => "in literal null (expecting 'l')",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_go_wording() {
        let cases = [
            (r#"{"a": 1"#, "unexpected end of JSON input"),
            ("", "unexpected end of JSON input"),
            ("{x", "invalid character 'x' looking for beginning of object key string"),
            (r#"{"a" 1}"#, "invalid character '1' after object key"),
            (r#"{"a": 1 "b"}"#, "invalid character '\"' after object key:value pair"),
            ("[1 2]", "invalid character '2' after array element"),
            ("{} x", "invalid character 'x' after top-level value"),
            ("[tru]", "invalid character ']' in literal true (expecting 'e')"),
            ("nope", "invalid character 'o' in literal null (expecting 'u')"),
            ("01", "invalid character '1' after top-level value"),
            ("[1,]", "invalid character ']' looking for beginning of value"),
            ("[1.]", "invalid character ']' after decimal point in numeric literal"),
            ("'a'", "invalid character '\\'' looking for beginning of value"),
            ("{\"a\":\"\n\"}", "invalid character '\\n' in string literal"),
            ("\\", "invalid character '\\\\' looking for beginning of value"),
            ("\u{8}", "invalid character '\\b' looking for beginning of value"),
            ("\u{1}", "invalid character '\\x01' looking for beginning of value"),
            ("\u{7f}", "invalid character '\\x7f' looking for beginning of value"),
            ("é", "invalid character 'Ã' looking for beginning of value"),
        ];
        for (input, expected) in cases {
            assert_eq!(syntax_error(input.as_bytes()).as_deref(), Some(expected), "{input:?}");
        }
        for (byte, quoted) in [(0xa0, "\\u00a0"), (0xad, "\\u00ad"), (0x80, "\\u0080"), (0xff, "ÿ")] {
            let expected = format!("invalid character '{quoted}' looking for beginning of value");
            assert_eq!(syntax_error(&[byte]), Some(expected));
        }
        let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        assert_eq!(syntax_error(deep.as_bytes()), None);
        let deeper = format!("[{deep}]");
        assert_eq!(
            syntax_error(deeper.as_bytes()).as_deref(),
            Some("invalid character '[' exceeded max depth")
        );
        for ok in [r#"{"a": [1, -2.5e3, true, null, "x\u00e9"]}"#, "[]", " 0 ", "{}"] {
            assert_eq!(syntax_error(ok.as_bytes()), None, "{ok:?}");
        }
    }
}
