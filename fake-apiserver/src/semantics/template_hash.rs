//! The names kube-controller-manager derives from a pod template: `controller.ComputeHash`
//! (`pkg/controller/controller_utils.go`), the `pod-template-hash` of a Deployment's ReplicaSets —
//! FNV-1a (32 bits) of go-spew's print of the template, then of the collision count's four
//! little-endian bytes when there is one, written in decimal and encoded with
//! `rand.SafeEncodeString`; and `history.HashControllerRevision`
//! (`pkg/controller/history/controller_history.go`), a ControllerRevision's — FNV-1 of its data's
//! bytes and the collision count in decimal.

use serde_json::Value;

use crate::semantics::names;
use crate::semantics::{go_spew, go_types};

/// `controller.ComputeHash(template, collisionCount)` as the minor's kube-controller-manager
/// computes it.
pub(crate) fn pod_template_hash(template: &Value, collision_count: Option<i64>, minor: u32) -> String {
    let printed = go_spew::sprint(go_types::pod_template_types(minor), template);
    let mut hash = Fnv1a32::default();
    hash.write(printed.as_bytes());
    if let Some(count) = collision_count {
        // Go converts the int32 to uint32: the bits as they are.
        hash.write(&(count as i32 as u32).to_le_bytes());
    }
    names::safe_encode(hash.sum().to_string().as_bytes())
}

/// Go's `hash/fnv` `New32a`.
pub(crate) struct Fnv1a32(u32);

impl Default for Fnv1a32 {
    fn default() -> Self {
        Self(0x811c_9dc5)
    }
}

impl Fnv1a32 {
    pub(crate) fn write(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.0 ^= u32::from(*byte);
            self.0 = self.0.wrapping_mul(0x0100_0193);
        }
    }

    pub(crate) fn sum(&self) -> u32 {
        self.0
    }
}

/// `HashControllerRevision(revision, &collisionCount)` of a revision whose data is `data`.
pub(crate) fn controller_revision_hash(data: &[u8], collision_count: i64) -> String {
    let mut hash: u32 = 0x811c_9dc5;
    for byte in data.iter().chain(collision_count.to_string().as_bytes()) {
        // FNV-1 multiplies before it mixes the byte in (FNV-1a the other way round).
        hash = hash.wrapping_mul(0x0100_0193);
        hash ^= u32::from(*byte);
    }
    names::safe_encode(hash.to_string().as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Templates as kube-apiserver v1.28.7 stored them, with the hashes kube-controller-manager
    /// v1.28.7 and v1.31.2 compute for them (`controller.ComputeHash` after a protobuf round trip,
    /// run on the Go source of each).
    const CASES: &str = include_str!("../../testdata/pod_template_hashes.json");

    #[test]
    fn pod_template_hash_should_be_kube_controller_managers_on_each_minor() {
        let cases: Vec<Value> = serde_json::from_str(CASES).expect("fixture is JSON");
        for case in &cases {
            for (minor, key) in [(28, "v1_28"), (31, "v1_31")] {
                assert_eq!(
                    pod_template_hash(&case["template"], None, minor),
                    case[key].as_str().expect("hash"),
                    "template {} on 1.{minor}",
                    case["name"]
                );
            }
        }
    }

    #[test]
    fn a_collision_count_should_change_the_hash() {
        let template = serde_json::json!({"metadata": {"labels": {"app": "a"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}});
        assert_ne!(
            pod_template_hash(&template, None, 28),
            pod_template_hash(&template, Some(0), 28)
        );
        assert_ne!(
            pod_template_hash(&template, Some(0), 28),
            pod_template_hash(&template, Some(1), 28)
        );
    }

    #[test]
    fn fnv1a_should_match_gos_known_values() {
        let mut hash = Fnv1a32::default();
        assert_eq!(hash.sum(), 0x811c_9dc5);
        hash.write(b"a");
        assert_eq!(hash.sum(), 0xe40c_292c);
    }
}
