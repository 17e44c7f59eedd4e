//! The label selector grammar of apimachinery's `pkg/labels/selector.go`: its `Lexer` (words and
//! the special symbols `=!(),<>`), its `Parser` (`parseRequirement`, `parseOperator`,
//! `parseValues`, `parseIdentifiersList`, `parseExactValue`) and `NewRequirement`'s checks, with
//! the errors it words, so that a malformed `labelSelector` is refused as kube-apiserver refuses it.

use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::names;

/// A selector's operator (`selection.Operator`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Operator {
    In,
    NotIn,
    Equals,
    NotEquals,
    Exists,
    DoesNotExist,
    GreaterThan,
    LessThan,
}

/// One parsed requirement: its key, operator and values (sorted, without repeats, as
/// `sets.String.List()` gives them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ParsedRequirement {
    pub(crate) key: String,
    pub(crate) operator: Operator,
    pub(crate) values: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Token {
    Error,
    End,
    ClosedPar,
    Comma,
    DoesNotExist,
    DoubleEquals,
    Equals,
    GreaterThan,
    Identifier,
    In,
    LessThan,
    NotEquals,
    NotIn,
    OpenPar,
}

/// `string2token`.
fn keyword(text: &str) -> Option<Token> {
    Some(match text {
        ")" => Token::ClosedPar,
        "," => Token::Comma,
        "!" => Token::DoesNotExist,
        "==" => Token::DoubleEquals,
        "=" => Token::Equals,
        ">" => Token::GreaterThan,
        "in" => Token::In,
        "<" => Token::LessThan,
        "!=" => Token::NotEquals,
        "notin" => Token::NotIn,
        "(" => Token::OpenPar,
        _ => return None,
    })
}

