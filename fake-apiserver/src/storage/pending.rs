//! The work the verbs leave to the controllers. kube-apiserver answers a write before its
//! controllers (and kube-controller-manager's) react to it: a CRD is established, a namespace
//! emptied, dependents collected later. The verbs queue that work here; the lifecycle module
//! runs it after the request was answered.

use std::sync::Arc;

use serde_json::Value;

use crate::storage::resource::ResourceInfo;

/// One reaction to a write, queued until the controllers run.
#[derive(Debug)]
pub(crate) enum Pending {
    /// A CRD was created: serve the resources it defines and report it Established.
    Establish { crd: String, defined: Vec<ResourceInfo> },
    /// An object was written while being deleted: its deletion policy, a CRD's cleanup.
    Marked {
        info: Arc<ResourceInfo>,
        object: Arc<Value>,
    },
    /// An object was removed for good: its dependents, its owners, its namespace, its CRD.
    Removed {
        info: Arc<ResourceInfo>,
        object: Arc<Value>,
    },
    /// A namespace turned Terminating: its contents are deleted.
    EmptyNamespace { name: String },
}

/// The queue, and whether a controller pass is already scheduled to drain it.
#[derive(Debug, Default)]
pub(crate) struct PendingWork {
    queue: Vec<Pending>,
    scheduled: bool,
}

impl PendingWork {
    /// Queues a reaction.
    pub(crate) fn push(&mut self, work: Pending) {
        self.queue.push(work);
    }

    /// Everything queued so far, oldest first.
    pub(crate) fn take(&mut self) -> Vec<Pending> {
        std::mem::take(&mut self.queue)
    }

    /// Whether a pass must be scheduled now: work is queued and none is; marks one scheduled.
    pub(crate) fn schedule(&mut self) -> bool {
        let needed = !self.queue.is_empty() && !self.scheduled;
        self.scheduled |= needed;
        needed
    }

    /// Ends a scheduled pass when nothing is left; `false` when more work came meanwhile.
    pub(crate) fn finish(&mut self) -> bool {
        self.scheduled = !self.queue.is_empty();
        !self.scheduled
    }
}
