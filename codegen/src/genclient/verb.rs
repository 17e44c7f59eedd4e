//! The verbs of a typed client, in client-gen's order and spelling.

/// A verb of a typed client, in client-gen's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Verb {
    /// `create`.
    Create,
    /// `update`.
    Update,
    /// `updateStatus`.
    UpdateStatus,
    /// `delete`.
    Delete,
    /// `deleteCollection`.
    DeleteCollection,
    /// `get`.
    Get,
    /// `list`.
    List,
    /// `watch`.
    Watch,
    /// `patch`.
    Patch,
    /// `apply`.
    Apply,
    /// `applyStatus`.
    ApplyStatus,
}

impl Verb {
    /// Every verb, in client-gen's `SupportedVerbs` order.
    pub const ALL: [Verb; 11] = [
        Verb::Create,
        Verb::Update,
        Verb::UpdateStatus,
        Verb::Delete,
        Verb::DeleteCollection,
        Verb::Get,
        Verb::List,
        Verb::Watch,
        Verb::Patch,
        Verb::Apply,
        Verb::ApplyStatus,
    ];

    /// The verb as tags write it, e.g. `updateStatus`.
    pub fn tag_name(self) -> &'static str {
        match self {
            Verb::Create => "create",
            Verb::Update => "update",
            Verb::UpdateStatus => "updateStatus",
            Verb::Delete => "delete",
            Verb::DeleteCollection => "deleteCollection",
            Verb::Get => "get",
            Verb::List => "list",
            Verb::Watch => "watch",
            Verb::Patch => "patch",
            Verb::Apply => "apply",
            Verb::ApplyStatus => "applyStatus",
        }
    }

    pub(crate) fn parse(name: &str) -> Option<Verb> {
        Verb::ALL.into_iter().find(|v| v.tag_name() == name)
    }
}
