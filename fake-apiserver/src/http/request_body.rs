//! How a request's body is read before a verb sees it: the JSON it stands for, whatever media
//! type the client sent it in (`NegotiateInputSerializer` of the create, update and delete
//! handlers): a typed client's protobuf, YAML, JSON; anything else refused 415. A PATCH names
//! its patch type in the same header and checks it itself.

use bytes::Bytes;

use crate::http::protobuf;
use crate::semantics::{decoding, yaml_body};
use crate::status::ApiStatus;
use crate::storage::resource::ResourceInfo;
use crate::storage::verb::Verb;

/// A request's body as the handler of one resource (or subresource) reads it.
pub(crate) struct BodyFor<'a> {
    pub(crate) info: &'a ResourceInfo,
    pub(crate) verb: Verb,
    pub(crate) subresource: Option<&'a str>,
    /// `fieldValidation=Ignore`: the plain serializer decodes, not the strict one.
    pub(crate) lenient: bool,
}

const JSON: &str = "application/json";

/// `NegotiateInputSerializer` alone: a body the handler reads must come in a media type it has
/// a serializer for (415 otherwise). The create and update handlers ask before they decode
/// their options, and decode the body only after.
pub(crate) fn negotiate(body_for: &BodyFor<'_>, body: &Bytes, content_type: &str) -> Result<(), ApiStatus> {
    let media = content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    // No type is the serializers' first, JSON.
    let served = matches!(media.as_str(), "" | JSON | yaml_body::MEDIA_TYPE) || protobuf::is_protobuf(content_type);
    match served || !reads_body(body_for.verb, body) {
        true => Ok(()),
        false => Err(ApiStatus::unsupported_media_type(&[
            JSON,
            yaml_body::MEDIA_TYPE,
            protobuf::MEDIA_TYPE,
        ])),
    }
}

/// Whether the verb's handler reads the body at all: a delete only when one was sent.
fn reads_body(verb: Verb, body: &Bytes) -> bool {
    match verb {
        Verb::Create | Verb::Update => true,
        Verb::Delete | Verb::DeleteCollection => !body.is_empty(),
        _ => false,
    }
}

/// The body of a request for `info` as JSON, and the content type it now has.
pub(crate) fn read<'a>(
    body_for: &BodyFor<'_>,
    body: &Bytes,
    content_type: &'a str,
) -> Result<(Bytes, &'a str), ApiStatus> {
    negotiate(body_for, body, content_type)?;
    let info = body_for.info;
    if protobuf::is_protobuf(content_type) && !info.builtin {
        return custom_resource_protobuf(body_for, body, content_type);
    }
    if protobuf::is_protobuf(content_type) {
        return Ok((Bytes::from(protobuf::to_json(info, body)?), JSON));
    }
    let yaml = content_type
        .split(';')
        .next()
        .is_some_and(|media| media.trim().eq_ignore_ascii_case(yaml_body::MEDIA_TYPE));
    match reads_body(body_for.verb, body) && yaml {
        true => Ok((yaml_body::to_json(info, body)?, JSON)),
        false => Ok((body.clone(), content_type)),
    }
}

