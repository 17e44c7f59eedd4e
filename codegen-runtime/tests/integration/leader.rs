//! Leader election between candidates on one in-memory API server, under paused time.

use crate::support::seeded;

use seeded::Rng;
use std::sync::Arc;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::Duration;

use codegen_runtime::leader::{LeaderCallbacks, LeaderElectionConfig, LeaderElector};
use fake_apiserver::{ApiStatus, FakeApiServer};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

fn config(identity: &str, release_on_cancel: bool) -> LeaderElectionConfig {
    let mut config = LeaderElectionConfig::new("kube-system", "controller101", identity);
    config.release_on_cancel = release_on_cancel;
    config
}

/// How many candidates lead right now, and the most that ever led at once.
#[derive(Default)]
struct Leaders {
    current: AtomicI32,
    peak: AtomicI32,
}

/// Starts a candidate; reports `(identity, true)` when it starts leading and `(identity, false)`
/// when its leading token is cancelled; counts how many lead at once.
fn candidate(
    server: &FakeApiServer,
    config: LeaderElectionConfig,
    events: mpsc::UnboundedSender<(String, bool, Instant)>,
    leaders: Arc<Leaders>,
) -> (Arc<LeaderElector>, CancellationToken, tokio::task::JoinHandle<()>) {
    let identity = config.identity.clone();
    let elector = Arc::new(LeaderElector::new(server.client(), config).unwrap());
    let cancel = CancellationToken::new();
    let callbacks = LeaderCallbacks::new(
        move |leading: CancellationToken| {
            let now_leading = leaders.current.fetch_add(1, Ordering::SeqCst) + 1;
            leaders.peak.fetch_max(now_leading, Ordering::SeqCst);
            let _ = events.send((identity.clone(), true, Instant::now()));
            tokio::spawn(async move {
                leading.cancelled().await;
                leaders.current.fetch_sub(1, Ordering::SeqCst);
                let _ = events.send((identity, false, Instant::now()));
            });
        },
        || {},
    );
    let task = tokio::spawn({
        let (elector, cancel) = (elector.clone(), cancel.clone());
        async move { elector.run(cancel, callbacks).await }
    });
    (elector, cancel, task)
}

async fn next(events: &mut mpsc::UnboundedReceiver<(String, bool, Instant)>) -> (String, bool, Instant) {
    tokio::time::timeout(Duration::from_secs(120), events.recv())
        .await
        .expect("an election event")
        .unwrap()
}

async fn takeover(release_on_cancel: bool) -> Duration {
    let server = FakeApiServer::new();
    let (events, mut seen) = mpsc::unbounded_channel();
    let leaders = Arc::new(Leaders::default());
    let (a, cancel_a, task_a) = candidate(&server, config("a", release_on_cancel), events.clone(), leaders.clone());
    let (first, started, _) = next(&mut seen).await;
    assert_eq!((first.as_str(), started), ("a", true));
    let (b, _cancel_b, _task_b) = candidate(&server, config("b", release_on_cancel), events, leaders.clone());
    tokio::time::sleep(Duration::from_secs(30)).await;
    assert!(a.is_leader() && !b.is_leader(), "exactly one leads");
    assert_eq!(b.leader().as_deref(), Some("a"));

    let stopped_at = Instant::now();
    cancel_a.cancel();
    task_a.await.unwrap();
    assert_eq!(next(&mut seen).await.0, "a");
    let (successor, started, at) = next(&mut seen).await;
    assert_eq!((successor.as_str(), started), ("b", true));
    assert_eq!(leaders.peak.load(Ordering::SeqCst), 1, "never two leaders at once");
    at - stopped_at
}

#[tokio::test(start_paused = true)]
async fn a_released_lease_should_pass_on_within_a_retry() {
    let waited = takeover(true).await;
    // Defaults: retry 2 s with jitter up to 1.2 × 2 s.
    assert!(waited <= Duration::from_millis(4_500), "took over after {waited:?}");
}

