//! The command line, after controller101's and sample-controller's flags.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// Runs controller101's VirtualMachine controller and sample-controller's Foo controller.
#[derive(Clone, Debug, clap::Parser)]
#[command(version, about)]
pub struct Flags {
    /// Path to a kubeconfig. Only required if out-of-cluster; without it the controller uses
    /// $KUBECONFIG, ~/.kube/config, then the in-cluster service account.
    #[arg(long)]
    pub kubeconfig: Option<PathBuf>,
    /// The address of the Kubernetes API server; overrides the server in the kubeconfig.
    #[arg(long)]
    pub master: Option<String>,
    /// Watch and reconcile only this namespace (default: all namespaces).
    #[arg(long)]
    pub namespace: Option<String>,
    /// Workers per controller (how many objects of one kind reconcile at once).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub threads: u16,
    /// Elect a leader among replicas through a Lease, so only one reconciles.
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set, num_args = 0..=1, default_missing_value = "true")]
    pub leader_elect: bool,
    /// This replica's identity in the election (default: $POD_NAME, else the hostname).
    #[arg(long, env = "POD_NAME")]
    pub holder_identity: Option<String>,
    /// Name of the Lease.
    #[arg(long, default_value = "kube-codegen-controller")]
    pub lease_lock_name: String,
    /// Namespace of the Lease (default: $POD_NAMESPACE, else `default`).
    #[arg(long, env = "POD_NAMESPACE", default_value = "default")]
    pub lease_lock_namespace: String,
    /// How long a lease lasts without renewal before another replica may take it.
    #[arg(long, default_value = "15s", value_parser = parse_duration)]
    pub leader_elect_lease_duration: Duration,
    /// How long the leader keeps trying to renew before it steps down.
    #[arg(long, default_value = "10s", value_parser = parse_duration)]
    pub leader_elect_renew_deadline: Duration,
    /// How often candidates try to acquire or renew the lease.
    #[arg(long, default_value = "2s", value_parser = parse_duration)]
    pub leader_elect_retry_period: Duration,
    /// Log verbosity, as klog's -v: 0-1 info, 2-3 debug, 4+ trace (RUST_LOG overrides).
    #[arg(short = 'v', long = "v", default_value_t = 0)]
    pub verbosity: u8,
    /// Where /healthz, /readyz and /metrics are served (default 0.0.0.0:8080, or 127.0.0.1:8080
    /// with --embedded).
    #[arg(long)]
    pub probe_address: Option<SocketAddr>,
    /// How often a resync re-delivers every cached object to the controllers.
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    pub resync_period: Duration,
    /// How often an Active VirtualMachine's usage is refreshed.
    #[arg(long, default_value = "20s", value_parser = parse_duration)]
    pub vm_refresh_period: Duration,
    /// The VirtualMachine driver: `simulated`, an in-process hypervisor.
    #[arg(long, default_value = "simulated", value_parser = ["simulated"])]
    pub vm_driver: String,
    /// Start an in-memory API server in this process, install deploy/crds and deploy/examples
    /// and run against it: a demo with no cluster.
    #[arg(long)]
    pub embedded: bool,
    /// With --embedded: where the in-memory API server listens, for kubectl.
    #[arg(long, default_value = "127.0.0.1:0")]
    pub embedded_address: SocketAddr,
    /// With --embedded: where to write a kubeconfig for that server.
    #[arg(long)]
    pub embedded_kubeconfig: Option<PathBuf>,
}

/// Why a duration flag did not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DurationError {
    /// Not a sequence of numbers with units.
    #[error("{0:?} is not a duration; write e.g. 15s, 1m30s or 500ms")]
    Malformed(String),
    /// A unit Go's durations do not have.
    #[error("{text:?} has an unknown unit {unit:?}; use ns, us, ms, s, m or h")]
    UnknownUnit {
        /// The flag's value.
        text: String,
        /// The unit in it.
        unit: String,
    },
    /// Negative, or too long to represent.
    #[error("{0:?} is negative or too long for a duration")]
    OutOfRange(String),
}

/// A duration as Go's flags write them (`time.ParseDuration`): numbers with units, summed, as
/// `15s`, `1m30s`, `1.5h` or `500ms` (units `ns`, `us`/`µs`/`μs`, `ms`, `s`, `m`, `h`), at most
/// Go's longest (`2562047h47m16.854775807s`); or, beyond Go, plain seconds, as `30`. Counted in
/// whole nanoseconds as Go counts them: each part's fraction below a nanosecond is dropped.
pub fn parse_duration(text: &str) -> Result<Duration, DurationError> {
    let text = text.trim();
    let malformed = || DurationError::Malformed(text.to_owned());
    let out_of_range = || DurationError::OutOfRange(text.to_owned());
    let (negative, mut rest) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let is_number = |c: char| c.is_ascii_digit() || c == '.';
    if rest.is_empty() {
        return Err(malformed());
    }
    let whole_text = rest.len();
    let mut nanos: u128 = 0;
    while !rest.is_empty() {
        let number_end = rest.find(|c| !is_number(c)).unwrap_or(rest.len());
        let (number, after) = rest.split_at(number_end);
        let unit_end = after.find(is_number).unwrap_or(after.len());
        let (unit, after) = after.split_at(unit_end);
        let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
        // Go requires digits and a unit in every part; a lone number is seconds here.
        let lone = unit.is_empty() && number.len() == whole_text;
        if (whole.is_empty() && fraction.is_empty()) || fraction.contains('.') || (unit.is_empty() && !lone) {
            return Err(malformed());
        }
        let unit_nanos: u128 = match unit {
            "ns" => 1,
            "us" | "µs" | "μs" => 1_000,
            "ms" => 1_000_000,
            "" | "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => {
                return Err(DurationError::UnknownUnit {
                    text: text.to_owned(),
                    unit: unit.to_owned(),
                });
            }
        };
        // Digits only, so a failed parse is an overflow.
        let whole: u128 = if whole.is_empty() {
            0
        } else {
            whole.parse().map_err(|_| out_of_range())?
        };
        let mut part = whole.checked_mul(unit_nanos).ok_or_else(out_of_range)?;
        // Twenty digits are far below a nanosecond of an hour; the product stays in range.
        let fraction = &fraction[..fraction.len().min(20)];
        if !fraction.is_empty() {
            let digits: u128 = fraction.parse().map_err(|_| malformed())?;
            part += digits * unit_nanos / 10u128.pow(fraction.len() as u32);
        }
        nanos = nanos.checked_add(part).ok_or_else(out_of_range)?;
        rest = after;
    }
    if (negative && nanos != 0) || nanos > i64::MAX as u128 {
        return Err(out_of_range());
    }
    Ok(Duration::from_nanos(u64::try_from(nanos).map_err(|_| out_of_range())?))
}

