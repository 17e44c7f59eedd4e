//! Authentication of a request, as kube-apiserver's authenticator chain does it for bearer
//! tokens: `request/bearertoken/bearertoken.go` (the `Authorization` header), a static token
//! file (`token/tokenfile/tokenfile.go`), service account tokens (`pkg/serviceaccount/jwt.go`
//! and the validator of `pkg/serviceaccount/claims.go`, which checks the objects a token names
//! still exist), the authenticated-group adder, and `request/anonymous/anonymous.go` for a
//! request without credentials (`--anonymous-auth`, on by default).

use std::collections::BTreeMap;

use http::HeaderMap;

use crate::auth::user::{self, UserInfo};
use crate::semantics::service_account_token::{self, Claims, ISSUER, Refusal};
use crate::status::ApiStatus;
use crate::storage::State;
use crate::storage::object;

/// The credentials a server accepts.
#[derive(Clone, Debug)]
pub(crate) struct Authenticator {
    /// Off: every request is the admin's, and every request is allowed.
    pub(crate) enabled: bool,
    /// Static bearer tokens and their users (`--token-auth-file`).
    pub(crate) tokens: BTreeMap<String, UserInfo>,
    /// The admin's token, one of `tokens`: what the server's own clients and kubeconfigs send.
    pub(crate) admin_token: String,
}

impl Authenticator {
    /// Authentication off, with a fresh random admin token (so that a kubeconfig written for
    /// the server still works once it is turned on).
    pub(crate) fn new() -> Self {
        let admin_token = uuid::Uuid::new_v4().simple().to_string();
        let tokens = BTreeMap::from([(
            admin_token.clone(),
            UserInfo::new("admin", "admin", &[user::PRIVILEGED]),
        )]);
        Authenticator {
            enabled: false,
            tokens,
            admin_token,
        }
    }

    /// Who sent a request with `headers`: a known bearer token's user (authenticated), the
    /// anonymous user when the request carries no bearer token, or 401 for a token nobody
    /// knows.
    pub(crate) fn authenticate(&self, state: &State, headers: &HeaderMap) -> Result<UserInfo, ApiStatus> {
        let Some(token) = bearer_token(headers) else {
            return Ok(UserInfo::anonymous());
        };
        if let Some(user) = self.tokens.get(token) {
            return Ok(user.clone().authenticated());
        }
        let now = jiff::Timestamp::now().as_second();
        service_account_user(state, token, &[ISSUER.to_owned()], now)
            .map(|(user, _)| user.authenticated())
            .map_err(|_| ApiStatus::unauthorized())
    }
}

/// The token of an `Authorization: Bearer <token>` header; `None` when the header is absent,
/// empty, of another scheme, or has no token, which leaves the request to the anonymous
/// authenticator.
fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    let header = headers.get(http::header::AUTHORIZATION)?.to_str().ok()?.trim();
    let mut parts = header.splitn(3, ' ');
    let scheme = parts.next()?;
    let token = parts.next()?;
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// The user of a service account token for one of `audiences`, with its claims: the token's
/// own checks, then whether its service account (and the secret or pod it is bound to) is
/// still the one it names.
pub(crate) fn service_account_user(
    state: &State,
    token: &str,
    audiences: &[String],
    now: i64,
) -> Result<(UserInfo, Claims), Refusal> {
    let claims = service_account_token::verify(token, audiences, now)?;
    if claims.legacy {
        legacy_still_valid(state, &claims, token)?;
    } else {
        still_valid(state, &claims)?;
    }
    let mut user = UserInfo::service_account(&claims.namespace, &claims.name, &claims.uid);
    if let Some((_, name, uid)) = claims.bound.as_ref().filter(|(kind, _, _)| kind == "pod") {
        user.extra.insert(user::POD_NAME_KEY.to_owned(), vec![name.clone()]);
        user.extra.insert(user::POD_UID_KEY.to_owned(), vec![uid.clone()]);
    }
    if let Some(id) = &claims.id {
        user.extra
            .insert(user::CREDENTIAL_ID_KEY.to_owned(), vec![format!("JTI={id}")]);
    }
    Ok((user, claims))
}

