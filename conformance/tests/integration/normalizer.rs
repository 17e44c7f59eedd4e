//! The port is checked on the corpus itself: normalizing each recorded raw response must give
//! the normalized form the recorder stored beside it, and rendering each scenario step with the
//! recorded variables must give the request the recorder sent.

use conformance::node::Node;
use conformance::normalize::Normalizer;
use conformance::runner::rendered_request;
use conformance::scenario::Env;
use conformance::{Corpus, corpus_dir};
use serde_json::Value;

fn corpus() -> Corpus {
    Corpus::load(&corpus_dir()).expect("the corpus loads")
}

#[test]
fn normalizer_reproduces_every_recorded_normalized_form() {
    let corpus = corpus();
    let mut mismatches = Vec::new();
    let mut checked = 0;
    for (name, transcript) in &corpus.recorded {
        let mut normalizer = Normalizer::new(transcript);
        let steps = transcript["steps"].as_array().expect("steps");
        for (step, normalized) in steps.iter().zip(normalizer.steps(transcript)) {
            checked += 1;
            let recorded = &step["normalized"];
            if recorded["hard"] != normalized.hard || recorded["soft"] != normalized.soft {
                mismatches.push(format!(
                    "{name} / {}:\n  recorded {}\n  ours     {}",
                    step["name"],
                    serde_json::json!({"hard": recorded["hard"], "soft": recorded["soft"]}),
                    serde_json::json!({"hard": normalized.hard, "soft": normalized.soft}),
                ));
            }
        }
    }
    assert!(checked >= 300, "only {checked} steps in the corpus");
    assert!(
        mismatches.is_empty(),
        "{} of {checked} steps normalize differently:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}

#[test]
fn runner_renders_every_recorded_request() {
    let corpus = corpus();
    let mut mismatches = Vec::new();
    for scenario in &corpus.scenarios {
        let transcript = &corpus.recorded[&scenario.name];
        let mut env = Env::new();
        env.insert("ns".into(), Node::from_value(&transcript["namespace"]));
        env.insert("run".into(), Node::from_value(&transcript["run"]));
        if let Some(Node::Map(vars)) = &scenario.vars {
            env.extend(vars.iter().cloned());
        }
        let recorded_steps = transcript["steps"].as_array().expect("steps");
        assert_eq!(
            recorded_steps.len(),
            scenario.steps.len(),
            "{}: step count",
            scenario.name
        );
        for (step, recorded) in scenario.steps.iter().zip(recorded_steps) {
            let mut request = rendered_request(step, &env);
            if step.watch.is_some() {
                // The watch parameters are added when the watch is sent.
                request["query"] = recorded["request"]["query"].clone();
            }
            if request != recorded["request"] {
                mismatches.push(format!(
                    "{} / {}:\n  recorded {}\n  ours     {}",
                    scenario.name, recorded["name"], recorded["request"], request
                ));
            }
            for (var, value) in recorded["captured"].as_object().into_iter().flatten() {
                match value {
                    Value::Null => env.remove(var),
                    value => env.insert(var.clone(), Node::from_value(value)),
                };
            }
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} requests render differently:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}
