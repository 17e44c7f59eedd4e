//! Reading JSON that Go's scanner accepted (`go_json::syntax_error` found nothing) value by
//! value in the order it is written, as `encoding/json`'s `decodeState` walks it (`decode.go`:
//! `value`, `array`, `object`, `literalStore`, `skip`): object members in document order, so
//! that the first type error found is the one Go reports; strings unquoted as `unquote` does
//! (a lone surrogate escape becomes U+FFFD); numbers as their literal text, which Go parses
//! only once it knows the type they go into. serde_json's `Value` sorts object keys and parses
//! numbers eagerly, which is why it is not used here.
//!
//! The input is well-formed, so nothing here fails on it; on anything else the reader answers
//! `None` rather than panic. Skipping a value counts brackets instead of recursing.

/// The start of the next value: a scalar read whole, or the opening of a container whose
/// members come next.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Item<'a> {
    Object,
    Array,
    Str(String),
    /// A number's literal text.
    Number(&'a str),
    Bool,
    Null,
}

impl Item<'_> {
    /// How Go's `UnmarshalTypeError` names a value of this kind.
    pub(crate) fn go_kind(&self) -> &'static str {
        match self {
            Self::Object => "object",
            Self::Array => "array",
            Self::Str(_) => "string",
            Self::Number(_) => "number",
            Self::Bool => "bool",
            Self::Null => "null",
        }
    }
}

