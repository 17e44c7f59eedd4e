//! `+genclient` and its options, turned into the verbs a typed client offers, with client-gen's
//! rules (`cmd/client-gen/generators/util/tags.go`) and its error cases.

use std::collections::BTreeSet;

use proc_macro2::Span;

use crate::diag::{Diagnostic, Diagnostics, did_you_mean};
use crate::symbol::*;
use crate::tags::Tag;

mod method;
pub(crate) mod verb;

pub use method::Method;
use method::method;
pub use verb::Verb;

/// What `+genclient` tags ask of a type's typed client.
#[derive(Clone, Debug)]
pub struct GenClient {
    /// Whether the getter takes a namespace (not `+genclient:nonNamespaced`).
    pub namespaced: bool,
    /// `+genclient:noVerbs`: no client methods at all, and no informer.
    pub no_verbs: bool,
    /// The verbs the typed client has.
    pub verbs: BTreeSet<Verb>,
    /// The verbs the tags select before `noVerbs` (lister-gen still reads these).
    pub declared_verbs: BTreeSet<Verb>,
    /// Whether status is its own resource path: a `status` field and no `noStatus`.
    pub status: bool,
    /// Extension methods.
    pub methods: Vec<Method>,
    /// The `+genclient` tag, for diagnostics.
    pub span: Span,
}

impl GenClient {
    /// Takes away what needs the kind's apply configuration (`apply`, `applyStatus`, apply
    /// extensions without `input=`), for a kind that has none, as client-gen generates no Apply
    /// without applyconfiguration-gen.
    pub fn without_apply(&mut self) {
        self.verbs.remove(&Verb::Apply);
        self.verbs.remove(&Verb::ApplyStatus);
        self.methods.retain(|m| !m.applies_kind());
    }
}

/// `+genclient` and its options, as suggestions offer them; [`genclient`] handles each.
pub(crate) const OPTIONS: [&str; 8] = [
    GENCLIENT,
    GENCLIENT_NON_NAMESPACED,
    GENCLIENT_NO_VERBS,
    GENCLIENT_NO_STATUS,
    GENCLIENT_READONLY,
    GENCLIENT_ONLY_VERBS,
    GENCLIENT_SKIP_VERBS,
    GENCLIENT_METHOD,
];

/// Whether a tag's key is `+genclient` or one of its options (known or not).
pub(crate) fn is_genclient_key(key: &str) -> bool {
    key == GENCLIENT || key.starts_with(GENCLIENT_OPTION_PREFIX)
}

