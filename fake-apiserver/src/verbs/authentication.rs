//! The create-only resources of authentication, answered and never stored:
//! `serviceaccounts/token` (`pkg/registry/core/serviceaccount/storage/token.go`: a TokenRequest
//! in, the same with a signed token out), `tokenreviews`
//! (`pkg/registry/authentication/tokenreview/storage.go`: whether a token authenticates, and
//! as whom: the token's own checks, then its service account, secret or pod must still be the
//! one it names) and `selfsubjectreviews` (the requester, as authenticated or impersonated).

use serde_json::{Value, json};

use crate::auth::UserInfo;
use crate::auth::authenticate;
use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::managed_fields;
use crate::semantics::service_account_token::{self, Claims, ISSUER};
use crate::status::ApiStatus;
use crate::storage::State;
use crate::storage::object;
use crate::storage::resource::ResourceInfo;

/// A pod-bound token asked for this long gets a year, warning after this (`WarnOnlyBound…`).
const WARN_ONLY_SECONDS: i64 = 60 * 60 + 7;
const EXTENDED_SECONDS: i64 = 24 * 365 * 60 * 60;

/// Whether a create on `info` (through `subresource`) is answered here.
pub(crate) fn concerns(info: &ResourceInfo, subresource: Option<&str>) -> bool {
    info.builtin
        && match subresource {
            Some("token") => info.group.is_empty() && info.plural == "serviceaccounts",
            None => info.group == "authentication.k8s.io",
            Some(_) => false,
        }
}

/// The kind a TokenRequest is, for its managed fields and its errors.
fn token_request_info() -> ResourceInfo {
    ResourceInfo::builtin("authentication.k8s.io", "v1", "TokenRequest", "tokenrequests")
}

/// The decoded body of a create: a JSON object of `kind` (absent kind and version default to
/// it), or Go's decoding refusal.
pub(crate) fn decode(body: &[u8], group: &str, kind: &str) -> Result<Value, ApiStatus> {
    let value: Value = serde_json::from_slice(body)
        .ok()
        .filter(Value::is_object)
        .ok_or_else(|| ApiStatus::bad_request("the request body must be a JSON object"))?;
    let sent_kind = value.get("kind").and_then(Value::as_str).unwrap_or_default();
    let sent_version = value.get("apiVersion").and_then(Value::as_str).unwrap_or_default();
    if !sent_kind.is_empty() && sent_kind != kind {
        let version = sent_version.rsplit('/').next().unwrap_or_default();
        let package = group.split('.').next().unwrap_or_default();
        return Err(ApiStatus::bad_request(format!(
            "{sent_kind} in version {version:?} cannot be handled as a {kind}: converting ({version}.{sent_kind}) to ({package}.{kind}): unknown conversion"
        )));
    }
    Ok(value)
}

/// The managed fields a create of `object` records for `manager` (through `subresource`).
pub(crate) fn with_managed_fields(
    info: &ResourceInfo,
    mut object: Value,
    manager: &str,
    subresource: Option<&str>,
) -> Value {
    let status = object.as_object_mut().and_then(|o| o.remove("status"));
    managed_fields::record_update(None, &mut object, info, manager, subresource, &object::now());
    if let Some(status) = status {
        object["status"] = status;
    }
    object
}

