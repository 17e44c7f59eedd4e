//! Why each metric of a horizontal pod autoscaler fails on a cluster that serves no metrics API
//! (`pkg/controller/podautoscaler/horizontal.go`: `computeReplicasForMetric` and its
//! `computeStatusFor*Metric`; the errors of `replica_calculator.go` and `metrics/client.go`):
//! each fetch's error as its client reports the missing API, wrapped as Go wraps it.

use serde_json::Value;

/// client-go's words for a 404 without a `Status` body (`NewGenericServerResponse`), and
/// kube-apiserver's for a subresource no route serves.
pub(super) const NOT_FOUND: &str = "the server could not find the requested resource";
/// `resourceMetricsClient.GetResourceMetric` lists `pods.metrics.k8s.io`, which is not served.
const RESOURCE_METRICS: &str = "unable to fetch metrics from resource metrics API: \
     the server could not find the requested resource (get pods.metrics.k8s.io)";
/// The custom metrics client finds no `custom.metrics.k8s.io` in discovery (`fetchVersions`).
const CUSTOM_METRICS: &str =
    "unable to fetch metrics from custom metrics API: no custom metrics API (custom.metrics.k8s.io) registered";
const INVALID_OBJECT: &str = "invalid object metric source: neither a value target nor an average value target was set";

/// A list field's items; none when it is missing or `null`.
pub(super) fn list(value: &Value) -> &[Value] {
    value.as_array().map_or(&[][..], Vec::as_slice)
}

/// One metric's failure in `computeReplicasForMetric`: the reason of its condition and event,
/// the error they carry (`cause`), and the error it returns.
pub(super) struct Failure {
    pub(super) reason: String,
    pub(super) cause: String,
    pub(super) error: String,
}

pub(super) fn metric_failure(metric: &Value, namespace: &str) -> Failure {
    let kind = metric["type"].as_str().unwrap_or_default();
    // The source is under the type's name in lower camel case (`containerResource`).
    let mut key = kind.to_owned();
    if let Some(first) = key.get_mut(..1) {
        first.make_ascii_lowercase();
    }
    let source = &metric[key.as_str()];
    let at = |pointer: &str| source.pointer(pointer).filter(|v| !v.is_null());
    let text = |pointer: &str| at(pointer).and_then(Value::as_str).unwrap_or_default();
    let name = text("/metric/name");
    // The cause, and what the returned error says before it. Validation leaves one of the two
    // targets Go's branches look for set, but for an object's of another type.
    let (cause, prefix) = match kind {
        "Resource" | "ContainerResource" => {
            let resource = text("/name");
            let measure = at("/target/averageValue").map_or("utilization", |_| "usage");
            let fetch = format!("unable to get metrics for resource {resource}: {RESOURCE_METRICS}");
            let prefix = match kind {
                "Resource" => format!("failed to get {resource} resource metric value: "),
                _ => format!("failed to get {} container metric value: ", text("/container")),
            };
            (format!("failed to get {resource} {measure}: {fetch}"), prefix)
        }
        "Pods" => {
            let cause = format!("unable to get metric {name}: {CUSTOM_METRICS}");
            (cause, "failed to get pods metric value: ".to_owned())
        }
        "Object" => {
            // `GetObject(PerPod)MetricReplicas` pass their format's arguments out of order.
            let (object, object_name) = (text("/describedObject/kind"), text("/describedObject/name"));
            let fetch = format!("unable to get metric {name}: {object} on {namespace} {object_name}/{CUSTOM_METRICS}");
            let outer = "failed to get object metric value: ";
            match text("/target/type") {
                "Value" if at("/target/value").is_some() => (fetch, outer.to_owned()),
                "AverageValue" if at("/target/averageValue").is_some() => {
                    (fetch, format!("{outer}failed to get {name} object metric: "))
                }
                _ => (INVALID_OBJECT.to_owned(), outer.to_owned()),
            }
        }
        "External" => {
            let selector = at("/metric/selector").map_or_else(|| "nil".to_owned(), go_label_selector);
            let api = format!("external metrics API: {NOT_FOUND} (get {name}.external.metrics.k8s.io)");
            let cause = format!(
                "unable to get external metric {namespace}/{name}/{selector}: unable to fetch metrics from {api}"
            );
            let inner = match at("/target/averageValue") {
                Some(_) => format!("failed to get {name} external metric: "),
                None => format!("failed to get external metric {name}: "),
            };
            (cause, format!("failed to get {name} external metric value: {inner}"))
        }
        _ => {
            let cause = format!("unknown metric source type {kind:?}");
            let reason = "InvalidMetricSourceType".to_owned();
            return Failure {
                reason,
                error: cause.clone(),
                cause,
            };
        }
    };
    Failure {
        reason: format!("FailedGet{kind}Metric"),
        error: format!("{prefix}{cause}"),
        cause,
    }
}

