//! kube-runtime's event recorder against the in-memory API server, through the crate's trait.

use codegen_runtime::events::{Event, EventRecorder, EventType, Recorder, Reporter};
use fake_apiserver::{FakeApiServer, Verb};
use k8s_openapi::api::core::v1::ObjectReference;
use k8s_openapi::api::events::v1::Event as EventsV1Event;
use kube::api::{Api, ListParams};

#[tokio::test]
async fn recorder_should_create_then_patch_a_series() {
    let server = FakeApiServer::new();
    let reporter = Reporter {
        controller: "sample-controller".into(),
        instance: Some("pod-1".into()),
    };
    let recorder: Box<dyn EventRecorder> = Box::new(Recorder::new(server.client(), reporter));
    let regarding = ObjectReference {
        api_version: Some("samplecontroller.k8s.io/v1alpha1".into()),
        kind: Some("Foo".into()),
        name: Some("example-foo".into()),
        namespace: Some("default".into()),
        uid: Some("1234".into()),
        ..ObjectReference::default()
    };
    let synced = Event {
        type_: EventType::Normal,
        reason: "Synced".into(),
        note: Some("Foo synced successfully".into()),
        action: "Reconciling".into(),
        secondary: None,
    };
    recorder.publish(&synced, &regarding).await.unwrap();
    recorder.publish(&synced, &regarding).await.unwrap();

    let events: Api<EventsV1Event> = Api::namespaced(server.client(), "default");
    let stored = events.list(&ListParams::default()).await.unwrap().items;
    assert_eq!(stored.len(), 1, "a repeat becomes a series, not a second event");
    assert_eq!(stored[0].reason.as_deref(), Some("Synced"));
    assert_eq!(stored[0].series.as_ref().map(|s| s.count), Some(2));
    let verbs: Vec<Verb> = server
        .actions()
        .iter()
        .filter(|a| a.resource == "events")
        .map(|a| a.verb)
        .collect();
    assert_eq!(verbs, [Verb::Create, Verb::Patch, Verb::List]);
}
