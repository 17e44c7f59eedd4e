//! Aggregated discovery: `/api` and `/apis` as one `APIGroupDiscoveryList` each, with every
//! group, version and resource, for clients that ask for it in `Accept` (kubectl from 1.26,
//! client-go, kube's `Discovery`), as kube-apiserver serves it
//! (`apiserver/pkg/endpoints/discovery/aggregated`: `wrapper.go`'s negotiation, `etag.go`;
//! `endpoints/installer.go`'s `ConvertGroupVersionIntoToDiscovery`; apiextensions'
//! `customresource_discovery_controller.go` for CRDs). `apidiscovery.k8s.io/v2beta1` is served
//! from 1.26, `v2` from 1.30, following the minor the server reports.

use ring::digest;
use serde_json::{Value, json};

use crate::http::render;
use crate::lifecycle::group_priority;
use crate::status::ApiStatus;
use crate::storage::registry::Registry;
use crate::storage::resource::{Lifecycle, ResourceInfo};

/// What a discovery request's `Accept` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Wanted {
    /// The aggregated list, in this `apidiscovery.k8s.io` version.
    Aggregated(&'static str),
    /// The legacy document (`APIVersions`, `APIGroupList`, `APIGroup`, `APIResourceList`), as
    /// JSON or, asked for, as YAML (`WriteObjectNegotiated` with the default serializers).
    Legacy { yaml: bool },
}

/// The media types kube-apiserver names when it can answer none of those accepted.
const SUPPORTED: &str = "application/json, application/yaml, application/vnd.kubernetes.protobuf";

/// Picks the first acceptable clause of `accept` (Go's `NegotiateMediaTypeOptions` with the
/// discovery endpoint's restrictions): a JSON clause converting to this server's
/// `APIGroupDiscoveryList` versions, or a plain JSON (or wildcard) one. `aggregate` is false where
/// only the legacy document is served (`/apis/<group>`). 406 when no clause fits.
pub(crate) fn negotiate(accept: &str, minor: u32, aggregate: bool) -> Result<Wanted, ApiStatus> {
    if accept.trim().is_empty() {
        return Ok(Wanted::Legacy { yaml: false });
    }
    for clause in render::clauses(accept) {
        let mut parts = clause.split(';').map(str::trim);
        let media = parts.next().unwrap_or_default();
        let params: Vec<(&str, &str)> = parts
            .filter_map(|p| p.split_once('='))
            .filter(|(k, _)| *k != "q")
            .collect();
        let param = |key: &str| params.iter().find(|(k, _)| *k == key).map(|(_, v)| *v);
        let plain = param("g").is_none() && param("v").is_none() && param("as").is_none();
        if media == "application/yaml" && plain {
            return Ok(Wanted::Legacy { yaml: true });
        }
        let json = matches!(media, "application/json" | "application/*" | "*/*");
        if !json {
            continue;
        }
        if plain {
            return Ok(Wanted::Legacy { yaml: false });
        }
        let version = match param("v") {
            Some("v2beta1") if minor >= 26 => "v2beta1",
            Some("v2") if minor >= 30 => "v2",
            _ => continue,
        };
        if aggregate && param("g") == Some("apidiscovery.k8s.io") && param("as") == Some("APIGroupDiscoveryList") {
            return Ok(Wanted::Aggregated(version));
        }
    }
    Err(ApiStatus::not_acceptable(format!(
        "only the following media types are accepted: {SUPPORTED}"
    )))
}

/// The `Content-Type` of an aggregated answer.
pub(crate) fn content_type(version: &str) -> String {
    format!("application/json;g=apidiscovery.k8s.io;v={version};as=APIGroupDiscoveryList")
}

/// The `ETag` of a document: its JSON's SHA-512 in upper-case hex, quoted.
pub(crate) fn etag(json: &[u8]) -> String {
    let hash = digest::digest(&digest::SHA512, json);
    let hex: String = hash.as_ref().iter().map(|b| format!("{b:02X}")).collect();
    format!("\"{hex}\"")
}

