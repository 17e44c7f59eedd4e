//! The patterns Go's `regexp.Compile` refuses, with its words (`regexp/syntax/parse.go` of Go 1.21,
//! which kube-apiserver v1.28.7 is built with).
//!
//! `validateValueValidation` compiles every `pattern` and quotes Go's error, so the fake needs Go's
//! refusals rather than the `regex` crate's, which accepts other things and words them otherwise.
//! The parser below walks a pattern as Go's does, keeping of the parse stack only what decides an
//! error: which entries are `(` and `|` markers, and for each expression the product of the counted
//! repetitions nested in it (Go's `repeatIsValid` caps that product at 1000).

mod lexemes;
mod names;

use lexemes::{class_char, escape, is_perl_class, named_class, parse_repeat, unicode_class};

/// `maxRepeat`: the largest count of a repetition, and of nested repetitions multiplied.
const MAX_REPEAT: i64 = 1000;

const INVALID_CHAR_RANGE: &str = "invalid character class range";
const INVALID_ESCAPE: &str = "invalid escape sequence";
const INVALID_NAMED_CAPTURE: &str = "invalid named capture";
const INVALID_PERL_OP: &str = "invalid or unsupported Perl syntax";
const INVALID_REPEAT_OP: &str = "invalid nested repetition operator";
const INVALID_REPEAT_SIZE: &str = "invalid repeat count";
const MISSING_BRACKET: &str = "missing closing ]";
const MISSING_PAREN: &str = "missing closing )";
const MISSING_REPEAT_ARGUMENT: &str = "missing argument to repetition operator";
const TRAILING_BACKSLASH: &str = "trailing backslash at end of expression";
const UNEXPECTED_PAREN: &str = "unexpected )";

/// Why Go's `regexp.Compile(pattern)` fails, as its `error` reads (`error parsing regexp: <code>:
/// `<expr>``); `None` when Go compiles the pattern.
///
/// Not ported: the limits on a pattern's compiled size and tree height (`expression too large`,
/// `expression nests too deeply`), which need thousands of characters of pattern to reach.
pub(super) fn compile_error(pattern: &str) -> Option<String> {
    let parser = Parser {
        whole: pattern,
        stack: Vec::new(),
    };
    parser
        .parse()
        .err()
        .map(|e| format!("error parsing regexp: {}: `{}`", e.code, e.expr))
}

/// Go's `syntax.Error`: a code and the piece of the pattern it is about.
struct SyntaxError {
    code: &'static str,
    expr: String,
}

fn error(code: &'static str, expr: &str) -> SyntaxError {
    SyntaxError {
        code,
        expr: expr.to_owned(),
    }
}

type Parsed<T> = Result<T, SyntaxError>;

/// An entry of Go's parse stack.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Item {
    /// `opLeftParen`: an open group.
    LeftParen,
    /// `opVerticalBar`: the alternatives before it end the group's alternation so far.
    VerticalBar,
    /// A parsed expression, with the product of the counted repetitions nested in it.
    Expr(i64),
}

struct Parser<'p> {
    whole: &'p str,
    stack: Vec<Item>,
}

