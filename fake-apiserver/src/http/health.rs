//! kube-apiserver's health endpoints (`apiserver/pkg/server/healthz/healthz.go`,
//! `handleRootHealth` and `adaptCheckToHandler`): `/healthz`, `/livez` and `/readyz` run their
//! checks (here: all pass) and answer `ok`, or with `verbose` one line a check and the verdict;
//! `exclude` names checks to skip, warning about names it does not know; each check also has a
//! path of its own (`/readyz/etcd`). The checks are those a kube-apiserver of the minor runs
//! with the flags `shared/realapi` starts it with, in its order.

/// The checks of `/healthz` and `/livez` on 1.28: the defaults, then the post-start hooks as
/// the servers of the aggregation chain register them.
const CHECKS_28: [&str; 31] = [
    "ping",
    "log",
    "etcd",
    "poststarthook/start-kube-apiserver-admission-initializer",
    "poststarthook/generic-apiserver-start-informers",
    "poststarthook/priority-and-fairness-config-consumer",
    "poststarthook/priority-and-fairness-filter",
    "poststarthook/storage-object-count-tracker-hook",
    "poststarthook/start-apiextensions-informers",
    "poststarthook/start-apiextensions-controllers",
    "poststarthook/crd-informer-synced",
    "poststarthook/start-service-ip-repair-controllers",
    "poststarthook/rbac/bootstrap-roles",
    "poststarthook/scheduling/bootstrap-system-priority-classes",
    "poststarthook/priority-and-fairness-config-producer",
    "poststarthook/start-system-namespaces-controller",
    "poststarthook/bootstrap-controller",
    "poststarthook/start-cluster-authentication-info-controller",
    "poststarthook/start-kube-apiserver-identity-lease-controller",
    "poststarthook/start-deprecated-kube-apiserver-identity-lease-garbage-collector",
    "poststarthook/start-kube-apiserver-identity-lease-garbage-collector",
    "poststarthook/start-legacy-token-tracking-controller",
    "poststarthook/aggregator-reload-proxy-client-cert",
    "poststarthook/start-kube-aggregator-informers",
    "poststarthook/apiservice-registration-controller",
    "poststarthook/apiservice-status-available-controller",
    "poststarthook/kube-apiserver-autoregistration",
    "autoregister-completion",
    "poststarthook/apiservice-openapi-controller",
    "poststarthook/apiservice-openapiv3-controller",
    "poststarthook/apiservice-discovery-controller",
];

/// The same from 1.31: the admission initializer renamed, the controllers of the peer
/// endpoints and the split availability controller added, the deprecated lease collector gone.
const CHECKS_31: [&str; 31] = [
    "ping",
    "log",
    "etcd",
    "poststarthook/start-apiserver-admission-initializer",
    "poststarthook/generic-apiserver-start-informers",
    "poststarthook/priority-and-fairness-config-consumer",
    "poststarthook/priority-and-fairness-filter",
    "poststarthook/storage-object-count-tracker-hook",
    "poststarthook/start-apiextensions-informers",
    "poststarthook/start-apiextensions-controllers",
    "poststarthook/crd-informer-synced",
    "poststarthook/start-system-namespaces-controller",
    "poststarthook/start-cluster-authentication-info-controller",
    "poststarthook/start-kube-apiserver-identity-lease-controller",
    "poststarthook/start-kube-apiserver-identity-lease-garbage-collector",
    "poststarthook/start-legacy-token-tracking-controller",
    "poststarthook/start-service-ip-repair-controllers",
    "poststarthook/rbac/bootstrap-roles",
    "poststarthook/scheduling/bootstrap-system-priority-classes",
    "poststarthook/priority-and-fairness-config-producer",
    "poststarthook/bootstrap-controller",
    "poststarthook/aggregator-reload-proxy-client-cert",
    "poststarthook/start-kube-aggregator-informers",
    "poststarthook/apiservice-status-local-available-controller",
    "poststarthook/apiservice-status-remote-available-controller",
    "poststarthook/apiservice-registration-controller",
    "poststarthook/apiservice-discovery-controller",
    "poststarthook/kube-apiserver-autoregistration",
    "autoregister-completion",
    "poststarthook/apiservice-openapi-controller",
    "poststarthook/apiservice-openapiv3-controller",
];

