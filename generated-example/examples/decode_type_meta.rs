//! What the `ApiVersion`/`Kind` fields cost when decoding: the same VirtualMachine JSON (as a
//! server sends it, with `apiVersion` and `kind`) decoded into the generated type and into the
//! same struct without the two fields (where serde skips them as unknown keys), interleaved in
//! one process so the machine's noise hits both alike.
//!
//! `cargo run --release -p generated-example --example decode_type_meta [objects] [rounds]`

use std::collections::BTreeMap;
use std::time::Instant;

use generated_example::apis::cloudnative::v1alpha1::{
    ResourceRequest, ResourceUsage, ServerStatus, VirtualMachine, VirtualMachineSpec, VirtualMachineStatus,
};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};
use serde::Deserialize;

/// VirtualMachine as it was before it carried its TypeMeta.
#[derive(Deserialize)]
#[allow(dead_code)]
struct WithoutTypeMeta {
    metadata: ObjectMeta,
    spec: VirtualMachineSpec,
    #[serde(default)]
    status: Option<VirtualMachineStatus>,
}

fn object(index: usize) -> Vec<u8> {
    let labels: BTreeMap<String, String> = [("app", "vm"), ("tier", "gold"), ("zone", "a")]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), format!("{v}-{}", index % 7)))
        .collect();
    let vm = VirtualMachine {
        metadata: ObjectMeta {
            name: Some(format!("vm-{index:06}")),
            namespace: Some(format!("ns-{:03}", index % 100)),
            uid: Some(format!("5f0c7d3e-0000-4000-8000-{index:012}")),
            resource_version: Some((1_000_000 + index).to_string()),
            generation: Some(3),
            creation_timestamp: Some(Time("2026-11-23T10:00:00Z".parse().unwrap())),
            labels: Some(labels),
            annotations: Some(BTreeMap::from([("note".to_owned(), "x".repeat(120))])),
            finalizers: Some(vec!["cloudnative.tw/server".to_owned()]),
            ..ObjectMeta::default()
        },
        spec: VirtualMachineSpec {
            action: "active".into(),
            resource: ResourceRequest {
                cpu: Quantity("2".into()),
                memory: Quantity("4Gi".into()),
                root_disk: Some(Quantity("40Gi".into())),
            },
        },
        status: Some(VirtualMachineStatus {
            phase: "Active".into(),
            reason: "the server is running".into(),
            server: ServerStatus {
                id: format!("srv-{index:08}"),
                state: "running".into(),
                usage: ResourceUsage {
                    cpu: 12.5,
                    memory: 40.25,
                },
            },
            last_update_time: Some(Time("2026-11-23T10:05:00Z".parse().unwrap())),
        }),
        ..Default::default()
    };
    serde_json::to_vec(&vm).expect("a VirtualMachine serializes")
}

/// Objects per second decoding every document of `docs` as `T`.
fn rate<T: for<'de> Deserialize<'de>>(docs: &[Vec<u8>]) -> f64 {
    let start = Instant::now();
    for doc in docs {
        let decoded: T = serde_json::from_slice(doc).expect("the document decodes");
        std::hint::black_box(decoded);
    }
    docs.len() as f64 / start.elapsed().as_secs_f64()
}

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn main() {
    let mut args = std::env::args().skip(1).map(|a| a.parse::<usize>().expect("a number"));
    let (objects, rounds) = (args.next().unwrap_or(100_000), args.next().unwrap_or(7));
    let docs: Vec<Vec<u8>> = (0..objects).map(object).collect();
    let bytes = docs.iter().map(Vec::len).sum::<usize>() / objects;
    let (mut with, mut without) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        without.push(rate::<WithoutTypeMeta>(&docs));
        with.push(rate::<VirtualMachine>(&docs));
    }
    let (with, without) = (median(with), median(without));
    println!("{objects} VirtualMachines of {bytes} B JSON, median of {rounds} interleaved rounds:");
    println!("  without ApiVersion/Kind fields: {:.0} objects/s", without);
    println!("  with ApiVersion/Kind fields:    {:.0} objects/s", with);
    println!("  ratio: {:.3}", with / without);
}
