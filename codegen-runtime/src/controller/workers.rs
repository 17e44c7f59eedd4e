//! Workers over a work queue, as sample-controller's `runWorker`/`processNextWorkItem`.
//!
//! Each takes a key, reconciles it, forgets it on success, re-adds it with backoff on error and
//! requeues it after a delay when asked; every reconcile is counted and timed.

use std::sync::Arc;

use tokio::task::JoinSet;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::{Next, Reconcile, ReconcileMetrics};
use crate::WorkQueue;

/// Runs `threads` workers on `queue` until `stop`: each finishes the reconcile in flight and
/// takes no more; returns when the last has finished, with the queue shut down.
pub async fn run_workers<R: Reconcile>(
    reconciler: Arc<R>,
    queue: WorkQueue<String>,
    threads: u16,
    metrics: ReconcileMetrics,
    stop: CancellationToken,
) {
    let mut workers = JoinSet::new();
    for _ in 0..threads {
        let (reconciler, queue, metrics, stop) = (reconciler.clone(), queue.clone(), metrics.clone(), stop.clone());
        workers.spawn(async move {
            loop {
                let key = tokio::select! {
                    biased;
                    () = stop.cancelled() => break,
                    key = queue.get() => match key {
                        Some(key) => key,
                        None => break,
                    },
                };
                process(&*reconciler, &queue, &metrics, &key).await;
                queue.done(&key);
            }
        });
    }
    while workers.join_next().await.is_some() {}
    queue.shutdown();
    tracing::info!(controller = R::NAME, "workers stopped");
}

