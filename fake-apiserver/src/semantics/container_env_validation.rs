//! A container's environment as `pkg/apis/core/validation/validation.go` checks it: `ValidateEnv`
//! with `validateEnvVarValueFrom` (one source per variable, none beside a literal `value`; the
//! downward API's field and resource selectors, the ConfigMap and Secret key selectors) and
//! `ValidateEnvFrom` (a prefix that is a variable name, one ConfigMap or Secret per entry).

use serde_json::Value;

use crate::semantics::config_validation::config_key_errors;
use crate::semantics::field_error::FieldError;
use crate::semantics::names;
use crate::semantics::volume_file_validation::{object_field_selector_errors, resource_field_selector_errors};
use crate::storage::object::present;

/// `validation.IsEnvVarName`'s message.
const ENV_VAR_NAME: &str = "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')";

/// `validEnvDownwardAPIFieldPathExpressions`, sorted as Go's `sets.List` prints them.
const ENV_FIELD_PATHS: [&str; 9] = [
    "metadata.name",
    "metadata.namespace",
    "metadata.uid",
    "spec.nodeName",
    "spec.serviceAccountName",
    "status.hostIP",
    "status.hostIPs",
    "status.podIP",
    "status.podIPs",
];

/// `ValidateEnv` and `ValidateEnvFrom` of `container` at `at` (`spec.containers[0]`), on the
/// Kubernetes `minor`.
pub(crate) fn env_errors(container: &Value, at: &str, minor: u32) -> Vec<FieldError> {
    let mut errors = Vec::new();
    for (i, var) in entries(container, "env") {
        let item = format!("{at}.env[{i}]");
        let name = text(var, "name");
        if name.is_empty() {
            errors.push(FieldError::required(format!("{item}.name"), ""));
        } else if !is_env_var_name(name) {
            errors.push(FieldError::invalid(format!("{item}.name"), name.into(), ENV_VAR_NAME));
        }
        errors.extend(value_from_errors(var, &format!("{item}.valueFrom"), minor));
    }
    let list = format!("{at}.envFrom");
    for (i, source) in entries(container, "envFrom") {
        let item = format!("{list}[{i}]");
        let prefix = text(source, "prefix");
        if !prefix.is_empty() && !is_env_var_name(prefix) {
            errors.push(FieldError::invalid(
                format!("{item}.prefix"),
                prefix.into(),
                ENV_VAR_NAME,
            ));
        }
        let mut sources = 0;
        for key in ["configMapRef", "secretRef"] {
            if let Some(reference) = present(source, key) {
                sources += 1;
                errors.extend(reference_name_errors(reference, &format!("{item}.{key}")));
            }
        }
        // Go reports these on the list, not the entry.
        match sources {
            0 => errors.push(FieldError::invalid(
                &list,
                "".into(),
                "must specify one of: `configMapRef` or `secretRef`",
            )),
            1 => {}
            _ => errors.push(FieldError::invalid(
                &list,
                "".into(),
                "may not have more than one field specified at a time",
            )),
        }
    }
    errors
}

/// `validateEnvVarValueFrom` of `var` at `at` (`….env[0].valueFrom`).
fn value_from_errors(var: &Value, at: &str, minor: u32) -> Vec<FieldError> {
    let Some(from) = present(var, "valueFrom") else {
        return Vec::new();
    };
    let mut errors = Vec::new();
    let mut sources = 0;
    if let Some(selector) = present(from, "fieldRef") {
        sources += 1;
        let field = format!("{at}.fieldRef");
        errors.extend(object_field_selector_errors(selector, &ENV_FIELD_PATHS, &field));
        // `validateDownwardAPIHostIPs`: the PodHostIPs gate is on from 1.29.
        if minor < 29 && text(selector, "fieldPath") == "status.hostIPs" {
            errors.push(FieldError::forbidden(
                field,
                "may not be set when feature gate 'PodHostIPs' is not enabled",
            ));
        }
    }
    if let Some(selector) = present(from, "resourceFieldRef") {
        sources += 1;
        errors.extend(resource_field_selector_errors(
            selector,
            &format!("{at}.resourceFieldRef"),
            false,
        ));
    }
    for key in ["configMapKeyRef", "secretKeyRef"] {
        if let Some(selector) = present(from, key) {
            sources += 1;
            errors.extend(key_selector_errors(selector, &format!("{at}.{key}")));
        }
    }
    if sources == 0 {
        errors.push(FieldError::invalid(
            at,
            "".into(),
            "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`",
        ));
    } else if !text(var, "value").is_empty() {
        errors.push(FieldError::invalid(
            at,
            "".into(),
            "may not be specified when `value` is not empty",
        ));
    } else if sources > 1 {
        errors.push(FieldError::invalid(
            at,
            "".into(),
            "may not have more than one field specified at a time",
        ));
    }
    errors
}

