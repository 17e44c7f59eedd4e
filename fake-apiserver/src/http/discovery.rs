//! Discovery documents (`/version`, `/api`, `/apis`, resource lists) as kubectl and kube's
//! `Discovery` read them.

use serde_json::{Value, json};

use crate::status::ApiStatus;
use crate::storage::registry::Registry;
use crate::storage::resource::ResourceInfo;
use crate::storage::verb::Verb;

/// `/version`.
pub(crate) fn version(git_version: &str) -> Value {
    let (major, minor) = git_version
        .trim_start_matches('v')
        .split_once('.')
        .map(|(major, rest)| (major.to_owned(), rest.split('.').next().unwrap_or("0").to_owned()))
        .unwrap_or_else(|| ("1".to_owned(), "33".to_owned()));
    json!({
        "major": major, "minor": minor, "gitVersion": git_version, "gitCommit": "kube-codegen-fake",
        "gitTreeState": "clean", "buildDate": "2026-01-01T00:00:00Z", "goVersion": "none",
        "compiler": "rustc", "platform": "linux/amd64",
    })
}

/// `/api`.
/// `external_address` is where the server is served (kube-apiserver's `--advertise-address`
/// and `--secure-port`); a server answering in process says kube-apiserver's default port on
/// loopback.
pub(crate) fn core_versions(external_address: Option<&str>) -> Value {
    json!({
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{
            "clientCIDR": "0.0.0.0/0",
            "serverAddress": external_address.unwrap_or("127.0.0.1:6443"),
        }],
    })
}

fn group_document(registry: &Registry, group: &str) -> Option<Value> {
    let versions = registry.groups().find(|(g, _)| g.as_str() == group).map(|(_, v)| v)?;
    let entries: Vec<Value> = versions
        .iter()
        .map(|v| json!({ "groupVersion": format!("{group}/{v}"), "version": v }))
        .collect();
    Some(json!({
        "kind": "APIGroup", "apiVersion": "v1", "name": group,
        "versions": entries, "preferredVersion": entries.first().cloned().unwrap_or_default(),
    }))
}

/// `/apis`.
pub(crate) fn groups(registry: &Registry) -> Value {
    let groups: Vec<Value> = registry
        .groups()
        .filter(|(group, _)| !group.is_empty())
        .filter_map(|(group, _)| group_document(registry, group))
        .map(|mut g| {
            if let Some(m) = g.as_object_mut() {
                m.remove("kind");
                m.remove("apiVersion");
            }
            g
        })
        .collect();
    json!({ "kind": "APIGroupList", "apiVersion": "v1", "groups": groups })
}

/// `/apis/{group}`.
pub(crate) fn group(registry: &Registry, group: &str) -> Result<Value, ApiStatus> {
    group_document(registry, group).ok_or_else(ApiStatus::no_route)
}

/// `/api/v1` and `/apis/{group}/{version}`.
pub(crate) fn resources(registry: &Registry, group: &str, version: &str) -> Result<Value, ApiStatus> {
    let infos = registry.resources_in(group, version);
    if infos.is_empty() {
        return Err(ApiStatus::no_route());
    }
    let builtin = infos.iter().all(|info| info.builtin);
    let mut list = Vec::new();
    for info in infos {
        list.push(resource_entry(info));
        for (subresource, verbs) in info.subresources() {
            let (group, version, kind) = info.subresource_kind(subresource);
            let mut entry = json!({ "name": format!("{}/{subresource}", info.plural), "singularName": "",
                                    "namespaced": info.namespaced, "kind": kind, "verbs": verb_names(verbs) });
            // Discovery names the group and version of a subresource of another group's kind.
            if !group.is_empty() && group != info.group {
                entry["group"] = json!(group);
                entry["version"] = json!(version);
            }
            list.push(entry);
        }
    }
    // A built-in group version's installer registers its storage paths sorted, subresources
    // among them (`installer.go`); the CRD discovery controller lists each custom resource
    // with its status and scale after it.
    if builtin {
        list.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
    }
    let group_version = if group.is_empty() {
        version.to_owned()
    } else {
        format!("{group}/{version}")
    };
    // The legacy core group's list is written without an `apiVersion` (its handler encodes
    // the list with the legacy codec, whose meta group version is empty); the groups' carry `v1`.
    if group.is_empty() {
        return Ok(json!({ "kind": "APIResourceList", "groupVersion": group_version, "resources": list }));
    }
    Ok(json!({ "kind": "APIResourceList", "apiVersion": "v1", "groupVersion": group_version, "resources": list }))
}

fn resource_entry(info: &ResourceInfo) -> Value {
    let mut entry = json!({
        "name": info.plural,
        "singularName": info.singular,
        "namespaced": info.namespaced,
        "kind": info.kind,
        "verbs": resource_verbs(info),
    });
    if info.is_stored() {
        entry["storageVersionHash"] = json!(info.storage_version_hash());
    }
    if !info.short_names.is_empty() {
        entry["shortNames"] = json!(info.short_names);
    }
    if !info.categories.is_empty() {
        entry["categories"] = json!(info.categories);
    }
    entry
}

/// A resource's verbs as its discovery entry lists them: a custom resource's in the CRD
/// discovery controller's own order, a built-in's sorted.
pub(crate) fn resource_verbs(info: &ResourceInfo) -> Vec<&'static str> {
    const CUSTOM_RESOURCE_ORDER: [&str; 8] = [
        "delete",
        "deletecollection",
        "get",
        "list",
        "patch",
        "create",
        "update",
        "watch",
    ];
    if info.builtin {
        return verb_names(&info.verbs);
    }
    let served = verb_names(&info.verbs);
    CUSTOM_RESOURCE_ORDER
        .into_iter()
        .filter(|verb| served.contains(verb))
        .collect()
}

/// Verbs as discovery lists them: RBAC's names, sorted.
pub(crate) fn verb_names(verbs: &[Verb]) -> Vec<&'static str> {
    let mut names: Vec<&'static str> = verbs.iter().map(|verb| verb.discovery_name()).collect();
    names.sort_unstable();
    names
}