/// A cursor over well-formed JSON text.
pub(crate) struct Reader<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        Self { text, at: 0 }
    }

    /// The text not read yet (none past the end).
    fn rest(&self) -> &'a str {
        self.text.get(self.at..).unwrap_or_default()
    }

    fn peek(&mut self) -> Option<u8> {
        let bytes = self.text.as_bytes();
        while bytes
            .get(self.at)
            .is_some_and(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
        {
            self.at += 1;
        }
        bytes.get(self.at).copied()
    }

    /// The next value: a scalar is consumed, a container only opened.
    pub(crate) fn item(&mut self) -> Option<Item<'a>> {
        match self.peek()? {
            b'{' => {
                self.at += 1;
                Some(Item::Object)
            }
            b'[' => {
                self.at += 1;
                Some(Item::Array)
            }
            b'"' => self.string().map(Item::Str),
            b't' | b'f' | b'n' => {
                let (literal, item) = [("true", Item::Bool), ("false", Item::Bool), ("null", Item::Null)]
                    .into_iter()
                    .find(|(literal, _)| self.rest().starts_with(literal))?;
                self.at += literal.len();
                Some(item)
            }
            _ => {
                let rest = self.rest();
                let end = rest
                    .find(|c: char| !matches!(c, '0'..='9' | '-' | '+' | '.' | 'e' | 'E'))
                    .unwrap_or(rest.len());
                self.at += end;
                (end > 0).then_some(Item::Number(&rest[..end]))
            }
        }
    }

    /// Whether the open container has another member, consuming the separator before it, or
    /// the closing bracket after the last.
    pub(crate) fn more(&mut self) -> bool {
        match self.peek() {
            Some(b',') => {
                self.at += 1;
                true
            }
            Some(b']' | b'}') | None => {
                self.at += 1;
                false
            }
            Some(_) => true,
        }
    }

    /// An object member's key, and the colon after it.
    pub(crate) fn key(&mut self) -> Option<String> {
        let key = self.string()?;
        (self.peek()? == b':').then(|| self.at += 1)?;
        Some(key)
    }

    /// Skips the rest of a container just opened by `item` (nothing for a scalar).
    pub(crate) fn skip(&mut self, item: &Item<'_>) {
        if !matches!(item, Item::Object | Item::Array) {
            return;
        }
        let bytes = self.text.as_bytes();
        let (mut depth, mut in_string, mut escaped) = (1usize, false, false);
        while let Some(&c) = bytes.get(self.at) {
            self.at += 1;
            match (in_string, escaped, c) {
                (true, true, _) => escaped = false,
                (true, false, b'\\') => escaped = true,
                (true, false, b'"') | (false, _, b'"') => in_string = !in_string,
                (false, _, b'{' | b'[') => depth += 1,
                (false, _, b'}' | b']') => {
                    depth -= 1;
                    if depth == 0 {
                        return;
                    }
                }
                _ => {}
            }
        }
    }

    /// A string literal, unquoted as Go's `unquote` does.
    fn string(&mut self) -> Option<String> {
        (self.peek()? == b'"').then(|| self.at += 1)?;
        let mut out = String::new();
        loop {
            let rest = self.rest();
            let plain = rest.find(['"', '\\'])?;
            out.push_str(&rest[..plain]);
            self.at += plain + 1;
            if rest.as_bytes()[plain] == b'"' {
                return Some(out);
            }
            let escape = *self.text.as_bytes().get(self.at)?;
            self.at += 1;
            out.push(match escape {
                b'b' => '\u{8}',
                b'f' => '\u{c}',
                b'n' => '\n',
                b'r' => '\r',
                b't' => '\t',
                b'u' => self.unicode_escape()?,
                other => char::from(other),
            });
        }
    }

    /// The rune of a `\u` escape whose `\u` was read: a surrogate pair's when another escape
    /// completes it (consumed too), else U+FFFD for a lone surrogate.
    fn unicode_escape(&mut self) -> Option<char> {
        let hex = |reader: &Self, at: usize| {
            let digits = reader.text.get(at..at + 4)?;
            u32::from_str_radix(digits, 16).ok()
        };
        let first = hex(self, self.at)?;
        self.at += 4;
        if !(0xD800..0xE000).contains(&first) {
            return char::from_u32(first);
        }
        let second = self.rest().starts_with("\\u").then(|| hex(self, self.at + 2)).flatten();
        match second {
            Some(low) if (0xD800..0xDC00).contains(&first) && (0xDC00..0xE000).contains(&low) => {
                self.at += 6;
                char::from_u32(0x10000 + ((first - 0xD800) << 10) + (low - 0xDC00))
            }
            _ => Some(char::REPLACEMENT_CHARACTER),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_should_come_in_document_order_with_literal_numbers() {
        let mut reader = Reader::new(r#" {"b": 1.50, "a": [true, {"x": "]"}], "c": null, "d": "k\u0065y"} "#);
        assert_eq!(reader.item(), Some(Item::Object));
        let mut seen = Vec::new();
        while reader.more() {
            let key = reader.key().unwrap_or_default();
            let item = reader.item();
            if let Some(item) = &item {
                reader.skip(item);
            }
            seen.push((key, item));
        }
        assert_eq!(
            seen,
            [
                ("b".to_owned(), Some(Item::Number("1.50"))),
                ("a".to_owned(), Some(Item::Array)),
                ("c".to_owned(), Some(Item::Null)),
                ("d".to_owned(), Some(Item::Str("key".to_owned()))),
            ]
        );
    }

    #[test]
    fn strings_should_unquote_as_go_does() {
        let cases = [
            (r#""a\"b\\c\/\n""#, "a\"b\\c/\n"),
            (r#""\ud83d\ude00""#, "\u{1F600}"),
            (r#""\ud83dx""#, "\u{FFFD}x"),
            (r#""\ude00\u0041""#, "\u{FFFD}A"),
            (r#""\ud83d\u0041""#, "\u{FFFD}A"),
        ];
        for (text, expected) in cases {
            assert_eq!(Reader::new(text).item(), Some(Item::Str(expected.to_owned())), "{text}");
        }
    }

    #[test]
    fn an_empty_container_should_have_no_members() {
        let mut reader = Reader::new("[ ]");
        assert_eq!(reader.item(), Some(Item::Array));
        assert!(!reader.more());
        assert_eq!(Reader::new("").item(), None);
    }
}
