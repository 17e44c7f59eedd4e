//! The template parser of client-go's JSONPath (`util/jsonpath/parser.go`), the same in
//! kube-apiserver v1.28 and v1.31: text, `{…}` actions, and inside them fields, `..`, indexes
//! and slices, unions, filters, quoted strings and literals.

use std::sync::LazyLock;

use regex::Regex;

use super::syntax::{Node, ParseError, is_alphanumeric, is_digit, is_terminator, slice_params, unquote_extend};

static DICT_KEY: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^'([^']*)'$").expect("valid"));
static FILTER: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^([^!<>=]+)([!<>=]+)(.+?)$").expect("valid"));

/// Parses a template (`Parse`): the root's nodes, text and one `List` per action.
pub(crate) fn parse(text: &str) -> Result<Vec<Node>, ParseError> {
    let mut p = Parser {
        input: text,
        pos: 0,
        start: 0,
        width: 0,
    };
    let mut root = Vec::new();
    // `parseText`, `parseLeftDelim` and `parseRightDelim` call one another in tail position;
    // this loop is that chain.
    loop {
        let Some(offset) = text[p.pos..].find('{') else {
            p.pos = text.len();
            if p.pos > p.start {
                root.push(Node::Text(p.consume().into()));
            }
            return Ok(root);
        };
        p.pos += offset;
        if p.pos > p.start {
            root.push(Node::Text(p.consume().into()));
        }
        p.pos += 1;
        p.consume();
        let mut action = Vec::new();
        p.inside_action(&mut action)?;
        root.push(Node::List(action));
    }
}

/// `parseAction`: `text` parsed as the inside of an action, for unions, `['key']` and filters.
fn parse_action(text: &str) -> Result<Vec<Node>, ParseError> {
    // The text starts with `{`, so the first node is always that action's list.
    match parse(&format!("{{{text}}}"))?.into_iter().next() {
        Some(Node::List(nodes)) => Ok(nodes),
        _ => Ok(Vec::new()),
    }
}

/// The scanner's state: byte offsets into `input`, as Go's are.
struct Parser<'t> {
    input: &'t str,
    pos: usize,
    start: usize,
    width: usize,
}

impl<'t> Parser<'t> {
    /// The next character, `None` at the end (Go's `eof`, of width 0).
    fn next(&mut self) -> Option<char> {
        let c = self.input[self.pos..].chars().next();
        self.width = c.map_or(0, char::len_utf8);
        self.pos += self.width;
        c
    }

    fn peek(&mut self) -> Option<char> {
        let c = self.next();
        self.backup();
        c
    }

    fn backup(&mut self) {
        self.pos -= self.width;
    }

