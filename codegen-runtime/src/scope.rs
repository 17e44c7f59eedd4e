//! Whether a `kube::Resource` type is namespaced, known from its `Scope` at compile time.

/// Tells whether a `kube::Resource::Scope` is namespaced, so types can be registered by type.
pub trait ScopeKind {
    /// True for namespaced resources.
    const NAMESPACED: bool;
}

impl ScopeKind for k8s_openapi::NamespaceResourceScope {
    const NAMESPACED: bool = true;
}

impl ScopeKind for k8s_openapi::ClusterResourceScope {
    const NAMESPACED: bool = false;
}
