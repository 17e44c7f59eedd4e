//! Validation of ConfigMaps and Secrets as kube-apiserver's
//! `pkg/apis/core/validation/validation.go` has it: `ValidateConfigMap`,
//! `ValidateConfigMapUpdate`, `ValidateSecret` and `ValidateSecretUpdate`, less the object
//! metadata checked for every kind. Their strategies (`pkg/registry/core/{configmap,secret}`)
//! run the update checks and then the create checks on the new object, and reset nothing that
//! matters here: a Secret's empty type is taken from the stored one, but the v1 defaults have
//! already made it `Opaque`, so changing a typed secret by leaving the type out is refused.
//!
//! Go walks `data` and `binaryData` as maps, so the order of its causes is random; these
//! follow the JSON order (the causes are compared as a set, the message loosely).

use base64::Engine as _;
use serde_json::{Map, Value};

use crate::semantics::field_error::{BadValue, ErrorType, FieldError};
use crate::semantics::go_json;

/// `core.MaxSecretSize`: the bytes of all of a Secret's (or ConfigMap's) values together.
pub(crate) const MAX_SECRET_SIZE: usize = 1024 * 1024;

/// `validation.DNS1123SubdomainMaxLength`, the longest config key.
const MAX_KEY_LENGTH: usize = 253;

const CONFIG_KEY: &str = "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

/// What `ValidateImmutableField`-like checks of an `immutable` object say.
const FROZEN: &str = "field is immutable when `immutable` is set";

/// Secret types with rules of their own (`core.SecretType*`) and the keys they need.
const SERVICE_ACCOUNT_TOKEN: &str = "kubernetes.io/service-account-token";
const SERVICE_ACCOUNT_NAME_KEY: &str = "kubernetes.io/service-account.name";
const DOCKERCFG: &str = "kubernetes.io/dockercfg";
const DOCKERCFG_KEY: &str = ".dockercfg";
const DOCKER_CONFIG_JSON: &str = "kubernetes.io/dockerconfigjson";
const DOCKER_CONFIG_JSON_KEY: &str = ".dockerconfigjson";
const BASIC_AUTH: &str = "kubernetes.io/basic-auth";
const SSH_AUTH: &str = "kubernetes.io/ssh-auth";
const TLS: &str = "kubernetes.io/tls";

/// Why `key` may not name a ConfigMap's or Secret's entry (`validation.IsConfigMapKey`): too
/// long, outside `[-._a-zA-Z0-9]+`, or a path to a parent directory (a key becomes a file name
/// when the object is mounted).
pub(crate) fn config_key_errors(key: &str) -> Vec<String> {
    let mut errors = Vec::new();
    if key.len() > MAX_KEY_LENGTH {
        errors.push(format!("must be no more than {MAX_KEY_LENGTH} characters"));
    }
    let allowed = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_');
    if key.is_empty() || !key.bytes().all(allowed) {
        errors.push(CONFIG_KEY.to_owned());
    }
    if key == "." {
        errors.push("must not be '.'".to_owned());
    } else if key == ".." {
        errors.push("must not be '..'".to_owned());
    } else if key.starts_with("..") {
        errors.push("must not start with '..'".to_owned());
    }
    errors
}

/// `ValidateConfigMap`: every key a config key, no key in both `data` and `binaryData`, and
/// all values together at most 1 MiB.
pub(crate) fn config_map_errors(config_map: &Value) -> Vec<FieldError> {
    let empty = Map::new();
    let data = entries(config_map, "data").unwrap_or(&empty);
    let binary = entries(config_map, "binaryData").unwrap_or(&empty);
    let mut errors = Vec::new();
    let mut total = 0;
    for (key, value) in data {
        let field = format!("data[{key}]");
        for why in config_key_errors(key) {
            errors.push(FieldError::invalid(field.clone(), key.as_str().into(), why));
        }
        if binary.contains_key(key) {
            let why = "duplicate of key present in binaryData";
            errors.push(FieldError::invalid(field, key.as_str().into(), why));
        }
        total += value.as_str().map_or(0, str::len);
    }
    for (key, value) in binary {
        for why in config_key_errors(key) {
            errors.push(FieldError::invalid(
                format!("binaryData[{key}]"),
                key.as_str().into(),
                why,
            ));
        }
        total += decoded(value).len();
    }
    if total > MAX_SECRET_SIZE {
        // Go names the whole object with an empty path (`field.NewPath("")`).
        errors.push(too_long("", MAX_SECRET_SIZE));
    }
    errors
}

