//! Names derived from a type name: gengo's pluralizer (with exceptions), the lowercase resource
//! name, Go-style public names, and the Rust method names generated code uses.

use std::collections::BTreeMap;

use heck::ToSnakeCase;

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
    if syn::parse_str::<syn::Ident>(&name).is_err() && syn::parse_str::<syn::Ident>(&format!("r#{name}")).is_ok() {
        format!("r#{name}")
    } else {
        name
    }
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
    fn keyword_method_names_should_become_raw_identifiers() {
        assert_eq!(method("Type"), "r#type");
        assert_eq!(method("AsyncV1"), "async_v1");
        assert_eq!(method("VirtualMachines"), "virtual_machines");
    }
}
