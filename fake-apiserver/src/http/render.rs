//! How a resource request's answer is rendered, negotiated from its `Accept` header as
//! kube-apiserver negotiates it (`apiserver/pkg/endpoints/handlers/negotiation/negotiate.go`:
//! `NegotiateOutputMediaType`, `acceptMediaTypeOptions`; `handlers/rest.go`:
//! `AllowsMediaTypeTransform`; `handlers/response.go`: `doTransformObject`, `asTable` with
//! `ValidateTableOptions`): the clauses by preference, each acceptable only with a media type
//! the resource serves and known parameters; `as`/`g`/`v` ask for a `meta.k8s.io` `v1` or
//! `v1beta1` `Table` (JSON or YAML), `PartialObjectMetadata` or `PartialObjectMetadataList`.

use std::borrow::Cow;

use serde_json::Value;

use crate::http::table::{IncludeObject, MetaVersion, TableOptions, partial, table};
use crate::status::ApiStatus;
use crate::storage::object;
use crate::storage::resource::ResourceInfo;

/// How objects are rendered for a client.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Render {
    /// As the objects themselves.
    Object,
    /// As a `Table`, with each row carrying the object, its metadata only, or nothing.
    Table(TableOptions),
    /// As `PartialObjectMetadata`, or (`list`) a `PartialObjectMetadataList`: kube-apiserver
    /// answers each only where it fits.
    Metadata { list: bool, version: MetaVersion },
}

/// The parameters of a media range kube-apiserver knows; any other makes the range unacceptable.
const KNOWN_PARAMETERS: &[&str] = &["as", "g", "v", "stream", "sv", "export", "profile"];

impl Render {
    /// Reads the `Accept` header and the `includeObject` parameter of a resource request on a
    /// server of `minor`: how to render, and the subtype of the media type chosen (`json`,
    /// `yaml`, `vnd.kubernetes.protobuf`); 406 when no clause is acceptable, 400 for an
    /// `includeObject` a table cannot carry. Built-in and custom resources serve the same
    /// three (`unstructuredNegotiatedSerializer` lists protobuf, though it cannot write a custom
    /// resource in it).
    pub(crate) fn negotiate(
        accept: &str,
        raw_query: Option<&str>,
        minor: u32,
    ) -> Result<(Self, &'static str), ApiStatus> {
        const SERVED: [&str; 3] = ["json", "yaml", "vnd.kubernetes.protobuf"];
        if accept.trim().is_empty() {
            return Ok((Render::Object, SERVED[0]));
        }
        let served = &SERVED;
        for clause in clauses(accept) {
            let mut parts = clause.split(';').map(str::trim);
            let Some((kind, subtype)) = parts.next().and_then(|media| media.split_once('/')) else {
                continue;
            };
            // The first serializer the range matches.
            let matched = match (kind, subtype) {
                ("*", "*") | ("application", "*") => served[0],
                ("application", subtype) => match served.iter().find(|served| **served == subtype) {
                    Some(served) => *served,
                    None => continue,
                },
                _ => continue,
            };
            let params: Vec<(&str, &str)> = parts
                .filter_map(|p| p.split_once('='))
                .map(|(k, v)| (k.trim(), v.trim()))
                .filter(|(k, _)| *k != "q")
                .collect();
            if params.iter().any(|(k, _)| !KNOWN_PARAMETERS.contains(k)) {
                continue;
            }
            let param = |key: &str| params.iter().find(|(k, _)| *k == key).map(|(_, v)| *v);
            if param("as").is_none() && param("g").is_none() && param("v").is_none() {
                return Ok((Render::Object, matched));
            }
            let version = match (param("g"), param("v")) {
                (Some("meta.k8s.io"), Some("v1")) => MetaVersion::V1,
                (Some("meta.k8s.io"), Some("v1beta1")) => MetaVersion::V1beta1,
                _ => continue,
            };
            match param("as") {
                Some("Table") if matches!(matched, "json" | "yaml") => {
                    let include = include_object(raw_query)?;
                    let options = TableOptions {
                        include,
                        minor,
                        version,
                    };
                    return Ok((Render::Table(options), matched));
                }
                Some("PartialObjectMetadata") => return Ok((Render::Metadata { list: false, version }, matched)),
                Some("PartialObjectMetadataList") => return Ok((Render::Metadata { list: true, version }, matched)),
                _ => continue,
            }
        }
        let accepted: Vec<String> = served.iter().map(|subtype| format!("application/{subtype}")).collect();
        Err(ApiStatus::not_acceptable(format!(
            "only the following media types are accepted: {}",
            accepted.join(", ")
        )))
    }