impl Parser<'_> {
    /// Go's `parse` with the `Perl` flags `regexp.Compile` uses (Perl extensions, Unicode groups).
    fn parse(mut self) -> Parsed<()> {
        let s = self.whole;
        let mut pos = 0;
        // Where the repetition operator just before started: Perl forbids stacking them (`a**`).
        let mut last_repeat: Option<usize> = None;
        while pos < s.len() {
            let t = &s[pos..];
            let mut repeat = None;
            match t.as_bytes()[0] {
                b'(' if t.as_bytes().get(1) == Some(&b'?') => pos += self.perl_flags(t)?,
                b'(' => {
                    self.stack.push(Item::LeftParen);
                    pos += 1;
                }
                b'|' => {
                    self.vertical_bar();
                    pos += 1;
                }
                b')' => {
                    self.right_paren()?;
                    pos += 1;
                }
                b'^' | b'$' | b'.' => {
                    self.stack.push(Item::Expr(1));
                    pos += 1;
                }
                b'[' => pos += self.class(t)?,
                b'*' | b'+' | b'?' => {
                    let after = self.repeat(None, pos, pos + 1, last_repeat)?;
                    repeat = Some(pos);
                    pos = after;
                }
                b'{' => match parse_repeat(t) {
                    // A `{` that starts no repetition is a literal.
                    None => {
                        self.stack.push(Item::Expr(1));
                        pos += 1;
                    }
                    Some((min, max, len)) => {
                        if !(0..=MAX_REPEAT).contains(&min) || max > MAX_REPEAT || (max >= 0 && min > max) {
                            return Err(error(INVALID_REPEAT_SIZE, &t[..len]));
                        }
                        let after = self.repeat(Some((min, max)), pos, pos + len, last_repeat)?;
                        repeat = Some(pos);
                        pos = after;
                    }
                },
                b'\\' => pos += self.backslash(t)?,
                _ => {
                    self.stack.push(Item::Expr(1));
                    pos += t.chars().next().map_or(1, char::len_utf8);
                }
            }
            last_repeat = repeat;
        }
        self.collapse();
        if self.swap_vertical_bar() {
            self.stack.pop();
        }
        self.collapse();
        if self.stack.len() != 1 {
            return Err(error(MISSING_PAREN, s));
        }
        Ok(())
    }

    /// `repeat`: applies the operator at `start` (ending at `after`) to the expression on top.
    /// `counted` holds the bounds of a `{min,max}` (max -1 for none). Returns where parsing goes on.
    fn repeat(
        &mut self,
        counted: Option<(i64, i64)>,
        start: usize,
        mut after: usize,
        last_repeat: Option<usize>,
    ) -> Parsed<usize> {
        let s = self.whole;
        // A `?` after the operator makes it non-greedy and belongs to it.
        if s.as_bytes().get(after) == Some(&b'?') {
            after += 1;
        }
        if let Some(last) = last_repeat {
            return Err(error(INVALID_REPEAT_OP, &s[last..after]));
        }
        let Some(Item::Expr(inner)) = self.stack.last().copied() else {
            return Err(error(MISSING_REPEAT_ARGUMENT, &s[start..after]));
        };
        // `repeatIsValid` divides its budget by each count on the way down, stops below a `{0}`
        // and passes through a `{0,}` and the `*`, `+`, `?` operators.
        let product = match counted {
            None => inner,
            Some((_, 0)) => 1,
            Some((min, max)) => {
                let count = if max < 0 { min } else { max };
                if count > 0 { inner.saturating_mul(count) } else { inner }
            }
        };
        self.stack.pop();
        self.stack.push(Item::Expr(product));
        if matches!(counted, Some((min, max)) if min >= 2 || max >= 2) && product > MAX_REPEAT {
            return Err(error(INVALID_REPEAT_SIZE, &s[start..after]));
        }
        Ok(after)
    }

    /// `concat` and `alternate`: the expressions above the topmost marker become one.
    fn collapse(&mut self) {
        let start = self
            .stack
            .iter()
            .rposition(|item| !matches!(item, Item::Expr(_)))
            .map_or(0, |marker| marker + 1);
        let product = self
            .stack
            .drain(start..)
            .filter_map(|item| match item {
                Item::Expr(product) => Some(product),
                Item::LeftParen | Item::VerticalBar => None,
            })
            .max()
            .unwrap_or(1);
        self.stack.push(Item::Expr(product));
    }

    /// `swapVerticalBar`: moves the expression on top below a `|` marker under it.
    fn swap_vertical_bar(&mut self) -> bool {
        let n = self.stack.len();
        if n >= 2 && self.stack[n - 2] == Item::VerticalBar {
            self.stack.swap(n - 2, n - 1);
            return true;
        }
        false
    }

    /// `parseVerticalBar`.
    fn vertical_bar(&mut self) {
        self.collapse();
        if !self.swap_vertical_bar() {
            self.stack.push(Item::VerticalBar);
        }
    }

    /// `parseRightParen`.
    fn right_paren(&mut self) -> Parsed<()> {
        self.collapse();
        if self.swap_vertical_bar() {
            self.stack.pop();
        }
        self.collapse();
        let n = self.stack.len();
        if n < 2 || self.stack[n - 2] != Item::LeftParen {
            return Err(error(UNEXPECTED_PAREN, self.whole));
        }
        let group = self.stack.pop();
        self.stack.pop();
        self.stack.extend(group);
        Ok(())
    }

    /// `parsePerlFlags`: `t` starts with `(?`. Returns the length of the group's opening.
    fn perl_flags(&mut self, t: &str) -> Parsed<usize> {
        let bytes = t.as_bytes();
        // Go 1.21 knows only Python's `(?P<name>`; `(?<name>` came with Go 1.22.
        if bytes.len() > 4 && bytes[2] == b'P' && bytes[3] == b'<' {
            let Some(end) = t.find('>') else {
                return Err(error(INVALID_NAMED_CAPTURE, t));
            };
            let name = &t[4..end];
            if name.is_empty() || !name.bytes().all(|c| c == b'_' || c.is_ascii_alphanumeric()) {
                return Err(error(INVALID_NAMED_CAPTURE, &t[..=end]));
            }
            self.stack.push(Item::LeftParen);
            return Ok(end + 1);
        }
        let mut negated = false;
        let mut saw_flag = false;
        for (i, c) in t[2..].char_indices() {
            let consumed = 2 + i + c.len_utf8();
            match c {
                'i' | 'm' | 's' | 'U' => saw_flag = true,
                '-' if !negated => {
                    negated = true;
                    saw_flag = false;
                }
                ':' | ')' if !negated || saw_flag => {
                    // `(?flags:` opens a group; `(?flags)` only sets flags, which decide no error.
                    if c == ':' {
                        self.stack.push(Item::LeftParen);
                    }
                    return Ok(consumed);
                }
                _ => return Err(error(INVALID_PERL_OP, &t[..consumed])),
            }
        }
        Err(error(INVALID_PERL_OP, t))
    }

    /// A `\` outside a class: `t` starts with it. Returns the length of the escape.
    fn backslash(&mut self, t: &str) -> Parsed<usize> {
        match t.as_bytes().get(1) {
            Some(b'A' | b'b' | b'B' | b'z') => {
                self.stack.push(Item::Expr(1));
                return Ok(2);
            }
            // `\C` (any byte) is not supported.
            Some(b'C') => return Err(error(INVALID_ESCAPE, &t[..2])),
            Some(b'Q') => {
                // `\Q…\E` quotes literally, up to the end when there is no `\E`.
                let quoted = &t[2..];
                let (literal, len) = match quoted.find("\\E") {
                    Some(end) => (&quoted[..end], end + 2),
                    None => (quoted, quoted.len()),
                };
                if !literal.is_empty() {
                    self.stack.push(Item::Expr(1));
                }
                return Ok(2 + len);
            }
            _ => {}
        }
        let len = match unicode_class(t)? {
            Some(len) => len,
            None if is_perl_class(t) => 2,
            None => escape(t)?.1,
        };
        self.stack.push(Item::Expr(1));
        Ok(len)
    }

    /// `parseClass`: `s` starts with `[`. Returns the length of the class.
    fn class(&mut self, s: &str) -> Parsed<usize> {
        let mut pos = 1;
        if s.as_bytes().get(1) == Some(&b'^') {
            pos += 1;
        }
        // A `]` right after `[` or `[^` is a literal.
        let mut first = true;
        loop {
            let t = &s[pos..];
            if !first && t.starts_with(']') {
                break;
            }
            first = false;
            if let Some(len) = named_class(t)? {
                pos += len;
                continue;
            }
            if let Some(len) = unicode_class(t)? {
                pos += len;
                continue;
            }
            if is_perl_class(t) {
                pos += 2;
                continue;
            }
            let range_start = pos;
            let (lo, len) = class_char(t, s)?;
            pos += len;
            let rest = &s.as_bytes()[pos..];
            // `[a-]` is `a` or `-`.
            if rest.len() >= 2 && rest[0] == b'-' && rest[1] != b']' {
                pos += 1;
                let (hi, len) = class_char(&s[pos..], s)?;
                pos += len;
                if hi < lo {
                    return Err(error(INVALID_CHAR_RANGE, &s[range_start..pos]));
                }
            }
        }
        self.stack.push(Item::Expr(1));
        Ok(pos + 1)
    }
}

// The tests, checked against kube-apiserver v1.28.7, are long enough for a file of their own.
#[cfg(test)]
mod tests;
