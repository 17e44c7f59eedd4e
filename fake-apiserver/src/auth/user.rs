//! Who a request comes from: `user.Info` of `k8s.io/apiserver/pkg/authentication/user`, with the
//! users and groups kube-apiserver names itself (`user/user.go`, `serviceaccount/util.go`).

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::semantics::names::dns1123_subdomain_errors;
use crate::storage::object::string_list;

/// The user of a request that carries no credentials.
pub(crate) const ANONYMOUS: &str = "system:anonymous";
/// The group of every user that authenticated.
pub(crate) const AUTHENTICATED: &str = "system:authenticated";
/// The group of the anonymous user.
pub(crate) const UNAUTHENTICATED: &str = "system:unauthenticated";
/// The group every authorizer allows everything (`user.SystemPrivilegedGroup`).
pub(crate) const PRIVILEGED: &str = "system:masters";
const SERVICE_ACCOUNT_PREFIX: &str = "system:serviceaccount:";
const SERVICE_ACCOUNTS_GROUP: &str = "system:serviceaccounts";
/// A bound token's pod, in the user's extra.
pub(crate) const POD_NAME_KEY: &str = "authentication.kubernetes.io/pod-name";
/// A bound token's pod uid, in the user's extra.
pub(crate) const POD_UID_KEY: &str = "authentication.kubernetes.io/pod-uid";
/// The id of a token that has one (`jti`), in the user's extra.
pub(crate) const CREDENTIAL_ID_KEY: &str = "authentication.kubernetes.io/credential-id";

/// A user as the authenticators and the authorizer see it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct UserInfo {
    pub(crate) name: String,
    pub(crate) uid: String,
    pub(crate) groups: Vec<String>,
    pub(crate) extra: BTreeMap<String, Vec<String>>,
}

impl UserInfo {
    /// A user of `name` with `uid` and `groups`, nothing extra.
    pub(crate) fn new(name: &str, uid: &str, groups: &[&str]) -> Self {
        Self {
            name: name.to_owned(),
            uid: uid.to_owned(),
            groups: groups.iter().map(|g| (*g).to_owned()).collect(),
            extra: BTreeMap::new(),
        }
    }

    /// The cluster's admin, as the static token of a kubeadm or `shared/realapi` cluster names
    /// it, authenticated.
    pub(crate) fn admin() -> Self {
        Self::new("admin", "admin", &[PRIVILEGED, AUTHENTICATED])
    }

    /// The anonymous user (`anonymous.go`).
    pub(crate) fn anonymous() -> Self {
        Self::new(ANONYMOUS, "", &[UNAUTHENTICATED])
    }

    /// A service account's user (`serviceaccount.UserInfo`), before the authenticated group.
    pub(crate) fn service_account(namespace: &str, name: &str, uid: &str) -> Self {
        Self {
            name: service_account_username(namespace, name),
            uid: uid.to_owned(),
            groups: service_account_groups(namespace),
            extra: BTreeMap::new(),
        }
    }

    /// The user with `system:authenticated` added, as the authenticated-group adder does for
    /// every authenticator but the anonymous one.
    pub(crate) fn authenticated(mut self) -> Self {
        if !self.in_group(AUTHENTICATED) {
            self.groups.push(AUTHENTICATED.to_owned());
        }
        self
    }

    /// Whether the user is in `group`.
    pub(crate) fn in_group(&self, group: &str) -> bool {
        self.groups.iter().any(|g| g == group)
    }

    /// `authentication.k8s.io/v1` `UserInfo`, its empty fields left out.
    pub(crate) fn to_json(&self) -> Value {
        let mut user = Map::new();
        if !self.name.is_empty() {
            user.insert("username".into(), json!(self.name));
        }
        if !self.uid.is_empty() {
            user.insert("uid".into(), json!(self.uid));
        }
        if !self.groups.is_empty() {
            user.insert("groups".into(), json!(self.groups));
        }
        if !self.extra.is_empty() {
            user.insert("extra".into(), json!(self.extra));
        }
        Value::Object(user)
    }

    /// A user as a SubjectAccessReview's spec names it.
    pub(crate) fn from_review_spec(spec: &Value) -> Self {
        let text = |key: &str| spec.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
        let extra = spec
            .get("extra")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .map(|(key, values)| (key.clone(), string_list(Some(values))))
            .collect();
        Self {
            name: text("user"),
            uid: text("uid"),
            groups: string_list(spec.get("groups")),
            extra,
        }
    }
}

/// `system:serviceaccount:<namespace>:<name>`.
pub(crate) fn service_account_username(namespace: &str, name: &str) -> String {
    format!("{SERVICE_ACCOUNT_PREFIX}{namespace}:{name}")
}

/// A service account's groups: all service accounts', and its namespace's.
pub(crate) fn service_account_groups(namespace: &str) -> Vec<String> {
    vec![
        SERVICE_ACCOUNTS_GROUP.to_owned(),
        format!("{SERVICE_ACCOUNTS_GROUP}:{namespace}"),
    ]
}

/// The namespace and name of a service account's user name, when it is one whose namespace
/// and name are valid (`serviceaccount.SplitUsername`).
pub(crate) fn split_service_account(username: &str) -> Option<(&str, &str)> {
    let rest = username.strip_prefix(SERVICE_ACCOUNT_PREFIX)?;
    let mut parts = rest.split(':');
    let (namespace, name) = (parts.next()?, parts.next()?);
    let valid = parts.next().is_none()
        && crate::semantics::names::dns1123_label_errors(namespace).is_empty()
        && dns1123_subdomain_errors(name).is_empty();
    valid.then_some((namespace, name))
}

/// Whether `username` is the service account `namespace/name` (`serviceaccount.MatchesUsername`).
pub(crate) fn matches_service_account(namespace: &str, name: &str, username: &str) -> bool {
    username
        .strip_prefix(SERVICE_ACCOUNT_PREFIX)
        .and_then(|rest| rest.strip_prefix(namespace))
        .and_then(|rest| rest.strip_prefix(':'))
        == Some(name)
}
