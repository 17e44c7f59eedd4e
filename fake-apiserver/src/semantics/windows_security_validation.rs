//! The Windows side of pod and container security contexts, as
//! `pkg/apis/core/validation/validation.go` has it (the same on 1.28 and 1.31):
//! `validateWindowsSecurityContextOptions` (the GMSA credential spec's name and size, the
//! `DOMAIN\USER` form of `runAsUserName`) and `validateWindowsHostProcessPod` (host process
//! containers all or none, only on the host network, and only by cluster policy, which
//! kube-apiserver's `--allow-privileged` leaves off).

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::names;

/// `maxGMSACredentialSpecLengthInKiB`.
const MAX_CREDENTIAL_SPEC_KIB: usize = 64;
/// `maxRunAsUserNameDomainLength`.
const MAX_DOMAIN_LENGTH: usize = 256;
/// `maxRunAsUserNameUserLength`.
const MAX_USER_LENGTH: usize = 104;

fn regex(pattern: &str) -> Regex {
    Regex::new(pattern).expect("a Windows user name pattern")
}

/// `ctrlRegex`: control characters.
static CONTROL: LazyLock<Regex> = LazyLock::new(|| regex(r"[[:cntrl:]]+"));
/// `validNetBiosRegex`: 1 to 15 characters, no dot first, none of `\ / : * ? " < > |`.
static NET_BIOS: LazyLock<Regex> = LazyLock::new(|| regex(r#"^[^\\/:\*\?"<>|\.][^\\/:\*\?"<>|]{0,14}$"#));
/// `validWindowsUserDomainDNSRegex`: dot-separated labels of letters, digits and dashes.
static DNS_DOMAIN: LazyLock<Regex> = LazyLock::new(|| {
    let label = "[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?";
    regex(&format!(r"^{label}(?:\.{label})*$"))
});
/// `invalidUserNameCharsRegex`.
static INVALID_USER_CHARS: LazyLock<Regex> = LazyLock::new(|| regex(r#"["/\\:;|=,\+\*\?<>@\[\]]"#));
/// `invalidUserNameDotsSpacesRegex`.
static ONLY_DOTS_AND_SPACES: LazyLock<Regex> = LazyLock::new(|| regex(r"^[\. ]+$"));

/// `validateWindowsSecurityContextOptions` of the `windowsOptions` at `at`.
pub(crate) fn windows_options_errors(options: Option<&Value>, at: &str) -> Vec<FieldError> {
    let Some(options) = options else { return Vec::new() };
    let text = |key: &str| options.get(key).and_then(Value::as_str);
    let mut errors = Vec::new();
    if let Some(name) = text("gmsaCredentialSpecName") {
        for why in names::dns1123_subdomain_errors(name) {
            errors.push(FieldError::invalid(
                format!("{at}.gmsaCredentialSpecName"),
                name.into(),
                why,
            ));
        }
    }
    if let Some(spec) = text("gmsaCredentialSpec") {
        let why = if spec.is_empty() {
            Some("gmsaCredentialSpec cannot be an empty string".to_owned())
        } else if spec.len() > MAX_CREDENTIAL_SPEC_KIB * 1024 {
            Some(format!(
                "gmsaCredentialSpec size must be under {MAX_CREDENTIAL_SPEC_KIB} KiB"
            ))
        } else {
            None
        };
        if let Some(why) = why {
            errors.push(FieldError::invalid(
                format!("{at}.gmsaCredentialSpec"),
                spec.into(),
                why,
            ));
        }
    }
    if let Some(user_name) = text("runAsUserName") {
        let field = format!("{at}.runAsUserName");
        errors.extend(
            user_name_errors(user_name)
                .into_iter()
                .map(|why| FieldError::invalid(&field, user_name.into(), why)),
        );
    }
    errors
}

/// Why a `runAsUserName` (`USER` or `DOMAIN\USER`) is refused, in Go's order.
fn user_name_errors(user_name: &str) -> Vec<String> {
    if user_name.is_empty() {
        return vec!["runAsUserName cannot be an empty string".to_owned()];
    }
    if CONTROL.is_match(user_name) {
        return vec!["runAsUserName cannot contain control characters".to_owned()];
    }
    let parts: Vec<&str> = user_name.split('\\').collect();
    let (domain, user) = match parts.as_slice() {
        [user] => (None, *user),
        [domain, user] => (Some(*domain), *user),
        _ => return vec!["runAsUserName cannot contain more than one backslash".to_owned()],
    };
    let mut errors = Vec::new();
    let domain_text = domain.unwrap_or_default();
    if domain_text.len() >= MAX_DOMAIN_LENGTH {
        errors.push(format!(
            "runAsUserName's Domain length must be under {MAX_DOMAIN_LENGTH} characters"
        ));
    }
    if domain.is_some() && !(NET_BIOS.is_match(domain_text) || DNS_DOMAIN.is_match(domain_text)) {
        errors.push("runAsUserName's Domain doesn't match the NetBios nor the DNS format".to_owned());
    }
    if user.is_empty() {
        errors.push("runAsUserName's User cannot be empty".to_owned());
    } else if user.len() > MAX_USER_LENGTH {
        errors.push(format!(
            "runAsUserName's User length must not be longer than {MAX_USER_LENGTH} characters"
        ));
    }
    if ONLY_DOTS_AND_SPACES.is_match(user) {
        errors.push("runAsUserName's User cannot contain only periods or spaces".to_owned());
    }
    if INVALID_USER_CHARS.is_match(user) {
        errors.push(r#"runAsUserName's User cannot contain the following characters: "/\:;|=,+*?<>@[]"#.to_owned());
    }
    errors
}

/// `validateWindowsHostProcessPod` of the pod spec at `path`: a host process container's
/// setting agrees with the pod's, and then every container is one, on the host network.
pub(crate) fn host_process_errors(spec: &Value, path: &str) -> Vec<FieldError> {
    let host_process = |context: Option<&Value>| {
        context
            .and_then(|c| c.pointer("/windowsOptions/hostProcess"))
            .and_then(Value::as_bool)
    };
    let pod = host_process(spec.get("securityContext"));
    let mut errors = Vec::new();
    let (mut containers, mut host_processes) = (0, 0);
    // `VisitContainersWithPath`'s order.
    for list in ["initContainers", "containers", "ephemeralContainers"] {
        let items = spec.get(list).and_then(Value::as_array);
        for (i, container) in items.into_iter().flatten().enumerate() {
            containers += 1;
            let own = host_process(container.get("securityContext"));
            if let (Some(pod), Some(own)) = (pod, own)
                && pod != own
            {
                errors.push(FieldError::invalid(
                    format!("{path}.{list}[{i}].securityContext.windowsOptions.hostProcess"),
                    BadValue::Json(Value::Bool(own)),
                    format!("pod hostProcess value must be identical if both are specified, was {pod}"),
                ));
            }
            if own.or(pod) == Some(true) {
                host_processes += 1;
            }
        }
    }
    if host_processes == 0 {
        return errors;
    }
    if host_processes != containers {
        errors.push(FieldError::invalid(
            path,
            "".into(),
            "If pod contains any hostProcess containers then all containers must be HostProcess containers",
        ));
    }
    let host_network = spec.get("hostNetwork").and_then(Value::as_bool).unwrap_or_default();
    if !host_network {
        errors.push(FieldError::invalid(
            format!("{path}.hostNetwork"),
            BadValue::Json(Value::Bool(false)),
            "hostNetwork must be true if pod contains any hostProcess containers",
        ));
    }
    // `capabilities.Get().AllowPrivileged` is off.
    errors.push(FieldError::forbidden(
        path,
        "hostProcess containers are disallowed by cluster policy",
    ));
    errors
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::semantics::field_error::rendered;

    #[test]
    fn user_names_should_follow_the_domain_and_user_rules() {
        assert!(user_name_errors("DOMAIN\\user").is_empty());
        assert!(user_name_errors("example.com\\user").is_empty());
        assert_eq!(
            user_name_errors("a\\b\\c"),
            ["runAsUserName cannot contain more than one backslash"]
        );
        assert_eq!(
            user_name_errors("us\ter"),
            ["runAsUserName cannot contain control characters"]
        );
        assert_eq!(
            user_name_errors(".bad:domain\\..."),
            [
                "runAsUserName's Domain doesn't match the NetBios nor the DNS format",
                "runAsUserName's User cannot contain only periods or spaces",
            ]
        );
        assert_eq!(
            user_name_errors(&format!("{}\\u@x", "d".repeat(256))),
            [
                "runAsUserName's Domain length must be under 256 characters",
                "runAsUserName's Domain doesn't match the NetBios nor the DNS format",
                r#"runAsUserName's User cannot contain the following characters: "/\:;|=,+*?<>@[]"#,
            ]
        );
        assert_eq!(user_name_errors("dom\\"), ["runAsUserName's User cannot be empty"]);
        assert_eq!(
            user_name_errors(&"u".repeat(105)),
            ["runAsUserName's User length must not be longer than 104 characters"]
        );
    }

    #[test]
    fn options_should_name_a_credential_spec_and_a_user() {
        let options = json!({"gmsaCredentialSpecName": "Bad_Name", "gmsaCredentialSpec": "", "runAsUserName": ""});
        let errors = rendered(windows_options_errors(Some(&options), "w"));
        assert_eq!(errors.len(), 3);
        assert!(
            errors[0]
                .starts_with(r#"w.gmsaCredentialSpecName: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain"#)
        );
        assert_eq!(
            errors[1],
            r#"w.gmsaCredentialSpec: Invalid value: "": gmsaCredentialSpec cannot be an empty string"#
        );
        assert_eq!(
            errors[2],
            r#"w.runAsUserName: Invalid value: "": runAsUserName cannot be an empty string"#
        );
        let big = json!({"gmsaCredentialSpec": "x".repeat(64 * 1024 + 1)});
        assert!(
            rendered(windows_options_errors(Some(&big), "w"))[0]
                .ends_with("gmsaCredentialSpec size must be under 64 KiB")
        );
    }

    #[test]
    fn host_process_containers_should_be_all_or_none_on_the_host_network() {
        let spec = json!({
            "securityContext": {"windowsOptions": {"hostProcess": true}},
            "initContainers": [{"name": "i", "securityContext": {"windowsOptions": {"hostProcess": false}}}],
            "containers": [{"name": "c"}],
        });
        assert_eq!(
            rendered(host_process_errors(&spec, "spec")),
            [
                "spec.initContainers[0].securityContext.windowsOptions.hostProcess: Invalid value: false: pod hostProcess value must be identical if both are specified, was true",
                r#"spec: Invalid value: "": If pod contains any hostProcess containers then all containers must be HostProcess containers"#,
                "spec.hostNetwork: Invalid value: false: hostNetwork must be true if pod contains any hostProcess containers",
                "spec: Forbidden: hostProcess containers are disallowed by cluster policy",
            ]
        );
        assert!(host_process_errors(&json!({"containers": [{"name": "c"}]}), "spec").is_empty());
        let on_host = json!({"hostNetwork": true, "containers": [{"securityContext": {"windowsOptions": {"hostProcess": true}}}]});
        assert_eq!(
            rendered(host_process_errors(&on_host, "spec")),
            ["spec: Forbidden: hostProcess containers are disallowed by cluster policy"]
        );
    }
}
