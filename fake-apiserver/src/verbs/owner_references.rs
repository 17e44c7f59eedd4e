//! Duplicate owner references dropped with a warning, as kube-apiserver's handlers do
//! (`dedupOwnerReferencesAndAddWarning`, apiserver/pkg/endpoints/handlers/rest.go): a create or
//! an update before its field manager runs, a patch after its field manager and admission.

use serde_json::Value;

/// When the handler looked for duplicates, which its warning names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Moment {
    /// A create's or an update's body, before the field manager saw it.
    AsSent,
    /// A patched object, after the field manager and mutating admission.
    AfterAdmission,
}

/// Drops every owner reference of `object` that repeats an earlier one (the same uid and the
/// same fields, as `apiequality.Semantic.DeepEqual` compares them: an absent `controller`
/// differs from `false`), keeping the first; returns the warning kube-apiserver adds, which
/// lists each dropped reference's uid.
pub(crate) fn dedup(object: &mut Value, moment: Moment) -> Option<String> {
    let refs = object.pointer_mut("/metadata/ownerReferences")?.as_array_mut()?;
    let mut kept: Vec<Value> = Vec::with_capacity(refs.len());
    let mut duplicates = Vec::new();
    for reference in refs.drain(..) {
        let uid = reference.get("uid").cloned().unwrap_or(Value::Null);
        let seen_uid = kept.iter().any(|k| k.get("uid").cloned().unwrap_or(Value::Null) == uid);
        if seen_uid && kept.contains(&reference) {
            duplicates.push(uid.as_str().unwrap_or_default().to_owned());
        } else {
            kept.push(reference);
        }
    }
    *refs = kept;
    (!duplicates.is_empty()).then(|| warning(moment, &duplicates))
}

/// `DuplicateOwnerReferencesWarningFormat` or its after-admission twin.
fn warning(moment: Moment, uids: &[String]) -> String {
    let observed = match moment {
        Moment::AsSent => "",
        Moment::AfterAdmission => " after mutating admission happens",
    };
    format!(
        ".metadata.ownerReferences contains duplicate entries{observed}; API server dedups owner references in 1.20+, \
         and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: {}",
        uids.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn keeps_the_first_of_equal_references_and_names_each_repeat() {
        let owner = json!({"apiVersion": "v1", "kind": "ConfigMap", "name": "a", "uid": "u1"});
        let mut object = json!({"metadata": {"ownerReferences": [owner, owner, owner]}});
        let warning = dedup(&mut object, Moment::AsSent).expect("a warning");
        assert_eq!(object["metadata"]["ownerReferences"], json!([owner]));
        assert!(warning.ends_with("duplicate UID(s) observed: u1, u1"), "{warning}");
        assert!(warning.starts_with(".metadata.ownerReferences contains duplicate entries; API server"));
    }

    #[test]
    fn references_sharing_a_uid_but_not_their_fields_are_kept() {
        let first = json!({"apiVersion": "v1", "kind": "ConfigMap", "name": "a", "uid": "u1"});
        let second = json!({"apiVersion": "v1", "kind": "ConfigMap", "name": "a", "uid": "u1", "controller": false});
        let mut object = json!({"metadata": {"ownerReferences": [first, second]}});
        assert_eq!(dedup(&mut object, Moment::AfterAdmission), None);
        assert_eq!(object["metadata"]["ownerReferences"].as_array().map(Vec::len), Some(2));
    }

    #[test]
    fn a_patch_warning_says_it_came_after_admission() {
        let owner = json!({"uid": "u9"});
        let mut object = json!({"metadata": {"ownerReferences": [owner, owner]}});
        let warning = dedup(&mut object, Moment::AfterAdmission).expect("a warning");
        assert!(
            warning.contains("duplicate entries after mutating admission happens; API server"),
            "{warning}"
        );
    }
}
