//! The markers this project supports: each marker's name, value or named arguments with their
//! types, and where it may be written (types, fields).

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
        name: "kubebuilder:resource",
        value: None,
        args: &[
            ("path", Kind::String, false),
            ("singular", Kind::String, false),
            ("shortName", Kind::List, false),
            ("categories", Kind::List, false),
            ("scope", Kind::OneOf(&["Namespaced", "Cluster"]), false),
        ],
        places: TYPE,
    },
    flag("kubebuilder:subresource:status", TYPE),
    Spec {
        name: "kubebuilder:subresource:scale",
        value: None,
        args: &[
            ("specpath", Kind::String, true),
            ("statuspath", Kind::String, true),
            ("selectorpath", Kind::String, false),
        ],
        places: TYPE,
    },
    Spec {
        name: "kubebuilder:printcolumn",
        value: None,
        args: &[
            ("name", Kind::String, true),
            ("type", Kind::OneOf(COLUMN_TYPES), true),
            ("JSONPath", Kind::String, true),
            ("description", Kind::String, false),
            ("format", Kind::String, false),
            ("priority", Kind::Int, false),
        ],
        places: TYPE,
    },
    Spec {
        name: "kubebuilder:selectablefield",
        value: None,
        args: &[("JSONPath", Kind::String, true)],
        places: TYPE,
    },
    Spec {
        name: "kubebuilder:metadata",
        value: None,
        args: &[("annotations", Kind::List, false), ("labels", Kind::List, false)],
        places: TYPE,
    },
    valued("kubebuilder:object:root", Kind::Bool, TYPE),
    flag("kubebuilder:storageversion", TYPE),
    flag("kubebuilder:skipversion", TYPE),
    valued("kubebuilder:validation:Minimum", Kind::Number, TYPE | FIELD),
    valued("kubebuilder:validation:Maximum", Kind::Number, TYPE | FIELD),
    valued("kubebuilder:validation:ExclusiveMinimum", Kind::Bool, TYPE | FIELD),
    valued("kubebuilder:validation:ExclusiveMaximum", Kind::Bool, TYPE | FIELD),
    valued("kubebuilder:validation:MultipleOf", Kind::Number, TYPE | FIELD),
    valued("kubebuilder:validation:MinLength", Kind::Int, TYPE | FIELD),
    valued("kubebuilder:validation:MaxLength", Kind::Int, TYPE | FIELD),
    valued("kubebuilder:validation:MinItems", Kind::Int, TYPE | FIELD),
    valued("kubebuilder:validation:MaxItems", Kind::Int, TYPE | FIELD),
    valued("kubebuilder:validation:MinProperties", Kind::Int, TYPE | FIELD),
    valued("kubebuilder:validation:MaxProperties", Kind::Int, TYPE | FIELD),
    valued("kubebuilder:validation:UniqueItems", Kind::Bool, TYPE | FIELD),
    valued("kubebuilder:validation:Pattern", Kind::String, TYPE | FIELD),
    valued("kubebuilder:validation:Format", Kind::String, TYPE | FIELD),
    valued("kubebuilder:validation:Type", Kind::String, TYPE | FIELD),
    valued("kubebuilder:validation:Enum", Kind::List, TYPE | FIELD),
    flag("kubebuilder:validation:Optional", TYPE | FIELD | PACKAGE),
    flag("kubebuilder:validation:Required", TYPE | FIELD | PACKAGE),
    flag("kubebuilder:validation:XPreserveUnknownFields", TYPE | FIELD),
    flag("kubebuilder:validation:XEmbeddedResource", TYPE | FIELD),
    flag("kubebuilder:validation:XIntOrString", TYPE | FIELD),
    Spec {
        name: "kubebuilder:validation:XValidation",
        value: None,
        args: &[
            ("rule", Kind::String, true),
            ("message", Kind::String, false),
            ("messageExpression", Kind::String, false),
            ("reason", Kind::String, false),
            ("fieldPath", Kind::String, false),
            ("optionalOldSelf", Kind::Bool, false),
        ],
        places: TYPE | FIELD,
    },
    valued("kubebuilder:default", Kind::Raw, FIELD),
    valued("default", Kind::Raw, FIELD),
    flag("kubebuilder:pruning:PreserveUnknownFields", TYPE | FIELD),
    flag("optional", FIELD),
    flag("k8s:optional", FIELD),
    flag("k8s:required", FIELD),
    flag("k8s:immutable", FIELD),
    flag("k8s:enum", TYPE),
    flag("kubebuilder:validation:Schemaless", TYPE | FIELD),
    flag("kubebuilder:validation:EmbeddedResource", TYPE | FIELD),
    valued("kubebuilder:example", Kind::Raw, TYPE | FIELD),
    valued("kubebuilder:object:generate", Kind::Bool, TYPE | PACKAGE),
    flag("kubebuilder:skip", PACKAGE),
    Spec {
        name: "kubebuilder:rbac",
        value: None,
        args: &[
            ("groups", Kind::List, false),
            ("resources", Kind::List, false),
            ("resourceNames", Kind::List, false),
            ("verbs", Kind::List, true),
            ("urls", Kind::List, false),
            ("namespace", Kind::String, false),
            ("roleName", Kind::String, false),
        ],
        places: PACKAGE,
    },
    flag("required", FIELD),
    flag("nullable", FIELD),
    valued("listType", Kind::OneOf(&["atomic", "set", "map"]), TYPE | FIELD),
    valued("listMapKey", Kind::String, TYPE | FIELD),
    valued("mapType", Kind::OneOf(&["atomic", "granular"]), TYPE | FIELD),
    valued("structType", Kind::OneOf(&["atomic", "granular"]), TYPE | FIELD),
];
