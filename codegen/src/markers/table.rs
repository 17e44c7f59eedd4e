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
    /// Where it may be written.
    pub(super) on_field: bool,
    pub(super) on_type: bool,
}

const fn flag(name: &'static str, on_type: bool, on_field: bool) -> Spec {
    Spec {
        name,
        value: None,
        args: &[],
        on_field,
        on_type,
    }
}

const fn valued(name: &'static str, kind: Kind, on_type: bool, on_field: bool) -> Spec {
    Spec {
        name,
        value: Some(kind),
        args: &[],
        on_field,
        on_type,
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
        on_field: false,
        on_type: true,
    },
    flag("kubebuilder:subresource:status", true, false),
    Spec {
        name: "kubebuilder:subresource:scale",
        value: None,
        args: &[
            ("specpath", Kind::String, true),
            ("statuspath", Kind::String, true),
            ("selectorpath", Kind::String, false),
        ],
        on_field: false,
        on_type: true,
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
        on_field: false,
        on_type: true,
    },
    Spec {
        name: "kubebuilder:selectablefield",
        value: None,
        args: &[("JSONPath", Kind::String, true)],
        on_field: false,
        on_type: true,
    },
    valued("kubebuilder:object:root", Kind::Bool, true, false),
    flag("kubebuilder:storageversion", true, false),
    flag("kubebuilder:skipversion", true, false),
    valued("kubebuilder:validation:Minimum", Kind::Number, false, true),
    valued("kubebuilder:validation:Maximum", Kind::Number, false, true),
    valued("kubebuilder:validation:ExclusiveMinimum", Kind::Bool, false, true),
    valued("kubebuilder:validation:ExclusiveMaximum", Kind::Bool, false, true),
    valued("kubebuilder:validation:MultipleOf", Kind::Number, false, true),
    valued("kubebuilder:validation:MinLength", Kind::Int, false, true),
    valued("kubebuilder:validation:MaxLength", Kind::Int, false, true),
    valued("kubebuilder:validation:MinItems", Kind::Int, false, true),
    valued("kubebuilder:validation:MaxItems", Kind::Int, false, true),
    valued("kubebuilder:validation:MinProperties", Kind::Int, true, true),
    valued("kubebuilder:validation:MaxProperties", Kind::Int, true, true),
    valued("kubebuilder:validation:UniqueItems", Kind::Bool, false, true),
    valued("kubebuilder:validation:Pattern", Kind::String, false, true),
    valued("kubebuilder:validation:Format", Kind::String, false, true),
    valued("kubebuilder:validation:Type", Kind::String, false, true),
    valued("kubebuilder:validation:Enum", Kind::List, true, true),
    flag("kubebuilder:validation:Optional", true, true),
    flag("kubebuilder:validation:Required", true, true),
    flag("kubebuilder:validation:XPreserveUnknownFields", true, true),
    flag("kubebuilder:validation:XEmbeddedResource", true, true),
    flag("kubebuilder:validation:XIntOrString", true, true),
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
        on_field: true,
        on_type: true,
    },
    valued("kubebuilder:default", Kind::Raw, false, true),
    valued("default", Kind::Raw, false, true),
    flag("kubebuilder:pruning:PreserveUnknownFields", true, true),
    flag("optional", false, true),
    flag("required", false, true),
    flag("nullable", false, true),
    valued("listType", Kind::OneOf(&["atomic", "set", "map"]), false, true),
    valued("listMapKey", Kind::String, false, true),
    valued("mapType", Kind::OneOf(&["atomic", "granular"]), false, true),
    valued("structType", Kind::OneOf(&["atomic", "granular"]), false, true),
];
