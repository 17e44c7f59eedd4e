//! The autoscaling/v1 types an autoscaler's annotations hold as JSON (`k8s.io/api/autoscaling/v1/types.go`:
//! `MetricSpec`, `MetricStatus`, their sources, `HorizontalPodAutoscalerCondition`), written in
//! their Go field order with their `omitempty` tags, and read back as `json.Unmarshal` fills them.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::semantics::go_json_fields::{Fields, FieldsError, strings};

type Read<T> = Result<T, FieldsError>;

/// `CrossVersionObjectReference`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub(crate) struct Reference {
    pub(crate) kind: String,
    pub(crate) name: String,
    #[serde(rename = "apiVersion", skip_serializing_if = "String::is_empty")]
    pub(crate) api_version: String,
}

/// `metav1.LabelSelector`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub(crate) struct LabelSelector {
    #[serde(rename = "matchLabels", skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) match_labels: BTreeMap<String, String>,
    #[serde(rename = "matchExpressions", skip_serializing_if = "Vec::is_empty")]
    pub(crate) match_expressions: Vec<Requirement>,
}

/// `metav1.LabelSelectorRequirement`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub(crate) struct Requirement {
    pub(crate) key: String,
    pub(crate) operator: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) values: Vec<String>,
}

/// `MetricSpec`: the type and one source.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub(crate) struct MetricSpec {
    #[serde(rename = "type")]
    pub(crate) kind: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) object: Option<ObjectSource>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) pods: Option<PodsSource>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) resource: Option<ResourceSource>,
    #[serde(rename = "containerResource", skip_serializing_if = "Option::is_none")]
    pub(crate) container_resource: Option<ResourceSource>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) external: Option<ExternalSource>,
}

/// `ObjectMetricSource` (quantities as their canonical strings; a non-pointer one is "0" unset).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub(crate) struct ObjectSource {
    pub(crate) target: Reference,
    #[serde(rename = "metricName")]
    pub(crate) metric_name: String,
    #[serde(rename = "targetValue")]
    pub(crate) target_value: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) selector: Option<LabelSelector>,
    #[serde(rename = "averageValue", skip_serializing_if = "Option::is_none")]
    pub(crate) average_value: Option<String>,
}

/// `PodsMetricSource`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub(crate) struct PodsSource {
    #[serde(rename = "metricName")]
    pub(crate) metric_name: String,
    #[serde(rename = "targetAverageValue")]
    pub(crate) target_average_value: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) selector: Option<LabelSelector>,
}

/// `ResourceMetricSource`, and `ContainerResourceMetricSource` with its container.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub(crate) struct ResourceSource {
    pub(crate) name: String,
    #[serde(rename = "targetAverageUtilization", skip_serializing_if = "Option::is_none")]
    pub(crate) target_average_utilization: Option<i64>,
    #[serde(rename = "targetAverageValue", skip_serializing_if = "Option::is_none")]
    pub(crate) target_average_value: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) container: Option<String>,
}

/// `ExternalMetricSource`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub(crate) struct ExternalSource {
    #[serde(rename = "metricName")]
    pub(crate) metric_name: String,
    #[serde(rename = "metricSelector", skip_serializing_if = "Option::is_none")]
    pub(crate) metric_selector: Option<LabelSelector>,
    #[serde(rename = "targetValue", skip_serializing_if = "Option::is_none")]
    pub(crate) target_value: Option<String>,
    #[serde(rename = "targetAverageValue", skip_serializing_if = "Option::is_none")]
    pub(crate) target_average_value: Option<String>,
}

/// `MetricStatus`: the type and one source's current values.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub(crate) struct MetricStatus {
    #[serde(rename = "type")]
    pub(crate) kind: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) object: Option<ObjectStatus>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) pods: Option<PodsStatus>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) resource: Option<ResourceStatus>,
    #[serde(rename = "containerResource", skip_serializing_if = "Option::is_none")]
    pub(crate) container_resource: Option<ResourceStatus>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) external: Option<ExternalStatus>,
}

/// `ObjectMetricStatus`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub(crate) struct ObjectStatus {
    pub(crate) target: Reference,
    #[serde(rename = "metricName")]
    pub(crate) metric_name: String,
    #[serde(rename = "currentValue")]
    pub(crate) current_value: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) selector: Option<LabelSelector>,
    #[serde(rename = "averageValue", skip_serializing_if = "Option::is_none")]
    pub(crate) average_value: Option<String>,
}

/// `PodsMetricStatus`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub(crate) struct PodsStatus {
    #[serde(rename = "metricName")]
    pub(crate) metric_name: String,
    #[serde(rename = "currentAverageValue")]
    pub(crate) current_average_value: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) selector: Option<LabelSelector>,
}

/// `ResourceMetricStatus`, and `ContainerResourceMetricStatus` with its container.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub(crate) struct ResourceStatus {
    pub(crate) name: String,
    #[serde(rename = "currentAverageUtilization", skip_serializing_if = "Option::is_none")]
    pub(crate) current_average_utilization: Option<i64>,
    #[serde(rename = "currentAverageValue")]
    pub(crate) current_average_value: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) container: Option<String>,
}

/// `ExternalMetricStatus`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub(crate) struct ExternalStatus {
    #[serde(rename = "metricName")]
    pub(crate) metric_name: String,
    #[serde(rename = "metricSelector", skip_serializing_if = "Option::is_none")]
    pub(crate) metric_selector: Option<LabelSelector>,
    #[serde(rename = "currentValue")]
    pub(crate) current_value: String,
    #[serde(rename = "currentAverageValue", skip_serializing_if = "Option::is_none")]
    pub(crate) current_average_value: Option<String>,
}

