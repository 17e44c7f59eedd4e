//! The Kubernetes verbs, named as client-go's recorded actions and as discovery name them.

/// The Kubernetes verb of a resource request, named as client-go's recorded actions name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Verb {
    /// GET of one object.
    Get,
    /// GET of a collection.
    List,
    /// GET of a collection with `watch=true`.
    Watch,
    /// POST.
    Create,
    /// PUT.
    Update,
    /// PATCH (including server-side apply).
    Patch,
    /// DELETE of one object.
    Delete,
    /// DELETE of a collection.
    DeleteCollection,
}

impl Verb {
    /// The verb as client-go and RBAC write it (`delete-collection` as client-go's actions do).
    pub fn as_str(self) -> &'static str {
        match self {
            Verb::Get => "get",
            Verb::List => "list",
            Verb::Watch => "watch",
            Verb::Create => "create",
            Verb::Update => "update",
            Verb::Patch => "patch",
            Verb::Delete => "delete",
            Verb::DeleteCollection => "delete-collection",
        }
    }

    /// The verb as discovery documents and RBAC rules write it (`deletecollection`).
    pub fn discovery_name(self) -> &'static str {
        match self {
            Verb::DeleteCollection => "deletecollection",
            other => other.as_str(),
        }
    }

    /// The HTTP method of requests with this verb.
    pub fn http_method(self) -> &'static str {
        match self {
            Verb::Get | Verb::List | Verb::Watch => "GET",
            Verb::Create => "POST",
            Verb::Update => "PUT",
            Verb::Patch => "PATCH",
            Verb::Delete | Verb::DeleteCollection => "DELETE",
        }
    }

    /// Whether the verb acts on a collection rather than one object.
    pub fn on_collection(self) -> bool {
        matches!(self, Verb::List | Verb::Watch | Verb::Create | Verb::DeleteCollection)
    }

    /// Every verb, the set a resource serves unless its table entry says otherwise.
    pub const ALL: &'static [Verb] = &[
        Verb::Get,
        Verb::List,
        Verb::Watch,
        Verb::Create,
        Verb::Update,
        Verb::Patch,
        Verb::Delete,
        Verb::DeleteCollection,
    ];

    /// The verbs of the `/status` and `/scale` subresources.
    pub const SUBRESOURCE: &'static [Verb] = &[Verb::Get, Verb::Update, Verb::Patch];
}
