//! Which markers emit a CRD feature newer than the oldest supported Kubernetes, checked against
//! the generator's minimum version where the marker is written.

use super::{Marker, Value};
use crate::diag::{Diagnostic, Diagnostics};
use crate::kube_version::{CrdFeature, KubeVersion, OPTIONAL_OLD_SELF, SELECTABLE_FIELDS};
use crate::symbol::{SELECTABLEFIELD, VALIDATION_X_VALIDATION, arg};

/// The feature `marker` emits that not every supported Kubernetes has, if any.
fn feature(marker: &Marker) -> Option<CrdFeature> {
    match marker.name {
        SELECTABLEFIELD => Some(SELECTABLE_FIELDS),
        VALIDATION_X_VALIDATION => {
            // `optionalOldSelf=false` is the default, and emitted as nothing.
            matches!(marker.args.get(arg::OPTIONAL_OLD_SELF), Some(Value::Bool(true))).then_some(OPTIONAL_OLD_SELF)
        }
        _ => None,
    }
}

/// Reports every marker of `markers` whose CRD feature needs a newer Kubernetes than `min`.
pub fn check_min_version<'a>(
    markers: impl IntoIterator<Item = &'a Marker>,
    min: KubeVersion,
    diagnostics: &mut Diagnostics,
) {
    for marker in markers {
        if let Some(feature) = feature(marker).filter(|f| f.needs_newer_than(min)) {
            diagnostics.push(Diagnostic::new(marker.span, feature.problem(min)).help(feature.fix()));
        }
    }
}
