//! The completion indexes of an `Indexed` Job (`pkg/controller/job/indexed_job_utils.go`):
//! `orderedIntervals` with their parsing, merging and `"1,3-5"` form, `getCompletionIndex`,
//! `calculateSucceededIndexes`, `firstPendingIndexes`, `appendDuplicatedIndexPodsForRemoval`,
//! and the index written into each pod (annotation, label, hostname, `JOB_COMPLETION_INDEX`,
//! `podGenerateNameWithIndex`).

use std::sync::Arc;

use serde_json::{Value, json};

use crate::storage::object;

/// The annotation and label that carry a pod's completion index.
pub(super) const COMPLETION_INDEX: &str = "batch.kubernetes.io/job-completion-index";

/// `completionIndexEnvName`.
const INDEX_ENV: &str = "JOB_COMPLETION_INDEX";

/// `names.MaxGeneratedNameLength`: 63 less the five random characters.
const MAX_GENERATED_NAME: usize = 58;

/// Sorted, disjoint and non-adjacent runs of indexes, `(first, last)` inclusive.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Intervals(Vec<(i64, i64)>);

impl Intervals {
    /// `parseIndexesFromString`: corrupt runs skipped, runs past `completions` cut off.
    pub(super) fn parse(text: &str, completions: i64) -> Self {
        let mut result: Vec<(i64, i64)> = Vec::new();
        if text.is_empty() {
            return Self(result);
        }
        for run in text.split(',') {
            let mut limits = run.split('-');
            let Some(Ok(first)) = limits.next().map(str::parse::<i64>) else {
                continue;
            };
            if first >= completions {
                break;
            }
            let last = match limits.next() {
                Some(last) => match last.parse::<i64>() {
                    Ok(last) => last.min(completions - 1),
                    Err(_) => continue,
                },
                None => first,
            };
            match result.last_mut() {
                Some(previous) if previous.1 == first - 1 => previous.1 = last,
                _ => result.push((first, last)),
            }
        }
        Self(result)
    }

    /// `withOrderedIndexes`: these indexes (in order) merged in.
    pub(super) fn with_indexes(&self, indexes: &[i64]) -> Self {
        self.merge(&Self(indexes.iter().map(|&i| (i, i)).collect()))
    }

    /// `merge`: the union, adjacent runs joined.
    pub(super) fn merge(&self, other: &Self) -> Self {
        let mut all: Vec<(i64, i64)> = self.0.iter().chain(&other.0).copied().collect();
        // Go merges two sorted lists taking the other's run first on equal starts; the union
        // is the same either way.
        all.sort_by_key(|run| run.0);
        let mut result: Vec<(i64, i64)> = Vec::new();
        for run in all {
            match result.last_mut() {
                Some(last) if run.0 <= last.1 + 1 => last.1 = last.1.max(run.1),
                _ => result.push(run),
            }
        }
        Self(result)
    }

    /// `total`: how many indexes.
    pub(super) fn total(&self) -> i64 {
        self.0.iter().map(|(first, last)| last - first + 1).sum()
    }

    /// `has`.
    pub(super) fn has(&self, index: i64) -> bool {
        self.0.iter().any(|&(first, last)| first <= index && index <= last)
    }

    /// How many of these indexes `other` holds too (`matchSucceededIndexesRule`'s count).
    pub(super) fn overlap(&self, other: &Self) -> i64 {
        let mut contained = 0;
        for &(first, last) in &self.0 {
            for &(other_first, other_last) in &other.0 {
                contained += (last.min(other_last) - first.max(other_first) + 1).max(0);
            }
        }
        contained
    }

    /// The runs.
    fn runs(&self) -> &[(i64, i64)] {
        &self.0
    }
}

/// `String`: `0,2-4,6,7` — a run of two is written as two indexes.
impl std::fmt::Display for Intervals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, (first, last)) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{first}")?;
            if last > first {
                let separator = if *last == first + 1 { "," } else { "-" };
                write!(f, "{separator}{last}")?;
            }
        }
        Ok(())
    }
}

/// `getCompletionIndex`: the pod's index from its annotation, `None` when missing or invalid.
pub(super) fn completion_index(pod: &Value) -> Option<i64> {
    let text = object::annotations(pod)?.get(COMPLETION_INDEX)?.as_str()?;
    text.parse::<i64>().ok().filter(|i| *i >= 0)
}

/// Whether the pod holds a valid index below `completions`.
pub(super) fn has_valid_index(pod: &Value, completions: i64) -> bool {
    completion_index(pod).is_some_and(|i| i < completions)
}

