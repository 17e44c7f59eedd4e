//! What kube-apiserver refuses in a write's options, in the order of apimachinery's
//! `pkg/apis/meta/v1/validation/validation.go` (`ValidateCreateOptions`,
//! `ValidateUpdateOptions`, `ValidatePatchOptions`, `ValidateDeleteOptions`,
//! `ValidateFieldManager`, `ValidateDryRun`, `ValidateFieldValidation`): each cause a
//! `(field, message)` of the 422 on `<Verb>Options.meta.k8s.io`.

use serde_json::Value;

use crate::semantics::field_error::go_quote;
use crate::status::ApiStatus;
use crate::storage::verb::Verb;
use crate::verbs::options::{APPLY_PATCH, DeleteOpts, Query};

/// `FieldManagerMaxLength`.
const FIELD_MANAGER_MAX_LENGTH: usize = 128;

impl Query {
    /// Refuses option values kube-apiserver refuses, with its 422 on `<Verb>Options.meta.k8s.io`
    /// ([`Query::write_option_causes`], [`Query::list_option_causes`]); `watch_list`: whether
    /// the server's WatchList feature is on.
    pub(crate) fn validate(&self, verb: Verb, content_type: &str, watch_list: bool) -> Result<(), ApiStatus> {
        let kind = match verb {
            Verb::Get => return Ok(()),
            Verb::List | Verb::Watch => "ListOptions",
            Verb::Create => "CreateOptions",
            Verb::Update => "UpdateOptions",
            Verb::Patch => "PatchOptions",
            Verb::Delete | Verb::DeleteCollection => "DeleteOptions",
        };
        let causes = match verb {
            Verb::List | Verb::Watch => self.list_option_causes(verb == Verb::Watch, watch_list),
            _ => self.write_option_causes(verb, content_type),
        };
        match causes.is_empty() {
            true => Ok(()),
            false => Err(ApiStatus::invalid_kind(kind, "meta.k8s.io", "", &causes)),
        }
    }

    /// What kube-apiserver's `ValidateListOptions` refuses in a list's or a watch's options, in
    /// its order. Without the WatchList feature (off by default in 1.28 to 1.31, the server's default, and in 1.33) a
    /// watch may not carry `sendInitialEvents` at all, even `false`.
    fn list_option_causes(&self, watch: bool, watch_list: bool) -> Vec<(String, String)> {
        const MATCH: &str = "resourceVersionMatch";
        let forbidden = |why: &str| (MATCH.to_owned(), format!("Forbidden: {why}"));
        let with_continue = "resourceVersionMatch is forbidden when continue is provided";
        let matching = self.resource_version_match.as_deref();
        let mut causes = Vec::new();
        if watch {
            if self.send_initial_events.is_some() {
                if matching != Some("NotOlderThan") {
                    causes.push(forbidden(
                        "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
                    ));
                }
                if !watch_list {
                    let why = "Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled";
                    causes.push(("sendInitialEvents".to_owned(), why.to_owned()));
                }
            }
            if let Some(matching) = matching {
                if self.send_initial_events.is_none() {
                    causes.push(forbidden(
                        "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
                    ));
                }
                if matching != "NotOlderThan" {
                    causes.push((MATCH.to_owned(), not_supported(matching, &["NotOlderThan"])));
                }
                if self.continue_token.is_some() {
                    causes.push(forbidden(with_continue));
                }
            }
            return causes;
        }
        if let Some(matching) = matching {
            if self.resource_version.is_none() {
                causes.push(forbidden(
                    "resourceVersionMatch is forbidden unless resourceVersion is provided",
                ));
            }
            if self.continue_token.is_some() {
                causes.push(forbidden(with_continue));
            }
            if !matches!(matching, "Exact" | "NotOlderThan") {
                let why = not_supported(matching, &["Exact", "NotOlderThan", ""]);
                causes.push((MATCH.to_owned(), why));
            }
            if matching == "Exact" && self.resource_version.as_deref() == Some("0") {
                causes.push(forbidden(
                    r#"resourceVersionMatch "exact" is forbidden for resourceVersion "0""#,
                ));
            }
        }
        if self.send_initial_events.is_some() {
            let why = "Forbidden: sendInitialEvents is forbidden for list";
            causes.push(("sendInitialEvents".to_owned(), why.to_owned()));
        }
        causes
    }

