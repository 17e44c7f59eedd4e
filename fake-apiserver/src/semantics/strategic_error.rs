//! Why a strategic merge patch does not apply, worded as `k8s.io/apimachinery/pkg/util/mergepatch`
//! and `strategicpatch/patch.go` word it, and the HTTP answer kube-apiserver's patch handler
//! gives each (`interpretStrategicMergePatchError` in `endpoints/handlers/patch.go`).

use serde_json::{Map, Value};

use crate::semantics::field_error::go_float;

/// The Go type an unstructured JSON value decodes to (`reflect.TypeOf`): integers stay `int64`
/// (the patch is decoded preserving ints, the object converted from its Go fields).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum GoType {
    Map,
    Slice,
    String,
    Int,
    Float,
    Bool,
    Nil,
}

impl GoType {
    pub(crate) fn of(value: &Value) -> Self {
        match value {
            Value::Object(_) => Self::Map,
            Value::Array(_) => Self::Slice,
            Value::String(_) => Self::String,
            Value::Number(n) if n.is_f64() => Self::Float,
            Value::Number(_) => Self::Int,
            Value::Bool(_) => Self::Bool,
            Value::Null => Self::Nil,
        }
    }

    /// `reflect.Type.String()` (`%s` of a nil type for a null).
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Map => "map[string]interface {}",
            Self::Slice => "[]interface {}",
            Self::String => "string",
            Self::Int => "int64",
            Self::Float => "float64",
            Self::Bool => "bool",
            Self::Nil => "%!s(<nil>)",
        }
    }
}

/// Why a strategic merge patch cannot be applied.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum StrategicError {
    /// The patch is not a JSON object: `strategicPatchObject` decodes it into a Go map, and
    /// `encoding/json` refuses a value of this JSON type.
    #[error("json: cannot unmarshal {0} into Go value of type map[string]interface {{}}")]
    NotAnObject(&'static str),
    /// `mergepatch.ErrNoListOfLists`.
    #[error("lists of lists are not supported")]
    NoListOfLists,
    /// `mergepatch.ErrBadPatchFormatForPrimitiveList`: a `$deleteFromPrimitiveList` key
    /// without `/field`.
    #[error("invalid patch format of primitive list")]
    BadPrimitiveList,
    /// `mergepatch.ErrBadPatchFormatForRetainKeys`: `$retainKeys` is no list, or the patch
    /// sets a key it does not retain.
    #[error("invalid patch format of retainKeys")]
    BadRetainKeys,
    /// `mergepatch.ErrBadPatchFormatForSetElementOrderList`.
    #[error("invalid patch format of setElementOrder list")]
    BadSetElementOrder,
    /// `mergepatch.ErrNoMergeKey`: an item of a keyed list lacks its merge key.
    #[error("map: {map} does not contain declared merge key: {key}")]
    NoMergeKey { map: String, key: String },
    /// `mergepatch.ErrBadArgType`: a value is not of the type its place needs.
    #[error("expected a {expected}, but received a {actual}")]
    BadArgType {
        expected: &'static str,
        actual: &'static str,
    },
    /// `mergepatch.ErrBadPatchType`: a `$patch` directive its place does not take.
    #[error("unknown patch type: {directive} in map: {map}")]
    BadPatchType { directive: String, map: String },
    /// `$patch: merge` on a list item, which strategic merge does not implement.
    #[error("merging lists cannot yet be specified in the patch")]
    MergeList,
    /// `sliceElementType`: a list mixes element types.
    #[error("list element types are not identical: {0}")]
    MixedElementTypes(String),
    /// `sliceElementType` of lists that are all empty.
    #[error("no elements in any of the given slices")]
    NoElements,
    /// A list of objects with the `merge` strategy but no merge key.
    #[error("cannot merge lists without merge key for {0}")]
    NoMergeKeyDeclared(&'static str),
    /// `validatePatchWithSetOrderList`: the patch's items are not in the order's order.
    #[error("The order in patch list:\n{patch}\n doesn't match $setElementOrder list:\n{order}\n")]
    OrderMismatch { patch: String, order: String },
    /// A field lookup by JSON name in a struct that declares no such field.
    #[error("unable to find api field in struct {strukt} for the json field {field:?}")]
    UnknownField { strukt: String, field: String },
    /// A field lookup by JSON name in a map rather than a struct.
    #[error("merging an object in json but data type is not struct, instead is: {0}")]
    NotAStruct(&'static str),
    /// `findMapInSliceBasedOnKeyValue`: the item at this index of a keyed list is no object.
    #[error("value for key {0} is not a map")]
    ItemNotAMap(usize),
    /// A list field lookup that found no list (`LookupPatchMetadataForSlice`).
    #[error("expected slice or array type, but got: {0}")]
    NotASlice(&'static str),
    /// `extractRetainKeysPatchStrategy` of a tag it does not know.
    #[error("unexpected patch strategy: {0}")]
    UnexpectedStrategy(String),
}

impl StrategicError {
    pub(crate) fn bad_patch_type(directive: &Value, map: &Map<String, Value>) -> Self {
        Self::BadPatchType {
            directive: go_text(directive),
            map: go_text(&Value::Object(map.clone())),
        }
    }

    pub(crate) fn no_merge_key(item: &Value, key: &str) -> Self {
        Self::NoMergeKey {
            map: go_text(item),
            key: key.to_owned(),
        }
    }

    pub(crate) fn bad_arg_type(expected: GoType, actual: &Value) -> Self {
        Self::BadArgType {
            expected: expected.name(),
            actual: GoType::of(actual).name(),
        }
    }

    /// The status code kube-apiserver answers with: the format errors are a 400 Bad Request,
    /// lists of lists a generic 422, every other error a bare 500.
    pub(crate) fn code(&self) -> u16 {
        match self {
            Self::NotAnObject(_) | Self::BadPrimitiveList | Self::BadRetainKeys | Self::BadSetElementOrder => 400,
            Self::NoListOfLists => 422,
            _ => 500,
        }
    }
}

/// A decoded JSON value as Go's `%v` prints it: maps with sorted keys (`map[a:1 b:x]`), slices
/// as `[a b]`, strings bare, nil as `<nil>`.
pub(crate) fn go_text(value: &Value) -> String {
    match value {
        Value::Null => "<nil>".to_owned(),
        Value::String(s) => s.clone(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => match n.as_i64() {
            Some(i) => i.to_string(),
            None => go_float(n.as_f64().unwrap_or_default()),
        },
        Value::Array(items) => format!("[{}]", items.iter().map(go_text).collect::<Vec<_>>().join(" ")),
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            let shown: Vec<String> = entries.iter().map(|(k, v)| format!("{k}:{}", go_text(v))).collect();
            format!("map[{}]", shown.join(" "))
        }
    }
}
