//! What kube-apiserver's and kube-controller-manager's controllers do after a write: garbage
//! collection, CRD establishment and cleanup, namespace termination.

pub(crate) mod crd;
pub(crate) mod gc;
