//! JSON written as YAML the way kube-apiserver writes a response for `Accept: application/yaml`
//! (`sigs.k8s.io/yaml.JSONToYAML`, which marshals with go-yaml v2 and its libyaml emitter):
//! keys sorted, block style with two-space indentation and sequences not indented under their
//! key, `{}` and `[]` for empty collections, strings plain when they read back as strings,
//! double-quoted when they would read as another type (YAML 1.1: `"80"`, `"y"`, `""`),
//! single-quoted when the emitter may not write them plain (`'*'`), a literal block when they
//! span lines; plain and quoted strings folded at spaces past column 80.

use serde_json::{Map, Value};

/// libyaml's `best_width`.
const BEST_WIDTH: usize = 80;

/// `value` as go-yaml v2 writes it, ending in a newline.
pub(crate) fn to_yaml(value: &Value) -> String {
    let mut out = Writer::default();
    out.node(value, 0, false);
    out.text
}

#[derive(Default)]
struct Writer {
    text: String,
    column: usize,
}

impl Writer {
    fn write(&mut self, text: &str) {
        self.text.push_str(text);
        self.column += text.chars().count();
    }

    fn newline(&mut self) {
        self.text.push('\n');
        self.column = 0;
    }

    /// Starts a line at `indent`, unless the cursor already waits there (after a dash).
    fn line(&mut self, indent: usize, inline: bool) {
        if inline {
            return;
        }
        if self.column > 0 {
            self.newline();
        }
        self.write(&" ".repeat(indent));
    }

    /// A node whose entries start at `indent`; `inline`: the cursor is already there (after
    /// a dash), so its first entry does not start a line.
    fn node(&mut self, value: &Value, indent: usize, inline: bool) {
        match value {
            Value::Object(map) if !map.is_empty() => self.mapping(map, indent, inline),
            Value::Array(items) if !items.is_empty() => self.sequence(items, indent, inline),
            scalar => {
                self.line(indent, inline);
                self.scalar(scalar, indent + 2, true);
                self.newline();
            }
        }
    }

    /// A block mapping, its keys sorted as Go sorts a map's.
    fn mapping(&mut self, map: &Map<String, Value>, indent: usize, inline: bool) {
        let mut keys: Vec<&String> = map.keys().collect();
        keys.sort();
        for (i, key) in keys.into_iter().enumerate() {
            self.line(indent, inline && i == 0);
            self.scalar(&Value::String(key.clone()), indent + 2, false);
            self.write(":");
            match &map[key] {
                Value::Object(inner) if !inner.is_empty() => {
                    self.newline();
                    self.mapping(inner, indent + 2, false);
                }
                // go-yaml v2 does not indent a sequence under its key.
                Value::Array(items) if !items.is_empty() => {
                    self.newline();
                    self.sequence(items, indent, false);
                }
                scalar => {
                    self.write(" ");
                    self.scalar(scalar, indent + 2, true);
                    self.newline();
                }
            }
        }
    }

    /// A block sequence, its dashes at `indent`.
    fn sequence(&mut self, items: &[Value], indent: usize, inline: bool) {
        for (i, item) in items.iter().enumerate() {
            self.line(indent, inline && i == 0);
            self.write("- ");
            self.node(item, indent + 2, true);
        }
    }

    /// A scalar whose continuation lines are indented to `indent`; `breaks`: whether long
    /// lines may fold (not in keys).
    fn scalar(&mut self, value: &Value, indent: usize, breaks: bool) {
        match value {
            Value::Null => self.write("null"),
            Value::Bool(b) => self.write(if *b { "true" } else { "false" }),
            Value::Number(n) => match n
                .as_i64()
                .map(|i| i.to_string())
                .or_else(|| n.as_u64().map(|u| u.to_string()))
            {
                Some(integer) => self.write(&integer),
                None => self.write(&go_float(n.as_f64().unwrap_or_default())),
            },
            Value::Object(_) => self.write("{}"),
            Value::Array(_) => self.write("[]"),
            Value::String(s) => self.string(s, indent, breaks),
        }
    }

    fn string(&mut self, s: &str, indent: usize, breaks: bool) {
        if s.contains('\n') {
            return self.literal(s, indent);
        }
        if !resolves_as_string(s) {
            return self.quoted(s, '"', indent, breaks);
        }
        if !plain_allowed(s) {
            return self.quoted(s, '\'', indent, breaks);
        }
        self.folded(s, indent, breaks, false);
    }

