//! The CEL type of a structural schema, as kube-apiserver declares `self` to CEL
//! (`apiserver/pkg/cel/common/schemas.go`: `SchemaDeclType`; `apiserver/pkg/cel/types.go`:
//! `DeclType`, `MaybeAssignTypeName`; `apiserver/pkg/cel/escaping.go`: property names), with
//! the sizes the cost estimator bounds lists, maps and strings by.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;

use crate::semantics::schema::structural;

/// kube-apiserver's largest request body (`celconfig.MaxRequestSizeBytes`): what bounds a
/// list, map or string whose schema does not.
pub(crate) const MAX_REQUEST_SIZE_BYTES: i64 = 3 * 1024 * 1024;

/// The declared type of a schema node.
#[derive(Debug)]
pub(crate) struct DeclType {
    name: String,
    pub(crate) shape: Shape,
    /// The most items, properties or bytes (a string's, four per character) a value may have.
    pub(crate) max_elements: i64,
    /// The fewest bytes a value serializes to.
    pub(crate) min_serialized_size: i64,
    /// A `set` or `map` list: equal to another list with the same items in any order.
    pub(crate) unordered: bool,
}

/// What a declared type is made of.
#[derive(Debug)]
pub(crate) enum Shape {
    Scalar(Scalar),
    List(Arc<DeclType>),
    /// A map from strings (additional properties).
    Map(Arc<DeclType>),
    /// An object; its fields by escaped name.
    Object(BTreeMap<String, Arc<DeclType>>),
}

/// The scalar types a schema node can be to CEL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scalar {
    Bool,
    Int,
    Double,
    String,
    Bytes,
    Duration,
    Timestamp,
    /// `x-kubernetes-int-or-string`: either, known only at run time.
    Dyn,
}

impl DeclType {
    fn scalar(name: &str, ty: Scalar, min_size: i64, max_elements: i64) -> DeclType {
        DeclType {
            name: name.into(),
            shape: Shape::Scalar(ty),
            max_elements,
            min_serialized_size: min_size,
            unordered: false,
        }
    }

    /// A type declared by name with its fields (`apiservercel.NewObjectType`), as the
    /// admission environments declare their request and namespace objects.
    pub(crate) fn declared_object(name: &str, fields: Vec<(&str, Arc<DeclType>)>) -> Arc<DeclType> {
        let fields = fields.into_iter().map(|(field, t)| (field.to_owned(), t)).collect();
        Arc::new(DeclType {
            name: name.into(),
            shape: Shape::Object(fields),
            max_elements: MAX_REQUEST_SIZE_BYTES,
            min_serialized_size: 2,
            unordered: false,
        })
    }

    /// A declared scalar (`apiservercel.StringType`…).
    pub(crate) fn declared_scalar(scalar: Scalar) -> Arc<DeclType> {
        let name = match scalar {
            Scalar::Bool => "bool",
            Scalar::Int => "int",
            Scalar::Double => "double",
            Scalar::String => "string",
            Scalar::Bytes => "bytes",
            Scalar::Duration => "duration",
            Scalar::Timestamp => "timestamp",
            Scalar::Dyn => "dyn",
        };
        Arc::new(Self::scalar(name, scalar, 1, MAX_REQUEST_SIZE_BYTES))
    }

    /// A declared list (`NewListType(elem, -1)`) or string-keyed map (`NewMapType`).
    pub(crate) fn declared_collection(elem: Arc<DeclType>, map: bool) -> Arc<DeclType> {
        let (name, shape) = if map {
            ("map", Shape::Map(elem))
        } else {
            ("list", Shape::List(elem))
        };
        Arc::new(DeclType {
            name: name.into(),
            shape,
            max_elements: MAX_REQUEST_SIZE_BYTES,
            min_serialized_size: 2,
            unordered: false,
        })
    }

    /// The name messages print for the type (an object's, as `MaybeAssignTypeName` gave it).
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// The declared type of an object's field, by escaped name.
    pub(crate) fn field(&self, escaped: &str) -> Option<&Arc<DeclType>> {
        match &self.shape {
            Shape::Object(fields) => fields.get(escaped),
            _ => None,
        }
    }

    /// The type of a list's items or a map's values.
    pub(crate) fn elem(&self) -> Option<&Arc<DeclType>> {
        match &self.shape {
            Shape::List(elem) | Shape::Map(elem) => Some(elem),
            _ => None,
        }
    }
}

