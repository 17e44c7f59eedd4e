//! OpenAPI v3 documents with just what clients read from them: per-kind schemas tagged
//! with `x-kubernetes-group-version-kind`, and the PATCH parameters kubectl checks before it
//! relies on server-side field validation. `/openapi/v2` is served only as kubectl asks for it,
//! in protobuf, and only as an empty document: kubectl then validates nothing on the client and
//! leaves validation to the server.

use serde_json::{Map, Value, json};

use crate::status::ApiStatus;
use crate::storage::registry::Registry;
use crate::storage::resource::ResourceInfo;

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

/// The media type kubectl asks `/openapi/v2` for.
pub(crate) const V2_PROTOBUF: &str = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";

/// `/openapi/v2` as an empty gnostic `openapi_v2.Document` (swagger `2.0`, an `info`, no paths
/// or definitions), hand-encoded: kubectl before 1.27 refuses to apply without one, and any
/// kubectl skips client-side validation for kinds the document does not define.
pub(crate) fn v2_protobuf() -> Vec<u8> {
    fn field(number: u8, bytes: &[u8]) -> Vec<u8> {
        // Wire type 2 (length-delimited); every length here is below 128, a one-byte varint.
        let length = u8::try_from(bytes.len()).expect("short field");
        [&[(number << 3) | 2, length][..], bytes].concat()
    }
    let info = [field(1, b"Kubernetes"), field(2, b"fake")].concat();
    [field(1, b"2.0"), field(2, &info), field(8, b"")].concat()
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
        return Err(ApiStatus::no_route());
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
    fn v2_document_should_be_a_valid_protobuf_message() {
        let bytes = v2_protobuf();
        assert_eq!(&bytes[..5], &[0x0a, 3, b'2', b'.', b'0']);
        assert_eq!(bytes[5], 0x12, "field 2 (info) follows");
        assert_eq!(usize::from(bytes[6]), 12 + 6);
        assert_eq!(&bytes[bytes.len() - 2..], &[0x42, 0], "field 8 (paths), empty");
    }

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
