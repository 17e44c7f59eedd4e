//! Several versions of one kind as one CRD, as a group that serves a kind in `v1` and `v2` needs.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1 as apiext;

use super::CrdError;

/// Merges the CRDs of one kind in several versions (in the order given) into one CRD, stored
/// in `storage_version`; the versions must agree on names and scope.
pub fn merge_versions(
    crds: Vec<apiext::CustomResourceDefinition>,
    storage_version: &str,
) -> Result<apiext::CustomResourceDefinition, CrdError> {
    let mut crds = crds.into_iter();
    let mut merged = crds.next().ok_or_else(|| CrdError::Merge {
        name: String::new(),
        why: "no versions given".to_owned(),
    })?;
    let name = merged.metadata.name.clone().unwrap_or_default();
    let mismatch = |why: String| CrdError::Merge {
        name: name.clone(),
        why,
    };
    for crd in crds {
        if crd.metadata.name != merged.metadata.name {
            return Err(mismatch(format!(
                "{:?} is another CRD",
                crd.metadata.name.unwrap_or_default()
            )));
        }
        if crd.spec.scope != merged.spec.scope {
            return Err(mismatch("the versions disagree on the scope".to_owned()));
        }
        if crd.spec.names != merged.spec.names {
            return Err(mismatch(
                "the versions disagree on the names (short names, categories, singular)".to_owned(),
            ));
        }
        merged.spec.versions.extend(crd.spec.versions);
    }
    let mut stored = 0;
    for version in &mut merged.spec.versions {
        version.storage = version.name == storage_version;
        stored += usize::from(version.storage);
    }
    if stored != 1 {
        return Err(mismatch(format!("no version is named {storage_version:?}")));
    }
    Ok(merged)
}