#[tokio::test(start_paused = true)]
async fn an_abandoned_lease_should_pass_on_after_it_expires() {
    let waited = takeover(false).await;
    // Defaults: lease 15 s, counted from b's last observation of a renewal. b polls every 2 to
    // 4.4 s (jittered), and a poll that fires at the instant a renews can read the record before
    // the renewal: b's last observation may be two polls before a stopped, and its takeover one
    // poll after the expiry, so at most 15 + 2 × 4.4 s (the bound of 20 s failed now and then).
    assert!(
        waited >= Duration::from_secs(11) && waited <= Duration::from_millis(23_800),
        "took over after {waited:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_leader_that_cannot_renew_should_step_down_before_its_lease_expires() {
    let server = FakeApiServer::new();
    let (events, mut seen) = mpsc::unbounded_channel();
    let leaders = Arc::new(Leaders::default());
    let (_a, _cancel_a, task_a) = candidate(&server, config("a", false), events.clone(), leaders.clone());
    let (_, _, started_at) = next(&mut seen).await;
    tokio::time::sleep(Duration::from_secs(5)).await;
    server.fail_next(1000, "update", "leases", ApiStatus::internal("etcd unavailable"));
    let failing_since = Instant::now();
    let (who, started, stopped_at) = next(&mut seen).await;
    assert_eq!((who.as_str(), started), ("a", false));
    let stepped_down_after = stopped_at - failing_since;
    // The next renewal starts within a retry period (2 s) and gives up after the renew deadline
    // (10 s): well before the 15 s lease could expire for anyone watching it.
    assert!(
        stepped_down_after <= Duration::from_secs(12),
        "stepped down after {stepped_down_after:?}"
    );
    assert!(stepped_down_after < Duration::from_secs(15));
    assert!(stopped_at - started_at > Duration::from_secs(5));
    task_a.await.unwrap();
    assert_eq!(leaders.current.load(Ordering::SeqCst), 0);
    assert_eq!(leaders.peak.load(Ordering::SeqCst), 1);
}

#[tokio::test(start_paused = true)]
async fn a_leader_whose_renewals_hang_should_step_down_by_the_deadline() {
    let server = FakeApiServer::new();
    let (events, mut seen) = mpsc::unbounded_channel();
    let leaders = Arc::new(Leaders::default());
    let (_a, _cancel_a, _task_a) = candidate(&server, config("a", false), events, leaders.clone());
    next(&mut seen).await;
    tokio::time::sleep(Duration::from_secs(5)).await;
    // Requests now take an hour, as on a half-open connection; kube's client has no timeout.
    server.set_latency(Duration::from_secs(3600));
    let hanging_since = Instant::now();
    let (who, started, stopped_at) = next(&mut seen).await;
    assert_eq!((who.as_str(), started), ("a", false));
    let after = stopped_at - hanging_since;
    assert!(after <= Duration::from_secs(12), "stepped down after {after:?}");
}

#[test]
fn config_should_follow_client_go_rules() {
    let mut bad = config("a", false);
    bad.renew_deadline = Duration::from_secs(20);
    let error = bad.validate().unwrap_err().to_string();
    assert!(
        error.contains("lease duration (15s) must be greater than renew deadline (20s)"),
        "{error}"
    );
    let mut bad = config("a", false);
    bad.retry_period = Duration::from_secs(9);
    assert!(bad.validate().unwrap_err().to_string().contains("1.2 × retry period"));
    assert!(
        config("", false)
            .validate()
            .unwrap_err()
            .to_string()
            .contains("identity")
    );
    assert!(config("a", false).validate().is_ok());
}

#[tokio::test(start_paused = true)]
async fn under_seeded_faults_there_should_never_be_two_leaders() {
    let mut leaderships = 0;
    for seed in 1..=8u64 {
        let server = FakeApiServer::new();
        let (events, mut seen) = mpsc::unbounded_channel();
        let leaders = Arc::new(Leaders::default());
        let mut rng = Rng::new(seed);
        let mut candidates: Vec<_> = ["a", "b", "c"]
            .iter()
            .map(|id| candidate(&server, config(id, rng.below(2) == 0), events.clone(), leaders.clone()))
            .collect();
        // Ten virtual minutes of failing renewals and reads, stalls and crashed candidates.
        for round in 0..120 {
            tokio::time::sleep(Duration::from_secs(5)).await;
            match rng.below(6) {
                0 => server.fail_next(
                    1 + rng.below(8) as usize,
                    "update",
                    "leases",
                    ApiStatus::internal("etcd unavailable"),
                ),
                1 => server.fail_next(
                    1 + rng.below(8) as usize,
                    "get",
                    "leases",
                    ApiStatus::internal("etcd unavailable"),
                ),
                2 => {
                    // A stall longer than the renew deadline for a while.
                    server.set_latency(Duration::from_secs(rng.below(14)));
                    tokio::time::sleep(Duration::from_secs(rng.below(20))).await;
                    server.set_latency(Duration::ZERO);
                }
                3 => {
                    // A candidate crashes (or is stopped) and is replaced.
                    let index = rng.below(3) as usize;
                    let identity = format!("{}{round}", ["a", "b", "c"][index]);
                    let (_, cancel, task) = &candidates[index];
                    cancel.cancel();
                    if rng.below(2) == 0 {
                        task.abort();
                    }
                    let replacement = candidate(
                        &server,
                        config(&identity, rng.below(2) == 0),
                        events.clone(),
                        leaders.clone(),
                    );
                    candidates[index] = replacement;
                }
                _ => {}
            }
            assert!(
                leaders.peak.load(Ordering::SeqCst) <= 1,
                "seed {seed}: two leaders at once"
            );
            // A candidate that lost the lease has returned, as client-go's does before the
            // process exits: restart it, as its pod would be.
            for (index, slot) in candidates.iter_mut().enumerate() {
                if slot.2.is_finished() {
                    let identity = format!("{}{round}r", ["a", "b", "c"][index]);
                    *slot = candidate(
                        &server,
                        config(&identity, rng.below(2) == 0),
                        events.clone(),
                        leaders.clone(),
                    );
                }
            }
        }
        // Faults over: someone leads again.
        server.set_latency(Duration::ZERO);
        tokio::time::sleep(Duration::from_secs(60)).await;
        assert_eq!(
            leaders.current.load(Ordering::SeqCst),
            1,
            "seed {seed}: one leader after the faults"
        );
        assert_eq!(
            leaders.peak.load(Ordering::SeqCst),
            1,
            "seed {seed}: never two leaders at once"
        );
        while let Ok((_, started, _)) = seen.try_recv() {
            leaderships += usize::from(started);
        }
        for (_, cancel, _) in &candidates {
            cancel.cancel();
        }
    }
    eprintln!("8 seeds: leadership started {leaderships} times, never two at once");
    assert!(
        leaderships > 8,
        "leadership changed hands under the faults: {leaderships}"
    );
}

/// Where a test's log lines go.
struct Captured(Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A lease request refused by RBAC (403: the Role does not cover the lease's namespace) is
/// logged as a warning that names the fix, as client-go logs it as an error: a candidate that
/// can never lead must not be silent.
#[tokio::test(start_paused = true)]
async fn a_lease_request_refused_by_rbac_should_be_logged_as_a_warning() {
    let logs = Arc::new(std::sync::Mutex::new(Vec::<u8>::new()));
    let subscriber = tracing_subscriber::fmt()
        .with_writer({
            let logs = logs.clone();
            move || Captured(logs.clone())
        })
        .with_ansi(false)
        .with_max_level(tracing::Level::INFO)
        .finish();
    let _logging = tracing::subscriber::set_default(subscriber);
    let server = FakeApiServer::new();
    let refusal = "leases.coordination.k8s.io \"controller101\" is forbidden: User \"system:serviceaccount:ns:sa\" cannot get resource \"leases\"";
    server.fail_next(1, "get", "leases", ApiStatus::forbidden(refusal));
    let (events, _seen) = mpsc::unbounded_channel();
    let (_elector, cancel, task) = candidate(&server, config("a", false), events, Arc::new(Leaders::default()));
    tokio::time::sleep(Duration::from_secs(5)).await;
    cancel.cancel();
    task.await.unwrap();
    let logs = String::from_utf8(logs.lock().unwrap().clone()).unwrap();
    assert!(
        logs.contains("WARN") && logs.contains("could not read the lease: grant this controller's service account"),
        "{logs}"
    );
    assert!(
        logs.contains("kube-system/controller101") && logs.contains("cannot get resource"),
        "{logs}"
    );
}