    /// The causes of a create's, update's, patch's or delete's query options.
    fn write_option_causes(&self, verb: Verb, content_type: &str) -> Vec<(String, String)> {
        let dry_run: Vec<&str> = self.dry_run_values.iter().map(String::as_str).collect();
        if matches!(verb, Verb::Delete | Verb::DeleteCollection) {
            return delete_causes(
                self.orphan_dependents.is_some(),
                self.propagation_policy.as_deref(),
                &dry_run,
            );
        }
        let mut causes = Vec::new();
        if verb == Verb::Patch {
            if !content_type.starts_with(APPLY_PATCH) {
                if self.force_given {
                    causes.push((
                        "force".to_owned(),
                        "Forbidden: may not be specified for non-apply patch".to_owned(),
                    ));
                }
            } else if self.field_manager.is_none() {
                causes.push((
                    "fieldManager".to_owned(),
                    "Required value: is required for apply patch".to_owned(),
                ));
            }
        }
        causes.extend(field_manager_causes(self.field_manager.as_deref().unwrap_or_default()));
        causes.extend(dry_run_cause(&dry_run));
        if let Some(directive) = &self.field_validation
            && !matches!(directive.as_str(), "" | "Ignore" | "Warn" | "Strict")
        {
            let why = not_supported(directive, &["", "Ignore", "Strict", "Warn"]);
            causes.push(("fieldValidation".to_owned(), why));
        }
        causes
    }
}

impl DeleteOpts {
    /// `ValidateDeleteOptions` of a `DeleteOptions` body (the query's values are checked with
    /// the other options): `orphanDependents` and `propagationPolicy` not both, a policy it
    /// knows, `dryRun` only `All`; refused as kube-apiserver's delete handler refuses them,
    /// before anything is deleted.
    pub(crate) fn check_body(body: &Value) -> Result<(), ApiStatus> {
        // Decoded by the meta scheme (`metainternalversionscheme`), which knows no other kind:
        // its error is not a status, answered as a bare 500.
        let kind = body.get("kind").and_then(Value::as_str).unwrap_or_default();
        if !kind.is_empty() && kind != "DeleteOptions" {
            let version = body.get("apiVersion").and_then(Value::as_str).unwrap_or("v1");
            return Err(ApiStatus::new(
                500,
                "",
                format!(
                    "no kind {kind:?} is registered for version {version:?} in scheme \"k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme/register.go:27\""
                ),
            ));
        }
        let policy = body.get("propagationPolicy").filter(|p| !p.is_null());
        let orphan = body.get("orphanDependents").filter(|o| !o.is_null());
        let dry_run: Vec<&str> = body
            .get("dryRun")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let causes = delete_causes(orphan.is_some(), policy.and_then(Value::as_str), &dry_run);
        match causes.is_empty() {
            true => Ok(()),
            false => Err(ApiStatus::invalid_kind("DeleteOptions", "meta.k8s.io", "", &causes)),
        }
    }
}

/// `ValidateDeleteOptions`: the deprecated `orphanDependents` beside a policy, the policy,
/// then the dry run.
fn delete_causes(orphan_dependents: bool, policy: Option<&str>, dry_run: &[&str]) -> Vec<(String, String)> {
    let mut causes = Vec::new();
    if orphan_dependents && let Some(policy) = policy {
        let why = format!("Invalid value: {policy:?}: orphanDependents and deletionPropagation cannot be both set");
        causes.push(("propagationPolicy".to_owned(), why));
    }
    if let Some(policy) = policy
        && !matches!(policy, "Foreground" | "Background" | "Orphan")
    {
        let why = not_supported(policy, &["Foreground", "Background", "Orphan", "nil"]);
        causes.push(("propagationPolicy".to_owned(), why));
    }
    causes.extend(dry_run_cause(dry_run));
    causes
}

