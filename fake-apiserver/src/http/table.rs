//! Server-side printing: `meta.k8s.io` `Table` responses with a CRD's printer columns, which
//! is what `kubectl get` asks for and prints, and `PartialObjectMetadata`, what metadata-only
//! clients (kube-runtime's `metadata_watcher`) ask for; `render` negotiates which.

use serde_json::{Value, json};

use crate::http::jsonpath::{self, Found, JsonPath};
use crate::http::printers;
use crate::semantics::apps_set_strategy;
use crate::storage::resource::{PrinterColumn, ResourceInfo};

/// The version of `meta.k8s.io` a transformed answer is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MetaVersion {
    V1,
    V1beta1,
}

impl MetaVersion {
    /// `meta.k8s.io/v1` or `meta.k8s.io/v1beta1`.
    pub(crate) fn api_version(self) -> &'static str {
        match self {
            MetaVersion::V1 => "meta.k8s.io/v1",
            MetaVersion::V1beta1 => "meta.k8s.io/v1beta1",
        }
    }
}

/// How a table is printed: what each row carries, the server's minor (printers gain columns
/// between minors) and the version of `meta.k8s.io` asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TableOptions {
    pub(crate) include: IncludeObject,
    pub(crate) minor: u32,
    pub(crate) version: MetaVersion,
}

/// The `includeObject` query parameter of table requests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IncludeObject {
    None,
    Metadata,
    Object,
}

/// A `Table` of `objects`.
pub(crate) fn table<'a>(
    info: &ResourceInfo,
    objects: impl Iterator<Item = &'a Value>,
    options: TableOptions,
    resource_version: &str,
    continue_token: Option<&str>,
) -> Value {
    let columns = columns(info, options.minor);
    let definitions: Vec<Value> = columns
        .iter()
        .map(|c| {
            json!({ "name": c.name, "type": c.type_, "format": c.format, "description": c.description, "priority": c.priority })
        })
        .collect();
    let mut objects: Vec<&Value> = objects.collect();
    if let Some(order) = info
        .builtin
        .then(|| printers::row_order(&info.group, &info.kind))
        .flatten()
    {
        objects.sort_by(|a, b| order(a, b));
    }
    let rows: Vec<Value> = objects
        .into_iter()
        .map(|object| {
            let cells: Vec<Value> = columns.iter().map(|c| c.cell(object, options.minor)).collect();
            let mut row = json!({ "cells": cells });
            match options.include {
                IncludeObject::None => {}
                IncludeObject::Metadata => {
                    row["object"] = partial(&apps_set_strategy::internal_view(info, object), options.version);
                }
                IncludeObject::Object => row["object"] = object.clone(),
            }
            row
        })
        .collect();
    let metadata = list_metadata(resource_version, continue_token);
    json!({ "kind": "Table", "apiVersion": options.version.api_version(), "metadata": metadata, "columnDefinitions": definitions, "rows": rows })
}

/// An object's `PartialObjectMetadata`: its metadata alone.
pub(crate) fn partial(object: &Value, version: MetaVersion) -> Value {
    json!({
        "kind": "PartialObjectMetadata",
        "apiVersion": version.api_version(),
        "metadata": object.get("metadata").cloned().unwrap_or_default(),
    })
}

/// A `PartialObjectMetadataList` of `objects`.
pub(crate) fn partial_list<'a>(
    objects: impl Iterator<Item = &'a Value>,
    version: MetaVersion,
    resource_version: &str,
    continue_token: Option<&str>,
) -> Value {
    let metadata = list_metadata(resource_version, continue_token);
    let items: Vec<Value> = objects.map(|object| partial(object, version)).collect();
    json!({ "kind": "PartialObjectMetadataList", "apiVersion": version.api_version(), "metadata": metadata, "items": items })
}

/// A list's metadata: its resourceVersion (none for a resource computed on read) and continue
/// token.
fn list_metadata(resource_version: &str, continue_token: Option<&str>) -> Value {
    let mut metadata = json!({});
    if !resource_version.is_empty() {
        metadata["resourceVersion"] = json!(resource_version);
    }
    if let Some(token) = continue_token {
        metadata["continue"] = json!(token);
    }
    metadata
}

/// One column of a table: its definition and where its cells come from.
struct Column {
    name: String,
    type_: String,
    format: String,
    description: String,
    priority: i64,
    cells: Cells,
}

