//! One request through the fake server: latency, routing, action recording, injected faults,
//! reactors, then the verb itself, answered as kube-apiserver would answer it.

use std::convert::Infallible;
use std::sync::Arc;

use bytes::Bytes;
use http::{HeaderMap, Request, Response, StatusCode, header};
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full, StreamBody};
use serde_json::Value;
use tokio::sync::mpsc;

use crate::http::discovery;
use crate::http::openapi;
use crate::http::query;
use crate::http::route::{ResourceRoute, Route, route};
use crate::http::table::{self, Render};
use crate::http::warning::add_warnings;
use crate::semantics::decoding;
use crate::semantics::versions;
use crate::server::Inner;
use crate::status::{ApiStatus, deleted_status};
use crate::storage::resource::ResourceInfo;
use crate::storage::verb::Verb;
use crate::testing::Action;
use crate::verbs::options::{DeleteOpts, Query, Warnings, WriteOpts};
use crate::verbs::patch::{PatchRequest, decode_body, scale_of};
use crate::verbs::read::{Filter, list_body};
use crate::verbs::{delete, patch, read, watch, write};

/// The body of every fake server response: a buffer, or a watch stream.
pub type ResponseBody = UnsyncBoxBody<Bytes, Infallible>;

type Answer = Result<(StatusCode, Vec<u8>), ApiStatus>;

impl Inner {
    /// Answers one request.
    pub(crate) async fn handle(self: &Arc<Self>, request: Request<Bytes>) -> Response<ResponseBody> {
        let latency = self.testing().latency;
        if !latency.is_zero() {
            tokio::time::sleep(latency).await;
        }
        let answer = self.route_and_run(request).await;
        self.schedule_controllers();
        match answer {
            Ok(response) => response,
            Err(status) => status_response(&status),
        }
    }