fn is_special(b: u8) -> bool {
    matches!(b, b'=' | b'!' | b'(' | b')' | b',' | b'>' | b'<')
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// `Lexer.Lex` over the whole text: every token with its literal, ending with `End`.
fn scan(text: &str) -> Vec<(Token, String)> {
    let bytes = text.as_bytes();
    let mut pos = 0;
    let mut items = Vec::new();
    loop {
        while pos < bytes.len() && is_space(bytes[pos]) {
            pos += 1;
        }
        if pos >= bytes.len() {
            items.push((Token::End, String::new()));
            return items;
        }
        if is_special(bytes[pos]) {
            // `scanSpecialSymbol`: the longest run that still names a symbol.
            let start = pos;
            let mut last: Option<(Token, usize)> = None;
            while pos < bytes.len() && is_special(bytes[pos]) {
                let candidate = &text[start..=pos];
                if let Some(token) = keyword(candidate) {
                    last = Some((token, pos + 1));
                } else if last.is_some() {
                    break;
                }
                pos += 1;
            }
            match last {
                Some((token, end)) => {
                    pos = end;
                    items.push((token, text[start..end].to_owned()));
                }
                None => items.push((
                    Token::Error,
                    format!("error expected: keyword found '{}'", &text[start..pos]),
                )),
            }
        } else {
            let start = pos;
            while pos < bytes.len() && !is_special(bytes[pos]) && !is_space(bytes[pos]) {
                pos += 1;
            }
            let word = &text[start..pos];
            items.push((keyword(word).unwrap_or(Token::Identifier), word.to_owned()));
        }
    }
}

/// Parses a `labelSelector` the way `labels.Parse` does, requirements sorted by key; the error
/// is the text kube-apiserver answers with.
pub(crate) fn parse(text: &str) -> Result<Vec<ParsedRequirement>, String> {
    let mut parser = Parser {
        items: scan(text),
        position: 0,
    };
    let mut requirements = Vec::new();
    loop {
        let (token, literal) = parser.lookahead(true);
        match token {
            Token::Identifier | Token::DoesNotExist => {
                let requirement = parser
                    .requirement()
                    .map_err(|why| format!("unable to parse requirement: {why}"))?;
                requirements.push(requirement);
                let (next, literal) = parser.consume(true);
                match next {
                    Token::End => break,
                    Token::Comma => {
                        let (after, literal) = parser.lookahead(true);
                        if after != Token::Identifier && after != Token::DoesNotExist {
                            return Err(format!("found '{literal}', expected: identifier after ','"));
                        }
                    }
                    _ => return Err(format!("found '{literal}', expected: ',' or 'end of string'")),
                }
            }
            Token::End => break,
            _ => {
                return Err(format!(
                    "found '{literal}', expected: !, identifier, or 'end of string'"
                ));
            }
        }
    }
    // `sort.Sort(ByKey(items))`: a stable order by key.
    requirements.sort_by(|a, b| a.key.cmp(&b.key));
    Ok(requirements)
}

struct Parser {
    items: Vec<(Token, String)>,
    position: usize,
}

impl Parser {
    /// The next token; in a values context `in` and `notin` are identifiers.
    fn lookahead(&self, values: bool) -> (Token, String) {
        let (token, literal) = self.items[self.position.min(self.items.len() - 1)].clone();
        (retoken(token, values), literal)
    }

    fn consume(&mut self, values: bool) -> (Token, String) {
        let item = self.lookahead(values);
        self.position += 1;
        item
    }

    /// `parseRequirement`.
    fn requirement(&mut self) -> Result<ParsedRequirement, String> {
        let (key, inferred) = self.key_and_inferred_operator()?;
        if let Some(operator) = inferred {
            return new_requirement(key, operator, Vec::new());
        }
        let operator = self.operator()?;
        let values = match operator {
            Operator::In | Operator::NotIn => self.values()?,
            _ => self.exact_value()?,
        };
        new_requirement(key, operator, values)
    }

    /// `parseKeyAndInferOperator`: `!key`, `key` alone (exists), or a key before an operator.
    fn key_and_inferred_operator(&mut self) -> Result<(String, Option<Operator>), String> {
        let (mut token, mut literal) = self.consume(true);
        let negated = token == Token::DoesNotExist;
        if negated {
            (token, literal) = self.consume(true);
        }
        if token != Token::Identifier {
            return Err(format!("found '{literal}', expected: identifier"));
        }
        if let Some(error) = key_error(&literal, "<nil>") {
            return Err(error.to_string());
        }
        let (next, _) = self.lookahead(true);
        let ends = next == Token::End || next == Token::Comma;
        let operator = match (negated, ends) {
            (true, _) => Some(Operator::DoesNotExist),
            (false, true) => Some(Operator::Exists),
            (false, false) => None,
        };
        Ok((literal, operator))
    }

    /// `parseOperator`.
    fn operator(&mut self) -> Result<Operator, String> {
        let (token, literal) = self.consume(false);
        Ok(match token {
            Token::In => Operator::In,
            Token::Equals | Token::DoubleEquals => Operator::Equals,
            Token::GreaterThan => Operator::GreaterThan,
            Token::LessThan => Operator::LessThan,
            Token::NotIn => Operator::NotIn,
            Token::NotEquals => Operator::NotEquals,
            _ => return Err(format!("found '{literal}', expected: in, notin, =, ==, !=, gt, lt")),
        })
    }

    /// `parseValues`: `( … )`.
    fn values(&mut self) -> Result<Vec<String>, String> {
        let (token, literal) = self.consume(true);
        if token != Token::OpenPar {
            return Err(format!("found '{literal}' expected: '('"));
        }
        let (token, literal) = self.lookahead(true);
        match token {
            Token::Identifier | Token::Comma => {
                let values = self.identifiers()?;
                if self.consume(true).0 != Token::ClosedPar {
                    return Err(format!("found '{literal}', expected: ')'"));
                }
                Ok(values)
            }
            Token::ClosedPar => {
                self.consume(true);
                Ok(vec![String::new()])
            }
            _ => Err(format!("found '{literal}', expected: ',', ')' or identifier")),
        }
    }

    /// `parseIdentifiersList`: values and commas up to `)`, an empty value where two commas
    /// (or a comma and a parenthesis) meet.
    fn identifiers(&mut self) -> Result<Vec<String>, String> {
        let mut values: Vec<String> = Vec::new();
        let insert = |values: &mut Vec<String>, value: String| {
            if !values.contains(&value) {
                values.push(value);
            }
        };
        loop {
            let (token, literal) = self.consume(true);
            match token {
                Token::Identifier => {
                    insert(&mut values, literal);
                    let (next, literal) = self.lookahead(true);
                    match next {
                        Token::Comma => continue,
                        Token::ClosedPar => break,
                        _ => return Err(format!("found '{literal}', expected: ',' or ')'")),
                    }
                }
                Token::Comma => {
                    if values.is_empty() {
                        insert(&mut values, String::new());
                    }
                    let (next, _) = self.lookahead(true);
                    if next == Token::ClosedPar {
                        insert(&mut values, String::new());
                        break;
                    }
                    if next == Token::Comma {
                        self.consume(true);
                        insert(&mut values, String::new());
                    }
                }
                _ => return Err(format!("found '{literal}', expected: ',', or identifier")),
            }
        }
        values.sort();
        Ok(values)
    }

    /// `parseExactValue`: one value, empty before a comma or the end.
    fn exact_value(&mut self) -> Result<Vec<String>, String> {
        let (next, _) = self.lookahead(true);
        if next == Token::End || next == Token::Comma {
            return Ok(vec![String::new()]);
        }
        match self.consume(true) {
            (Token::Identifier, literal) => Ok(vec![literal]),
            (_, literal) => Err(format!("found '{literal}', expected: identifier")),
        }
    }
}

fn retoken(token: Token, values: bool) -> Token {
    match token {
        Token::In | Token::NotIn if values => Token::Identifier,
        other => other,
    }
}

/// `validateLabelKey`: a qualified name, at `path`.
fn key_error(key: &str, path: &str) -> Option<FieldError> {
    let errors = names::qualified_name_errors(key);
    (!errors.is_empty()).then(|| FieldError::invalid(path, BadValue::from(key), errors.join("; ")))
}

/// `NewRequirement`'s checks: the key, the number of values the operator takes, integers for
/// `gt`/`lt`, label values; several errors answer as Go's aggregate writes them.
fn new_requirement(key: String, operator: Operator, values: Vec<String>) -> Result<ParsedRequirement, String> {
    let mut errors: Vec<String> = key_error(&key, "key").map(|e| e.to_string()).into_iter().collect();
    let shown = || {
        BadValue::Raw(format!(
            "[]string{{{}}}",
            values.iter().map(|v| format!("{v:?}")).collect::<Vec<_>>().join(", ")
        ))
    };
    let count_error = match operator {
        Operator::In | Operator::NotIn if values.is_empty() => {
            Some("for 'in', 'notin' operators, values set can't be empty")
        }
        Operator::Equals | Operator::NotEquals if values.len() != 1 => {
            Some("exact-match compatibility requires one single value")
        }
        Operator::Exists | Operator::DoesNotExist if !values.is_empty() => {
            Some("values set must be empty for exists and does not exist")
        }
        Operator::GreaterThan | Operator::LessThan if values.len() != 1 => {
            Some("for 'Gt', 'Lt' operators, exactly one value is required")
        }
        _ => None,
    };
    if let Some(why) = count_error {
        errors.push(FieldError::invalid("values", shown(), why).to_string());
    }
    if matches!(operator, Operator::GreaterThan | Operator::LessThan) {
        for (i, value) in values.iter().enumerate() {
            if value.parse::<i64>().is_err() {
                let why = "for 'Gt', 'Lt' operators, the value must be an integer";
                errors
                    .push(FieldError::invalid(format!("values[{i}]"), BadValue::from(value.as_str()), why).to_string());
            }
        }
    }
    for (i, value) in values.iter().enumerate() {
        let found = names::label_value_errors(value);
        if !found.is_empty() {
            let at = format!("values[{i}][{key}]");
            errors.push(FieldError::invalid(at, BadValue::from(value.as_str()), found.join("; ")).to_string());
        }
    }
    match &errors[..] {
        [] => Ok(ParsedRequirement { key, operator, values }),
        [only] => Err(only.clone()),
        _ => Err(format!("[{}]", errors.join(", "))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors_should_parse_as_labels_parse_does() {
        let parsed = parse("tier in (b,a,a), app=web,!legacy,x notin (),n>3").unwrap();
        let keys: Vec<&str> = parsed.iter().map(|r| r.key.as_str()).collect();
        assert_eq!(keys, ["app", "legacy", "n", "tier", "x"]);
        assert_eq!(parsed[3].values, ["a", "b"]);
        assert_eq!(parsed[4].values, [""], "`()` is the empty value");
        assert_eq!(parsed[2].operator, Operator::GreaterThan);
    }

    #[test]
    fn garbage_should_be_worded_as_kube_apiserver_words_it() {
        let error = |text: &str| parse(text).unwrap_err();
        assert_eq!(
            error("a in (b"),
            "unable to parse requirement: found '', expected: ',' or ')'"
        );
        assert_eq!(
            error("a b c"),
            "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"
        );
        assert_eq!(
            error("app in web"),
            "unable to parse requirement: found 'web' expected: '('"
        );
        assert_eq!(error("a=b c"), "found 'c', expected: ',' or 'end of string'");
        assert_eq!(error("a,"), "found '', expected: identifier after ','");
        assert_eq!(error("=a"), "found '=', expected: !, identifier, or 'end of string'");
        assert_eq!(
            error("a>b"),
            "unable to parse requirement: values[0]: Invalid value: \"b\": for 'Gt', 'Lt' operators, the value must be an integer"
        );
        assert!(error("a=b@c").starts_with("unable to parse requirement: values[0][a]: Invalid value: \"b@c\": "));
        assert!(error("-a").starts_with("unable to parse requirement: <nil>: Invalid value: \"-a\": name part must"));
    }
}
