//! Kubernetes versions and the CRD features that need a newer one than the oldest supported:
//! what `--min-kube-version` (and the derive's `min_kube_version`) is checked against, so a CRD
//! that a 1.28 cluster refuses (`unknown field "spec.versions[0].selectableFields"`) is an error
//! where it is generated, not where it is applied.

use std::fmt;
use std::str::FromStr;

/// A Kubernetes minor release, `1.<minor>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KubeVersion {
    /// The minor version: 28 for 1.28.
    pub minor: u32,
}

impl KubeVersion {
    /// The oldest Kubernetes kube-codegen supports, and the default minimum.
    pub const OLDEST_SUPPORTED: Self = Self { minor: 28 };

    /// Kubernetes `1.<minor>`.
    pub const fn new(minor: u32) -> Self {
        Self { minor }
    }
}

impl Default for KubeVersion {
    fn default() -> Self {
        Self::OLDEST_SUPPORTED
    }
}

impl fmt::Display for KubeVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "1.{}", self.minor)
    }
}

/// A minimum version that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KubeVersionError {
    /// Not `1.<minor>`.
    #[error("{0:?} is not a Kubernetes version: write it as 1.<minor>, e.g. 1.28")]
    Malformed(String),
    /// Older than kube-codegen supports.
    #[error("Kubernetes {0} is older than kube-codegen supports: the minimum is at least {min}", min = KubeVersion::OLDEST_SUPPORTED)]
    TooOld(KubeVersion),
}

impl FromStr for KubeVersion {
    type Err = KubeVersionError;

    /// `1.28`, `v1.28` or `1.28.7` (the patch release changes no API).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let malformed = || KubeVersionError::Malformed(text.to_owned());
        let trimmed = text.trim();
        let digits = trimmed.strip_prefix('v').unwrap_or(trimmed);
        let mut parts = digits.split('.');
        let (Some("1"), Some(minor), patch, None) = (parts.next(), parts.next(), parts.next(), parts.next()) else {
            return Err(malformed());
        };
        let number = |part: &str| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
        if !number(minor) || patch.is_some_and(|p| !number(p)) {
            return Err(malformed());
        }
        let version = Self::new(minor.parse().map_err(|_| malformed())?);
        if version < Self::OLDEST_SUPPORTED {
            return Err(KubeVersionError::TooOld(version));
        }
        Ok(version)
    }
}

/// A CRD feature that not every supported Kubernetes has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CrdFeature {
    /// The CRD field, as kube-apiserver's errors name it.
    pub field: &'static str,
    /// The marker (and argument) that emits it.
    pub marker: &'static str,
    /// The first release that accepts it without a feature gate.
    pub since: KubeVersion,
    /// Its history, for the error.
    pub history: &'static str,
}

impl CrdFeature {
    /// Whether a minimum of `min` is too old for `self`.
    pub fn needs_newer_than(&self, min: KubeVersion) -> bool {
        min < self.since
    }

    /// What is wrong with using `self` under `min` (when [`CrdFeature::needs_newer_than`] it).
    pub fn problem(&self, min: KubeVersion) -> String {
        format!(
            "{} (from {}) needs Kubernetes {} ({}), but the minimum Kubernetes version is {min}",
            self.field, self.marker, self.since, self.history
        )
    }

    /// The two ways out of [`CrdFeature::problem`].
    pub fn fix(&self) -> String {
        format!(
            "raise the minimum (codegen-cli --min-kube-version {since}, or #[codegen(min_kube_version = \"{since}\")] \
             on a derived type) or drop the marker",
            since = self.since
        )
    }
}

/// `spec.versions[*].selectableFields`.
pub const SELECTABLE_FIELDS: CrdFeature = CrdFeature {
    field: "selectableFields",
    marker: "+kubebuilder:selectablefield",
    since: KubeVersion::new(31),
    history: "alpha behind the CustomResourceFieldSelectors gate in 1.30, on by default from 1.31, GA in 1.32; \
              1.28 and 1.29 refuse the CRD",
};

/// `x-kubernetes-validations[*].optionalOldSelf`.
pub const OPTIONAL_OLD_SELF: CrdFeature = CrdFeature {
    field: "x-kubernetes-validations optionalOldSelf",
    marker: "+kubebuilder:validation:XValidation:optionalOldSelf",
    since: KubeVersion::new(30),
    history: "alpha behind the CRDValidationRatcheting gate in 1.29, on by default from 1.30; 1.28 refuses the CRD",
};

/// Every feature checked, for the manifest check and the documentation.
pub const CRD_FEATURES: [CrdFeature; 2] = [SELECTABLE_FIELDS, OPTIONAL_OLD_SELF];