    async fn route_and_run(self: &Arc<Self>, request: Request<Bytes>) -> Result<Response<ResponseBody>, ApiStatus> {
        let (parts, body) = request.into_parts();
        let raw_query = parts.uri.query();
        let query = query::parse(raw_query)?;
        let path = parts.uri.path();
        let routed = route(&parts.method, path, query.watch, &self.state().registry)?;
        let document = match routed {
            Route::Resource(resource) => {
                return self
                    .resource_request(resource, &parts.headers, raw_query, query, body)
                    .await;
            }
            Route::Version => discovery::version(&self.options.version),
            Route::Health => return Ok(plain_response(StatusCode::OK, Bytes::from_static(b"ok"), "text/plain")),
            Route::PageNotFound => {
                let body = Bytes::from_static(b"404 page not found\n");
                return Ok(plain_response(StatusCode::NOT_FOUND, body, "text/plain; charset=utf-8"));
            }
            Route::CoreVersions => discovery::core_versions(),
            Route::Groups => discovery::groups(&self.state().registry),
            Route::Group(group) => discovery::group(&self.state().registry, &group)?,
            Route::Resources { group, version } => discovery::resources(&self.state().registry, &group, &version)?,
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
        Ok(json_response(StatusCode::OK, document.to_string().into_bytes()))
    }

    async fn resource_request(
        self: &Arc<Self>,
        route: ResourceRoute,
        headers: &HeaderMap,
        raw_query: Option<&str>,
        query: Query,
        body: Bytes,
    ) -> Result<Response<ResponseBody>, ApiStatus> {
        let needs_namespace = route.info.namespaced && route.namespace.is_none();
        let served = route.subresource.is_some() || route.info.serves(route.verb, None);
        // kube-apiserver has no all-namespaces create or deletecollection route: 405 as for a verb
        // the resource does not serve; a name without a namespace is no route at all.
        let all_namespaces_write = needs_namespace && matches!(route.verb, Verb::Create | Verb::DeleteCollection);
        if !served || all_namespaces_write {
            return Err(ApiStatus::method_not_allowed());
        }
        if needs_namespace && route.name.is_some() {
            return Err(ApiStatus::no_route());
        }
        let content_type = header_text(headers, header::CONTENT_TYPE);
        let user_agent = header_text(headers, header::USER_AGENT);
        let action = action_of(&route, &query, &content_type, &user_agent, &body);
        let reactors = {
            let mut testing = self.testing();
            testing.record(&action);
            if let Some(status) = testing.take_fault(&action) {
                return Err(status);
            }
            testing.reactors_for(&action)
        };
        for react in reactors {
            if let Some(reaction) = react(&action) {
                let code = if route.verb == Verb::Create {
                    StatusCode::CREATED
                } else {
                    StatusCode::OK
                };
                return reaction.map(|object| json_response(code, object.to_string().into_bytes()));
            }
        }
        let render = Render::negotiate(&header_text(headers, header::ACCEPT), raw_query);
        render.check_fits(route.verb == Verb::List, &route.info.kind)?;
        if route.verb == Verb::Watch {
            let renderer: watch::EventRenderer =
                Box::new(move |info, object, first| render.event_object(info, object, first));
            let plan = watch::start(
                &self.state(),
                route.info.clone(),
                route.namespace.clone(),
                &query,
                renderer,
            )?;
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
            add_warnings(
                response.headers_mut(),
                route.info.deprecation_warning.iter().cloned().collect(),
            );
            return Ok(response);
        }
        let warnings = Warnings::default();
        if let Some(deprecation) = &route.info.deprecation_warning {
            warnings.extend([deprecation.clone()]);
        }
        let answer = self.run_verb(&route, &query, render, &content_type, &user_agent, &body, &warnings);
        let mut response = match answer {
            Ok((code, bytes)) => json_response(code, bytes),
            Err(status) => status_response(&status),
        };
        add_warnings(response.headers_mut(), warnings.take());
        Ok(response)
    }

    #[allow(clippy::too_many_arguments)]
    fn run_verb(
        &self,
        route: &ResourceRoute,
        query: &Query,
        render: Render,
        content_type: &str,
        user_agent: &str,
        body: &Bytes,
        warnings: &Warnings,
    ) -> Answer {
        query.validate(route.verb, content_type)?;
        let info = &route.info;
        let namespace = route.namespace.as_deref();
        let name = route.name.as_deref().unwrap_or_default();
        let subresource = route.subresource.as_deref();
        let manager = query
            .field_manager
            .clone()
            .unwrap_or_else(|| default_manager(user_agent));
        let opts = WriteOpts {
            manager: Some(manager.clone()),
            dry_run: query.dry_run(),
            validation: query.validation(),
            warnings: warnings.clone(),
        };
        let api_version = info.api_version();
        let object = |code: StatusCode, value: &Value| -> Answer {
            let shown = if subresource == Some("scale") {
                value.clone()
            } else {
                versions::view(info, &api_version, value).into_owned()
            };
            Ok((code, render_one(info, render, shown)))
        };
        let mut state = self.state();
        if state.registry.find(&info.group, &info.version, &info.plural).is_none() {
            return Err(ApiStatus::no_route());
        }
        match route.verb {
            Verb::Get => {
                let found = read::get(&state, info, namespace, name)?;
                if subresource == Some("scale") {
                    return object(StatusCode::OK, &scale_of(info, &found));
                }
                object(StatusCode::OK, &found)
            }
            Verb::List => {
                let page = read::list(&state, info, namespace, query)?;
                drop(state);
                let rv = page.resource_version.to_string();
                let token = page.continue_token.as_deref();
                match render {
                    Render::Object => Ok((StatusCode::OK, list_body(info, &page))),
                    Render::Metadata { .. } => {
                        let list = table::partial_list(page.items.iter().map(|o| o.as_ref()), &rv, token);
                        Ok((StatusCode::OK, list.to_string().into_bytes()))
                    }
                    Render::Table(include) => {
                        let shown: Vec<Value> = page
                            .items
                            .iter()
                            .map(|o| versions::view(info, &api_version, o).into_owned())
                            .collect();
                        let table = table::table(info, shown.iter(), include, &rv, token);
                        Ok((StatusCode::OK, table.to_string().into_bytes()))
                    }
                }
            }
            Verb::Create => {
                let created = write::create(&mut state, info, namespace, decoding::decode_object(info, body)?, &opts)?;
                object(StatusCode::CREATED, &created)
            }
            Verb::Update if subresource == Some("scale") => {
                let scale = patch::update_scale(&mut state, info, namespace, name, &decode_body(body, false)?, &opts)?;
                object(StatusCode::OK, &scale)
            }
            Verb::Update => {
                let updated = write::update(
                    &mut state,
                    info,
                    namespace,
                    name,
                    decoding::decode_object(info, body)?,
                    subresource,
                    &opts,
                )?;
                object(StatusCode::OK, &updated)
            }
            Verb::Patch => {
                let request = PatchRequest {
                    namespace,
                    name,
                    subresource,
                    content_type,
                    body,
                    manager: &manager,
                    explicit_manager: query.field_manager.is_some(),
                    force: query.force,
                    opts: &opts,
                };
                let (patched, created) = patch::patch(&mut state, info, &request)?;
                object(if created { StatusCode::CREATED } else { StatusCode::OK }, &patched)
            }
            Verb::Delete => {
                let options = (!body.is_empty()).then(|| decode_body(body, false)).transpose()?;
                let opts = DeleteOpts::parse(options.as_ref(), query.propagation_policy.as_deref(), query.dry_run());
                let (last, gone) = delete::delete(&mut state, info, namespace, name, &opts)?;
                // kube-apiserver answers 202 only for a pending delete that asked for
                // `orphanDependents: false`, and a success Status for an immediate delete unless
                // the resource returns deleted objects (pods, services, CRDs...).
                let code = if !gone && opts.orphan_dependents == Some(false) {
                    StatusCode::ACCEPTED
                } else {
                    StatusCode::OK
                };
                if gone && !info.returns_deleted_object {
                    return Ok((code, deleted_status(info, &last).to_string().into_bytes()));
                }
                object(code, &last)
            }
            Verb::DeleteCollection => {
                let options = (!body.is_empty()).then(|| decode_body(body, false)).transpose()?;
                let opts = DeleteOpts::parse(options.as_ref(), query.propagation_policy.as_deref(), query.dry_run());
                let filter = Filter::from_query(info, query)?;
                let selected = read::select(&state, info, namespace, &filter);
                // kube-apiserver answers with the list it selected, as it was before the deletes.
                let rv = state.store.current_rv();
                delete::delete_collection(&mut state, info, namespace, &selected, &opts);
                drop(state);
                let page = read::ListPage {
                    items: selected,
                    resource_version: rv,
                    continue_token: None,
                    remaining: None,
                };
                Ok((StatusCode::OK, list_body(info, &page)))
            }
            Verb::Watch => unreachable!("watches are streamed by resource_request"),
        }
    }
}

fn render_one(info: &ResourceInfo, render: Render, object: Value) -> Vec<u8> {
    match render {
        Render::Metadata { .. } if object.get("kind").and_then(Value::as_str) == Some(info.kind.as_str()) => {
            table::partial(&object).to_string().into_bytes()
        }
        Render::Table(include) if object.get("kind").and_then(Value::as_str) == Some(info.kind.as_str()) => {
            let rv = crate::storage::object::resource_version(&object).to_owned();
            table::table(info, std::iter::once(&object), include, &rv, None)
                .to_string()
                .into_bytes()
        }
        _ => serde_json::to_vec(&object).expect("JSON values serialize"),
    }
}

fn action_of(route: &ResourceRoute, query: &Query, content_type: &str, user_agent: &str, body: &Bytes) -> Action {
    let is_patch = route.verb == Verb::Patch;
    let parsed = (!body.is_empty()).then(|| decode_body(body, is_patch).ok()).flatten();
    let selector = |s: &str| (!s.is_empty()).then(|| s.to_owned());
    Action {
        verb: route.verb,
        group: route.info.group.clone(),
        version: route.info.version.clone(),
        resource: route.info.plural.clone(),
        subresource: route.subresource.clone(),
        namespace: route.namespace.clone(),
        name: route.name.clone(),
        body: parsed,
        patch_type: is_patch.then(|| content_type.split(';').next().unwrap_or_default().trim().to_owned()),
        label_selector: selector(&query.label_selector),
        field_selector: selector(&query.field_selector),
        user_agent: (!user_agent.is_empty()).then(|| user_agent.to_owned()),
    }
}

/// kube-apiserver's default field manager: the user agent up to its first `/`.
fn default_manager(user_agent: &str) -> String {
    let prefix = user_agent.split('/').next().unwrap_or_default().trim();
    if prefix.is_empty() {
        "unknown".to_owned()
    } else {
        prefix.chars().take(128).collect()
    }
}

fn header_text(headers: &HeaderMap, name: header::HeaderName) -> String {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned()
}

fn status_response(status: &ApiStatus) -> Response<ResponseBody> {
    json_response(
        StatusCode::from_u16(status.code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
        status.to_json().to_string().into_bytes(),
    )
}

fn json_response(code: StatusCode, bytes: Vec<u8>) -> Response<ResponseBody> {
    plain_response(code, Bytes::from(bytes), "application/json")
}

fn plain_response(code: StatusCode, bytes: Bytes, content_type: &'static str) -> Response<ResponseBody> {
    let mut response = Response::new(Full::new(bytes).boxed_unsync());
    *response.status_mut() = code;
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, header::HeaderValue::from_static(content_type));
    response
}