enum Cells {
    /// A CRD column's JSONPath, parsed once for all the table's rows. `tableconvertor.New`
    /// parses it once for the CRD's lifetime; only a path with `range`, whose state Go keeps
    /// between calls, could tell the two apart.
    Path(JsonPath),
    /// A built-in printer's own computation.
    Computed(fn(&Value) -> Value),
}

impl Column {
    fn cell(&self, object: &Value, minor: u32) -> Value {
        match &self.cells {
            Cells::Path(path) => path_cell(&self.type_, path, object, minor),
            Cells::Computed(compute) => compute(object),
        }
    }
}

/// Name, then the kind's printer columns: a built-in printer's (as of `minor`), or a CRD's (Age
/// when it declares none, described as `ObjectMeta.creationTimestamp`), as kube-apiserver
/// prints them.
fn columns(info: &ResourceInfo, minor: u32) -> Vec<Column> {
    let name = Column {
        name: "Name".to_owned(),
        type_: "string".to_owned(),
        format: "name".to_owned(),
        description: printers::NAME_DESCRIPTION.to_owned(),
        priority: 0,
        cells: Cells::Computed(
            info.builtin
                .then(|| printers::name_cell(&info.group, &info.kind))
                .flatten()
                .unwrap_or(name),
        ),
    };
    let builtin = info
        .builtin
        .then(|| printers::columns(&info.group, &info.kind, minor))
        .flatten();
    let rest: Vec<Column> = match builtin {
        Some(printed) => printed
            .into_iter()
            .map(|c| Column {
                name: c.name.to_owned(),
                type_: c.type_.to_owned(),
                format: c.format.to_owned(),
                description: c.description.to_owned(),
                priority: c.priority,
                cells: Cells::Computed(c.cell),
            })
            .collect(),
        None => {
            let age = PrinterColumn {
                name: "Age".to_owned(),
                type_: "date".to_owned(),
                format: String::new(),
                description: printers::AGE_DESCRIPTION.to_owned(),
                priority: 0,
                json_path: ".metadata.creationTimestamp".to_owned(),
            };
            let declared = if info.printer_columns.is_empty() {
                vec![age]
            } else {
                info.printer_columns.clone()
            };
            // `tableconvertor.New` stops at a path that does not parse, and kube-apiserver only
            // logs its error: it serves the columns before that one.
            declared
                .into_iter()
                .map_while(|c| {
                    let path = JsonPath::parse(&format!("{{{}}}", c.json_path)).ok()?;
                    Some(Column {
                        description: if c.description.is_empty() {
                            format!(
                                "Custom resource definition column (in JSONPath format): {}",
                                c.json_path
                            )
                        } else {
                            c.description
                        },
                        name: c.name,
                        type_: c.type_,
                        format: c.format,
                        priority: c.priority,
                        cells: Cells::Path(path.allow_missing_keys(true)),
                    })
                })
                .collect()
        }
    };
    std::iter::once(name).chain(rest).collect()
}

/// The Name cell: the object's name, empty when it has none (`MetaToTableRow`).
fn name(object: &Value) -> Value {
    json!(
        object
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or_default()
    )
}

/// A CRD column's cell (`ConvertToTable`): none when the path fails or finds nothing; else the
/// first value found, printed for a `string` column and typed by `cellForJSONValue` for others.
fn path_cell(type_: &str, path: &JsonPath, object: &Value, minor: u32) -> Value {
    let Ok(results) = path.find_results(object) else {
        return Value::Null;
    };
    let Some(first) = results.first().and_then(|values| values.first()) else {
        return Value::Null;
    };
    if *first == Found::Invalid {
        // Go panics taking it out of its `reflect.Value`; no cell is the nearest answer.
        return Value::Null;
    }
    // `results[0][0].Interface()`, handed on as `reflect.ValueOf` of it.
    let value = first.rewrapped();
    if type_ == "string" {
        return json!(jsonpath::print(value, minor));
    }
    cell_for_json_value(type_, value)
}

