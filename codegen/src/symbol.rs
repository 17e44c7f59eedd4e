//! Every tag key, marker name and marker argument the generator reads, spelled once (as
//! serde_derive's `symbol.rs` does): the parsers' known-key lists and their match arms both name
//! these constants, so a key cannot be listed under one spelling and handled under another.
//!
//! They are plain `&str` constants so that `match` arms can use them as patterns.

// code-generator's tags (`+key` or `+key=value` in doc comments).

/// `+genclient`: the type gets a typed client, lister and informer.
pub const GENCLIENT: &str = "genclient";
/// What every `+genclient` option starts with.
pub const GENCLIENT_OPTION_PREFIX: &str = "genclient:";
/// `+genclient:nonNamespaced`.
pub const GENCLIENT_NON_NAMESPACED: &str = "genclient:nonNamespaced";
/// `+genclient:noVerbs`.
pub const GENCLIENT_NO_VERBS: &str = "genclient:noVerbs";
/// `+genclient:noStatus`.
pub const GENCLIENT_NO_STATUS: &str = "genclient:noStatus";
/// `+genclient:readonly`.
pub const GENCLIENT_READONLY: &str = "genclient:readonly";
/// `+genclient:onlyVerbs=…`.
pub const GENCLIENT_ONLY_VERBS: &str = "genclient:onlyVerbs";
/// `+genclient:skipVerbs=…`.
pub const GENCLIENT_SKIP_VERBS: &str = "genclient:skipVerbs";
/// `+genclient:method=Name,verb=…`.
pub const GENCLIENT_METHOD: &str = "genclient:method";
/// `+groupName=…`.
pub const GROUP_NAME: &str = "groupName";
/// `+groupGoName=…`.
pub const GROUP_GO_NAME: &str = "groupGoName";
/// `+resourceName=…`.
pub const RESOURCE_NAME: &str = "resourceName";
/// `+k8s:deepcopy-gen=package|true|false`.
pub const DEEPCOPY_GEN: &str = "k8s:deepcopy-gen";
/// `+k8s:deepcopy-gen:interfaces=…`.
pub const DEEPCOPY_GEN_INTERFACES: &str = "k8s:deepcopy-gen:interfaces";
/// `+k8s:deepcopy-gen:nonpointer-interfaces=…`.
pub const DEEPCOPY_GEN_NONPOINTER_INTERFACES: &str = "k8s:deepcopy-gen:nonpointer-interfaces";
/// `+k8s:openapi-gen=…`, accepted in a module's doc.
pub const OPENAPI_GEN: &str = "k8s:openapi-gen";
/// code-generator tags for generators this project does not have.
pub const UNSUPPORTED_GENERATORS: [&str; 5] = [
    "k8s:defaulter-gen",
    "k8s:conversion-gen",
    "k8s:validation-gen",
    "k8s:prerelease-lifecycle-gen",
    "k8s:openapi-model-package",
];

// The keys of a `+genclient:method=Name,key=value,…` tag.

/// `verb=`.
pub const METHOD_VERB: &str = "verb";
/// `subresource=`.
pub const METHOD_SUBRESOURCE: &str = "subresource";
/// `input=`.
pub const METHOD_INPUT: &str = "input";
/// `result=`.
pub const METHOD_RESULT: &str = "result";

// controller-gen's markers.

/// What every kubebuilder marker starts with.
pub const KUBEBUILDER_PREFIX: &str = "kubebuilder:";
/// What the validation markers start with.
pub const VALIDATION_PREFIX: &str = "kubebuilder:validation:";
/// `+kubebuilder:validation:items:X`: X for the items of a list.
pub const VALIDATION_ITEMS_PREFIX: &str = "kubebuilder:validation:items:";

