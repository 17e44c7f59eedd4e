//! How a request's body is read before a verb sees it: the JSON it stands for, whatever media
//! type the client sent it in (`NegotiateInputSerializer` of the create, update and delete
//! handlers): a typed client's protobuf, YAML, JSON; anything else refused 415. A PATCH names
//! its patch type in the same header and checks it itself.

use bytes::Bytes;

use crate::http::protobuf;
use crate::semantics::yaml_body;
use crate::status::ApiStatus;
use crate::storage::resource::ResourceInfo;
use crate::storage::verb::Verb;

/// The body of a request for `info` as JSON, and the content type it now has.
pub(crate) fn read<'a>(
    info: &ResourceInfo,
    verb: Verb,
    body: &Bytes,
    content_type: &'a str,
) -> Result<(Bytes, &'a str), ApiStatus> {
    const JSON: &str = "application/json";
    if protobuf::is_protobuf(content_type) {
        return Ok((Bytes::from(protobuf::to_json(info, body)?), JSON));
    }
    let reads_body = match verb {
        Verb::Create | Verb::Update => true,
        Verb::Delete | Verb::DeleteCollection => !body.is_empty(),
        _ => false,
    };
    let media = content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    match media.as_str() {
        _ if !reads_body => Ok((body.clone(), content_type)),
        // No type is the serializers' first, JSON.
        "" | JSON => Ok((body.clone(), content_type)),
        yaml_body::MEDIA_TYPE => Ok((yaml_body::to_json(info, body)?, JSON)),
        _ => Err(ApiStatus::unsupported_media_type(&[
            JSON,
            yaml_body::MEDIA_TYPE,
            protobuf::MEDIA_TYPE,
        ])),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn configmaps() -> ResourceInfo {
        ResourceInfo::builtin("", "v1", "ConfigMap", "configmaps")
    }

    #[test]
    fn yaml_should_be_read_as_json_and_unknown_types_refused() {
        let yaml = Bytes::from_static(b"kind: ConfigMap\ndata:\n  a: \"1\"\n");
        let (json, content_type) = read(&configmaps(), Verb::Create, &yaml, "application/yaml; charset=utf-8").unwrap();
        assert_eq!(
            (&json[..], content_type),
            (&br#"{"data":{"a":"1"},"kind":"ConfigMap"}"#[..], "application/json")
        );
        let refused = read(&configmaps(), Verb::Update, &yaml, "text/plain").unwrap_err();
        assert_eq!(refused.code, 415);
        assert!(
            refused
                .message
                .ends_with("application/json, application/yaml, application/vnd.kubernetes.protobuf")
        );
        // A body-less delete and a patch are not read here.
        assert!(read(&configmaps(), Verb::Delete, &Bytes::new(), "text/plain").is_ok());
        assert!(read(&configmaps(), Verb::Patch, &yaml, "application/merge-patch+json").is_ok());
    }
}
