//! The corpus recorded on another minor (`corpus/real-v1.31.2/`: every scenario, recorded on a
//! kube-apiserver v1.31.2 built with `shared/realapi/`) replayed against the in-memory server set
//! to that minor: where kube-apiserver's answers changed between minors, the server follows the
//! minor it reports. A step must be identical or no worse than its line in
//! `pending-v1.31.2.txt`, which only shrinks; `CONFORMANCE_BLESS=1` rewrites it from this run.

use conformance::expect::{Expectations, Outcome, pending_file};
use conformance::runner::Recorder;
use conformance::{Corpus, corpus_dir, crate_dir, replay, report};

const MINOR: &str = "v1.31.2";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn corpus_recorded_on_1_31_should_replay_against_the_server_set_to_1_31() {
    let corpus = Corpus::load_recorded(&corpus_dir(), &format!("real-{MINOR}")).expect("the 1.31 transcripts load");
    assert!(
        corpus.scenarios.len() >= 28,
        "the corpus' scenarios are recorded on 1.31"
    );
    let pending = format!("pending-{MINOR}.txt");
    let expectations = Expectations::load_with(&crate_dir(), &pending).expect("the expectation files load");
    let server = conformance::corpus_server_at(MINOR);
    let (results, _) = replay(&corpus, &Recorder::new(server.client(), "in-process"), |_| true).await;
    if std::env::var_os("CONFORMANCE_BLESS").is_some() {
        std::fs::write(crate_dir().join(&pending), pending_file(&expectations, &results))
            .expect("pending file written");
    }
    println!("{MINOR}:\n{}", report::summary(&results, &expectations));
    let mut failures = Vec::new();
    for result in &results {
        match expectations.judge(result) {
            Outcome::Met | Outcome::Allowed => {}
            Outcome::Regressed => failures.push(format!(
                "worse than expected ({}):\n{}",
                expectations.expected(result).name(),
                report::describe(result, true, 20)
            )),
            Outcome::Improved => failures.push(format!(
                "{} / {} now beats its line in {pending}: delete the line",
                result.scenario, result.step
            )),
        }
    }
    assert!(
        failures.is_empty(),
        "{} steps on {MINOR}:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
