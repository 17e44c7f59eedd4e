//! Every name the generator derives: gengo's pluralizer (with exceptions), the lowercase resource
//! name, Go-style group names, and each identifier generated code declares. Emitters and the
//! checks that keep generated items from colliding with the API's both read these functions.

use std::collections::BTreeMap;

use heck::ToSnakeCase;
use quote::format_ident;
use syn::Ident;

use crate::genclient::verb::Verb;

/// gengo's plural namer (`v2/namer/plural_namer.go`): exceptions first, then by the last
/// letter. (The project reference's "on → a" rule is not in gengo; `Configuration` stays
/// `Configurations`.)
pub fn plural(singular: &str, exceptions: &BTreeMap<String, String>) -> String {
    if let Some(plural) = exceptions.get(singular) {
        return plural.clone();
    }
    let chars: Vec<char> = singular.chars().collect();
    if chars.len() < 2 {
        return singular.to_owned();
    }
    let (last, before) = (chars[chars.len() - 1], chars[chars.len() - 2]);
    let without_last = &singular[..singular.len() - last.len_utf8()];
    match last {
        's' | 'x' | 'z' => format!("{singular}es"),
        'y' if is_consonant(before) => format!("{without_last}ies"),
        'h' if before == 'c' || before == 's' => format!("{singular}es"),
        // gengo's vesPlural: Life → Lives, Leaf → Leaves.
        'e' if before == 'f' => format!("{}ves", &without_last[..without_last.len() - 1]),
        'f' => format!("{without_last}ves"),
        _ => format!("{singular}s"),
    }
}

/// gengo's consonants: lowercase only, as its `isConsonant` compares.
fn is_consonant(c: char) -> bool {
    "bcdfghjklmnpqrstvwxyz".contains(c)
}

/// The REST resource (URL segment): the all-lowercase plural, e.g. `virtualmachines`.
pub fn resource(singular: &str, exceptions: &BTreeMap<String, String>) -> String {
    plural(singular, exceptions).to_lowercase()
}

/// client-gen's group Go name: the first dot-separated segment, capitalised
/// (`samplecontroller.k8s.io` → `Samplecontroller`); hyphens are dropped as Go identifiers need.
pub fn group_go_name(group: &str) -> String {
    let first = group.split('.').next().unwrap_or_default();
    let mut name = String::new();
    for part in first.split('-') {
        let mut chars = part.chars();
        if let Some(c) = chars.next() {
            name.extend(c.to_uppercase());
            name.push_str(chars.as_str());
        }
    }
    name
}

/// The Rust method name of a Go-style name: `CloudnativeV1alpha1` → `cloudnative_v1alpha1`,
/// `VirtualMachines` → `virtual_machines`.
pub fn method(go_name: &str) -> String {
    let name = go_name.to_snake_case();
    // A group or kind named like a Rust keyword (`type.example.io`, kind `Type`) gets a raw
    // identifier; `format_ident!` turns the `r#` prefix into one.
    if syn::parse_str::<Ident>(&name).is_err() && syn::parse_str::<Ident>(&format!("r#{name}")).is_ok() {
        format!("r#{name}")
    } else {
        name
    }
}

