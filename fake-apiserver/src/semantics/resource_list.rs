//! Resource lists (`v1.ResourceList`) as admission plugins compute with them: the sums
//! `addResourceList` and `maxResourceList`, and a pod's effective requests and limits as
//! `pkg/api/v1/resource/helpers.go`'s `PodRequests` and `PodLimits` compute them (init containers
//! count by their largest step, restartable ones add up; the overhead on top, where asked) —
//! LimitRanger's simplified copies (`plugin/pkg/admission/limitranger/admission.go`) leave the
//! overhead out. In-place resize, which would read the container statuses, is off on the minors
//! emulated. The quota arithmetic of `staging/src/k8s.io/apiserver/pkg/quota/v1/resources.go`
//! (`Add` is `addResourceList`; `Equals`, `LessThanOrEqual`, `SubtractWithNonNegativeResult`,
//! `Mask`, `RemoveZeros`, `IsNegative`) and the admission plugin's `prettyPrint` work on them too.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::semantics::quantity::Quantity;
use crate::semantics::quantity_arithmetic;

/// Quantities by resource name, in name order.
#[derive(Clone, Debug, Default)]
pub(crate) struct ResourceList(BTreeMap<String, Quantity>);

impl ResourceList {
    /// The list a JSON object holds (a quantity as a string or a number); what does not parse
    /// is left out, as decoding would have refused it.
    pub(crate) fn from_json(value: Option<&Value>) -> Self {
        let entries = value.and_then(Value::as_object).into_iter().flatten();
        Self(
            entries
                .filter_map(|(name, quantity)| {
                    let text = match quantity {
                        Value::String(text) => text.clone(),
                        Value::Number(number) => number.to_string(),
                        _ => return None,
                    };
                    Quantity::parse(&text).ok().map(|q| (name.clone(), q))
                })
                .collect(),
        )
    }

    /// The list as JSON, each quantity in its canonical form.
    pub(crate) fn to_json(&self) -> Value {
        let map: Map<String, Value> = self
            .0
            .iter()
            .map(|(name, quantity)| (name.clone(), Value::String(quantity.to_string())))
            .collect();
        Value::Object(map)
    }

    pub(crate) fn get(&self, name: &str) -> Option<&Quantity> {
        self.0.get(name)
    }

    pub(crate) fn insert(&mut self, name: impl Into<String>, quantity: Quantity) {
        self.0.insert(name.into(), quantity);
    }

    pub(crate) fn contains(&self, name: &str) -> bool {
        self.0.contains_key(name)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The resources and their quantities, in name order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&str, &Quantity)> {
        self.0.iter().map(|(name, quantity)| (name.as_str(), quantity))
    }

    /// The resource names, in order.
    pub(crate) fn names(&self) -> impl Iterator<Item = &str> {
        self.0.keys().map(String::as_str)
    }

    /// `addResourceList`: adds each of `other`'s quantities to this list's.
    pub(crate) fn add(&mut self, other: &Self) {
        for (name, quantity) in &other.0 {
            let sum = match self.0.get(name) {
                Some(current) => quantity_arithmetic::add(current, quantity),
                None => quantity.clone(),
            };
            self.0.insert(name.clone(), sum);
        }
    }

    /// `maxResourceList`: keeps the larger of this list's and `other`'s quantity of each of
    /// `other`'s resources.
    pub(crate) fn max(&mut self, other: &Self) {
        for (name, quantity) in &other.0 {
            let larger = self
                .0
                .get(name)
                .is_none_or(|current| quantity.cmp_value(current) == Ordering::Greater);
            if larger {
                self.0.insert(name.clone(), quantity.clone());
            }
        }
    }
}

/// The quota arithmetic (`pkg/quota/v1/resources.go`).
impl ResourceList {
    /// `Equals`: the same resources with equal values.
    pub(crate) fn equals(&self, other: &Self) -> bool {
        self.0.len() == other.0.len()
            && self
                .iter()
                .all(|(name, q)| other.get(name).is_some_and(|o| q.cmp_value(o) == Ordering::Equal))
    }

