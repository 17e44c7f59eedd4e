//! OpenAPI v3 documents with just what clients read from them: per-kind schemas tagged
//! with `x-kubernetes-group-version-kind`, and the PATCH parameters kubectl checks before it
//! relies on server-side field validation. `/openapi/v2` is not served: kubectl asks for it in
//! protobuf only, and takes a 404 as "use v3".

use serde_json::{Map, Value, json};

use super::registry::Registry;
use super::resource::ResourceInfo;
use super::status::ApiStatus;

/// Query parameters every write accepts; kubectl looks for `fieldValidation` on PATCH.
fn write_parameters() -> Value {
    let param = |name: &str| json!({ "name": name, "in": "query", "schema": { "type": "string" }, "type": "string" });
    json!([
        param("dryRun"),
        param("fieldManager"),
        param("fieldValidation"),
        param("force")
    ])
}

fn gvk(info: &ResourceInfo) -> Value {
    json!({ "group": info.group, "version": info.version, "kind": info.kind })
}

/// The schema name kube-openapi would use, e.g. `tw.cloudnative.v1alpha1.VirtualMachine`.
fn schema_name(info: &ResourceInfo) -> String {
    let reversed: Vec<&str> = info.group.split('.').rev().filter(|s| !s.is_empty()).collect();
    let group = if reversed.is_empty() {
        "io.k8s.api.core".to_owned()
    } else {
        reversed.join(".")
    };
    format!("{group}.{}.{}", info.version, info.kind)
}

fn schema(info: &ResourceInfo) -> Value {
    let mut schema = info.schema.clone().unwrap_or_else(|| json!({ "type": "object" }));
    schema["x-kubernetes-group-version-kind"] = json!([gvk(info)]);
    schema
}

fn object_path(info: &ResourceInfo) -> String {
    let prefix = if info.group.is_empty() {
        format!("/api/{}", info.version)
    } else {
        format!("/apis/{}/{}", info.group, info.version)
    };
    if info.namespaced {
        format!("{prefix}/namespaces/{{namespace}}/{}/{{name}}", info.plural)
    } else {
        format!("{prefix}/{}/{{name}}", info.plural)
    }
}

fn path_item(info: &ResourceInfo) -> Value {
    let operation = |verb: &str| {
        json!({
            "operationId": format!("{verb}{}", info.kind),
            "x-kubernetes-action": verb,
            "x-kubernetes-group-version-kind": gvk(info),
            "parameters": write_parameters(),
            "responses": { "200": { "description": "OK" } },
        })
    };
    json!({ "patch": operation("patch"), "put": operation("put") })
}

/// `/openapi/v3`: where each group-version's document lives.
pub(crate) fn v3_root(registry: &Registry) -> Value {
    let mut paths = Map::new();
    for (group, versions) in registry.groups() {
        for version in versions {
            let key = if group.is_empty() {
                format!("api/{version}")
            } else {
                format!("apis/{group}/{version}")
            };
            let url = format!("/openapi/v3/{key}");
            paths.insert(key, json!({ "serverRelativeURL": url }));
        }
    }
    json!({ "paths": paths })
}

/// `/openapi/v3/apis/{group}/{version}`.
pub(crate) fn v3_group_version(registry: &Registry, group: &str, version: &str) -> Result<Value, ApiStatus> {
    let infos = registry.resources_in(group, version);
    if infos.is_empty() {
        return Err(ApiStatus::no_route(&format!("/openapi/v3/apis/{group}/{version}")));
    }
    let mut paths = Map::new();
    let mut schemas = Map::new();
    for info in infos {
        paths.insert(object_path(info), path_item(info));
        schemas.insert(schema_name(info), schema(info));
    }
    Ok(json!({
        "openapi": "3.0.0",
        "info": { "title": "Kubernetes", "version": "fake" },
        "paths": paths,
        "components": { "schemas": schemas },
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v3_documents_should_tag_patch_with_the_kind_and_field_validation() {
        let mut registry = Registry::default();
        registry.insert(ResourceInfo::builtin(
            "cloudnative.tw",
            "v1alpha1",
            "VirtualMachine",
            "virtualmachines",
        ));
        let root = v3_root(&registry);
        assert_eq!(
            root["paths"]["apis/cloudnative.tw/v1alpha1"]["serverRelativeURL"],
            "/openapi/v3/apis/cloudnative.tw/v1alpha1"
        );
        let doc = v3_group_version(&registry, "cloudnative.tw", "v1alpha1").unwrap();
        let patch =
            &doc["paths"]["/apis/cloudnative.tw/v1alpha1/namespaces/{namespace}/virtualmachines/{name}"]["patch"];
        assert_eq!(patch["x-kubernetes-group-version-kind"]["kind"], "VirtualMachine");
        assert!(
            patch["parameters"]
                .as_array()
                .unwrap()
                .iter()
                .any(|p| p["name"] == "fieldValidation")
        );
        assert!(doc["components"]["schemas"]["tw.cloudnative.v1alpha1.VirtualMachine"].is_object());
    }
}
