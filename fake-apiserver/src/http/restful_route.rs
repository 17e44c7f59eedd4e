//! What go-restful checks of a request for a built-in resource before kube-apiserver's own
//! handler sees it (`emicklei/go-restful/v3/jsr311.go`, `detectRoute`; the routes' media types
//! from `apiserver/pkg/endpoints/installer.go`): a route consumes anything (`ws.Consumes("*/*")`)
//! but a PATCH route, which consumes the four patch types alone, and produces only its
//! serializers' media types. A body of another type finds no route (415), and so does an
//! `Accept` header naming none of the produced types exactly (nor `*/*`): 406, both worded by
//! go-restful and wrapped in a `Status` by the server's `serviceErrorHandler`. Custom resources
//! are served past go-restful (the CRD handler), and negotiate in `render` alone.

use crate::status::ApiStatus;
use crate::storage::resource::ResourceInfo;
use crate::storage::verb::Verb;
use crate::verbs::connect;

/// The media types of the built-in serializers (`MediaTypesForSerializer`), and their streaming
/// forms, which the list and watch routes also produce.
const MEDIA_TYPES: [&str; 3] = [
    "application/json",
    "application/yaml",
    "application/vnd.kubernetes.protobuf",
];
const STREAM_MEDIA_TYPES: [&str; 2] = [
    "application/json;stream=watch",
    "application/vnd.kubernetes.protobuf;stream=watch",
];

/// A request for a resource, as go-restful matches it to a route.
pub(crate) struct RouteRequest<'a> {
    pub(crate) info: &'a ResourceInfo,
    pub(crate) verb: Verb,
    /// Whether the path names an object (a GET of one, not a list).
    pub(crate) names_object: bool,
    pub(crate) subresource: Option<&'a str>,
    pub(crate) accept: &'a str,
    pub(crate) content_type: &'a str,
    pub(crate) has_body: bool,
}

/// The media types a PATCH route consumes: the patch types (`supportedTypes`).
const PATCH_TYPES: [&str; 4] = [
    "application/json-patch+json",
    "application/merge-patch+json",
    "application/strategic-merge-patch+json",
    "application/apply-patch+yaml",
];

/// Refuses, as go-restful does, a body the route cannot consume or an `Accept` header the
/// route cannot produce, in that order.
pub(crate) fn check(request: &RouteRequest<'_>) -> Result<(), ApiStatus> {
    if !request.info.builtin {
        return Ok(());
    }
    // Connection routes consume anything, PATCH included (`Consumes("*/*")`).
    let connection = connect::concerns(request.info, request.subresource);
    let consumed = request.verb != Verb::Patch || connection || matches_content_type(request.content_type);
    if !consumed && request.has_body {
        return Err(generic(ApiStatus::new(
            415,
            "UnsupportedMediaType",
            "415: Unsupported Media Type",
        )));
    }
    let produces = produces(request);
    // Without a body the route is not refused for its content type, but no route is left to
    // produce anything: the 406 lists no representations.
    let available = if consumed { produces.join(", ") } else { String::new() };
    if consumed && (produces.contains(&"*/*") || matches_accept(request.accept, &produces)) {
        return Ok(());
    }
    Err(generic(ApiStatus::not_acceptable(format!(
        "406: Not Acceptable\n\nAvailable representations: {available}"
    ))))
}

/// go-restful's errors become `NewGenericServerResponse`s with no group, resource or name:
/// empty details.
fn generic(mut status: ApiStatus) -> ApiStatus {
    status.details = Some(serde_json::json!({}));
    status
}

/// `Route.matchesContentType` of a PATCH route: some comma-separated clause of the header,
/// without its parameters, is a patch type; no header at all is `application/octet-stream`.
fn matches_content_type(content_type: &str) -> bool {
    content_type.split(',').any(|clause| {
        let media = clause.split(';').next().unwrap_or_default().trim();
        PATCH_TYPES.contains(&media)
    })
}

