//! Informer consistency under faults, seeded and deterministic in what it does: for each seed,
//! thousands of ConfigMaps and tens of thousands of creates, updates and deletes while the
//! in-memory API server cuts watches, expires resourceVersions (410 Gone), fails lists and
//! watches with 500s and stalls. At the end the informer's store equals the server's state
//! exactly, and the handler saw a consistent history: no update or delete of an object it did
//! not have, no add of one it had, deletes missed during a disconnect delivered as tombstones.
//!
//! `RELIABILITY_SEEDS` (default 8), `RELIABILITY_OBJECTS` (2000) and `RELIABILITY_MUTATIONS`
//! (5000 per seed) scale it; `RELIABILITY_FIRST_SEED` replays from another seed. Odd seeds run
//! the informer with `ApplyEvents::WhereDecoded` (the default), even ones with `OnOwnTask`.

use crate::support::seeded;

use seeded::{Rng, setting};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use codegen_runtime::cache::{ApplyEvents, Deleted, EventHandler, InformerOptions, SharedIndexInformer};
use fake_apiserver::{ApiStatus, FakeApiServer};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, DeleteParams, ListParams, ObjectMeta, PostParams};
use kube::{Client, ResourceExt};

/// What the handler has seen, and every inconsistency in it.
#[derive(Default)]
struct History {
    /// key → resourceVersion of the last add or update.
    view: BTreeMap<String, String>,
    violations: Vec<String>,
    tombstones: usize,
    notifications: usize,
}

struct Checker(Arc<Mutex<History>>);

fn key(object: &ConfigMap) -> String {
    format!("{}/{}", object.namespace().unwrap_or_default(), object.name_any())
}

impl EventHandler<ConfigMap> for Checker {
    fn on_add(&mut self, object: Arc<ConfigMap>, _: bool) {
        let mut history = self.0.lock().unwrap();
        history.notifications += 1;
        let key = key(&object);
        if history.view.contains_key(&key) {
            history
                .violations
                .push(format!("add of {key}, which the handler already has"));
        }
        history.view.insert(key, object.resource_version().unwrap_or_default());
    }

    fn on_update(&mut self, old: Arc<ConfigMap>, new: Arc<ConfigMap>) {
        let mut history = self.0.lock().unwrap();
        history.notifications += 1;
        let key = key(&new);
        match history.view.get(&key).cloned() {
            None => history.violations.push(format!("update of {key} before its add")),
            Some(seen) if Some(&seen) != old.resource_version().as_ref() => history.violations.push(format!(
                "update of {key} from {:?}, but the handler had {seen}",
                old.resource_version()
            )),
            Some(_) => {}
        }
        history.view.insert(key, new.resource_version().unwrap_or_default());
    }

    fn on_delete(&mut self, deleted: Deleted<ConfigMap>) {
        let mut history = self.0.lock().unwrap();
        history.notifications += 1;
        if matches!(deleted, Deleted::Tombstone(_)) {
            history.tombstones += 1;
        }
        let key = key(deleted.object());
        if history.view.remove(&key).is_none() {
            history
                .violations
                .push(format!("delete of {key}, which the handler does not have"));
        }
    }
}

fn configmap(namespace: &str, name: &str, value: u64) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.to_owned()),
            namespace: Some(namespace.to_owned()),
            ..ObjectMeta::default()
        },
        data: Some(BTreeMap::from([("value".to_owned(), value.to_string())])),
        ..ConfigMap::default()
    }
}

/// key → resourceVersion of everything the server holds.
async fn server_state(client: &Client) -> BTreeMap<String, String> {
    let all: Api<ConfigMap> = Api::all(client.clone());
    // An injected 500 may still be pending: it was meant for the informer, retry past it.
    let list = loop {
        match all.list(&ListParams::default()).await {
            Ok(list) => break list,
            Err(kube::Error::Api(status)) if status.code == 500 => continue,
            Err(error) => panic!("cannot list: {error}"),
        }
    };
    list.iter()
        .map(|c| (key(c), c.resource_version().unwrap_or_default()))
        .collect()
}

/// Counts of what one seed did.
#[derive(Debug, Default)]
struct Run {
    mutations: u64,
    faults: u64,
    tombstones: usize,
    notifications: usize,
}

