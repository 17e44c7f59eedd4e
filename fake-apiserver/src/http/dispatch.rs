//! One request through the fake server: latency, routing, action recording, injected faults,
//! reactors, then the verb itself, answered as kube-apiserver would answer it.

use std::sync::Arc;

use bytes::Bytes;
use http::{HeaderMap, Request, Response, StatusCode, header};
use http_body_util::{BodyExt, Full, StreamBody};
use tokio::sync::mpsc;

use crate::auth::{self, UserInfo};
use crate::http::discovery;
use crate::http::discovery_answers::RootRequest;
use crate::http::openapi;
use crate::http::query;
use crate::http::render::{self, Render};
use crate::http::responses::{self, ResponseBody, json_response, page_not_found, plain_response, status_response};
use crate::http::restful_route::{self, RouteRequest};
use crate::http::route::{ResourceRoute, Route, route};
use crate::http::warning::add_warnings;
use crate::semantics::go_json_writer;
use crate::server::Inner;
use crate::status::ApiStatus;
use crate::storage::resource::ResourceInfo;
use crate::storage::verb::Verb;
use crate::testing::Action;
use crate::verbs::options::{Query, Warnings};
use crate::verbs::patch::decode_body;
use crate::verbs::watch;

impl Inner {
    /// Answers one request.
    pub(crate) async fn handle(self: &Arc<Self>, request: Request<Bytes>) -> Response<ResponseBody> {
        let latency = self.testing().latency;
        if !latency.is_zero() {
            tokio::time::sleep(latency).await;
        }
        let head = request.method() == http::Method::HEAD;
        // Kept as the header (a cheap clone) and read only when the request is refused.
        let accept = request.headers().get(header::ACCEPT).cloned();
        let answer = self.route_and_run(request).await;
        self.schedule_controllers();
        let response = match answer {
            Ok(response) => response,
            // `ErrorNegotiated`: a refusal before the handler (no route, a method or media type
            // refused, authentication) is written in the media type asked for too.
            Err(status) => {
                let accept = accept.as_ref().and_then(|v| v.to_str().ok()).unwrap_or_default();
                let media = Render::negotiate(&without_conversions(accept), None, self.options.minor())
                    .map_or("json", |(_, media)| media);
                responses::negotiated(Err(status), media, true)
            }
        };
        // An answer to HEAD has its headers and no body, as Go's server writes it.
        match head {
            true => response.map(|_| Full::new(Bytes::new()).boxed_unsync()),
            false => response,
        }
    }

    async fn route_and_run(self: &Arc<Self>, request: Request<Bytes>) -> Result<Response<ResponseBody>, ApiStatus> {
        let (parts, body) = request.into_parts();
        let raw_query = parts.uri.query();
        // Go's server routes and authorizes `URL.Path`, the path with its escapes decoded
        // (`/configmaps/p%31` names `p1`).
        let decoded = percent_encoding::percent_decode_str(parts.uri.path()).decode_utf8_lossy();
        let path = decoded.as_ref();
        let asked = auth::Request {
            method: parts.method.as_str(),
            path,
            query: raw_query,
            headers: &parts.headers,
        };
        let user = Arc::new(self.authenticator.admit(&self.state(), &asked)?);
        let query = query::parse(raw_query)?;
        let routed = route(&parts.method, path, query.watch, &self.state().registry)?;
        let document = match routed {
            Route::Resource(resource) => {
                let request = Incoming {
                    headers: &parts.headers,
                    raw_query,
                    query,
                    body,
                    user,
                };
                return self.resource_request(resource, request).await;
            }
            Route::Version => discovery::version(&self.options.version),
            Route::Health { endpoint, check } => {
                let minor = self.options.minor();
                let answer = match check {
                    None => endpoint.answer(raw_query, minor),
                    Some(check) if endpoint.has_check(&check, minor) => "ok".to_owned(),
                    Some(_) => return Ok(page_not_found()),
                };
                return Ok(plain_response(
                    StatusCode::OK,
                    Bytes::from(answer),
                    "text/plain; charset=utf-8",
                ));
            }
            Route::PageNotFound => return Ok(page_not_found()),
            Route::CoreVersions | Route::Groups => {
                let (accept, if_none_match) = (
                    header_text(&parts.headers, header::ACCEPT),
                    header_text(&parts.headers, header::IF_NONE_MATCH),
                );
                return self.discovery_root(&RootRequest {
                    accept: &accept,
                    if_none_match: &if_none_match,
                    head: parts.method == http::Method::HEAD,
                    core: matches!(routed, Route::CoreVersions),
                });
            }
            Route::Group(group) => {
                let document = discovery::group(&self.state().registry, &group)?;
                return self.legacy_discovery(&header_text(&parts.headers, header::ACCEPT), &document);
            }
            Route::Resources { group, version } => {
                let document = discovery::resources(&self.state().registry, &group, &version)?;
                return self.legacy_discovery(&header_text(&parts.headers, header::ACCEPT), &document);
            }
            Route::OpenApiV2 if header_text(&parts.headers, header::ACCEPT).contains(openapi::V2_PROTOBUF) => {
                // `@` is not a token character, so Go's mime parser refuses the requested type
                // as a Content-Type; kubectl decodes the body whatever it is labelled.
                let body = Bytes::from(openapi::v2_protobuf());
                return Ok(plain_response(StatusCode::OK, body, "application/octet-stream"));
            }
            Route::OpenApiV2 => return Err(ApiStatus::no_route()),
            Route::OpenApiV3Root => openapi::v3_root(&self.state().registry),
            Route::OpenApiV3 { group, version } => openapi::v3_group_version(&self.state().registry, &group, &version)?,
        };
        Ok(json_response(StatusCode::OK, go_json_writer::to_vec(&document)))
    }