/// The route's `Produces`: the storage's own types first (`ProducesMIMETypes`: a pod's log is
/// text, a connection anything), then the serializers'.
fn produces(request: &RouteRequest<'_>) -> Vec<&'static str> {
    if connect::concerns(request.info, request.subresource) {
        return vec!["*/*"];
    }
    let mut produces = Vec::new();
    if (request.info.kind.as_str(), request.subresource) == ("Pod", Some("log")) {
        produces.push("text/plain");
    }
    produces.extend(MEDIA_TYPES);
    let streams = matches!(request.verb, Verb::List | Verb::Watch) && !request.names_object;
    if streams {
        produces.extend(STREAM_MEDIA_TYPES);
    }
    produces
}

/// `Route.matchesAccept`: some clause of the header, without its parameters, is `*/*` or one
/// of the produced types exactly; no header at all is `*/*`.
fn matches_accept(accept: &str, produces: &[&str]) -> bool {
    if accept.is_empty() {
        return true;
    }
    accept.split(',').any(|clause| {
        let media = clause.split(';').next().unwrap_or_default().trim();
        media == "*/*" || produces.contains(&media)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request<'a>(info: &'a ResourceInfo, verb: Verb, accept: &'a str) -> RouteRequest<'a> {
        RouteRequest {
            info,
            verb,
            names_object: verb == Verb::Get,
            subresource: None,
            accept,
            content_type: "application/json",
            has_body: true,
        }
    }

    #[test]
    fn an_accept_header_should_name_a_produced_type_exactly() {
        let info = ResourceInfo::builtin("", "v1", "ConfigMap", "configmaps");
        for accept in [
            "",
            "*/*",
            "application/json",
            "text/html;q=0.9, application/json;q=0.5",
            "application/json;as=Table;v=v1;g=meta.k8s.io",
        ] {
            assert!(check(&request(&info, Verb::Get, accept)).is_ok(), "{accept}");
        }
        let refused = check(&request(&info, Verb::Get, "text/plain")).unwrap_err();
        assert_eq!(refused.code, 406);
        assert_eq!(
            refused.message,
            "406: Not Acceptable\n\nAvailable representations: application/json, application/yaml, application/vnd.kubernetes.protobuf"
        );
        // go-restful knows no `application/*`.
        assert!(check(&request(&info, Verb::Get, "application/*")).is_err());
        let list = check(&request(&info, Verb::List, "text/plain")).unwrap_err();
        assert!(
            list.message
                .ends_with("application/vnd.kubernetes.protobuf;stream=watch")
        );
    }

    #[test]
    fn a_patch_should_carry_a_patch_type() {
        let info = ResourceInfo::builtin("", "v1", "ConfigMap", "configmaps");
        let patch = |content_type, has_body| RouteRequest {
            content_type,
            has_body,
            ..request(&info, Verb::Patch, "application/json")
        };
        assert!(check(&patch("application/merge-patch+json; charset=utf-8", true)).is_ok());
        let refused = check(&patch("application/apply-patch+json", true)).unwrap_err();
        assert_eq!(
            (refused.code, refused.message.as_str()),
            (415, "415: Unsupported Media Type")
        );
        assert_eq!(refused.details, Some(serde_json::json!({})));
        let empty = check(&patch("application/json", false)).unwrap_err();
        assert_eq!(
            (empty.code, empty.message.as_str()),
            (406, "406: Not Acceptable\n\nAvailable representations: ")
        );
        // Other verbs consume anything.
        let put = RouteRequest {
            content_type: "text/plain",
            ..request(&info, Verb::Update, "application/json")
        };
        assert!(check(&put).is_ok());
    }

    #[test]
    fn custom_resources_and_connections_should_not_be_checked_here() {
        let mut widget = ResourceInfo::builtin("example.com", "v1", "Widget", "widgets");
        widget.builtin = false;
        assert!(check(&request(&widget, Verb::Get, "text/plain")).is_ok());
        let pod = ResourceInfo::builtin("", "v1", "Pod", "pods");
        let exec = RouteRequest {
            subresource: Some("exec"),
            ..request(&pod, Verb::Get, "text/plain")
        };
        assert!(check(&exec).is_ok());
        let log = RouteRequest {
            subresource: Some("log"),
            ..request(&pod, Verb::Get, "text/plain")
        };
        assert!(check(&log).is_ok());
    }
}
