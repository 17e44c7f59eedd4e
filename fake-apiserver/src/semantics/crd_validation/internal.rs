//! A v1 `CustomResourceDefinition` as kube-apiserver validates it: converted to the internal
//! version first (`apiextensions/v1/conversion.go`), which moves a schema, subresources or
//! printer columns that every version shares to the top level (`spec.validation`,
//! `spec.subresources`, `spec.additionalPrinterColumns`, `spec.selectableFields`), and so decides
//! the paths errors name.

use serde_json::Value;

/// One entry of `spec.versions`, with what stayed per version after the conversion.
pub(crate) struct Version<'a> {
    pub(crate) raw: &'a Value,
    pub(crate) name: &'a str,
    pub(crate) served: bool,
    pub(crate) storage: bool,
    /// `schema` (the `CustomResourceValidation`), unless hoisted.
    pub(crate) schema: Option<&'a Value>,
    pub(crate) subresources: Option<&'a Value>,
    pub(crate) columns: Option<&'a Vec<Value>>,
    /// `selectableFields`, unless hoisted; an empty list is none.
    pub(crate) selectable: Option<&'a Vec<Value>>,
}

/// The internal spec: top-level fields where every version agreed.
pub(crate) struct Spec<'a> {
    pub(crate) raw: &'a Value,
    pub(crate) versions: Vec<Version<'a>>,
    /// `spec.validation`: the `CustomResourceValidation` (`{openAPIV3Schema: …}`).
    pub(crate) validation: Option<&'a Value>,
    pub(crate) subresources: Option<&'a Value>,
    pub(crate) columns: Option<&'a Vec<Value>>,
    pub(crate) selectable: Option<&'a Vec<Value>>,
}

impl<'a> Spec<'a> {
    /// `Convert_v1_CustomResourceDefinitionSpec_To_apiextensions_CustomResourceDefinitionSpec`.
    pub(crate) fn of(crd: &'a Value) -> Self {
        static NULL: Value = Value::Null;
        let raw = crd.get("spec").unwrap_or(&NULL);
        let mut versions: Vec<Version<'a>> = raw
            .get("versions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|v| Version {
                raw: v,
                name: v.get("name").and_then(Value::as_str).unwrap_or_default(),
                served: v.get("served").and_then(Value::as_bool) == Some(true),
                storage: v.get("storage").and_then(Value::as_bool) == Some(true),
                schema: present(v.get("schema")),
                subresources: present(v.get("subresources")),
                columns: v.get("additionalPrinterColumns").and_then(Value::as_array),
                selectable: v
                    .get("selectableFields")
                    .and_then(Value::as_array)
                    .filter(|fields| !fields.is_empty()),
            })
            .collect();
        let mut spec = Self {
            raw,
            versions: Vec::new(),
            validation: None,
            subresources: None,
            columns: None,
            selectable: None,
        };
        if let Some(first) = versions.first() {
            let (schema, subresources, columns, selectable) =
                (first.schema, first.subresources, first.columns, first.selectable);
            if versions.iter().all(|v| v.schema == schema) {
                spec.validation = schema;
                versions.iter_mut().for_each(|v| v.schema = None);
            }
            if versions.iter().all(|v| v.subresources == subresources) {
                spec.subresources = subresources;
                versions.iter_mut().for_each(|v| v.subresources = None);
            }
            if versions.iter().all(|v| v.columns == columns) {
                spec.columns = columns;
                versions.iter_mut().for_each(|v| v.columns = None);
            }
            if versions.iter().all(|v| v.selectable == selectable) {
                spec.selectable = selectable;
                versions.iter_mut().for_each(|v| v.selectable = None);
            }
        }
        spec.versions = versions;
        spec
    }

    /// A string field of the spec (`group`, `scope`).
    pub(crate) fn text(&self, key: &str) -> &'a str {
        self.raw.get(key).and_then(Value::as_str).unwrap_or_default()
    }

    /// A string field of `spec.names`.
    pub(crate) fn name(&self, key: &str) -> &'a str {
        self.raw
            .get("names")
            .and_then(|n| n.get(key))
            .and_then(Value::as_str)
            .unwrap_or_default()
    }

    /// `spec.preserveUnknownFields`, when set.
    pub(crate) fn preserve_unknown_fields(&self) -> Option<bool> {
        self.raw.get("preserveUnknownFields").and_then(Value::as_bool)
    }

    /// The subresources that apply to the version `name` (`getSubresourcesForVersion`).
    pub(crate) fn subresources_of(&self, name: &str) -> Option<&'a Value> {
        if !self.versions.iter().any(|v| v.subresources.is_some()) {
            return self.subresources;
        }
        self.versions
            .iter()
            .find(|v| v.name == name)
            .and_then(|v| v.subresources)
    }

    /// Whether any version has the status subresource (`hasAnyStatusEnabled`).
    pub(crate) fn any_status(&self) -> bool {
        has_status(self.subresources) || self.versions.iter().any(|v| has_status(v.subresources))
    }

    /// Every schema the spec holds, top level and per version.
    pub(crate) fn schemas(&self) -> impl Iterator<Item = &'a Value> + '_ {
        std::iter::once(self.validation)
            .chain(self.versions.iter().map(|v| v.schema))
            .flatten()
            .filter_map(|v| v.get("openAPIV3Schema"))
    }
}

/// `hasStatusEnabled`.
pub(crate) fn has_status(subresources: Option<&Value>) -> bool {
    subresources.and_then(|s| s.get("status")).is_some_and(|s| !s.is_null())
}

/// A pointer field: absent and `null` are both nil.
fn present(value: Option<&Value>) -> Option<&Value> {
    value.filter(|v| !v.is_null())
}

/// Whether `pred` holds for `schema` or any schema below it (`SchemaHas`).
pub(crate) fn has_keyword(schema: &Value, pred: &dyn Fn(&Value) -> bool) -> bool {
    if !schema.is_object() {
        return false;
    }
    if pred(schema) {
        return true;
    }
    let single = |key: &str| {
        schema.get(key).is_some_and(|s| match s {
            Value::Array(items) => items.iter().any(|s| has_keyword(s, pred)),
            other => has_keyword(other, pred),
        })
    };
    let listed = |key: &str| {
        schema
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .any(|s| has_keyword(s, pred))
    };
    let mapped = |key: &str| {
        schema
            .get(key)
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .any(|(_, s)| has_keyword(s, pred))
    };
    ["items", "not", "additionalProperties", "additionalItems"]
        .into_iter()
        .any(single)
        || ["allOf", "anyOf", "oneOf"].into_iter().any(listed)
        || ["properties", "patternProperties", "definitions", "dependencies"]
            .into_iter()
            .any(mapped)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn of_should_hoist_what_every_version_shares() {
        let crd = json!({ "spec": { "versions": [
            { "name": "v1", "served": true, "storage": true, "schema": { "openAPIV3Schema": { "type": "object" } },
              "subresources": { "status": {} } },
            { "name": "v2", "served": true, "storage": false, "schema": { "openAPIV3Schema": { "type": "object" } } }
        ] } });
        let spec = Spec::of(&crd);
        assert!(spec.validation.is_some());
        assert!(spec.versions.iter().all(|v| v.schema.is_none()));
        assert!(spec.subresources.is_none());
        assert!(spec.versions[0].subresources.is_some());
        assert!(spec.any_status());
        assert!(spec.subresources_of("v2").is_none());
    }
}
