//! Impersonation: `Impersonate-User`, `-Group`, `-Extra-*` and `-Uid` headers, each authorized
//! as the `impersonate` verb on users, groups, service accounts, user extras or uids, the
//! request then made as the user they name (`staging/src/k8s.io/apiserver/pkg/endpoints/
//! filters/impersonation.go`). This is how `kubectl --as` and a test run as another user.

use http::HeaderMap;

use crate::auth::attributes::Attributes;
use crate::auth::forbidden;
use crate::auth::user::{self, UserInfo};
use crate::status::ApiStatus;

const USER_HEADER: &str = "impersonate-user";
const GROUP_HEADER: &str = "impersonate-group";
const UID_HEADER: &str = "impersonate-uid";
const EXTRA_PREFIX: &str = "impersonate-extra-";

/// One thing a request asks to act as.
enum Impersonated {
    ServiceAccount { namespace: String, name: String },
    User(String),
    Group(String),
    Extra { key: String, value: String },
    Uid(String),
}

impl Impersonated {
    /// The `v1.ObjectReference` kube-apiserver builds for it, as Go's `%v` prints one:
    /// `{Kind Namespace Name UID APIVersion ResourceVersion FieldPath}`.
    fn go_reference(&self) -> String {
        const AUTHENTICATION: &str = "authentication.k8s.io/v1";
        let (kind, namespace, name, api_version, field_path) = match self {
            Impersonated::ServiceAccount { namespace, name } => {
                ("ServiceAccount", namespace.as_str(), name.as_str(), "", "")
            }
            Impersonated::User(name) => ("User", "", name.as_str(), "", ""),
            Impersonated::Group(name) => ("Group", "", name.as_str(), "", ""),
            Impersonated::Extra { key, value } => ("UserExtra", "", value.as_str(), AUTHENTICATION, key.as_str()),
            Impersonated::Uid(uid) => ("UID", "", uid.as_str(), AUTHENTICATION, ""),
        };
        format!("{{{kind} {namespace} {name}  {api_version}  {field_path}}}")
    }

    /// The `impersonate` request the requester must be allowed.
    fn attributes(&self) -> Attributes {
        let core = |resource: &str, namespace: &str, name: &str| Attributes {
            version: String::new(),
            ..Attributes::resource("impersonate", "", resource, namespace, name)
        };
        let authentication = |resource: &str, name: &str| Attributes {
            version: "v1".to_owned(),
            ..Attributes::resource("impersonate", "authentication.k8s.io", resource, "", name)
        };
        match self {
            Impersonated::ServiceAccount { namespace, name } => core("serviceaccounts", namespace, name),
            Impersonated::User(name) => core("users", "", name),
            Impersonated::Group(name) => core("groups", "", name),
            Impersonated::Extra { key, value } => Attributes {
                subresource: key.clone(),
                ..authentication("userextras", value)
            },
            Impersonated::Uid(uid) => authentication("uids", uid),
        }
    }
}

/// The user a request acts as: `requester`, or whom its impersonation headers name when
/// `authorize` allows the requester each of them.
pub(crate) fn impersonate(
    requester: UserInfo,
    headers: &HeaderMap,
    request_uri: &str,
    authorize: impl Fn(&UserInfo, &Attributes) -> crate::auth::rbac::Decision,
) -> Result<UserInfo, ApiStatus> {
    let requests = requests(headers, request_uri)?;
    if requests.is_empty() {
        return Ok(requester);
    }
    let groups_given = headers.contains_key(GROUP_HEADER);
    let mut acting = UserInfo::default();
    for request in &requests {
        let attrs = request.attributes();
        let decision = authorize(&requester, &attrs);
        if !decision.allowed {
            return Err(forbidden::refusal(&requester, &attrs, &decision.reason));
        }
        match request {
            Impersonated::ServiceAccount { namespace, name } => {
                acting.name = user::service_account_username(namespace, name);
                if !groups_given {
                    acting.groups = user::service_account_groups(namespace);
                }
            }
            Impersonated::User(name) => acting.name = name.clone(),
            Impersonated::Group(group) => acting.groups.push(group.clone()),
            Impersonated::Extra { key, value } => acting.extra.entry(key.clone()).or_default().push(value.clone()),
            Impersonated::Uid(uid) => acting.uid = uid.clone(),
        }
    }
    if acting.name == user::ANONYMOUS {
        if !acting.in_group(user::UNAUTHENTICATED) {
            acting.groups.push(user::UNAUTHENTICATED.to_owned());
        }
    } else if !acting.in_group(user::AUTHENTICATED) && !acting.in_group(user::UNAUTHENTICATED) {
        acting.groups.push(user::AUTHENTICATED.to_owned());
    }
    Ok(acting)
}

