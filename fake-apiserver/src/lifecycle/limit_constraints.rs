//! The constraints a LimitRange item puts on requests and limits, with
//! `plugin/pkg/admission/limitranger/admission.go`'s wording: `minConstraint`,
//! `maxRequestConstraint` (a claim's), `maxConstraint`, `limitRequestRatioConstraint`, compared
//! at the common precision `requestLimitEnforcedValues` chooses.

use std::cmp::Ordering;

use serde_json::Value;

use crate::semantics::quantity::Quantity;
use crate::semantics::resource_list::ResourceList;

/// `resource.MaxMilliValue`: past it a milli-value overflows.
const MAX_MILLI_VALUE: i64 = i64::MAX / 1000;

/// The item's `min`, `max` and `maxLimitRequestRatio` against a container's or a pod's requests
/// and limits.
pub(super) fn item_constraints(
    item: &Value,
    kind: &str,
    requests: &ResourceList,
    limits: &ResourceList,
) -> Vec<String> {
    let mut reasons = Vec::new();
    for (name, enforced) in ResourceList::from_json(item.get("min")).iter() {
        reasons.extend(min_constraint(kind, name, enforced, requests, Some(limits)));
    }
    for (name, enforced) in ResourceList::from_json(item.get("max")).iter() {
        reasons.extend(max_constraint(kind, name, enforced, requests, limits));
    }
    for (name, enforced) in ResourceList::from_json(item.get("maxLimitRequestRatio")).iter() {
        reasons.extend(ratio_constraint(kind, name, enforced, requests, limits));
    }
    reasons
}

/// `minConstraint`.
pub(super) fn min_constraint(
    kind: &str,
    name: &str,
    enforced: &Quantity,
    requests: &ResourceList,
    limits: Option<&ResourceList>,
) -> Option<String> {
    let Some(request) = requests.get(name) else {
        return Some(format!(
            "minimum {name} usage per {kind} is {enforced}.  No request is specified"
        ));
    };
    let limit = limits.and_then(|l| l.get(name));
    let zero = Quantity::from_int(0);
    let (observed_request, observed_limit, min) = common_precision(request, limit.unwrap_or(&zero), enforced);
    if observed_request < min {
        return Some(format!(
            "minimum {name} usage per {kind} is {enforced}, but request is {request}"
        ));
    }
    match limit {
        Some(limit) if observed_limit < min => Some(format!(
            "minimum {name} usage per {kind} is {enforced}, but limit is {limit}"
        )),
        _ => None,
    }
}

/// `maxConstraint`: a limit is needed, and neither it nor the request may pass the maximum.
pub(super) fn max_constraint(
    kind: &str,
    name: &str,
    enforced: &Quantity,
    requests: &ResourceList,
    limits: &ResourceList,
) -> Option<String> {
    let Some(limit) = limits.get(name) else {
        return Some(format!(
            "maximum {name} usage per {kind} is {enforced}.  No limit is specified"
        ));
    };
    let zero = Quantity::from_int(0);
    let request = requests.get(name);
    let (observed_request, observed_limit, max) = common_precision(request.unwrap_or(&zero), limit, enforced);
    if observed_limit > max {
        return Some(format!(
            "maximum {name} usage per {kind} is {enforced}, but limit is {limit}"
        ));
    }
    match request {
        Some(request) if observed_request > max => Some(format!(
            "maximum {name} usage per {kind} is {enforced}, but request is {request}"
        )),
        _ => None,
    }
}