    /// Refuses, as kube-apiserver does with 406, metadata of the wrong form: a single
    /// `PartialObjectMetadata` for a list, a `PartialObjectMetadataList` for anything else
    /// (objects, and the events of a watch).
    pub(crate) fn check_fits(self, list: bool, kind: &str) -> Result<(), ApiStatus> {
        match self {
            Render::Metadata { list: wanted, .. } if wanted != list => Err(ApiStatus::not_acceptable(if list {
                format!("you requested PartialObjectMetadata, but the requested object is a list ({kind}List)")
            } else {
                format!("you requested PartialObjectMetadataList, but the requested object is not a list ({kind})")
            })),
            _ => Ok(()),
        }
    }

    /// The object of one watch event; tables carry their column definitions on the first event
    /// of a stream only, as kube-apiserver sends them.
    pub(crate) fn event_object<'a>(self, info: &ResourceInfo, object: &'a Value, first: bool) -> Cow<'a, Value> {
        match self {
            Render::Object => Cow::Borrowed(object),
            Render::Metadata { version, .. } => Cow::Owned(partial(object, version)),
            Render::Table(options) => {
                let rv = object::resource_version(object);
                let mut table = table(info, std::iter::once(object), options, rv, None);
                if !first {
                    table["columnDefinitions"] = Value::Null;
                }
                Cow::Owned(table)
            }
        }
    }
}

/// The clauses of an `Accept` header, most preferred first (by `q`, then as written); a
/// clause with `q=0` is never acceptable.
pub(crate) fn clauses(accept: &str) -> Vec<&str> {
    let mut weighted: Vec<(f32, &str)> = accept
        .split(',')
        .map(str::trim)
        .filter(|clause| !clause.is_empty())
        .map(|clause| {
            let q = clause
                .split(';')
                .filter_map(|p| p.trim().strip_prefix("q="))
                .find_map(|q| q.parse::<f32>().ok())
                .unwrap_or(1.0);
            (q, clause)
        })
        .filter(|(q, _)| *q > 0.0)
        .collect();
    weighted.sort_by(|a, b| b.0.total_cmp(&a.0));
    weighted.into_iter().map(|(_, clause)| clause).collect()
}

/// `includeObject` (`ValidateTableOptions`): `None`, `Object`, or `Metadata` (also when empty or
/// absent); anything else is refused.
fn include_object(raw_query: Option<&str>) -> Result<IncludeObject, ApiStatus> {
    let value = form_urlencoded::parse(raw_query.unwrap_or("").as_bytes())
        .find(|(key, _)| key == "includeObject")
        .map(|(_, value)| value.into_owned())
        .unwrap_or_default();
    match value.as_str() {
        "None" => Ok(IncludeObject::None),
        "Object" => Ok(IncludeObject::Object),
        "Metadata" | "" => Ok(IncludeObject::Metadata),
        other => Err(ApiStatus::bad_request(format!(
            "Unable to convert to Table as requested: includeObject: Invalid value: {other:?}: must be 'Metadata', 'Object', 'None', or empty"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_should_want_a_table_only_when_asked_first() {
        let accept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";
        assert_eq!(
            Render::negotiate(accept, Some("includeObject=Object"), 28),
            Ok((
                Render::Table(TableOptions {
                    include: IncludeObject::Object,
                    minor: 28,
                    version: MetaVersion::V1,
                }),
                "json"
            ))
        );
        assert_eq!(
            Render::negotiate("application/json", None, 28),
            Ok((Render::Object, "json"))
        );
        assert_eq!(
            Render::negotiate("application/vnd.kubernetes.protobuf", None, 28),
            Ok((Render::Object, "vnd.kubernetes.protobuf"))
        );
    }

    #[test]
    fn a_clause_kube_apiserver_cannot_serve_should_give_way_to_the_next() {
        let metadata = |accept: &str| Render::negotiate(accept, None, 31).map(|(render, _)| render);
        assert_eq!(
            metadata("application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1beta1"),
            Ok(Render::Metadata {
                list: false,
                version: MetaVersion::V1beta1
            })
        );
        assert_eq!(
            metadata("application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v2, application/json"),
            Ok(Render::Object)
        );
        let refused = metadata("application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v2").unwrap_err();
        assert_eq!(refused.code, 406);
        assert_eq!(
            refused.message,
            "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf"
        );
        assert_eq!(metadata("application/json;colour=red").unwrap_err().code, 406);
        assert_eq!(metadata("text/html, */*;q=0.8"), Ok(Render::Object));
    }

    #[test]
    fn an_unknown_include_object_should_be_refused() {
        let accept = "application/json;as=Table;v=v1;g=meta.k8s.io";
        let refused = Render::negotiate(accept, Some("includeObject=Everything"), 28).unwrap_err();
        assert_eq!(
            (refused.code, refused.message.as_str()),
            (
                400,
                "Unable to convert to Table as requested: includeObject: Invalid value: \"Everything\": must be 'Metadata', 'Object', 'None', or empty"
            )
        );
    }
}