/// `/api` (`core` true) or `/apis` as an `APIGroupDiscoveryList` of `version`, its groups in
/// the merged discovery handler's order: by group priority, highest first, then by name.
pub(crate) fn document(registry: &Registry, core: bool, version: &str) -> Value {
    let mut groups: Vec<(&String, &Vec<String>)> = registry
        .groups()
        .filter(|(group, _)| group.is_empty() == core)
        .collect();
    groups.sort_by_key(|(group, versions)| {
        let custom = versions.iter().any(|v| {
            registry
                .resources_in(group, v)
                .iter()
                .any(|r| r.lifecycle == Lifecycle::CustomResource)
        });
        (std::cmp::Reverse(group_priority(group, custom)), (*group).clone())
    });
    let items: Vec<Value> = groups
        .into_iter()
        .map(|(group, versions)| {
            let mut metadata = json!({ "creationTimestamp": null });
            if !group.is_empty() {
                metadata["name"] = json!(group);
            }
            let versions: Vec<Value> = versions
                .iter()
                .map(|v| {
                    let resources: Vec<Value> = registry
                        .resources_in(group, v)
                        .into_iter()
                        .map(|info| resource(info))
                        .collect();
                    json!({ "version": v, "resources": resources, "freshness": "Current" })
                })
                .collect();
            json!({ "metadata": metadata, "versions": versions })
        })
        .collect();
    json!({
        "kind": "APIGroupDiscoveryList",
        "apiVersion": format!("apidiscovery.k8s.io/{version}"),
        "metadata": {},
        "items": items,
    })
}

/// One `APIResourceDiscovery`: a built-in resource names no group or version in its response
/// kind, a custom resource names both; subresources come in name order for built-ins and as
/// apiextensions lists them (status, then scale) for custom resources.
fn resource(info: &ResourceInfo) -> Value {
    let response_kind = |kind: &str| {
        if info.builtin {
            json!({ "group": "", "version": "", "kind": kind })
        } else {
            json!({ "group": info.group, "version": info.version, "kind": kind })
        }
    };
    let mut subresources = info.subresources();
    if info.builtin {
        subresources.sort_by_key(|(name, _)| *name);
    }
    let subresources: Vec<Value> = subresources
        .into_iter()
        .map(|(name, verbs)| {
            let (group, version, kind) = info.subresource_kind(name);
            let kind = json!({ "group": group, "version": version, "kind": kind });
            json!({ "subresource": name, "responseKind": kind, "verbs": super::discovery::verb_names(verbs) })
        })
        .collect();
    let mut entry = json!({
        "resource": info.plural,
        "responseKind": response_kind(&info.kind),
        "scope": if info.namespaced { "Namespaced" } else { "Cluster" },
        "singularResource": info.singular,
        "verbs": super::discovery::resource_verbs(info),
    });
    if !info.short_names.is_empty() {
        entry["shortNames"] = json!(info.short_names);
    }
    if !info.categories.is_empty() {
        entry["categories"] = json!(info.categories);
    }
    if !subresources.is_empty() {
        entry["subresources"] = json!(subresources);
    }
    entry
}

#[cfg(test)]
mod tests {
    use super::*;

    const V2BETA1: &str = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList";
    const V2: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

    #[test]
    fn negotiate_should_pick_the_first_clause_this_minor_serves() {
        let kubectl_128 = format!("{V2BETA1},application/json");
        assert_eq!(
            negotiate(&kubectl_128, 28, true).unwrap(),
            Wanted::Aggregated("v2beta1")
        );
        let kubectl_130 = format!("{V2},{V2BETA1},application/json");
        assert_eq!(
            negotiate(&kubectl_130, 28, true).unwrap(),
            Wanted::Aggregated("v2beta1")
        );
        assert_eq!(negotiate(&kubectl_130, 33, true).unwrap(), Wanted::Aggregated("v2"));
        assert_eq!(
            negotiate(&format!("{V2},application/json"), 28, true).unwrap(),
            Wanted::Legacy { yaml: false }
        );
        assert_eq!(negotiate("", 28, true).unwrap(), Wanted::Legacy { yaml: false });
        assert_eq!(negotiate("*/*", 28, true).unwrap(), Wanted::Legacy { yaml: false });
        assert_eq!(
            negotiate("application/yaml", 28, true).unwrap(),
            Wanted::Legacy { yaml: true }
        );
        assert_eq!(negotiate(V2BETA1, 28, false).unwrap_err().code, 406);
        assert_eq!(negotiate(V2, 28, true).unwrap_err().code, 406);
        let item_kind = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscovery";
        assert_eq!(negotiate(item_kind, 28, true).unwrap_err().code, 406);
    }

    #[test]
    fn etag_should_be_the_quoted_upper_case_sha512() {
        let tag = etag(b"{}");
        assert_eq!(tag.len(), 130);
        assert!(tag.starts_with("\"27C74670ADB75075"), "{tag}");
    }
}