/// A custom resource's body sent as protobuf. The CRD handler offers protobuf, but its strict
/// decoder for objects wraps no protobuf serializer: with `fieldValidation` Warn (the default)
/// or Strict, `schemaCoercingDecoder.Decode` dereferences nil and the handler panics
/// (`customresource_handler.go`). With Ignore, and for `/scale` (the built-in codecs'), the
/// plain protobuf serializer finds no `k8s\0` prefix in what was sent: a 400 from
/// `transformDecodeError`; delete options decode with it too, but that error is a 500.
fn custom_resource_protobuf<'a>(
    body_for: &BodyFor<'_>,
    body: &Bytes,
    content_type: &'a str,
) -> Result<(Bytes, &'a str), ApiStatus> {
    // Go's `%v` of the prefix bytes.
    let no_prefix = || {
        let prefix: Vec<String> = protobuf::MAGIC.iter().map(u8::to_string).collect();
        format!(
            "provided data does not appear to be a protobuf message, expected prefix [{}]",
            prefix.join(" ")
        )
    };
    let prefixed = body.starts_with(protobuf::MAGIC);
    let scale = body_for.subresource == Some("scale");
    match body_for.verb {
        Verb::Create | Verb::Update if !scale && !body_for.lenient => Err(ApiStatus::handler_panicked(
            "a custom resource's protobuf body meets a strict decoder with no delegate",
        )),
        Verb::Create | Verb::Update if !prefixed => {
            let kind = if scale { "Scale" } else { body_for.info.kind.as_str() };
            Err(decoding::unrecognized_kind(kind, &no_prefix(), body))
        }
        // What a real protobuf object would decode to is not read here.
        Verb::Create | Verb::Update => Err(ApiStatus::unsupported_media_type(&[
            "application/json",
            yaml_body::MEDIA_TYPE,
        ])),
        // The error is no API status: no reason.
        Verb::Delete | Verb::DeleteCollection if !body.is_empty() && !prefixed => {
            Err(ApiStatus::new(500, "", no_prefix()))
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

    fn incoming(info: &ResourceInfo, verb: Verb) -> BodyFor<'_> {
        BodyFor {
            info,
            verb,
            subresource: None,
            lenient: false,
        }
    }

    #[test]
    fn yaml_should_be_read_as_json_and_unknown_types_refused() {
        let yaml = Bytes::from_static(b"kind: ConfigMap\ndata:\n  a: \"1\"\n");
        let (json, content_type) = read(
            &incoming(&configmaps(), Verb::Create),
            &yaml,
            "application/yaml; charset=utf-8",
        )
        .unwrap();
        assert_eq!(
            (&json[..], content_type),
            (&br#"{"data":{"a":"1"},"kind":"ConfigMap"}"#[..], "application/json")
        );
        let refused = read(&incoming(&configmaps(), Verb::Update), &yaml, "text/plain").unwrap_err();
        assert_eq!(refused.code, 415);
        assert!(
            refused
                .message
                .ends_with("application/json, application/yaml, application/vnd.kubernetes.protobuf")
        );
        // A body-less delete and a patch are not read here.
        assert!(read(&incoming(&configmaps(), Verb::Delete), &Bytes::new(), "text/plain").is_ok());
        assert!(
            read(
                &incoming(&configmaps(), Verb::Patch),
                &yaml,
                "application/merge-patch+json"
            )
            .is_ok()
        );
    }

    #[test]
    fn a_custom_resource_in_protobuf_should_be_answered_as_the_crd_handler_fails() {
        let mut widgets = ResourceInfo::builtin("example.com", "v1", "Widget", "widgets");
        widgets.builtin = false;
        let json = Bytes::from_static(br#"{"kind":"Widget"}"#);
        let protobuf = "application/vnd.kubernetes.protobuf";
        assert!(
            read(&incoming(&widgets, Verb::Create), &json, protobuf)
                .unwrap_err()
                .abort_connection
        );
        assert!(
            read(&incoming(&widgets, Verb::Update), &json, protobuf)
                .unwrap_err()
                .abort_connection
        );
        let lenient = BodyFor {
            lenient: true,
            ..incoming(&widgets, Verb::Create)
        };
        let refused = read(&lenient, &json, protobuf).unwrap_err();
        assert_eq!(refused.code, 400);
        assert!(refused.message.starts_with(
            "the object provided is unrecognized (must be of type Widget): provided data does not appear to be a protobuf message"
        ));
        let scale = BodyFor {
            subresource: Some("scale"),
            ..incoming(&widgets, Verb::Update)
        };
        assert!(
            read(&scale, &json, protobuf)
                .unwrap_err()
                .message
                .contains("(must be of type Scale)")
        );
        let delete = read(&incoming(&widgets, Verb::Delete), &json, protobuf).unwrap_err();
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
        assert!(read(&incoming(&widgets, Verb::Delete), &Bytes::new(), protobuf).is_ok());
    }
}
