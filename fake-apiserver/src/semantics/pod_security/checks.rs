//! What a check is and what it answers, following `policy/checks.go`: `Check` and its
//! `VersionedCheck`s, `CheckResult`, and `AggregateCheckResults` with the aggregate's
//! `ForbiddenReason` and `ForbiddenDetail`.

use serde_json::Value;

use super::policy::Level;

/// A check of one standard (`Check`), in all its versions.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Check {
    /// `CheckID`: orders the checks of a level (`registry.go` sorts them by it) and names the
    /// checks a restricted check overrides.
    pub(crate) id: &'static str,
    /// Baseline checks run for baseline and restricted, restricted ones only for restricted.
    pub(crate) level: Level,
    /// Strictly increasing minimum versions, the first at least `v1.0`.
    pub(crate) versions: &'static [VersionedCheck],
}

/// `CheckPodFn`: the pod's (or template's) metadata and its v1 spec, as JSON.
pub(crate) type CheckFn = fn(&Value, &Value) -> CheckResult;

/// One revision of a check (`VersionedCheck`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct VersionedCheck {
    /// `MinimumVersion`: the first `v1.<minimum>` the revision applies to; it applies up to the
    /// next revision's.
    pub(crate) minimum: u32,
    /// `CheckPod`.
    pub(crate) run: CheckFn,
    /// `OverrideCheckIDs`: the baseline checks a restricted level running this revision skips,
    /// as this one checks the same fields more strictly.
    pub(crate) overrides: &'static [&'static str],
}

impl VersionedCheck {
    pub(crate) const fn new(minimum: u32, run: CheckFn) -> Self {
        Self {
            minimum,
            run,
            overrides: &[],
        }
    }

    pub(crate) const fn overriding(self, overrides: &'static [&'static str]) -> Self {
        Self { overrides, ..self }
    }
}

/// Why a check forbids a pod: a `CheckResult` with `Allowed: false`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Forbidden {
    /// Succinct and always shown: `host namespaces`.
    pub(crate) reason: String,
    /// The specific values, shown when one pod is checked; may be empty: `hostPID=true`.
    pub(crate) detail: String,
}

impl Forbidden {
    pub(crate) fn new(reason: impl Into<String>, detail: impl Into<String>) -> Self {
        Self {
            reason: reason.into(),
            detail: detail.into(),
        }
    }
}

/// A check's verdict: `None` allows the pod.
pub(crate) type CheckResult = Option<Forbidden>;

/// `UnknownForbiddenReason`: stands in for a check that forbids without saying why.
const UNKNOWN_FORBIDDEN_REASON: &str = "unknown forbidden reason";

/// `AggregateCheckResult`: the refusals of the checks that forbid the pod, in check order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Aggregate {
    forbidden: Vec<Forbidden>,
}

impl Aggregate {
    /// `AggregateCheckResults`: keeps the refusals, naming an unnamed reason.
    pub(crate) fn of(results: impl IntoIterator<Item = CheckResult>) -> Self {
        let forbidden = results
            .into_iter()
            .flatten()
            .map(|mut refusal| {
                if refusal.reason.is_empty() {
                    refusal.reason = UNKNOWN_FORBIDDEN_REASON.to_owned();
                }
                refusal
            })
            .collect();
        Self { forbidden }
    }

    /// Whether every check allowed the pod.
    pub(crate) fn allowed(&self) -> bool {
        self.forbidden.is_empty()
    }

    /// `ForbiddenReason`: the reasons joined by ", " —
    /// `host ports, privileged containers, non-default capabilities`.
    pub(crate) fn forbidden_reason(&self) -> String {
        let reasons: Vec<&str> = self.forbidden.iter().map(|refusal| refusal.reason.as_str()).collect();
        reasons.join(", ")
    }

    /// `ForbiddenDetail`: each reason with its detail in parentheses when it has one, joined by
    /// ", " — `host ports (8080, 9090), privileged containers, non-default capabilities (NET_RAW)`.
    pub(crate) fn forbidden_detail(&self) -> String {
        let parts: Vec<String> = self
            .forbidden
            .iter()
            .map(|refusal| match refusal.detail.as_str() {
                "" => refusal.reason.clone(),
                detail => format!("{} ({detail})", refusal.reason),
            })
            .collect();
        parts.join(", ")
    }
}

/// A test case of a check: its name, the pod spec, and the reason and detail it expects.
#[cfg(test)]
pub(crate) type Case<'c, D> = (&'c str, Value, Option<(&'c str, D)>);

/// Runs `check` on each case's spec (with no metadata) and compares its verdict: a case
/// without a reason and detail expects the pod allowed.
#[cfg(test)]
pub(crate) fn assert_cases<D: AsRef<str>>(check: CheckFn, cases: &[Case<'_, D>]) {
    for (case, spec, want) in cases {
        let want = want
            .as_ref()
            .map(|(reason, detail)| Forbidden::new(*reason, detail.as_ref()));
        assert_eq!(check(&Value::Null, spec), want, "{case}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_and_details_join_as_checks_go_documents() {
        let aggregate = Aggregate::of([
            Some(Forbidden::new("host ports", "8080, 9090")),
            None,
            Some(Forbidden::new("privileged containers", "")),
            Some(Forbidden::new("non-default capabilities", "NET_RAW")),
        ]);
        assert!(!aggregate.allowed());
        assert_eq!(
            aggregate.forbidden_reason(),
            "host ports, privileged containers, non-default capabilities"
        );
        assert_eq!(
            aggregate.forbidden_detail(),
            "host ports (8080, 9090), privileged containers, non-default capabilities (NET_RAW)"
        );
    }

    #[test]
    fn an_empty_reason_is_unknown_and_no_refusal_allows() {
        let aggregate = Aggregate::of([Some(Forbidden::new("", "x"))]);
        assert_eq!(aggregate.forbidden_detail(), "unknown forbidden reason (x)");
        let allowed = Aggregate::of([None, None]);
        assert!(allowed.allowed());
        assert_eq!(allowed.forbidden_reason(), "");
        assert_eq!(allowed.forbidden_detail(), "");
    }
}
