//! flowcontrol tables as `pkg/printers/internalversion/printers.go` prints them:
//! `printFlowSchema`, `printFlowSchemaList` (rows in matching order: `FlowSchemaSequence`, by
//! precedence then name) and `printPriorityLevelConfiguration`, with the column definitions
//! whose descriptions are the documentation of the version the printer imports (v1beta3 in
//! 1.28, v1 in 1.31: only the shares' text differs).

use std::cmp::Ordering;

use serde_json::{Value, json};

use super::{BuiltinColumn, column};
use crate::semantics::flowcontrol_conversion::nominal_shares;

const PRIORITY_LEVEL: &str = "`name` is the name of the priority level configuration being referenced Required.";
const MATCHING_PRECEDENCE: &str = "`matchingPrecedence` is used to choose among the FlowSchemas that match a given request. The chosen FlowSchema is among those with the numerically lowest (which we take to be logically highest) MatchingPrecedence.  Each MatchingPrecedence value must be ranged in [1,10000]. Note that if the precedence is not specified, it will be set to 1000 as default.";
const DISTINGUISHER_METHOD: &str = "`distinguisherMethod` defines how to compute the flow distinguisher for requests that match this schema. `nil` specifies that the distinguisher is disabled and thus will always be the empty string.";
const MISSING_PL: &str = "references a broken or non-existent PriorityLevelConfiguration";
const TYPE: &str = "`type` indicates whether this priority level is subject to limitation on request execution.  A value of `\"Exempt\"` means that requests of this priority level are not subject to a limit (and thus are never queued) and do not detract from the capacity made available to other priority levels.  A value of `\"Limited\"` means that (a) requests of this priority level _are_ subject to limits and (b) some of the server's limited capacity is made available exclusively to this priority level. Required.";
const SHARES_HEAD: &str = "`nominalConcurrencyShares` (NCS) contributes to the computation of the NominalConcurrencyLimit (NominalCL) of this level. This is the number of execution seats available at this priority level. This is used both for requests dispatched from this priority level as well as requests dispatched from other priority levels borrowing seats from this level. The server's concurrency limit (ServerCL) is divided among the Limited priority levels in proportion to their NCS values:\n\nNominalCL(i)  = ceil( ServerCL * NCS(i) / sum_ncs ) sum_ncs = sum[priority level k] NCS(k)\n\nBigger numbers mean a larger nominal concurrency limit, at the expense of every other priority level.";
/// The end of v1beta3's description of the shares (1.28's printer).
const SHARES_TAIL_V1BETA3: &str = " This field has a default value of 30.";
/// The end of v1's (1.31's printer), cut where the swagger generator cut it.
const SHARES_TAIL_V1: &str = "\n\nIf not specified, this field defaults to a value of 30.\n\nSetting this field to zero supports the construction of a \"jail\" for this priority level that is used to hold some request(s)";
const QUEUES: &str = "`queues` is the number of queues for this priority level. The queues exist independently at each apiserver. The value must be positive.  Setting it to 1 effectively precludes shufflesharding and thus makes the distinguisher method of associated flow schemas irrelevant.  This field has a default value of 64.";
const HAND_SIZE: &str = "`handSize` is a small positive number that configures the shuffle sharding of requests into queues.  When enqueuing a request at this priority level the request's flow identifier (a string pair) is hashed and the hash value is used to shuffle the list of queues and deal a hand of the size specified here.  The request is put into one of the shortest queues in that hand. `handSize` must be no larger than `queues`, and should be significantly smaller (so that a few heavy flows do not saturate most of the queues).  See the user-facing documentation for more extensive guidance on setting this field.  This field has a default value of 8.";
const QUEUE_LENGTH_LIMIT: &str = "`queueLengthLimit` is the maximum number of requests allowed to be waiting in a given queue of this priority level at a time; excess requests are rejected.  This value must be positive.  If not specified, it will be defaulted to 50.";

/// The columns after Name of a flowcontrol kind's printer on a server of `minor`.
pub(super) fn columns(kind: &str, age: BuiltinColumn, minor: u32) -> Option<Vec<BuiltinColumn>> {
    Some(match kind {
        "FlowSchema" => {
            let missing = column("MissingPL", "string", MISSING_PL, missing_priority_level);
            vec![
                column("PriorityLevel", "string", PRIORITY_LEVEL, |o| {
                    json!(
                        o.pointer("/spec/priorityLevelConfiguration/name")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                    )
                }),
                // Typed `string`, printed as the number it is.
                column("MatchingPrecedence", "string", MATCHING_PRECEDENCE, |o| {
                    json!(
                        o.pointer("/spec/matchingPrecedence")
                            .and_then(Value::as_i64)
                            .unwrap_or_default()
                    )
                }),
                column("DistinguisherMethod", "string", DISTINGUISHER_METHOD, |o| {
                    json!(
                        o.pointer("/spec/distinguisherMethod/type")
                            .and_then(Value::as_str)
                            .unwrap_or("<none>")
                    )
                }),
                age,
                missing,
            ]
        }
        "PriorityLevelConfiguration" => {
            let shares: &'static str = if minor >= 29 {
                SHARES_V1.as_str()
            } else {
                SHARES_V1BETA3.as_str()
            };
            vec![
                column("Type", "string", TYPE, |o| {
                    json!(o.pointer("/spec/type").and_then(Value::as_str).unwrap_or_default())
                }),
                column("NominalConcurrencyShares", "string", shares, |o| {
                    limited(o).map_or(json!("<none>"), |l| json!(nominal_shares(l).unwrap_or_default()))
                }),
                column("Queues", "string", QUEUES, |o| queuing(o, "queues")),
                column("HandSize", "string", HAND_SIZE, |o| queuing(o, "handSize")),
                column("QueueLengthLimit", "string", QUEUE_LENGTH_LIMIT, |o| {
                    queuing(o, "queueLengthLimit")
                }),
                age,
            ]
        }
        _ => return None,
    })
}

