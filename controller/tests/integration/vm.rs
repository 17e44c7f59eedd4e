//! The VirtualMachine lifecycle through the whole controller (informers, queue, workers) on the
//! in-memory API server with the simulated hypervisor: create → Creating → Active with a server
//! and the finalizer; driver failures; delete → server deleted, finalizer removed, object gone;
//! usage refreshed.

use crate::common;

use std::time::Duration;

use common::{Running, eventually, until, until_gone};
use controller::vm::{FINALIZER, phase};
use generated_example::apis::cloudnative::v1alpha1::{ResourceRequest, VirtualMachine, VirtualMachineSpec};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use kube::api::{DeleteParams, ObjectMeta, Patch, PatchParams, PostParams};

fn vm(name: &str, cpu: &str, memory: &str) -> VirtualMachine {
    VirtualMachine {
        metadata: ObjectMeta {
            name: Some(name.to_owned()),
            namespace: Some("default".to_owned()),
            ..ObjectMeta::default()
        },
        spec: VirtualMachineSpec {
            action: String::new(),
            resource: ResourceRequest {
                cpu: Quantity(cpu.to_owned()),
                memory: Quantity(memory.to_owned()),
                root_disk: None,
            },
        },
        status: None,
        ..Default::default()
    }
}

fn phase_of(vm: &VirtualMachine) -> &str {
    vm.status.as_ref().map_or("", |s| s.phase.as_str())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_virtual_machine_should_go_active_and_be_deleted_with_its_server() {
    let running = Running::start(Duration::from_secs(60));
    running
        .api::<VirtualMachine>()
        .create(&PostParams::default(), &vm("test-vm", "1", "4G"))
        .await
        .unwrap();
    let active = until(&running.api(), "test-vm", "Active", |vm| phase_of(vm) == phase::ACTIVE).await;
    let status = active.status.as_ref().unwrap();
    assert!(status.server.id.starts_with("sim-"), "{status:?}");
    assert_eq!(status.server.state, "ACTIVE");
    assert!(status.server.usage.cpu > 0.0 && status.last_update_time.is_some());
    assert_eq!(active.metadata.finalizers.as_deref(), Some(&[FINALIZER.to_owned()][..]));
    assert_eq!(running.hypervisor.server_names(), ["default/test-vm"]);
    // The finalizer was added by an update of the controller's cached copy, which has no
    // managed fields (its informers strip them): the server kept the creator's.
    let spec_owned = active
        .metadata
        .managed_fields
        .iter()
        .flatten()
        .any(|entry| entry.fields_v1.as_ref().is_some_and(|f| f.0.get("f:spec").is_some()));
    assert!(spec_owned, "{:?}", active.metadata.managed_fields);

    running
        .api::<VirtualMachine>()
        .delete("test-vm", &DeleteParams::default())
        .await
        .unwrap();
    until_gone(&running.api::<VirtualMachine>(), "test-vm").await;
    assert!(
        running.hypervisor.server_names().is_empty(),
        "the server is deleted first"
    );
    // The controller records Deleted after its write lets the object go: the event may
    // follow the deletion the test saw.
    let recorder = &running.recorder;
    let deleted = "Normal Deleted Server deleted".to_owned();
    eventually("the Deleted event", Duration::from_secs(10), || async {
        recorder.events().contains(&deleted).then_some(())
    })
    .await;
    let events = recorder.events();
    assert!(
        events.iter().any(|e| e.starts_with("Normal Created Server sim-")),
        "{events:?}"
    );
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_create_failure_should_be_failed_with_a_reason_and_a_warning_then_retried() {
    let running = Running::start(Duration::from_secs(60));
    running.hypervisor.fail_creates(2, "no capacity on any host");
    running
        .api::<VirtualMachine>()
        .create(&PostParams::default(), &vm("unlucky", "1", "4G"))
        .await
        .unwrap();
    // Two failures, retried with backoff (5 ms, 10 ms), then the server is created.
    until(&running.api(), "unlucky", "Active", |vm| phase_of(vm) == phase::ACTIVE).await;
    let failed: Vec<VirtualMachine> = running
        .server
        .actions()
        .iter()
        .filter(|a| a.matches("update", "virtualmachines"))
        .filter_map(|a| a.object::<VirtualMachine>())
        .filter(|vm| phase_of(vm) == phase::FAILED)
        .collect();
    // Once, or twice when a retry read the cache before the first write reached it (409).
    assert!(
        matches!(failed.len(), 1 | 2),
        "Failed is not rewritten at every retry: {}",
        failed.len()
    );
    assert_eq!(
        failed[0].status.as_ref().unwrap().reason,
        "cannot create the server: no capacity on any host"
    );
    let events = running.recorder.events();
    let warnings = events.iter().filter(|e| e.starts_with("Warning FailedCreate")).count();
    assert_eq!(warnings, 2, "a warning per failed attempt: {events:?}");
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spec_the_driver_cannot_act_on_should_be_failed_without_retries() {
    let running = Running::start(Duration::from_secs(60));
    let vms = running.api::<VirtualMachine>();
    vms.create(&PostParams::default(), &vm("weird", "1", "4 gigs"))
        .await
        .unwrap();
    let failed = until(&vms, "weird", "Failed", |vm| phase_of(vm) == phase::FAILED).await;
    assert!(failed.status.unwrap().reason.contains("\"4 gigs\" is not a quantity"));
    let writes = || {
        running
            .server
            .actions()
            .iter()
            .filter(|a| a.matches("update", "virtualmachines"))
            .count()
    };
    let settled = writes();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(writes(), settled, "no retry loop");
    let events = running.recorder.events();
    assert_eq!(
        events.iter().filter(|e| e.starts_with("Warning FailedCreate")).count(),
        1,
        "{events:?}"
    );
    // Fixing the spec recovers it.
    let fix = serde_json::json!({"spec": {"resource": {"memory": "4G"}}});
    vms.patch("weird", &PatchParams::default(), &Patch::Merge(&fix))
        .await
        .unwrap();
    until(&vms, "weird", "Active", |vm| phase_of(vm) == phase::ACTIVE).await;
    assert_eq!(running.hypervisor.server_names(), ["default/weird"]);
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_delete_failure_should_be_retried_with_backoff_while_the_object_stays() {
    let running = Running::start(Duration::from_secs(60));
    running
        .api::<VirtualMachine>()
        .create(&PostParams::default(), &vm("sticky", "2", "1Gi"))
        .await
        .unwrap();
    until(&running.api(), "sticky", "Active", |vm| phase_of(vm) == phase::ACTIVE).await;
    running.hypervisor.fail_deletes(3, "hypervisor busy");
    running
        .api::<VirtualMachine>()
        .delete("sticky", &DeleteParams::default())
        .await
        .unwrap();
    let terminating = until(&running.api(), "sticky", "Terminating", |vm| {
        phase_of(vm) == phase::TERMINATING
    })
    .await;
    assert!(
        terminating
            .metadata
            .finalizers
            .as_ref()
            .is_some_and(|f| f.contains(&FINALIZER.to_owned()))
    );
    // Three failures back off 5, 10 and 20 ms, then the delete goes through.
    until_gone(&running.api::<VirtualMachine>(), "sticky").await;
    let events = running.recorder.events();
    let failures = events.iter().filter(|e| e.starts_with("Warning FailedDelete")).count();
    assert_eq!(failures, 3, "{events:?}");
    assert!(running.hypervisor.server_names().is_empty());
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn usage_should_be_refreshed_periodically() {
    let running = Running::start(Duration::from_secs(1));
    running
        .api::<VirtualMachine>()
        .create(&PostParams::default(), &vm("busy", "1", "4G"))
        .await
        .unwrap();
    let first = until(&running.api(), "busy", "Active", |vm| phase_of(vm) == phase::ACTIVE).await;
    let first_time = first.status.as_ref().unwrap().last_update_time.clone().unwrap();
    let refreshed = until(&running.api(), "busy", "a refresh", |vm: &VirtualMachine| {
        vm.status
            .as_ref()
            .and_then(|s| s.last_update_time.as_ref())
            .is_some_and(|t| t.0 > first_time.0)
    })
    .await;
    let (before, after) = (first.status.unwrap().server, refreshed.status.unwrap().server);
    assert_eq!(before.id, after.id);
    assert_ne!(before.usage, after.usage, "the simulated usage moves");
    running.stop().await;
}
