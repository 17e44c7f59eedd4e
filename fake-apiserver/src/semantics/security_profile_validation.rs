//! Seccomp and AppArmor profiles of pod and container security contexts, as
//! `pkg/apis/core/validation/validation.go` checks them: `validateSeccompProfileField` (with
//! `validateSeccompProfileType` and `validateLocalDescendingPath`, the same on 1.28 and 1.31)
//! and `ValidateAppArmorProfileField`, which 1.31 has for the fields 1.30 added.

use serde_json::Value;

use crate::semantics::field_error::{BadValue, FieldError, go_quote};
use crate::semantics::names::go_pointer;
use crate::semantics::volume_file_validation::local_descending_path_errors;
use crate::storage::object::present;

/// `validateSeccompProfileField` of the profile at `at`: a known type, and a relative path
/// without `..` exactly when the type is Localhost.
pub(crate) fn seccomp_errors(profile: Option<&Value>, at: &str) -> Vec<FieldError> {
    let Some(profile) = profile else { return Vec::new() };
    let mut errors = Vec::new();
    let kind = profile.get("type").and_then(Value::as_str).unwrap_or_default();
    errors.extend(type_errors(kind, at, "seccompProfile"));
    let local = present(profile, "localhostProfile");
    match (kind, local) {
        ("Localhost", None) => errors.push(FieldError::required(
            format!("{at}.localhostProfile"),
            "must be set when seccomp type is Localhost",
        )),
        ("Localhost", Some(path)) => {
            errors.extend(local_descending_path_errors(
                path.as_str().unwrap_or_default(),
                &format!("{at}.localhostProfile"),
            ));
        }
        (_, Some(_)) => {
            // Go shows the whole profile.
            let shown = format!(
                "core.SeccompProfile{{Type:{}, LocalhostProfile:{}}}",
                go_quote(kind),
                go_pointer("string", local)
            );
            errors.push(FieldError::invalid(
                format!("{at}.localhostProfile"),
                BadValue::Raw(shown),
                "can only be set when seccomp type is Localhost",
            ));
        }
        (_, None) => {}
    }
    errors
}

/// A profile's type, one of the three both kinds of profile know (`profile` names the field).
fn type_errors(kind: &str, at: &str, profile: &str) -> Option<FieldError> {
    if kind.is_empty() {
        let why = format!("type is required when {profile} is set");
        return Some(FieldError::required(format!("{at}.type"), why));
    }
    FieldError::unless_one_of(
        format!("{at}.type"),
        kind,
        &["Localhost", "RuntimeDefault", "Unconfined"],
    )
}

/// `ValidateAppArmorProfileField` (1.31) of the profile at `at`: a Localhost profile names an
/// unpadded profile of at most 4095 bytes, the other types none.
pub(crate) fn apparmor_errors(profile: Option<&Value>, at: &str) -> Vec<FieldError> {
    /// `PATH_MAX - 1`.
    const MAX_LOCALHOST_PROFILE: usize = 4095;
    let Some(profile) = profile else { return Vec::new() };
    let mut errors = Vec::new();
    let field = format!("{at}.localhostProfile");
    let local = present(profile, "localhostProfile").map(|p| p.as_str().unwrap_or_default());
    match profile.get("type").and_then(Value::as_str).unwrap_or_default() {
        "Localhost" => match local {
            None => errors.push(FieldError::required(
                &field,
                "must be set when AppArmor type is Localhost",
            )),
            Some(name) => {
                if name.trim() != name {
                    errors.push(FieldError::invalid(
                        &field,
                        name.into(),
                        "must not be padded with whitespace",
                    ));
                } else if name.is_empty() {
                    errors.push(FieldError::required(
                        &field,
                        "must be set when AppArmor type is Localhost",
                    ));
                }
                if name.len() > MAX_LOCALHOST_PROFILE {
                    errors.push(FieldError::too_long_max_length(
                        &field,
                        name.into(),
                        MAX_LOCALHOST_PROFILE as i64,
                    ));
                }
            }
        },
        "RuntimeDefault" | "Unconfined" => {
            if let Some(name) = local {
                errors.push(FieldError::invalid(
                    &field,
                    name.into(),
                    "can only be set when AppArmor type is Localhost",
                ));
            }
        }
        other => errors.extend(type_errors(other, at, "appArmorProfile")),
    }
    errors
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::semantics::field_error::rendered;

    #[test]
    fn seccomp_and_apparmor_profiles_should_name_a_local_file_only_when_localhost() {
        let seccomp = |profile: Value| rendered(seccomp_errors(Some(&profile), "s"));
        assert_eq!(
            seccomp(json!({"type": "Unconfined", "localhostProfile": "x.json"})),
            [
                r#"s.localhostProfile: Invalid value: core.SeccompProfile{Type:"Unconfined", LocalhostProfile:(*string)(0xc000000000)}: can only be set when seccomp type is Localhost"#
            ]
        );
        assert_eq!(
            seccomp(json!({"type": "Localhost", "localhostProfile": "/abs/../p.json"})),
            [
                r#"s.localhostProfile: Invalid value: "/abs/../p.json": must be a relative path"#,
                r#"s.localhostProfile: Invalid value: "/abs/../p.json": must not contain '..'"#,
            ]
        );
        assert_eq!(
            seccomp(json!({})),
            ["s.type: Required value: type is required when seccompProfile is set"]
        );
        assert_eq!(
            seccomp(json!({"type": "Nope"})),
            [r#"s.type: Unsupported value: "Nope": supported values: "Localhost", "RuntimeDefault", "Unconfined""#]
        );
        let apparmor = |profile: Value| rendered(apparmor_errors(Some(&profile), "a"));
        assert_eq!(
            apparmor(json!({"type": "Localhost", "localhostProfile": ""})),
            ["a.localhostProfile: Required value: must be set when AppArmor type is Localhost"]
        );
        assert_eq!(
            apparmor(json!({"type": "RuntimeDefault", "localhostProfile": "p"})),
            [r#"a.localhostProfile: Invalid value: "p": can only be set when AppArmor type is Localhost"#]
        );
        assert_eq!(
            apparmor(json!({"type": "Localhost", "localhostProfile": "p".repeat(4096)})),
            ["a.localhostProfile: Too long: may not be longer than 4095"]
        );
        assert_eq!(
            apparmor(json!({})),
            ["a.type: Required value: type is required when appArmorProfile is set"]
        );
    }
}
