//! controller-gen markers (`+kubebuilder:…`, `+optional`, `+listType=…`): parsed with
//! controller-gen's syntax (`+name`, `+name=value`, `+name:arg=value,arg=value`; strings bare,
//! "quoted" or `backticked`; lists `a;b` or `{a,b}`) and checked against the markers this project
//! supports, so a typo is an error with a suggestion rather than a silently missing CRD field.

use std::collections::BTreeMap;

use proc_macro2::Span;

use crate::diag::{Diagnostic, Diagnostics, did_you_mean};
use crate::tags::Tag;

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

/// What an argument accepts.
#[derive(Clone, Copy, Debug)]
enum Kind {
    String,
    Int,
    Number,
    Bool,
    List,
    Raw,
    OneOf(&'static [&'static str]),
}

/// A supported marker: its name, whether it takes one value or named arguments, and those.
struct Spec {
    name: &'static str,
    /// `Some(kind)`: `+name=value`; `None`: a flag or named arguments.
    value: Option<Kind>,
    /// `(argument, kind, required)`.
    args: &'static [(&'static str, Kind, bool)],
    /// Where it may be written.
    on_field: bool,
    on_type: bool,
}

const fn flag(name: &'static str, on_type: bool, on_field: bool) -> Spec {
    Spec {
        name,
        value: None,
        args: &[],
        on_field,
        on_type,
    }
}

const fn valued(name: &'static str, kind: Kind, on_type: bool, on_field: bool) -> Spec {
    Spec {
        name,
        value: Some(kind),
        args: &[],
        on_field,
        on_type,
    }
}

const COLUMN_TYPES: &[&str] = &["string", "integer", "number", "boolean", "date"];

const SPECS: &[Spec] = &[
    Spec {
        name: "kubebuilder:resource",
        value: None,
        args: &[
            ("path", Kind::String, false),
            ("singular", Kind::String, false),
            ("shortName", Kind::List, false),
            ("categories", Kind::List, false),
            ("scope", Kind::OneOf(&["Namespaced", "Cluster"]), false),
        ],
        on_field: false,
        on_type: true,
    },
    flag("kubebuilder:subresource:status", true, false),
    Spec {
        name: "kubebuilder:subresource:scale",
        value: None,
        args: &[
            ("specpath", Kind::String, true),
            ("statuspath", Kind::String, true),
            ("selectorpath", Kind::String, false),
        ],
        on_field: false,
        on_type: true,
    },
    Spec {
        name: "kubebuilder:printcolumn",
        value: None,
        args: &[
            ("name", Kind::String, true),
            ("type", Kind::OneOf(COLUMN_TYPES), true),
            ("JSONPath", Kind::String, true),
            ("description", Kind::String, false),
            ("format", Kind::String, false),
            ("priority", Kind::Int, false),
        ],
        on_field: false,
        on_type: true,
    },
    Spec {
        name: "kubebuilder:selectablefield",
        value: None,
        args: &[("JSONPath", Kind::String, true)],
        on_field: false,
        on_type: true,
    },
    valued("kubebuilder:object:root", Kind::Bool, true, false),
    flag("kubebuilder:storageversion", true, false),
    flag("kubebuilder:skipversion", true, false),
    valued("kubebuilder:validation:Minimum", Kind::Number, false, true),
    valued("kubebuilder:validation:Maximum", Kind::Number, false, true),
    valued("kubebuilder:validation:ExclusiveMinimum", Kind::Bool, false, true),
    valued("kubebuilder:validation:ExclusiveMaximum", Kind::Bool, false, true),
    valued("kubebuilder:validation:MultipleOf", Kind::Number, false, true),
    valued("kubebuilder:validation:MinLength", Kind::Int, false, true),
    valued("kubebuilder:validation:MaxLength", Kind::Int, false, true),
    valued("kubebuilder:validation:MinItems", Kind::Int, false, true),
    valued("kubebuilder:validation:MaxItems", Kind::Int, false, true),
    valued("kubebuilder:validation:MinProperties", Kind::Int, true, true),
    valued("kubebuilder:validation:MaxProperties", Kind::Int, true, true),
    valued("kubebuilder:validation:UniqueItems", Kind::Bool, false, true),
    valued("kubebuilder:validation:Pattern", Kind::String, false, true),
    valued("kubebuilder:validation:Format", Kind::String, false, true),
    valued("kubebuilder:validation:Type", Kind::String, false, true),
    valued("kubebuilder:validation:Enum", Kind::List, true, true),
    flag("kubebuilder:validation:Optional", true, true),
    flag("kubebuilder:validation:Required", true, true),
    flag("kubebuilder:validation:XPreserveUnknownFields", true, true),
    flag("kubebuilder:validation:XEmbeddedResource", true, true),
    flag("kubebuilder:validation:XIntOrString", true, true),
    Spec {
        name: "kubebuilder:validation:XValidation",
        value: None,
        args: &[
            ("rule", Kind::String, true),
            ("message", Kind::String, false),
            ("messageExpression", Kind::String, false),
            ("reason", Kind::String, false),
            ("fieldPath", Kind::String, false),
            ("optionalOldSelf", Kind::Bool, false),
        ],
        on_field: true,
        on_type: true,
    },
    valued("kubebuilder:default", Kind::Raw, false, true),
    valued("default", Kind::Raw, false, true),
    flag("kubebuilder:pruning:PreserveUnknownFields", true, true),
    flag("optional", false, true),
    flag("required", false, true),
    flag("nullable", false, true),
    valued("listType", Kind::OneOf(&["atomic", "set", "map"]), false, true),
    valued("listMapKey", Kind::String, false, true),
    valued("mapType", Kind::OneOf(&["atomic", "granular"]), false, true),
    valued("structType", Kind::OneOf(&["atomic", "granular"]), false, true),
];