/// The distinct indexes of these pods (`getIndexes`), sorted.
fn indexes_of(pods: &[&Arc<Value>]) -> Vec<i64> {
    let mut indexes: Vec<i64> = pods.iter().filter_map(|pod| completion_index(pod)).collect();
    indexes.sort_unstable();
    indexes.dedup();
    indexes
}

/// `calculateSucceededIndexes`: the indexes the status records, and those with the succeeded
/// pods still tracked merged in.
pub(super) fn succeeded_indexes(
    job: &Value,
    pods: &[Arc<Value>],
    tracked: impl Fn(&Value) -> bool,
) -> (Intervals, Intervals) {
    let completions = completions(job);
    let recorded = job
        .pointer("/status/completedIndexes")
        .and_then(Value::as_str)
        .unwrap_or("");
    let previous = Intervals::parse(recorded, completions);
    let mut new: Vec<i64> = pods
        .iter()
        .filter(|pod| pod.pointer("/status/phase").and_then(Value::as_str) == Some("Succeeded") && tracked(pod))
        .filter_map(|pod| completion_index(pod).filter(|i| *i < completions))
        .collect();
    new.sort_unstable();
    new.dedup();
    let all = previous.with_indexes(&new);
    (previous, all)
}

/// `spec.completions`, which an `Indexed` Job always has.
pub(super) fn completions(job: &Value) -> i64 {
    job.pointer("/spec/completions").and_then(Value::as_i64).unwrap_or(0)
}

/// `firstPendingIndexes`: up to `count` indexes below `completions` that have neither
/// succeeded nor an active (or, with `terminating`, a terminating) pod.
pub(super) fn first_pending(
    succeeded: &Intervals,
    active: &[&Arc<Value>],
    terminating: Option<&[&Arc<Value>]>,
    count: usize,
    completions: i64,
) -> Vec<i64> {
    let mut result = Vec::new();
    if count == 0 {
        return result;
    }
    let mut taken = succeeded.with_indexes(&indexes_of(active));
    if let Some(terminating) = terminating {
        taken = taken.with_indexes(&indexes_of(terminating));
    }
    let mut candidate = 0;
    for &(first, last) in taken.runs() {
        while candidate < completions && result.len() < count && candidate < first {
            result.push(candidate);
            candidate += 1;
        }
        candidate = candidate.max(last + 1);
    }
    while candidate < completions && result.len() < count {
        result.push(candidate);
        candidate += 1;
    }
    result
}

/// `appendDuplicatedIndexPodsForRemoval`: the active pods to remove because their index is
/// missing, past `completions`, or held by another pod too (all but the one `keep_order` puts
/// last), and the pods left.
pub(super) fn duplicates_for_removal(
    pods: &[Arc<Value>],
    completions: i64,
    keep_order: impl Fn(&mut [Arc<Value>]),
) -> (Vec<Arc<Value>>, Vec<Arc<Value>>) {
    let mut sorted: Vec<Arc<Value>> = pods.to_vec();
    // `byCompletionIndex`: pods without an index (-1 in Go) first.
    sorted.sort_by_key(|pod| completion_index(pod).unwrap_or(-1));
    let (mut remove, mut left) = (Vec::new(), Vec::new());
    let mut start = 0;
    while start < sorted.len() {
        let index = completion_index(&sorted[start]);
        if index.is_some_and(|i| i >= completions) {
            remove.extend(sorted.drain(start..));
            break;
        }
        let end = (start..sorted.len())
            .find(|&j| completion_index(&sorted[j]) != index)
            .unwrap_or(sorted.len());
        let mut same: Vec<Arc<Value>> = sorted[start..end].to_vec();
        if index.is_none() {
            remove.extend(same);
        } else if same.len() == 1 {
            left.extend(same);
        } else {
            keep_order(&mut same);
            let kept = same.pop();
            remove.extend(same);
            left.extend(kept);
        }
        start = end;
    }
    (remove, left)
}

/// The template of index `index`'s pod: the annotation, the label (`PodIndexLabel`, from 1.28),
/// the hostname `<job>-<index>`, and `JOB_COMPLETION_INDEX` in every container
/// (`addCompletionIndexEnvVariables`, read from the label).
pub(super) fn indexed_template(template: &Value, job_name: &str, index: i64) -> Value {
    let mut template = template.clone();
    for list in ["initContainers", "containers"] {
        let Some(containers) = template
            .pointer_mut(&format!("/spec/{list}"))
            .and_then(Value::as_array_mut)
        else {
            continue;
        };
        for container in containers {
            add_index_env(container);
        }
    }
    let metadata = &mut template["metadata"];
    if !metadata.is_object() {
        *metadata = json!({});
    }
    for key in ["annotations", "labels"] {
        if !metadata[key].is_object() {
            metadata[key] = json!({});
        }
        metadata[key][COMPLETION_INDEX] = json!(index.to_string());
    }
    template["spec"]["hostname"] = json!(format!("{job_name}-{index}"));
    template
}

