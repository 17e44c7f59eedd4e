//! Turning a request's method and path into what it asks for: discovery, or a verb on a resource.

use std::sync::Arc;

use http::Method;

use crate::http::health::Endpoint;
use crate::status::ApiStatus;
use crate::storage::registry::Registry;
use crate::storage::resource::ResourceInfo;
use crate::storage::verb::Verb;

/// What a request path names.
#[derive(Clone, Debug)]
pub(crate) enum Route {
    Version,
    /// A health endpoint, or one of its checks (`/readyz/etcd`).
    Health {
        endpoint: Endpoint,
        check: Option<String>,
    },
    CoreVersions,
    Groups,
    Group(String),
    Resources {
        group: String,
        version: String,
    },
    OpenApiV2,
    OpenApiV3Root,
    OpenApiV3 {
        group: String,
        version: String,
    },
    Resource(ResourceRoute),
    /// A path no handler serves: kube-apiserver's mux answers it with the plain-text
    /// `404 page not found`, not a `Status` (unknown groups and versions, and what the
    /// custom-resource handler passes on: unknown or cluster-scoped custom resources).
    PageNotFound,
}

/// A verb on a resource, a collection or a subresource.
#[derive(Clone, Debug)]
pub(crate) struct ResourceRoute {
    pub(crate) verb: Verb,
    pub(crate) info: Arc<ResourceInfo>,
    /// The namespace in the path; `None` for cluster-scoped resources and all-namespace collections.
    pub(crate) namespace: Option<String>,
    pub(crate) name: Option<String>,
    pub(crate) subresource: Option<String>,
    /// The CRD handler's answer to a subresource it does not serve with this verb (an object it
    /// cannot find, `NewMethodNotSupported`): given after its namespace checks, with the
    /// version's deprecation warning.
    pub(crate) refusal: Option<ApiStatus>,
}

