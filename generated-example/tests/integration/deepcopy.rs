//! The generated `Clone` impls copy every field: a clone equals its original, for any values.

use generated_example::apis::cloudnative::v1alpha1::{
    ResourceRequest, ResourceUsage, ServerStatus, VirtualMachine, VirtualMachineSpec, VirtualMachineStatus,
};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use kube::api::ObjectMeta;
use proptest::prelude::*;

proptest! {
    #[test]
    fn a_generated_clone_should_equal_its_original(
        name in "[a-z]{1,12}",
        labels in proptest::collection::btree_map("[a-z]{1,8}", "[a-z0-9]{0,8}", 0..4),
        action in ".{0,20}",
        cpu in "[0-9]{1,3}",
        phase in prop::option::of("(Creating|Active|Failed)"),
        usage in (0.0f64..100.0, 0.0f64..100.0),
    ) {
        let original = VirtualMachine {
            metadata: ObjectMeta { name: Some(name), labels: Some(labels), ..ObjectMeta::default() },
            spec: VirtualMachineSpec {
                action,
                resource: ResourceRequest { cpu: Quantity(cpu), memory: Quantity("1Gi".into()), root_disk: Some(Quantity("40Gi".into())) },
            },
            status: phase.map(|phase| VirtualMachineStatus {
                phase,
                reason: String::new(),
                server: ServerStatus { id: "id".into(), state: "running".into(), usage: ResourceUsage { cpu: usage.0, memory: usage.1 } },
                last_update_time: None,
            }),
            ..Default::default()
        };
        prop_assert_eq!(original.clone(), original);
    }
}
