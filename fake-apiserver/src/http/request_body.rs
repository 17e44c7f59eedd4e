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
    if protobuf::is_protobuf(content_type) && !info.builtin {
        return custom_resource_protobuf(verb, body, content_type);
    }
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

/// A custom resource's body sent as protobuf. The CRD handler offers protobuf, but its decoder
/// for objects wraps no protobuf decoder: `schemaCoercingDecoder.Decode` dereferences nil and
/// the handler panics (`customresource_handler.go`), while delete options decode with the plain
/// protobuf serializer, which finds no `k8s\0` prefix in what was sent (a 500, not a 400).
fn custom_resource_protobuf<'a>(
    verb: Verb,
    body: &Bytes,
    content_type: &'a str,
) -> Result<(Bytes, &'a str), ApiStatus> {
    match verb {
        Verb::Create | Verb::Update => Err(ApiStatus::handler_panicked(
            "a custom resource's protobuf body meets a decoder with no delegate",
        )),
        Verb::Delete | Verb::DeleteCollection if !body.is_empty() && !body.starts_with(protobuf::MAGIC) => {
            // Go's `%v` of the prefix bytes; the error is no API status, so no reason.
            let prefix: Vec<String> = protobuf::MAGIC.iter().map(u8::to_string).collect();
            Err(ApiStatus::new(
                500,
                "",
                format!(
                    "provided data does not appear to be a protobuf message, expected prefix [{}]",
                    prefix.join(" ")
                ),
            ))
        }
        _ => Ok((body.clone(), content_type)),
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

    #[test]
    fn a_custom_resource_in_protobuf_should_be_answered_as_the_crd_handler_fails() {
        let mut widgets = ResourceInfo::builtin("example.com", "v1", "Widget", "widgets");
        widgets.builtin = false;
        let json = Bytes::from_static(br#"{"kind":"Widget"}"#);
        let protobuf = "application/vnd.kubernetes.protobuf";
        assert!(
            read(&widgets, Verb::Create, &json, protobuf)
                .unwrap_err()
                .abort_connection
        );
        assert!(
            read(&widgets, Verb::Update, &json, protobuf)
                .unwrap_err()
                .abort_connection
        );
        let delete = read(&widgets, Verb::Delete, &json, protobuf).unwrap_err();
        assert_eq!(
            (
                delete.code,
                delete.reason.as_str(),
                delete.message.as_str(),
                delete.abort_connection
            ),
            (
                500,
                "",
                "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]",
                false
            )
        );
        assert!(read(&widgets, Verb::Delete, &Bytes::new(), protobuf).is_ok());
    }
}