/// `SchemaDeclType(s, isResourceRoot)` followed by `MaybeAssignTypeName(root_name)`: `None`
/// where CEL cannot see the node (an array without items, a type it does not know).
pub(crate) fn schema_decl_type(schema: &Value, resource_root: bool, root_name: &str) -> Option<Arc<DeclType>> {
    let decl = build(schema, resource_root)?;
    Some(Arc::new(assign_name(decl, root_name)))
}

fn build(schema: &Value, resource_root: bool) -> Option<DeclType> {
    if structural::flag(schema, "x-kubernetes-int-or-string") {
        // The smallest serialized int-or-string is `0`.
        return Some(DeclType::scalar("dyn", Scalar::Dyn, 1, MAX_REQUEST_SIZE_BYTES - 2));
    }
    let ty = schema.get("type").and_then(Value::as_str).unwrap_or_default();
    match ty {
        "array" => {
            let items = structural::items(schema)?;
            let elem = build(items, structural::embedded_resource(items))?;
            let max_items = match structural::int(schema, "maxItems") {
                Some(max) => max.max(0),
                None => (MAX_REQUEST_SIZE_BYTES - 2) / (elem.min_serialized_size + 1),
            };
            let list_type = schema.get("x-kubernetes-list-type").and_then(Value::as_str);
            Some(DeclType {
                name: "list".into(),
                shape: Shape::List(Arc::new(elem)),
                max_elements: max_items,
                min_serialized_size: 2,
                unordered: matches!(list_type, Some("set" | "map")),
            })
        }
        "object" => match structural::additional(schema) {
            Some(additional) => {
                let value = build(additional, structural::embedded_resource(additional))?;
                let max_properties = match structural::int(schema, "maxProperties") {
                    Some(max) => max.max(0),
                    // A key of at least `""`, a colon, a comma and the value.
                    None => (MAX_REQUEST_SIZE_BYTES - 2) / (value.min_serialized_size + 6),
                };
                Some(DeclType {
                    name: "map".into(),
                    shape: Shape::Map(Arc::new(value)),
                    max_elements: max_properties,
                    min_serialized_size: 2,
                    unordered: false,
                })
            }
            None => Some(object(schema, resource_root)),
        },
        "string" => Some(string(schema)),
        "boolean" => Some(DeclType::scalar("bool", Scalar::Bool, 4, 0)),
        "number" => Some(DeclType::scalar("double", Scalar::Double, 1, 0)),
        "integer" => Some(DeclType::scalar("int", Scalar::Int, 1, 0)),
        _ => None,
    }
}

/// An object's fields: its properties CEL can name (escaped), plus `apiVersion`, `kind` and
/// `metadata.{name,generateName}` on a resource (`WithTypeAndObjectMeta`).
fn object(schema: &Value, resource_root: bool) -> DeclType {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut fields = BTreeMap::new();
    let mut min_size = 2;
    let empty = serde_json::Map::new();
    let properties = schema.get("properties").and_then(Value::as_object).unwrap_or(&empty);
    let mut add = |name: &str, prop: &Value| {
        let Some(field) = build(prop, structural::embedded_resource(prop)) else {
            return;
        };
        let is_required = required.contains(&name);
        if is_required && structural::default(prop).is_none() {
            min_size += name.len() as i64 + field.min_serialized_size + 4;
        }
        if let Some(escaped) = escape(name) {
            fields.insert(escaped, Arc::new(field));
        }
    };
    for (name, prop) in properties {
        add(name, prop);
    }
    if resource_root && !has_type_and_object_meta(schema) {
        let string = serde_json::json!({"type": "string"});
        add("apiVersion", &string);
        add("kind", &string);
        add(
            "metadata",
            &serde_json::json!({"type": "object", "properties": {"name": string, "generateName": string}}),
        );
    }
    DeclType {
        name: "object".into(),
        shape: Shape::Object(fields),
        max_elements: 0,
        min_serialized_size: min_size,
        unordered: false,
    }
}

/// Whether a resource's schema already declares its type and object meta as strings.
fn has_type_and_object_meta(schema: &Value) -> bool {
    let is = |node: Option<&Value>, ty: &str| node.and_then(|n| n.get("type")).and_then(Value::as_str) == Some(ty);
    let metadata = structural::property(schema, "metadata");
    is(structural::property(schema, "kind"), "string")
        && is(structural::property(schema, "apiVersion"), "string")
        && is(metadata, "object")
        && is(metadata.and_then(|m| structural::property(m, "name")), "string")
        && is(metadata.and_then(|m| structural::property(m, "generateName")), "string")
}

