//! The values of some flowcontrol field errors as Go's `%#v` prints the internal structs
//! (`pkg/apis/flowcontrol/types.go`, in its field order): the spec of a mandatory FlowSchema or
//! PriorityLevelConfiguration that differs from its fixed value, and a FlowSchema's
//! unsupported `distinguisherMethod`. Strings and named string types are quoted, a nil slice
//! is `[]T(nil)` and an empty one `[]T{}`, a pointer `(*T)(nil)` or its address, which no
//! answer can depend on: this server prints a fixed one.

use crate::semantics::field_error::go_quote;
use crate::semantics::flowcontrol_types::{
    Exempt, FlowSchemaSpec, Limited, NonResourceRule, PolicyRules, PriorityLevelSpec, ResourceRule, Subject,
};
use crate::semantics::names::ADDRESS;

/// `(*flowcontrol.T)(…)` of a pointer field.
fn pointer<T>(ty: &str, value: Option<&T>) -> String {
    match value {
        Some(_) => format!("(*flowcontrol.{ty})({ADDRESS})"),
        None => format!("(*flowcontrol.{ty})(nil)"),
    }
}

/// A slice of `element_type` (`[]flowcontrol.Subject{…}`, `[]string(nil)`).
fn slice<T>(element_type: &str, items: Option<&Vec<T>>, print: impl Fn(&T) -> String) -> String {
    match items {
        None => format!("[]{element_type}(nil)"),
        Some(items) => {
            let printed: Vec<String> = items.iter().map(print).collect();
            format!("[]{element_type}{{{}}}", printed.join(", "))
        }
    }
}

fn strings(items: Option<&Vec<String>>) -> String {
    slice("string", items, |s| go_quote(s))
}

/// `flowcontrol.FlowDistinguisherMethod{Type:"…"}`: what a NotSupported distinguisher method
/// prints (field errors print the value a pointer points to).
pub(crate) fn distinguisher_method(type_: &str) -> String {
    format!("flowcontrol.FlowDistinguisherMethod{{Type:{}}}", go_quote(type_))
}

/// `flowcontrol.FlowSchemaSpec{…}`.
pub(crate) fn flow_schema_spec(spec: &FlowSchemaSpec) -> String {
    format!(
        "flowcontrol.FlowSchemaSpec{{PriorityLevelConfiguration:flowcontrol.PriorityLevelConfigurationReference{{Name:{}}}, \
         MatchingPrecedence:{}, DistinguisherMethod:{}, Rules:{}}}",
        go_quote(&spec.priority_level),
        spec.matching_precedence,
        pointer("FlowDistinguisherMethod", spec.distinguisher.as_ref()),
        slice("flowcontrol.PolicyRulesWithSubjects", spec.rules.as_ref(), policy_rules),
    )
}

fn policy_rules(rules: &PolicyRules) -> String {
    format!(
        "flowcontrol.PolicyRulesWithSubjects{{Subjects:{}, ResourceRules:{}, NonResourceRules:{}}}",
        slice("flowcontrol.Subject", rules.subjects.as_ref(), subject),
        slice(
            "flowcontrol.ResourcePolicyRule",
            rules.resource_rules.as_ref(),
            resource_rule
        ),
        slice(
            "flowcontrol.NonResourcePolicyRule",
            rules.non_resource_rules.as_ref(),
            non_resource_rule
        ),
    )
}

fn subject(subject: &Subject) -> String {
    format!(
        "flowcontrol.Subject{{Kind:{}, User:{}, Group:{}, ServiceAccount:{}}}",
        go_quote(&subject.kind),
        pointer("UserSubject", subject.user.as_ref()),
        pointer("GroupSubject", subject.group.as_ref()),
        pointer("ServiceAccountSubject", subject.service_account.as_ref()),
    )
}

fn resource_rule(rule: &ResourceRule) -> String {
    format!(
        "flowcontrol.ResourcePolicyRule{{Verbs:{}, APIGroups:{}, Resources:{}, ClusterScope:{}, Namespaces:{}}}",
        strings(rule.verbs.as_ref()),
        strings(rule.api_groups.as_ref()),
        strings(rule.resources.as_ref()),
        rule.cluster_scope,
        strings(rule.namespaces.as_ref()),
    )
}

fn non_resource_rule(rule: &NonResourceRule) -> String {
    format!(
        "flowcontrol.NonResourcePolicyRule{{Verbs:{}, NonResourceURLs:{}}}",
        strings(rule.verbs.as_ref()),
        strings(rule.non_resource_urls.as_ref()),
    )
}

/// `flowcontrol.PriorityLevelConfigurationSpec{…}`: its two configurations are pointers, so
/// only whether each is set shows.
pub(crate) fn priority_level_spec(spec: &PriorityLevelSpec) -> String {
    format!(
        "flowcontrol.PriorityLevelConfigurationSpec{{Type:{}, Limited:{}, Exempt:{}}}",
        go_quote(&spec.type_),
        pointer::<Limited>("LimitedPriorityLevelConfiguration", spec.limited.as_ref()),
        pointer::<Exempt>("ExemptPriorityLevelConfiguration", spec.exempt.as_ref()),
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_bare_spec_should_print_its_nil_pointer_and_slice() {
        let spec = FlowSchemaSpec::of(
            &json!({"spec": {"priorityLevelConfiguration": {"name": "exempt"}, "matchingPrecedence": 1}}),
        );
        assert_eq!(
            flow_schema_spec(&spec),
            "flowcontrol.FlowSchemaSpec{PriorityLevelConfiguration:flowcontrol.PriorityLevelConfigurationReference{Name:\"exempt\"}, \
             MatchingPrecedence:1, DistinguisherMethod:(*flowcontrol.FlowDistinguisherMethod)(nil), \
             Rules:[]flowcontrol.PolicyRulesWithSubjects(nil)}"
        );
    }

    #[test]
    fn rules_should_print_subjects_as_pointers_and_lists_in_field_order() {
        let spec = FlowSchemaSpec::of(&json!({"spec": {"rules": [{
            "subjects": [{"kind": "Group", "group": {"name": "g"}}],
            "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"], "clusterScope": true, "namespaces": []}],
        }]}}));
        let printed = flow_schema_spec(&spec);
        assert!(printed.contains(
            "Subjects:[]flowcontrol.Subject{flowcontrol.Subject{Kind:\"Group\", User:(*flowcontrol.UserSubject)(nil), \
             Group:(*flowcontrol.GroupSubject)(0xc000000000), ServiceAccount:(*flowcontrol.ServiceAccountSubject)(nil)}}"
        ));
        assert!(printed.contains(
            "ClusterScope:true, Namespaces:[]string{}}}, NonResourceRules:[]flowcontrol.NonResourcePolicyRule(nil)"
        ));
    }

    #[test]
    fn a_priority_level_spec_should_show_which_configuration_is_set() {
        let spec = PriorityLevelSpec::of(&json!({"spec": {"type": "Limited", "limited": {}}}), "v1beta3");
        assert_eq!(
            priority_level_spec(&spec),
            "flowcontrol.PriorityLevelConfigurationSpec{Type:\"Limited\", \
             Limited:(*flowcontrol.LimitedPriorityLevelConfiguration)(0xc000000000), \
             Exempt:(*flowcontrol.ExemptPriorityLevelConfiguration)(nil)}"
        );
    }
}
