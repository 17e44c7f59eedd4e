//! Request bodies sent as YAML, read as kube-apiserver's YAML serializer reads them
//! (`apimachinery/pkg/runtime/serializer/json/json.go` with `Yaml: true`): the document is
//! turned into JSON first (`sigs.k8s.io/yaml.YAMLToJSON`, go-yaml v2's YAML 1.1, where `y`,
//! `yes` and `on` are booleans) and then decoded exactly as a JSON body is.

use bytes::Bytes;
use serde_json::Value;

use crate::semantics::decoding;
use crate::status::ApiStatus;
use crate::storage::resource::ResourceInfo;

/// The media type of a YAML body.
pub(crate) const MEDIA_TYPE: &str = "application/yaml";

/// The JSON a YAML body of an object of `info`'s stands for; a document that does not parse is
/// refused as the handlers refuse a body they cannot recognise (the parser's words are
/// saphyr's, not go-yaml's).
pub(crate) fn to_json(info: &ResourceInfo, yaml: &Bytes) -> Result<Bytes, ApiStatus> {
    let value = parse(yaml)
        .map_err(|why| decoding::unrecognized(info, &format!("yaml: {}", first_line(&why.to_string())), yaml))?;
    Ok(Bytes::from(serde_json::to_vec(&value).unwrap_or_default()))
}

/// A YAML document read as `sigs.k8s.io/yaml` reads it with go-yaml v2, for a body and for an
/// apply configuration alike.
pub(crate) fn parse(yaml: &[u8]) -> Result<Value, serde_saphyr::Error> {
    // go-yaml v2 keeps the last of duplicate keys (`YAMLToJSON` is not strict even for a
    // strict request); so does saphyr, told to.
    let options = serde_saphyr::options! {
        duplicate_keys: serde_saphyr::options::DuplicateKeyPolicy::LastWins,
        // YAML 1.1's octal: `defaultMode: 0644` is 420.
        legacy_octal_numbers: true,
    };
    serde_saphyr::from_slice_with_options(yaml, options)
}

/// The first line of a parser's message (saphyr adds a snippet of the document below it).
fn first_line(message: &str) -> &str {
    message.lines().next().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn configmaps() -> ResourceInfo {
        ResourceInfo::builtin("", "v1", "ConfigMap", "configmaps")
    }

    #[test]
    fn yaml_should_read_as_yaml_1_1() {
        let body = Bytes::from_static(
            b"apiVersion: v1\nkind: ConfigMap\ndata:\n  a: y\n  b: \"80\"\n  c: 80\n  c: 81\n  d: 0644\n",
        );
        let json: Value = serde_json::from_slice(&to_json(&configmaps(), &body).unwrap()).unwrap();
        assert_eq!(json["data"], json!({"a": true, "b": "80", "c": 81, "d": 420}));
    }

    #[test]
    fn a_document_that_does_not_parse_should_be_unrecognized() {
        let body = Bytes::from_static(b"metadata:\n  name: [unclosed\n");
        let refused = to_json(&configmaps(), &body).unwrap_err();
        assert_eq!(refused.code, 400);
        assert!(
            refused
                .message
                .starts_with("the object provided is unrecognized (must be of type ConfigMap): yaml: "),
            "{}",
            refused.message
        );
        // Not JSON: the body is summarised in hex.
        assert!(
            refused
                .message
                .ends_with("(6d657461646174613a0a20206e616d653a205b756e636c6f7365640a)")
        );
    }
}