/// `ValidateConfigMapUpdate`: an `immutable` ConfigMap stays immutable and keeps its data;
/// then the new object is validated as a new one.
pub(crate) fn config_map_update_errors(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errors = frozen_errors(new, old, &["data", "binaryData"]);
    errors.extend(config_map_errors(new));
    errors
}

/// `ValidateSecret`: every key a config key, all values together at most 1 MiB, and the keys
/// (or annotation) the secret's type requires.
pub(crate) fn secret_errors(secret: &Value) -> Vec<FieldError> {
    let empty = Map::new();
    let data = entries(secret, "data").unwrap_or(&empty);
    let mut errors = Vec::new();
    let mut total = 0;
    for (key, value) in data {
        for why in config_key_errors(key) {
            errors.push(FieldError::invalid(format!("data[{key}]"), key.as_str().into(), why));
        }
        total += decoded(value).len();
    }
    if total > MAX_SECRET_SIZE {
        errors.push(too_long("data", MAX_SECRET_SIZE));
    }
    let value_of = |key: &str| data.get(key).map(decoded);
    let required = |key: &str| FieldError::required(format!("data[{key}]"), "");
    match secret.get("type").and_then(Value::as_str).unwrap_or_default() {
        SERVICE_ACCOUNT_TOKEN => {
            // Only the account's name: its uid and the token are the token controller's to add.
            let name = secret
                .pointer("/metadata/annotations")
                .and_then(|a| a.get(SERVICE_ACCOUNT_NAME_KEY))
                .and_then(Value::as_str)
                .unwrap_or_default();
            if name.is_empty() {
                let field = format!("metadata.annotations[{SERVICE_ACCOUNT_NAME_KEY}]");
                errors.push(FieldError::required(field, ""));
            }
        }
        kind @ (DOCKERCFG | DOCKER_CONFIG_JSON) => {
            let key = if kind == DOCKERCFG {
                DOCKERCFG_KEY
            } else {
                DOCKER_CONFIG_JSON_KEY
            };
            match value_of(key) {
                None => errors.push(required(key)),
                Some(bytes) => {
                    if let Some(why) = json_object_error(&bytes) {
                        // The contents are secret: the message shows a placeholder instead.
                        let shown = BadValue::from("<secret contents redacted>");
                        errors.push(FieldError::invalid(format!("data[{key}]"), shown, why));
                    }
                }
            }
        }
        // Either may be empty, but one of them must be there.
        BASIC_AUTH if value_of("username").is_none() && value_of("password").is_none() => {
            errors.push(required("username"));
            errors.push(required("password"));
        }
        // An empty private key is as good as none.
        SSH_AUTH if value_of("ssh-privatekey").is_none_or(|key| key.is_empty()) => {
            errors.push(required("ssh-privatekey"));
        }
        TLS => {
            for key in ["tls.crt", "tls.key"] {
                if value_of(key).is_none() {
                    errors.push(required(key));
                }
            }
        }
        // Opaque, empty and any other type (and the rules above when kept): nothing.
        _ => {}
    }
    errors
}

