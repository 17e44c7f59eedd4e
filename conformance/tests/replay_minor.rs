//! The corpus' scenarios recorded on another minor (`corpus/real-v1.31.2/`, from the shared
//! corpus) replayed against the in-memory server set to that minor: where kube-apiserver's
//! answers changed between minors (a `/status` schema error's field path), the server follows
//! the minor it reports.

use conformance::compare::Verdict;
use conformance::runner::Recorder;
use conformance::{Corpus, corpus_dir, replay, report};
use fake_apiserver::FakeApiServer;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn corpus_recorded_on_1_31_should_replay_against_the_server_set_to_1_31() {
    let corpus = Corpus::load_recorded(&corpus_dir(), "real-v1.31.2").expect("the 1.31 transcripts load");
    assert!(
        corpus.scenarios.len() >= 28,
        "the shared corpus' scenarios are recorded on 1.31"
    );
    let server = FakeApiServer::builder()
        .kube_version("v1.31.2")
        .authentication(true)
        .build();
    let (results, _) = replay(&corpus, &Recorder::new(server.client(), "in-process"), |_| true).await;
    let differing: Vec<String> = results
        .iter()
        .filter(|r| r.verdict == Verdict::Differ)
        .map(|r| report::describe(r, true, 10))
        .collect();
    assert!(
        differing.is_empty(),
        "{} steps differ on 1.31:\n{}",
        differing.len(),
        differing.join("\n")
    );
}
