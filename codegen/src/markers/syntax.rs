//! controller-gen's value syntax: strings bare, "quoted" or `backticked`; lists `a;b` or
//! `{a,b}`; named arguments `a=1,b="x,y"` split on top-level commas.

use super::table::Kind;

/// A marker argument's value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A string (bare, quoted or backticked).
    String(String),
    /// An integer.
    Int(i64),
    /// A number.
    Number(f64),
    /// `true` or `false`.
    Bool(bool),
    /// `a;b;c` or `{a,b,c}`.
    List(Vec<String>),
    /// Any value, kept as written (e.g. a default), to be read as JSON where it is used.
    Raw(String),
}

pub(super) fn example(kind: Kind) -> &'static str {
    match kind {
        Kind::String => "\"text\"",
        Kind::Int => "10",
        Kind::Number => "1.5",
        Kind::Bool => "true",
        Kind::List => "a;b",
        Kind::Raw => "{\"key\":\"value\"}",
        Kind::OneOf(values) => values[0],
    }
}

/// Splits on top-level `sep`: not inside quotes (with backslash escapes) or braces.
fn split_top(text: &str, sep: char) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut quote, mut escaped, mut start) = (0usize, None::<char>, false, 0usize);
    for (i, c) in text.char_indices() {
        match (quote, c) {
            (Some(_), _) if escaped => escaped = false,
            (Some('"'), '\\') => escaped = true,
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '`') => quote = Some(c),
            (None, '{') => depth += 1,
            (None, '}') => depth = depth.saturating_sub(1),
            (None, c) if c == sep && depth == 0 => {
                parts.push(&text[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

/// Splits `a=1,b="x,y",c={p,q}` on its top-level commas into `(key, raw value)` pairs.
pub(super) fn split_args(text: &str) -> Vec<(String, String)> {
    split_top(text, ',')
        .into_iter()
        .filter(|p| !p.trim().is_empty())
        .map(|p| {
            let (key, value) = p.split_once('=').unwrap_or((p, ""));
            (key.trim().to_owned(), value.trim().to_owned())
        })
        .collect()
}

/// A string as controller-gen reads it: `"…"` with Go's escapes (strconv.Unquote), `` `…` ``
/// raw, anything else bare.
fn unquote(raw: &str) -> String {
    let raw = raw.trim();
    if raw.len() >= 2 && raw.starts_with('`') && raw.ends_with('`') {
        return raw[1..raw.len() - 1].to_owned();
    }
    if !(raw.len() >= 2 && raw.starts_with('"') && raw.ends_with('"')) {
        return raw.to_owned();
    }
    let mut out = String::new();
    let mut chars = raw[1..raw.len() - 1].chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('u') => {
                let hex: String = chars.by_ref().take(4).collect();
                out.extend(u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32));
            }
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

/// Why a marker value does not have the kind its marker takes.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub(super) enum ValueError {
    /// Not an integer.
    #[error("expected an integer, found {0:?}")]
    Int(String),
    /// Not a number.
    #[error("expected a number, found {0:?}")]
    Number(String),
    /// Neither `true` nor `false`.
    #[error("expected true or false, found {0:?}")]
    Bool(String),
    /// None of the allowed values.
    #[error("expected one of {values}, found {found:?}", values = .0.join(", "), found = .1)]
    OneOf(&'static [&'static str], String),
}

/// `raw` read as `kind`.
pub(super) fn typed(raw: &str, kind: Kind) -> Result<Value, ValueError> {
    let raw = raw.trim();
    match kind {
        Kind::String => Ok(Value::String(unquote(raw))),
        Kind::Raw => Ok(Value::Raw(raw.to_owned())),
        Kind::Int => raw.parse().map(Value::Int).map_err(|_| ValueError::Int(raw.to_owned())),
        Kind::Number => raw
            .parse()
            .map(Value::Number)
            .map_err(|_| ValueError::Number(raw.to_owned())),
        Kind::Bool => match raw {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            _ => Err(ValueError::Bool(raw.to_owned())),
        },
        Kind::List => {
            let inner = raw.strip_prefix('{').and_then(|r| r.strip_suffix('}'));
            let items: Vec<String> = match inner {
                Some(inner) => split_top(inner, ',').into_iter().map(unquote).collect(),
                None => split_top(raw, ';').into_iter().map(unquote).collect(),
            };
            Ok(Value::List(items.into_iter().filter(|i| !i.is_empty()).collect()))
        }
        Kind::OneOf(values) => {
            let value = unquote(raw);
            if values.contains(&value.as_str()) {
                Ok(Value::String(value))
            } else {
                Err(ValueError::OneOf(values, value))
            }
        }
    }
}
