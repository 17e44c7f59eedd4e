//! The markers this project supports: each marker's name, value or named arguments with their
//! types, and where it may be written (types, fields).

use crate::symbol::*;

/// What an argument accepts.
#[derive(Clone, Copy, Debug)]
pub(super) enum Kind {
    String,
    Int,
    Number,
    Bool,
    List,
    Raw,
    OneOf(&'static [&'static str]),
}

/// A supported marker: its name, whether it takes one value or named arguments, and those.
pub(super) struct Spec {
    pub(super) name: &'static str,
    /// `Some(kind)`: `+name=value`; `None`: a flag or named arguments.
    pub(super) value: Option<Kind>,
    /// `(argument, kind, required)`.
    pub(super) args: &'static [(&'static str, Kind, bool)],
    /// Where it may be written: a union of [`TYPE`], [`FIELD`] and [`PACKAGE`].
    pub(super) places: u8,
}

/// Written on a type.
pub(super) const TYPE: u8 = 1;
/// Written on a field.
pub(super) const FIELD: u8 = 2;
/// Written in a module's `//!` doc.
pub(super) const PACKAGE: u8 = 4;

const fn flag(name: &'static str, places: u8) -> Spec {
    Spec {
        name,
        value: None,
        args: &[],
        places,
    }
}

const fn valued(name: &'static str, kind: Kind, places: u8) -> Spec {
    Spec {
        name,
        value: Some(kind),
        args: &[],
        places,
    }
}

const COLUMN_TYPES: &[&str] = &["string", "integer", "number", "boolean", "date"];

