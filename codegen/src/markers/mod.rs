//! controller-gen markers (`+kubebuilder:…`, `+optional`, `+listType=…`): parsed with
//! controller-gen's syntax (`+name`, `+name=value`, `+name:arg=value,arg=value`; strings bare,
//! "quoted" or `backticked`; lists `a;b` or `{a,b}`) and checked against the markers this project
//! supports, so a typo is an error with a suggestion rather than a silently missing CRD field.

use std::collections::BTreeMap;

use proc_macro2::Span;

use crate::diag::{Diagnostic, Diagnostics, did_you_mean};
use crate::symbol::{KUBEBUILDER_PREFIX, VALIDATION_ITEMS_PREFIX, VALIDATION_PREFIX, VALIDATION_UNIQUE_ITEMS};
use crate::tags::Tag;

mod schema;
mod since;
mod syntax;
mod table;

pub use schema::{SchemaEffect, effect as schema_effect};
pub use since::check_min_version;
pub use syntax::Value;
use syntax::{example, split_args, typed};
use table::SPECS;

/// A parsed marker.
#[derive(Clone, Debug)]
pub struct Marker {
    /// Its name, e.g. `kubebuilder:printcolumn`.
    pub name: &'static str,
    /// The value of a `+name=value` marker.
    pub value: Option<Value>,
    /// The named arguments of a `+name:arg=value,…` marker.
    pub args: BTreeMap<String, Value>,
    /// `+kubebuilder:validation:items:…`: the marker applies to a list's items.
    pub items: bool,
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
    /// In a module's `//!` doc.
    Package,
}

impl Target {
    fn bit(self) -> u8 {
        match self {
            Target::Type => table::TYPE,
            Target::Field => table::FIELD,
            Target::Package => table::PACKAGE,
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Target::Type => "a type",
            Target::Field => "a field",
            Target::Package => "a module's //! doc",
        }
    }
}

/// The names of the markers that go on types, for suggestions.
pub fn type_marker_names() -> impl Iterator<Item = &'static str> {
    SPECS.iter().filter(|s| s.places & table::TYPE != 0).map(|s| s.name)
}

/// The names of the markers that go on fields, for suggestions.
pub fn field_marker_names() -> impl Iterator<Item = &'static str> {
    SPECS.iter().filter(|s| s.places & table::FIELD != 0).map(|s| s.name)
}

/// Whether `key` (a tag's key) is meant as a marker this module reads.
pub fn is_marker_key(key: &str) -> bool {
    key.starts_with(KUBEBUILDER_PREFIX)
        || SPECS
            .iter()
            .any(|s| key == s.name || key.starts_with(&format!("{}:", s.name)))
}

/// Parses one tag as a marker written on `target`, reporting what is wrong.
pub fn parse(tag: &Tag, target: Target, diagnostics: &mut Diagnostics) -> Option<Marker> {
    // Tags are split on their first `=`; markers are read from their whole text.
    let text = if tag.value.is_empty() && !tag.key.contains('=') {
        tag.key.clone()
    } else {
        format!("{}={}", tag.key, tag.value)
    };
    // `+kubebuilder:validation:items:X` is X for the items of a list.
    let (text, items) = match text.strip_prefix(VALIDATION_ITEMS_PREFIX) {
        Some(rest) => (format!("{VALIDATION_PREFIX}{rest}"), true),
        None => (text, false),
    };
    let text = text.as_str();
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
    if spec.places & target.bit() == 0 {
        let there: Vec<&str> = [Target::Type, Target::Field, Target::Package]
            .into_iter()
            .filter(|t| spec.places & t.bit() != 0)
            .map(Target::describe)
            .collect();
        diagnostics.push(
            Diagnostic::new(
                tag.span,
                format!("+{} does not belong on {}", spec.name, target.describe()),
            )
            .help(format!("move it to {}", there.join(" or "))),
        );
        return None;
    }
    let rest = &text[spec.name.len()..];
    // A marker with a problem is reported once and then ignored, not also acted on.
    let problems_before = diagnostics.iter().count();
    let mut marker = Marker {
        name: spec.name,
        value: None,
        args: BTreeMap::new(),
        items,
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
    if marker.name == VALIDATION_UNIQUE_ITEMS && matches!(marker.value, Some(Value::Bool(true))) {
        diagnostics.push(error(
            format!("+{VALIDATION_UNIQUE_ITEMS}=true: CRD schemas may not set uniqueItems"),
            "use +listType=set, which the API server enforces".to_owned(),
        ));
    }
    (diagnostics.iter().count() == problems_before).then_some(marker)
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

    #[test]
    fn strings_lists_and_values_should_follow_controller_gen() {
        let (m, errors) = parsed(
            r#"kubebuilder:validation:XValidation:rule="self.a != \"x,y\"",message="line\nbreak""#,
            Target::Field,
        );
        assert!(errors.is_empty(), "{errors:?}");
        let m = m.unwrap();
        assert_eq!(m.args["rule"], Value::String("self.a != \"x,y\"".into()));
        assert_eq!(m.args["message"], Value::String("line\nbreak".into()));
        let (m, _) = parsed(r#"kubebuilder:validation:Enum={"a,b",c}"#, Target::Field);
        assert_eq!(m.unwrap().value, Some(Value::List(vec!["a,b".into(), "c".into()])));
        let (m, _) = parsed("kubebuilder:default=YQ==", Target::Field);
        assert_eq!(
            m.unwrap().value,
            Some(Value::Raw("YQ==".into())),
            "a value's own = signs stay"
        );
        let (m, errors) = parsed("kubebuilder:validation:items:MaxLength=63", Target::Field);
        assert!(errors.is_empty() && m.as_ref().unwrap().items, "{errors:?}");
    }

    #[test]
    fn placement_should_follow_controller_gen() {
        assert!(
            parsed("kubebuilder:validation:Enum=a;b", Target::Type).1.is_empty(),
            "type-level validation exists"
        );
        assert!(parsed("listType=map", Target::Type).1.is_empty());
        assert!(parsed("k8s:optional", Target::Field).1.is_empty());
        let (m, errors) = parsed(
            "kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch",
            Target::Package,
        );
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(
            m.unwrap().args["verbs"],
            Value::List(vec!["get".into(), "list".into(), "watch".into()])
        );
        let misplaced = parsed("kubebuilder:rbac:verbs=get", Target::Type).1;
        assert_eq!(
            misplaced,
            ["+kubebuilder:rbac does not belong on a type; move it to a module's //! doc"]
        );
    }
}
