//! The generated informer factory and listers against the server: a namespaced factory sees
//! objects created, updated and deleted, the lister answers from the cache, and a subscription
//! gets the notifications in order.

use codegen_runtime::Notification;
use futures::StreamExt;
use generated_example::generated::{Clientset, SharedInformerFactory};
use kube::ResourceExt;
use kube::api::{DeleteParams, Patch, PatchParams, PostParams};
use kube::core::Selector;
use serde_json::json;

use crate::common::vm;
use crate::harness::{Env, each_target, eventually};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn informers_and_listers_should_see_create_update_and_delete() {
    each_target("informers", |env: Env| async move {
        let clientset = Clientset::new(env.client.clone());
        let vms = clientset.cloudnative_v1alpha1().virtual_machines(&env.namespace);
        vms.create(&vm("before", &[]), &PostParams::default()).await.unwrap();
        let factory = SharedInformerFactory::builder(&clientset)
            .namespace(&env.namespace)
            .build();
        let informer = factory.cloudnative().v1alpha1().virtual_machines();
        let lister = informer.lister();
        let mut notifications = informer.informer().subscribe();
        factory.start();
        factory.inner().wait_for_cache_sync().await;
        let cached = lister.virtual_machines(&env.namespace).get("before").unwrap();
        assert_eq!(cached.name_any(), "before");

        vms.create(&vm("after", &[("app", "x")]), &PostParams::default())
            .await
            .unwrap();
        let patch = json!({"spec": {"action": "stopped"}});
        vms.patch("after", &PatchParams::default(), &Patch::Merge(&patch))
            .await
            .unwrap();
        let namespaced = lister.virtual_machines(&env.namespace);
        eventually("the update in the cache", || {
            let found = namespaced.get("after").ok().filter(|vm| vm.spec.action == "stopped");
            async move { found }
        })
        .await;
        let selected = namespaced.list(&Selector::from_iter([("app", "x")]));
        assert_eq!(selected.len(), 1);
        vms.delete("after", &DeleteParams::default()).await.unwrap();
        eventually("the delete in the cache", || {
            let gone = namespaced.get("after").is_err().then_some(());
            async move { gone }
        })
        .await;

        // The subscription saw: add(before), add(after), update(after), delete(after).
        let mut seen = Vec::new();
        while seen.len() < 4 {
            let next = tokio::time::timeout(std::time::Duration::from_secs(30), notifications.next())
                .await
                .expect("notifications arrive")
                .expect("the informer runs");
            seen.push(match next {
                Notification::Add { object, .. } => format!("add {}", object.name_any()),
                Notification::Update { new, .. } => format!("update {}", new.name_any()),
                Notification::Delete(deleted) => format!("delete {}", deleted.object().name_any()),
            });
        }
        assert_eq!(seen, ["add before", "add after", "update after", "delete after"]);
        factory.inner().shutdown().await;
    })
    .await;
}
