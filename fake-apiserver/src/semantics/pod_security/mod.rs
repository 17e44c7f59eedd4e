//! The Pod Security Standards (`k8s.io/pod-security-admission`): a namespace's policy from its
//! labels (`policy`) and the checks of each level and version a pod (or a pod template) is
//! evaluated against (`policy/registry.go`, `policy/checks.go`, `policy/check_*.go`).

pub(crate) mod policy;

pub(crate) use policy::{Level, LevelVersion, Policy, Version};