/// Reads the `genclient` tags of a type; `None` when it has no `+genclient`. `has_status`: the
/// struct has a `status` field (client-gen's rule for `UpdateStatus`/`ApplyStatus`).
pub fn genclient(tags: &[Tag], has_status: bool, diagnostics: &mut Diagnostics) -> Option<GenClient> {
    let ours: Vec<&Tag> = tags.iter().filter(|t| is_genclient_key(&t.key)).collect();
    let root = ours.iter().copied().find(|t| t.key == GENCLIENT);
    let Some(root) = root else {
        if let Some(orphan) = ours.first() {
            diagnostics.push(
                Diagnostic::new(orphan.span, format!("+{} has no effect without +genclient", orphan.key))
                    .help("add +genclient on the line above, or remove this tag"),
            );
        }
        return None;
    };
    let mut client = GenClient {
        namespaced: true,
        no_verbs: false,
        verbs: BTreeSet::new(),
        declared_verbs: BTreeSet::new(),
        status: false,
        methods: Vec::new(),
        span: root.span,
    };
    let (mut no_status, mut readonly) = (false, false);
    let (mut only, mut skip): (Option<BTreeSet<Verb>>, Option<BTreeSet<Verb>>) = (None, None);
    let mut skip_span = root.span;
    for tag in ours.iter().copied() {
        let flag = |diagnostics: &mut Diagnostics| {
            if !tag.value.is_empty() {
                diagnostics.push(
                    Diagnostic::new(tag.span, format!("+{} takes no value, found {:?}", tag.key, tag.value))
                        .help(format!("write +{} alone, or omit it", tag.key)),
                );
            }
        };
        match tag.key.as_str() {
            GENCLIENT => flag(diagnostics),
            GENCLIENT_NON_NAMESPACED => {
                flag(diagnostics);
                client.namespaced = false;
            }
            GENCLIENT_NO_VERBS => {
                flag(diagnostics);
                client.no_verbs = true;
            }
            GENCLIENT_NO_STATUS => {
                flag(diagnostics);
                no_status = true;
            }
            GENCLIENT_READONLY => {
                flag(diagnostics);
                readonly = true;
            }
            // client-gen reads only the first of a repeated tag (`tags.go` takes `v[0]`).
            GENCLIENT_ONLY_VERBS | GENCLIENT_SKIP_VERBS if repeated(tag, &ours) => diagnostics.push(
                Diagnostic::new(
                    tag.span,
                    format!("+{} is repeated; code-generator reads only the first", tag.key),
                )
                .help("merge the verbs into one tag"),
            ),
            GENCLIENT_ONLY_VERBS => only = Some(verb_list(tag, diagnostics)),
            GENCLIENT_SKIP_VERBS => {
                skip_span = tag.span;
                skip = Some(verb_list(tag, diagnostics));
            }
            GENCLIENT_METHOD => client.methods.extend(method(tag, diagnostics)),
            unknown => {
                let mut diagnostic = Diagnostic::new(tag.span, format!("unknown tag +{unknown}"));
                if let Some(close) = did_you_mean(unknown, OPTIONS) {
                    diagnostic = diagnostic.help(format!("did you mean +{close}?"));
                } else {
                    diagnostic = diagnostic.help(format!("the genclient options are {}", OPTIONS[1..].join(", ")));
                }
                diagnostics.push(diagnostic);
            }
        }
    }
    // client-gen: readonly adds get, list and watch to whatever onlyVerbs lists.
    let only_source = if readonly {
        GENCLIENT_READONLY
    } else {
        GENCLIENT_ONLY_VERBS
    };
    if readonly {
        only.get_or_insert_with(BTreeSet::new)
            .extend([Verb::Get, Verb::List, Verb::Watch]);
    }
    let skip = skip.unwrap_or_default();
    if let Some(only) = &only {
        for both in only.intersection(&skip) {
            diagnostics.push(
                Diagnostic::new(
                    skip_span,
                    format!(
                        "verb {:?} is both skipped by {GENCLIENT_SKIP_VERBS} and selected by {only_source}",
                        both.tag_name()
                    ),
                )
                .help("list each verb in one of them only"),
            );
        }
    }
    client.status = has_status && !no_status;
    client.declared_verbs = only
        .unwrap_or_else(|| Verb::ALL.into())
        .difference(&skip)
        .copied()
        .collect();
    if !client.status {
        client.declared_verbs.remove(&Verb::UpdateStatus);
        client.declared_verbs.remove(&Verb::ApplyStatus);
    }
    if client.no_verbs {
        // client-gen generates nothing for the type, extensions included.
        client.methods.clear();
    } else {
        client.verbs = client.declared_verbs.clone();
    }
    method::check_names(&client.methods, diagnostics);
    Some(client)
}

/// Whether an earlier tag has the same key.
fn repeated(tag: &Tag, all: &[&Tag]) -> bool {
    let first = all.iter().position(|t| t.key == tag.key);
    first.is_some_and(|i| !std::ptr::eq(all[i], tag))
}

