//! JSON written as kube-apiserver writes it, through Go's `encoding/json` encoder
//! (`encode.go`, Go 1.21): a float in its shortest form without a fraction when it has none
//! (`1`, not `1.0`), in exponent form below 1e-6 and from 1e21 (`1e-7`, `1e+21`); `<`, `>`, `&`,
//! U+2028 and U+2029 escaped as `\u003c`…, and control characters other than `\n`, `\r`, `\t`
//! as `\u00XX`.

use std::io;

use serde::Serialize;
use serde_json::ser::{CharEscape, Formatter, Serializer};

/// Go's encoder's choices, on top of serde_json's compact output.
#[derive(Clone, Copy, Default)]
struct GoFormatter;

impl Formatter for GoFormatter {
    fn write_f64<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: f64) -> io::Result<()> {
        writer.write_all(json_float(value).as_bytes())
    }

    fn write_f32<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: f32) -> io::Result<()> {
        self.write_f64(writer, f64::from(value))
    }

    fn write_string_fragment<W: ?Sized + io::Write>(&mut self, writer: &mut W, fragment: &str) -> io::Result<()> {
        let bytes = fragment.as_bytes();
        let mut start = 0;
        for (i, c) in fragment.char_indices() {
            let escaped = match c {
                '<' => "\\u003c",
                '>' => "\\u003e",
                '&' => "\\u0026",
                '\u{2028}' => "\\u2028",
                '\u{2029}' => "\\u2029",
                _ => continue,
            };
            writer.write_all(&bytes[start..i])?;
            writer.write_all(escaped.as_bytes())?;
            start = i + c.len_utf8();
        }
        writer.write_all(&bytes[start..])
    }

    fn write_char_escape<W: ?Sized + io::Write>(&mut self, writer: &mut W, escape: CharEscape) -> io::Result<()> {
        let text: &[u8] = match escape {
            CharEscape::Quote => b"\\\"",
            CharEscape::ReverseSolidus => b"\\\\",
            CharEscape::LineFeed => b"\\n",
            CharEscape::CarriageReturn => b"\\r",
            CharEscape::Tab => b"\\t",
            // Go 1.21 has no short form for these two.
            CharEscape::Backspace => b"\\u0008",
            CharEscape::FormFeed => b"\\u000c",
            CharEscape::AsciiControl(byte) => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                let text = [
                    b'\\',
                    b'u',
                    b'0',
                    b'0',
                    HEX[usize::from(byte >> 4)],
                    HEX[usize::from(byte & 0xf)],
                ];
                return writer.write_all(&text);
            }
            // serde_json never escapes `/`; Go does not either.
            CharEscape::Solidus => b"/",
        };
        writer.write_all(text)
    }
}

/// `floatEncoder`: `'f'` with the shortest digits, `'e'` (exponent cleaned of a leading zero)
/// below 1e-6 and from 1e21.
fn json_float(value: f64) -> String {
    if !value.is_finite() {
        // Go refuses to encode these; serde_json writes null, and so do we.
        return "null".to_owned();
    }
    let magnitude = value.abs();
    if magnitude != 0.0 && !(1e-6..1e21).contains(&magnitude) {
        let sci = format!("{value:e}");
        return match sci.split_once('e') {
            Some((mantissa, exponent)) if exponent.starts_with('-') => format!("{mantissa}e{exponent}"),
            Some((mantissa, exponent)) => format!("{mantissa}e+{exponent}"),
            None => sci,
        };
    }
    format!("{value}")
}

/// Writes `value` into `writer` as Go's encoder would.
pub(crate) fn to_writer<W: io::Write, T: Serialize + ?Sized>(writer: W, value: &T) {
    let mut serializer = Serializer::with_formatter(writer, GoFormatter);
    value.serialize(&mut serializer).expect("JSON values serialize");
}

/// `value` as Go's encoder writes it.
pub(crate) fn to_vec<T: Serialize + ?Sized>(value: &T) -> Vec<u8> {
    let mut out = Vec::with_capacity(256);
    to_writer(&mut out, value);
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn written(value: &serde_json::Value) -> String {
        String::from_utf8(to_vec(value)).expect("UTF-8")
    }

    #[test]
    fn floats_should_be_written_as_go_writes_them() {
        assert_eq!(
            written(&json!([1.0, 1.5, 1000.0, -0.5, 1e20, 1e21, 1.5e-7, 0.000001, 3])),
            "[1,1.5,1000,-0.5,100000000000000000000,1e+21,1.5e-7,0.000001,3]"
        );
    }

    #[test]
    fn strings_should_be_escaped_as_go_escapes_them() {
        assert_eq!(written(&json!("a<b>&c\u{2028}")), r#""a\u003cb\u003e\u0026c\u2028""#);
        assert_eq!(
            written(&json!("\u{8}\u{c}\n\t\u{1}\"\\")),
            r#""\u0008\u000c\n\t\u0001\"\\""#
        );
        assert_eq!(written(&json!({ "k<": "é" })), r#"{"k\u003c":"é"}"#);
    }
}