/// `limitRequestRatioConstraint`: the limit over the request, at most the enforced ratio.
pub(super) fn ratio_constraint(
    kind: &str,
    name: &str,
    enforced: &Quantity,
    requests: &ResourceList,
    limits: &ResourceList,
) -> Option<String> {
    let zero = Quantity::from_int(0);
    let (request, limit) = (requests.get(name), limits.get(name));
    let (observed_request, observed_limit, _) =
        common_precision(request.unwrap_or(&zero), limit.unwrap_or(&zero), enforced);
    if request.is_none() || observed_request == 0 {
        return Some(format!(
            "{name} max limit to request ratio per {kind} is {enforced}, but no request is specified or request is 0"
        ));
    }
    if limit.is_none() || observed_limit == 0 {
        return Some(format!(
            "{name} max limit to request ratio per {kind} is {enforced}, but no limit is specified or limit is 0"
        ));
    }
    let shown = observed_limit as f64 / observed_request as f64;
    let (observed, allowed) = if enforced.value() <= MAX_MILLI_VALUE {
        (shown * 1000.0, enforced.milli_value() as f64)
    } else {
        (shown, enforced.value() as f64)
    };
    (observed.partial_cmp(&allowed) == Some(Ordering::Greater)).then(|| {
        format!("{name} max limit to request ratio per {kind} is {enforced}, but provided ratio is {shown:.6}")
    })
}

/// `requestLimitEnforcedValues`: the three values in milli-units where none overflows them,
/// else in units.
fn common_precision(request: &Quantity, limit: &Quantity, enforced: &Quantity) -> (i64, i64, i64) {
    let values = (request.value(), limit.value(), enforced.value());
    if values.0 <= MAX_MILLI_VALUE && values.1 <= MAX_MILLI_VALUE && values.2 <= MAX_MILLI_VALUE {
        (request.milli_value(), limit.milli_value(), enforced.milli_value())
    } else {
        values
    }
}

/// `maxRequestConstraint`: a request is needed and may not pass the maximum (a claim's limits
/// are not a user's input).
pub(super) fn max_request_constraint(
    kind: &str,
    name: &str,
    enforced: &Quantity,
    requests: &ResourceList,
) -> Option<String> {
    let Some(request) = requests.get(name) else {
        return Some(format!(
            "maximum {name} usage per {kind} is {enforced}.  No request is specified"
        ));
    };
    let (observed, _, max) = common_precision(request, &Quantity::from_int(0), enforced);
    (observed > max).then(|| format!("maximum {name} usage per {kind} is {enforced}, but request is {request}"))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn list(value: Value) -> ResourceList {
        ResourceList::from_json(Some(&value))
    }

    #[test]
    fn container_constraints_should_read_as_go_words_them() {
        let item = json!({"type": "Container", "min": {"cpu": "50m"}, "max": {"memory": "1Gi"}, "maxLimitRequestRatio": {"cpu": "4"}});
        let reasons = item_constraints(
            &item,
            "Container",
            &list(json!({"cpu": "10m"})),
            &list(json!({"cpu": "900m", "memory": "2Gi"})),
        );
        assert_eq!(
            reasons,
            [
                "minimum cpu usage per Container is 50m, but request is 10m",
                "maximum memory usage per Container is 1Gi, but limit is 2Gi",
                "cpu max limit to request ratio per Container is 4, but provided ratio is 90.000000",
            ]
        );
        let missing = item_constraints(&item, "Container", &list(json!({})), &list(json!({})));
        assert_eq!(
            missing,
            [
                "minimum cpu usage per Container is 50m.  No request is specified",
                "maximum memory usage per Container is 1Gi.  No limit is specified",
                "cpu max limit to request ratio per Container is 4, but no request is specified or request is 0",
            ]
        );
    }

    #[test]
    fn a_claim_should_request_at_most_the_maximum() {
        let max = Quantity::parse("5Gi").unwrap();
        let kind = "PersistentVolumeClaim";
        assert_eq!(
            max_request_constraint(kind, "storage", &max, &list(json!({"storage": "10Gi"}))).as_deref(),
            Some("maximum storage usage per PersistentVolumeClaim is 5Gi, but request is 10Gi")
        );
        assert_eq!(
            max_request_constraint(kind, "storage", &max, &list(json!({}))).as_deref(),
            Some("maximum storage usage per PersistentVolumeClaim is 5Gi.  No request is specified")
        );
    }
}