/// Parses `method path` against the registered resources.
pub(crate) fn route(method: &Method, path: &str, watch_param: bool, registry: &Registry) -> Result<Route, ApiStatus> {
    // The health endpoints' paths are the mux's, matched exactly: `/healthz/ping/` is not one.
    let relative = path.strip_prefix('/').unwrap_or(path);
    let (first, check) = match relative.split_once('/') {
        Some((first, check)) => (first, Some(check.to_owned())),
        None => (relative, None),
    };
    if let Some(endpoint) = Endpoint::of(first) {
        if method != Method::GET {
            return Err(ApiStatus::method_not_allowed());
        }
        return Ok(Route::Health { endpoint, check });
    }
    // An empty namespace segment is go-restful's empty path parameter: no namespace, which
    // lists across all of them.
    let path = path.replacen("/namespaces//", "/", 1);
    let segments: Vec<&str> = path.trim_matches('/').split('/').filter(|s| !s.is_empty()).collect();
    // go-restful's web services claim `/api/…` and `/apis/<group>/…` of the built-in groups
    // (`director` in `apiserver/pkg/server/handler.go`): what they do not route is their 404
    // `Status`, not the mux's.
    let builtin_group = |group: &str| {
        registry
            .groups()
            .filter(|(served, _)| served.as_str() == group)
            .flat_map(|(_, versions)| versions.iter())
            .any(|version| registry.resources_in(group, version).iter().any(|info| info.builtin))
    };
    match segments[..] {
        ["api", version, ..] if registry.resources_in("", version).is_empty() => return Err(ApiStatus::no_route()),
        ["apis", group, version, ..] if registry.resources_in(group, version).is_empty() && builtin_group(group) => {
            return Err(ApiStatus::no_route());
        }
        _ => {}
    }
    let simple = match segments[..] {
        ["version"] => Some(Route::Version),
        ["api"] => Some(Route::CoreVersions),
        ["apis"] => Some(Route::Groups),
        ["apis", group] if registry.groups().any(|(served, _)| served == group) => Some(Route::Group(group.to_owned())),
        ["apis", group, version] if registry.resources_in(group, version).is_empty() => Some(Route::PageNotFound),
        ["apis", _] => Some(Route::PageNotFound),
        ["api", version] => Some(Route::Resources {
            group: String::new(),
            version: version.to_owned(),
        }),
        ["apis", group, version] => Some(Route::Resources {
            group: group.to_owned(),
            version: version.to_owned(),
        }),
        ["openapi", "v2"] => Some(Route::OpenApiV2),
        ["openapi", "v3"] => Some(Route::OpenApiV3Root),
        ["openapi", "v3", "api", version] => Some(Route::OpenApiV3 {
            group: String::new(),
            version: version.to_owned(),
        }),
        ["openapi", "v3", "apis", group, version] => Some(Route::OpenApiV3 {
            group: group.to_owned(),
            version: version.to_owned(),
        }),
        _ => None,
    };
    if let Some(route) = simple {
        if matches!(route, Route::PageNotFound) {
            return Ok(route);
        }
        // The discovery roots answer HEAD as GET, without a body.
        let head_allowed = matches!(route, Route::CoreVersions | Route::Groups) && method == Method::HEAD;
        if method != Method::GET && !head_allowed {
            return Err(ApiStatus::method_not_allowed());
        }
        return Ok(route);
    }
    let (group, version, rest) = match segments[..] {
        ["api", version, ref rest @ ..] => ("", version, rest),
        ["apis", group, version, ref rest @ ..] => (group, version, rest),
        // Outside the API roots nothing but the mux's own 404 answers.
        _ => return Ok(Route::PageNotFound),
    };
    // The legacy `/watch/` prefix means the same as `?watch=true`.
    let (rest, prefixed) = match rest {
        ["watch", rest @ ..] => (rest, true),
        rest => (rest, false),
    };
    let watch = prefixed || watch_param;
    let served = registry.resources_in(group, version);
    if served.is_empty() {
        return Ok(Route::PageNotFound);
    }
    // kube-apiserver serves a group-version with a built-in resource through its REST handlers,
    // which answer unknown paths with a `Status`; one of only custom resources through the CRD
    // handler, which passes what it does not serve on to the plain 404.
    let custom_only = served.iter().all(|info| !info.builtin);
    let find = |plural: &str| registry.find(group, version, plural);
    let (info, namespace, name, subresource) = match rest {
        ["namespaces", ns, plural, tail @ ..] if find(plural).is_some_and(|i| i.namespaced) => {
            (find(plural), Some(*ns), tail.first().copied(), tail.get(1).copied())
        }
        ["namespaces", _, plural, ..] if custom_only && find(plural).is_some() => return Ok(Route::PageNotFound),
        [plural, tail @ ..] => (find(plural), None, tail.first().copied(), tail.get(1).copied()),
        [] => (None, None, None, None),
    };
    let Some(info) = info else {
        return if custom_only {
            Ok(Route::PageNotFound)
        } else {
            Err(ApiStatus::no_route())
        };
    };
    // A `proxy` subresource takes any path after it (`pods/{name}/proxy/{path:*}`).
    let proxied = subresource == Some("proxy") && info.builtin;
    if !proxied && (rest.len() > 5 || (namespace.is_none() && rest.len() > 3)) {
        return Err(ApiStatus::no_route());
    }
    // The CRD handler passes a namespaced resource's request without a namespace on to the
    // mux's 404, unless it lists or watches (`possiblyAcrossAllNamespacesVerbs`).
    let across_namespaces = method == Method::GET && (name.is_none() || prefixed);
    if !info.builtin && info.namespaced && namespace.is_none() && !across_namespaces {
        return Ok(Route::PageNotFound);
    }
    let verb = match (method, name.is_some()) {
        // The `/watch/` prefix watches one object (a name field selector); `?watch` on an
        // object's path is a GET.
        (&Method::GET, true) if prefixed => Verb::Watch,
        (&Method::GET, true) => Verb::Get,
        (&Method::GET, false) if watch => Verb::Watch,
        (&Method::GET, false) => Verb::List,
        (&Method::POST, false) => Verb::Create,
        (&Method::POST, true) if subresource.is_some() => Verb::Create,
        (&Method::PUT, true) => Verb::Update,
        (&Method::PATCH, true) => Verb::Patch,
        (&Method::DELETE, true) => Verb::Delete,
        (&Method::DELETE, false) => Verb::DeleteCollection,
        // The CRD handler reads the name of an update or patch before anything else.
        (&Method::PUT | &Method::PATCH, false) if !info.builtin => {
            return Err(ApiStatus::bad_request("name must be provided"));
        }
        _ => return Err(ApiStatus::method_not_allowed()),
    };
    let subresource = subresource.map(str::to_owned);
    // A subresource the table does not list with this verb is a path this server does not have;
    // a verb the resource itself does not serve is refused by dispatch (405, as kube-apiserver).
    // The CRD handler answers an unknown subresource as an object it cannot find, and a verb
    // its `/status` or `/scale` handler has no case for with `NewMethodNotSupported`
    // (`serveStatus`, `serveScale` in `apiextensions-apiserver/pkg/apiserver/customresource_handler.go`).
    // The `/watch/` prefix makes any object path a watch (`RequestInfoFactory`); go-restful
    // registers it for objects only.
    let mut refusal = None;
    if let (Some(sub), Some(object)) = (subresource.as_deref(), name)
        && !info.serves(verb, Some(sub))
    {
        match (info.builtin, info.has_subresource(sub)) {
            (true, true) if prefixed => return Err(ApiStatus::no_route()),
            (true, true) => return Err(ApiStatus::method_not_allowed()),
            (true, false) => return Err(ApiStatus::no_route()),
            (false, true) => refusal = Some(ApiStatus::method_not_supported(info, verb.discovery_name())),
            (false, false) => refusal = Some(ApiStatus::not_found(info, object)),
        }
    }
    Ok(Route::Resource(ResourceRoute {
        verb,
        info: info.clone(),
        namespace: namespace.map(str::to_owned),
        name: name.map(str::to_owned),
        subresource,
        refusal,
    }))
}
