//! The `generated-crds` scenario measures this project's own CRDs against kube-apiserver: it
//! must install exactly what `deploy/crds/` holds, so that a change of the generator's output
//! is noticed here (re-record the scenario on a kube-apiserver, `corpus/README.md`) instead of
//! being compared against answers to another CRD.

use std::path::Path;

use conformance::{Corpus, corpus_dir};
use serde_json::Value;

/// The CRDs the scenario creates, in order.
fn installed_by_scenario() -> Vec<Value> {
    let corpus = Corpus::load(&corpus_dir()).expect("the corpus loads");
    let scenario = corpus
        .scenarios
        .iter()
        .find(|s| s.name == "generated-crds")
        .expect("the corpus has the generated-crds scenario");
    scenario
        .steps
        .iter()
        .filter(|step| step.method.as_deref() == Some("POST") && step.path.ends_with("/customresourcedefinitions"))
        .filter_map(|step| step.body.as_ref().map(|body| body.to_value()))
        .collect()
}

/// The CRDs in `deploy/crds/`, by file name.
fn generated() -> Vec<Value> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy/crds");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("deploy/crds is readable")
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|path| {
            let text = std::fs::read_to_string(path).expect("a CRD file is readable");
            serde_saphyr::from_str::<Value>(&text).unwrap_or_else(|e| panic!("{} is YAML: {e}", path.display()))
        })
        .collect()
}

#[test]
fn generated_crds_scenario_should_install_exactly_the_generated_crds() {
    let mut installed = installed_by_scenario();
    let mut generated = generated();
    let name = |crd: &Value| {
        crd.pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    installed.sort_by_key(name);
    generated.sort_by_key(name);
    assert_eq!(
        installed.len(),
        generated.len(),
        "one scenario CRD per file of deploy/crds"
    );
    for (installed, generated) in installed.iter().zip(&generated) {
        assert_eq!(
            installed,
            generated,
            "{} differs from deploy/crds: the generator changed; record the generated-crds scenario again on kube-apiserver",
            name(generated)
        );
    }
}