/// Which of the three endpoints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Endpoint {
    Healthz,
    Livez,
    Readyz,
}

impl Endpoint {
    /// The endpoint a path's first segment names.
    pub(crate) fn of(segment: &str) -> Option<Self> {
        match segment {
            "healthz" => Some(Self::Healthz),
            "livez" => Some(Self::Livez),
            "readyz" => Some(Self::Readyz),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::Healthz => "healthz",
            Self::Livez => "livez",
            Self::Readyz => "readyz",
        }
    }

    /// The endpoint's checks on a server of `minor`: readiness also waits for etcd's
    /// readiness and the informers, and reports shutdown last.
    fn checks(self, minor: u32) -> Vec<&'static str> {
        let mut checks = if minor >= 31 {
            CHECKS_31.to_vec()
        } else {
            CHECKS_28.to_vec()
        };
        if self == Self::Readyz {
            checks.splice(3..3, ["etcd-readiness", "informer-sync"]);
            checks.push("shutdown");
        }
        checks
    }

    /// Whether `check` has a path of its own under the endpoint.
    pub(crate) fn has_check(self, check: &str, minor: u32) -> bool {
        self.checks(minor).contains(&check)
    }

    /// The body of the endpoint's own path for `raw_query`.
    pub(crate) fn answer(self, raw_query: Option<&str>, minor: u32) -> String {
        let mut verbose = false;
        let mut excluded: Vec<String> = Vec::new();
        for (key, value) in form_urlencoded::parse(raw_query.unwrap_or_default().as_bytes()) {
            match key.as_ref() {
                "verbose" => verbose = true,
                "exclude" => excluded.push(value.into_owned()),
                _ => {}
            }
        }
        if !verbose {
            return "ok".to_owned();
        }
        let mut out = String::new();
        for check in self.checks(minor) {
            let before = excluded.len();
            excluded.retain(|name| name != check);
            if excluded.len() < before {
                out.push_str(&format!("[+]{check} excluded: ok\n"));
            } else {
                out.push_str(&format!("[+]{check} ok\n"));
            }
        }
        if !excluded.is_empty() {
            excluded.sort();
            excluded.dedup();
            let quoted: Vec<String> = excluded.iter().map(|name| format!("{name:?}")).collect();
            out.push_str(&format!(
                "warn: some health checks cannot be excluded: no matches for {}\n",
                quoted.join(", ")
            ));
        }
        out.push_str(&format!("{} check passed\n", self.name()));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verbose_should_list_every_check_and_excluded_ones() {
        let answer = Endpoint::Readyz.answer(Some("verbose&exclude=etcd&exclude=nothing"), 31);
        assert!(answer.starts_with("[+]ping ok\n[+]log ok\n[+]etcd excluded: ok\n[+]etcd-readiness ok\n"));
        assert!(answer.ends_with(
            "[+]shutdown ok\nwarn: some health checks cannot be excluded: no matches for \"nothing\"\nreadyz check passed\n"
        ));
        assert_eq!(Endpoint::Healthz.answer(Some("exclude=nothing"), 28), "ok");
    }

    #[test]
    fn each_check_should_have_its_path() {
        assert!(Endpoint::Healthz.has_check("etcd", 28));
        assert!(Endpoint::Readyz.has_check("informer-sync", 31));
        assert!(!Endpoint::Livez.has_check("informer-sync", 31));
        assert!(Endpoint::Healthz.has_check("poststarthook/rbac/bootstrap-roles", 28));
    }
}
