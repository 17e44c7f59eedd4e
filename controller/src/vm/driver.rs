//! The VirtualMachine driver: what controller101's `driver.Interface` asks of a hypervisor
//! (create, delete, exists, status), as a trait so a real hypervisor can replace the simulated
//! one; and resource quantities read as numbers, which a driver needs.

use futures::future::BoxFuture;

/// A server a driver created.
#[derive(Clone, Debug, PartialEq)]
pub struct Server {
    /// The driver's id for it.
    pub id: String,
    /// Its state, e.g. `ACTIVE`.
    pub state: String,
    /// CPU usage in percent.
    pub cpu_percentage: f64,
    /// Memory usage in percent.
    pub memory_percentage: f64,
}

/// What a server is given.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Resources {
    /// CPU cores (may be fractional: `500m` is 0.5).
    pub cpu: f64,
    /// Memory in bytes.
    pub memory_bytes: f64,
}

/// Why a driver call failed.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
#[error("{0}")]
pub struct DriverError(pub String);

/// A hypervisor, after controller101's `driver.Interface`. Servers are named after their
/// VirtualMachine (`namespace-name`), which makes creation idempotent.
pub trait VmDriver: Send + Sync + 'static {
    /// Creates the server `name`.
    fn create_server<'a>(&'a self, name: &'a str, resources: Resources) -> BoxFuture<'a, Result<Server, DriverError>>;
    /// Deletes the server `name`; deleting a missing server succeeds.
    fn delete_server<'a>(&'a self, name: &'a str) -> BoxFuture<'a, Result<(), DriverError>>;
    /// The server `name`, if it exists, with its current state and usage.
    fn server<'a>(&'a self, name: &'a str) -> BoxFuture<'a, Result<Option<Server>, DriverError>>;
}

/// Why a quantity is not a number.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
#[error("{0:?} is not a quantity (e.g. 2, 500m, 4Gi, 4G)")]
pub struct QuantityError(pub String);

/// A Kubernetes quantity (`2`, `500m`, `1.5`, `4Gi`, `4G`, `1e3`) as a number.
pub fn parse_quantity(text: &str) -> Result<f64, QuantityError> {
    let error = || QuantityError(text.to_owned());
    let text = text.trim();
    let split = text
        .find(|c: char| c.is_ascii_alphabetic() && c != 'e' && c != 'E')
        .unwrap_or(text.len());
    let (number, suffix) = text.split_at(split);
    let multiplier = match suffix {
        "" => 1.0,
        "n" => 1e-9,
        "u" => 1e-6,
        "m" => 1e-3,
        "k" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        "P" => 1e15,
        "E" => 1e18,
        "Ki" => 1024.0,
        "Mi" => 1024f64.powi(2),
        "Gi" => 1024f64.powi(3),
        "Ti" => 1024f64.powi(4),
        "Pi" => 1024f64.powi(5),
        "Ei" => 1024f64.powi(6),
        _ => return Err(error()),
    };
    let value: f64 = number.parse().map_err(|_| error())?;
    if !value.is_finite() || value < 0.0 || number.is_empty() {
        return Err(error());
    }
    Ok(value * multiplier)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities_should_parse_like_kubernetes() {
        assert_eq!(parse_quantity("2"), Ok(2.0));
        assert_eq!(parse_quantity("500m"), Ok(0.5));
        assert_eq!(parse_quantity("4G"), Ok(4e9));
        assert_eq!(parse_quantity("1Gi"), Ok(1073741824.0));
        assert_eq!(parse_quantity("1e3"), Ok(1000.0));
        for bad in ["", "four", "4GB", "-1", "Gi"] {
            assert!(parse_quantity(bad).is_err(), "{bad}");
        }
    }
}
