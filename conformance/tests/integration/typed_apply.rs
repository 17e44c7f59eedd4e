//! The corpus' server-side-apply scenario replayed through typed clients: each apply step's body
//! read into a generated apply configuration (`WidgetApplyConfiguration`) or a k8s-openapi type
//! (`ConfigMap`), sent with `apply(&config, &ApplyOptions)` or kube's `Api::patch` with
//! `ApplyOptions::patch_params()`, and the server's raw answer compared with kube-apiserver's as
//! the raw replay compares it. What the typed path serializes (fields left out when unset,
//! apiVersion and kind, the field manager and force in the query) must get the answers the
//! recorded requests got.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use bytes::Bytes;
use codegen_runtime::ApplyOptions;
use conformance::compare::{Verdict, compare};
use conformance::expect::{Expectations, Outcome};
use conformance::node::Node;
use conformance::runner::{Recorder, random_id, rendered_request, response_record};
use conformance::scenario::Env;
use conformance::{Corpus, corpus_dir, crate_dir, report};
use fake_apiserver::{FakeApiServer, FakeService, HandlerPanicked};
use http_body_util::{BodyExt, Full};
use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use kube::api::{Api, Patch};
use serde_json::{Value, json};

mod widgets {
    pub mod v1 {
        use std::collections::BTreeMap;

        use codegen_macros::Codegen;
        use codegen_runtime::{ApiVersion, Kind};
        use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
        use serde::{Deserialize, Serialize};

        /// The corpus' Widget (`widgets.conformance.example.com`), as a user would type it.
        ///
        /// +genclient
        /// +groupName=conformance.example.com
        #[derive(Codegen, Debug, Default, PartialEq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct Widget {
            pub api_version: ApiVersion<Self>,
            pub kind: Kind<Self>,
            pub metadata: ObjectMeta,
            pub spec: WidgetSpec,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub status: Option<WidgetStatus>,
        }

        /// The desired widget.
        #[derive(Codegen, Debug, Default, PartialEq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct WidgetSpec {
            pub size: String,
            pub replicas: Option<i64>,
            pub color: Option<String>,
            /// +listType=map
            /// +listMapKey=name
            #[serde(default)]
            pub ports: Vec<WidgetPort>,
            /// +listType=set
            #[serde(default)]
            pub tags: Vec<String>,
            pub extra: Option<serde_json::Value>,
            pub settings: Option<BTreeMap<String, String>>,
        }

        /// A named port.
        #[derive(Codegen, Debug, Default, PartialEq, Serialize, Deserialize)]
        pub struct WidgetPort {
            pub name: String,
            pub port: Option<i64>,
            pub protocol: Option<String>,
        }

        /// What the widget's controller saw.
        #[derive(Codegen, Debug, Default, PartialEq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct WidgetStatus {
            pub ready: Option<bool>,
            pub phase: Option<String>,
            pub replicas: Option<i64>,
            pub selector: Option<String>,
            pub observed_generation: Option<i64>,
        }
    }
}

use widgets::v1::{WidgetApplyConfiguration, WidgetClient};

/// The raw answers of the server, in order: what the typed calls got on the wire.
type Answers = Arc<Mutex<Vec<http::Response<Bytes>>>>;

/// The in-memory server's service, keeping a copy of every answer.
#[derive(Clone)]
struct Keeping {
    inner: FakeService,
    answers: Answers,
}

impl tower::Service<http::Request<kube::client::Body>> for Keeping {
    type Response = http::Response<Full<Bytes>>;
    type Error = HandlerPanicked;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, HandlerPanicked>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), HandlerPanicked>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<kube::client::Body>) -> Self::Future {
        let (mut inner, answers) = (self.inner.clone(), self.answers.clone());
        Box::pin(async move {
            let response = tower::Service::call(&mut inner, request).await?;
            let (head, body) = response.into_parts();
            let bytes = body.collect().await.map(|c| c.to_bytes()).unwrap_or_default();
            answers
                .lock()
                .unwrap()
                .push(http::Response::from_parts(head.clone(), bytes.clone()));
            Ok(http::Response::from_parts(head, Full::new(bytes)))
        })
    }
}

