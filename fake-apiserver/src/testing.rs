//! Testing aids of the fake API server, after client-go's fake: recorded actions, reactors that
//! answer in the server's place, and injected faults.

use std::sync::Arc;
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::status::ApiStatus;
use crate::storage::verb::Verb;
use crate::verbs::options::APPLY_PATCH;

/// One request the fake API server received, as client-go's `testing.Action` records it.
#[derive(Clone, Debug, PartialEq)]
pub struct Action {
    /// The verb.
    pub verb: Verb,
    /// API group of the resource (empty for core).
    pub group: String,
    /// API version of the request.
    pub version: String,
    /// Plural resource name, e.g. `foos`.
    pub resource: String,
    /// Subresource, e.g. `status`.
    pub subresource: Option<String>,
    /// Namespace of the request, if any.
    pub namespace: Option<String>,
    /// Object name, for verbs on one object.
    pub name: Option<String>,
    /// The request body: the object of a create or update, the patch document of a patch.
    pub body: Option<Value>,
    /// The `Content-Type` of a patch, e.g. `application/merge-patch+json`.
    pub patch_type: Option<String>,
    /// The `labelSelector` of a list, watch or delete-collection.
    pub label_selector: Option<String>,
    /// The `fieldSelector` of a list, watch or delete-collection.
    pub field_selector: Option<String>,
    /// The client's `User-Agent`, to tell apart the requests of several clients.
    pub user_agent: Option<String>,
}

impl Action {
    /// client-go's `Matches(verb, resource)`: `verb` is a verb or `*`; `resource` is a plural,
    /// `plural/subresource` or `*`.
    pub fn matches(&self, verb: &str, resource: &str) -> bool {
        let verb_ok = verb == "*" || verb == self.verb.as_str();
        let resource_ok = resource == "*"
            || match (resource.split_once('/'), &self.subresource) {
                (Some((plural, sub)), Some(own)) => plural == self.resource && sub == own,
                (None, _) => resource == self.resource,
                (Some(_), None) => false,
            };
        verb_ok && resource_ok
    }

    /// The whole object the request sent: the body of a create or an update, or of a
    /// server-side apply patch; `None` for other requests (a merge or JSON patch sends a patch,
    /// not an object). What a cluster decodes as an object, so what must carry `apiVersion` and
    /// `kind`.
    pub fn sent_object(&self) -> Option<&Value> {
        let whole = match self.verb {
            Verb::Create | Verb::Update => true,
            Verb::Patch => self.patch_type.as_deref() == Some(APPLY_PATCH),
            _ => false,
        };
        self.body.as_ref().filter(|_| whole)
    }

    /// The body decoded as `K` (the object of a create or update), when it decodes.
    pub fn object<K: DeserializeOwned>(&self) -> Option<K> {
        self.body.clone().and_then(|b| serde_json::from_value(b).ok())
    }
}

/// What a reactor answers: an object (sent with 200, or 201 for create) or a failure status.
pub type Reaction = Result<Value, ApiStatus>;

/// A reactor: returns `Some` to answer in the server's place, `None` to pass the request on.
pub type ReactorFn = dyn Fn(&Action) -> Option<Reaction> + Send + Sync;

#[derive(Clone)]
struct Reactor {
    verb: String,
    resource: String,
    react: Arc<ReactorFn>,
}

#[derive(Clone, Debug)]
struct FailRule {
    verb: String,
    resource: String,
    remaining: usize,
    status: ApiStatus,
}

/// Actions, reactors and faults; guarded by the server's testing lock.
#[derive(Default)]
pub(crate) struct Testing {
    pub(crate) record: bool,
    actions: Vec<Action>,
    reactors: Vec<Reactor>,
    faults: Vec<FailRule>,
    pub(crate) latency: Duration,
}

impl Testing {
    pub(crate) fn new(record: bool) -> Self {
        Self {
            record,
            ..Self::default()
        }
    }

    pub(crate) fn record(&mut self, action: &Action) {
        if self.record {
            self.actions.push(action.clone());
        }
    }

    pub(crate) fn actions(&self) -> Vec<Action> {
        self.actions.clone()
    }

    pub(crate) fn clear_actions(&mut self) {
        self.actions.clear();
    }

    pub(crate) fn add_reactor(&mut self, prepend: bool, verb: &str, resource: &str, react: Arc<ReactorFn>) {
        let reactor = Reactor {
            verb: verb.to_owned(),
            resource: resource.to_owned(),
            react,
        };
        if prepend {
            self.reactors.insert(0, reactor);
        } else {
            self.reactors.push(reactor);
        }
    }

    /// The reactors that may answer `action`, in chain order; they run outside the lock.
    pub(crate) fn reactors_for(&self, action: &Action) -> Vec<Arc<ReactorFn>> {
        self.reactors
            .iter()
            .filter(|r| action.matches(&r.verb, &r.resource))
            .map(|r| r.react.clone())
            .collect()
    }

    pub(crate) fn fail_next(&mut self, count: usize, verb: &str, resource: &str, status: ApiStatus) {
        if count > 0 {
            self.faults.push(FailRule {
                verb: verb.to_owned(),
                resource: resource.to_owned(),
                remaining: count,
                status,
            });
        }
    }

    /// The injected failure for `action`, consuming one use of the first matching rule.
    pub(crate) fn take_fault(&mut self, action: &Action) -> Option<ApiStatus> {
        let index = self.faults.iter().position(|f| action.matches(&f.verb, &f.resource))?;
        let rule = &mut self.faults[index];
        rule.remaining -= 1;
        let status = rule.status.clone();
        if rule.remaining == 0 {
            self.faults.remove(index);
        }
        Some(status)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn action(verb: Verb, subresource: Option<&str>) -> Action {
        Action {
            verb,
            group: "apps".into(),
            version: "v1".into(),
            resource: "deployments".into(),
            subresource: subresource.map(str::to_owned),
            namespace: Some("default".into()),
            name: Some("web".into()),
            body: None,
            patch_type: None,
            label_selector: None,
            field_selector: None,
            user_agent: None,
        }
    }

    #[test]
    fn action_should_match_like_client_go() {
        let status_update = action(Verb::Update, Some("status"));
        assert!(status_update.matches("update", "deployments"));
        assert!(status_update.matches("*", "deployments/status"));
        assert!(!status_update.matches("update", "deployments/scale"));
        assert!(!action(Verb::Update, None).matches("update", "deployments/status"));
        assert!(action(Verb::DeleteCollection, None).matches("delete-collection", "*"));
    }

    #[test]
    fn faults_should_fail_exactly_the_next_n_matching_requests() {
        let mut testing = Testing::new(true);
        testing.fail_next(2, "get", "deployments", ApiStatus::internal("boom"));
        assert!(testing.take_fault(&action(Verb::List, None)).is_none());
        assert!(testing.take_fault(&action(Verb::Get, None)).is_some());
        assert!(testing.take_fault(&action(Verb::Get, None)).is_some());
        assert!(testing.take_fault(&action(Verb::Get, None)).is_none());
    }
}
