//! The `email` format: whether `net/mail.ParseAddress` accepts the text, as Go 1.21.7 (which
//! kube-apiserver v1.28.7 is built with) parses it. That is the parser from before Go 1.21.8's fix
//! for CVE-2024-24784 (golang/go#65083): a display-name word may hold the specials `()[];@\,`, no
//! comment is skipped between its words, and a malformed comment after a group is ignored.

/// Ports `strfmt.IsEmail`: `mail.ParseAddress` succeeds (its address is then never empty).
pub(super) fn email(value: &str) -> bool {
    Parser { s: value }.single_address()
}

/// `addrParser`: the text not yet consumed.
struct Parser<'a> {
    s: &'a str,
}

impl<'a> Parser<'a> {
    /// `parseSingleAddress`: one address (a group counts when it holds exactly one), then only
    /// spaces and comments.
    fn single_address(mut self) -> bool {
        let Some(count) = self.address(true) else { return false };
        self.skip_cfws() && self.s.is_empty() && count == 1
    }

    /// `parseAddress`: an addr-spec with an optional comment, else `[phrase] <addr-spec>`, else
    /// (when `group` allows) `phrase: [addresses];`. Returns how many addresses it read.
    fn address(&mut self, group: bool) -> Option<usize> {
        self.skip_space();
        if self.s.is_empty() {
            return None;
        }
        if self.addr_spec().is_some() {
            self.skip_space();
            if self.s.starts_with('(') {
                self.display_name_comment()?;
            }
            return Some(1);
        }
        if !self.s.starts_with('<') {
            self.phrase()?;
        }
        self.skip_space();
        if group && self.consume(b':') {
            return self.group_list();
        }
        if !self.consume(b'<') {
            return None;
        }
        self.addr_spec()?;
        self.consume(b'>').then_some(1)
    }

    /// `consumeGroupList`: addresses (no nested group) separated by `,` up to `;`. Before Go
    /// 1.21.8 a malformed comment after the `;` is ignored: it swallows the rest of the text.
    fn group_list(&mut self) -> Option<usize> {
        self.skip_space();
        if self.consume(b';') {
            // Whether the comment closes is not checked here (as before Go 1.21.8).
            self.skip_cfws();
            return Some(0);
        }
        let mut count = 0;
        loop {
            self.skip_space();
            count += self.address(false)?;
            if !self.skip_cfws() {
                return None;
            }
            if self.consume(b';') {
                self.skip_cfws();
                return Some(count);
            }
            if !self.consume(b',') {
                return None;
            }
        }
    }

    /// `consumeAddrSpec`: `local@domain`, the local part a dot-atom or a non-empty quoted string,
    /// the domain a dot-atom (no domain literals). On failure nothing is consumed.
    fn addr_spec(&mut self) -> Option<()> {
        let start = self.s;
        let parsed = self.addr_spec_parts();
        if parsed.is_none() {
            self.s = start;
        }
        parsed
    }

    /// The parts of `consumeAddrSpec`, leaving the text half consumed when they fail.
    fn addr_spec_parts(&mut self) -> Option<()> {
        self.skip_space();
        if self.s.starts_with('"') {
            if self.quoted_string()? == 0 {
                return None;
            }
        } else {
            self.atom(true, false)?;
        }
        if !self.consume(b'@') {
            return None;
        }
        self.skip_space();
        self.atom(true, false).map(|_| ())
    }

    /// `consumePhrase`: words (permissive dot-atoms or quoted strings) up to the first thing that
    /// is not one; only a phrase without any word fails. An encoded word in a charset Go cannot
    /// convert ends the phrase as an error, after being consumed.
    fn phrase(&mut self) -> Option<()> {
        let mut words = 0;
        loop {
            self.skip_space();
            if self.s.is_empty() {
                break;
            }
            let word = if self.s.starts_with('"') {
                self.quoted_string().map(|_| ())
            } else {
                self.atom(true, true)
                    .filter(|atom| !undecodable_word(atom.as_bytes()))
                    .map(|_| ())
            };
            if word.is_none() {
                break;
            }
            words += 1;
        }
        (words > 0).then_some(())
    }

    /// `consumeQuotedString` (at a `"`): the number of characters quoted, or `None` when the
    /// string is unclosed or holds a character a quoted-string cannot.
    fn quoted_string(&mut self) -> Option<usize> {
        let mut count = 0;
        let mut escaped = false;
        for (at, c) in self.s.char_indices().skip(1) {
            if escaped {
                if !is_vchar(c) && !is_wsp(c) {
                    return None;
                }
                count += 1;
                escaped = false;
            } else if is_qtext(c) || is_wsp(c) {
                count += 1;
            } else if c == '"' {
                self.s = &self.s[at + 1..];
                return Some(count);
            } else if c == '\\' {
                escaped = true;
            } else {
                return None;
            }
        }
        None
    }