/// `cellForJSONValue`: the value as the column's type takes it, none when it is not of that
/// Go type (a literal `int` is not an `int64`).
fn cell_for_json_value(type_: &str, value: Found<'_>) -> Value {
    match (type_, value) {
        ("integer", Found::Int64(n)) => json!(n),
        ("integer", Found::Float64(f)) => json!(go_float_to_int(f)),
        ("number", Found::Int64(n)) => json!(n as f64),
        ("number", Found::Float64(f)) => json!(f),
        ("boolean", Found::Bool(b)) => json!(b),
        ("string", Found::String(s)) => json!(jsonpath::go_text(s)),
        ("date", Found::String(s)) => json!(date(&jsonpath::go_text(s))),
        _ => Value::Null,
    }
}

/// A `date` cell: `metav1.Time.UnmarshalQueryParameter`, then
/// `ConvertToHumanReadableDateType`; empty and `null` parse as the zero time, shown unknown.
fn date(text: &str) -> String {
    if text.is_empty() || text == "null" {
        return "<unknown>".to_owned();
    }
    printers::since(text).unwrap_or_else(|| "<invalid>".to_owned())
}

/// Go's `int64(f)` on amd64: truncation toward zero, `math.MinInt64` for what does not fit.
fn go_float_to_int(f: f64) -> i64 {
    const TWO_TO_63: f64 = 9_223_372_036_854_775_808.0;
    if (-TWO_TO_63..TWO_TO_63).contains(&f) {
        f as i64
    } else {
        i64::MIN
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_should_render_printer_columns() {
        let mut info = ResourceInfo::builtin("cloudnative.tw", "v1alpha1", "VirtualMachine", "virtualmachines");
        info.printer_columns = vec![PrinterColumn {
            name: "CPU".into(),
            type_: "number".into(),
            format: String::new(),
            description: String::new(),
            priority: 0,
            json_path: ".status.server.usage[0].cpu".into(),
        }];
        let vm = json!({"metadata": {"name": "vm"}, "status": {"server": {"usage": [{"cpu": 12.5}]}}});
        let options = TableOptions {
            include: IncludeObject::Metadata,
            minor: 31,
            version: MetaVersion::V1,
        };
        let table = table(&info, [&vm].into_iter(), options, "7", None);
        assert_eq!(table["rows"][0]["cells"], json!(["vm", 12.5]));
        assert_eq!(table["columnDefinitions"][1]["name"], "CPU");
        assert_eq!(table["rows"][0]["object"]["kind"], "PartialObjectMetadata");
    }

    #[test]
    fn table_should_evaluate_columns_as_tableconvertor() {
        let column = |name: &str, type_: &str, json_path: &str| PrinterColumn {
            name: name.into(),
            type_: type_.into(),
            format: String::new(),
            description: String::new(),
            priority: 0,
            json_path: json_path.into(),
        };
        let mut info = ResourceInfo::builtin("h7.example.com", "v1", "Pump", "pumps");
        info.builtin = false;
        info.printer_columns = vec![
            column("Ports", "string", ".spec.ports[*].name"),
            column("Ready", "string", r#".status.conditions[?(@.type=="Ready")].status"#),
            column("Replicas", "integer", ".spec.replicas"),
            column("Size", "integer", ".spec.size"),
            column("Ratio", "number", ".spec.replicas"),
            column("Hint", "string", ".spec.hint"),
            column("Missing", "string", ".spec.nothing"),
            column("Spec", "string", ".spec.limits"),
            column("Broken", "string", ".spec[0"),
            column("After", "string", ".spec.mode"),
        ];
        let pump = json!({
            "metadata": {"name": "p1"},
            "spec": {"ports": [{"name": "http"}, {"name": "grpc"}], "replicas": 3, "size": "3Gi",
                     "hint": null, "limits": {"cpu": "1", "a": "<b>"}, "mode": "auto"},
            "status": {"conditions": [{"type": "Synced", "status": "False"}, {"type": "Ready", "status": "True"}]}
        });
        let options = TableOptions {
            include: IncludeObject::None,
            minor: 28,
            version: MetaVersion::V1,
        };
        let table = table(&info, [&pump].into_iter(), options, "7", None);
        assert_eq!(
            table["rows"][0]["cells"],
            json!([
                "p1",
                "http",
                "True",
                3,
                null,
                3.0,
                "<no value>",
                null,
                r#"{"a":"\u003cb\u003e","cpu":"1"}"#
            ])
        );
        assert_eq!(
            table["columnDefinitions"].as_array().map(Vec::len),
            Some(9),
            "columns stop at the one that does not parse"
        );
    }
}
