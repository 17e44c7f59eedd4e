//! One verb on one resource: the body checked before the server's lock, the verb under it, the
//! answer rendered after it, so that requests hold the lock only for what reads or writes storage.

use std::sync::Arc;

use bytes::Bytes;
use http::StatusCode;
use serde_json::Value;

use crate::auth::UserInfo;
use crate::go_order::{GoStruct, Ordered};
use crate::http::render::Render;
use crate::http::request_body;
use crate::http::route::ResourceRoute;
use crate::http::table;
use crate::semantics::{decoding, go_json_writer, registered_kinds, scale_view, versions};
use crate::server::Inner;
use crate::status::{ApiStatus, deleted_status};
use crate::storage::resource::ResourceInfo;
use crate::storage::verb::Verb;
use crate::verbs::options::{DeleteOpts, FieldValidation, Query, Warnings, WriteOpts};
use crate::verbs::patch::{PatchRequest, decode_body};
use crate::verbs::read::{Filter, list_body};
use crate::verbs::write::Checked;
use crate::verbs::{
    authentication, authorization, binding, component_status, connect, delete, eviction, patch, pod_log, read, scale,
    write,
};

/// A rendered answer, or the status that refuses the request.
pub(crate) type Answer = Result<(StatusCode, Vec<u8>), ApiStatus>;

