//! discovery.k8s.io tables as `pkg/printers/internalversion/printers.go` prints them:
//! `printEndpointSlice` (`formatDiscoveryPorts`, `formatDiscoveryEndpoints`,
//! `listWithMoreString`), with its column definitions.

use serde_json::{Value, json};

use super::{BuiltinColumn, column};

/// How many ports or addresses a cell shows before it counts the rest.
const SHOWN: usize = 3;

/// The columns after Name of a discovery.k8s.io kind's printer (`age` is the Age column).
pub(super) fn columns(kind: &str, age: BuiltinColumn) -> Option<Vec<BuiltinColumn>> {
    (kind == "EndpointSlice").then(|| {
        vec![
            column(
                "AddressType",
                "string",
                "addressType specifies the type of address carried by this EndpointSlice. All addresses in this slice must be the same type. This field is immutable after creation. The following address types are currently supported: * IPv4: Represents an IPv4 Address. * IPv6: Represents an IPv6 Address. * FQDN: Represents a Fully Qualified Domain Name.",
                |o| json!(o.get("addressType").and_then(Value::as_str).unwrap_or_default()),
            ),
            column(
                "Ports",
                "string",
                "ports specifies the list of network ports exposed by each endpoint in this slice. Each port must have a unique name. When ports is empty, it indicates that there are no defined ports. When a port is defined with a nil port value, it indicates \"all ports\". Each slice may include a maximum of 100 ports.",
                |o| json!(format_ports(o)),
            ),
            column(
                "Endpoints",
                "string",
                "endpoints is a list of unique endpoints in this slice. Each slice may include a maximum of 1000 endpoints.",
                |o| json!(format_endpoints(o)),
            ),
            age,
        ]
    })
}

fn items<'v>(object: &'v Value, key: &str) -> &'v [Value] {
    object.get(key).and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

/// `formatDiscoveryPorts`: each port's number, else its name, else `*`.
fn format_ports(slice: &Value) -> String {
    let shown: Vec<String> = items(slice, "ports")
        .iter()
        .map(|port| {
            match (
                port.get("port").and_then(Value::as_i64),
                port.get("name").and_then(Value::as_str),
            ) {
                (Some(number), _) => number.to_string(),
                (None, Some(name)) => name.to_owned(),
                (None, None) => "*".to_owned(),
            }
        })
        .collect();
    list_with_more(&shown)
}

/// `formatDiscoveryEndpoints`: every endpoint's addresses.
fn format_endpoints(slice: &Value) -> String {
    let addresses: Vec<String> = items(slice, "endpoints")
        .iter()
        .flat_map(|endpoint| items(endpoint, "addresses"))
        .map(|address| address.as_str().unwrap_or_default().to_owned())
        .collect();
    list_with_more(&addresses)
}

/// `listWithMoreString`: the first three, how many more there are, `<unset>` for none.
fn list_with_more(all: &[String]) -> String {
    let shown = all[..all.len().min(SHOWN)].join(",");
    if all.len() > SHOWN {
        format!("{shown} + {} more...", all.len() - SHOWN)
    } else if shown.is_empty() {
        "<unset>".to_owned()
    } else {
        shown
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_should_show_their_first_ports_and_addresses() {
        let age = column("Age", "string", "", |_| json!("0s"));
        let slice = json!({
            "addressType": "IPv6",
            "ports": [{"port": 1, "name": "a"}, {"name": "b"}, {}, {"port": 4}],
            "endpoints": [{"addresses": ["fd00::1", "fd00::2"]}, {"addresses": ["fd00::3"]}],
        });
        let cells: Vec<Value> = columns("EndpointSlice", age)
            .unwrap()
            .iter()
            .map(|c| (c.cell)(&slice))
            .collect();
        assert_eq!(
            cells,
            [
                json!("IPv6"),
                json!("1,b,* + 1 more..."),
                json!("fd00::1,fd00::2,fd00::3"),
                json!("0s")
            ]
        );
        assert_eq!(format_ports(&json!({"ports": null})), "<unset>");
    }
}
