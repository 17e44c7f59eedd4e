//! Tests of one-pass page and watch-line decoding.

use std::sync::Arc;

use bytes::Bytes;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::FieldsV1;
use serde_json::json;

use super::event::{decode_event, decode_events_fast};
use super::page::decode_page_fast;
use super::*;
use crate::cache::decode::Lenient;

fn names(items: &[Lenient<ConfigMap>]) -> Vec<String> {
    items
        .iter()
        .map(|item| match item {
            Lenient::Decoded(cm) => cm.metadata.name.clone().unwrap_or_default(),
            Lenient::Failed { metadata, .. } => format!("failed:{}", metadata.name.clone().unwrap_or_default()),
        })
        .collect()
}

#[test]
fn a_page_should_decode_in_one_pass_or_object_by_object() {
    // Each object comes in an `Arc` of its own, which a transform can change without a copy.
    let name = |mut cm: Arc<ConfigMap>| {
        assert!(Arc::get_mut(&mut cm).is_some(), "an object was handed over shared");
        cm.metadata.name.clone().unwrap_or_default()
    };
    let page = br#"{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"7","continue":"c"},
        "items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"},"data":{"k":"v"}}]}"#;
    let (mut items, mut failures) = (Vec::new(), Vec::new());
    let meta = decode_page(page, ManagedFields::Decode, &mut items, &mut failures, name).unwrap();
    assert_eq!(
        (meta.resource_version.as_deref(), meta.continue_.as_deref()),
        (Some("7"), Some("c"))
    );
    assert_eq!(
        (items.as_slice(), failures.len()),
        (["a".to_owned(), "b".to_owned()].as_slice(), 0)
    );

    let bad = br#"{"metadata":{"resourceVersion":"8"},"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"},"data":7},{"metadata":{"name":"c"}}]}"#;
    let mut items = vec!["earlier".to_owned()];
    decode_page(bad, ManagedFields::Decode, &mut items, &mut failures, name).unwrap();
    assert_eq!(items, ["earlier", "a", "c"], "the earlier item kept, the page once");
    assert_eq!(names(&failures), ["failed:b"]);
    assert_eq!(continue_token(page).as_deref(), Some("c"));
    assert_eq!(continue_token(bad), None);
    let empty = br#"{"metadata":{"resourceVersion":"9"},"items":null}"#;
    assert!(decode_page(empty, ManagedFields::Decode, &mut Vec::new(), &mut failures, name).is_ok());
}

#[test]
fn the_fast_path_should_read_pages_as_serde_json_does() {
    let page = r#"{"metadata":{"resourceVersion":"5"},"items":[
        {"metadata":{"name":"\u00e9t\u00e9","labels":{"a/b":"x\"y\\z"},"annotations":{"n":"日本語 ✓ \ud83d\ude00"}},
         "data":{"k":"line\nnext\t"},"binaryData":{"b":"AAEC"}},
        {"metadata":{"name":"plain","generation":9007199254740993,"creationTimestamp":"2026-11-25T10:00:00Z"},"immutable":true}]}"#;
    // Each object of `page` through the fast path, which must take every one.
    let fast = |managed_fields: ManagedFields| -> Vec<ConfigMap> {
        let mut objects = Vec::new();
        decode_page_fast::<ConfigMap>(page.as_bytes(), managed_fields, &mut |object| match object {
            Lenient::Decoded(object) => objects.push(Arc::unwrap_or_clone(object)),
            Lenient::Failed { error, .. } => panic!("{error}"),
        })
        .unwrap();
        objects
    };
    let reference: serde_json::Value = serde_json::from_str(page).unwrap();
    let expected: Vec<ConfigMap> = serde_json::from_value(reference["items"].clone()).unwrap();
    let (fast, skipping) = (fast(ManagedFields::Decode), fast(ManagedFields::Skip));
    assert_eq!(fast, expected);
    // The same through the wrapper that skips managed fields (these objects have none).
    assert_eq!(skipping, expected, "read alike through the skipping wrapper");
    assert_eq!(
        fast[1].metadata.generation,
        Some(9_007_199_254_740_993),
        "integers are not read as floats"
    );

    // A truncated page fails on the lenient path, in serde_json's words.
    let (mut items, mut failures) = (Vec::new(), Vec::new());
    let error = decode_page::<ConfigMap, _>(
        &page.as_bytes()[..60],
        ManagedFields::Decode,
        &mut items,
        &mut failures,
        |o| o,
    )
    .unwrap_err();
    assert!(error.is_eof(), "{error}");
    assert!(items.is_empty() && failures.is_empty());
}