/// The validator's checks of what a token names: its service account (not deleted, the same
/// uid), and the secret or pod it is bound to.
fn still_valid(state: &State, claims: &Claims) -> Result<(), Refusal> {
    let invalid = |why: String| Refusal::Invalid(why);
    let accounts = state.info("", "v1", "serviceaccounts");
    let account = state
        .object(&accounts, Some(&claims.namespace), &claims.name)
        .ok_or_else(|| invalid(format!("serviceaccounts {:?} not found", claims.name)))?;
    if object::is_deleting(&account) {
        return Err(invalid(format!(
            "service account {}/{} has been deleted",
            claims.namespace, claims.name
        )));
    }
    if object::uid(&account) != claims.uid {
        return Err(invalid(format!(
            "service account UID ({}) does not match claim ({})",
            object::uid(&account),
            claims.uid
        )));
    }
    if let Some((kind, name, uid)) = &claims.bound {
        let plural = if kind == "pod" { "pods" } else { "secrets" };
        let info = state.info("", "v1", plural);
        let found = state
            .object(&info, Some(&claims.namespace), name)
            .filter(|o| !object::is_deleting(o))
            .ok_or_else(|| invalid("service account token has been invalidated".to_owned()))?;
        if object::uid(&found) != uid {
            return Err(invalid(format!(
                "{kind} UID ({}) does not match service account {kind} ref claim ({uid})",
                object::uid(&found)
            )));
        }
    }
    Ok(())
}

/// The legacy validator's lookups (`legacyValidator.Validate`): the Secret still holds the token,
/// the ServiceAccount is still the one it names. The Secret's `kubernetes.io/legacy-token-last-used`
/// label, which kube-apiserver writes on use, is not.
fn legacy_still_valid(state: &State, claims: &Claims, token: &str) -> Result<(), Refusal> {
    let invalid = |why: String| Refusal::Invalid(why);
    let (namespace, name) = (&claims.namespace, &claims.name);
    let secret_name = claims
        .bound
        .as_ref()
        .map(|(_, secret, _)| secret.as_str())
        .unwrap_or_default();
    let secrets = state.info("", "v1", "secrets");
    let secret = state
        .object(&secrets, Some(namespace), secret_name)
        .filter(|s| !object::is_deleting(s))
        .ok_or_else(|| invalid("Token has been invalidated".to_owned()))?;
    let stored = secret
        .pointer("/data/token")
        .and_then(serde_json::Value::as_str)
        .unwrap_or_default();
    let decoded = base64::Engine::decode(&base64::engine::general_purpose::STANDARD, stored).unwrap_or_default();
    if decoded != token.as_bytes() {
        return Err(invalid("Token does not match server's copy".to_owned()));
    }
    let accounts = state.info("", "v1", "serviceaccounts");
    let account = state
        .object(&accounts, Some(namespace), name)
        .ok_or_else(|| invalid(format!("serviceaccounts {name:?} not found")))?;
    if object::is_deleting(&account) {
        return Err(invalid(format!("ServiceAccount {namespace}/{name} has been deleted")));
    }
    if object::uid(&account) != claims.uid {
        let message = format!(
            "ServiceAccount UID ({}) does not match claim ({})",
            object::uid(&account),
            claims.uid
        );
        return Err(invalid(message));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(http::header::AUTHORIZATION, value.parse().expect("a header value"));
        headers
    }

    #[test]
    fn only_a_bearer_scheme_with_a_token_carries_one() {
        assert_eq!(bearer_token(&headers("Bearer abc")), Some("abc"));
        assert_eq!(bearer_token(&headers("  bearer abc  ")), Some("abc"));
        assert_eq!(bearer_token(&headers("Bearer abc def")), Some("abc"));
        assert_eq!(bearer_token(&headers("Bearer")), None);
        assert_eq!(bearer_token(&headers("Bearer  abc")), None);
        assert_eq!(bearer_token(&headers("Basic YWRtaW46YWRtaW4=")), None);
        assert_eq!(bearer_token(&headers("")), None);
        assert_eq!(bearer_token(&HeaderMap::new()), None);
    }
}
