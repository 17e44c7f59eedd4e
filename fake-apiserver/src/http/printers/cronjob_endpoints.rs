//! CronJob and Endpoints tables as `pkg/printers/internalversion/printers.go` prints them.
//!
//! `printCronJob`, `printEndpoints` and `formatEndpoints`, with their column definitions.

use serde_json::{Value, json};

use super::format_label_selector;
use super::{BuiltinColumn, column, since, wide};

/// How many endpoints `formatEndpoints` shows before it counts the rest.
const SHOWN_ENDPOINTS: usize = 3;

/// The documentation of `CronJobSpec.timeZone`, the Timezone column's description.
const TIME_ZONE_DESCRIPTION: &str = "The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones. If not specified, this will default to the time zone of the kube-controller-manager process. The set of valid time zone names and the time zone offset is loaded from the system-wide time zone database by the API server during CronJob validation and the controller manager during execution. If no system-wide time zone database can be found a bundled version of the database is used instead. If the time zone name becomes invalid during the lifetime of a CronJob or due to a change in host configuration, the controller will stop creating new new Jobs and will create a system event with the reason UnknownTimeZone. More information can be found in https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/#time-zones";

/// The columns after Name of a CronJob's printer on a server of `minor` (`age` is the Age
/// column): from 1.30 the schedule's time zone follows it.
pub(super) fn cron_job_columns(age: BuiltinColumn, minor: u32) -> Vec<BuiltinColumn> {
    let schedule = column(
        "Schedule",
        "string",
        "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.",
        |o| json!(text(o, "/spec/schedule")),
    );
    let time_zone = (minor >= 30).then(|| {
        column("Timezone", "string", TIME_ZONE_DESCRIPTION, |o| {
            json!(o.pointer("/spec/timeZone").and_then(Value::as_str).unwrap_or("<none>"))
        })
    });
    [schedule].into_iter().chain(time_zone).chain([
        column(
            "Suspend",
            "boolean",
            "This flag tells the controller to suspend subsequent executions, it does not apply to already started executions.  Defaults to false.",
            suspend,
        ),
        column(
            "Active",
            "integer",
            "A list of pointers to currently running jobs.",
            |o| json!(items(o, "/status/active").len()),
        ),
        column(
            "Last Schedule",
            "string",
            "Information when was the last time the job was successfully scheduled.",
            last_schedule,
        ),
        age,
        wide("Containers", "Names of each container in the template.", |o| {
            template_containers(o, "name")
        }),
        wide("Images", "Images referenced by each container in the template.", |o| {
            template_containers(o, "image")
        }),
        wide(
            "Selector",
            "A label query over pods that should match the pod count. Normally, the system sets this field for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
            job_template_selector,
        ),
    ])
    .collect()
}

/// The columns after Name of an Endpoints' printer.
pub(super) fn endpoints_columns(age: BuiltinColumn) -> Vec<BuiltinColumn> {
    vec![
        column(
            "Endpoints",
            "string",
            "The set of all endpoints is the union of all subsets. Addresses are placed into subsets according to the IPs they share. A single address with multiple ports, some of which are ready and some of which are not (because they come from different containers) will result in the address being displayed in different subsets for the different ports. No address will appear in both Addresses and NotReadyAddresses in the same subset. Sets of addresses and ports that comprise a service.",
            |o| json!(format_endpoints(o)),
        ),
        age,
    ]
}

fn text<'v>(object: &'v Value, pointer: &str) -> &'v str {
    object.pointer(pointer).and_then(Value::as_str).unwrap_or_default()
}

fn items<'v>(object: &'v Value, pointer: &str) -> &'v [Value] {
    object
        .pointer(pointer)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// `printBoolPtr`: `True`, `False`, or `<unset>`.
fn suspend(cron_job: &Value) -> Value {
    json!(match cron_job.pointer("/spec/suspend").and_then(Value::as_bool) {
        Some(true) => "True",
        Some(false) => "False",
        None => "<unset>",
    })
}

/// How long ago the last job was scheduled, `<none>` before the first.
fn last_schedule(cron_job: &Value) -> Value {
    json!(
        match cron_job.pointer("/status/lastScheduleTime").filter(|t| !t.is_null()) {
            None => "<none>".to_owned(),
            Some(time) => time.as_str().and_then(since).unwrap_or_else(|| "<unknown>".to_owned()),
        }
    )
}

/// `layoutContainerCells` of the job template's containers: one entry per container, even
/// an empty one.
fn template_containers(cron_job: &Value, field: &str) -> Value {
    let cells: Vec<&str> = items(cron_job, "/spec/jobTemplate/spec/template/spec/containers")
        .iter()
        .map(|c| c.get(field).and_then(Value::as_str).unwrap_or_default())
        .collect();
    json!(cells.join(","))
}

