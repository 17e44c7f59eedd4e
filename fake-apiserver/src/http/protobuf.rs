//! Request bodies in `application/vnd.kubernetes.protobuf`, as kube-apiserver's protobuf
//! serializer reads them (`apimachinery/pkg/runtime/serializer/protobuf/protobuf.go`: the
//! `k8s\0` magic, then a `runtime.Unknown` whose `raw` is the object), turned into the JSON the
//! verbs read. Typed clients send built-in kinds this way — `kubectl auth can-i` its
//! SelfSubjectAccessReview and SelfSubjectRulesReview — so the reviews of
//! `authorization.k8s.io` are read, with the field numbers of `k8s.io/api/authorization/v1`'s
//! `generated.proto`; any other kind's protobuf body is refused 415, naming what to send instead.

use std::collections::BTreeMap;

use prost::Message;
use serde_json::{Map, Value, json};

use crate::status::ApiStatus;
use crate::storage::resource::ResourceInfo;

/// The media type of Kubernetes' protobuf encoding.
pub(crate) const MEDIA_TYPE: &str = "application/vnd.kubernetes.protobuf";
pub(crate) const MAGIC: &[u8] = b"k8s\0";

/// Whether a `Content-Type` is the protobuf encoding.
pub(crate) fn is_protobuf(content_type: &str) -> bool {
    content_type.split(';').next().is_some_and(|t| t.trim() == MEDIA_TYPE)
}

/// `runtime.Unknown`: the envelope of every protobuf body.
#[derive(Clone, PartialEq, Message)]
pub(crate) struct Unknown {
    #[prost(message, optional, tag = "1")]
    pub(crate) type_meta: Option<TypeMeta>,
    #[prost(bytes = "vec", optional, tag = "2")]
    pub(crate) raw: Option<Vec<u8>>,
    #[prost(string, optional, tag = "3")]
    pub(crate) content_encoding: Option<String>,
    #[prost(string, optional, tag = "4")]
    pub(crate) content_type: Option<String>,
}

/// `runtime.TypeMeta`.
#[derive(Clone, PartialEq, Message)]
pub(crate) struct TypeMeta {
    #[prost(string, optional, tag = "1")]
    pub(crate) api_version: Option<String>,
    #[prost(string, optional, tag = "2")]
    pub(crate) kind: Option<String>,
}

/// A review: the metadata, a spec (of whichever review it is), no status (the server's).
#[derive(Clone, PartialEq, Message)]
struct Review {
    #[prost(message, optional, tag = "1")]
    metadata: Option<ObjectMeta>,
    #[prost(bytes = "vec", optional, tag = "2")]
    spec: Option<Vec<u8>>,
}

#[derive(Clone, PartialEq, Message)]
struct ObjectMeta {
    #[prost(string, optional, tag = "1")]
    name: Option<String>,
    #[prost(string, optional, tag = "2")]
    generate_name: Option<String>,
    #[prost(string, optional, tag = "3")]
    namespace: Option<String>,
    #[prost(btree_map = "string, string", tag = "11")]
    labels: BTreeMap<String, String>,
    #[prost(btree_map = "string, string", tag = "12")]
    annotations: BTreeMap<String, String>,
}

