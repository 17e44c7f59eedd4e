//! The internal `flowcontrol.apiserver.k8s.io` types (`pkg/apis/flowcontrol/types.go`) that
//! validation reads, filled from any served version's JSON as the conversion to the internal
//! version fills them: an absent or `null` pointer or slice is nil, an absent number zero, a
//! v1beta2 priority level's `assuredConcurrencyShares` its `NominalConcurrencyShares`
//! (`pkg/apis/flowcontrol/v1beta2/conversion.go`). A value of the wrong JSON type was refused
//! by the decoder before; here it reads as unset.
//!
//! Slices keep the difference between nil (`None`) and empty, which Go's `%#v` prints
//! (`flowcontrol_go_dump`); [`semantically_equal`] ignores it, as `apiequality.Semantic` does.

use serde_json::Value;

/// `FlowSchemaSpec`.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct FlowSchemaSpec {
    /// `PriorityLevelConfiguration.Name`.
    pub(crate) priority_level: String,
    pub(crate) matching_precedence: i64,
    /// `DistinguisherMethod`: `None` for a nil pointer, else its `Type`.
    pub(crate) distinguisher: Option<String>,
    pub(crate) rules: Option<Vec<PolicyRules>>,
}

/// `PolicyRulesWithSubjects`.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct PolicyRules {
    pub(crate) subjects: Option<Vec<Subject>>,
    pub(crate) resource_rules: Option<Vec<ResourceRule>>,
    pub(crate) non_resource_rules: Option<Vec<NonResourceRule>>,
}

/// `Subject`: its kind and the three pointers, a user's and a group's by their `Name`.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Subject {
    pub(crate) kind: String,
    pub(crate) user: Option<String>,
    pub(crate) group: Option<String>,
    pub(crate) service_account: Option<ServiceAccountSubject>,
}

/// `ServiceAccountSubject`.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct ServiceAccountSubject {
    pub(crate) namespace: String,
    pub(crate) name: String,
}

/// `ResourcePolicyRule`.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct ResourceRule {
    pub(crate) verbs: Option<Vec<String>>,
    pub(crate) api_groups: Option<Vec<String>>,
    pub(crate) resources: Option<Vec<String>>,
    pub(crate) cluster_scope: bool,
    pub(crate) namespaces: Option<Vec<String>>,
}

/// `NonResourcePolicyRule`.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct NonResourceRule {
    pub(crate) verbs: Option<Vec<String>>,
    pub(crate) non_resource_urls: Option<Vec<String>>,
}

/// `PriorityLevelConfigurationSpec`.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct PriorityLevelSpec {
    pub(crate) type_: String,
    pub(crate) limited: Option<Limited>,
    pub(crate) exempt: Option<Exempt>,
}

/// `LimitedPriorityLevelConfiguration`.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Limited {
    pub(crate) nominal_concurrency_shares: i64,
    pub(crate) limit_response: LimitResponse,
    pub(crate) lendable_percent: Option<i64>,
    pub(crate) borrowing_limit_percent: Option<i64>,
}

/// `ExemptPriorityLevelConfiguration`.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Exempt {
    pub(crate) nominal_concurrency_shares: Option<i64>,
    pub(crate) lendable_percent: Option<i64>,
}

/// `LimitResponse`.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct LimitResponse {
    pub(crate) type_: String,
    pub(crate) queuing: Option<Queuing>,
}

/// `QueuingConfiguration`.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Queuing {
    pub(crate) queues: i64,
    pub(crate) hand_size: i64,
    pub(crate) queue_length_limit: i64,
}

/// The field of the `LimitedPriorityLevelConfiguration` of `version` that holds the internal
/// `NominalConcurrencyShares`: v1beta2 still calls it `assuredConcurrencyShares`.
pub(crate) fn shares_field(version: &str) -> &'static str {
    if matches!(version, "v1alpha1" | "v1beta1" | "v1beta2") {
        "assuredConcurrencyShares"
    } else {
        "nominalConcurrencyShares"
    }
}

fn text(value: &Value, key: &str) -> String {
    value.get(key).and_then(Value::as_str).unwrap_or_default().to_owned()
}

fn int(value: &Value, key: &str) -> i64 {
    optional_int(value, key).unwrap_or_default()
}

fn optional_int(value: &Value, key: &str) -> Option<i64> {
    value.get(key).and_then(Value::as_i64)
}

/// A struct field that is a pointer: `None` when absent, `null` or not an object.
fn pointer<'v>(value: &'v Value, key: &str) -> Option<&'v Value> {
    value.get(key).filter(|v| v.is_object())
}

fn strings(value: &Value, key: &str) -> Option<Vec<String>> {
    let items = value.get(key)?.as_array()?;
    Some(
        items
            .iter()
            .map(|s| s.as_str().unwrap_or_default().to_owned())
            .collect(),
    )
}

fn list<T>(value: &Value, key: &str, read: impl Fn(&Value) -> T) -> Option<Vec<T>> {
    Some(value.get(key)?.as_array()?.iter().map(read).collect())
}

impl FlowSchemaSpec {
    /// The spec of a FlowSchema (`object`'s `spec`; an absent one is the zero spec).
    pub(crate) fn of(object: &Value) -> Self {
        let spec = object.get("spec").unwrap_or(&Value::Null);
        Self {
            priority_level: pointer(spec, "priorityLevelConfiguration").map_or_else(String::new, |r| text(r, "name")),
            matching_precedence: int(spec, "matchingPrecedence"),
            distinguisher: pointer(spec, "distinguisherMethod").map(|d| text(d, "type")),
            rules: list(spec, "rules", PolicyRules::of),
        }
    }
}

