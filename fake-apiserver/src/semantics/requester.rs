//! Who every request comes from. This server authenticates nobody; it answers as
//! kube-apiserver answers the cluster's admin (a static token user, as the corpus was
//! recorded with), where a kind records its requester: a CertificateSigningRequest's
//! `spec.username`, `uid` and `groups`.

/// The requester's user name.
pub(crate) const USERNAME: &str = "admin";
/// The requester's uid.
pub(crate) const UID: &str = "admin";
/// The requester's groups: the cluster admins', and every authenticated user's.
pub(crate) const GROUPS: &[&str] = &["system:masters", "system:authenticated"];