/// One watch line decoded as the informer decodes it when it keeps every object whole.
fn event(line: &'static [u8]) -> Result<WireEvent<ConfigMap>, serde_json::Error> {
    decode_event(&Bytes::from_static(line), ManagedFields::Decode)
}

#[test]
fn events_should_decode_whatever_the_key_order() {
    let modified = br#"{"type":"MODIFIED","object":{"metadata":{"name":"a","resourceVersion":"3"}}}"#;
    assert!(matches!(
        event(modified).unwrap(),
        WireEvent::Modified(Lenient::Decoded(cm)) if Arc::strong_count(&cm) == 1
    ));
    let reversed = br#"{"object":{"metadata":{"name":"a"},"data":1},"type":"DELETED"}"#;
    assert!(matches!(
        event(reversed).unwrap(),
        WireEvent::Deleted(Lenient::Failed { .. })
    ));
    let bookmark = br#"{"type":"BOOKMARK","object":{"kind":"ConfigMap","metadata":{"resourceVersion":"12","annotations":{"k8s.io/initial-events-end":"true"}}}}"#;
    match event(bookmark).unwrap() {
        WireEvent::Bookmark {
            resource_version,
            initial_events_end,
        } => {
            assert_eq!((resource_version.as_str(), initial_events_end), ("12", true));
        }
        _ => panic!("not a bookmark"),
    }
    let expired = br#"{"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired","message":"too old"}}"#;
    assert!(matches!(event(expired).unwrap(), WireEvent::Error(status) if status.code == 410));
    // A type of a later API is skipped, whether its object comes after it or before.
    for unknown in [
        &br#"{"type":"RENAMED","object":{"metadata":{"name":"a"},"data":{"k":[1]}}}"#[..],
        br#"{"object":{"metadata":{"name":"a"},"data":7},"type":"RENAMED"}"#,
    ] {
        assert!(matches!(event(unknown).unwrap(), WireEvent::Unknown(kind) if kind == "RENAMED"));
    }
    assert!(event(b"{\"type\":\"ADDED\"").is_err());
}

