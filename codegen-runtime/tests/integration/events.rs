//! The event recorders against the in-memory API server, through the crate's trait: repeats
//! become a series, as with kube-runtime's `Recorder`, until the series window has passed.

use std::time::Duration;

use codegen_runtime::events::{Event, EventRecorder, EventType, Recorder, Reporter, SeriesRecorder};
use fake_apiserver::{FakeApiServer, Verb};
use k8s_openapi::api::core::v1::ObjectReference;
use k8s_openapi::api::events::v1::Event as EventsV1Event;
use kube::api::{Api, ListParams};

fn reporter() -> Reporter {
    Reporter {
        controller: "sample-controller".into(),
        instance: Some("pod-1".into()),
    }
}

fn regarding() -> ObjectReference {
    ObjectReference {
        api_version: Some("samplecontroller.k8s.io/v1alpha1".into()),
        kind: Some("Foo".into()),
        name: Some("example-foo".into()),
        namespace: Some("default".into()),
        uid: Some("1234".into()),
        ..ObjectReference::default()
    }
}

fn synced() -> Event {
    Event {
        type_: EventType::Normal,
        reason: "Synced".into(),
        note: Some("Foo synced successfully".into()),
        action: "Reconciling".into(),
        secondary: None,
    }
}

/// Publishes the Synced event twice and checks one event with a series of 2 was stored.
async fn a_repeat_should_become_a_series(server: &FakeApiServer, recorder: &dyn EventRecorder) {
    recorder.publish(&synced(), &regarding()).await.unwrap();
    recorder.publish(&synced(), &regarding()).await.unwrap();

    let events: Api<EventsV1Event> = Api::namespaced(server.client(), "default");
    let stored = events.list(&ListParams::default()).await.unwrap().items;
    assert_eq!(stored.len(), 1, "a repeat becomes a series, not a second event");
    assert_eq!(stored[0].reason.as_deref(), Some("Synced"));
    assert_eq!(stored[0].series.as_ref().map(|s| s.count), Some(2));
    assert_eq!(stored[0].reporting_instance.as_deref(), Some("pod-1"));
    let verbs: Vec<Verb> = server
        .actions()
        .iter()
        .filter(|a| a.resource == "events")
        .map(|a| a.verb)
        .collect();
    assert_eq!(verbs, [Verb::Create, Verb::Patch, Verb::List]);
}

#[tokio::test]
async fn kube_runtimes_recorder_should_create_then_patch_a_series() {
    let server = FakeApiServer::new();
    a_repeat_should_become_a_series(&server, &Recorder::new(server.client(), reporter())).await;
}

#[tokio::test]
async fn the_series_recorder_should_create_then_patch_a_series() {
    let server = FakeApiServer::new();
    a_repeat_should_become_a_series(&server, &SeriesRecorder::new(server.client(), reporter())).await;
}

#[tokio::test(start_paused = true)]
async fn a_repeat_after_the_series_window_should_be_a_new_event() {
    let server = FakeApiServer::new();
    let recorder = SeriesRecorder::new(server.client(), reporter());
    recorder.publish(&synced(), &regarding()).await.unwrap();
    // The 6-minute window passes (the cache is also aged meanwhile).
    tokio::time::sleep(Duration::from_secs(7 * 60)).await;
    recorder.publish(&synced(), &regarding()).await.unwrap();
    let events: Api<EventsV1Event> = Api::namespaced(server.client(), "default");
    let stored = events.list(&ListParams::default()).await.unwrap().items;
    assert_eq!(stored.len(), 2, "the window has passed: a new event");
    assert!(stored.iter().all(|e| e.series.is_none()));
}

/// An event about an object whose name would make `<name>.<hex>` no valid name (kube-apiserver
/// refuses names over 253 characters) is named by a UUID instead, and still grows a series.
#[tokio::test]
async fn an_event_about_an_object_with_a_long_name_should_be_stored() {
    let server = FakeApiServer::new();
    let recorder = SeriesRecorder::new(server.client(), reporter());
    let long = ObjectReference {
        name: Some("f".repeat(250)),
        ..regarding()
    };
    recorder.publish(&synced(), &long).await.unwrap();
    recorder.publish(&synced(), &long).await.unwrap();
    let events: Api<EventsV1Event> = Api::namespaced(server.client(), "default");
    let stored = events.list(&ListParams::default()).await.unwrap().items;
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0].series.as_ref().map(|s| s.count), Some(2));
}

/// A series whose event was deleted meanwhile (`kubectl delete events`) is written again, with
/// its count, as client-go's recorder does, instead of failing until its window has passed.
#[tokio::test]
async fn a_series_whose_event_was_deleted_should_be_written_again() {
    let server = FakeApiServer::new();
    let recorder = SeriesRecorder::new(server.client(), reporter());
    recorder.publish(&synced(), &regarding()).await.unwrap();
    let events: Api<EventsV1Event> = Api::namespaced(server.client(), "default");
    events
        .delete_collection(&Default::default(), &ListParams::default())
        .await
        .unwrap();
    recorder.publish(&synced(), &regarding()).await.unwrap();
    let stored = events.list(&ListParams::default()).await.unwrap().items;
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0].series.as_ref().map(|s| s.count), Some(2));
}
