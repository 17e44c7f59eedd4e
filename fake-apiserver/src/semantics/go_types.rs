//! Go type tables: the `reflect` tree of a Kubernetes API type, as `hack/go-types.sh` writes it
//! from a Kubernetes source tree into `go_types/`, for the ports of Go code that walk a value by
//! its Go type (go-spew's print in `go_spew`, encoding/json's in `go_marshal`).

use std::collections::HashMap;
use std::sync::LazyLock;

use serde::Deserialize;

/// One Go type of a table: spew's name for it (`reflect.Type.String`), its kind (`struct`,
/// `ptr`, `slice`, `map`, a basic kind, or `quantity` and `time`, which the ports print
/// themselves), and its parts.
#[derive(Debug, Deserialize)]
pub(crate) struct GoType {
    pub(crate) name: String,
    pub(crate) kind: String,
    /// A pointer's, slice's or map's element type.
    #[serde(default)]
    pub(crate) elem: Option<String>,
    /// A map's key type.
    #[serde(default)]
    pub(crate) key: Option<String>,
    #[serde(default)]
    fields: Vec<GoField>,
}

impl GoType {
    /// A struct's fields in declaration order.
    pub(crate) fn fields(&self) -> &[GoField] {
        &self.fields
    }
}

/// One struct field: written `[GoName, jsonName, type, flags…]` with the flags `inline` (an
/// embedded or `,inline` struct) and `omitempty`.
#[derive(Debug, Deserialize)]
#[serde(from = "Vec<String>")]
pub(crate) struct GoField {
    go_name: String,
    json_name: String,
    type_id: String,
    inline: bool,
    omit_empty: bool,
}

impl From<Vec<String>> for GoField {
    fn from(parts: Vec<String>) -> Self {
        let part = |i: usize| parts.get(i).cloned().unwrap_or_default();
        let flag = |name: &str| parts.iter().skip(3).any(|f| f == name);
        GoField {
            go_name: part(0),
            json_name: part(1),
            type_id: part(2),
            inline: flag("inline"),
            omit_empty: flag("omitempty"),
        }
    }
}

impl GoField {
    pub(crate) fn go_name(&self) -> &str {
        &self.go_name
    }

    pub(crate) fn json_name(&self) -> &str {
        &self.json_name
    }

    /// The table's id of the field's type.
    pub(crate) fn type_id(&self) -> &str {
        &self.type_id
    }

    /// Whether the field's struct is written into the enclosing one.
    pub(crate) fn inline(&self) -> bool {
        self.inline
    }

    /// Whether encoding/json leaves the field out at its zero value.
    pub(crate) fn omit_empty(&self) -> bool {
        self.omit_empty
    }
}

/// A tree of Go types from a root.
#[derive(Debug, Deserialize)]
pub(crate) struct GoTypes {
    root: String,
    types: HashMap<String, GoType>,
}

impl GoTypes {
    /// The id of the table's root type.
    pub(crate) fn root(&self) -> &str {
        &self.root
    }

    /// The type of `id`; every id a table names is in it.
    pub(crate) fn get(&self, id: &str) -> &GoType {
        self.types
            .get(id)
            .unwrap_or_else(|| panic!("the Go type table has every type it names ({id})"))
    }
}

static POD_TEMPLATE_1_28: LazyLock<GoTypes> = LazyLock::new(|| parse(include_str!("go_types/pod_template_v1_28.json")));
static POD_TEMPLATE_1_31: LazyLock<GoTypes> = LazyLock::new(|| parse(include_str!("go_types/pod_template_v1_31.json")));
static ENDPOINTS_1_28: LazyLock<GoTypes> = LazyLock::new(|| parse(include_str!("go_types/endpoints_v1_28.json")));
static ENDPOINTS_1_31: LazyLock<GoTypes> = LazyLock::new(|| parse(include_str!("go_types/endpoints_v1_31.json")));

fn parse(table: &str) -> GoTypes {
    serde_json::from_str(table).expect("the Go type tables are valid JSON of their shape")
}

/// core/v1's `PodTemplateSpec` as the minor's kube-controller-manager has it. The tables are of
/// 1.28.7 and 1.31.2; 1.29 and 1.30 take 1.28's (their added fields are printed only when set).
pub(crate) fn pod_template_types(minor: u32) -> &'static GoTypes {
    if minor >= 31 {
        &POD_TEMPLATE_1_31
    } else {
        &POD_TEMPLATE_1_28
    }
}

/// core/v1's `EndpointSubset` (the table's root) and discovery/v1's `EndpointPort`
/// (`discovery.EndpointPort`), which the endpoints and EndpointSlice controllers sort by their
/// hashes, as the minor's kube-controller-manager has them.
pub(crate) fn endpoint_types(minor: u32) -> &'static GoTypes {
    if minor >= 31 { &ENDPOINTS_1_31 } else { &ENDPOINTS_1_28 }
}
