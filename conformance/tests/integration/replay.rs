//! The corpus replayed against the in-memory API server, in process (its tower service under
//! `kube::Client`) and served over HTTP, each step compared with kube-apiserver's recorded answer.
//!
//! A step must be identical, allowlisted (`allowlist.yaml`, with the reason), or no worse than
//! its line in `pending.txt`; a pending line that a step now beats must be deleted. Set
//! `CONFORMANCE_BLESS=1` to rewrite `pending.txt` from this run; `CONFORMANCE_SUMMARY=FILE` to
//! write the served replay's table there.

use conformance::compare::StepResult;
use conformance::expect::{Expectations, Outcome, pending_file};
use conformance::runner::Recorder;
use conformance::{Corpus, corpus_dir, crate_dir, replay, report};

async fn in_process(corpus: &Corpus) -> Vec<StepResult> {
    let server = conformance::corpus_server();
    replay(corpus, &Recorder::new(server.client(), "in-process"), |_| true)
        .await
        .0
}

async fn served(corpus: &Corpus) -> Vec<StepResult> {
    let server = conformance::corpus_server();
    let served = server
        .serve("127.0.0.1:0".parse().expect("an address"))
        .await
        .expect("the server listens");
    let recorder = Recorder::for_config(served.kube_config(), served.url()).expect("a client for the served server");
    replay(corpus, &recorder, |_| true).await.0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn corpus_replays_as_kube_apiserver_answered() {
    let corpus = Corpus::load(&corpus_dir()).expect("the corpus loads");
    let expectations = Expectations::load(&crate_dir()).expect("the expectation files load");
    // Both modes at once: a replay mostly waits (sleeps and polls for controllers), not computes.
    let (in_process, served) = tokio::join!(in_process(&corpus), served(&corpus));
    let modes = [("in process", in_process), ("served", served)];

    if std::env::var_os("CONFORMANCE_BLESS").is_some() {
        let all: Vec<StepResult> = modes.iter().flat_map(|(_, r)| r.iter().cloned()).collect();
        std::fs::write(crate_dir().join("pending.txt"), pending_file(&expectations, &all))
            .expect("pending.txt written");
    }

    let mut failures = Vec::new();
    // A pending line is stale when the step beats it in every mode.
    let mut improved: std::collections::BTreeMap<(&String, &String), usize> = Default::default();
    for (mode, results) in &modes {
        let summary = report::summary(results, &expectations);
        println!("{mode}:\n{summary}");
        // `hack/test.sh` prints the table of the served replay from here rather than replaying
        // the corpus once more.
        if let Some(path) = std::env::var_os("CONFORMANCE_SUMMARY").filter(|_| *mode == "served") {
            std::fs::write(&path, &summary).expect("the summary file is writable");
        }
        for result in results {
            match expectations.judge(result) {
                Outcome::Met | Outcome::Allowed => {}
                Outcome::Regressed => failures.push(format!(
                    "{mode}: worse than expected ({}):\n{}",
                    expectations.expected(result).name(),
                    report::describe(result, true, 20)
                )),
                Outcome::Improved => *improved.entry((&result.scenario, &result.step)).or_default() += 1,
            }
        }
        for unused in expectations.unused_allowances(results) {
            failures.push(format!(
                "{mode}: allowlist entry {} / {} covers no difference any more: delete it",
                unused.scenario, unused.step
            ));
        }
    }
    for ((scenario, step), _) in improved.into_iter().filter(|(_, n)| *n == modes.len()) {
        failures.push(format!(
            "{scenario} / {step} does better than its line in pending.txt: update or delete it"
        ));
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
