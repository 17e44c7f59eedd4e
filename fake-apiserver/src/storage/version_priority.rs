//! The order of an API group's versions by their names, as `CompareKubeAwareVersionStrings`
//! (`apimachinery/pkg/version/helpers.go`) sorts them: GA before beta before alpha, then the
//! higher major and minor number first (`v2`, `v1`, `v1beta2`, `v1beta1`, `v1alpha1`), and names
//! of another form last, alphabetically. Discovery lists a custom resource group's versions in
//! this order and prefers the first.

use std::cmp::Ordering;

/// A version name read as `v<major>[(alpha|beta)<minor>]`; `None` for any other form.
fn parse(version: &str) -> Option<(u8, u64, u64)> {
    let rest = version.strip_prefix('v')?;
    let digits = |s: &str| (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())).then(|| s.parse::<u64>().ok())?;
    let split = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
    let major = digits(&rest[..split])?;
    let suffix = &rest[split..];
    if suffix.is_empty() {
        return Some((2, major, 0));
    }
    let (rank, minor) = if let Some(minor) = suffix.strip_prefix("beta") {
        (1, minor)
    } else {
        (0, suffix.strip_prefix("alpha")?)
    };
    Some((rank, major, digits(minor)?))
}

/// `Ordering::Less` when `a` comes before `b` (has the higher priority).
pub(crate) fn order(a: &str, b: &str) -> Ordering {
    match (parse(a), parse(b)) {
        (Some(a), Some(b)) => b.cmp(&a),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => a.cmp(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_should_sort_as_kube_aware_names() {
        let mut versions = vec![
            "v1alpha1", "foo", "v1beta1", "v1", "v2", "v1beta2", "bar", "v10", "v1beta",
        ];
        versions.sort_by(|a, b| order(a, b));
        assert_eq!(
            versions,
            [
                "v10", "v2", "v1", "v1beta2", "v1beta1", "v1alpha1", "bar", "foo", "v1beta"
            ]
        );
    }
}