/// POST `serviceaccounts/<name>/token`.
pub(crate) fn request_token(
    state: &State,
    namespace: &str,
    name: &str,
    body: &[u8],
    manager: &str,
) -> Result<Value, ApiStatus> {
    let info = token_request_info();
    let mut request = decode(body, &info.group, &info.kind)?;
    let invalid = |errors: &[FieldError], named: &str| ApiStatus::invalid_fields(&info, named, errors);
    let sent_name = object::name(&request).to_owned();
    if !sent_name.is_empty() && sent_name != name {
        let error = FieldError::invalid(
            "metadata.name",
            sent_name.as_str().into(),
            "must match the service account name if specified",
        );
        return Err(invalid(&[error], name));
    }
    let sent_namespace = object::namespace(&request).to_owned();
    if !sent_namespace.is_empty() && sent_namespace != namespace {
        let error = FieldError::invalid(
            "metadata.namespace",
            sent_namespace.as_str().into(),
            "must match the service account namespace if specified",
        );
        return Err(invalid(&[error], name));
    }
    let accounts = state.info("", "v1", "serviceaccounts");
    let account = state
        .object(&accounts, Some(namespace), name)
        .ok_or_else(|| ApiStatus::not_found(&accounts, name))?;
    if !request.get("spec").is_some_and(Value::is_object) {
        request["spec"] = json!({});
    }
    let spec = &mut request["spec"];
    if spec.get("expirationSeconds").is_none_or(Value::is_null) {
        spec["expirationSeconds"] = json!(3600);
    }
    // The managed fields see the request as defaulted, before the audiences are.
    request["apiVersion"] = json!("authentication.k8s.io/v1");
    request["kind"] = json!("TokenRequest");
    let meta = object::meta_mut(&mut request);
    meta.insert("name".to_owned(), json!(name));
    meta.insert("namespace".to_owned(), json!(namespace));
    meta.insert("creationTimestamp".to_owned(), json!(object::now()));
    let mut request = with_managed_fields(&info, request, manager, Some("token"));
    let spec = &mut request["spec"];
    if spec
        .get("audiences")
        .and_then(Value::as_array)
        .is_none_or(Vec::is_empty)
    {
        spec["audiences"] = json!([ISSUER]);
    }
    let seconds = spec.get("expirationSeconds").and_then(Value::as_i64).unwrap_or(3600);
    let mut errors = Vec::new();
    if seconds < 600 {
        errors.push(FieldError::invalid(
            "spec.expirationSeconds",
            BadValue::Int(seconds),
            "may not specify a duration less than 10 minutes",
        ));
    }
    if seconds > 1 << 32 {
        errors.push(FieldError::invalid(
            "spec.expirationSeconds",
            BadValue::Int(seconds),
            "may not specify a duration larger than 2^32 seconds",
        ));
    }
    if !errors.is_empty() {
        return Err(invalid(&errors, ""));
    }
    let audiences: Vec<String> = spec["audiences"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect();
    let bound = match spec.get("boundObjectRef").filter(|r| !r.is_null()) {
        Some(reference) => Some(bound_object(state, namespace, name, reference)?),
        None => {
            spec["boundObjectRef"] = Value::Null;
            None
        }
    };
    let now = jiff::Timestamp::now().as_second();
    let pod_bound = bound.as_ref().is_some_and(|(kind, _, _)| kind == "pod");
    let extended = pod_bound && seconds == WARN_ONLY_SECONDS && audiences.iter().all(|a| a == ISSUER);
    let claims = Claims {
        namespace: namespace.to_owned(),
        name: name.to_owned(),
        uid: object::uid(&account).to_owned(),
        bound,
        audiences,
        issued: now,
        expires: now + if extended { EXTENDED_SECONDS } else { seconds },
        warn_after: extended.then_some(now + seconds),
        // ServiceAccountTokenJTI is on from 1.30.
        id: (state.options.minor() >= 30).then(|| uuid::Uuid::new_v4().to_string()),
        legacy: false,
    };
    let token = service_account_token::issue(&claims)
        .map_err(|e| ApiStatus::internal(format!("failed to generate token: {e}")))?;
    let expiry = jiff::Timestamp::from_second(now + seconds).unwrap_or_else(|_| jiff::Timestamp::now());
    request["status"] =
        json!({ "token": token, "expirationTimestamp": expiry.strftime("%Y-%m-%dT%H:%M:%SZ").to_string() });
    Ok(request)
}

/// The object a token is bound to: a Secret or a Pod of the namespace (the pod running as the
/// service account), whose uid must be the one given.
fn bound_object(
    state: &State,
    namespace: &str,
    account: &str,
    reference: &Value,
) -> Result<(String, String, String), ApiStatus> {
    let text = |key: &str| {
        reference
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let (api_version, kind, name, uid) = (text("apiVersion"), text("kind"), text("name"), text("uid"));
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", &api_version));
    let plural = match (group, kind.as_str()) {
        ("", "Pod") => "pods",
        ("", "Secret") => "secrets",
        _ => {
            return Err(ApiStatus::bad_request(format!(
                "cannot bind token to object of type {group}/{version}, Kind={kind}"
            )));
        }
    };
    let info = state.info("", "v1", plural);
    let found = state
        .object(&info, Some(namespace), &name)
        .ok_or_else(|| ApiStatus::not_found(&info, &name))?;
    if plural == "pods" && found.pointer("/spec/serviceAccountName").and_then(Value::as_str) != Some(account) {
        return Err(ApiStatus::bad_request(format!(
            "cannot bind token for serviceaccount {account:?} to pod running with different serviceaccount name."
        )));
    }
    let actual = object::uid(&found).to_owned();
    if !uid.is_empty() && uid != actual {
        let why = format!(
            "the UID in the bound object reference ({uid}) does not match the UID in record. The object might have been deleted and then recreated"
        );
        let mut status = ApiStatus::new(
            409,
            "Conflict",
            format!("Operation cannot be fulfilled on {kind} {name:?}: {why}"),
        );
        status.details = Some(json!({ "name": name, "kind": kind }));
        return Err(status);
    }
    Ok((kind.to_lowercase(), name, actual))
}

/// POST `tokenreviews`.
pub(crate) fn review_token(state: &State, info: &ResourceInfo, body: &[u8], manager: &str) -> Result<Value, ApiStatus> {
    let review = decode(body, &info.group, &info.kind)?;
    let token = review
        .pointer("/spec/token")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    if token.is_empty() {
        return Err(ApiStatus::bad_request(
            "token is required for TokenReview in authentication",
        ));
    }
    let wanted: Vec<String> = review
        .pointer("/spec/audiences")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect();
    let mut review = review;
    review["apiVersion"] = json!("authentication.k8s.io/v1");
    review["kind"] = json!("TokenReview");
    object::meta_mut(&mut review).insert("creationTimestamp".to_owned(), Value::Null);
    let mut review = with_managed_fields(info, review, manager, None);
    let now = jiff::Timestamp::now().as_second();
    review["status"] = match authenticate::service_account_user(state, &token, &wanted, now) {
        Ok((user, claims)) => {
            json!({ "authenticated": true, "user": user.authenticated().to_json(), "audiences": claims.audiences })
        }
        Err(refusal) => json!({ "user": {}, "error": refusal.to_string() }),
    };
    Ok(review)
}

/// POST `selfsubjectreviews`: who the requester is.
pub(crate) fn review_self(info: &ResourceInfo, body: &[u8], requester: &UserInfo) -> Result<Value, ApiStatus> {
    let mut review = decode(body, &info.group, &info.kind)?;
    review["apiVersion"] = json!("authentication.k8s.io/v1");
    review["kind"] = json!("SelfSubjectReview");
    object::meta_mut(&mut review).insert("creationTimestamp".to_owned(), json!(object::now()));
    review["status"] = json!({
        "userInfo": requester.to_json(),
    });
    Ok(review)
}