/// `ValidateSecretUpdate`: the type never changes, an `immutable` Secret stays immutable and
/// keeps its data (`stringData` is already merged into it); then the new object is validated
/// as a new one.
pub(crate) fn secret_update_errors(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let type_of = |secret: &Value| {
        secret
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let new_type = type_of(new);
    if new_type != type_of(old) {
        errors.push(FieldError::invalid(
            "type",
            BadValue::Str(new_type),
            "field is immutable",
        ));
    }
    errors.extend(frozen_errors(new, old, &["data"]));
    errors.extend(secret_errors(new));
    errors
}

/// An `immutable` object's refusals: `immutable` may not be unset, nor any of `fields`
/// changed (`reflect.DeepEqual` of the maps).
fn frozen_errors(new: &Value, old: &Value, fields: &[&str]) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if old.get("immutable") != Some(&Value::Bool(true)) {
        return errors;
    }
    if new.get("immutable") != Some(&Value::Bool(true)) {
        errors.push(FieldError::forbidden("immutable", FROZEN));
    }
    for field in fields {
        // An empty map and none are the same here: kube-apiserver v1.28.7 accepts `data: {}`
        // for a frozen ConfigMap without data, and leaving out an empty `data` (observed).
        let (now, before) = (entries(new, field), entries(old, field));
        if now.filter(|m| !m.is_empty()) != before.filter(|m| !m.is_empty()) {
            errors.push(FieldError::forbidden(*field, FROZEN));
        }
    }
    errors
}

/// The map at `field`, if the object has one (absent and `null` are Go's nil map).
fn entries<'a>(object: &'a Value, field: &str) -> Option<&'a Map<String, Value>> {
    object.get(field).and_then(Value::as_object)
}

/// The bytes of a base64 value (the decoder refused values that are not base64).
fn decoded(value: &Value) -> Vec<u8> {
    let text = value.as_str().unwrap_or_default();
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .unwrap_or_else(|_| text.as_bytes().to_vec())
}

/// `field.TooLong`: the whole value is left out of the message, only the limit shown.
pub(crate) fn too_long(field: &str, max: usize) -> FieldError {
    FieldError {
        kind: ErrorType::TooLong,
        field: field.to_owned(),
        value: BadValue::Omit,
        detail: format!("must have at most {max} bytes"),
    }
}

