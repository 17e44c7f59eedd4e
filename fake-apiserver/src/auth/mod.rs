//! Who sends a request and whether they may make it, decided before any handler runs, in the
//! order of kube-apiserver's handler chain (`DefaultBuildHandlerChain` of
//! `staging/src/k8s.io/apiserver/pkg/server/config.go`): the request's attributes, then
//! authentication (401), impersonation, and authorization (403) — so a path nothing serves is
//! refused 403 before it could be 404, as on a cluster. With authentication off (the in-process
//! default) every request is the admin's and every request is allowed, as with
//! `--authorization-mode=AlwaysAllow`; impersonation still applies.

pub(crate) mod attributes;
pub(crate) mod authenticate;
pub(crate) mod escalation;
pub(crate) mod forbidden;
pub(crate) mod impersonate;
pub(crate) mod rbac;
pub(crate) mod user;

use http::HeaderMap;
use serde_json::Value;

use crate::auth::attributes::Attributes;
pub(crate) use crate::auth::authenticate::Authenticator;
use crate::auth::rbac::{Decision, PolicyRule};
pub(crate) use crate::auth::user::UserInfo;
use crate::status::ApiStatus;
use crate::storage::State;

/// The request as the chain reads it.
pub(crate) struct Request<'a> {
    pub(crate) method: &'a str,
    pub(crate) path: &'a str,
    pub(crate) query: Option<&'a str>,
    pub(crate) headers: &'a HeaderMap,
}

impl Authenticator {
    /// The user `request` acts as, when it may be made.
    pub(crate) fn admit(&self, state: &State, request: &Request<'_>) -> Result<UserInfo, ApiStatus> {
        let attrs = Attributes::of_request(request.method, request.path, request.query)
            .map_err(|e| ApiStatus::internal(format!("failed to create RequestInfo: {e}")))?;
        let requester = if self.enabled {
            self.authenticate(state, request.headers)?
        } else {
            UserInfo::admin()
        };
        let uri = match request.query {
            Some(query) => format!("{}?{query}", request.path),
            None => request.path.to_owned(),
        };
        let user = impersonate::impersonate(requester, request.headers, &uri, |u, a| self.authorize(state, u, a))?;
        let decision = self.authorize(state, &user, &attrs);
        if !decision.allowed {
            return Err(forbidden::refusal(&user, &attrs, &decision.reason));
        }
        Ok(user)
    }

    /// The server's authorizer: RBAC behind `system:masters` when authentication is on,
    /// everything allowed when it is off.
    pub(crate) fn authorize(&self, state: &State, user: &UserInfo, attrs: &Attributes) -> Decision {
        if !self.enabled {
            return Decision {
                allowed: true,
                reason: String::new(),
            };
        }
        rbac::authorize(state, user, attrs)
    }

    /// A SelfSubjectRulesReview's status: what `user` may do in `namespace`, as the server's
    /// rule resolvers list it (`*` on everything when everything is allowed).
    pub(crate) fn rules_review(&self, state: &State, user: &UserInfo, namespace: &str) -> Value {
        if !self.enabled {
            let all = |urls: bool| PolicyRule {
                verbs: vec!["*".into()],
                api_groups: if urls { Vec::new() } else { vec!["*".into()] },
                resources: if urls { Vec::new() } else { vec!["*".into()] },
                non_resource_urls: if urls { vec!["*".into()] } else { Vec::new() },
                ..PolicyRule::default()
            };
            return rbac::rules_review_status(&[all(false), all(true)], None);
        }
        let (rules, error) = rbac::rules_for(state, user, namespace);
        rbac::rules_review_status(&rules, error)
    }
}