/// The features of the CRD `crd` (as JSON) that need a newer Kubernetes than `min`, each with
/// where it is (`spec.versions[0].selectableFields`): the check of a finished manifest, which
/// also catches CRDs built by hand.
pub fn crd_features_newer_than(crd: &serde_json::Value, min: KubeVersion) -> Vec<(String, CrdFeature)> {
    let mut found = Vec::new();
    let versions = crd.pointer("/spec/versions").and_then(|v| v.as_array());
    for (index, version) in versions.into_iter().flatten().enumerate() {
        let at = format!("spec.versions[{index}]");
        let selectable = version.get("selectableFields").and_then(|v| v.as_array());
        if selectable.is_some_and(|fields| !fields.is_empty()) {
            found.push((format!("{at}.selectableFields"), SELECTABLE_FIELDS));
        }
        if let Some(schema) = version.pointer("/schema/openAPIV3Schema") {
            schema_features(schema, &format!("{at}.schema.openAPIV3Schema"), &mut found);
        }
    }
    found.retain(|(_, feature)| feature.needs_newer_than(min));
    found
}

/// The features used anywhere in the schema `schema` at `at`.
fn schema_features(schema: &serde_json::Value, at: &str, found: &mut Vec<(String, CrdFeature)>) {
    let Some(object) = schema.as_object() else {
        return;
    };
    let rules = object.get("x-kubernetes-validations").and_then(|v| v.as_array());
    for (index, rule) in rules.into_iter().flatten().enumerate() {
        if rule.get("optionalOldSelf").is_some() {
            found.push((
                format!("{at}.x-kubernetes-validations[{index}].optionalOldSelf"),
                OPTIONAL_OLD_SELF,
            ));
        }
    }
    let properties = object.get("properties").and_then(|v| v.as_object());
    for (name, property) in properties.into_iter().flatten() {
        schema_features(property, &format!("{at}.properties[{name}]"), found);
    }
    for key in ["items", "additionalProperties"] {
        if let Some(nested) = object.get(key) {
            schema_features(nested, &format!("{at}.{key}"), found);
        }
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        let alternatives = object.get(key).and_then(|v| v.as_array());
        for (index, nested) in alternatives.into_iter().flatten().enumerate() {
            schema_features(nested, &format!("{at}.{key}[{index}]"), found);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_crd_is_searched_for_every_newer_feature_with_where_it_is() {
        let crd = serde_json::json!({ "spec": { "versions": [
            { "name": "v1", "selectableFields": [], "schema": { "openAPIV3Schema": { "properties": {
                "spec": { "x-kubernetes-validations": [{ "rule": "self.a == 1" }] } } } } },
            { "name": "v2", "selectableFields": [{ "jsonPath": ".spec.a" }], "schema": { "openAPIV3Schema": {
                "properties": { "spec": { "properties": { "items": { "type": "array", "items": {
                    "x-kubernetes-validations": [{ "rule": "self == oldSelf", "optionalOldSelf": true }] } } } } } } } },
        ] } });
        let found = crd_features_newer_than(&crd, KubeVersion::OLDEST_SUPPORTED);
        let places: Vec<&str> = found.iter().map(|(at, _)| at.as_str()).collect();
        assert_eq!(
            places,
            [
                "spec.versions[1].selectableFields",
                "spec.versions[1].schema.openAPIV3Schema.properties[spec].properties[items].items.x-kubernetes-validations[0].optionalOldSelf",
            ]
        );
        assert_eq!(crd_features_newer_than(&crd, KubeVersion::new(30)).len(), 1);
        assert!(crd_features_newer_than(&crd, KubeVersion::new(31)).is_empty());
    }

    #[test]
    fn versions_parse_as_kubectl_prints_them() {
        for text in ["1.28", "v1.28", "1.28.7", " 1.28 "] {
            assert_eq!(text.parse(), Ok(KubeVersion::new(28)), "{text}");
        }
        assert_eq!("1.31".parse::<KubeVersion>().unwrap().to_string(), "1.31");
        for bad in ["", "1", "2.28", "1.x", "1.28.", "1.28.7.1", "v1.-3"] {
            assert_eq!(
                bad.parse::<KubeVersion>(),
                Err(KubeVersionError::Malformed(bad.to_owned())),
                "{bad}"
            );
        }
        assert_eq!(
            "1.27".parse::<KubeVersion>(),
            Err(KubeVersionError::TooOld(KubeVersion::new(27)))
        );
    }

    #[test]
    fn a_feature_is_refused_below_its_version_with_both_fixes() {
        assert!(SELECTABLE_FIELDS.needs_newer_than(KubeVersion::OLDEST_SUPPORTED));
        let problem = SELECTABLE_FIELDS.problem(KubeVersion::OLDEST_SUPPORTED);
        assert!(problem.contains("needs Kubernetes 1.31"), "{problem}");
        assert!(problem.ends_with("the minimum Kubernetes version is 1.28"), "{problem}");
        let fix = SELECTABLE_FIELDS.fix();
        assert!(fix.contains("--min-kube-version 1.31"), "{fix}");
        assert!(fix.contains("min_kube_version = \"1.31\""), "{fix}");
        assert!(fix.ends_with("drop the marker"), "{fix}");
        assert!(!SELECTABLE_FIELDS.needs_newer_than(KubeVersion::new(31)));
        assert!(!OPTIONAL_OLD_SELF.needs_newer_than(KubeVersion::new(30)));
    }
}
