//! What a request asks to do, in the authorizer's terms: `RequestInfoFactory.NewRequestInfo`
//! (`staging/src/k8s.io/apiserver/pkg/endpoints/request/requestinfo.go`) read from the method,
//! path and query, before any routing, so that a path nothing serves is authorized too.

use crate::semantics::names::path_segment_errors;

/// The authorizer's view of one request (`authorizer.AttributesRecord` without its user).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Attributes {
    pub(crate) verb: String,
    pub(crate) resource_request: bool,
    /// The URL path, for non-resource requests.
    pub(crate) path: String,
    pub(crate) group: String,
    pub(crate) version: String,
    pub(crate) namespace: String,
    pub(crate) resource: String,
    pub(crate) subresource: String,
    pub(crate) name: String,
}

impl Attributes {
    /// The attributes of a request of `method` on `path` with `query` (raw, undecoded); a
    /// `watch` or `proxy` path that names no resource is refused, as kube-apiserver refuses it
    /// (500, before authentication).
    pub(crate) fn of_request(method: &str, path: &str, query: Option<&str>) -> Result<Self, String> {
        let mut info = Attributes {
            verb: method.to_lowercase(),
            path: path.to_owned(),
            ..Attributes::default()
        };
        let trimmed = path.trim_matches('/');
        let parts: Vec<&str> = if trimmed.is_empty() {
            Vec::new()
        } else {
            trimmed.split('/').collect()
        };
        if parts.len() < 3 || !matches!(parts[0], "api" | "apis") {
            return Ok(info);
        }
        let mut rest = &parts[1..];
        if parts[0] == "apis" {
            if rest.len() < 3 {
                return Ok(info);
            }
            info.group = rest[0].to_owned();
            rest = &rest[1..];
        }
        info.resource_request = true;
        info.version = rest[0].to_owned();
        rest = &rest[1..];
        if matches!(rest[0], "watch" | "proxy") {
            if rest.len() < 2 {
                return Err(format!("unable to determine kind and namespace from url, {path}"));
            }
            info.verb = rest[0].to_owned();
            rest = &rest[1..];
        } else {
            info.verb = match method {
                "POST" => "create",
                "GET" | "HEAD" => "get",
                "PUT" => "update",
                "PATCH" => "patch",
                "DELETE" => "delete",
                _ => "",
            }
            .to_owned();
        }
        if rest[0] == "namespaces"
            && let Some(namespace) = rest.get(1)
        {
            info.namespace = (*namespace).to_owned();
            if rest.len() > 2 && !matches!(rest[2], "status" | "finalize") {
                rest = &rest[2..];
            }
        }
        let subresources = info.verb != "proxy";
        if rest.len() >= 3 && subresources {
            info.subresource = rest[2].to_owned();
        }
        if rest.len() >= 2 {
            info.name = rest[1].to_owned();
        }
        info.resource = rest[0].to_owned();
        if info.name.is_empty() && info.verb == "get" {
            let options = ListOptions::parse(query.unwrap_or_default());
            info.verb = if options.watch { "watch" } else { "list" }.to_owned();
            if let Some(name) = options.name.filter(|n| path_segment_errors(n).is_empty()) {
                info.name = name;
            }
        }
        if info.name.is_empty() && info.verb == "delete" {
            info.verb = "deletecollection".to_owned();
        }
        Ok(info)
    }

    /// Attributes of a resource request made up by the server itself (a SubjectAccessReview,
    /// an impersonation, an escalation check).
    pub(crate) fn resource(verb: &str, group: &str, resource: &str, namespace: &str, name: &str) -> Self {
        Attributes {
            verb: verb.to_owned(),
            resource_request: true,
            group: group.to_owned(),
            version: "*".to_owned(),
            namespace: namespace.to_owned(),
            resource: resource.to_owned(),
            name: name.to_owned(),
            ..Attributes::default()
        }
    }
}

/// What the list options of a request tell the authorizer: whether it watches, and the name a
/// `metadata.name` field selector asks for. Options that do not decode leave only `watch` read,
/// as kube-apiserver falls back to it.
struct ListOptions {
    watch: bool,
    name: Option<String>,
}