impl Flags {
    /// The probe address: as given, else all interfaces in a cluster and loopback for the demo.
    pub fn probe_address(&self) -> SocketAddr {
        let default = if self.embedded { [127, 0, 0, 1] } else { [0, 0, 0, 0] };
        self.probe_address.unwrap_or(SocketAddr::from((default, 8080)))
    }

    /// This replica's identity: --holder-identity / $POD_NAME, else the hostname with a random
    /// suffix (as client-go's examples do), so two processes on one host differ.
    pub fn identity(&self) -> String {
        if let Some(identity) = self.holder_identity.as_ref().filter(|i| !i.is_empty()) {
            return identity.clone();
        }
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .ok()
            .or_else(|| std::env::var("HOSTNAME").ok())
            .map(|h| h.trim().to_owned())
            .filter(|h| !h.is_empty())
            .unwrap_or_else(|| "controller".to_owned());
        format!("{host}_{}", uuid::Uuid::new_v4())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[test]
    fn durations_should_parse_like_go_flags() {
        let parsed = |text| parse_duration(text);
        assert_eq!(parsed("15s"), Ok(Duration::from_secs(15)));
        assert_eq!(parsed("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parsed("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parsed("1m30s"), Ok(Duration::from_secs(90)));
        assert_eq!(parsed("1.5h"), Ok(Duration::from_secs(5400)));
        assert_eq!(parsed("2h45m10.5s"), Ok(Duration::from_millis(9_910_500)));
        assert_eq!(parsed("300us"), Ok(Duration::from_micros(300)));
        assert_eq!(parsed("300µs"), Ok(Duration::from_micros(300)));
        assert_eq!(parsed("+7s"), Ok(Duration::from_secs(7)));
        assert_eq!(parsed("-0s"), Ok(Duration::ZERO));
        assert_eq!(parsed("30"), Ok(Duration::from_secs(30)), "plain seconds");
        assert_eq!(parsed("+30"), Ok(Duration::from_secs(30)));
        assert_eq!(parsed(".5s"), Ok(Duration::from_millis(500)));
        assert_eq!(
            parsed("1.9ns1.9ns"),
            Ok(Duration::from_nanos(2)),
            "Go drops each part's fraction"
        );
        assert_eq!(parsed("9655.5364h"), Ok(Duration::from_nanos(34_759_931_040_000_000)));
        let longest = Duration::from_nanos(i64::MAX as u64);
        assert_eq!(parsed("2562047h47m16.854775807s"), Ok(longest), "Go's longest");
        let beyond = "2562047h47m16.854775808s";
        assert_eq!(parsed(beyond), Err(DurationError::OutOfRange(beyond.to_owned())));
        for malformed in ["", "soon", "1m30", "s", ".s", "1..5s", "-"] {
            assert_eq!(parsed(malformed), Err(DurationError::Malformed(malformed.to_owned())));
        }
        assert_eq!(
            parsed("5d"),
            Err(DurationError::UnknownUnit {
                text: "5d".to_owned(),
                unit: "d".to_owned()
            })
        );
        assert_eq!(parsed("-1s"), Err(DurationError::OutOfRange("-1s".to_owned())));
        let long = "1".repeat(400) + "h";
        assert_eq!(parsed(&long), Err(DurationError::OutOfRange(long.clone())));
        assert!(
            parsed("5d")
                .unwrap_err()
                .to_string()
                .contains("use ns, us, ms, s, m or h")
        );
    }

    #[test]
    fn flags_should_default_like_the_seeds() {
        let flags = Flags::try_parse_from(["controller", "--holder-identity", "pod-a"]).unwrap();
        assert!(flags.leader_elect);
        assert_eq!(flags.threads, 2);
        assert_eq!(flags.identity(), "pod-a");
        let flags = Flags::try_parse_from(["controller", "--leader-elect=false", "--threads", "4"]).unwrap();
        assert!(!flags.leader_elect);
        assert_eq!(flags.threads, 4);
        assert!(
            Flags::try_parse_from(["controller", "--leader-elect"])
                .unwrap()
                .leader_elect
        );
        assert_eq!(flags.probe_address().to_string(), "0.0.0.0:8080");
        let flags = Flags::try_parse_from(["controller", "--embedded"]).unwrap();
        assert_eq!(flags.probe_address().to_string(), "127.0.0.1:8080");
        assert!(Flags::try_parse_from(["controller", "--threads", "0"]).is_err());
    }
}