/// One step of the scenario sent through a typed client; the raw answer is then read from the
/// kept answers.
async fn send_typed(client: &kube::Client, request: &Value, namespace: &str) -> Result<(), kube::Error> {
    let query = &request["query"];
    let text = |key: &str| query[key].as_str().unwrap_or_default().to_owned();
    let mut options = ApplyOptions::new(text("fieldManager"));
    if text("force") == "true" {
        options = options.force();
    }
    // A string body is YAML, sent as it is by the recorder; the typed client sends it as JSON.
    let body = match &request["body"] {
        Value::String(yaml) => serde_saphyr::from_str::<Value>(yaml).expect("the step's YAML body"),
        other => other.clone(),
    };
    let path = request["path"].as_str().unwrap_or_default();
    let name = path.rsplit('/').next().unwrap_or_default();
    if path.contains("/widgets/") {
        let config: WidgetApplyConfiguration = serde_json::from_value(body).expect("a Widget apply configuration");
        WidgetClient::namespaced(client.clone(), namespace)
            .apply(&config, &options)
            .await
            .map(drop)
    } else if body["kind"] == "Secret" {
        // A body of another kind than the endpoint's: kube's `Api` sends any serializable patch.
        let secret: Secret = serde_json::from_value(body).expect("a Secret");
        let configmaps = Api::<ConfigMap>::namespaced(client.clone(), namespace);
        configmaps
            .patch(name, &options.patch_params(), &Patch::Apply(&secret))
            .await
            .map(drop)
    } else {
        let configmap: ConfigMap = serde_json::from_value(body).expect("a ConfigMap");
        let configmaps = Api::<ConfigMap>::namespaced(client.clone(), namespace);
        configmaps
            .patch(name, &options.patch_params(), &Patch::Apply(&configmap))
            .await
            .map(drop)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_apply_scenario_should_answer_typed_clients_as_kube_apiserver_answered() {
    let corpus = Corpus::load(&corpus_dir()).expect("the corpus loads");
    let expectations = Expectations::load(&crate_dir()).expect("the expectation files load");
    let scenario_named = |name: &str| {
        corpus
            .scenarios
            .iter()
            .find(|s| s.name == name)
            .unwrap_or_else(|| panic!("the corpus has {name}"))
    };
    let scenario = scenario_named("server-side-apply");
    let real = &corpus.recorded[&scenario.name];

    let server = FakeApiServer::new();
    let answers = Answers::default();
    let typed = kube::Client::new(
        Keeping {
            inner: server.service(),
            answers: answers.clone(),
        },
        "default",
    );
    let raw = Recorder::new(server.client(), "typed");
    raw.run(scenario_named("crd-setup"), "scenarios.yaml", &random_id(6))
        .await;

    let namespace = format!("cf-typed-apply-{}", random_id(5));
    let mut env = Env::new();
    env.insert("ns".into(), Node::String(namespace.clone()));
    let created = Api::<k8s_openapi::api::core::v1::Namespace>::all(server.client())
        .create(
            &Default::default(),
            &serde_json::from_value(json!({"metadata": {"name": namespace}})).unwrap(),
        )
        .await;
    created.expect("the scenario's namespace");

    // Timestamps normalize to "<now>" when they are close to when the run was recorded.
    let recorded_at = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs_f64();
    let mut steps = Vec::new();
    let mut typed_steps = BTreeMap::new();
    for step in &scenario.steps {
        let request = rendered_request(step, &env);
        if request["headers"]["Content-Type"] != "application/apply-patch+yaml" {
            steps.push(raw.run_step(step, "step", &mut env).await);
            continue;
        }
        let outcome = send_typed(&typed, &request, &namespace).await;
        let answer = answers
            .lock()
            .unwrap()
            .pop()
            .expect("the typed call reached the server");
        let code = answer.status();
        assert_eq!(
            outcome.is_ok(),
            code.is_success(),
            "{:?}: the typed call's result agrees with the answer {code}: {outcome:?}",
            step.name
        );
        let name = step.name.clone().unwrap_or_default();
        typed_steps.insert(name.clone(), code.as_u16());
        steps.push(json!({
            "name": name,
            "spec": step.spec(),
            "request": request,
            "response": response_record(answer.map(Full::new)).await,
        }));
    }
    let ours = json!({
        "scenario": scenario.name, "category": scenario.category, "source": "typed clients",
        "server": "typed", "namespace": namespace, "run": "typed", "recordedAt": recorded_at, "setup": [], "steps": steps, "cleanup": [],
    });

    let results = compare(real, &ours);
    println!("{}", report::summary(&results, &expectations));
    assert_eq!(
        typed_steps.len(),
        10,
        "every apply step went through a typed client: {typed_steps:?}"
    );
    // Every apply step is identical in the raw replay, so the typed one must be too.
    let other: Vec<String> = results
        .iter()
        .filter(|r| typed_steps.contains_key(&r.step) && r.verdict != Verdict::Identical)
        .map(|r| report::describe(r, true, 20))
        .collect();
    assert!(
        other.is_empty(),
        "typed apply steps answered otherwise than kube-apiserver:\n{}",
        other.join("\n")
    );
    let regressed = results.iter().filter(|r| expectations.judge(r) == Outcome::Regressed);
    assert_eq!(
        regressed.count(),
        0,
        "the raw steps between them answer as in the raw replay"
    );
}
