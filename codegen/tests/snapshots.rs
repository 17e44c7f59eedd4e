//! Snapshots of every artifact for every fixture, and of the diagnostics for bad input. Review
//! snapshot changes as carefully as code: they are the generated code users get.

use codegen::emit;
use codegen::kube_version::KubeVersion;
use codegen::model::{Options, Package, package};

/// `(group directory, version)` of each fixture under `tests/fixtures`.
const FIXTURES: [(&str, &str); 3] = [
    ("cloudnative", "v1alpha1"),
    ("samplecontroller", "v1alpha1"),
    ("edge", "v1"),
];

fn source(group: &str, version: &str) -> String {
    let path = format!("{}/tests/fixtures/{group}/{version}.rs", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"))
}

fn load(group: &str, version: &str) -> Package {
    let file = syn::parse_file(&source(group, version)).expect("fixtures are Rust");
    package(&file, group, version, &fixture_options()).unwrap_or_else(|errors| {
        let messages: Vec<String> = errors.into_vec().into_iter().map(|d| d.text()).collect();
        panic!("fixture {group}/{version} has errors: {messages:#?}")
    })
}

fn pretty(tokens: proc_macro2::TokenStream) -> String {
    prettyplease::unparse(&syn::parse2(tokens).expect("emitters produce items"))
}

#[test]
fn registration_should_match_its_snapshots() {
    for (group, version) in FIXTURES {
        insta::assert_snapshot!(
            format!("register__{group}_{version}"),
            pretty(emit::registration(&load(group, version)))
        );
    }
}

#[test]
fn deepcopy_should_match_its_snapshots() {
    for (group, version) in FIXTURES {
        insta::assert_snapshot!(
            format!("deepcopy__{group}_{version}"),
            pretty(emit::deepcopy(&load(group, version)))
        );
    }
}

#[test]
fn apply_configurations_should_match_their_snapshots() {
    let config = codegen::Config::default();
    for (group, version) in FIXTURES {
        insta::assert_snapshot!(
            format!("apply__{group}_{version}"),
            pretty(emit::apply_configurations(&load(group, version), &config))
        );
    }
}

#[test]
fn clients_should_match_their_snapshots() {
    let config = codegen::Config::default();
    for (group, version) in FIXTURES {
        insta::assert_snapshot!(
            format!("clients__{group}_{version}"),
            pretty(emit::clients(&load(group, version), &config))
        );
    }
}

#[test]
fn listers_should_match_their_snapshots() {
    let config = codegen::Config::default();
    for (group, version) in FIXTURES {
        insta::assert_snapshot!(
            format!("listers__{group}_{version}"),
            pretty(emit::listers(&load(group, version), &config))
        );
    }
}

#[test]
fn informers_should_match_their_snapshots() {
    let config = codegen::Config::default();
    for (group, version) in FIXTURES {
        insta::assert_snapshot!(
            format!("informers__{group}_{version}"),
            pretty(emit::informers(&load(group, version), &config))
        );
    }
}

#[test]
fn the_model_should_follow_the_tags() {
    let edge = load("edge", "v1");
    assert_eq!(
        (edge.group.as_str(), edge.group_go_name.as_str()),
        ("example-group.hyphens.dev", "ExampleGroup")
    );
    let cluster = &edge.types[0];
    assert!(!cluster.genclient.as_ref().unwrap().namespaced);
    assert_eq!(cluster.genclient.as_ref().unwrap().methods.len(), 3);
    assert_eq!(edge.types[1].resource, "readonlypolicies");
    let vm = &load("cloudnative", "v1alpha1").types[0];
    assert_eq!(
        (vm.plural.as_str(), vm.resource.as_str()),
        ("VirtualMachines", "virtualmachines")
    );
    let derived = load("cloudnative", "v1alpha1")
        .types
        .iter()
        .find(|t| t.ident == "ResourceUsage")
        .unwrap()
        .deepcopy;
    assert!(!derived, "types that derive Clone get no generated impl");
    let columns = vm
        .markers
        .iter()
        .filter(|m| m.name == "kubebuilder:printcolumn")
        .count();
    assert_eq!(columns, 4);
    let foo = &load("samplecontroller", "v1alpha1").types[0];
    let spec = &load("samplecontroller", "v1alpha1").types[1];
    assert!(foo.markers.iter().any(|m| m.name == "kubebuilder:subresource:status"));
    let replicas = &spec
        .fields
        .iter()
        .find(|field| field.ident == "replicas")
        .unwrap()
        .markers;
    let names: Vec<&str> = replicas.iter().map(|m| m.name).collect();
    assert_eq!(
        names,
        [
            "optional",
            "kubebuilder:validation:Minimum",
            "kubebuilder:validation:Maximum"
        ]
    );
}

#[test]
fn every_problem_should_be_reported_at_once_with_its_place() {
    let source = source("bad", "v1");
    let file = syn::parse_file(&source).unwrap();
    // At the default minimum Kubernetes version, which a selectable field is newer than.
    let errors = package(&file, "bad", "v1", &Options::default()).expect_err("the fixture is bad");
    let mut located: Vec<(usize, usize, String)> = errors
        .iter()
        .map(|d| {
            let start = d.span.start();
            (start.line, start.column + 1, d.text())
        })
        .collect();
    located.sort();
    let report: Vec<String> = located
        .into_iter()
        .map(|(line, column, text)| format!("{line}:{column}: {text}"))
        .collect();
    insta::assert_snapshot!("diagnostics__bad_v1", report.join("\n"));
}

#[test]
fn crds_should_match_their_snapshots() {
    let config = codegen::Config::default();
    for (group, version) in FIXTURES {
        insta::assert_snapshot!(
            format!("crds__{group}_{version}"),
            pretty(emit::crds(&load(group, version), &config))
        );
    }
}

/// The fixtures' settings: the edge fixture's Gadget has a selectable field, which needs
/// Kubernetes 1.31 (its derive says so with `#[codegen(min_kube_version = "1.31")]`).
fn fixture_options() -> Options {
    Options {
        min_kube_version: KubeVersion::new(31),
        ..Options::default()
    }
}