    /// Writes `s`, breaking at a single space once past the best width.
    fn folded(&mut self, s: &str, indent: usize, breaks: bool, quoted: bool) {
        let chars: Vec<char> = s.chars().collect();
        let mut spaces = false;
        for (i, &c) in chars.iter().enumerate() {
            if c == ' ' {
                let inner = !quoted || (i != 0 && i + 1 != chars.len());
                let next_space = chars.get(i + 1) == Some(&' ');
                if breaks && !spaces && self.column > BEST_WIDTH && inner && !next_space {
                    self.newline();
                    self.write(&" ".repeat(indent));
                } else {
                    self.write(" ");
                }
                spaces = true;
            } else {
                let mut text = String::new();
                match (quoted, c) {
                    (true, '"') => text.push_str("\\\""),
                    (true, '\\') => text.push_str("\\\\"),
                    (true, c) if c.is_control() => text.push_str(&format!("\\x{:02X}", u32::from(c))),
                    _ => text.push(c),
                }
                self.write(&text);
                spaces = false;
            }
        }
    }

    fn quoted(&mut self, s: &str, quote: char, indent: usize, breaks: bool) {
        self.write(&quote.to_string());
        if quote == '\'' {
            self.folded(&s.replace('\'', "''"), indent, breaks, false);
        } else {
            self.folded(s, indent, breaks, true);
        }
        self.write(&quote.to_string());
    }

    /// A literal block (`|`), its chomping from how the text ends.
    fn literal(&mut self, s: &str, indent: usize) {
        let chomp = if !s.ends_with('\n') {
            "-"
        } else if s.ends_with("\n\n") {
            "+"
        } else {
            ""
        };
        self.write(&format!("|{chomp}"));
        let body = s.strip_suffix('\n').unwrap_or(s);
        for line in body.split('\n') {
            self.newline();
            if !line.is_empty() {
                self.write(&" ".repeat(indent));
                self.write(line);
            }
        }
    }
}

/// Whether go-yaml v2 reads `s` back as a string (its `resolve` with YAML 1.1's booleans,
/// nulls, integers in any base and floats).
fn resolves_as_string(s: &str) -> bool {
    const NON_STRINGS: &[&str] = &[
        "", "~", "null", "Null", "NULL", "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "true", "True",
        "TRUE", "false", "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF", ".inf", ".Inf", ".INF", "+.inf",
        "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF", ".nan", ".NaN", ".NAN", "<<",
    ];
    if NON_STRINGS.contains(&s) || is_timestamp(s) {
        return false;
    }
    let first = s.chars().next().unwrap_or_default();
    if !(first.is_ascii_digit() || matches!(first, '+' | '-' | '.')) {
        return true;
    }
    let plain = s.replace('_', "");
    let unsigned = plain.trim_start_matches(['+', '-']);
    let integer = unsigned.parse::<u64>().is_ok()
        || unsigned
            .strip_prefix("0x")
            .is_some_and(|h| u64::from_str_radix(h, 16).is_ok())
        || unsigned
            .strip_prefix("0b")
            .is_some_and(|b| u64::from_str_radix(b, 2).is_ok());
    let float = unsigned.parse::<f64>().is_ok() && unsigned.chars().any(|c| c.is_ascii_digit());
    !(integer || float || is_base60_float(s))
}

/// `isBase60Float` of go-yaml v2's encoder: YAML 1.1's sexagesimal numbers (`1:20`, `-1:30:00.5`),
/// which it no longer reads but still quotes for older parsers.
fn is_base60_float(s: &str) -> bool {
    static BASE60: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    s.contains(':')
        && BASE60
            .get_or_init(|| {
                regex::Regex::new(r"^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$").expect("the pattern compiles")
            })
            .is_match(s)
}

/// Whether go-yaml v2 resolves `s` as a timestamp (`parseTimestamp`: a date, alone or with a
/// time after `T`, `t` or a space), which it quotes to keep a string.
fn is_timestamp(s: &str) -> bool {
    let bytes = s.as_bytes();
    let digits = |range: std::ops::Range<usize>| bytes.get(range).is_some_and(|b| b.iter().all(u8::is_ascii_digit));
    if bytes.len() < 8 || !digits(0..4) || bytes[4] != b'-' {
        return false;
    }
    // `2006-1-2`: a month and a day of one or two digits.
    let rest = &s[5..];
    let mut parts = rest.splitn(3, |c: char| !c.is_ascii_digit());
    let (Some(month), Some(day)) = (parts.next(), parts.next()) else {
        return false;
    };
    let date_len = 5 + month.len() + 1 + day.len().min(2);
    let separator_ok = rest.as_bytes().get(month.len()) == Some(&b'-');
    if !(1..=2).contains(&month.len()) || day.is_empty() || !separator_ok {
        return false;
    }
    match s.as_bytes().get(date_len) {
        None => true,
        Some(b'T' | b't' | b' ') => s[date_len + 1..].chars().next().is_some_and(|c| c.is_ascii_digit()),
        _ => false,
    }
}