/// The text with its first letter upper-cased (gengo's `IC`).
pub fn upper_first(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// The group's Go name: `+groupGoName` upper-cased as client-gen's `namer.IC` does, or derived
/// from the group.
pub fn resolved_group_go_name(group: &str, explicit: Option<&str>) -> String {
    match explicit {
        Some(name) => upper_first(name),
        None => group_go_name(group),
    }
}

/// The CRD's name: `<resource>.<group>`.
pub fn crd(resource: &str, group: &str) -> String {
    format!("{resource}.{group}")
}

/// The version module's constant holding its API group.
pub const GROUP_NAME_CONST: &str = "GROUP_NAME";

/// The version module's constant holding its API version.
pub const VERSION_CONST: &str = "VERSION";

/// client-gen's group-version name, e.g. `CloudnativeV1alpha1`.
fn group_version(group_go_name: &str, version: &str) -> String {
    format!("{group_go_name}{}", upper_first(version))
}

/// A package's group-version client, e.g. `CloudnativeV1alpha1Client`.
pub fn group_version_client(group_go_name: &str, version: &str) -> Ident {
    format_ident!("{}Client", group_version(group_go_name, version))
}

/// The clientset's accessor of a group-version client, e.g. `cloudnative_v1alpha1`.
pub fn group_version_method(group_go_name: &str, version: &str) -> Ident {
    format_ident!("{}", method(&group_version(group_go_name, version)))
}

/// A package's informer accessor, e.g. `CloudnativeV1alpha1Informers`.
pub fn version_informers(group_go_name: &str, version: &str) -> Ident {
    format_ident!("{}Informers", group_version(group_go_name, version))
}

/// A group's informer accessor in the factory, e.g. `CloudnativeInformers`.
pub fn group_informers(group_go_name: &str) -> Ident {
    format_ident!("{group_go_name}Informers")
}

/// The factory's method handing out a group's informers, e.g. `cloudnative`.
pub fn group_method(group_go_name: &str) -> Ident {
    format_ident!("{}", method(group_go_name))
}

/// A type's typed client, e.g. `VirtualMachineClient` (spanned by the type).
pub fn typed_client(kind: &Ident) -> Ident {
    format_ident!("{}Client", kind)
}

/// A type's lister, e.g. `VirtualMachineLister`.
pub fn lister(kind: &Ident) -> Ident {
    format_ident!("{}Lister", kind)
}

/// A namespaced type's per-namespace lister, e.g. `VirtualMachineNamespaceLister`.
pub fn namespace_lister(kind: &Ident) -> Ident {
    format_ident!("{}NamespaceLister", kind)
}

/// A type's informer, e.g. `VirtualMachineInformer`.
pub fn informer(kind: &Ident) -> Ident {
    format_ident!("{}Informer", kind)
}

/// A type's apply configuration, e.g. `VirtualMachineApplyConfiguration`.
pub fn apply_configuration(kind: &Ident) -> Ident {
    format_ident!("{}ApplyConfiguration", kind)
}

/// The function that extracts what a field manager applied to a type, e.g.
/// `extract_virtual_machine`, or `extract_virtual_machine_status` for its status.
pub fn extract_function(kind: &Ident, status: bool) -> Ident {
    let suffix = if status { "_status" } else { "" };
    format_ident!("extract_{}{}", kind.to_string().to_snake_case(), suffix)
}

/// The getter of a type's client, lister or informer, from its Go-style plural, e.g.
/// `virtual_machines`.
pub fn resource_method(plural: &str) -> Ident {
    format_ident!("{}", method(plural))
}

/// The hidden macro through which `clientset!` reaches a derived type.
pub fn accessors_macro(kind: &Ident) -> Ident {
    format_ident!("__codegen_accessors_{}", kind)
}

/// A typed client's method for `verb`, e.g. `update_status`.
pub fn verb_method(verb: Verb) -> Ident {
    format_ident!("{}", verb.tag_name().to_snake_case())
}

/// A typed client's accessor of its `kube::Api`.
pub const API_METHOD: &str = "api";

/// A typed client's status patch, generated beside `patch` for a type with status.
pub const PATCH_STATUS_METHOD: &str = "patch_status";

/// Every method a typed client may have besides `+genclient:method` extensions.
pub fn typed_client_methods() -> Vec<String> {
    let verbs = Verb::ALL.into_iter().map(|verb| verb_method(verb).to_string());
    [API_METHOD.to_owned(), PATCH_STATUS_METHOD.to_owned()]
        .into_iter()
        .chain(verbs)
        .collect()
}

/// Whether `version` looks like a Kubernetes API version (`v1`, `v1alpha1`, `v2beta3`), the rule
/// code-generator uses to find version packages.
pub fn is_version(version: &str) -> bool {
    let Some(rest) = version.strip_prefix('v') else {
        return false;
    };
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    if digits == 0 {
        return false;
    }
    let rest = &rest[digits..];
    if rest.is_empty() {
        return true;
    }
    let rest = rest.strip_prefix("alpha").or_else(|| rest.strip_prefix("beta"));
    rest.is_some_and(|r| !r.is_empty() && r.chars().all(|c| c.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plural_should_follow_gengo() {
        let none = BTreeMap::new();
        let cases = [
            ("VirtualMachine", "VirtualMachines"),
            ("Foo", "Foos"),
            ("Ingress", "Ingresses"),
            ("Box", "Boxes"),
            ("Policy", "Policies"),
            ("Gateway", "Gateways"),
            ("Branch", "Branches"),
            ("Bash", "Bashes"),
            ("Graph", "Graphs"),
            ("Configuration", "Configurations"),
            ("Life", "Lives"),
            ("Leaf", "Leaves"),
            ("Fountain", "Fountains"),
            ("Key", "Keys"),
            ("Endpoints", "Endpointses"),
            ("A", "A"),
        ];
        for (singular, expected) in cases {
            assert_eq!(plural(singular, &none), expected, "{singular}");
        }
        let exceptions = BTreeMap::from([("Endpoints".to_owned(), "Endpoints".to_owned())]);
        assert_eq!(resource("Endpoints", &exceptions), "endpoints");
        assert_eq!(resource("VirtualMachine", &none), "virtualmachines");
    }

    #[test]
    fn group_and_method_names_should_match_client_gen() {
        assert_eq!(group_go_name("samplecontroller.k8s.io"), "Samplecontroller");
        assert_eq!(group_go_name("cloudnative.tw"), "Cloudnative");
        assert_eq!(group_go_name("example-group.dev"), "ExampleGroup");
        assert_eq!(method("CloudnativeV1alpha1"), "cloudnative_v1alpha1");
        assert_eq!(method("VirtualMachines"), "virtual_machines");
    }

    #[test]
    fn versions_should_be_recognised_like_code_generator() {
        for good in ["v1", "v1alpha1", "v2beta3", "v10"] {
            assert!(is_version(good), "{good}");
        }
        for bad in ["v", "version1", "v1alpha", "v1gamma1", "1"] {
            assert!(!is_version(bad), "{bad}");
        }
    }

    #[test]
    fn generated_identifiers_should_match_client_gen() {
        let kind = format_ident!("VirtualMachine");
        assert_eq!(upper_first("v1alpha1"), "V1alpha1");
        assert_eq!(
            resolved_group_go_name("cloudnative.tw", Some("exampleGroup")),
            "ExampleGroup"
        );
        assert_eq!(
            group_version_client("Cloudnative", "v1alpha1"),
            "CloudnativeV1alpha1Client"
        );
        assert_eq!(
            version_informers("Cloudnative", "v1alpha1"),
            "CloudnativeV1alpha1Informers"
        );
        assert_eq!(group_version_method("Cloudnative", "v1alpha1"), "cloudnative_v1alpha1");
        assert_eq!(namespace_lister(&kind), "VirtualMachineNamespaceLister");
        assert_eq!(verb_method(Verb::DeleteCollection), "delete_collection");
        assert_eq!(typed_client_methods().len(), 13);
    }

    #[test]
    fn keyword_method_names_should_become_raw_identifiers() {
        assert_eq!(method("Type"), "r#type");
        assert_eq!(method("AsyncV1"), "async_v1");
        assert_eq!(method("VirtualMachines"), "virtual_machines");
    }
}