    /// `LessThanOrEqual(self, limits)`: the resources of `limits` this list holds more of, in name
    /// order (none: within the limits).
    pub(crate) fn exceeding(&self, limits: &Self) -> Vec<String> {
        limits
            .iter()
            .filter(|(name, limit)| self.get(name).is_some_and(|q| q.cmp_value(limit) == Ordering::Greater))
            .map(|(name, _)| name.to_owned())
            .collect()
    }

    /// `SubtractWithNonNegativeResult(self, other)`: each difference, zero where it would be
    /// negative; a resource only `other` has is zero.
    pub(crate) fn subtract_non_negative(&self, other: &Self) -> Self {
        // `resource.MustParse("0")`.
        let zero = Quantity::decimal(0);
        let mut result = Self::default();
        for (name, quantity) in self.iter() {
            let difference = match other.get(name) {
                Some(taken) => quantity_arithmetic::sub(quantity, taken),
                None => quantity.clone(),
            };
            let kept = if difference.cmp_value(&zero) == Ordering::Greater {
                difference
            } else {
                zero.clone()
            };
            result.insert(name, kept);
        }
        for name in other.names() {
            if !result.contains(name) {
                result.insert(name, zero.clone());
            }
        }
        result
    }

    /// `Mask`: only the resources `names` lists.
    pub(crate) fn mask<'a>(&self, names: impl IntoIterator<Item = &'a str>) -> Self {
        let names: std::collections::BTreeSet<&str> = names.into_iter().collect();
        Self(
            self.0
                .iter()
                .filter(|(name, _)| names.contains(name.as_str()))
                .map(|(name, q)| (name.clone(), q.clone()))
                .collect(),
        )
    }

    /// `RemoveZeros`.
    pub(crate) fn remove_zeros(&self) -> Self {
        Self(
            self.0
                .iter()
                .filter(|(_, q)| !q.is_zero())
                .map(|(n, q)| (n.clone(), q.clone()))
                .collect(),
        )
    }

    /// `IsNegative`: the resources below zero, in name order.
    pub(crate) fn negative(&self) -> Vec<String> {
        self.iter()
            .filter(|(_, q)| q.is_negative())
            .map(|(n, _)| n.to_owned())
            .collect()
    }

    /// The admission plugin's `prettyPrint`: `name=quantity`, comma-separated, in name order.
    pub(crate) fn pretty(&self) -> String {
        let parts: Vec<String> = self.iter().map(|(name, q)| format!("{name}={q}")).collect();
        parts.join(",")
    }
}

/// `PodRequests` of a v1 pod spec (`overhead`: with the pod's overhead added).
pub(crate) fn pod_requests(spec: &Value, overhead: bool) -> ResourceList {
    pod_total(spec, "requests", overhead)
}

/// `PodLimits` of a v1 pod spec (`overhead`: with the pod's overhead added where a limit is
/// set, as `PodLimits` adds it).
pub(crate) fn pod_limits(spec: &Value, overhead: bool) -> ResourceList {
    pod_total(spec, "limits", overhead)
}

/// A container's `resources.<which>`.
pub(crate) fn container_resources(container: &Value, which: &str) -> ResourceList {
    ResourceList::from_json(container.pointer(&format!("/resources/{which}")))
}