pub(super) const SPECS: &[Spec] = &[
    Spec {
        name: RESOURCE,
        value: None,
        args: &[
            (arg::PATH, Kind::String, false),
            (arg::SINGULAR, Kind::String, false),
            (arg::SHORT_NAME, Kind::List, false),
            (arg::CATEGORIES, Kind::List, false),
            (arg::SCOPE, Kind::OneOf(&["Namespaced", "Cluster"]), false),
        ],
        places: TYPE,
    },
    flag(SUBRESOURCE_STATUS, TYPE),
    Spec {
        name: SUBRESOURCE_SCALE,
        value: None,
        args: &[
            (arg::SPEC_PATH, Kind::String, true),
            (arg::STATUS_PATH, Kind::String, true),
            (arg::SELECTOR_PATH, Kind::String, false),
        ],
        places: TYPE,
    },
    Spec {
        name: PRINTCOLUMN,
        value: None,
        args: &[
            (arg::NAME, Kind::String, true),
            (arg::TYPE, Kind::OneOf(COLUMN_TYPES), true),
            (arg::JSON_PATH, Kind::String, true),
            (arg::DESCRIPTION, Kind::String, false),
            (arg::FORMAT, Kind::String, false),
            (arg::PRIORITY, Kind::Int, false),
        ],
        places: TYPE,
    },
    Spec {
        name: SELECTABLEFIELD,
        value: None,
        args: &[(arg::JSON_PATH, Kind::String, true)],
        places: TYPE,
    },
    Spec {
        name: METADATA,
        value: None,
        args: &[(arg::ANNOTATIONS, Kind::List, false), (arg::LABELS, Kind::List, false)],
        places: TYPE,
    },
    valued(OBJECT_ROOT, Kind::Bool, TYPE),
    flag(STORAGEVERSION, TYPE),
    flag(SKIPVERSION, TYPE),
    valued(VALIDATION_MINIMUM, Kind::Number, TYPE | FIELD),
    valued(VALIDATION_MAXIMUM, Kind::Number, TYPE | FIELD),
    valued(VALIDATION_EXCLUSIVE_MINIMUM, Kind::Bool, TYPE | FIELD),
    valued(VALIDATION_EXCLUSIVE_MAXIMUM, Kind::Bool, TYPE | FIELD),
    valued(VALIDATION_MULTIPLE_OF, Kind::Number, TYPE | FIELD),
    valued(VALIDATION_MIN_LENGTH, Kind::Int, TYPE | FIELD),
    valued(VALIDATION_MAX_LENGTH, Kind::Int, TYPE | FIELD),
    valued(VALIDATION_MIN_ITEMS, Kind::Int, TYPE | FIELD),
    valued(VALIDATION_MAX_ITEMS, Kind::Int, TYPE | FIELD),
    valued(VALIDATION_MIN_PROPERTIES, Kind::Int, TYPE | FIELD),
    valued(VALIDATION_MAX_PROPERTIES, Kind::Int, TYPE | FIELD),
    valued(VALIDATION_UNIQUE_ITEMS, Kind::Bool, TYPE | FIELD),
    valued(VALIDATION_PATTERN, Kind::String, TYPE | FIELD),
    valued(VALIDATION_FORMAT, Kind::String, TYPE | FIELD),
    valued(VALIDATION_TYPE, Kind::String, TYPE | FIELD),
    valued(VALIDATION_ENUM, Kind::List, TYPE | FIELD),
    flag(VALIDATION_OPTIONAL, TYPE | FIELD | PACKAGE),
    flag(VALIDATION_REQUIRED, TYPE | FIELD | PACKAGE),
    flag(VALIDATION_X_PRESERVE_UNKNOWN_FIELDS, TYPE | FIELD),
    flag(VALIDATION_X_EMBEDDED_RESOURCE, TYPE | FIELD),
    flag(VALIDATION_X_INT_OR_STRING, TYPE | FIELD),
    Spec {
        name: VALIDATION_X_VALIDATION,
        value: None,
        args: &[
            (arg::RULE, Kind::String, true),
            (arg::MESSAGE, Kind::String, false),
            (arg::MESSAGE_EXPRESSION, Kind::String, false),
            (arg::REASON, Kind::String, false),
            (arg::FIELD_PATH, Kind::String, false),
            (arg::OPTIONAL_OLD_SELF, Kind::Bool, false),
        ],
        places: TYPE | FIELD,
    },
    valued(KUBEBUILDER_DEFAULT, Kind::Raw, FIELD),
    valued(DEFAULT, Kind::Raw, FIELD),
    flag(PRUNING_PRESERVE_UNKNOWN_FIELDS, TYPE | FIELD),
    flag(OPTIONAL, FIELD),
    flag(K8S_OPTIONAL, FIELD),
    flag(K8S_REQUIRED, FIELD),
    flag(K8S_IMMUTABLE, FIELD),
    flag(K8S_ENUM, TYPE),
    flag(VALIDATION_SCHEMALESS, TYPE | FIELD),
    flag(VALIDATION_EMBEDDED_RESOURCE, TYPE | FIELD),
    valued(EXAMPLE, Kind::Raw, TYPE | FIELD),
    valued(OBJECT_GENERATE, Kind::Bool, TYPE | PACKAGE),
    flag(SKIP, PACKAGE),
    Spec {
        name: RBAC,
        value: None,
        args: &[
            (arg::GROUPS, Kind::List, false),
            (arg::RESOURCES, Kind::List, false),
            (arg::RESOURCE_NAMES, Kind::List, false),
            (arg::VERBS, Kind::List, true),
            (arg::URLS, Kind::List, false),
            (arg::NAMESPACE, Kind::String, false),
            (arg::ROLE_NAME, Kind::String, false),
        ],
        places: PACKAGE,
    },
    flag(REQUIRED, FIELD),
    flag(NULLABLE, FIELD),
    valued(LIST_TYPE, Kind::OneOf(&["atomic", "set", "map"]), TYPE | FIELD),
    valued(LIST_MAP_KEY, Kind::String, TYPE | FIELD),
    valued(MAP_TYPE, Kind::OneOf(&["atomic", "granular"]), TYPE | FIELD),
    valued(STRUCT_TYPE, Kind::OneOf(&["atomic", "granular"]), TYPE | FIELD),
    valued(APPLYCONFIGURATION_GEN, Kind::OneOf(&["false"]), TYPE | FIELD),
];