impl Inner {
    /// Runs the verb of a resource request and renders its answer as `render` asks.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn run_verb(
        &self,
        route: &ResourceRoute,
        query: &Query,
        render: Render,
        content_type: &str,
        user_agent: &str,
        body: &Bytes,
        warnings: &Warnings,
        user: &Arc<UserInfo>,
    ) -> Answer {
        let info = &route.info;
        let incoming = request_body::BodyFor {
            info,
            verb: route.verb,
            subresource: route.subresource.as_deref(),
            lenient: query.validation() == FieldValidation::Ignore,
        };
        // A connection (exec, attach, port-forward, proxy) takes its body as it comes. The
        // create handler negotiates the body's serializer, then decodes and checks its options;
        // the update handler checks its options first (`createHandler`, `UpdateResource`); both
        // decode the body last.
        let connection = connect::concerns(info, route.subresource.as_deref());
        let options_first = !connection && matches!(route.verb, Verb::Create | Verb::Update);
        if options_first {
            if route.verb == Verb::Create {
                request_body::negotiate(&incoming, body, content_type)?;
            }
            query.validate(route.verb, content_type, self.options.watch_list)?;
        }
        let (body, content_type) = match connection {
            true => (body.clone(), content_type),
            false => request_body::read(&incoming, body, content_type)?,
        };
        let body = &body;
        // A delete with a `DeleteOptions` body reads its options from the body alone: the
        // handlers decode the query's only when there is no body.
        let without_delete_options;
        let query = if matches!(route.verb, Verb::Delete | Verb::DeleteCollection) && !body.is_empty() {
            without_delete_options = query.without_delete_options();
            &without_delete_options
        } else {
            query
        };
        if !options_first {
            query.validate(route.verb, content_type, self.options.watch_list)?;
        }
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
            requester: Some(user.clone()),
        };
        // A create or update body is decoded and checked before the lock: it needs nothing
        // stored. A `/scale` body is a Scale, checked as one, whatever the resource.
        let sent_as = match subresource {
            Some("scale") if route.verb == Verb::Update => &scale::BODY_TYPE,
            _ => &**info,
        };
        if connection {
            let state = self.state();
            let id = route.name.as_deref().unwrap_or_default();
            let sub = subresource.unwrap_or_default();
            return Err(connect::connect(
                &state,
                info,
                route.namespace.as_deref(),
                id,
                sub,
                query.log.container.as_deref(),
            ));
        }
        if route.verb == Verb::Create && binding::concerns(info, subresource) {
            let mut state = self.state();
            let namespace = route.namespace.as_deref().unwrap_or_default();
            let answer = binding::bind(&mut state, namespace, route.name.as_deref(), body, query.dry_run())?;
            return Ok((StatusCode::CREATED, status_bytes(&answer)));
        }
        if route.verb == Verb::Create && subresource == Some("eviction") && info.builtin && info.kind == "Pod" {
            let mut state = self.state();
            let namespace = route.namespace.as_deref().unwrap_or_default();
            let name = route.name.as_deref().unwrap_or_default();
            let (code, answer) = eviction::evict(&mut state, namespace, name, body, query.dry_run())?;
            let code = StatusCode::from_u16(code).unwrap_or(StatusCode::CREATED);
            return Ok((code, status_bytes(&answer)));
        }
        if route.verb == Verb::Create && authentication::concerns(info, subresource) {
            // Answered, never stored: a token, or a review.
            let state = self.state();
            let namespace = route.namespace.as_deref().unwrap_or_default();
            let name = route.name.as_deref().unwrap_or_default();
            let answer = match subresource {
                Some(_) => authentication::request_token(&state, namespace, name, body, &manager)?,
                None if info.plural == "tokenreviews" => authentication::review_token(&state, info, body, &manager)?,
                None => authentication::review_self(info, body, user)?,
            };
            return Ok((StatusCode::CREATED, render_one(info, render, &answer)));
        }
        if route.verb == Verb::Create && authorization::concerns(info) {
            let state = self.state();
            let reviewer = authorization::Reviewer {
                state: &state,
                authenticator: &self.authenticator,
                requester: user,
            };
            let namespace = route.namespace.as_deref().unwrap_or_default();
            let answer = reviewer.review(info, namespace, body, &manager)?;
            return Ok((StatusCode::CREATED, render_one(info, render, &answer)));
        }
        let minor = self.options.minor();
        // The CRD handler's `/scale` decodes a Scale but names its types from the custom
        // resources' own scheme, which has none: any decoding error becomes that
        // (`transformDecodeError` failing on `typer.ObjectKinds`).
        let scale_of_custom = !info.builtin && subresource == Some("scale");
        let check = || {
            let checked =
                decoding::decode_object(sent_as, body).and_then(|decoded| write::check(sent_as, decoded, &opts, minor));
            checked.map_err(|refusal| match scale_of_custom {
                true => ApiStatus::bad_request(format!(
                    "no kind is registered for the type v1.Scale in scheme {:?}",
                    registered_kinds::SCHEME_NAME
                )),
                false => refusal,
            })
        };
        let action = match route.verb {
            Verb::Get => Action::Get,
            Verb::List => Action::List,
            Verb::Create => Action::Create(check()),
            Verb::Update => Action::Update(check()),
            Verb::Patch => Action::Patch,
            Verb::Delete => Action::Delete,
            Verb::DeleteCollection => Action::DeleteCollection,
            Verb::Watch => unreachable!("watches are streamed by resource_request"),
        };
        let outcome = self.run_locked(route, query, content_type, body, action, &manager, &opts)?;
        // The answer is rendered after the lock is released.
        match outcome {
            Outcome::Object(code, stored) => {
                let shown = versions::view(info, &info.api_version(), &stored);
                Ok((code, render_one(info, render, &shown)))
            }
            Outcome::Shown(code, shown) => Ok((code, render_one(info, render, &shown))),
            Outcome::Scale(code, scale) => Ok((code, render_one(info, render, &scale))),
            Outcome::List(page) => {
                let rv = page.resource_version.map(|rv| rv.to_string()).unwrap_or_default();
                let token = page.continue_token.as_deref();
                match render {
                    Render::Object => Ok((StatusCode::OK, list_body(info, &page))),
                    Render::Metadata { version, .. } => {
                        let list = table::partial_list(page.items.iter().map(|o| o.as_ref()), version, &rv, token);
                        Ok((StatusCode::OK, go_json_writer::to_vec(&list)))
                    }
                    Render::Table(options) => {
                        let api_version = info.api_version();
                        let shown: Vec<Value> = page
                            .items
                            .iter()
                            .map(|o| versions::view(info, &api_version, o).into_owned())
                            .collect();
                        let table = table::table(info, shown.iter(), options, &rv, token);
                        Ok((StatusCode::OK, go_json_writer::to_vec(&table)))
                    }
                }
            }
            Outcome::Deleted(page) => Ok((StatusCode::OK, list_body(info, &page))),
            Outcome::Body(code, bytes) => Ok((code, bytes)),
            Outcome::Empty => Ok((StatusCode::NO_CONTENT, Vec::new())),
        }
    }

    /// The verb itself, under the server's lock.
    #[allow(clippy::too_many_arguments)]
    fn run_locked(
        &self,
        route: &ResourceRoute,
        query: &Query,
        content_type: &str,
        body: &Bytes,
        action: Action,
        manager: &str,
        opts: &WriteOpts,
    ) -> Result<Outcome, ApiStatus> {
        let info = &route.info;
        let namespace = route.namespace.as_deref();
        let name = route.name.as_deref().unwrap_or_default();
        let subresource = route.subresource.as_deref();
        // A `/scale` answer is the Scale the verb returned, shown as it is.
        let object = |code, value: Arc<Value>| {
            if subresource == Some("scale") {
                Outcome::Scale(code, Arc::unwrap_or_clone(value))
            } else {
                Outcome::Object(code, value)
            }
        };
        let mut state = self.state();
        if state.registry.find(&info.group, &info.version, &info.plural).is_none() {
            return Err(ApiStatus::no_route());
        }
        match action {
            Action::Get if component_status::concerns(info) => {
                Ok(Outcome::Object(StatusCode::OK, component_status::get(name)?))
            }
            Action::List if component_status::concerns(info) => Ok(Outcome::List(component_status::list(info, query)?)),
            Action::Get if subresource == Some("log") => {
                pod_log::get(&state, info, namespace, name, &query.log)?;
                Ok(Outcome::Empty)
            }
            Action::Get if subresource == Some("scale") => {
                let found = scale::parent(&state, info, namespace, name)?;
                Ok(Outcome::Scale(StatusCode::OK, scale_view::view(info, &found)))
            }
            Action::Get => {
                read::check_get_version(&state, query)?;
                Ok(Outcome::Shown(
                    StatusCode::OK,
                    read::get(&state, info, namespace, name)?,
                ))
            }
            Action::List => Ok(Outcome::List(read::list(&state, info, namespace, query)?)),
            // A body's error comes after the resource's, as kube-apiserver routes before it
            // decodes.
            Action::Create(sent) => Ok(object(
                StatusCode::CREATED,
                write::create(&mut state, info, namespace, sent?, opts)?,
            )),
            Action::Update(sent) if subresource == Some("scale") => {
                let scale = scale::update(&mut state, info, namespace, name, sent?, opts)?;
                Ok(object(StatusCode::OK, scale))
            }
            Action::Update(sent)
                if subresource.is_none()
                    && info.creates_on_update()
                    && read::get(&state, info, namespace, name).is_err() =>
            {
                let created = write::create_on_update(&mut state, info, namespace, name, sent?, opts)?;
                Ok(object(StatusCode::CREATED, created))
            }
            Action::Update(sent) => Ok(object(
                StatusCode::OK,
                write::update(&mut state, info, namespace, name, sent?, subresource, opts)?,
            )),
            Action::Patch => {
                let request = PatchRequest {
                    namespace,
                    name,
                    subresource,
                    content_type,
                    body,
                    manager,
                    explicit_manager: query.field_manager.is_some(),
                    force: query.force,
                    opts,
                };
                let (patched, created) = patch::patch(&mut state, info, &request)?;
                Ok(object(
                    if created { StatusCode::CREATED } else { StatusCode::OK },
                    patched,
                ))
            }
            Action::Delete => {
                let write_opts = opts;
                let options = (!body.is_empty()).then(|| decode_body(body, false)).transpose()?;
                if let Some(options) = &options {
                    DeleteOpts::check_body(options)?;
                }
                let mut opts = DeleteOpts::of_request(options.as_ref(), query);
                opts.requester = write_opts.requester.clone();
                opts.warnings = write_opts.warnings.clone();
                if opts.propagation.is_none()
                    && let Some(policy) = info.default_propagation()
                {
                    // batch/v1 Jobs orphan their pods unless told otherwise, and say so (the
                    // Job storage's own warning); v1 ReplicationControllers orphan silently.
                    opts.propagation = Some(policy.to_owned());
                    if info.group == "batch" {
                        write_opts.warnings.extend([JOB_DELETE_WARNING.to_owned()]);
                    }
                }
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
                    return Ok(Outcome::Body(
                        code,
                        go_json_writer::to_vec(&Ordered {
                            value: &deleted_status(info, &last),
                            shape: GoStruct::Status,
                        }),
                    ));
                }
                Ok(object(code, last))
            }
            Action::DeleteCollection => {
                let opts_of_write = opts;
                let options = (!body.is_empty()).then(|| decode_body(body, false)).transpose()?;
                if let Some(options) = &options {
                    DeleteOpts::check_body(options)?;
                }
                let mut opts = DeleteOpts::of_request(options.as_ref(), query);
                opts.requester = opts_of_write.requester.clone();
                opts.warnings = opts_of_write.warnings.clone();
                if opts.propagation.is_none() {
                    opts.propagation = info.default_propagation().map(str::to_owned);
                }
                let filter = Filter::from_query(info, query)?;
                let selected = read::select(&state, info, namespace, &filter);
                // kube-apiserver answers with the list it selected, as it was before the deletes.
                let resource_version = state.store.current_rv();
                delete::delete_collection(&mut state, info, namespace, &selected, &opts)?;
                Ok(Outcome::Deleted(read::ListPage {
                    items: selected,
                    resource_version: Some(resource_version),
                    continue_token: None,
                    remaining: None,
                }))
            }
        }
    }
}

