//! Every verb of the generated VirtualMachine and Foo clients: create, get, list (label and
//! field selectors, pagination), update, update_status, patch (merge, JSON, apply), apply_status,
//! watch, delete, delete_collection, and a conflict on a stale resourceVersion.

use codegen_runtime::ApplyOptions;
use futures::{StreamExt, TryStreamExt};
use generated_example::apis::samplecontroller::v1alpha1::{Foo, FooStatus};
use generated_example::generated::Clientset;
use generated_example::generated::cloudnative::v1alpha1::{
    ResourceRequestApplyConfiguration, VirtualMachineApplyConfiguration, VirtualMachineSpecApplyConfiguration,
};
use generated_example::generated::samplecontroller::v1alpha1::{FooApplyConfiguration, FooStatusApplyConfiguration};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use kube::ResourceExt;
use kube::api::{DeleteParams, ListParams, Patch, PatchParams, PostParams, WatchEvent, WatchParams};
use serde_json::json;

use crate::common::{foo, vm};
use crate::harness::{Env, each_target};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn virtual_machine_client_verbs_should_follow_the_api_contract() {
    each_target("vm-verbs", |env: Env| async move {
        let vms = Clientset::new(env.client.clone())
            .cloudnative_v1alpha1()
            .virtual_machines(&env.namespace);
        let post = PostParams::default();
        let created = vms.create(&vm("a", &[("tier", "gold")]), &post).await.unwrap();
        assert!(created.uid().is_some() && created.resource_version().is_some());
        for (name, tier) in [("b", "gold"), ("c", "silver"), ("d", "gold"), ("e", "silver")] {
            vms.create(&vm(name, &[("tier", tier)]), &post).await.unwrap();
        }
        assert_eq!(vms.get("a").await.unwrap().uid(), created.uid());
        let missing = vms.get("nope").await.unwrap_err();
        assert!(matches!(missing, kube::Error::Api(ref s) if s.code == 404), "{missing}");

        // Label selector; field selector on metadata.name (served for every CRD).
        let gold = vms.list(&ListParams::default().labels("tier=gold")).await.unwrap();
        let mut names: Vec<String> = gold.iter().map(ResourceExt::name_any).collect();
        names.sort();
        assert_eq!(names, ["a", "b", "d"]);
        let by_name = vms
            .list(&ListParams::default().fields("metadata.name=c"))
            .await
            .unwrap();
        assert_eq!(by_name.items.len(), 1);

        // Pagination: pages of 2 until no continue token, every object once.
        let mut seen = Vec::new();
        let mut params = ListParams::default().limit(2);
        loop {
            let page = vms.list(&params).await.unwrap();
            assert!(page.items.len() <= 2);
            seen.extend(page.items.iter().map(ResourceExt::name_any));
            match page.metadata.continue_.filter(|c| !c.is_empty()) {
                Some(token) => params = params.continue_token(&token),
                None => break,
            }
        }
        seen.sort();
        assert_eq!(seen, ["a", "b", "c", "d", "e"]);

        // Watch from the list's resourceVersion: modifications and deletions arrive in order.
        let list = vms.list(&ListParams::default()).await.unwrap();
        let version = list.metadata.resource_version.unwrap();
        let mut events = vms
            .watch(&WatchParams::default().fields("metadata.name=a"), &version)
            .await
            .unwrap()
            .boxed();

        // Update, then a conflict on the stale resourceVersion.
        let mut stale = created.clone();
        let mut fresh = created.clone();
        fresh.spec.action = "active".into();
        let updated = vms.update(&fresh, &post).await.unwrap();
        assert_eq!(updated.spec.action, "active");
        stale.spec.action = "stale".into();
        let conflict = vms.update(&stale, &post).await.unwrap_err();
        assert!(
            matches!(conflict, kube::Error::Api(ref s) if s.code == 409),
            "{conflict}"
        );

        // Patches: merge, JSON, server-side apply.
        let merged = vms
            .patch(
                "a",
                &PatchParams::default(),
                &Patch::Merge(json!({"metadata": {"labels": {"merged": "yes"}}})),
            )
            .await
            .unwrap();
        assert_eq!(merged.labels()["merged"], "yes");
        let ops: json_patch::Patch = serde_json::from_value(json!([
            {"op": "replace", "path": "/spec/action", "value": "stopped"}
        ]))
        .unwrap();
        let patched = vms
            .patch("a", &PatchParams::default(), &Patch::Json::<()>(ops))
            .await
            .unwrap();
        assert_eq!(patched.spec.action, "stopped");
        let resource = ResourceRequestApplyConfiguration::default()
            .cpu(Quantity("1".into()))
            .memory(Quantity("4G".into()));
        let desired = VirtualMachineApplyConfiguration::new("f", &env.namespace)
            .labels([("tier", "bronze")])
            .spec(
                VirtualMachineSpecApplyConfiguration::default()
                    .action("applied")
                    .resource(resource),
            );
        let applied = vms.apply(&desired, &ApplyOptions::new("e2e")).await.unwrap();
        assert_eq!(applied.spec.action, "applied");
        assert_eq!(applied.labels()["tier"], "bronze");

        // Deletes: one, then a labelled collection.
        vms.delete("a", &DeleteParams::default()).await.unwrap();
        vms.delete_collection(&DeleteParams::default(), &ListParams::default().labels("tier=silver"))
            .await
            .unwrap();
        let left: Vec<String> = vms
            .list(&ListParams::default())
            .await
            .unwrap()
            .iter()
            .map(ResourceExt::name_any)
            .collect();
        assert!(
            !left.contains(&"a".to_owned()) && !left.contains(&"c".to_owned()) && !left.contains(&"e".to_owned()),
            "{left:?}"
        );

        let mut kinds = Vec::new();
        while kinds.last() != Some(&"Deleted") {
            let event = tokio::time::timeout(std::time::Duration::from_secs(30), events.try_next())
                .await
                .expect("watch events arrive")
                .unwrap()
                .expect("the watch stays open");
            kinds.push(match event {
                WatchEvent::Added(_) => "Added",
                WatchEvent::Modified(_) => "Modified",
                WatchEvent::Deleted(_) => "Deleted",
                WatchEvent::Bookmark(_) => continue,
                WatchEvent::Error(e) => panic!("watch error {e:?}"),
            });
        }
        assert_eq!(kinds, ["Modified", "Modified", "Modified", "Deleted"]);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn foo_status_verbs_should_go_through_the_status_subresource() {
    each_target("foo-status", |env: Env| async move {
        let foos = Clientset::new(env.client.clone())
            .samplecontroller_v1alpha1()
            .foos(&env.namespace);
        let post = PostParams::default();
        let mut with_status = foo("web", "web", 2);
        with_status.status = Some(FooStatus { available_replicas: 7 });
        let created = foos.create(&with_status, &post).await.unwrap();
        assert_eq!(
            created.status.as_ref().map_or(0, |s| s.available_replicas),
            0,
            "create ignores status"
        );
        assert_eq!(created.spec.replicas, Some(2));
        let defaulted = foos
            .create(
                &{
                    let mut f = foo("defaulted", "defaulted", 1);
                    f.spec.replicas = None;
                    f
                },
                &post,
            )
            .await
            .unwrap();
        assert_eq!(defaulted.spec.replicas, Some(1), "the CRD's default");
        let invalid = foos.create(&foo("too-many", "too-many", 11), &post).await.unwrap_err();
        assert!(matches!(invalid, kube::Error::Api(ref s) if s.code == 422), "{invalid}");

        let mut status = created.clone();
        status.status = Some(FooStatus { available_replicas: 1 });
        status.spec.replicas = Some(5);
        let updated = foos.update_status(&status, &post).await.unwrap();
        assert_eq!(updated.status.unwrap().available_replicas, 1);
        assert_eq!(updated.spec.replicas, Some(2), "update_status ignores the spec");

        let patched = foos
            .patch_status(
                "web",
                &PatchParams::default(),
                &Patch::Merge(json!({"status": {"availableReplicas": 2}})),
            )
            .await
            .unwrap();
        assert_eq!(patched.status.unwrap().available_replicas, 2);
        let desired = FooApplyConfiguration::new("web", &env.namespace)
            .status(FooStatusApplyConfiguration::default().available_replicas(3));
        let applied = foos
            .apply_status(&desired, &ApplyOptions::new("e2e").force())
            .await
            .unwrap();
        assert_eq!(applied.status.unwrap().available_replicas, 3);
        let fetched: Foo = foos.get("web").await.unwrap();
        assert_eq!(fetched.status.unwrap().available_replicas, 3);
    })
    .await;
}