async fn one_seed(seed: u64, objects: u64, mutations: u64) -> Run {
    let server = FakeApiServer::builder()
        .auto_create_namespaces(true)
        .record_actions(false)
        .history_limit(5_000)
        .build();
    let client = server.client();
    let mut rng = Rng::new(seed);
    let namespaces = ["alpha", "beta", "gamma", "delta"];
    let mut live: Vec<(usize, u64)> = Vec::new();
    let mut next_name = 0u64;
    let post = PostParams::default();
    for _ in 0..objects {
        let ns = rng.below(namespaces.len() as u64) as usize;
        let api: Api<ConfigMap> = Api::namespaced(client.clone(), namespaces[ns]);
        api.create(&post, &configmap(namespaces[ns], &format!("cm-{next_name}"), 0))
            .await
            .unwrap();
        live.push((ns, next_name));
        next_name += 1;
    }
    let history = Arc::new(Mutex::new(History::default()));
    // Odd seeds (the first among them) apply watch events where they are decoded, even ones on
    // the informer's second task.
    let options = InformerOptions {
        apply_events: if seed % 2 == 1 {
            ApplyEvents::WhereDecoded
        } else {
            ApplyEvents::OnOwnTask
        },
        ..InformerOptions::default()
    };
    let informer = SharedIndexInformer::<ConfigMap>::new(client.clone(), options);
    informer.add_event_handler(Checker(history.clone()));
    informer.run();
    informer.wait_for_sync().await;

    let mut run = Run::default();
    for step in 0..mutations {
        // Let (virtual) time pass now and then, so watches and backoffs run during the burst.
        if step % 50 == 0 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        // About one fault per 250 mutations, of a kind the seed picks.
        if rng.below(250) == 0 {
            run.faults += 1;
            match rng.below(5) {
                0 => server.cut_watches(),
                1 => {
                    server.cut_watches();
                    server.expire_resource_versions();
                }
                2 => {
                    server.fail_next(
                        1 + rng.below(3) as usize,
                        "list",
                        "configmaps",
                        ApiStatus::internal("injected"),
                    );
                    server.cut_watches();
                    server.expire_resource_versions();
                }
                3 => {
                    server.fail_next(
                        1 + rng.below(3) as usize,
                        "watch",
                        "configmaps",
                        ApiStatus::internal("injected"),
                    );
                    server.cut_watches();
                }
                _ => {
                    // A stall: every request waits, the informer included.
                    server.set_latency(Duration::from_millis(20 + rng.below(80)));
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    server.set_latency(Duration::ZERO);
                }
            }
        }
        let choice = rng.below(10);
        if live.is_empty() || choice < 3 {
            let ns = rng.below(namespaces.len() as u64) as usize;
            let api: Api<ConfigMap> = Api::namespaced(client.clone(), namespaces[ns]);
            api.create(&post, &configmap(namespaces[ns], &format!("cm-{next_name}"), step))
                .await
                .unwrap();
            live.push((ns, next_name));
            next_name += 1;
        } else {
            let index = rng.below(live.len() as u64) as usize;
            let (ns, name) = live[index];
            let api: Api<ConfigMap> = Api::namespaced(client.clone(), namespaces[ns]);
            if choice < 7 {
                api.replace(
                    &format!("cm-{name}"),
                    &post,
                    &configmap(namespaces[ns], &format!("cm-{name}"), step),
                )
                .await
                .unwrap();
            } else {
                api.delete(&format!("cm-{name}"), &DeleteParams::default())
                    .await
                    .unwrap();
                live.swap_remove(index);
            }
        }
        run.mutations += 1;
    }

    // Converged: the store and the handler's view both equal the server, exactly.
    let expected = server_state(&client).await;
    // Virtual time: injected failures pile up into backoffs of up to 30 s each.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(3600);
    loop {
        let cached: BTreeMap<String, String> = informer
            .store()
            .list()
            .iter()
            .map(|c| (key(c), c.resource_version().unwrap_or_default()))
            .collect();
        let viewed = history.lock().unwrap().view.clone();
        if cached == expected && viewed == expected {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "seed {seed}: the informer did not converge: store has {} objects, handler {}, server {}",
            cached.len(),
            viewed.len(),
            expected.len()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    informer.shutdown().await;
    let history = history.lock().unwrap();
    assert!(
        history.violations.is_empty(),
        "seed {seed}: {:#?}",
        &history.violations[..history.violations.len().min(10)]
    );
    run.tombstones = history.tombstones;
    run.notifications = history.notifications;
    run
}

// Paused time: the in-memory server runs in process, so backoffs (client-go's 800 ms doubling to
// 30 s, which repeated injected failures reach) pass instantly and the run is fast.
#[tokio::test(start_paused = true)]
async fn informers_should_converge_exactly_under_faults() {
    let (seeds, objects, mutations) = (
        setting("RELIABILITY_SEEDS", 8),
        setting("RELIABILITY_OBJECTS", 2_000),
        setting("RELIABILITY_MUTATIONS", 5_000),
    );
    let mut totals = Run::default();
    let first = setting("RELIABILITY_FIRST_SEED", 1);
    for seed in first..first + seeds {
        let run = one_seed(seed, objects, mutations).await;
        eprintln!("seed {seed}: {run:?}");
        totals.mutations += run.mutations;
        totals.faults += run.faults;
        totals.tombstones += run.tombstones;
        totals.notifications += run.notifications;
    }
    eprintln!("{seeds} seeds × {objects} objects: {totals:?}");
    assert!(
        totals.faults > 0 && totals.tombstones > 0,
        "the faults must bite: {totals:?}"
    );
}
