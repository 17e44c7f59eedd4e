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

/// `30s`, `2m`, `1h`, `1500ms` or plain seconds.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| format!("{text:?} is not a duration; write e.g. 15s, 2m or 500ms"))?;
    let seconds = match unit {
        "" | "s" => value,
        "ms" => value / 1000.0,
        "m" => value * 60.0,
        "h" => value * 3600.0,
        _ => return Err(format!("{text:?} has an unknown unit {unit:?}; use ms, s, m or h")),
    };
    Duration::try_from_secs_f64(seconds).map_err(|e| format!("{text:?} is not a duration: {e}"))
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
        assert_eq!(parse_duration("15s"), Ok(Duration::from_secs(15)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert!(parse_duration("soon").unwrap_err().contains("not a duration"));
        assert!(parse_duration("5d").unwrap_err().contains("unknown unit"));
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
