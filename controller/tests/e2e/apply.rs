//! Server-side apply through the generated apply configurations: two managers sharing one
//! object, a conflict and its force, extract → modify → apply changing nothing else, and status
//! apply with its own extract.

use codegen_runtime::ApplyOptions;
use generated_example::generated::Clientset;
use generated_example::generated::samplecontroller::v1alpha1::{
    FooApplyConfiguration, FooSpecApplyConfiguration, FooStatusApplyConfiguration, extract_foo, extract_foo_status,
};
use kube::ResourceExt;

use crate::harness::{Env, each_target};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn apply_configurations_should_share_an_object_between_managers() {
    each_target("apply", |env: Env| async move {
        let foos = Clientset::new(env.client.clone())
            .samplecontroller_v1alpha1()
            .foos(&env.namespace);
        let namespace = env.namespace.as_str();

        // The owner creates the Foo by applying its spec and a label.
        let spec = FooSpecApplyConfiguration::default()
            .deployment_name("shared")
            .replicas(2);
        let owner = FooApplyConfiguration::new("shared", namespace)
            .labels([("team", "a")])
            .spec(spec);
        let created = foos.apply(&owner, &ApplyOptions::new("owner")).await.unwrap();
        assert_eq!(created.spec.replicas, Some(2));
        assert_eq!(created.spec.deployment_name, "shared");

        // A second manager applies one label: the owner's fields stay as they are.
        let labeller = FooApplyConfiguration::new("shared", namespace).labels([("audited", "yes")]);
        let labelled = foos.apply(&labeller, &ApplyOptions::new("labeller")).await.unwrap();
        assert_eq!(labelled.labels()["team"], "a");
        assert_eq!(labelled.labels()["audited"], "yes");
        assert_eq!(labelled.spec.replicas, Some(2));

        // A third manager wants other replicas: a conflict naming the field, then force.
        let scaler =
            FooApplyConfiguration::new("shared", namespace).spec(FooSpecApplyConfiguration::default().replicas(3));
        let conflict = foos.apply(&scaler, &ApplyOptions::new("scaler")).await.unwrap_err();
        assert!(
            matches!(conflict, kube::Error::Api(ref s) if s.code == 409 && s.message.contains(".spec.replicas")),
            "{conflict}"
        );
        let forced = foos.apply(&scaler, &ApplyOptions::new("scaler").force()).await.unwrap();
        assert_eq!(forced.spec.replicas, Some(3));

        // The owner reads back what it still owns (replicas went to the scaler), changes its
        // label and applies again: nothing it does not own moves.
        let mine = extract_foo(&forced, "owner").unwrap();
        assert_eq!(mine.name(), "shared");
        assert_eq!(mine.metadata.namespace.as_deref(), Some(namespace));
        let spec = mine.spec.clone().unwrap_or_default();
        assert_eq!(spec.deployment_name.as_deref(), Some("shared"));
        assert_eq!(spec.replicas, None, "the scaler owns replicas now");
        assert!(mine.status.is_none());
        let mine = mine.labels([("team", "b")]);
        let reapplied = foos.apply(&mine, &ApplyOptions::new("owner")).await.unwrap();
        assert_eq!(reapplied.labels()["team"], "b");
        assert_eq!(reapplied.labels()["audited"], "yes");
        assert_eq!(reapplied.spec.replicas, Some(3));
        assert_eq!(
            extract_foo(&reapplied, "owner").unwrap(),
            mine,
            "the round trip is exact"
        );

        // Status goes through /status and is extracted by its own function.
        let status = FooApplyConfiguration::new("shared", namespace)
            .status(FooStatusApplyConfiguration::default().available_replicas(1));
        let with_status = foos
            .apply_status(&status, &ApplyOptions::new("status-writer"))
            .await
            .unwrap();
        assert_eq!(with_status.status.as_ref().map(|s| s.available_replicas), Some(1));
        assert_eq!(with_status.spec.replicas, Some(3));
        let extracted = extract_foo_status(&with_status, "status-writer").unwrap();
        assert_eq!(extracted.status.and_then(|s| s.available_replicas), Some(1));
        assert!(extracted.spec.is_none());
        assert!(extract_foo(&with_status, "status-writer").unwrap().status.is_none());

        // A manager that applied nothing gets the identity alone, as client-go's Extract does.
        let nobody = extract_foo(&with_status, "nobody").unwrap();
        assert_eq!(nobody, FooApplyConfiguration::new("shared", namespace));

        // A configuration that names no object is refused before anything is sent.
        let unnamed = FooApplyConfiguration::new("", namespace);
        let refused = foos.apply(&unnamed, &ApplyOptions::new("owner")).await.unwrap_err();
        assert!(refused.to_string().contains("must be provided to apply"), "{refused}");
    })
    .await;
}