impl PolicyRules {
    fn of(rule: &Value) -> Self {
        Self {
            subjects: list(rule, "subjects", Subject::of),
            resource_rules: list(rule, "resourceRules", |r| ResourceRule {
                verbs: strings(r, "verbs"),
                api_groups: strings(r, "apiGroups"),
                resources: strings(r, "resources"),
                cluster_scope: r.get("clusterScope").and_then(Value::as_bool).unwrap_or_default(),
                namespaces: strings(r, "namespaces"),
            }),
            non_resource_rules: list(rule, "nonResourceRules", |r| NonResourceRule {
                verbs: strings(r, "verbs"),
                non_resource_urls: strings(r, "nonResourceURLs"),
            }),
        }
    }
}

impl Subject {
    fn of(subject: &Value) -> Self {
        Self {
            kind: text(subject, "kind"),
            user: pointer(subject, "user").map(|u| text(u, "name")),
            group: pointer(subject, "group").map(|g| text(g, "name")),
            service_account: pointer(subject, "serviceAccount").map(|sa| ServiceAccountSubject {
                namespace: text(sa, "namespace"),
                name: text(sa, "name"),
            }),
        }
    }
}

impl PriorityLevelSpec {
    /// The spec of a PriorityLevelConfiguration of `version` (`v1beta3`…).
    pub(crate) fn of(object: &Value, version: &str) -> Self {
        let spec = object.get("spec").unwrap_or(&Value::Null);
        Self {
            type_: text(spec, "type"),
            limited: pointer(spec, "limited").map(|l| Limited {
                nominal_concurrency_shares: int(l, shares_field(version)),
                limit_response: l
                    .get("limitResponse")
                    .map(|r| LimitResponse {
                        type_: text(r, "type"),
                        queuing: pointer(r, "queuing").map(|q| Queuing {
                            queues: int(q, "queues"),
                            hand_size: int(q, "handSize"),
                            queue_length_limit: int(q, "queueLengthLimit"),
                        }),
                    })
                    .unwrap_or_default(),
                lendable_percent: optional_int(l, "lendablePercent"),
                borrowing_limit_percent: optional_int(l, "borrowingLimitPercent"),
            }),
            exempt: pointer(spec, "exempt").map(|e| Exempt {
                nominal_concurrency_shares: optional_int(e, "nominalConcurrencyShares"),
                lendable_percent: optional_int(e, "lendablePercent"),
            }),
        }
    }
}

/// `v` with every empty slice made nil: what `apiequality.Semantic.DeepEqual` compares.
trait Canonical {
    fn canonical(&self) -> Self;
}

fn canonical_list<T: Canonical>(items: &Option<Vec<T>>) -> Option<Vec<T>> {
    items
        .as_ref()
        .filter(|items| !items.is_empty())
        .map(|items| items.iter().map(Canonical::canonical).collect())
}

fn canonical_strings(items: &Option<Vec<String>>) -> Option<Vec<String>> {
    items.clone().filter(|items| !items.is_empty())
}

impl Canonical for FlowSchemaSpec {
    fn canonical(&self) -> Self {
        Self {
            rules: canonical_list(&self.rules),
            ..self.clone()
        }
    }
}

impl Canonical for PolicyRules {
    fn canonical(&self) -> Self {
        Self {
            subjects: self.subjects.clone().filter(|s| !s.is_empty()),
            resource_rules: canonical_list(&self.resource_rules),
            non_resource_rules: canonical_list(&self.non_resource_rules),
        }
    }
}

impl Canonical for ResourceRule {
    fn canonical(&self) -> Self {
        Self {
            verbs: canonical_strings(&self.verbs),
            api_groups: canonical_strings(&self.api_groups),
            resources: canonical_strings(&self.resources),
            cluster_scope: self.cluster_scope,
            namespaces: canonical_strings(&self.namespaces),
        }
    }
}

impl Canonical for NonResourceRule {
    fn canonical(&self) -> Self {
        Self {
            verbs: canonical_strings(&self.verbs),
            non_resource_urls: canonical_strings(&self.non_resource_urls),
        }
    }
}

/// `apiequality.Semantic.DeepEqual` of two FlowSchema specs: equal but for nil and empty slices.
pub(crate) fn semantically_equal(a: &FlowSchemaSpec, b: &FlowSchemaSpec) -> bool {
    a.canonical() == b.canonical()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn nil_and_empty_slices_should_differ_in_the_spec_but_compare_equal() {
        let empty = FlowSchemaSpec::of(&json!({"spec": {"rules": []}}));
        let nil = FlowSchemaSpec::of(&json!({"spec": {}}));
        assert_eq!(empty.rules, Some(Vec::new()));
        assert_eq!(nil.rules, None);
        assert!(semantically_equal(&empty, &nil));
    }

    #[test]
    fn v1beta2_should_read_assured_shares_as_the_nominal_ones() {
        let object = json!({"spec": {"type": "Limited", "limited": {"assuredConcurrencyShares": 7}}});
        let shares = |version| {
            PriorityLevelSpec::of(&object, version)
                .limited
                .map(|l| l.nominal_concurrency_shares)
        };
        assert_eq!(shares("v1beta2"), Some(7));
        assert_eq!(shares("v1beta3"), Some(0));
    }
}