/// A parsed marker.
#[derive(Clone, Debug)]
pub struct Marker {
    /// Its name, e.g. `kubebuilder:printcolumn`.
    pub name: &'static str,
    /// The value of a `+name=value` marker.
    pub value: Option<Value>,
    /// The named arguments of a `+name:arg=value,…` marker.
    pub args: BTreeMap<String, Value>,
    /// The tag, for diagnostics.
    pub span: Span,
}

/// Where a marker was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// On a type.
    Type,
    /// On a field.
    Field,
}

/// The names of the markers that go on fields, for suggestions.
pub fn field_marker_names() -> impl Iterator<Item = &'static str> {
    SPECS.iter().filter(|s| s.on_field).map(|s| s.name)
}

/// Whether `key` (a tag's key) is meant as a marker this module reads.
pub fn is_marker_key(key: &str) -> bool {
    key.starts_with("kubebuilder:") || SPECS.iter().any(|s| !s.name.contains(':') && s.name == key)
}

/// Parses one tag as a marker written on `target`, reporting what is wrong.
pub fn parse(tag: &Tag, target: Target, diagnostics: &mut Diagnostics) -> Option<Marker> {
    // Tags are split on their first `=`; markers are read from their whole text.
    let text = if tag.value.is_empty() && !tag.key.contains('=') {
        tag.key.clone()
    } else {
        format!("{}={}", tag.key, tag.value)
    };
    let text = text.trim_end_matches('=');
    let spec = SPECS
        .iter()
        .filter(|s| {
            text == s.name || text.starts_with(&format!("{}:", s.name)) || text.starts_with(&format!("{}=", s.name))
        })
        .max_by_key(|s| s.name.len());
    let Some(spec) = spec else {
        let name = text.split(['=', ',']).next().unwrap_or(text);
        let mut diagnostic = Diagnostic::new(tag.span, format!("unknown marker +{name}"));
        diagnostic = match did_you_mean(name, SPECS.iter().map(|s| s.name)) {
            Some(close) => diagnostic.help(format!("did you mean +{close}?")),
            None => diagnostic.help("see the supported markers in the README"),
        };
        diagnostics.push(diagnostic);
        return None;
    };
    let allowed = match target {
        Target::Type => spec.on_type,
        Target::Field => spec.on_field,
    };
    if !allowed {
        let (here, there) = if target == Target::Type {
            ("a type", "a field")
        } else {
            ("a field", "a type")
        };
        diagnostics.push(
            Diagnostic::new(tag.span, format!("+{} does not belong on {here}", spec.name))
                .help(format!("move it to {there}")),
        );
        return None;
    }
    let rest = &text[spec.name.len()..];
    let mut marker = Marker {
        name: spec.name,
        value: None,
        args: BTreeMap::new(),
        span: tag.span,
    };
    // Arguments written, valid or not: an invalid one is reported once, not also as missing.
    let mut given: Vec<String> = Vec::new();
    let error = |message: String, help: String| Diagnostic::new(tag.span, message).help(help);
    match (spec.value, rest.chars().next()) {
        (Some(kind), Some('=')) => match typed(&rest[1..], kind) {
            Ok(value) => marker.value = Some(value),
            Err(why) => diagnostics.push(error(
                format!("+{}: {why}", spec.name),
                format!("e.g. +{}={}", spec.name, example(kind)),
            )),
        },
        (Some(kind), _) => diagnostics.push(error(
            format!("+{} needs a value", spec.name),
            format!("write +{}={}", spec.name, example(kind)),
        )),
        (None, None) => {}
        (None, Some(':')) if !spec.args.is_empty() => {
            for (key, raw) in split_args(&rest[1..]) {
                given.push(key.clone());
                let Some((_, kind, _)) = spec.args.iter().find(|(name, _, _)| *name == key) else {
                    let names = spec.args.iter().map(|(n, _, _)| *n);
                    let help = match did_you_mean(&key, names) {
                        Some(close) => format!("did you mean {close}?"),
                        None => format!(
                            "its arguments are {}",
                            spec.args.iter().map(|(n, _, _)| *n).collect::<Vec<_>>().join(", ")
                        ),
                    };
                    diagnostics.push(error(format!("unknown argument {key:?} of +{}", spec.name), help));
                    continue;
                };
                match typed(&raw, *kind) {
                    Ok(value) => {
                        marker.args.insert(key, value);
                    }
                    Err(why) => diagnostics.push(error(
                        format!("+{}: argument {key}: {why}", spec.name),
                        format!("e.g. {key}={}", example(*kind)),
                    )),
                }
            }
        }
        (None, _) => diagnostics.push(error(
            format!("+{} takes no value", spec.name),
            format!("write +{} alone", spec.name),
        )),
    }
    for (name, _, required) in spec.args {
        if *required && !given.iter().any(|g| g == name) && rest.starts_with(':') {
            diagnostics.push(error(
                format!("+{} needs the argument {name}", spec.name),
                format!("add {name}=…"),
            ));
        } else if *required && rest.is_empty() {
            diagnostics.push(error(
                format!("+{} needs arguments", spec.name),
                format!("write +{}:{name}=…", spec.name),
            ));
            break;
        }
    }
    Some(marker)
}