fn verb_list(tag: &Tag, diagnostics: &mut Diagnostics) -> BTreeSet<Verb> {
    let mut verbs = BTreeSet::new();
    for name in tag.value.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        match Verb::parse(name) {
            Some(verb) => {
                verbs.insert(verb);
            }
            None => {
                let names = Verb::ALL.map(Verb::tag_name);
                let help = match did_you_mean(name, names) {
                    Some(close) => format!("did you mean {close}?"),
                    None => format!("the verbs are {}", names.join(", ")),
                };
                diagnostics
                    .push(Diagnostic::new(tag.span, format!("unknown verb {name:?} in +{}", tag.key)).help(help));
            }
        }
    }
    if tag.value.trim().is_empty() {
        diagnostics.push(
            Diagnostic::new(tag.span, format!("+{} needs a list of verbs", tag.key))
                .help(format!("e.g. +{}=get,list,watch", tag.key)),
        );
    }
    verbs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags(lines: &[&str]) -> Vec<Tag> {
        lines
            .iter()
            .map(|line| {
                let (key, value) = line.split_once('=').unwrap_or((line, ""));
                Tag {
                    key: key.to_owned(),
                    value: value.to_owned(),
                    span: Span::call_site(),
                }
            })
            .collect()
    }

    fn verbs(lines: &[&str], has_status: bool) -> (Vec<&'static str>, Vec<String>) {
        let mut diagnostics = Diagnostics::default();
        let client = genclient(&tags(lines), has_status, &mut diagnostics);
        let verbs = client
            .map(|c| c.verbs.into_iter().map(Verb::tag_name).collect())
            .unwrap_or_default();
        (verbs, diagnostics.into_vec().into_iter().map(|d| d.text()).collect())
    }

    #[test]
    fn verbs_should_follow_client_gen() {
        assert_eq!(verbs(&["genclient"], true).0.len(), 11);
        assert!(
            !verbs(&["genclient"], false).0.contains(&"updateStatus"),
            "no status field, no UpdateStatus"
        );
        assert!(
            !verbs(&["genclient", "genclient:noStatus"], true)
                .0
                .contains(&"applyStatus")
        );
        assert_eq!(
            verbs(&["genclient", "genclient:readonly"], true).0,
            ["get", "list", "watch"]
        );
        assert_eq!(
            verbs(&["genclient", "genclient:onlyVerbs=create,get"], true).0,
            ["create", "get"]
        );
        assert!(
            !verbs(&["genclient", "genclient:skipVerbs=watch,patch"], true)
                .0
                .contains(&"watch")
        );
        assert!(verbs(&["genclient", "genclient:noVerbs"], true).0.is_empty());
    }

    #[test]
    fn bad_tags_should_be_reported_with_a_fix() {
        let (_, errors) = verbs(&["genclient", "genclient:nonNamespace"], true);
        assert_eq!(
            errors,
            ["unknown tag +genclient:nonNamespace; did you mean +genclient:nonNamespaced?"]
        );
        let (_, errors) = verbs(&["genclient", "genclient:onlyVerbs=get,lsit"], true);
        assert_eq!(
            errors,
            ["unknown verb \"lsit\" in +genclient:onlyVerbs; did you mean list?"]
        );
        let (_, errors) = verbs(&["genclient=false"], true);
        assert!(errors[0].starts_with("+genclient takes no value"), "{errors:?}");
        let (_, errors) = verbs(
            &["genclient", "genclient:onlyVerbs=get", "genclient:skipVerbs=get"],
            true,
        );
        assert_eq!(
            errors,
            [
                "verb \"get\" is both skipped by genclient:skipVerbs and selected by genclient:onlyVerbs; list each verb in one of them only"
            ]
        );
        let (verbs_, errors) = verbs(&["genclient", "genclient:readonly", "genclient:onlyVerbs=create"], true);
        assert_eq!(
            (verbs_, errors.len()),
            (vec!["create", "get", "list", "watch"], 0),
            "readonly adds to onlyVerbs"
        );
        let (_, errors) = verbs(
            &["genclient", "genclient:skipVerbs=get", "genclient:skipVerbs=list"],
            true,
        );
        assert!(errors[0].contains("repeated"), "{errors:?}");
        let (_, errors) = verbs(&["genclient:noStatus"], true);
        assert!(errors[0].contains("has no effect without +genclient"));
    }

    #[test]
    fn every_option_should_be_handled() {
        for option in OPTIONS {
            let (_, errors) = verbs(&["genclient", format!("{option}=").as_str()], true);
            assert!(
                !errors.iter().any(|e| e.starts_with("unknown tag")),
                "+{option} is offered but not handled: {errors:?}"
            );
        }
    }
}