pub const RESOURCE: &str = "kubebuilder:resource";
pub const SUBRESOURCE_STATUS: &str = "kubebuilder:subresource:status";
pub const SUBRESOURCE_SCALE: &str = "kubebuilder:subresource:scale";
pub const PRINTCOLUMN: &str = "kubebuilder:printcolumn";
pub const SELECTABLEFIELD: &str = "kubebuilder:selectablefield";
pub const METADATA: &str = "kubebuilder:metadata";
pub const OBJECT_ROOT: &str = "kubebuilder:object:root";
pub const STORAGEVERSION: &str = "kubebuilder:storageversion";
pub const SKIPVERSION: &str = "kubebuilder:skipversion";
pub const VALIDATION_MINIMUM: &str = "kubebuilder:validation:Minimum";
pub const VALIDATION_MAXIMUM: &str = "kubebuilder:validation:Maximum";
pub const VALIDATION_EXCLUSIVE_MINIMUM: &str = "kubebuilder:validation:ExclusiveMinimum";
pub const VALIDATION_EXCLUSIVE_MAXIMUM: &str = "kubebuilder:validation:ExclusiveMaximum";
pub const VALIDATION_MULTIPLE_OF: &str = "kubebuilder:validation:MultipleOf";
pub const VALIDATION_MIN_LENGTH: &str = "kubebuilder:validation:MinLength";
pub const VALIDATION_MAX_LENGTH: &str = "kubebuilder:validation:MaxLength";
pub const VALIDATION_MIN_ITEMS: &str = "kubebuilder:validation:MinItems";
pub const VALIDATION_MAX_ITEMS: &str = "kubebuilder:validation:MaxItems";
pub const VALIDATION_MIN_PROPERTIES: &str = "kubebuilder:validation:MinProperties";
pub const VALIDATION_MAX_PROPERTIES: &str = "kubebuilder:validation:MaxProperties";
pub const VALIDATION_UNIQUE_ITEMS: &str = "kubebuilder:validation:UniqueItems";
pub const VALIDATION_PATTERN: &str = "kubebuilder:validation:Pattern";
pub const VALIDATION_FORMAT: &str = "kubebuilder:validation:Format";
pub const VALIDATION_TYPE: &str = "kubebuilder:validation:Type";
pub const VALIDATION_ENUM: &str = "kubebuilder:validation:Enum";
pub const VALIDATION_OPTIONAL: &str = "kubebuilder:validation:Optional";
pub const VALIDATION_REQUIRED: &str = "kubebuilder:validation:Required";
pub const VALIDATION_X_PRESERVE_UNKNOWN_FIELDS: &str = "kubebuilder:validation:XPreserveUnknownFields";
pub const VALIDATION_X_EMBEDDED_RESOURCE: &str = "kubebuilder:validation:XEmbeddedResource";
pub const VALIDATION_X_INT_OR_STRING: &str = "kubebuilder:validation:XIntOrString";
pub const VALIDATION_X_VALIDATION: &str = "kubebuilder:validation:XValidation";
pub const VALIDATION_SCHEMALESS: &str = "kubebuilder:validation:Schemaless";
pub const VALIDATION_EMBEDDED_RESOURCE: &str = "kubebuilder:validation:EmbeddedResource";
pub const KUBEBUILDER_DEFAULT: &str = "kubebuilder:default";
pub const DEFAULT: &str = "default";
pub const PRUNING_PRESERVE_UNKNOWN_FIELDS: &str = "kubebuilder:pruning:PreserveUnknownFields";
pub const EXAMPLE: &str = "kubebuilder:example";
pub const OBJECT_GENERATE: &str = "kubebuilder:object:generate";
pub const SKIP: &str = "kubebuilder:skip";
pub const RBAC: &str = "kubebuilder:rbac";
pub const OPTIONAL: &str = "optional";
pub const REQUIRED: &str = "required";
pub const NULLABLE: &str = "nullable";
pub const K8S_OPTIONAL: &str = "k8s:optional";
pub const K8S_REQUIRED: &str = "k8s:required";
pub const K8S_IMMUTABLE: &str = "k8s:immutable";
pub const K8S_ENUM: &str = "k8s:enum";
pub const LIST_TYPE: &str = "listType";
pub const LIST_MAP_KEY: &str = "listMapKey";
pub const MAP_TYPE: &str = "mapType";
pub const STRUCT_TYPE: &str = "structType";
/// `+k8s:applyconfiguration-gen=false`: on a field, its apply configuration holds the value as it
/// is (for a type of another crate, which can have no generated configuration); on a type, the
/// type gets no configuration (a part is applied whole, a kind loses its apply methods).
pub const APPLYCONFIGURATION_GEN: &str = "k8s:applyconfiguration-gen";

/// The named arguments of markers (`+kubebuilder:printcolumn:name=…,JSONPath=…`).
pub mod arg {
    // +kubebuilder:resource
    pub const PATH: &str = "path";
    pub const SINGULAR: &str = "singular";
    pub const SHORT_NAME: &str = "shortName";
    pub const CATEGORIES: &str = "categories";
    pub const SCOPE: &str = "scope";
    // +kubebuilder:subresource:scale
    pub const SPEC_PATH: &str = "specpath";
    pub const STATUS_PATH: &str = "statuspath";
    pub const SELECTOR_PATH: &str = "selectorpath";
    // +kubebuilder:printcolumn and +kubebuilder:selectablefield
    pub const NAME: &str = "name";
    pub const TYPE: &str = "type";
    pub const JSON_PATH: &str = "JSONPath";
    pub const DESCRIPTION: &str = "description";
    pub const FORMAT: &str = "format";
    pub const PRIORITY: &str = "priority";
    // +kubebuilder:metadata
    pub const ANNOTATIONS: &str = "annotations";
    pub const LABELS: &str = "labels";
    // +kubebuilder:validation:XValidation
    pub const RULE: &str = "rule";
    pub const MESSAGE: &str = "message";
    pub const MESSAGE_EXPRESSION: &str = "messageExpression";
    pub const REASON: &str = "reason";
    pub const FIELD_PATH: &str = "fieldPath";
    pub const OPTIONAL_OLD_SELF: &str = "optionalOldSelf";
    // +kubebuilder:rbac
    pub const GROUPS: &str = "groups";
    pub const RESOURCES: &str = "resources";
    pub const RESOURCE_NAMES: &str = "resourceNames";
    pub const VERBS: &str = "verbs";
    pub const URLS: &str = "urls";
    pub const NAMESPACE: &str = "namespace";
    pub const ROLE_NAME: &str = "roleName";
}