    /// `consumeAtom`: a run of atext (with `.` when `dot`, with the specials `()[];@\,` when
    /// `permissive`); unless permissive, no leading, trailing or doubled dot.
    fn atom(&mut self, dot: bool, permissive: bool) -> Option<&'a str> {
        let end = self
            .s
            .find(|c: char| !is_atext(c, dot, permissive))
            .unwrap_or(self.s.len());
        if end == 0 {
            return None;
        }
        let (atom, rest) = self.s.split_at(end);
        self.s = rest;
        let bad_dots = atom.starts_with('.') || atom.contains("..") || atom.ends_with('.');
        (permissive || !bad_dots).then_some(atom)
    }

    /// `consumeDisplayNameComment` (at a `(`): a closed comment whose space-separated words are
    /// not encoded words in a charset Go cannot convert.
    fn display_name_comment(&mut self) -> Option<()> {
        if !self.consume(b'(') {
            return None;
        }
        let comment = self.comment()?;
        (!comment.split(|&b| b == b' ' || b == b'\t').any(undecodable_word)).then_some(())
    }

    /// `consumeComment` (after a `(`): the text up to the matching `)`, nesting counted and
    /// backslash escapes removed; `None` when the text ends first, all of it consumed.
    fn comment(&mut self) -> Option<Vec<u8>> {
        let bytes = self.s.as_bytes();
        let mut depth = 1;
        let mut comment = Vec::new();
        let mut i = 0;
        while i < bytes.len() && depth > 0 {
            if bytes[i] == b'\\' && i + 1 < bytes.len() {
                i += 1;
            } else if bytes[i] == b'(' {
                depth += 1;
            } else if bytes[i] == b')' {
                depth -= 1;
            }
            if depth > 0 {
                comment.push(bytes[i]);
            }
            i += 1;
        }
        // The loop stops at the end or just past an ASCII `)`, both character boundaries.
        self.s = self.s.get(i..).unwrap_or_default();
        (depth == 0).then_some(comment)
    }

    /// `skipCFWS`: spaces and comments; false at a comment left open.
    fn skip_cfws(&mut self) -> bool {
        self.skip_space();
        while self.consume(b'(') {
            if self.comment().is_none() {
                return false;
            }
            self.skip_space();
        }
        true
    }

    /// `skipSpace`: spaces and tabs only.
    fn skip_space(&mut self) {
        self.s = self.s.trim_start_matches([' ', '\t']);
    }

    /// `consume`: the ASCII byte `c` when it comes next.
    fn consume(&mut self, c: u8) -> bool {
        let next = self.s.as_bytes().first() == Some(&c);
        if next {
            self.s = &self.s[1..];
        }
        next
    }
}

