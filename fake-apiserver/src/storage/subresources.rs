//! The subresources of built-in kinds beyond `/status` and `/scale`, each with its verbs and
//! the kind its requests and answers carry, as kube-apiserver's REST storage registers them
//! (`pkg/registry/core/rest/storage_core.go`, `pkg/registry/certificates/rest`): a pod's
//! `ephemeralcontainers` (the pod itself), a service account's `token` (an
//! `authentication.k8s.io/v1` TokenRequest, create only), a pod's `log` (get only), a
//! namespace's `finalize` (update only), a certificate signing request's `approval`, a pod's
//! `binding` and `eviction` (create only), and the connect subresources (`exec`, `attach`,
//! `portforward` of pods; `proxy` of pods, nodes and services), whose verbs are the HTTP
//! methods their `Connect` handlers take.

use crate::storage::resource::ResourceInfo;
use crate::storage::verb::Verb;

/// A subresource a built-in kind serves besides `/status` and `/scale`.
struct Extra {
    group: &'static str,
    kind: &'static str,
    name: &'static str,
    verbs: &'static [Verb],
}

/// The verbs of a connect subresource that streams (`exec`, `attach`, `portforward`).
const STREAM: &[Verb] = &[Verb::Get, Verb::Create];

/// The verbs of a `proxy` subresource (GET, POST, PUT, PATCH, DELETE).
const PROXY: &[Verb] = &[Verb::Get, Verb::Create, Verb::Update, Verb::Patch, Verb::Delete];

const EXTRAS: &[Extra] = &[
    Extra {
        group: "",
        kind: "Pod",
        name: "attach",
        verbs: STREAM,
    },
    Extra {
        group: "",
        kind: "Pod",
        name: "binding",
        verbs: &[Verb::Create],
    },
    Extra {
        group: "",
        kind: "Pod",
        name: "ephemeralcontainers",
        verbs: Verb::SUBRESOURCE,
    },
    Extra {
        group: "",
        kind: "Pod",
        name: "eviction",
        verbs: &[Verb::Create],
    },
    Extra {
        group: "",
        kind: "Pod",
        name: "exec",
        verbs: STREAM,
    },
    Extra {
        group: "",
        kind: "Pod",
        name: "log",
        verbs: &[Verb::Get],
    },
    Extra {
        group: "",
        kind: "Pod",
        name: "portforward",
        verbs: STREAM,
    },
    Extra {
        group: "",
        kind: "Pod",
        name: "proxy",
        verbs: PROXY,
    },
    Extra {
        group: "",
        kind: "Node",
        name: "proxy",
        verbs: PROXY,
    },
    Extra {
        group: "",
        kind: "Service",
        name: "proxy",
        verbs: PROXY,
    },
    Extra {
        group: "",
        kind: "ServiceAccount",
        name: "token",
        verbs: &[Verb::Create],
    },
    Extra {
        group: "",
        kind: "Namespace",
        name: "finalize",
        verbs: &[Verb::Update],
    },
    Extra {
        group: "certificates.k8s.io",
        kind: "CertificateSigningRequest",
        name: "approval",
        verbs: Verb::SUBRESOURCE,
    },
];

impl ResourceInfo {
    /// The subresources of a built-in kind other than `/status` and `/scale`, with their verbs.
    pub(crate) fn extra_subresources(&self) -> Vec<(&'static str, &'static [Verb])> {
        EXTRAS
            .iter()
            .filter(|extra| self.builtin && extra.group == self.group && extra.kind == self.kind)
            .map(|extra| (extra.name, extra.verbs))
            .collect()
    }

    /// Whether a subresource of that name exists, whatever its verbs (a verb it does not serve
    /// is then 405, not 404).
    pub(crate) fn has_subresource(&self, name: &str) -> bool {
        self.subresources().iter().any(|(served, _)| *served == name)
    }

    /// The group, version and kind a subresource's requests and answers carry: a Scale for
    /// `/scale`, a TokenRequest for `token`, the resource's own kind otherwise (empty group and
    /// version for a built-in kind, as discovery writes them).
    pub(crate) fn subresource_kind(&self, name: &str) -> (&str, &str, &str) {
        match name {
            "scale" => ("autoscaling", "v1", "Scale"),
            "token" if self.builtin => ("authentication.k8s.io", "v1", "TokenRequest"),
            "eviction" if self.builtin => ("policy", "v1", "Eviction"),
            "binding" if self.builtin => ("", "", "Binding"),
            "attach" if self.builtin => ("", "", "PodAttachOptions"),
            "exec" if self.builtin => ("", "", "PodExecOptions"),
            "portforward" if self.builtin => ("", "", "PodPortForwardOptions"),
            "proxy" if self.builtin && self.kind == "Pod" => ("", "", "PodProxyOptions"),
            "proxy" if self.builtin && self.kind == "Node" => ("", "", "NodeProxyOptions"),
            "proxy" if self.builtin && self.kind == "Service" => ("", "", "ServiceProxyOptions"),
            _ if self.builtin => ("", "", &self.kind),
            _ => (&self.group, &self.version, &self.kind),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_kinds_should_list_their_own_subresources() {
        let pods = ResourceInfo::builtin("", "v1", "Pod", "pods").with_status();
        assert_eq!(
            pods.subresources().iter().map(|(name, _)| *name).collect::<Vec<_>>(),
            [
                "status",
                "attach",
                "binding",
                "ephemeralcontainers",
                "eviction",
                "exec",
                "log",
                "portforward",
                "proxy"
            ]
        );
        assert_eq!(pods.subresource_kind("eviction"), ("policy", "v1", "Eviction"));
        assert!(pods.serves(Verb::Get, Some("log")) && !pods.serves(Verb::Update, Some("log")));
        assert!(pods.serves(Verb::Create, Some("exec")) && !pods.serves(Verb::Update, Some("exec")));
        let accounts = ResourceInfo::builtin("", "v1", "ServiceAccount", "serviceaccounts");
        assert!(accounts.serves(Verb::Create, Some("token")) && !accounts.serves(Verb::Get, Some("token")));
        assert_eq!(accounts.subresource_kind("token").2, "TokenRequest");
    }
}