fn pod_total(spec: &Value, which: &str, overhead: bool) -> ResourceList {
    let containers = |key: &str| spec.get(key).and_then(Value::as_array).into_iter().flatten();
    let mut total = ResourceList::default();
    for container in containers("containers") {
        total.add(&container_resources(container, which));
    }
    // An init container runs with the restartable ones started before it; a restartable one
    // keeps running beside the regular containers.
    let mut restartable = ResourceList::default();
    let mut init_peak = ResourceList::default();
    for container in containers("initContainers") {
        let own = container_resources(container, which);
        let during = if container.get("restartPolicy").and_then(Value::as_str) == Some("Always") {
            total.add(&own);
            restartable.add(&own);
            restartable.clone()
        } else {
            let mut during = own;
            during.add(&restartable);
            during
        };
        init_peak.max(&during);
    }
    total.max(&init_peak);
    if overhead && let Some(pod_overhead) = spec.get("overhead").filter(|o| o.is_object()) {
        let pod_overhead = ResourceList::from_json(Some(pod_overhead));
        if which == "requests" {
            total.add(&pod_overhead);
        } else {
            // `PodLimits` adds the overhead only to the resources that have a limit.
            for (name, quantity) in pod_overhead.iter() {
                if let Some(limit) = total.get(name) {
                    let sum = quantity_arithmetic::add(limit, quantity);
                    total.insert(name, sum);
                }
            }
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_pod_should_need_its_containers_sum_or_its_largest_init_step() {
        let spec = json!({
            "containers": [
                {"resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}},
                {"resources": {"requests": {"cpu": "200m"}}}
            ],
            "initContainers": [
                {"resources": {"requests": {"cpu": "1"}}},
                {"restartPolicy": "Always", "resources": {"requests": {"memory": "1Gi"}}},
                {"resources": {"requests": {"memory": "10Mi"}}}
            ],
            "overhead": {"cpu": "50m"}
        });
        assert_eq!(
            pod_requests(&spec, false).to_json(),
            json!({"cpu": "1", "memory": "1088Mi"})
        );
        assert_eq!(
            pod_requests(&spec, true).to_json(),
            json!({"cpu": "1050m", "memory": "1088Mi"})
        );
    }

    #[test]
    fn overhead_should_add_to_limits_only_where_one_is_set() {
        let spec = json!({
            "containers": [{"resources": {"limits": {"memory": "1Gi"}}}],
            "overhead": {"cpu": "50m", "memory": "10Mi"}
        });
        assert_eq!(pod_limits(&spec, true).to_json(), json!({"memory": "1034Mi"}));
        assert_eq!(pod_limits(&spec, false).to_json(), json!({"memory": "1Gi"}));
    }

    #[test]
    fn quota_arithmetic_should_follow_go() {
        let list = |value: Value| ResourceList::from_json(Some(&value));
        let used = list(json!({"pods": "2", "requests.cpu": "600m"}));
        let hard = list(json!({"pods": "2", "requests.cpu": "1", "secrets": "5"}));
        let mut new = used.clone();
        new.add(&list(json!({"pods": "1", "requests.cpu": "300m"})));
        assert_eq!(new.exceeding(&hard), vec!["pods".to_owned()]);
        assert_eq!(new.mask(["requests.cpu"]).pretty(), "requests.cpu=900m");
        assert_eq!(new.pretty(), "pods=3,requests.cpu=900m");
        let delta = list(json!({"services": "1", "services.nodeports": "2"}))
            .subtract_non_negative(&list(json!({"services": "1", "services.nodeports": "3", "x": "1"})));
        assert_eq!(
            delta.to_json(),
            json!({"services": "0", "services.nodeports": "0", "x": "0"})
        );
        assert!(delta.remove_zeros().is_empty());
        assert!(list(json!({"cpu": "1000m"})).equals(&list(json!({"cpu": "1"}))));
        assert!(!list(json!({"cpu": "1"})).equals(&list(json!({"cpu": "1", "pods": "0"}))));
        assert_eq!(
            list(json!({"cpu": "-1", "pods": "1"})).negative(),
            vec!["cpu".to_owned()]
        );
    }

    #[test]
    fn max_should_keep_the_larger_quantity() {
        let mut list = ResourceList::from_json(Some(&json!({"cpu": "500m", "memory": "1Gi"})));
        list.max(&ResourceList::from_json(Some(
            &json!({"cpu": "1", "memory": "1Mi", "pods": 2}),
        )));
        assert_eq!(list.to_json(), json!({"cpu": "1", "memory": "1Gi", "pods": "2"}));
    }
}
