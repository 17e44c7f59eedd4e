//! The subresources of built-in kinds beyond `/status` and `/scale`, each with its verbs and
//! the kind its requests and answers carry, as kube-apiserver's REST storage registers them
//! (`pkg/registry/core/rest/storage_core.go`, `pkg/registry/certificates/rest`): a pod's
//! `ephemeralcontainers` (the pod itself), a service account's `token` (an
//! `authentication.k8s.io/v1` TokenRequest, create only), a pod's `log` (get only), a
//! namespace's `finalize` (update only), a certificate signing request's `approval`.

use crate::storage::resource::ResourceInfo;
use crate::storage::verb::Verb;

/// A subresource a built-in kind serves besides `/status` and `/scale`.
struct Extra {
    group: &'static str,
    kind: &'static str,
    name: &'static str,
    verbs: &'static [Verb],
}

const EXTRAS: &[Extra] = &[
    Extra {
        group: "",
        kind: "Pod",
        name: "ephemeralcontainers",
        verbs: Verb::SUBRESOURCE,
    },
    Extra {
        group: "",
        kind: "Pod",
        name: "log",
        verbs: &[Verb::Get],
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
            ["status", "ephemeralcontainers", "log"]
        );
        assert!(pods.serves(Verb::Get, Some("log")) && !pods.serves(Verb::Update, Some("log")));
        assert!(!pods.has_subresource("exec"), "no kubelet, no exec");
        let accounts = ResourceInfo::builtin("", "v1", "ServiceAccount", "serviceaccounts");
        assert!(accounts.serves(Verb::Create, Some("token")) && !accounts.serves(Verb::Get, Some("token")));
        assert_eq!(accounts.subresource_kind("token").2, "TokenRequest");
    }
}
