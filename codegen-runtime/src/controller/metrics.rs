//! Reconcile metrics: how many reconciles each controller ran, by result, and how long they took.

use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ResultLabels {
    controller: String,
    result: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ControllerLabels {
    controller: String,
}

/// `controller_reconcile_total{controller,result}` and `controller_reconcile_duration_seconds`.
#[derive(Clone)]
pub struct ReconcileMetrics {
    total: Family<ResultLabels, Counter>,
    duration: Family<ControllerLabels, Histogram, fn() -> Histogram>,
}

impl ReconcileMetrics {
    /// The families, registered in `registry`.
    pub fn new(registry: &mut Registry) -> Self {
        let metrics = Self {
            total: Family::default(),
            duration: Family::new_with_constructor(|| Histogram::new(exponential_buckets(0.0005, 2.0, 16))),
        };
        registry.register(
            "controller_reconcile",
            "Reconciles by controller and result (success, requeue, error)",
            metrics.total.clone(),
        );
        registry.register(
            "controller_reconcile_duration_seconds",
            "How long reconciles take",
            metrics.duration.clone(),
        );
        metrics
    }

    /// Counts one reconcile of `controller` that ended in `result` after `took`.
    pub(super) fn observe(&self, controller: &str, result: &str, took: Duration) {
        self.total
            .get_or_create(&ResultLabels {
                controller: controller.to_owned(),
                result: result.to_owned(),
            })
            .inc();
        self.duration
            .get_or_create(&ControllerLabels {
                controller: controller.to_owned(),
            })
            .observe(took.as_secs_f64());
    }
}

#[cfg(test)]
pub(super) mod tests {
    use prometheus_client::encoding::text::encode;

    use super::*;

    /// The registry in Prometheus' text format, as `/metrics` serves it.
    pub(in crate::controller) fn exposition(registry: &Registry) -> String {
        let mut text = String::new();
        encode(&mut text, registry).expect("writing to a String cannot fail");
        text
    }

    #[test]
    fn reconcile_metrics_should_count_by_controller_and_result() {
        let mut registry = Registry::default();
        let metrics = ReconcileMetrics::new(&mut registry);
        metrics.observe("Foo", "success", Duration::from_millis(1));
        metrics.observe("Foo", "success", Duration::from_millis(2));
        metrics.observe("Foo", "error", Duration::from_millis(3));
        metrics.observe("VirtualMachine", "requeue", Duration::from_millis(4));
        let text = exposition(&registry);
        for line in [
            "controller_reconcile_total{controller=\"Foo\",result=\"success\"} 2",
            "controller_reconcile_total{controller=\"Foo\",result=\"error\"} 1",
            "controller_reconcile_total{controller=\"VirtualMachine\",result=\"requeue\"} 1",
            "controller_reconcile_duration_seconds_count{controller=\"Foo\"} 3",
            "controller_reconcile_duration_seconds_count{controller=\"VirtualMachine\"} 1",
        ] {
            assert!(text.lines().any(|l| l == line), "no {line:?} in\n{text}");
        }
    }

    #[test]
    fn reconcile_metrics_should_time_reconciles_in_buckets_from_half_a_millisecond() {
        let mut registry = Registry::default();
        let metrics = ReconcileMetrics::new(&mut registry);
        metrics.observe("Foo", "success", Duration::from_micros(400));
        let text = exposition(&registry);
        assert!(
            text.contains("controller_reconcile_duration_seconds_bucket{le=\"0.0005\",controller=\"Foo\"} 1"),
            "{text}"
        );
    }
}