/// What `json.Unmarshal` into a `map[string]interface{}` says of `bytes`: a syntax error, or
/// a top-level value that is not an object (`null` is fine: it leaves the map nil).
fn json_object_error(bytes: &[u8]) -> Option<String> {
    if let Some(syntax) = go_json::syntax_error(bytes) {
        return Some(syntax);
    }
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace())?;
    let found = match first {
        b'{' | b'n' => return None,
        b'[' => "array",
        b'"' => "string",
        b't' | b'f' => "bool",
        _ => "number",
    };
    Some(format!(
        "json: cannot unmarshal {found} into Go value of type map[string]interface {{}}"
    ))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    use crate::semantics::field_error::rendered as fields;

    #[test]
    fn config_keys_follow_is_config_map_key() {
        assert!(config_key_errors("a.b_C-9").is_empty());
        assert_eq!(config_key_errors("..x"), vec!["must not start with '..'"]);
        assert_eq!(config_key_errors("."), vec!["must not be '.'"]);
        assert_eq!(config_key_errors("a b"), vec![CONFIG_KEY]);
        assert_eq!(config_key_errors(""), vec![CONFIG_KEY]);
        let long = "k".repeat(254);
        assert_eq!(config_key_errors(&long), vec!["must be no more than 253 characters"]);
    }

    #[test]
    fn a_config_map_key_in_both_maps_is_refused_once_under_data() {
        let cm = json!({"data": {"k": "v"}, "binaryData": {"k": "AAEC", "o": "AAEC"}});
        assert_eq!(
            fields(config_map_errors(&cm)),
            vec![r#"data[k]: Invalid value: "k": duplicate of key present in binaryData"#]
        );
    }

    #[test]
    fn sizes_count_decoded_bytes_up_to_one_mebibyte() {
        let exactly = "a".repeat(MAX_SECRET_SIZE);
        assert!(config_map_errors(&json!({"data": {"k": exactly}})).is_empty());
        let over = json!({"data": {"k": exactly, "l": "b"}});
        assert_eq!(
            fields(config_map_errors(&over)),
            vec![": Too long: must have at most 1048576 bytes"]
        );
        // 4 base64 characters are 3 bytes: 1 MiB + 3 bytes of base64-encoded data is too much,
        // though its text would be more than 1 MiB anyway; 3/4 of it is not.
        let encoded = base64::engine::general_purpose::STANDARD.encode(vec![0u8; MAX_SECRET_SIZE]);
        assert!(secret_errors(&json!({"data": {"k": encoded}})).is_empty());
        let encoded = base64::engine::general_purpose::STANDARD.encode(vec![0u8; MAX_SECRET_SIZE + 1]);
        assert_eq!(
            fields(secret_errors(&json!({"data": {"k": encoded}}))),
            vec!["data: Too long: must have at most 1048576 bytes"]
        );
    }

    #[test]
    fn secret_types_require_their_keys() {
        let secret = |kind: &str, data: Value| json!({"type": kind, "data": data});
        let tls = secret_errors(&secret(TLS, json!({"tls.crt": ""})));
        assert_eq!(fields(&tls), vec!["data[tls.key]: Required value"]);
        let basic = secret_errors(&secret(BASIC_AUTH, json!({"password": ""})));
        assert!(basic.is_empty());
        let basic = secret_errors(&secret(BASIC_AUTH, json!({})));
        assert_eq!(basic.len(), 2);
        // An empty private key is as good as none.
        let ssh = secret_errors(&secret(SSH_AUTH, json!({"ssh-privatekey": ""})));
        assert_eq!(fields(&ssh), vec!["data[ssh-privatekey]: Required value"]);
        let token = secret_errors(&json!({"type": SERVICE_ACCOUNT_TOKEN, "metadata": {"annotations": {}}}));
        assert_eq!(
            fields(&token),
            vec!["metadata.annotations[kubernetes.io/service-account.name]: Required value"]
        );
        assert!(secret_errors(&secret("example.com/any", json!({"x": ""}))).is_empty());
    }

    #[test]
    fn docker_configs_must_be_json_objects() {
        let encode = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
        let config = |text: &str| json!({"type": DOCKER_CONFIG_JSON, "data": {".dockerconfigjson": encode(text)}});
        assert!(secret_errors(&config(r#"{"auths": {}}"#)).is_empty());
        assert!(secret_errors(&config("null")).is_empty());
        assert_eq!(
            fields(secret_errors(&config("[]"))),
            vec![
                r#"data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": json: cannot unmarshal array into Go value of type map[string]interface {}"#
            ]
        );
        let truncated = secret_errors(&config("{"));
        assert_eq!(truncated[0].detail, "unexpected end of JSON input");
        let dockercfg = json!({"type": DOCKERCFG, "data": {}});
        assert_eq!(
            fields(secret_errors(&dockercfg)),
            vec!["data[.dockercfg]: Required value"]
        );
    }

    #[test]
    fn updates_keep_the_type_and_frozen_data() {
        let old = json!({"type": "Opaque", "immutable": true, "data": {"k": "dg=="}});
        assert!(secret_update_errors(&old, &old).is_empty());
        let new = json!({"type": TLS, "data": {"k": "dg=="}});
        assert_eq!(
            fields(secret_update_errors(&new, &old)),
            vec![
                r#"type: Invalid value: "kubernetes.io/tls": field is immutable"#,
                "immutable: Forbidden: field is immutable when `immutable` is set",
                "data[tls.crt]: Required value",
                "data[tls.key]: Required value",
            ]
        );
        // A mutable object may change anything but its type, and become immutable.
        let mutable = json!({"data": {"a": "x"}});
        let frozen = json!({"immutable": true, "binaryData": {"b": "AAEC"}});
        assert!(config_map_update_errors(&frozen, &mutable).is_empty());
        // An empty map is no map.
        let stored = json!({"immutable": true});
        let sent = json!({"immutable": true, "data": {}});
        assert!(config_map_update_errors(&sent, &stored).is_empty());
        assert!(config_map_update_errors(&stored, &sent).is_empty());
        let changed = json!({"immutable": true, "data": {"k": ""}});
        assert_eq!(
            fields(config_map_update_errors(&changed, &stored)),
            vec!["data: Forbidden: field is immutable when `immutable` is set"]
        );
    }
}
