//! What an applied configuration must be before server-side apply merges it, on an object or
//! its `/scale` alike: a map of the endpoint's type without managed fields
//! (`versionCheckManager`, `structuredMergeManager.Apply` in apimachinery's
//! `util/managedfields/internal`), named as the URL names it (`checkName`, endpoints/handlers/rest.go).

use serde_json::Value;

use crate::status::ApiStatus;

/// What kube-apiserver checks of every applied configuration first: that it is an object of the
/// endpoint's group, version and kind (its field manager's versionCheckManager refuses absent or
/// other ones), without managed fields.
pub(crate) fn check_applied(config: &Value, api_version: &str, kind: &str) -> Result<(), ApiStatus> {
    // The apply patcher decodes the body into a map (`yaml.Unmarshal` into an unstructured
    // object): anything else fails there, in encoding/json's words.
    let decoded_as = match config {
        // `null` leaves the map empty: no apiVersion nor kind then.
        Value::Object(_) | Value::Null => None,
        Value::Array(_) => Some("array"),
        Value::String(_) => Some("string"),
        Value::Number(_) => Some("number"),
        Value::Bool(_) => Some("bool"),
    };
    if let Some(json_kind) = decoded_as {
        return Err(ApiStatus::bad_request(format!(
            "error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {json_kind} into Go value of type map[string]interface {{}}"
        )));
    }
    let type_meta = |field| config.get(field).and_then(Value::as_str).unwrap_or_default();
    let (sent_version, sent_kind) = (type_meta("apiVersion"), type_meta("kind"));
    if sent_version != api_version || sent_kind != kind {
        let (group, version) = sent_version.rsplit_once('/').unwrap_or(("", sent_version));
        return Err(ApiStatus::bad_request(format!(
            "invalid object type: {group}/{version}, Kind={sent_kind}"
        )));
    }
    // The structured merge manager refuses a configuration that carries managed fields (an
    // empty list too; `null` is none) before it types or merges anything.
    if config.pointer("/metadata/managedFields").is_some_and(|m| !m.is_null()) {
        return Err(ApiStatus::bad_request("metadata.managedFields must be nil"));
    }
    Ok(())
}

/// `checkName`, which the patch handler runs on the object the apply produced, after the
/// field manager merged it (so a conflict is reported first): the name the configuration gave,
/// if any, must be the URL's.
pub(crate) fn check_name(config_name: &str, name: &str) -> Result<(), ApiStatus> {
    if !config_name.is_empty() && config_name != name {
        return Err(ApiStatus::bad_request(format!(
            "the name of the object ({config_name}) does not match the name on the URL ({name})"
        )));
    }
    Ok(())
}