/// One reconcile of `key`, and what its outcome means for the queue.
async fn process<R: Reconcile>(reconciler: &R, queue: &WorkQueue<String>, metrics: &ReconcileMetrics, key: &str) {
    let started = Instant::now();
    let result = reconciler.reconcile(key).await;
    let took = started.elapsed();
    let key = key.to_owned();
    match result {
        Ok(Next::Done) => {
            queue.forget(&key);
            metrics.observe(R::NAME, "success", took);
            tracing::debug!(controller = R::NAME, %key, ?took, "synced");
        }
        Ok(Next::RequeueAfter(delay)) => {
            queue.forget(&key);
            queue.add_after(key.clone(), delay);
            metrics.observe(R::NAME, "requeue", took);
            tracing::debug!(controller = R::NAME, %key, ?delay, "synced, requeued");
        }
        Err(error) => {
            let retries = queue.num_requeues(&key);
            queue.add_rate_limited(key.clone());
            metrics.observe(R::NAME, "error", took);
            tracing::warn!(controller = R::NAME, %key, retries, %error, "error syncing; requeuing with backoff");
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;
    use std::sync::Mutex;
    use std::time::Duration;

    use prometheus_client::registry::Registry;

    use super::*;
    use crate::controller::metrics::tests::exposition;
    use crate::workqueue::ItemExponentialFailure;

    /// One call of [`Script::reconcile`]: the key, when, and the key's retry count then.
    #[derive(Clone, Debug, PartialEq, Eq)]
    struct Call {
        key: String,
        at: Duration,
        retries: u32,
    }

    /// A reconciler that answers from a script (then `Done`) and records its calls; each call
    /// takes `work` of (paused) time.
    struct Script {
        outcomes: Mutex<VecDeque<Result<Next, String>>>,
        calls: Mutex<Vec<Call>>,
        queue: WorkQueue<String>,
        start: Instant,
        work: Duration,
    }

    impl Reconcile for Script {
        const NAME: &'static str = "Script";
        type Error = String;

        async fn reconcile(&self, key: &str) -> Result<Next, String> {
            self.calls.lock().unwrap().push(Call {
                key: key.to_owned(),
                at: self.start.elapsed(),
                retries: self.queue.num_requeues(&key.to_owned()),
            });
            tokio::time::sleep(self.work).await;
            self.outcomes.lock().unwrap().pop_front().unwrap_or(Ok(Next::Done))
        }
    }

    /// A queue whose backoff is 1 s, 2 s, 4 s…, the scripted reconciler over it, and the
    /// metrics registry.
    fn setup(outcomes: Vec<Result<Next, String>>, work: Duration) -> (Arc<Script>, WorkQueue<String>, Registry) {
        let queue = WorkQueue::builder()
            .name("script")
            .rate_limiter(ItemExponentialFailure::new(
                Duration::from_secs(1),
                Duration::from_secs(1000),
            ))
            .build();
        let script = Arc::new(Script {
            outcomes: Mutex::new(outcomes.into()),
            calls: Mutex::default(),
            queue: queue.clone(),
            start: Instant::now(),
            work,
        });
        (script, queue, Registry::default())
    }

    /// Queues `default/a` and runs two workers over it, answering with `outcomes`, until
    /// `calls` reconciles happened; then stops them.
    async fn run_script(
        outcomes: Vec<Result<Next, String>>,
        calls: usize,
    ) -> (Arc<Script>, WorkQueue<String>, Registry) {
        let (script, queue, mut registry) = setup(outcomes, Duration::ZERO);
        queue.add("default/a".to_owned());
        let stop = CancellationToken::new();
        let metrics = ReconcileMetrics::new(&mut registry);
        let workers = tokio::spawn(run_workers(script.clone(), queue.clone(), 2, metrics, stop.clone()));
        while script.calls.lock().unwrap().len() < calls {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        stop.cancel();
        workers.await.unwrap();
        (script, queue, registry)
    }

    /// An error, then a requeue after 20 s, then (unscripted) success.
    fn error_then_requeue() -> Vec<Result<Next, String>> {
        vec![Err("first".to_owned()), Ok(Next::RequeueAfter(Duration::from_secs(20)))]
    }

    fn call(at: u64, retries: u32) -> Call {
        Call {
            key: "default/a".to_owned(),
            at: Duration::from_secs(at),
            retries,
        }
    }

    #[tokio::test(start_paused = true)]
    async fn run_workers_should_retry_a_failing_key_with_backoff_and_forget_it_on_success() {
        let outcomes = vec![Err("first".to_owned()), Err("second".to_owned()), Ok(Next::Done)];
        let (script, queue, _) = run_script(outcomes, 3).await;
        assert_eq!(*script.calls.lock().unwrap(), [call(0, 0), call(1, 1), call(3, 2)]);
        assert_eq!(queue.num_requeues(&"default/a".to_owned()), 0);
    }

    #[tokio::test(start_paused = true)]
    async fn run_workers_should_requeue_a_key_after_the_delay_it_asks_for() {
        let (script, _, _) = run_script(error_then_requeue(), 3).await;
        // The requeue forgets the error's retry: the call after it starts from none.
        assert_eq!(*script.calls.lock().unwrap(), [call(0, 0), call(1, 1), call(21, 0)]);
    }

    #[tokio::test(start_paused = true)]
    async fn run_workers_should_count_every_outcome() {
        let (_, _, registry) = run_script(error_then_requeue(), 3).await;
        let text = exposition(&registry);
        for result in ["error", "requeue", "success"] {
            let line = format!("controller_reconcile_total{{controller=\"Script\",result=\"{result}\"}} 1");
            assert!(text.lines().any(|l| l == line), "no {line:?} in\n{text}");
        }
    }

    #[tokio::test(start_paused = true)]
    async fn run_workers_should_finish_the_reconcile_in_flight_and_take_no_more_when_stopped() {
        let (script, queue, mut registry) = setup(Vec::new(), Duration::from_secs(5));
        queue.add("default/a".to_owned());
        let stop = CancellationToken::new();
        let metrics = ReconcileMetrics::new(&mut registry);
        let workers = tokio::spawn(run_workers(script.clone(), queue.clone(), 1, metrics, stop.clone()));
        tokio::time::sleep(Duration::from_secs(1)).await;
        queue.add("default/b".to_owned());
        stop.cancel();
        workers.await.unwrap();
        assert_eq!(
            script.start.elapsed(),
            Duration::from_secs(5),
            "returned when the reconcile ended"
        );
        assert_eq!(*script.calls.lock().unwrap(), [call(0, 0)]);
        assert!(queue.is_shutting_down());
    }

    #[tokio::test(start_paused = true)]
    async fn run_workers_should_return_when_the_queue_shuts_down() {
        let (script, queue, mut registry) = setup(Vec::new(), Duration::ZERO);
        let metrics = ReconcileMetrics::new(&mut registry);
        let workers = tokio::spawn(run_workers(
            script.clone(),
            queue.clone(),
            2,
            metrics,
            CancellationToken::new(),
        ));
        queue.add("default/a".to_owned());
        queue.shutdown();
        workers.await.unwrap();
        assert_eq!(
            *script.calls.lock().unwrap(),
            [call(0, 0)],
            "what was queued is still handed out"
        );
    }
}