/// The warning of a Job's delete that names no propagation policy (`pkg/registry/batch/job/storage`).
const JOB_DELETE_WARNING: &str = "child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning";

/// A verb as it runs under the lock: a create or update with its body, checked before it.
enum Action {
    Get,
    List,
    Create(Result<Checked, ApiStatus>),
    Update(Result<Checked, ApiStatus>),
    Patch,
    Delete,
    DeleteCollection,
}

/// What a verb answers, before it is rendered.
enum Outcome {
    /// A stored object, shown in the version the request named.
    Object(StatusCode, Arc<Value>),
    /// An object the verb already shows in the request's version (a GET's): decoding it again
    /// would apply defaults it was read without.
    Shown(StatusCode, Arc<Value>),
    /// A Scale, shown as it is.
    Scale(StatusCode, Value),
    /// A page of a list.
    List(read::ListPage),
    /// The objects a delete-collection selected, before it deleted them.
    Deleted(read::ListPage),
    /// An answer already rendered.
    Body(StatusCode, Vec<u8>),
    /// 204: nothing to answer (a log without a location).
    Empty,
}

fn render_one(info: &ResourceInfo, render: Render, object: &Value) -> Vec<u8> {
    match render {
        Render::Metadata { version, .. } if object.get("kind").and_then(Value::as_str) == Some(info.kind.as_str()) => {
            go_json_writer::to_vec(&table::partial(object, version))
        }
        Render::Table(options) if object.get("kind").and_then(Value::as_str) == Some(info.kind.as_str()) => {
            let rv = crate::storage::object::resource_version(object).to_owned();
            go_json_writer::to_vec(&table::table(info, std::iter::once(object), options, &rv, None))
        }
        // A built-in object is a Go struct: type meta and object meta first, in Go's order.
        _ if info.builtin => go_json_writer::to_vec(&Ordered {
            value: object,
            shape: GoStruct::Object,
        }),
        _ => go_json_writer::to_vec(object),
    }
}

/// kube-apiserver's default field manager (`prefixFromUserAgent` in
/// `apiserver/pkg/endpoints/handlers/rest.go`): the user agent up to its first `/`, without
/// what does not print, stopped once 128 bytes are written.
fn default_manager(user_agent: &str) -> String {
    let prefix = user_agent.split('/').next().unwrap_or_default();
    let mut manager = String::new();
    for c in prefix.chars().filter(|c| !c.is_control()) {
        if manager.len() >= 128 {
            break;
        }
        manager.push(c);
    }
    if manager.is_empty() {
        "unknown".to_owned()
    } else {
        manager
    }
}

/// A `Status` the verb answered with (a binding's or an eviction's success), in Go's field order.
fn status_bytes(status: &Value) -> Vec<u8> {
    go_json_writer::to_vec(&Ordered {
        value: status,
        shape: GoStruct::Status,
    })
}