/// `SubjectAccessReviewSpec`; a self review's spec is its first two fields.
#[derive(Clone, PartialEq, Message)]
struct AccessReviewSpec {
    #[prost(message, optional, tag = "1")]
    resource_attributes: Option<ResourceAttributes>,
    #[prost(message, optional, tag = "2")]
    non_resource_attributes: Option<NonResourceAttributes>,
    #[prost(string, optional, tag = "3")]
    user: Option<String>,
    #[prost(string, repeated, tag = "4")]
    groups: Vec<String>,
    #[prost(btree_map = "string, message", tag = "5")]
    extra: BTreeMap<String, ExtraValue>,
    #[prost(string, optional, tag = "6")]
    uid: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
struct ExtraValue {
    #[prost(string, repeated, tag = "1")]
    items: Vec<String>,
}

#[derive(Clone, PartialEq, Message)]
struct ResourceAttributes {
    #[prost(string, optional, tag = "1")]
    namespace: Option<String>,
    #[prost(string, optional, tag = "2")]
    verb: Option<String>,
    #[prost(string, optional, tag = "3")]
    group: Option<String>,
    #[prost(string, optional, tag = "4")]
    version: Option<String>,
    #[prost(string, optional, tag = "5")]
    resource: Option<String>,
    #[prost(string, optional, tag = "6")]
    subresource: Option<String>,
    #[prost(string, optional, tag = "7")]
    name: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
struct NonResourceAttributes {
    #[prost(string, optional, tag = "1")]
    path: Option<String>,
    #[prost(string, optional, tag = "2")]
    verb: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
struct RulesReviewSpec {
    #[prost(string, optional, tag = "1")]
    namespace: Option<String>,
}

/// The JSON of a protobuf `body` sent to `info`.
pub(crate) fn to_json(info: &ResourceInfo, body: &[u8]) -> Result<Vec<u8>, ApiStatus> {
    let reviews = info.builtin && info.group == "authorization.k8s.io";
    if !reviews {
        return Err(ApiStatus::new(
            415,
            "UnsupportedMediaType",
            format!(
                "this in-memory server reads protobuf bodies of the authorization.k8s.io reviews only; send {} as application/json",
                info.kind
            ),
        ));
    }
    let malformed = |why: String| ApiStatus::bad_request(format!("the protobuf body does not decode: {why}"));
    let envelope = body
        .strip_prefix(MAGIC)
        .ok_or_else(|| malformed("it does not start with the k8s\\0 prefix".to_owned()))?;
    let unknown = Unknown::decode(envelope).map_err(|e| malformed(e.to_string()))?;
    let review = Review::decode(unknown.raw.as_deref().unwrap_or_default()).map_err(|e| malformed(e.to_string()))?;
    let type_meta = unknown.type_meta.unwrap_or_default();
    let spec_bytes = review.spec.as_deref().unwrap_or_default();
    let spec = if info.plural == "selfsubjectrulesreviews" {
        let spec = RulesReviewSpec::decode(spec_bytes).map_err(|e| malformed(e.to_string()))?;
        strings(&[("namespace", spec.namespace)])
    } else {
        access_review_spec(&AccessReviewSpec::decode(spec_bytes).map_err(|e| malformed(e.to_string()))?)
    };
    let metadata = review.metadata.unwrap_or_default();
    let mut meta = strings(&[
        ("name", metadata.name),
        ("generateName", metadata.generate_name),
        ("namespace", metadata.namespace),
    ]);
    for (key, map) in [("labels", metadata.labels), ("annotations", metadata.annotations)] {
        if !map.is_empty() {
            meta.insert(key.to_owned(), json!(map));
        }
    }
    let mut object = strings(&[("apiVersion", type_meta.api_version), ("kind", type_meta.kind)]);
    object.insert("metadata".to_owned(), Value::Object(meta));
    object.insert("spec".to_owned(), Value::Object(spec));
    Ok(serde_json::to_vec(&object).expect("JSON values serialize"))
}

fn access_review_spec(spec: &AccessReviewSpec) -> Map<String, Value> {
    let mut out = strings(&[("user", spec.user.clone()), ("uid", spec.uid.clone())]);
    if let Some(attributes) = &spec.resource_attributes {
        let fields = strings(&[
            ("namespace", attributes.namespace.clone()),
            ("verb", attributes.verb.clone()),
            ("group", attributes.group.clone()),
            ("version", attributes.version.clone()),
            ("resource", attributes.resource.clone()),
            ("subresource", attributes.subresource.clone()),
            ("name", attributes.name.clone()),
        ]);
        out.insert("resourceAttributes".to_owned(), Value::Object(fields));
    }
    if let Some(attributes) = &spec.non_resource_attributes {
        let fields = strings(&[("path", attributes.path.clone()), ("verb", attributes.verb.clone())]);
        out.insert("nonResourceAttributes".to_owned(), Value::Object(fields));
    }
    if !spec.groups.is_empty() {
        out.insert("groups".to_owned(), json!(spec.groups));
    }
    if !spec.extra.is_empty() {
        let extra: Map<String, Value> = spec
            .extra
            .iter()
            .map(|(key, value)| (key.clone(), json!(value.items)))
            .collect();
        out.insert("extra".to_owned(), Value::Object(extra));
    }
    out
}

/// A JSON object of the strings that are set and not empty (Go's `omitempty`).
fn strings(fields: &[(&str, Option<String>)]) -> Map<String, Value> {
    fields
        .iter()
        .filter_map(|(key, value)| {
            let value = value.as_deref().filter(|v| !v.is_empty())?;
            Some(((*key).to_owned(), json!(value)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn review_body(spec: &AccessReviewSpec) -> Vec<u8> {
        let review = Review {
            metadata: Some(ObjectMeta::default()),
            spec: Some(spec.encode_to_vec()),
        };
        let unknown = Unknown {
            type_meta: Some(TypeMeta {
                api_version: Some("authorization.k8s.io/v1".into()),
                kind: Some("SelfSubjectAccessReview".into()),
            }),
            raw: Some(review.encode_to_vec()),
            ..Unknown::default()
        };
        [MAGIC, &unknown.encode_to_vec()].concat()
    }

    #[test]
    fn a_self_access_review_decodes_to_the_json_kubectl_would_have_sent() {
        let info = ResourceInfo::builtin(
            "authorization.k8s.io",
            "v1",
            "SelfSubjectAccessReview",
            "selfsubjectaccessreviews",
        );
        let spec = AccessReviewSpec {
            resource_attributes: Some(ResourceAttributes {
                verb: Some("delete".into()),
                resource: Some("nodes".into()),
                namespace: Some(String::new()),
                ..ResourceAttributes::default()
            }),
            ..AccessReviewSpec::default()
        };
        let json: Value = serde_json::from_slice(&to_json(&info, &review_body(&spec)).unwrap()).unwrap();
        assert_eq!(
            json,
            json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview", "metadata": {},
                   "spec": {"resourceAttributes": {"verb": "delete", "resource": "nodes"}}})
        );
    }

    #[test]
    fn other_kinds_and_broken_bodies_are_refused() {
        let configmaps = ResourceInfo::builtin("", "v1", "ConfigMap", "configmaps");
        assert_eq!(to_json(&configmaps, b"k8s\0").unwrap_err().code, 415);
        let info = ResourceInfo::builtin(
            "authorization.k8s.io",
            "v1",
            "SelfSubjectRulesReview",
            "selfsubjectrulesreviews",
        );
        assert_eq!(to_json(&info, b"{}").unwrap_err().code, 400);
    }
}
