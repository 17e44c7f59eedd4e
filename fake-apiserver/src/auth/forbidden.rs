//! The 403 of a request the authorizer did not allow, worded as `responsewriters.Forbidden`
//! words it (`staging/src/k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/errors.go`)
//! and shaped as `apierrors.NewForbidden`: the resource and name in the details, the
//! authorizer's reason after the message.

use serde_json::{Map, Value, json};

use crate::auth::attributes::Attributes;
use crate::auth::user::UserInfo;
use crate::status::ApiStatus;

/// The refusal of `attrs` for `user`, with the authorizer's `reason` (empty: none).
pub(crate) fn refusal(user: &UserInfo, attrs: &Attributes, reason: &str) -> ApiStatus {
    let why = sanitize(&message(user, attrs));
    let why = if reason.is_empty() {
        why
    } else {
        format!("{why}: {reason}")
    };
    let (group, resource, name) = if attrs.resource_request {
        (attrs.group.as_str(), attrs.resource.as_str(), attrs.name.as_str())
    } else {
        ("", "", "")
    };
    let qualified = if group.is_empty() {
        resource.to_owned()
    } else {
        format!("{resource}.{group}")
    };
    let message = match (qualified.is_empty(), name.is_empty()) {
        (true, _) => format!("forbidden: {why}"),
        (false, true) => format!("{qualified} is forbidden: {why}"),
        (false, false) => format!("{qualified} {name:?} is forbidden: {why}"),
    };
    let mut details = Map::new();
    for (key, value) in [("name", name), ("group", group), ("kind", resource)] {
        if !value.is_empty() {
            details.insert(key.to_owned(), json!(value));
        }
    }
    let mut status = ApiStatus::forbidden(message);
    status.details = Some(Value::Object(details));
    status
}

/// `forbiddenMessage`: who cannot do what, where.
fn message(user: &UserInfo, attrs: &Attributes) -> String {
    let username = &user.name;
    if !attrs.resource_request {
        return format!("User {username:?} cannot {} path {:?}", attrs.verb, attrs.path);
    }
    let resource = if attrs.subresource.is_empty() {
        attrs.resource.clone()
    } else {
        format!("{}/{}", attrs.resource, attrs.subresource)
    };
    let scope = if attrs.namespace.is_empty() {
        "at the cluster scope".to_owned()
    } else {
        format!("in the namespace {:?}", attrs.namespace)
    };
    format!(
        "User {username:?} cannot {} resource {resource:?} in API group {:?} {scope}",
        attrs.verb, attrs.group
    )
}

/// kube-apiserver escapes what would read as HTML in the message (quotes stay).
fn sanitize(message: &str) -> String {
    message.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_named_namespaced_subresource_is_refused_with_its_parent_in_the_details() {
        let attrs = Attributes::of_request("GET", "/apis/apps/v1/namespaces/ns/deployments/d1/scale", None)
            .expect("a resource path");
        let status = refusal(&UserInfo::anonymous(), &attrs, "");
        assert_eq!(
            status.message,
            "deployments.apps \"d1\" is forbidden: User \"system:anonymous\" cannot get resource \"deployments/scale\" in API group \"apps\" in the namespace \"ns\""
        );
        assert_eq!(
            status.details,
            Some(json!({"name": "d1", "group": "apps", "kind": "deployments"}))
        );
    }

    #[test]
    fn a_path_is_refused_without_details_and_with_the_reason() {
        let attrs = Attributes::of_request("GET", "/no/<such>", None).expect("a path");
        let status = refusal(
            &UserInfo::anonymous(),
            &attrs,
            "RBAC: role.rbac.authorization.k8s.io \"x\" not found",
        );
        assert_eq!(
            status.message,
            "forbidden: User \"system:anonymous\" cannot get path \"/no/&lt;such&gt;\": RBAC: role.rbac.authorization.k8s.io \"x\" not found"
        );
        assert_eq!(status.details, Some(json!({})));
    }
}