/// `validateConfigMapKeySelector` and `validateSecretKeySelector`: a name that is a DNS
/// subdomain (an empty one too: Go checks it unconditionally), and a key that is a config key.
fn key_selector_errors(selector: &Value, at: &str) -> Vec<FieldError> {
    let name = text(selector, "name");
    let mut errors: Vec<FieldError> = names::dns1123_subdomain_errors(name)
        .into_iter()
        .map(|why| FieldError::invalid(format!("{at}.name"), name.into(), why))
        .collect();
    let key = text(selector, "key");
    if key.is_empty() {
        errors.push(FieldError::required(format!("{at}.key"), ""));
    } else {
        errors.extend(
            config_key_errors(key)
                .into_iter()
                .map(|why| FieldError::invalid(format!("{at}.key"), key.into(), why)),
        );
    }
    errors
}

/// `validateConfigMapEnvSource` and `validateSecretEnvSource`: a required DNS subdomain name.
fn reference_name_errors(reference: &Value, at: &str) -> Vec<FieldError> {
    let name = text(reference, "name");
    if name.is_empty() {
        return vec![FieldError::required(format!("{at}.name"), "")];
    }
    names::dns1123_subdomain_errors(name)
        .into_iter()
        .map(|why| FieldError::invalid(format!("{at}.name"), name.into(), why))
        .collect()
}

/// `validation.IsEnvVarName`: `[-._a-zA-Z][-._a-zA-Z0-9]*`.
fn is_env_var_name(name: &str) -> bool {
    let allowed = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_');
    !name.is_empty() && name.bytes().all(allowed) && !name.starts_with(|c: char| c.is_ascii_digit())
}

/// The entries of the list `key` of `value`, numbered.
fn entries<'v>(value: &'v Value, key: &str) -> impl Iterator<Item = (usize, &'v Value)> {
    value
        .get(key)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
}

fn text<'v>(value: &'v Value, key: &str) -> &'v str {
    value.get(key).and_then(Value::as_str).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::semantics::field_error::rendered;

    fn errors(container: Value, minor: u32) -> Vec<String> {
        rendered(env_errors(&container, "c", minor))
    }

    #[test]
    fn a_variable_should_take_one_source_and_no_literal_beside_it() {
        let field = json!({"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}});
        assert!(errors(json!({"env": [{"name": "A", "valueFrom": field}]}), 28).is_empty());
        assert_eq!(
            errors(json!({"env": [{"name": "A", "value": "x", "valueFrom": field}]}), 28),
            ["c.env[0].valueFrom: Invalid value: \"\": may not be specified when `value` is not empty"]
        );
        let two = json!({"fieldRef": field["fieldRef"], "secretKeyRef": {"name": "s", "key": "k"}});
        assert_eq!(
            errors(json!({"env": [{"name": "A", "valueFrom": two}]}), 28),
            ["c.env[0].valueFrom: Invalid value: \"\": may not have more than one field specified at a time"]
        );
        assert_eq!(
            errors(json!({"env": [{"name": "A", "valueFrom": {}}]}), 28),
            [
                "c.env[0].valueFrom: Invalid value: \"\": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`"
            ]
        );
    }

    #[test]
    fn selectors_should_be_checked_as_the_downward_api_and_key_refs_are() {
        let env = json!({"env": [
            {"name": "B", "valueFrom": {"configMapKeyRef": {"name": "cfg", "key": ""}}},
            {"name": "C", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "spec.nope"}}},
            {"name": "D", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "status.hostIPs"}}},
        ]});
        let found = errors(env.clone(), 28);
        assert_eq!(found[0], "c.env[0].valueFrom.configMapKeyRef.key: Required value");
        assert_eq!(
            found[1],
            "c.env[1].valueFrom.fieldRef.fieldPath: Invalid value: \"spec.nope\": error converting fieldPath: field label not supported: spec.nope"
        );
        assert_eq!(
            found[2],
            "c.env[2].valueFrom.fieldRef: Forbidden: may not be set when feature gate 'PodHostIPs' is not enabled"
        );
        assert_eq!(errors(env, 31).len(), 2);
        let unnamed = json!({"env": [{"name": "E", "valueFrom": {"secretKeyRef": {"key": "k"}}}]});
        assert!(
            errors(unnamed, 28)[0].starts_with(
                "c.env[0].valueFrom.secretKeyRef.name: Invalid value: \"\": a lowercase RFC 1123 subdomain"
            )
        );
    }

    #[test]
    fn env_from_should_name_one_source_with_a_valid_prefix() {
        let found = errors(
            json!({"envFrom": [{"prefix": "1x"}, {"configMapRef": {"name": "Bad_Name"}}]}),
            28,
        );
        assert_eq!(
            found[0],
            format!("c.envFrom[0].prefix: Invalid value: \"1x\": {ENV_VAR_NAME}")
        );
        assert_eq!(
            found[1],
            "c.envFrom: Invalid value: \"\": must specify one of: `configMapRef` or `secretRef`"
        );
        assert!(found[2].starts_with("c.envFrom[1].configMapRef.name: Invalid value: \"Bad_Name\""));
    }
}