/// `addCompletionIndexEnvVariable`: unless the container already sets it.
fn add_index_env(container: &mut Value) {
    if !container["env"].is_array() {
        container["env"] = json!([]);
    }
    let Some(env) = container["env"].as_array_mut() else {
        return;
    };
    if env.iter().any(|var| var["name"] == INDEX_ENV) {
        return;
    }
    env.push(json!({
        "name": INDEX_ENV,
        "valueFrom": {"fieldRef": {"fieldPath": format!("metadata.labels['{COMPLETION_INDEX}']")}},
    }));
}

/// `podGenerateNameWithIndex`: `<job>-<index>-`, the job's name cut to fit.
pub(super) fn generate_name(job_name: &str, index: i64) -> String {
    let suffix = format!("-{index}-");
    let prefix = format!("{job_name}{suffix}");
    if prefix.len() > MAX_GENERATED_NAME {
        format!("{}{suffix}", &job_name[..MAX_GENERATED_NAME - suffix.len()])
    } else {
        prefix
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(index: Option<&str>, name: &str) -> Arc<Value> {
        let annotations = index.map_or(json!({}), |i| json!({COMPLETION_INDEX: i}));
        Arc::new(json!({"metadata": {"name": name, "annotations": annotations}}))
    }

    #[test]
    fn intervals_should_read_and_write_as_kube_controller_manager_does() {
        let parsed = Intervals::parse("0,2-4,x,6,7,9-12", 11);
        assert_eq!(parsed.to_string(), "0,2-4,6,7,9,10");
        assert_eq!(parsed.total(), 8);
        assert!(parsed.has(3) && !parsed.has(5));
        assert_eq!(Intervals::parse("5", 3), Intervals::default());
        assert_eq!(Intervals::parse("1,2,3", 5).to_string(), "1-3");
    }

    #[test]
    fn merging_should_join_adjacent_runs() {
        let base = Intervals::parse("0,4-5", 10);
        assert_eq!(base.with_indexes(&[1, 2, 3, 8]).to_string(), "0-5,8");
        assert_eq!(base.merge(&Intervals::parse("5-7", 10)).to_string(), "0,4-7");
    }

    #[test]
    fn pending_indexes_should_skip_succeeded_and_active_ones() {
        let succeeded = Intervals::parse("0,3", 6);
        let active = [pod(Some("1"), "a")];
        let active: Vec<&Arc<Value>> = active.iter().collect();
        assert_eq!(first_pending(&succeeded, &active, None, 3, 6), vec![2, 4, 5]);
        assert_eq!(first_pending(&succeeded, &active, None, 1, 6), vec![2]);
        assert!(first_pending(&succeeded, &active, None, 0, 6).is_empty());
    }

    #[test]
    fn duplicated_and_unindexed_pods_should_be_removed() {
        let pods = vec![
            pod(Some("1"), "b"),
            pod(None, "x"),
            pod(Some("1"), "a"),
            pod(Some("9"), "z"),
            pod(Some("0"), "c"),
        ];
        let (remove, left) = duplicates_for_removal(&pods, 3, |same| same.sort_by_key(|p| object::name(p).to_owned()));
        let names = |pods: &[Arc<Value>]| pods.iter().map(|p| object::name(p).to_owned()).collect::<Vec<_>>();
        assert_eq!(names(&remove), ["x", "a", "z"]);
        assert_eq!(names(&left), ["c", "b"]);
    }

    #[test]
    fn an_indexed_template_should_carry_the_index_everywhere() {
        let template =
            json!({"spec": {"containers": [{"name": "a"}, {"name": "b", "env": [{"name": INDEX_ENV, "value": "7"}]}]}});
        let indexed = indexed_template(&template, "work", 2);
        assert_eq!(indexed["metadata"]["labels"][COMPLETION_INDEX], "2");
        assert_eq!(indexed["metadata"]["annotations"][COMPLETION_INDEX], "2");
        assert_eq!(indexed["spec"]["hostname"], "work-2");
        assert_eq!(
            indexed["spec"]["containers"][0]["env"][0]["valueFrom"]["fieldRef"]["fieldPath"],
            "metadata.labels['batch.kubernetes.io/job-completion-index']"
        );
        assert_eq!(
            indexed["spec"]["containers"][1]["env"].as_array().map(Vec::len),
            Some(1)
        );
        assert_eq!(generate_name("work", 12), "work-12-");
        assert_eq!(generate_name(&"j".repeat(70), 3).len(), MAX_GENERATED_NAME);
    }
}