    /// The text since the last call (`consumeText`).
    fn consume(&mut self) -> &'t str {
        let value = &self.input[self.start..self.pos];
        self.start = self.pos;
        value
    }

    /// The byte before the character just read: Go's check for an escaped quote.
    fn escaped(&self) -> bool {
        self.input.as_bytes()[self.pos - 2] == b'\\'
    }

    /// `parseInsideAction`, up to and including the `}` that closes the action; the scanners
    /// Go calls in tail position return here and the loop goes on.
    fn inside_action(&mut self, cur: &mut Vec<Node>) -> Result<(), ParseError> {
        loop {
            let rest = &self.input[self.pos..];
            if rest.starts_with('}') {
                self.pos += 1;
                self.consume();
                return Ok(());
            }
            if rest.starts_with("[?(") {
                self.filter(cur)?;
                continue;
            }
            if rest.starts_with("..") {
                self.recursive(cur)?;
                continue;
            }
            match self.next() {
                None | Some('\r' | '\n') => return Err(ParseError::UnclosedAction),
                Some(' ' | '@' | '$') => {
                    self.consume();
                }
                Some('[') => self.array(cur)?,
                Some(quote @ ('"' | '\'')) => self.quote(cur, quote)?,
                Some('.') => self.field(cur),
                Some(c) if c == '+' || c == '-' || is_digit(c) => {
                    self.backup();
                    self.number(cur)?;
                }
                Some(c) if is_alphanumeric(c) => {
                    self.backup();
                    self.identifier(cur);
                }
                Some(c) => return Err(ParseError::UnrecognizedCharacter(c)),
            }
        }
    }

    /// `parseIdentifier`: a word up to a terminator; `true` and `false` are booleans.
    fn identifier(&mut self, cur: &mut Vec<Node>) {
        while !is_terminator(self.next()) {}
        self.backup();
        cur.push(match self.consume() {
            "true" => Node::Bool(true),
            "false" => Node::Bool(false),
            word => Node::Identifier(word.to_owned()),
        });
    }

    /// `parseRecursive`: `..`, refused twice in a row, and the field it may name.
    fn recursive(&mut self, cur: &mut Vec<Node>) -> Result<(), ParseError> {
        if matches!(cur.last(), Some(Node::Recursive)) {
            return Err(ParseError::MultipleRecursive);
        }
        self.pos += 2;
        self.consume();
        cur.push(Node::Recursive);
        if self.peek().is_some_and(is_alphanumeric) {
            self.field(cur);
        }
        Ok(())
    }

    /// `parseNumber`: a sign, then digits and dots; an `int` if `Atoi` takes it, else a float.
    fn number(&mut self, cur: &mut Vec<Node>) -> Result<(), ParseError> {
        if matches!(self.peek(), Some('+' | '-')) {
            self.next();
        }
        while self.next().is_some_and(|c| c == '.' || is_digit(c)) {}
        self.backup();
        let value = self.consume();
        if let Ok(int) = value.parse::<i64>() {
            cur.push(Node::Int(int));
            return Ok(());
        }
        // Go's `ParseFloat` refuses what overflows to infinity; Rust's returns it.
        match value.parse::<f64>() {
            Ok(float) if float.is_finite() => {
                cur.push(Node::Float(float));
                Ok(())
            }
            _ => Err(ParseError::Number(value.to_owned())),
        }
    }

    /// `parseArray`: `[…]` as a union, a quoted key, or a slice.
    fn array(&mut self, cur: &mut Vec<Node>) -> Result<(), ParseError> {
        loop {
            match self.next() {
                None | Some('\n') => return Err(ParseError::UnterminatedArray),
                Some(']') => break,
                Some(_) => {}
            }
        }
        let consumed = self.consume();
        let mut text = &consumed[1..consumed.len() - 1];
        if text == "*" {
            text = ":";
        }
        let parts: Vec<&str> = text.split(',').collect();
        if parts.len() > 1 {
            let union = parts
                .iter()
                .map(|part| parse_action(&format!("[{}]", part.trim_matches(' '))))
                .collect::<Result<_, _>>()?;
            cur.push(Node::Union(union));
            return Ok(());
        }
        if let Some(key) = DICT_KEY.captures(text) {
            // Parsed as a field path, so `['a.b']` is `.a.b`, as in Go.
            cur.extend(parse_action(&format!(".{}", &key[1]))?);
            return Ok(());
        }
        cur.push(Node::Array(slice_params(text)?));
        Ok(())
    }

    /// `parseFilter`: up to the `)]` outside the first pair of quotes, split at the first run
    /// of operator characters.
    fn filter(&mut self, cur: &mut Vec<Node>) -> Result<(), ParseError> {
        self.pos += "[?(".len();
        self.consume();
        let (mut begin, mut end) = (false, false);
        let mut pair = '"';
        loop {
            match self.next() {
                None | Some('\n') => return Err(ParseError::UnterminatedFilter),
                Some(quote @ ('"' | '\'')) => {
                    if !begin {
                        begin = true;
                        pair = quote;
                    } else if !self.escaped() && quote == pair {
                        end = true;
                    }
                }
                Some(')') if begin == end => break,
                Some(_) => {}
            }
        }
        if self.next() != Some(']') {
            return Err(ParseError::UnclosedFilter);
        }
        let consumed = self.consume();
        let text = &consumed[..consumed.len() - 2];
        cur.push(match FILTER.captures(text) {
            None => Node::Filter {
                left: parse_action(text)?,
                right: Vec::new(),
                operator: "exists".to_owned(),
            },
            Some(parts) => Node::Filter {
                left: parse_action(&parts[1])?,
                right: parse_action(&parts[3])?,
                operator: parts[2].to_owned(),
            },
        });
        Ok(())
    }

    /// `parseQuote`: up to the first closing quote not after a backslash, unquoted.
    fn quote(&mut self, cur: &mut Vec<Node>, end: char) -> Result<(), ParseError> {
        loop {
            match self.next() {
                None | Some('\n') => return Err(ParseError::UnterminatedQuote),
                Some(c) if c == end && !self.escaped() => break,
                Some(_) => {}
            }
        }
        let value = self.consume();
        let text = unquote_extend(value).ok_or_else(|| ParseError::Unquote(value.to_owned()))?;
        cur.push(Node::Text(text));
        Ok(())
    }

    /// `parseField`: up to a terminator not escaped by a backslash; the backslashes dropped.
    fn field(&mut self, cur: &mut Vec<Node>) {
        self.consume();
        while self.advance() {}
        cur.push(match self.consume() {
            "*" => Node::Wildcard,
            name => Node::Field(name.replace('\\', "")),
        });
    }

    /// `advance`: one character of a field, two after a backslash; false at a terminator.
    fn advance(&mut self) -> bool {
        match self.next() {
            Some('\\') => {
                self.next();
                true
            }
            c if is_terminator(c) => {
                self.backup();
                false
            }
            _ => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(name: &str) -> Node {
        Node::Field(name.to_owned())
    }

    fn text(s: &str) -> Node {
        Node::Text(s.as_bytes().to_vec())
    }

    #[test]
    fn parse_should_split_text_and_actions() {
        assert_eq!(parse("plain words").unwrap(), vec![text("plain words")]);
        assert_eq!(
            parse("a {.x.y} b").unwrap(),
            vec![text("a "), Node::List(vec![field("x"), field("y")]), text(" b")]
        );
        assert_eq!(parse(r#"{"}"}"#).unwrap(), vec![Node::List(vec![text("}")])]);
    }

    #[test]
    fn parse_should_expand_keys_unions_and_recursion() {
        assert_eq!(
            parse("{['a.b']}").unwrap(),
            vec![Node::List(vec![field("a"), field("b")])]
        );
        assert_eq!(
            parse("{[ 'x' ,1]}").unwrap(),
            vec![Node::List(vec![Node::Union(vec![
                vec![field("x")],
                vec![Node::Array(slice_params("1").unwrap())],
            ])])]
        );
        assert_eq!(
            parse("{...name.*}").unwrap(),
            vec![Node::List(vec![Node::Recursive, field("name"), Node::Wildcard])]
        );
        assert_eq!(parse(r"{.a\.b\}}").unwrap(), vec![Node::List(vec![field("a.b}")])]);
    }

    #[test]
    fn parse_should_split_filters_at_their_operator() {
        let filter = |left, right, operator: &str| {
            Node::List(vec![Node::Filter {
                left,
                right,
                operator: operator.into(),
            }])
        };
        assert_eq!(
            parse(r#"{[?(@.type=="Ready")]}"#).unwrap(),
            vec![filter(vec![field("type")], vec![text("Ready")], "==")]
        );
        assert_eq!(
            parse("{[?(@.n >= -2.5)]}").unwrap(),
            vec![filter(vec![field("n")], vec![Node::Float(-2.5)], ">=")]
        );
        assert_eq!(
            parse("{[?(@.on)]}").unwrap(),
            vec![filter(vec![field("on")], vec![], "exists")]
        );
        assert_eq!(
            parse(r#"{[?(@.v == "a)(b")]}"#).unwrap(),
            vec![filter(vec![field("v")], vec![text("a)(b")], "==")]
        );
        assert_eq!(
            parse("{[?(@.ok!=true)]}").unwrap(),
            vec![filter(vec![field("ok")], vec![Node::Bool(true)], "!=")]
        );
    }

    #[test]
    fn parse_should_read_numbers_and_words() {
        assert_eq!(
            parse("{range 12 +3 1.5 99999999999999999999 end false}").unwrap(),
            vec![Node::List(vec![
                Node::Identifier("range".into()),
                Node::Int(12),
                Node::Int(3),
                Node::Float(1.5),
                Node::Float(1e20),
                Node::Identifier("end".into()),
                Node::Bool(false),
            ])]
        );
    }
}