/// `HorizontalPodAutoscalerCondition`: a zero `metav1.Time` is written `null`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub(crate) struct Condition {
    #[serde(rename = "type")]
    pub(crate) kind: String,
    pub(crate) status: String,
    #[serde(rename = "lastTransitionTime")]
    pub(crate) last_transition_time: Option<String>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub(crate) reason: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub(crate) message: String,
}

/// A non-pointer quantity: "0" when unset.
fn quantity(fields: Fields<'_>, name: &str) -> Read<String> {
    Ok(fields.quantity(name)?.unwrap_or_else(|| "0".to_owned()))
}

fn nested<T>(fields: Fields<'_>, name: &str, read: impl Fn(Fields<'_>) -> Read<T>) -> Read<Option<T>> {
    fields.object(name)?.map(read).transpose()
}

/// Reads a list of structs (a null item is the zero struct).
pub(crate) fn read_list<T: Default>(items: &[Value], read: impl Fn(Fields<'_>) -> Read<T>) -> Read<Vec<T>> {
    items
        .iter()
        .map(|item| Fields::of(item, "item")?.map_or_else(|| Ok(T::default()), &read))
        .collect()
}

impl Reference {
    pub(crate) fn read(fields: Fields<'_>) -> Read<Self> {
        Ok(Self {
            kind: fields.string("kind")?,
            name: fields.string("name")?,
            api_version: fields.string("apiVersion")?,
        })
    }
}

impl LabelSelector {
    pub(crate) fn read(fields: Fields<'_>) -> Read<Self> {
        let match_labels = fields.string_map("matchLabels")?;
        let match_expressions = read_list(fields.list("matchExpressions")?, |requirement| {
            Ok(Requirement {
                key: requirement.string("key")?,
                operator: requirement.string("operator")?,
                values: strings(requirement.list("values")?, "values")?,
            })
        })?;
        Ok(Self {
            match_labels,
            match_expressions,
        })
    }
}

impl MetricSpec {
    pub(crate) fn read(fields: Fields<'_>) -> Read<Self> {
        Ok(Self {
            kind: fields.string("type")?,
            object: nested(fields, "object", |f| {
                Ok(ObjectSource {
                    target: nested(f, "target", Reference::read)?.unwrap_or_default(),
                    metric_name: f.string("metricName")?,
                    target_value: quantity(f, "targetValue")?,
                    selector: nested(f, "selector", LabelSelector::read)?,
                    average_value: f.quantity("averageValue")?,
                })
            })?,
            pods: nested(fields, "pods", |f| {
                Ok(PodsSource {
                    metric_name: f.string("metricName")?,
                    target_average_value: quantity(f, "targetAverageValue")?,
                    selector: nested(f, "selector", LabelSelector::read)?,
                })
            })?,
            resource: nested(fields, "resource", |f| read_resource_source(f, false))?,
            container_resource: nested(fields, "containerResource", |f| read_resource_source(f, true))?,
            external: nested(fields, "external", |f| {
                Ok(ExternalSource {
                    metric_name: f.string("metricName")?,
                    metric_selector: nested(f, "metricSelector", LabelSelector::read)?,
                    target_value: f.quantity("targetValue")?,
                    target_average_value: f.quantity("targetAverageValue")?,
                })
            })?,
        })
    }
}

fn read_resource_source(fields: Fields<'_>, container: bool) -> Read<ResourceSource> {
    Ok(ResourceSource {
        name: fields.string("name")?,
        target_average_utilization: fields.int("targetAverageUtilization", 32)?,
        target_average_value: fields.quantity("targetAverageValue")?,
        container: if container {
            Some(fields.string("container")?)
        } else {
            None
        },
    })
}

impl MetricStatus {
    pub(crate) fn read(fields: Fields<'_>) -> Read<Self> {
        Ok(Self {
            kind: fields.string("type")?,
            object: nested(fields, "object", |f| {
                Ok(ObjectStatus {
                    target: nested(f, "target", Reference::read)?.unwrap_or_default(),
                    metric_name: f.string("metricName")?,
                    current_value: quantity(f, "currentValue")?,
                    selector: nested(f, "selector", LabelSelector::read)?,
                    average_value: f.quantity("averageValue")?,
                })
            })?,
            pods: nested(fields, "pods", |f| {
                Ok(PodsStatus {
                    metric_name: f.string("metricName")?,
                    current_average_value: quantity(f, "currentAverageValue")?,
                    selector: nested(f, "selector", LabelSelector::read)?,
                })
            })?,
            resource: nested(fields, "resource", |f| read_resource_status(f, false))?,
            container_resource: nested(fields, "containerResource", |f| read_resource_status(f, true))?,
            external: nested(fields, "external", |f| {
                Ok(ExternalStatus {
                    metric_name: f.string("metricName")?,
                    metric_selector: nested(f, "metricSelector", LabelSelector::read)?,
                    current_value: quantity(f, "currentValue")?,
                    current_average_value: f.quantity("currentAverageValue")?,
                })
            })?,
        })
    }
}

fn read_resource_status(fields: Fields<'_>, container: bool) -> Read<ResourceStatus> {
    Ok(ResourceStatus {
        name: fields.string("name")?,
        current_average_utilization: fields.int("currentAverageUtilization", 32)?,
        current_average_value: quantity(fields, "currentAverageValue")?,
        container: if container {
            Some(fields.string("container")?)
        } else {
            None
        },
    })
}

impl Condition {
    pub(crate) fn read(fields: Fields<'_>) -> Read<Self> {
        let time = fields.string("lastTransitionTime")?;
        Ok(Self {
            kind: fields.string("type")?,
            status: fields.string("status")?,
            last_transition_time: (!time.is_empty()).then_some(time),
            reason: fields.string("reason")?,
            message: fields.string("message")?,
        })
    }
}