/// Whether `decodeRFC2047Word` fails on `word`: a well-formed encoded word `=?charset?B|Q?text?=`
/// whose text decodes, in a charset other than the three `mime.WordDecoder` converts itself
/// (ill-formed encoded words are plain text, not errors).
fn undecodable_word(word: &[u8]) -> bool {
    let question_marks = word.iter().filter(|&&b| b == b'?').count();
    if word.len() < 8 || !word.starts_with(b"=?") || !word.ends_with(b"?=") || question_marks != 4 {
        return false;
    }
    let mut parts = word[2..word.len() - 2].splitn(3, |&b| b == b'?');
    let (Some(charset), Some(encoding), Some(text)) = (parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    let decodes = match encoding {
        [b'B' | b'b'] => is_std_base64(text),
        [b'Q' | b'q'] => q_decodes(text),
        _ => false,
    };
    !charset.is_empty() && decodes && !is_builtin_charset(charset)
}

/// `base64.StdEncoding.DecodeString` succeeds: whole quanta of the standard alphabet, the last
/// possibly padded with `=` or `==`; Go skips line breaks anywhere.
fn is_std_base64(text: &[u8]) -> bool {
    let text: Vec<u8> = text.iter().copied().filter(|&b| b != b'\r' && b != b'\n').collect();
    let body = text
        .strip_suffix(b"==")
        .or_else(|| text.strip_suffix(b"="))
        .unwrap_or(text.as_slice());
    text.len().is_multiple_of(4)
        && body
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/')
}

/// `qDecode` succeeds: `=` starts two hex digits, other bytes are printable ASCII or `\t\r\n`.
fn q_decodes(text: &[u8]) -> bool {
    let mut i = 0;
    while i < text.len() {
        match text[i] {
            b'=' if i + 2 < text.len() && text[i + 1].is_ascii_hexdigit() && text[i + 2].is_ascii_hexdigit() => i += 3,
            b'=' => return false,
            b' '..=b'~' | b'\t' | b'\r' | b'\n' => i += 1,
            _ => return false,
        }
    }
    true
}

/// `strings.EqualFold` with `utf-8`, `iso-8859-1` or `us-ascii`; Unicode folding also lets `ſ`
/// (U+017F) stand for `s`.
fn is_builtin_charset(charset: &[u8]) -> bool {
    let Ok(charset) = std::str::from_utf8(charset) else {
        return false;
    };
    ["utf-8", "iso-8859-1", "us-ascii"].into_iter().any(|known| {
        charset.chars().count() == known.len()
            && charset
                .chars()
                .zip(known.chars())
                .all(|(c, k)| c.eq_ignore_ascii_case(&k) || (k == 's' && c == 'ſ'))
    })
}

/// `isAtext` as before Go 1.21.8, with its `permissive` specials.
fn is_atext(c: char, dot: bool, permissive: bool) -> bool {
    match c {
        '.' => dot,
        '(' | ')' | '[' | ']' | ';' | '@' | '\\' | ',' => permissive,
        '<' | '>' | '"' | ':' => false,
        _ => is_vchar(c),
    }
}

/// `isVchar`: printable ASCII or any non-ASCII character.
fn is_vchar(c: char) -> bool {
    ('!'..='~').contains(&c) || !c.is_ascii()
}

/// `isQtext`: a visible character other than `\` and `"`.
fn is_qtext(c: char) -> bool {
    c != '\\' && c != '"' && is_vchar(c)
}

/// `isWSP`: space or tab.
fn is_wsp(c: char) -> bool {
    c == ' ' || c == '\t'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn email_should_accept_addr_specs_and_display_names() {
        for valid in [
            "john@example.com",
            "John <john@example.com>",
            "\"john doe\"@example.com",
            "<john@example.com>",
        ] {
            assert!(email(valid), "{valid}");
        }
        let more = [
            "john@example.com (John Doe)",
            "John (x) <john@example.com>",
            "Group: john@example.com;",
            "a@b",
        ];
        for valid in more
            .into_iter()
            .chain(["=?utf-8?q?J=C3=B6rg?= <j@example.com>", "Jörg <jörg@exämple.com>"])
        {
            assert!(email(valid), "{valid}");
        }
    }

    #[test]
    fn email_should_keep_go_1_21_7_leniency() {
        // Refused since Go 1.21.8: specials inside display-name words, malformed comments after groups.
        for valid in [
            "John (Doe <john@example.com>",
            "John, Doe <john@example.com>",
            "John [x] <j@e.com>",
        ] {
            assert!(email(valid), "{valid}");
        }
        assert!(email("g: john@example.com; (open"));
    }

    #[test]
    fn email_should_refuse_undecodable_encoded_words_only_where_go_does() {
        // An unknown charset is an error in a comment, or in a phrase when no word precedes it.
        assert!(email("John =?iso-8859-2?q?x?= <john@example.com>"));
        assert!(!email("=?iso-8859-2?q?x?= <john@example.com>"));
        assert!(!email("john@example.com (=?iso-8859-2?q?x?=)"));
        assert!(!email("=?koi8-r?B?SGk=?= <j@e.com>"));
        // Text that does not decode (unpadded base64, a short `=4`) is a plain word.
        assert!(email("=?koi8-r?B?SGk?= <j@e.com>"));
        assert!(email("j@e.com (a =?x?q?=4?= b)"));
        // `EqualFold` folds `ſ` to `s`; charsets Go converts itself are fine in any case.
        assert!(email("=?uſ-ascii?q?x?= <j@e.com>"));
        assert!(email("=?ISO-8859-1?B?SGk=?= <j@e.com>"));
    }

    #[test]
    fn email_should_refuse_what_parse_address_refuses() {
        for invalid in [
            "",
            "john",
            "john.doe",
            "John Doe",
            "john@",
            "@example.com",
            "john..doe@example.com",
        ] {
            assert!(!email(invalid), "{invalid}");
        }
        assert!(!email(".j@e.com"));
        let more = [
            "john@example.com (unclosed",
            "a@b.c, d@e.f",
            "g: a@b.c, d@e.f;",
            "empty: ;",
            "\"\"@example.com",
        ];
        for invalid in more
            .into_iter()
            .chain(["John <john@example.com", "john@[127.0.0.1]", "john@exa mple.com"])
        {
            assert!(!email(invalid), "{invalid}");
        }
    }
}