fn example(kind: Kind) -> &'static str {
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

/// Splits `a=1,b="x,y",c={p,q}` on its top-level commas into `(key, raw value)` pairs.
fn split_args(text: &str) -> Vec<(String, String)> {
    let mut parts = Vec::new();
    let (mut depth, mut quote, mut start) = (0usize, None::<char>, 0usize);
    for (i, c) in text.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '`') => quote = Some(c),
            (None, '{') => depth += 1,
            (None, '}') => depth = depth.saturating_sub(1),
            (None, ',') if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
        .into_iter()
        .filter(|p| !p.trim().is_empty())
        .map(|p| {
            let (key, value) = p.split_once('=').unwrap_or((p, ""));
            (key.trim().to_owned(), value.trim().to_owned())
        })
        .collect()
}

fn unquote(raw: &str) -> String {
    let raw = raw.trim();
    for q in ['"', '`'] {
        if raw.len() >= 2 && raw.starts_with(q) && raw.ends_with(q) {
            let inner = &raw[1..raw.len() - 1];
            return if q == '"' {
                inner.replace("\\\"", "\"").replace("\\\\", "\\")
            } else {
                inner.to_owned()
            };
        }
    }
    raw.to_owned()
}

fn typed(raw: &str, kind: Kind) -> Result<Value, String> {
    let raw = raw.trim();
    match kind {
        Kind::String => Ok(Value::String(unquote(raw))),
        Kind::Raw => Ok(Value::Raw(raw.to_owned())),
        Kind::Int => raw
            .parse()
            .map(Value::Int)
            .map_err(|_| format!("expected an integer, found {raw:?}")),
        Kind::Number => raw
            .parse()
            .map(Value::Number)
            .map_err(|_| format!("expected a number, found {raw:?}")),
        Kind::Bool => match raw {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            _ => Err(format!("expected true or false, found {raw:?}")),
        },
        Kind::List => {
            let inner = raw.strip_prefix('{').and_then(|r| r.strip_suffix('}'));
            let items: Vec<String> = match inner {
                Some(inner) => inner.split(',').map(unquote).collect(),
                None => raw.split(';').map(unquote).collect(),
            };
            Ok(Value::List(items.into_iter().filter(|i| !i.is_empty()).collect()))
        }
        Kind::OneOf(values) => {
            let value = unquote(raw);
            if values.contains(&value.as_str()) {
                Ok(Value::String(value))
            } else {
                Err(format!("expected one of {}, found {value:?}", values.join(", ")))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tag(line: &str) -> Tag {
        let (key, value) = line.split_once('=').unwrap_or((line, ""));
        Tag {
            key: key.to_owned(),
            value: value.to_owned(),
            span: Span::call_site(),
        }
    }

    fn parsed(line: &str, target: Target) -> (Option<Marker>, Vec<String>) {
        let mut diagnostics = Diagnostics::default();
        let marker = parse(&tag(line), target, &mut diagnostics);
        (marker, diagnostics.into_vec().into_iter().map(|d| d.text()).collect())
    }

    #[test]
    fn markers_should_parse_with_controller_gen_syntax() {
        let (m, errors) = parsed(
            "kubebuilder:resource:scope=Namespaced,shortName=vm;vms,categories={all,cloud}",
            Target::Type,
        );
        assert!(errors.is_empty(), "{errors:?}");
        let m = m.unwrap();
        assert_eq!(m.args["shortName"], Value::List(vec!["vm".into(), "vms".into()]));
        assert_eq!(m.args["categories"], Value::List(vec!["all".into(), "cloud".into()]));
        let (m, errors) = parsed(
            r#"kubebuilder:printcolumn:name="CPU",type=number,JSONPath=".status.server.usage.cpu",priority=1"#,
            Target::Type,
        );
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(
            m.unwrap().args["JSONPath"],
            Value::String(".status.server.usage.cpu".into())
        );
        let (m, _) = parsed("kubebuilder:validation:Minimum=1", Target::Field);
        assert_eq!(m.unwrap().value, Some(Value::Number(1.0)));
        let (m, _) = parsed(r#"kubebuilder:default={"a":1}"#, Target::Field);
        assert_eq!(m.unwrap().value, Some(Value::Raw(r#"{"a":1}"#.into())));
        let (m, errors) = parsed("kubebuilder:subresource:status", Target::Type);
        assert!(m.is_some() && errors.is_empty());
    }

    #[test]
    fn bad_markers_should_say_what_and_how_to_fix() {
        let first = |line: &str, target| parsed(line, target).1.into_iter().next().unwrap_or_default();
        assert_eq!(
            first("kubebuilder:subresource:stauts", Target::Type),
            "unknown marker +kubebuilder:subresource:stauts; did you mean +kubebuilder:subresource:status?"
        );
        assert!(
            first("kubebuilder:resource:scope=Global", Target::Type).contains("expected one of Namespaced, Cluster")
        );
        assert!(
            first("kubebuilder:printcolumn:name=CPU,type=number", Target::Type).contains("needs the argument JSONPath")
        );
        assert!(
            first("kubebuilder:printcolumn:nmae=CPU,type=number,JSONPath=.x", Target::Type)
                .contains("did you mean name?")
        );
        assert!(first("kubebuilder:validation:Minimum=one", Target::Field).contains("expected a number"));
        assert!(first("kubebuilder:subresource:status", Target::Field).contains("does not belong on a field"));
        assert!(first("listType=bag", Target::Field).contains("expected one of atomic, set, map"));
        assert!(first("kubebuilder:validation:MaxLength", Target::Field).contains("needs a value"));
    }
}