/// The impersonation the headers ask for, in the order kube-apiserver authorizes it: the
/// user, each group, each extra value, the uid. Groups, extras or a uid without a user are a
/// malformed request, which the filter answers as an internal error naming `request_uri`.
fn requests(headers: &HeaderMap, request_uri: &str) -> Result<Vec<Impersonated>, ApiStatus> {
    let text = |value: &http::HeaderValue| String::from_utf8_lossy(value.as_bytes()).into_owned();
    let mut requests = Vec::new();
    let user = headers.get(USER_HEADER).map(text).filter(|u| !u.is_empty());
    if let Some(name) = &user {
        requests.push(match user::split_service_account(name) {
            Some((namespace, account)) => Impersonated::ServiceAccount {
                namespace: namespace.to_owned(),
                name: account.to_owned(),
            },
            None => Impersonated::User(name.clone()),
        });
    }
    let mut others = 0;
    for group in headers.get_all(GROUP_HEADER) {
        requests.push(Impersonated::Group(text(group)));
        others += 1;
    }
    for (name, value) in headers {
        if let Some(key) = name.as_str().strip_prefix(EXTRA_PREFIX) {
            let key = percent_decode(key);
            requests.push(Impersonated::Extra {
                key,
                value: text(value),
            });
            others += 1;
        }
    }
    if let Some(uid) = headers.get(UID_HEADER).map(text).filter(|u| !u.is_empty()) {
        requests.push(Impersonated::Uid(uid));
        others += 1;
    }
    if others > 0 && user.is_none() {
        let asked: Vec<String> = requests.iter().map(Impersonated::go_reference).collect();
        let why = format!("requested [{}] without impersonating a user", asked.join(" "));
        return Err(ApiStatus::filter_internal_error(request_uri, &why));
    }
    Ok(requests)
}

/// `url.PathUnescape` of an extra's key: `%XX` escapes decoded, the key kept as it is when an
/// escape is malformed.
fn percent_decode(key: &str) -> String {
    let bytes = key.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = key
                .get(i + 1..i + 3)
                .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))
                .and_then(|h| u8::from_str_radix(h, 16).ok());
            let Some(byte) = hex else {
                return key.to_owned();
            };
            decoded.push(byte);
            i += 3;
        } else {
            decoded.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(decoded).unwrap_or_else(|_| key.to_owned())
}

#[cfg(test)]
mod tests {
    use http::HeaderValue;

    use super::*;

    #[test]
    fn groups_without_a_user_should_be_refused_naming_each_request_as_go_prints_it() {
        let mut headers = HeaderMap::new();
        headers.insert(GROUP_HEADER, HeaderValue::from_static("system:masters"));
        headers.insert("impersonate-extra-scopes", HeaderValue::from_static("view"));
        let Err(refused) = requests(&headers, "/api/v1/pods?a=1&b=<2>") else {
            panic!("groups without a user were accepted");
        };
        assert!(refused.plain_text);
        assert_eq!(
            refused.message,
            "Internal Server Error: \"/api/v1/pods?a=1&amp;b=&lt;2&gt;\": requested [{Group  system:masters    } \
             {UserExtra  view  authentication.k8s.io/v1  scopes}] without impersonating a user"
        );
    }
}
