//! policy, scheduling and node tables as `pkg/printers/internalversion/printers.go` prints
//! them: `printPodDisruptionBudget`, `printPriorityClass` and `printRuntimeClass`, with their
//! column definitions.

use serde_json::{Value, json};

use super::{BuiltinColumn, column, int};

/// The columns after Name of a policy kind's printer (`age` is the Age column).
pub(super) fn columns(kind: &str, age: BuiltinColumn) -> Option<Vec<BuiltinColumn>> {
    Some(match kind {
        "PodDisruptionBudget" => vec![
            column(
                "Min Available",
                "string",
                "The minimum number of pods that must be available.",
                |o| json!(bound(o, "minAvailable")),
            ),
            column(
                "Max Unavailable",
                "string",
                "The maximum number of pods that may be unavailable.",
                |o| json!(bound(o, "maxUnavailable")),
            ),
            column(
                "Allowed Disruptions",
                "integer",
                "Calculated number of pods that may be disrupted at this time.",
                |o| json!(int(o, "/status/disruptionsAllowed")),
            ),
            age,
        ],
        "PriorityClass" => vec![
            column(
                "Value",
                "integer",
                "value represents the integer value of this priority class. This is the actual priority that pods receive when they have the name of this class in their pod spec.",
                |o| json!(int(o, "/value")),
            ),
            column(
                "Global-Default",
                "boolean",
                "globalDefault specifies whether this PriorityClass should be considered as the default priority for pods that do not have any priority class. Only one PriorityClass can be marked as `globalDefault`. However, if more than one PriorityClasses exists with their `globalDefault` field set to true, the smallest value of such global default PriorityClasses will be used as the default priority.",
                |o| json!(o.get("globalDefault").and_then(Value::as_bool).unwrap_or_default()),
            ),
            age,
        ],
        // The Handler column's description is `ObjectMeta`'s documentation of a field it does
        // not have.
        "RuntimeClass" => vec![
            column("Handler", "string", "", |o| {
                json!(o.get("handler").and_then(Value::as_str).unwrap_or_default())
            }),
            age,
        ],
        _ => return None,
    })
}

/// A budget's bound as `IntOrString.String()` writes it, `N/A` when unset.
fn bound(pdb: &Value, key: &str) -> String {
    match pdb.pointer(&format!("/spec/{key}")) {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Number(number)) => number.to_string(),
        _ => "N/A".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_should_show_their_bounds_and_allowed_disruptions() {
        let age = column("Age", "string", "", |_| json!("0s"));
        let pdb = json!({"spec": {"maxUnavailable": "50%"}, "status": {"disruptionsAllowed": 2}});
        let cells: Vec<Value> = columns("PodDisruptionBudget", age)
            .unwrap()
            .iter()
            .map(|c| (c.cell)(&pdb))
            .collect();
        assert_eq!(cells, [json!("N/A"), json!("50%"), json!(2), json!("0s")]);
    }

    #[test]
    fn priority_classes_should_show_value_and_default() {
        let age = column("Age", "string", "", |_| json!("0s"));
        let class = json!({"value": 1000});
        let cells: Vec<Value> = columns("PriorityClass", age)
            .unwrap()
            .iter()
            .map(|c| (c.cell)(&class))
            .collect();
        assert_eq!(cells, [json!(1000), json!(false), json!("0s")]);
    }
}