    async fn resource_request(
        self: &Arc<Self>,
        route: ResourceRoute,
        request: Incoming<'_>,
    ) -> Result<Response<ResponseBody>, ApiStatus> {
        let Incoming {
            headers,
            raw_query,
            query,
            body,
            user,
        } = request;
        let needs_namespace = route.info.namespaced && route.namespace.is_none();
        if let Some(refusal) = &route.refusal {
            return Ok(with_deprecation(&route.info, status_response(refusal)));
        }
        let served = route.subresource.is_some() || route.info.serves(route.verb, None);
        // kube-apiserver has no all-namespaces create or deletecollection route: 405 as for a verb
        // the resource does not serve; a name without a namespace is no route at all.
        let all_namespaces_write = needs_namespace && matches!(route.verb, Verb::Create | Verb::DeleteCollection);
        if route.verb == Verb::Watch && !served && route.info.serves(Verb::List, None) {
            // The list handler itself refuses a watch its storage cannot serve, after the
            // request reached the resource (so with its warnings).
            let refusal = ApiStatus::method_not_supported(&route.info, "watch");
            return Ok(with_deprecation(&route.info, status_response(&refusal)));
        }
        // A resource with no verb on single objects (bindings, reviews) registers no object
        // path at all: a request naming an object finds no route, where one on the collection
        // finds the path without the method.
        let item_verbs = [Verb::Get, Verb::Update, Verb::Patch, Verb::Delete];
        let no_item_path = route.subresource.is_none()
            && route.name.is_some()
            && !item_verbs.iter().any(|verb| route.info.serves(*verb, None));
        if !served && no_item_path {
            return Err(ApiStatus::no_route());
        }
        if !served || all_namespaces_write {
            return Err(ApiStatus::method_not_allowed());
        }
        if needs_namespace && route.name.is_some() {
            return Err(ApiStatus::no_route());
        }
        let accept = header_text(headers, header::ACCEPT);
        let content_type = header_text(headers, header::CONTENT_TYPE);
        restful_route::check(&RouteRequest {
            info: &route.info,
            verb: route.verb,
            names_object: route.name.is_some(),
            subresource: route.subresource.as_deref(),
            accept: &accept,
            content_type: &content_type,
            has_body: !body.is_empty(),
        })?;
        let user_agent = header_text(headers, header::USER_AGENT);
        let mut action = action_of(&route, &query, &content_type, &user_agent);
        let reactors = {
            let mut testing = self.testing();
            let reactors = testing.reactors_for(&action);
            // Only a recorded action or a reactor reads the body: parse it for them alone.
            if (testing.record || !reactors.is_empty()) && !body.is_empty() {
                action.body = decode_body(&body, route.verb == Verb::Patch).ok();
            }
            testing.record(&action);
            if let Some(status) = testing.take_fault(&action) {
                return Err(status);
            }
            reactors
        };
        for react in reactors {
            if let Some(reaction) = react(&action) {
                let code = if route.verb == Verb::Create {
                    StatusCode::CREATED
                } else {
                    StatusCode::OK
                };
                return reaction.map(|object| json_response(code, go_json_writer::to_vec(&object)));
            }
        }
        let (render, media) = Render::negotiate(&accept, raw_query, self.options.minor())?;
        if route.verb == Verb::Watch {
            // A deprecated version's warning is added before the handler runs: it comes with
            // the watch's refusals too.
            let mut response = self
                .watch(&route, &query, render, media)
                .unwrap_or_else(|status| responses::negotiated(Err(status), media, route.info.builtin));
            add_warnings(
                response.headers_mut(),
                route.info.deprecation_warning.iter().cloned().collect(),
            );
            return Ok(response);
        }
        render.check_fits(route.verb == Verb::List, &route.info.kind)?;
        let warnings = Warnings::default();
        if let Some(deprecation) = &route.info.deprecation_warning {
            warnings.extend([deprecation.clone()]);
        }
        let answer = self.run_verb(
            &route,
            &query,
            render,
            &content_type,
            &user_agent,
            &body,
            &warnings,
            &user,
        );
        let mut response = responses::negotiated(answer, media, route.info.builtin);
        add_warnings(response.headers_mut(), warnings.take());
        Ok(response)
    }