/// `ValidateFieldManager`: at most 128 bytes, every character printable.
fn field_manager_causes(manager: &str) -> Vec<(String, String)> {
    let mut causes = Vec::new();
    if manager.len() > FIELD_MANAGER_MAX_LENGTH {
        causes.push((
            "fieldManager".to_owned(),
            format!("Too long: must have at most {FIELD_MANAGER_MAX_LENGTH} bytes"),
        ));
    }
    for (position, character) in manager.char_indices() {
        if !is_print(character) {
            let why = format!(
                "Invalid value: {}: invalid character U+{:04X} (at position {position})",
                go_quote(manager),
                u32::from(character)
            );
            causes.push(("fieldManager".to_owned(), why));
        }
    }
    causes
}

/// Go's `unicode.IsPrint`: letters, marks, numbers, punctuation, symbols and the ASCII space;
/// not controls, format characters, other spaces, or private and unassigned code points.
fn is_print(character: char) -> bool {
    if character == ' ' {
        return true;
    }
    let format = matches!(
        u32::from(character),
        0xAD | 0x600..=0x605 | 0x61C | 0x6DD | 0x70F | 0x180E | 0x200B..=0x200F | 0x202A..=0x202E
            | 0x2060..=0x2064 | 0x2066..=0x206F | 0xFEFF | 0xFFF9..=0xFFFB
    );
    let private = matches!(u32::from(character), 0xE000..=0xF8FF | 0xF0000..=0x10FFFF);
    !character.is_control() && !character.is_whitespace() && !format && !private
}

/// `ValidateDryRun`: every value must be `All`; the cause names them all, as Go prints a
/// `[]string`.
fn dry_run_cause(values: &[&str]) -> Option<(String, String)> {
    values.iter().any(|v| *v != "All").then(|| {
        let quoted: Vec<String> = values.iter().map(|v| format!("{v:?}")).collect();
        let why = format!(
            "Unsupported value: []string{{{}}}: supported values: \"All\"",
            quoted.join(", ")
        );
        ("dryRun".to_owned(), why)
    })
}

/// A value outside `supported`, as Go's `field.NotSupported` words it.
fn not_supported(value: &str, supported: &[&str]) -> String {
    let quoted: Vec<String> = supported.iter().map(|value| format!("{value:?}")).collect();
    format!("Unsupported value: {value:?}: supported values: {}", quoted.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_manager_should_be_short_and_printable() {
        assert!(field_manager_causes("kubectl-client-side-apply").is_empty());
        assert!(field_manager_causes("héllo wörld").is_empty());
        let long = "a".repeat(129);
        assert_eq!(
            field_manager_causes(&long),
            vec![(
                "fieldManager".to_owned(),
                "Too long: must have at most 128 bytes".to_owned()
            )]
        );
        assert_eq!(
            field_manager_causes("tab\there"),
            vec![(
                "fieldManager".to_owned(),
                r#"Invalid value: "tab\there": invalid character U+0009 (at position 3)"#.to_owned()
            )]
        );
        assert_eq!(field_manager_causes("a\u{200b}b").len(), 1);
    }

    #[test]
    fn force_should_be_forbidden_outside_apply() {
        let query = Query {
            force_given: true,
            ..Query::default()
        };
        let causes = query.write_option_causes(Verb::Patch, "application/merge-patch+json");
        assert_eq!(causes[0].0, "force");
        assert!(
            query.write_option_causes(Verb::Patch, APPLY_PATCH)[0]
                .1
                .starts_with("Required value")
        );
    }
}