#[test]
fn a_run_of_lines_should_decode_as_its_lines_do() {
    let lines: Vec<Bytes> = [
        r#"{"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"3"},"data":{"k":"\u00e9"}}}"#,
        r#"{"type":"ADDED","object":{"metadata":{"name":"b","resourceVersion":"4"}}}"#,
        r#"{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"4","annotations":{"k8s.io/initial-events-end":"true"}}}}"#,
        r#"{"type":"DELETED","object":{"metadata":{"name":"a","resourceVersion":"5"}}}"#,
    ]
    .into_iter()
    .map(|line| Bytes::from_static(line.as_bytes()))
    .collect();
    let summary = |events: Vec<Result<WireEvent<ConfigMap>, serde_json::Error>>| -> Vec<String> {
        events
            .into_iter()
            .map(|event| match event {
                Ok(WireEvent::Added(Lenient::Decoded(cm))) => {
                    format!("added {}", cm.metadata.name.as_deref().unwrap_or_default())
                }
                Ok(WireEvent::Added(Lenient::Failed { metadata, .. })) => {
                    format!("misfit {}", metadata.name.unwrap_or_default())
                }
                Ok(WireEvent::Deleted(_)) => "deleted".to_owned(),
                Ok(WireEvent::Bookmark {
                    resource_version,
                    initial_events_end,
                }) => format!("bookmark {resource_version} {initial_events_end}"),
                Ok(_) => "other".to_owned(),
                Err(error) => format!("error {error}"),
            })
            .collect()
    };
    let one_by_one = summary(
        lines
            .iter()
            .map(|line| decode_event(line, ManagedFields::Decode))
            .collect(),
    );
    assert_eq!(one_by_one, ["added a", "added b", "bookmark 4 true", "deleted"]);
    assert!(
        decode_events_fast::<ConfigMap>(&lines, ManagedFields::Decode).is_some(),
        "the run decodes as one document"
    );
    assert_eq!(summary(decode_events(&lines, ManagedFields::Decode)), one_by_one);
    let decoded = decode_events::<ConfigMap>(&lines[..1], ManagedFields::Decode);
    assert!(matches!(&decoded[0], Ok(WireEvent::Added(Lenient::Decoded(cm))) if cm.data.as_ref().unwrap()["k"] == "é"));

    // A misfit, an object before its type or a malformed line sends the run line by line:
    // what decodes is kept, in order.
    let mut mixed = lines.clone();
    mixed.insert(
        0,
        Bytes::from_static(br#"{"object":{"metadata":{"name":"r"}},"type":"ADDED"}"#),
    );
    mixed.insert(
        2,
        Bytes::from_static(br#"{"type":"ADDED","object":{"metadata":{"name":"m"},"data":7}}"#),
    );
    mixed.push(Bytes::from_static(b"{\"type\":"));
    let mixed = summary(decode_events(&mixed, ManagedFields::Decode));
    assert_eq!(
        mixed[..6],
        [
            "added r",
            "added a",
            "misfit m",
            "added b",
            "bookmark 4 true",
            "deleted"
        ]
    );
    assert!(mixed[6].starts_with("error EOF"), "{}", mixed[6]);
}

/// The object of an event that holds one whole.
fn whole<K>(event: WireEvent<K>) -> Arc<K> {
    match event {
        WireEvent::Added(Lenient::Decoded(object)) | WireEvent::Modified(Lenient::Decoded(object)) => object,
        _ => panic!("not a whole object"),
    }
}

#[test]
fn a_modified_object_should_leave_its_field_sets_as_text_only_where_asked() {
    let object = r#"{"metadata":{"name":"a","namespace":"n","resourceVersion":"3","managedFields":[
        {"manager":"kubectl","operation":"Update","fieldsType":"FieldsV1","fieldsV1":{"f:data":{".":{},"f:k":{}}}},
        {"manager":"ctl","operation":"Update","fieldsV1":null},
        {"manager":"x","operation":"Apply","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{"f:\u00e9":{}}}}}]},
        "data":{"k":"v"}}"#;
    let line = |kind: &str| Bytes::from(format!(r#"{{"type":"{kind}","object":{object}}}"#).replace('\n', ""));
    let expected = whole(decode_event::<ConfigMap>(&line("MODIFIED"), ManagedFields::Decode).unwrap());
    match decode_event::<ConfigMap>(&line("MODIFIED"), ManagedFields::FieldSetsAsText).unwrap() {
        WireEvent::ModifiedPending { mut object, field_sets } => {
            let trees: Vec<_> = object
                .metadata
                .managed_fields
                .iter()
                .flatten()
                .map(|e| e.fields_v1.clone())
                .collect();
            let placeholder = Some(FieldsV1(serde_json::Value::Null));
            assert_eq!(
                trees,
                [placeholder.clone(), None, placeholder],
                "placeholders in their place"
            );
            let decoded = Arc::get_mut(&mut object).expect("unshared");
            field_sets.decode_into(&mut decoded.metadata).unwrap();
            assert_eq!(object, expected);
        }
        _ => panic!("the field sets were not left as text"),
    }
    // Not an update, or no field sets: the object is decoded whole.
    assert_eq!(
        whole(decode_event(&line("ADDED"), ManagedFields::FieldSetsAsText).unwrap()),
        expected
    );
    let bare = Bytes::from_static(br#"{"type":"MODIFIED","object":{"metadata":{"name":"b"}}}"#);
    assert_eq!(
        whole(decode_event::<ConfigMap>(&bare, ManagedFields::FieldSetsAsText).unwrap())
            .metadata
            .name
            .as_deref(),
        Some("b")
    );
    // A misfit is reported as without the capture.
    let misfit = Bytes::from(
        String::from_utf8(line("MODIFIED").to_vec())
            .unwrap()
            .replace(r#"{"k":"v"}"#, "1"),
    );
    assert!(matches!(
        decode_event::<ConfigMap>(&misfit, ManagedFields::FieldSetsAsText).unwrap(),
        WireEvent::Modified(Lenient::Failed { .. })
    ));
}

#[test]
fn only_the_objects_own_field_sets_should_be_left_as_text() {
    // A pod template's metadata may hold managed fields too: they are not the object's.
    let line = Bytes::from_static(
        br#"{"type":"MODIFIED","object":{"metadata":{"name":"d","managedFields":[{"manager":"m","fieldsV1":{"f:spec":{}}}]},"spec":{"selector":{},"template":{"metadata":{"managedFields":[{"manager":"t","fieldsV1":{"f:x":{}}}]}}}}}"#,
    );
    let tree = |meta: &kube::api::ObjectMeta| meta.managed_fields.as_ref().unwrap()[0].fields_v1.clone().unwrap().0;
    let WireEvent::ModifiedPending { mut object, field_sets } =
        decode_event::<Deployment>(&line, ManagedFields::FieldSetsAsText).unwrap()
    else {
        panic!("the field sets were not left as text");
    };
    let template = object.spec.template.metadata.as_ref().unwrap();
    assert_eq!(tree(template), json!({"f:x": {}}), "decoded as it was");
    assert_eq!(tree(&object.metadata), serde_json::Value::Null);
    field_sets
        .decode_into(&mut Arc::get_mut(&mut object).unwrap().metadata)
        .unwrap();
    assert_eq!(
        object,
        whole(decode_event::<Deployment>(&line, ManagedFields::Decode).unwrap())
    );
}

#[test]
fn managed_fields_should_be_skipped_wherever_objects_decode_and_only_the_objects_own() {
    let object = r#"{"metadata":{"name":"d","namespace":"n","resourceVersion":"3","managedFields":[
        {"manager":"kubectl","operation":"Update","time":"2026-11-25T10:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicas":{}}}},
        {"manager":"x\"y","operation":"Apply","fieldsV1":{"f:metadata":{"f:labels":{"f:\u00e9":{},"f:a":[1,2.5,null,true]}}}}]},
        "spec":{"replicas":2,"selector":{},"template":{"metadata":{"managedFields":[{"manager":"t","fieldsV1":{"f:x":{}}}]}}}}"#
        .replace('\n', "");
    let mut expected: Deployment = serde_json::from_str(&object).unwrap();
    expected.metadata.managed_fields = None;
    let template_fields = expected.spec.template.metadata.as_ref().unwrap().managed_fields.clone();
    assert!(template_fields.is_some(), "the pod template's own are not the object's");

    // A page of `items`, decoded skipping: the objects, and the misfits.
    let page = |items: &str| {
        let page = format!(r#"{{"metadata":{{"resourceVersion":"9"}},"items":[{items}]}}"#);
        let (mut objects, mut failures) = (Vec::new(), Vec::new());
        let skipping = ManagedFields::Skip;
        decode_page::<Deployment, _>(
            page.as_bytes(),
            skipping,
            &mut objects,
            &mut failures,
            Arc::unwrap_or_clone,
        )
        .unwrap();
        (objects, failures)
    };
    let (items, _) = page(&format!("{object},{object}"));
    assert_eq!(items, [expected.clone(), expected.clone()], "a page, in one pass");

    let line = |kind: &str| Bytes::from(format!(r#"{{"type":"{kind}","object":{object}}}"#));
    for kind in ["ADDED", "MODIFIED", "DELETED"] {
        let decoded = match decode_event::<Deployment>(&line(kind), ManagedFields::Skip).unwrap() {
            WireEvent::Added(Lenient::Decoded(object))
            | WireEvent::Modified(Lenient::Decoded(object))
            | WireEvent::Deleted(Lenient::Decoded(object)) => object,
            _ => panic!("{kind} did not decode"),
        };
        assert_eq!(*decoded, expected, "a {kind} line");
    }
    let early = Bytes::from(format!(r#"{{"object":{object},"type":"ADDED"}}"#));
    assert_eq!(
        *whole(decode_event::<Deployment>(&early, ManagedFields::Skip).unwrap()),
        expected,
        "an object before its event's type"
    );
    let run = [line("ADDED"), line("ADDED")];
    let events = decode_events_fast::<Deployment>(&run, ManagedFields::Skip).expect("one document");
    for event in events {
        assert_eq!(*whole(event), expected, "a run of a streaming list's lines");
    }

    // A misfit is still named by its metadata; it keeps its managed fields, which the
    // informer strips before anything is stored.
    let misfit = Bytes::from(
        String::from_utf8(line("ADDED").to_vec())
            .unwrap()
            .replace(r#""replicas":2"#, r#""replicas":"two""#),
    );
    match decode_event::<Deployment>(&misfit, ManagedFields::Skip).unwrap() {
        WireEvent::Added(Lenient::Failed { metadata, .. }) => assert_eq!(metadata.name.as_deref(), Some("d")),
        _ => panic!("the misfit was not reported"),
    }
    // A page with a misfit is read again object by object: its objects keep their managed
    // fields there, for the informer to clear before it stores them.
    let misfit_object = object.replace(r#""replicas":2"#, r#""replicas":"two""#);
    let (items, failures) = page(&format!("{object},{misfit_object}"));
    assert_eq!((items.len(), failures.len()), (1, 1));
    assert!(items[0].metadata.managed_fields.is_some());
    // Malformed managed fields are still malformed JSON.
    let malformed = Bytes::from(
        String::from_utf8(line("ADDED").to_vec())
            .unwrap()
            .replace(r#"{"f:replicas":{}}"#, r#"{"f:replicas":}"#),
    );
    assert!(decode_event::<Deployment>(&malformed, ManagedFields::Skip).is_err());
}
