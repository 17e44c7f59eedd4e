//! The kinds kube-apiserver's scheme registers for a group version, as its decoder meets a
//! body's type meta (`runtime.UseOrCreateObject` → `Scheme.New`, apimachinery/pkg/runtime/scheme.go):
//! a kind it registers there is decoded and then fails to convert to the endpoint's type, one it
//! does not is refused by name.

use std::collections::HashSet;
use std::sync::LazyLock;

use serde_json::Value;

use crate::storage::builtin::builtins;
use crate::storage::resource::ResourceInfo;

/// The name a scheme gives itself in its errors (`naming.GetNameFromCallsite` in
/// `runtime.NewScheme`). It is the first caller outside `k8s.io/apimachinery/pkg/runtime/scheme.go`,
/// which a binary built in module mode (its paths `k8s.io/apimachinery@v0.x/…`, as the corpus'
/// kube-apiserver was built) does not recognise: every scheme is then named after the line of
/// `NewScheme` itself. A vendored build names `pkg/api/legacyscheme/scheme.go:30` (the
/// normalizer makes the two equal).
pub(crate) const SCHEME_NAME: &str = "pkg/runtime/scheme.go:100";

/// The option kinds `metav1.AddToGroupVersion` registers in every external group version.
const OPTION_KINDS: [&str; 7] = [
    "WatchEvent",
    "ListOptions",
    "GetOptions",
    "DeleteOptions",
    "CreateOptions",
    "UpdateOptions",
    "PatchOptions",
];

/// Kinds registered unversioned, found in any group version (`AddUnversionedTypes`).
const UNVERSIONED_KINDS: [&str; 5] = ["Status", "APIVersions", "APIGroupList", "APIGroup", "APIResourceList"];

/// Every `(group, version, kind)` of the built-in table, in any emulated minor, with its list
/// kind.
static BUILTIN_KINDS: LazyLock<HashSet<(String, String, String)>> = LazyLock::new(|| {
    (28..=31)
        .flat_map(builtins)
        .flat_map(|info| {
            let list = format!("{}List", info.kind);
            [
                (info.group.clone(), info.version.clone(), info.kind.clone()),
                (info.group, info.version, list),
            ]
        })
        .collect()
});

/// Whether the scheme knows `kind` in `group`/`version` (the core group is `""`).
pub(crate) fn is_registered(group: &str, version: &str, kind: &str) -> bool {
    if UNVERSIONED_KINDS.contains(&kind) {
        return true;
    }
    let served_version = BUILTIN_KINDS.iter().any(|(g, v, _)| g == group && v == version);
    if served_version && (OPTION_KINDS.contains(&kind) || (group.is_empty() && kind == "List")) {
        return true;
    }
    BUILTIN_KINDS.contains(&(group.to_owned(), version.to_owned(), kind.to_owned()))
}

/// Why the typed decoder refuses a built-in kind's body for its type meta, with what
/// `transformDecodeError` names as sent (`Kind in version "v"`): a kind the scheme registers
/// in the body's group version decodes, then fails to convert to the endpoint's type unless it
/// is the same kind of the same group; any other is not registered there. A missing `apiVersion`
/// or `kind` is the endpoint's.
pub(crate) fn builtin_type_meta_error(info: &ResourceInfo, body: &Value) -> Option<(String, String)> {
    let text = |key: &str| body.get(key).and_then(Value::as_str).unwrap_or_default();
    let (api_version, kind) = (text("apiVersion"), text("kind"));
    let (group, version) = match api_version.rsplit_once('/') {
        _ if api_version.is_empty() => (info.group.as_str(), info.version.as_str()),
        Some((group, version)) => (group, version),
        None => ("", api_version),
    };
    let kind = if kind.is_empty() { info.kind.as_str() } else { kind };
    if group == info.group && kind == info.kind && (version == info.version || is_registered(group, version, kind)) {
        return None;
    }
    let subject = format!("{kind} in version {version:?}");
    if is_registered(group, version, kind) {
        let internal_group = if info.group.is_empty() {
            "core"
        } else {
            info.group.as_str()
        };
        let why = format!(
            "converting ({version}.{kind}) to ({internal_group}.{}): unknown conversion",
            info.kind
        );
        return Some((subject, why));
    }
    let group_version = if group.is_empty() {
        version.to_owned()
    } else {
        format!("{group}/{version}")
    };
    let why = format!(
        "no kind {kind:?} is registered for version {group_version:?} in scheme {:?}",
        SCHEME_NAME
    );
    Some((subject, why))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_registered_in_their_own_group_version_only() {
        assert!(is_registered("apps", "v1", "Deployment"));
        assert!(is_registered("apps", "v1", "DeploymentList"));
        assert!(is_registered("", "v1", "DeleteOptions"));
        assert!(is_registered("", "v1", "List"));
        assert!(is_registered("nope.example.com", "v1", "Status"));
        assert!(!is_registered("", "v1", "Deployment"));
        assert!(!is_registered("", "v1", "configmap"));
        assert!(!is_registered("", "v2", "ConfigMap"));
        assert!(!is_registered("apps", "v1", "ConfigMap"));
    }
}