/// The error `computeReplicasForMetrics` returns when every metric failed.
pub(super) fn invalid_metrics_error(failures: &[Failure]) -> Option<String> {
    let (count, first) = (failures.len(), &failures.first()?.error);
    Some(format!(
        "invalid metrics ({count} invalid out of {count}), first error is: {first}"
    ))
}

/// Go's `%+v` of a `*metav1.LabelSelector` (its generated `String`).
fn go_label_selector(selector: &Value) -> String {
    let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
    let labels = selector["matchLabels"].as_object().into_iter().flatten();
    let labels: String = labels.map(|(k, v)| format!("{k}: {},", text(v))).collect();
    let expressions: String = list(&selector["matchExpressions"])
        .iter()
        .map(|e| {
            let values: Vec<String> = list(&e["values"]).iter().map(text).collect();
            let (key, operator, values) = (text(&e["key"]), text(&e["operator"]), values.join(" "));
            format!("LabelSelectorRequirement{{Key:{key},Operator:{operator},Values:[{values}],}},")
        })
        .collect();
    format!(
        "&LabelSelector{{MatchLabels:map[string]string{{{labels}}},MatchExpressions:[]LabelSelectorRequirement{{{expressions}}},}}"
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn each_metric_type_fails_as_its_client_reports_a_missing_api() {
        let cpu = json!({"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}});
        let failure = metric_failure(&cpu, "ns");
        let cause =
            format!("failed to get cpu utilization: unable to get metrics for resource cpu: {RESOURCE_METRICS}");
        assert_eq!(
            (failure.reason.as_str(), &failure.cause),
            ("FailedGetResourceMetric", &cause)
        );
        let summed = format!(
            "invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value: {cause}"
        );
        assert_eq!(invalid_metrics_error(&[failure]), Some(summed));
        let external_api = "unable to fetch metrics from external metrics API: the server could not find the requested \
                            resource (get queue.external.metrics.k8s.io)";
        let cases = [
            (
                json!({"type": "ContainerResource", "containerResource": {"name": "memory", "container": "app", "target": {"averageValue": "1Mi"}}}),
                format!(
                    "failed to get app container metric value: failed to get memory usage: unable to get metrics for resource memory: {RESOURCE_METRICS}"
                ),
            ),
            (
                json!({"type": "Pods", "pods": {"metric": {"name": "qps"}, "target": {"averageValue": "1"}}}),
                format!("failed to get pods metric value: unable to get metric qps: {CUSTOM_METRICS}"),
            ),
            (
                json!({"type": "Object", "object": {"metric": {"name": "hits"}, "describedObject": {"kind": "Service", "name": "web"}, "target": {"type": "Value", "value": "10"}}}),
                format!(
                    "failed to get object metric value: unable to get metric hits: Service on ns web/{CUSTOM_METRICS}"
                ),
            ),
            (
                json!({"type": "External", "external": {"metric": {"name": "queue", "selector": {"matchLabels": {"q": "a"}}}, "target": {"value": "5"}}}),
                format!(
                    "failed to get queue external metric value: failed to get external metric queue: unable to get external metric \
                         ns/queue/&LabelSelector{{MatchLabels:map[string]string{{q: a,}},MatchExpressions:[]LabelSelectorRequirement{{}},}}: {external_api}"
                ),
            ),
            (
                json!({"type": "Other"}),
                "unknown metric source type \"Other\"".to_owned(),
            ),
        ];
        for (metric, error) in cases {
            assert_eq!(metric_failure(&metric, "ns").error, error);
        }
    }
}