    /// Starts a watch: its options checked, the watch opened, then the stream serializer
    /// negotiated (`serveWatch`: YAML has none, a 406), and the stream of its events.
    fn watch(
        self: &Arc<Self>,
        route: &ResourceRoute,
        query: &Query,
        render: Render,
        media: &str,
    ) -> Result<Response<ResponseBody>, ApiStatus> {
        // Watches do not go through `run_verb`, which validates the other verbs' options;
        // a watch has no body, so no content type.
        query.validate(route.verb, "", self.options.watch_list)?;
        // Each event of a watch asked for as a metadata list fails its transform, which
        // ends the stream before anything is sent.
        if matches!(render, Render::Metadata { list: true, .. }) {
            return Ok(plain_response(StatusCode::OK, Bytes::new(), "application/json"));
        }
        let mut query = query.clone();
        if let Some(name) = &route.name {
            query.field_selector = name_selector(&query.field_selector, name)?;
        }
        let renderer: watch::EventRenderer =
            Box::new(move |info, object, first| render.event_object(info, object, first));
        let plan = watch::start(
            &self.state(),
            route.info.clone(),
            route.namespace.clone(),
            &query,
            renderer,
        )?;
        if media == "yaml" {
            return Err(ApiStatus::not_acceptable(
                "only the following media types are accepted: application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch",
            ));
        }
        let (sender, receiver) = mpsc::channel(64);
        tokio::spawn(plan.run(sender));
        let frames = futures::stream::unfold(receiver, |mut receiver| async move {
            receiver
                .recv()
                .await
                .map(|bytes| (Ok(http_body::Frame::data(bytes)), receiver))
        });
        let mut response = Response::new(StreamBody::new(frames).boxed_unsync());
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            header::HeaderValue::from_static("application/json"),
        );
        Ok(response)
    }
}

/// A resource request past authorization: what the verb reads of it, and who sent it.
struct Incoming<'a> {
    headers: &'a HeaderMap,
    raw_query: Option<&'a str>,
    query: Query,
    body: Bytes,
    user: Arc<UserInfo>,
}

/// The action a request is, without its body.
fn action_of(route: &ResourceRoute, query: &Query, content_type: &str, user_agent: &str) -> Action {
    let is_patch = route.verb == Verb::Patch;
    let selector = |s: &str| (!s.is_empty()).then(|| s.to_owned());
    Action {
        verb: route.verb,
        group: route.info.group.clone(),
        version: route.info.version.clone(),
        resource: route.info.plural.clone(),
        subresource: route.subresource.clone(),
        namespace: route.namespace.clone(),
        name: route.name.clone(),
        body: None,
        patch_type: is_patch.then(|| content_type.split(';').next().unwrap_or_default().trim().to_owned()),
        label_selector: selector(&query.label_selector),
        field_selector: selector(&query.field_selector),
        user_agent: (!user_agent.is_empty()).then(|| user_agent.to_owned()),
    }
}

/// `accept` without the clauses that ask for a conversion (`as`, `g`, `v`): an error is
/// negotiated with `DefaultEndpointRestrictions`, which allow none.
fn without_conversions(accept: &str) -> String {
    let converts = |clause: &&str| {
        clause.split(';').skip(1).any(|param| {
            let key = param.split('=').next().unwrap_or_default().trim();
            matches!(key, "as" | "g" | "v")
        })
    };
    let kept: Vec<&str> = render::clauses(accept)
        .into_iter()
        .filter(|clause| !converts(clause))
        .collect();
    kept.join(",")
}

fn header_text(headers: &HeaderMap, name: header::HeaderName) -> String {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned()
}

/// The field selector of a watch of one object (`ListResource` with a name): the object's
/// name, or a selector that already asks for exactly it.
fn name_selector(selector: &str, name: &str) -> Result<String, ApiStatus> {
    if selector.trim().is_empty() {
        return Ok(format!("metadata.name={name}"));
    }
    let selects_name = selector.split(',').any(|term| {
        let term = term.trim();
        term == format!("metadata.name={name}") || term == format!("metadata.name=={name}")
    });
    match selects_name {
        true => Ok(selector.to_owned()),
        false => Err(ApiStatus::bad_request(
            "fieldSelector metadata.name doesn't match requested name",
        )),
    }
}

/// A refusal the resource's handler gives after the request reached it, with its version's
/// deprecation warning (added before the handler runs).
fn with_deprecation(info: &ResourceInfo, mut response: Response<ResponseBody>) -> Response<ResponseBody> {
    add_warnings(
        response.headers_mut(),
        info.deprecation_warning.iter().cloned().collect(),
    );
    response
}