/// A string by format: bytes, durations and timestamps are their CEL types.
fn string(schema: &Value) -> DeclType {
    let max_length = structural::int(schema, "maxLength").map(|m| m.max(0));
    let unbounded = MAX_REQUEST_SIZE_BYTES - 2;
    match schema.get("format").and_then(Value::as_str) {
        Some("byte") => DeclType::scalar("bytes", Scalar::Bytes, 2, max_length.unwrap_or(unbounded)),
        Some("duration") => DeclType::scalar("duration", Scalar::Duration, 3, 32),
        Some("date") => DeclType::scalar("timestamp", Scalar::Timestamp, 12, 12),
        Some("date-time") => DeclType::scalar("timestamp", Scalar::Timestamp, 21, 32),
        // A character may take four bytes.
        _ => DeclType::scalar("string", Scalar::String, 2, max_length.map_or(unbounded, |m| m * 4)),
    }
}

/// `MaybeAssignTypeName`: an unnamed object takes `name`, and its object fields
/// `name.field`, recursively (list items and map values keep theirs).
fn assign_name(mut decl: DeclType, name: &str) -> DeclType {
    if let Shape::Object(fields) = &mut decl.shape {
        if decl.name == "object" {
            decl.name = name.to_string();
        }
        let parent = decl.name.clone();
        for (field, ty) in fields.iter_mut() {
            if let Some(owned) = Arc::get_mut(ty) {
                let taken = std::mem::replace(owned, DeclType::scalar("dyn", Scalar::Dyn, 0, 0));
                *owned = assign_name(taken, &format!("{parent}.{field}"));
            }
        }
    }
    decl
}

/// Words CEL reserves: a property so named is `__name__` to CEL.
pub(super) const RESERVED: &[&str] = &[
    "true",
    "false",
    "null",
    "in",
    "as",
    "break",
    "const",
    "continue",
    "else",
    "for",
    "function",
    "if",
    "import",
    "let",
    "loop",
    "package",
    "namespace",
    "return",
    "var",
    "void",
    "while",
];

/// `Escape`: the CEL name of a property, or `None` when CEL cannot name it (a leading digit,
/// a character other than letters, digits, `_`, `-`, `.`, `/`).
pub(crate) fn escape(name: &str) -> Option<String> {
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    if RESERVED.contains(&name) {
        return Some(format!("__{name}__"));
    }
    let mut escaped = String::with_capacity(name.len());
    let mut chars = name.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '_' if chars.peek() == Some(&'_') => {
                chars.next();
                escaped.push_str("__underscores__");
            }
            '.' => escaped.push_str("__dot__"),
            '-' => escaped.push_str("__dash__"),
            '/' => escaped.push_str("__slash__"),
            c if c.is_ascii_alphanumeric() || c == '_' => escaped.push(c),
            _ => return None,
        }
    }
    Some(escaped)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn escape_should_spell_names_as_kubernetes() {
        assert_eq!(escape("dash-name").as_deref(), Some("dash__dash__name"));
        assert_eq!(escape("namespace").as_deref(), Some("__namespace__"));
        assert_eq!(
            escape("a__b.c/d").as_deref(),
            Some("a__underscores__b__dot__c__slash__d")
        );
        assert_eq!(escape("1st"), None);
        assert_eq!(escape("a$b"), None);
    }

    #[test]
    fn a_resource_root_should_see_type_and_object_meta_and_name_its_object_fields() {
        let schema = json!({"type": "object", "properties": {
            "spec": {"type": "object", "required": ["n"], "properties": {"n": {"type": "string", "maxLength": 5}}},
            "tags": {"type": "array", "items": {"type": "string"}}
        }});
        let root = schema_decl_type(&schema, true, "selfType0").expect("declared");
        assert_eq!(root.name(), "selfType0");
        let spec = root.field("spec").expect("spec");
        assert_eq!(spec.name(), "selfType0.spec");
        assert_eq!(spec.min_serialized_size, 2 + 1 + 2 + 4);
        assert_eq!(spec.field("n").expect("n").max_elements, 20);
        assert_eq!(
            root.field("metadata").and_then(|m| m.field("name")).map(|n| n.name()),
            Some("string")
        );
        let tags = root.field("tags").expect("tags");
        assert_eq!(tags.max_elements, (MAX_REQUEST_SIZE_BYTES - 2) / 3);
        assert_eq!(tags.cel_type().to_string(), "list(string)");
    }
}