impl ListOptions {
    fn parse(query: &str) -> Self {
        let mut watch = None;
        let mut selector = None;
        for (key, value) in form_urlencoded::parse(query.as_bytes()) {
            match key.as_ref() {
                // The first value counts: absent, `0` and `false` (any case) are false.
                "watch" if watch.is_none() => watch = Some(value != "0" && !value.eq_ignore_ascii_case("false")),
                "fieldSelector" if selector.is_none() => selector = Some(value.into_owned()),
                _ => {}
            }
        }
        ListOptions {
            watch: watch.unwrap_or(false),
            name: selector.and_then(|s| exact_name(&s)),
        }
    }
}

/// The value a field selector requires `metadata.name` to equal (`RequiresExactMatch`), when
/// it parses.
fn exact_name(selector: &str) -> Option<String> {
    let mut found = None;
    for term in selector.split(',').map(str::trim).filter(|t| !t.is_empty()) {
        let (field, equal, value) = if let Some((f, v)) = term.split_once("!=") {
            (f, false, v)
        } else if let Some((f, v)) = term.split_once("==") {
            (f, true, v)
        } else if let Some((f, v)) = term.split_once('=') {
            (f, true, v)
        } else {
            // A term without an operator: the options do not decode.
            return None;
        };
        if equal && field.trim() == "metadata.name" && found.is_none() {
            found = Some(value.trim().to_owned());
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(method: &str, path: &str, query: Option<&str>) -> Attributes {
        Attributes::of_request(method, path, query).expect("a path kube-apiserver reads")
    }

    #[test]
    fn short_paths_are_not_resource_requests() {
        for path in ["/api", "/api/v1", "/apis/apps/v1", "/version", "/", "/openapi/v3"] {
            let info = of("GET", path, None);
            assert!(!info.resource_request, "{path}");
            assert_eq!(info.verb, "get");
            assert_eq!(info.path, path);
        }
    }

    #[test]
    fn namespaced_list_watch_and_collection_delete() {
        let list = of("GET", "/api/v1/namespaces/ns/configmaps", None);
        assert_eq!(
            (list.verb.as_str(), list.namespace.as_str(), list.resource.as_str()),
            ("list", "ns", "configmaps")
        );
        assert_eq!(
            of("GET", "/api/v1/namespaces/ns/configmaps", Some("watch=1")).verb,
            "watch"
        );
        assert_eq!(
            of("GET", "/api/v1/namespaces/ns/configmaps", Some("watch=False")).verb,
            "list"
        );
        assert_eq!(
            of("GET", "/apis/apps/v1/watch/namespaces/ns/deployments", None).verb,
            "watch"
        );
        assert_eq!(
            of("DELETE", "/api/v1/namespaces/ns/configmaps", None).verb,
            "deletecollection"
        );
    }

    #[test]
    fn names_subresources_and_the_namespace_itself() {
        let scale = of("GET", "/apis/apps/v1/namespaces/ns/deployments/d/scale", None);
        assert_eq!(
            (scale.group.as_str(), scale.name.as_str(), scale.subresource.as_str()),
            ("apps", "d", "scale")
        );
        let namespace = of("GET", "/api/v1/namespaces/ns", None);
        assert_eq!(
            (
                namespace.resource.as_str(),
                namespace.name.as_str(),
                namespace.namespace.as_str()
            ),
            ("namespaces", "ns", "ns")
        );
        let status = of("PUT", "/api/v1/namespaces/ns/status", None);
        assert_eq!(
            (status.verb.as_str(), status.subresource.as_str()),
            ("update", "status")
        );
        let node = of("GET", "/api/v1/nodes/n1", None);
        assert_eq!((node.namespace.as_str(), node.name.as_str()), ("", "n1"));
    }

    #[test]
    fn a_name_field_selector_names_the_list() {
        let named = of(
            "GET",
            "/api/v1/namespaces/ns/secrets",
            Some("fieldSelector=metadata.namespace%3Dns%2Cmetadata.name%3Ds1"),
        );
        assert_eq!((named.verb.as_str(), named.name.as_str()), ("list", "s1"));
        assert_eq!(
            of("GET", "/api/v1/secrets", Some("fieldSelector=metadata.name!%3Ds1")).name,
            ""
        );
        assert_eq!(
            of("GET", "/api/v1/secrets", Some("fieldSelector=metadata.name%3Da%2Fb")).name,
            ""
        );
        assert_eq!(of("GET", "/api/v1/secrets", Some("fieldSelector=nonsense")).name, "");
    }
}