/// Whether libyaml's emitter may write `s` plain in block context
/// (`yaml_emitter_analyze_scalar`).
fn plain_allowed(s: &str) -> bool {
    let chars: Vec<char> = s.chars().collect();
    let Some(&first) = chars.first() else {
        return false;
    };
    if s.starts_with("---") || s.starts_with("...") {
        return false;
    }
    let followed_by_blank = |i: usize| chars.get(i + 1).is_none_or(|c| *c == ' ' || *c == '\t');
    if matches!(
        first,
        '#' | ',' | '[' | ']' | '{' | '}' | '&' | '*' | '!' | '|' | '>' | '\'' | '"' | '%' | '@' | '`'
    ) || (matches!(first, '-' | '?' | ':') && followed_by_blank(0))
    {
        return false;
    }
    if first == ' ' || chars.last() == Some(&' ') {
        return false;
    }
    for (i, &c) in chars.iter().enumerate() {
        if c == ':' && followed_by_blank(i) {
            return false;
        }
        if c == '#' && i > 0 && chars[i - 1] == ' ' {
            return false;
        }
        if c.is_control() && c != '\t' {
            return false;
        }
    }
    true
}

/// Go's `strconv.FormatFloat(f, 'g', -1, 64)`, as go-yaml writes a float.
fn go_float(value: f64) -> String {
    if value.is_nan() {
        return ".nan".to_owned();
    }
    if value.is_infinite() {
        return if value > 0.0 { "+.inf" } else { "-.inf" }.to_owned();
    }
    let exponent = if value == 0.0 {
        0
    } else {
        value.abs().log10().floor() as i32
    };
    if !(-4..21).contains(&exponent) {
        let sci = format!("{value:e}");
        return match sci.split_once('e') {
            Some((mantissa, exp)) if exp.starts_with('-') => {
                format!("{mantissa}e-{:02}", &exp[1..].parse::<i32>().unwrap_or(0))
            }
            Some((mantissa, exp)) => format!("{mantissa}e+{:02}", exp.parse::<i32>().unwrap_or(0)),
            None => sci,
        };
    }
    format!("{value}")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_status_should_read_as_kube_apiserver_writes_it() {
        let status = json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": "configmaps \"three\" not found", "reason": "NotFound",
            "details": {"name": "three", "kind": "configmaps"}, "code": 404});
        assert_eq!(
            to_yaml(&status),
            "apiVersion: v1\ncode: 404\ndetails:\n  kind: configmaps\n  name: three\nkind: Status\nmessage: configmaps \"three\" not found\nmetadata: {}\nreason: NotFound\nstatus: Failure\n"
        );
    }

    #[test]
    fn strings_should_be_quoted_only_where_they_would_read_otherwise() {
        let object = json!({"data": {"a": "80", "b": "y", "c": "", "d": "*", "e": "plain text", "f": "it's: here",
            "g": "2026-01-02T03:04:05Z", "h": "2026-1-2", "i": "2026-01-02x", "j": "1:20", "k": "127.0.0.1:6443"}});
        assert_eq!(
            to_yaml(&object),
            "data:\n  a: \"80\"\n  b: \"y\"\n  c: \"\"\n  d: '*'\n  e: plain text\n  f: 'it''s: here'\n  g: \"2026-01-02T03:04:05Z\"\n  h: \"2026-1-2\"\n  i: 2026-01-02x\n  j: \"1:20\"\n  k: 127.0.0.1:6443\n"
        );
    }

    #[test]
    fn sequences_should_not_be_indented_under_their_key() {
        let object = json!({"items": [{"name": "a", "ports": [80, 443]}, "x", []], "empty": []});
        assert_eq!(
            to_yaml(&object),
            "empty: []\nitems:\n- name: a\n  ports:\n  - 80\n  - 443\n- x\n- []\n"
        );
    }

    #[test]
    fn long_lines_should_fold_and_multiline_strings_be_literal() {
        let long = "word ".repeat(20).trim_end().to_owned();
        let text = to_yaml(&json!({"message": long, "script": "echo a\necho b\n"}));
        assert_eq!(
            text,
            "message: word word word word word word word word word word word word word word word\n  word word word word word\nscript: |\n  echo a\n  echo b\n"
        );
    }
}
