//! The work queue's contract, clause by clause (client-go `util/workqueue`), under paused time.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use codegen_runtime::workqueue::{ItemExponentialFailure, WorkQueue, WorkqueueMetrics};
use proptest::prelude::*;

fn queue() -> WorkQueue<&'static str> {
    WorkQueue::new()
}

async fn next(queue: &WorkQueue<&'static str>) -> Option<&'static str> {
    tokio::time::timeout(Duration::from_secs(3600), queue.get())
        .await
        .expect("get returns within the hour")
}

#[tokio::test(start_paused = true)]
async fn add_should_coalesce_items_waiting_in_the_queue() {
    let queue = queue();
    queue.add("a");
    queue.add("a");
    queue.add("b");
    assert_eq!(queue.len(), 2);
    assert_eq!(next(&queue).await, Some("a"));
    assert_eq!(next(&queue).await, Some("b"));
    assert!(queue.is_empty());
}

#[tokio::test(start_paused = true)]
async fn an_item_added_while_processing_should_wait_for_done() {
    let queue = queue();
    queue.add("a");
    assert_eq!(next(&queue).await, Some("a"));
    queue.add("a");
    queue.add("a");
    assert_eq!(
        queue.len(),
        0,
        "never handed to a second worker while the first holds it"
    );
    queue.add("b");
    assert_eq!(next(&queue).await, Some("b"));
    queue.done(&"a");
    assert_eq!(queue.len(), 1, "queued once again after done");
    assert_eq!(next(&queue).await, Some("a"));
    queue.done(&"a");
    queue.done(&"b");
    assert!(queue.is_empty());
}

#[tokio::test(start_paused = true)]
async fn get_should_wait_for_an_item() {
    let queue = queue();
    let waiting = tokio::spawn({
        let queue = queue.clone();
        async move { queue.get().await }
    });
    tokio::time::sleep(Duration::from_secs(10)).await;
    assert!(!waiting.is_finished());
    queue.add("late");
    assert_eq!(waiting.await.unwrap(), Some("late"));
}

#[tokio::test(start_paused = true)]
async fn shutdown_should_hand_out_what_is_queued_then_end() {
    let queue = queue();
    queue.add("a");
    let idle = tokio::spawn({
        let queue = queue.clone();
        async move { (queue.get().await, queue.get().await) }
    });
    tokio::task::yield_now().await;
    queue.shutdown();
    queue.add("ignored");
    assert!(queue.is_shutting_down());
    assert_eq!(idle.await.unwrap(), (Some("a"), None));
    assert_eq!(next(&queue).await, None);
}

#[tokio::test(start_paused = true)]
async fn shutdown_with_drain_should_wait_for_items_in_progress() {
    let queue = queue();
    queue.add("a");
    assert_eq!(next(&queue).await, Some("a"));
    let drain = tokio::spawn({
        let queue = queue.clone();
        async move { queue.shutdown_with_drain().await }
    });
    tokio::time::sleep(Duration::from_secs(60)).await;
    assert!(!drain.is_finished(), "a is still being processed");
    queue.done(&"a");
    tokio::time::timeout(Duration::from_secs(1), drain)
        .await
        .expect("drained once a is done")
        .unwrap();
}

#[tokio::test(start_paused = true)]
async fn shutdown_should_end_a_drain_that_is_waiting() {
    let queue = queue();
    queue.add("stuck");
    assert_eq!(next(&queue).await, Some("stuck"));
    let drain = tokio::spawn({
        let queue = queue.clone();
        async move { queue.shutdown_with_drain().await }
    });
    tokio::time::sleep(Duration::from_secs(60)).await;
    assert!(!drain.is_finished());
    queue.shutdown();
    tokio::time::timeout(Duration::from_secs(1), drain)
        .await
        .expect("shutdown cancels the drain")
        .unwrap();
}

#[tokio::test(start_paused = true)]
async fn add_after_should_delay_and_keep_the_earliest_time() {
    let queue = queue();
    queue.add_after("a", Duration::from_secs(5));
    queue.add_after("a", Duration::from_secs(1));
    queue.add_after("a", Duration::from_secs(3));
    queue.add_after("now", Duration::ZERO);
    assert_eq!(queue.len(), 1);
    assert_eq!(next(&queue).await, Some("now"));
    let started = tokio::time::Instant::now();
    assert_eq!(next(&queue).await, Some("a"));
    assert_eq!(started.elapsed(), Duration::from_secs(1));
    queue.done(&"a");
    tokio::time::sleep(Duration::from_secs(10)).await;
    assert_eq!(queue.len(), 0, "later delays of the same item were absorbed");
}

#[tokio::test(start_paused = true)]
async fn add_rate_limited_should_back_off_per_item_until_forgotten() {
    let queue: WorkQueue<&str> = WorkQueue::builder()
        .rate_limiter(ItemExponentialFailure::new(
            Duration::from_millis(5),
            Duration::from_secs(1000),
        ))
        .build();
    let mut waits = Vec::new();
    for _ in 0..4 {
        let started = tokio::time::Instant::now();
        queue.add_rate_limited("a");
        assert_eq!(next(&queue).await, Some("a"));
        waits.push(started.elapsed().as_millis());
        queue.done(&"a");
    }
    assert_eq!(waits, [5, 10, 20, 40]);
    assert_eq!(queue.num_requeues(&"a"), 4);
    queue.forget(&"a");
    assert_eq!(queue.num_requeues(&"a"), 0);
}

#[tokio::test(start_paused = true)]
async fn metrics_should_use_client_go_names() {
    let metrics = WorkqueueMetrics::new();
    let mut registry = prometheus_client::registry::Registry::default();
    metrics.register(&mut registry);
    let queue: WorkQueue<&str> = WorkQueue::builder().name("foos").metrics(&metrics).build();
    queue.add("a");
    queue.add("b");
    tokio::time::sleep(Duration::from_millis(30)).await;
    assert_eq!(next(&queue).await, Some("a"));
    tokio::time::sleep(Duration::from_secs(2)).await;
    queue.add_rate_limited("a");
    let mut text = String::new();
    prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
    for expected in [
        "workqueue_depth{name=\"foos\"} 1",
        "workqueue_adds_total{name=\"foos\"} 2",
        "workqueue_retries_total{name=\"foos\"} 1",
        "workqueue_queue_duration_seconds_count{name=\"foos\"} 1",
        // Refreshed every 500 ms: the last refresh saw 1.97 s of work in progress.
        "workqueue_longest_running_processor_seconds{name=\"foos\"} 1.97",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in\n{text}");
    }
    queue.done(&"a");
    let mut text = String::new();
    prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
    assert!(
        text.contains("workqueue_work_duration_seconds_count{name=\"foos\"} 1"),
        "{text}"
    );
}

/// One run: `workers` workers take keys for `work` each while `adds` arrive at their times.
async fn run_workers(adds: Vec<(u64, u8)>, workers: usize, work: u64) -> Result<(), String> {
    let queue: WorkQueue<u8> = WorkQueue::new();
    let holders: Arc<Mutex<HashSet<u8>>> = Arc::default();
    // For each key: when it was last added, and when a worker last picked it up.
    let last_add: Arc<Mutex<HashMap<u8, tokio::time::Instant>>> = Arc::default();
    let last_start: Arc<Mutex<HashMap<u8, tokio::time::Instant>>> = Arc::default();
    let violation: Arc<Mutex<Option<String>>> = Arc::default();
    let mut tasks = Vec::new();
    for _ in 0..workers {
        let (queue, holders, last_start, violation) =
            (queue.clone(), holders.clone(), last_start.clone(), violation.clone());
        tasks.push(tokio::spawn(async move {
            while let Some(key) = queue.get().await {
                if !holders.lock().unwrap().insert(key) {
                    *violation.lock().unwrap() = Some(format!("key {key} handed to two workers"));
                }
                last_start.lock().unwrap().insert(key, tokio::time::Instant::now());
                tokio::time::sleep(Duration::from_millis(work)).await;
                holders.lock().unwrap().remove(&key);
                queue.done(&key);
            }
        }));
    }
    let start = tokio::time::Instant::now();
    for (at, key) in adds {
        tokio::time::sleep_until(start + Duration::from_millis(at)).await;
        last_add.lock().unwrap().insert(key, tokio::time::Instant::now());
        queue.add(key);
    }
    queue.shutdown_with_drain().await;
    // Workers may still be finishing the last items handed out before the drain completed.
    for task in tasks {
        task.await.unwrap();
    }
    if let Some(violation) = violation.lock().unwrap().take() {
        return Err(violation);
    }
    let (adds, starts) = (last_add.lock().unwrap(), last_start.lock().unwrap());
    for (key, added) in adds.iter() {
        // Every add is followed by a pickup that starts no earlier: nothing added is lost.
        if starts.get(key).is_none_or(|started| started < added) {
            return Err(format!("key {key} added at {added:?} was never processed after that"));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn no_key_is_processed_twice_at_once_or_lost(
        adds in proptest::collection::vec((0u64..200, 0u8..6), 1..120),
        workers in 1usize..5,
        work in 1u64..30,
    ) {
        let mut adds = adds;
        adds.sort_by_key(|(at, _)| *at);
        let runtime = tokio::runtime::Builder::new_current_thread().enable_time().start_paused(true).build().unwrap();
        let outcome = runtime.block_on(run_workers(adds, workers, work));
        prop_assert!(outcome.is_ok(), "{}", outcome.unwrap_err());
    }
}