static SHARES_V1BETA3: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| format!("{SHARES_HEAD}{SHARES_TAIL_V1BETA3}"));
static SHARES_V1: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| format!("{SHARES_HEAD}{SHARES_TAIL_V1}"));

/// The MissingPL cell: the status of the schema's `Dangling` condition, `?` without one.
fn missing_priority_level(schema: &Value) -> Value {
    let conditions = schema.pointer("/status/conditions").and_then(Value::as_array);
    let dangling = conditions
        .into_iter()
        .flatten()
        .find(|c| c.get("type").and_then(Value::as_str) == Some("Dangling"));
    json!(dangling.map_or("?", |c| c.get("status").and_then(Value::as_str).unwrap_or_default()))
}

fn limited(level: &Value) -> Option<&Value> {
    level.pointer("/spec/limited").filter(|l| l.is_object())
}

/// A queuing cell: the number, `<none>` for a level that does not queue.
fn queuing(level: &Value, key: &str) -> Value {
    let queuing = limited(level)
        .and_then(|l| l.pointer("/limitResponse/queuing"))
        .filter(|q| q.is_object());
    queuing.map_or(json!("<none>"), |q| {
        json!(q.get(key).and_then(Value::as_i64).unwrap_or_default())
    })
}

/// The order of a kind's list rows when its list printer sorts them: FlowSchemas by matching
/// precedence, then name (`FlowSchemaSequence`).
pub(super) fn row_order(kind: &str) -> Option<fn(&Value, &Value) -> Ordering> {
    (kind == "FlowSchema").then_some(|a: &Value, b: &Value| {
        let key = |o: &Value| {
            (
                o.pointer("/spec/matchingPrecedence")
                    .and_then(Value::as_i64)
                    .unwrap_or_default(),
                o.pointer("/metadata/name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
            )
        };
        key(a).cmp(&key(b))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cells(kind: &str, object: &Value, minor: u32) -> Vec<Value> {
        let age = column("Age", "string", "", |_| json!("0s"));
        columns(kind, age, minor)
            .unwrap_or_default()
            .iter()
            .map(|c| (c.cell)(object))
            .collect()
    }

    #[test]
    fn a_flow_schema_row_should_show_its_level_precedence_method_and_dangling_status() {
        let schema = json!({"spec": {"priorityLevelConfiguration": {"name": "p"}, "matchingPrecedence": 500,
                                     "distinguisherMethod": {"type": "ByUser"}},
                            "status": {"conditions": [{"type": "Dangling", "status": "False"}]}});
        assert_eq!(
            cells("FlowSchema", &schema, 28),
            [json!("p"), json!(500), json!("ByUser"), json!("0s"), json!("False")]
        );
        let bare = json!({"spec": {"priorityLevelConfiguration": {"name": "p"}, "matchingPrecedence": 1}});
        assert_eq!(
            cells("FlowSchema", &bare, 31)[2..],
            [json!("<none>"), json!("0s"), json!("?")]
        );
    }

    #[test]
    fn a_rejecting_level_should_show_none_for_its_queuing() {
        let level = json!({"spec": {"type": "Limited", "limited": {"nominalConcurrencyShares": 5, "limitResponse": {"type": "Reject"}}}});
        assert_eq!(
            cells("PriorityLevelConfiguration", &level, 28),
            [
                json!("Limited"),
                json!(5),
                json!("<none>"),
                json!("<none>"),
                json!("<none>"),
                json!("0s")
            ]
        );
        let exempt = json!({"spec": {"type": "Exempt", "exempt": {}}});
        assert_eq!(cells("PriorityLevelConfiguration", &exempt, 31)[1], json!("<none>"));
    }

    #[test]
    fn flow_schema_rows_should_go_by_precedence_then_name() {
        let schema = |name: &str, precedence: i64| json!({"metadata": {"name": name}, "spec": {"matchingPrecedence": precedence}});
        let mut rows = [schema("b", 10), schema("c", 1), schema("a", 10)];
        let order = row_order("FlowSchema").unwrap_or(|_, _| Ordering::Equal);
        rows.sort_by(order);
        let names: Vec<&Value> = rows.iter().map(|r| &r["metadata"]["name"]).collect();
        assert_eq!(names, ["c", "a", "b"]);
        assert!(row_order("PriorityLevelConfiguration").is_none());
    }
}
