//! Turning a request's method and path into what it asks for: discovery, or a verb on a resource.

use std::sync::Arc;

use http::Method;

use crate::status::ApiStatus;
use crate::storage::registry::Registry;
use crate::storage::resource::ResourceInfo;
use crate::storage::verb::Verb;

/// What a request path names.
#[derive(Clone, Debug)]
pub(crate) enum Route {
    Version,
    Health,
    CoreVersions,
    Groups,
    Group(String),
    Resources { group: String, version: String },
    OpenApiV2,
    OpenApiV3Root,
    OpenApiV3 { group: String, version: String },
    Resource(ResourceRoute),
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
}

/// Parses `method path` against the registered resources.
pub(crate) fn route(method: &Method, path: &str, watch_param: bool, registry: &Registry) -> Result<Route, ApiStatus> {
    let segments: Vec<&str> = path.trim_matches('/').split('/').filter(|s| !s.is_empty()).collect();
    let simple = match segments[..] {
        ["version"] => Some(Route::Version),
        ["healthz"] | ["readyz"] | ["livez"] => Some(Route::Health),
        ["api"] => Some(Route::CoreVersions),
        ["apis"] => Some(Route::Groups),
        ["apis", group] => Some(Route::Group(group.to_owned())),
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
        if method != Method::GET {
            return Err(ApiStatus::method_not_allowed(method.as_str(), path));
        }
        return Ok(route);
    }
    let (group, version, rest) = match segments[..] {
        ["api", version, ref rest @ ..] => ("", version, rest),
        ["apis", group, version, ref rest @ ..] => (group, version, rest),
        _ => return Err(ApiStatus::no_route(path)),
    };
    // The legacy `/watch/` prefix means the same as `?watch=true`.
    let (rest, watch) = match rest {
        ["watch", rest @ ..] => (rest, true),
        rest => (rest, watch_param),
    };
    let find = |plural: &str| registry.find(group, version, plural);
    let (info, namespace, name, subresource) = match rest {
        ["namespaces", ns, plural, tail @ ..] if find(plural).is_some_and(|i| i.namespaced) => {
            (find(plural), Some(*ns), tail.first().copied(), tail.get(1).copied())
        }
        [plural, tail @ ..] => (find(plural), None, tail.first().copied(), tail.get(1).copied()),
        [] => (None, None, None, None),
    };
    let info = info.ok_or_else(|| ApiStatus::no_route(path))?;
    if rest.len() > 5 || (namespace.is_none() && rest.len() > 3) {
        return Err(ApiStatus::no_route(path));
    }
    let verb = match (method, name.is_some()) {
        (&Method::GET, true) => Verb::Get,
        (&Method::GET, false) if watch => Verb::Watch,
        (&Method::GET, false) => Verb::List,
        (&Method::POST, false) => Verb::Create,
        (&Method::PUT, true) => Verb::Update,
        (&Method::PATCH, true) => Verb::Patch,
        (&Method::DELETE, true) => Verb::Delete,
        (&Method::DELETE, false) => Verb::DeleteCollection,
        _ => return Err(ApiStatus::method_not_allowed(method.as_str(), path)),
    };
    let subresource = subresource.map(str::to_owned);
    // A subresource the table does not list with this verb is a path this server does not have;
    // a verb the resource itself does not serve is refused by dispatch (405, as kube-apiserver).
    if subresource.is_some() && !info.serves(verb, subresource.as_deref()) {
        return Err(ApiStatus::no_route(path));
    }
    Ok(Route::Resource(ResourceRoute {
        verb,
        info: info.clone(),
        namespace: namespace.map(str::to_owned),
        name: name.map(str::to_owned),
        subresource,
    }))
}