/// `metav1.FormatLabelSelector` of the job template's selector.
fn job_template_selector(cron_job: &Value) -> Value {
    json!(format_label_selector(
        cron_job.pointer("/spec/jobTemplate/spec/selector")
    ))
}

/// `formatEndpoints` of every port: the ready addresses as `ip:port` (a subset without
/// ports shows bare IPs), the first three of them and how many more there are.
fn format_endpoints(endpoints: &Value) -> String {
    let subsets = items(endpoints, "/subsets");
    if subsets.is_empty() {
        return "<none>".to_owned();
    }
    let mut shown: Vec<String> = Vec::new();
    let mut count = 0;
    let mut more = false;
    for subset in subsets {
        let addresses = items(subset, "/addresses");
        let ports = items(subset, "/ports");
        // A headless service's subset may have no ports: its addresses stand alone.
        let numbers: Vec<Option<i64>> = if ports.is_empty() {
            vec![None]
        } else {
            ports
                .iter()
                .map(|p| Some(p.get("port").and_then(Value::as_i64).unwrap_or(0)))
                .collect()
        };
        for number in numbers {
            count += addresses.len();
            for address in addresses {
                if shown.len() == SHOWN_ENDPOINTS {
                    more = true;
                    break;
                }
                let ip = text(address, "/ip");
                shown.push(number.map_or_else(|| ip.to_owned(), |n| join_host_port(ip, n)));
            }
        }
    }
    let joined = shown.join(",");
    if more {
        format!("{joined} + {} more...", count - SHOWN_ENDPOINTS)
    } else {
        joined
    }
}

/// `net.JoinHostPort`: an IPv6 host is bracketed.
fn join_host_port(host: &str, port: i64) -> String {
    if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_should_be_listed_as_kubectl_shows_them() {
        assert_eq!(format_endpoints(&json!({})), "<none>");
        assert_eq!(format_endpoints(&json!({"subsets": []})), "<none>");
        let one = json!({"subsets": [{"addresses": [{"ip": "10.1.2.5"}], "notReadyAddresses": [{"ip": "10.1.2.6"}], "ports": [{"port": 8080}]}]});
        assert_eq!(format_endpoints(&one), "10.1.2.5:8080");
        let headless = json!({"subsets": [{"addresses": [{"ip": "10.0.0.1"}, {"ip": "fd00::1"}]}]});
        assert_eq!(format_endpoints(&headless), "10.0.0.1,fd00::1");
        let v6 = json!({"subsets": [{"addresses": [{"ip": "fd00::1"}], "ports": [{"port": 80}]}]});
        assert_eq!(format_endpoints(&v6), "[fd00::1]:80");
        // Every port of every address counts; three are shown.
        let many = json!({"subsets": [
            {"addresses": [{"ip": "10.0.0.1"}, {"ip": "10.0.0.2"}], "ports": [{"port": 80}, {"port": 443}]},
            {"addresses": [{"ip": "10.0.0.3"}]},
        ]});
        assert_eq!(
            format_endpoints(&many),
            "10.0.0.1:80,10.0.0.2:80,10.0.0.1:443 + 2 more..."
        );
        // A subset with ports but no ready address shows nothing.
        assert_eq!(
            format_endpoints(
                &json!({"subsets": [{"notReadyAddresses": [{"ip": "10.0.0.1"}], "ports": [{"port": 1}]}]})
            ),
            ""
        );
    }

    #[test]
    fn cron_job_cells_should_follow_the_printer() {
        let cron_job = json!({
            "spec": {"schedule": "@daily", "suspend": true, "jobTemplate": {"spec": {"template": {"spec": {
                "containers": [{"name": "a", "image": "busybox"}, {"name": "b"}]}}}}},
            "status": {"active": [{"name": "j1"}, {"name": "j2"}]},
        });
        let cells: Vec<Value> = cron_job_columns(column("Age", "string", "", |_| json!("0s")), 28)
            .iter()
            .map(|c| (c.cell)(&cron_job))
            .collect();
        assert_eq!(
            cells,
            [
                json!("@daily"),
                json!("True"),
                json!(2),
                json!("<none>"),
                json!("0s"),
                json!("a,b"),
                json!("busybox,"),
                json!("<none>")
            ]
        );
        assert_eq!(suspend(&json!({"spec": {}})), "<unset>");
        assert_eq!(
            last_schedule(&json!({"status": {"lastScheduleTime": "bad"}})),
            "<unknown>"
        );
        let selected = json!({"spec": {"jobTemplate": {"spec": {"selector": {"matchLabels": {"a": "b"}}}}}});
        assert_eq!(job_template_selector(&selected), "a=b");
    }
}
