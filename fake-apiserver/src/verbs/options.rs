//! The options a request carries to its verb: list and watch options from the query, how a write
//! is attributed and kept, and the parts of `DeleteOptions` the server acts on.

use std::sync::{Arc, Mutex};

use serde_json::Value;

use crate::auth::UserInfo;
use crate::status::ApiStatus;

/// Query parameters the fake API server understands; unknown ones are ignored like the real
/// server ignores them.
#[derive(Clone, Debug, Default)]
pub(crate) struct Query {
    pub(crate) label_selector: String,
    pub(crate) field_selector: String,
    pub(crate) limit: Option<usize>,
    pub(crate) continue_token: Option<String>,
    pub(crate) resource_version: Option<String>,
    pub(crate) resource_version_match: Option<String>,
    pub(crate) watch: bool,
    pub(crate) allow_watch_bookmarks: bool,
    /// `sendInitialEvents` as sent: kube-apiserver refuses it on lists even when false.
    pub(crate) send_initial_events: Option<bool>,
    pub(crate) timeout_seconds: Option<u64>,
    pub(crate) field_manager: Option<String>,
    pub(crate) force: bool,
    /// Whether `force` was sent at all: a non-apply patch may not carry it.
    pub(crate) force_given: bool,
    /// `fieldValidation` as sent (`None` when absent), checked by [`Query::validate`].
    pub(crate) field_validation: Option<String>,
    /// Every `dryRun` value sent, checked by [`Query::validate`].
    pub(crate) dry_run_values: Vec<String>,
    pub(crate) propagation_policy: Option<String>,
    /// A delete's `gracePeriodSeconds` and deprecated `orphanDependents`, when sent in the query.
    pub(crate) grace_period: Option<i64>,
    pub(crate) orphan_dependents: Option<bool>,
    /// `PodLogOptions` of a `pods/<name>/log` read.
    pub(crate) log: LogOptions,
}

/// `PodLogOptions` as sent in the query.
#[derive(Clone, Debug, Default)]
pub(crate) struct LogOptions {
    pub(crate) container: Option<String>,
    pub(crate) tail_lines: Option<i64>,
    pub(crate) limit_bytes: Option<i64>,
    pub(crate) since_seconds: Option<i64>,
    pub(crate) since_time: Option<String>,
}

impl Query {
    /// `dryRun=All`: run every check, keep nothing.
    pub(crate) fn dry_run(&self) -> bool {
        self.dry_run_values.iter().any(|v| v == "All")
    }

    /// The query without the `DeleteOptions` it may carry, for a delete whose body carries them.
    pub(crate) fn without_delete_options(&self) -> Self {
        Self {
            dry_run_values: Vec::new(),
            propagation_policy: None,
            grace_period: None,
            orphan_dependents: None,
            ..self.clone()
        }
    }

    /// What a write does with unknown and duplicate fields; kube-apiserver's default is Warn.
    pub(crate) fn validation(&self) -> FieldValidation {
        match self.field_validation.as_deref() {
            Some("Strict") => FieldValidation::Strict,
            Some("Ignore") => FieldValidation::Ignore,
            _ => FieldValidation::Warn,
        }
    }

    /// Whether a watch is a streaming list (the current state first, then the
    /// `k8s.io/initial-events-end` bookmark): it asks for initial events, or, with the WatchList
    /// feature on (`watch_list`), it is a legacy watch from no resourceVersion or "0", which
    /// kube-apiserver then defaults to one (`SetListOptionsDefaults`).
    pub(crate) fn streams_initial_events(&self, watch_list: bool) -> bool {
        let legacy = matches!(self.resource_version.as_deref(), None | Some("0"));
        match self.send_initial_events {
            Some(initial) => initial,
            None => watch_list && legacy && self.resource_version_match.is_none(),
        }
    }
}

/// The media type of a server-side apply patch.
pub(crate) const APPLY_PATCH: &str = "application/apply-patch+yaml";

/// A list's resourceVersion (`"0"` and `""` are handled by callers), parsed as kube-apiserver's
/// `ValidateListOptions` parses it: 400 when it is not one.
pub(crate) fn parse_rv(text: &str) -> Result<u64, ApiStatus> {
    parse_version(text).map_err(|why| ApiStatus::bad_request(format!("invalid resource version: {why}")))
}

/// A resourceVersion the watch cache reads (a watch's, a GET's, a list's it serves; `"0"` and
/// `""` are handled by callers). kube-apiserver's cacher returns the versioner's error as it is,
/// which it answers as an unconverted error: 500, no reason.
pub(crate) fn parse_cached_rv(text: &str) -> Result<u64, ApiStatus> {
    parse_version(text).map_err(|why| ApiStatus::new(500, "", why))
}

/// A resourceVersion as kube-apiserver's `APIObjectVersioner` reads it (Go's `strconv.ParseUint`
/// in base 10: digits only, no sign), or its field error's wording.
fn parse_version(text: &str) -> Result<u64, String> {
    let why = if text.is_empty() || !text.bytes().all(|byte| byte.is_ascii_digit()) {
        "invalid syntax"
    } else {
        match text.parse() {
            Ok(version) => return Ok(version),
            Err(_) => "value out of range",
        }
    };
    Err(format!(
        "resourceVersion: Invalid value: {text:?}: strconv.ParseUint: parsing {text:?}: {why}"
    ))
}

/// How a write is attributed and whether it is kept.
#[derive(Clone, Debug, Default)]
pub(crate) struct WriteOpts {
    /// Field manager of the write; `None` records no managed fields (seeding).
    pub(crate) manager: Option<String>,
    /// `dryRun=All`: run every check, keep nothing.
    pub(crate) dry_run: bool,
    /// What becomes of unknown and duplicate fields.
    pub(crate) validation: FieldValidation,
    /// Where the write's `Warning` headers are collected.
    pub(crate) warnings: Warnings,
    /// Who writes, for RBAC's escalation checks; `None` for the server's own controllers.
    pub(crate) requester: Option<Arc<UserInfo>>,
}

/// `fieldValidation`: what a write does with fields the kind does not know, or sent twice.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum FieldValidation {
    /// Drop them silently.
    Ignore,
    /// Drop them and say so in `Warning` headers (kube-apiserver's default).
    #[default]
    Warn,
    /// Refuse the write.
    Strict,
}

/// The `Warning: 299` texts a request collects on its way through the verbs; clones share them.
#[derive(Clone, Debug, Default)]
pub(crate) struct Warnings(Arc<Mutex<Vec<String>>>);

impl Warnings {
    /// Adds warnings, in order.
    pub(crate) fn extend(&self, texts: impl IntoIterator<Item = String>) {
        self.0.lock().expect("warnings lock").extend(texts);
    }

    /// The warnings collected so far, leaving none.
    pub(crate) fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock().expect("warnings lock"))
    }
}

/// Who decided the managed fields of a write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ownership {
    /// An ordinary write: the manager takes the fields it changed.
    Update,
    /// A patch: as an update, but its owner references are deduplicated only after the field
    /// manager saw them (which then records nothing when it met duplicates).
    Patched,
    /// Server-side apply already set `managedFields`.
    Applied,
}

/// The parts of `DeleteOptions` the server acts on.
#[derive(Clone, Debug, Default)]
pub(crate) struct DeleteOpts {
    pub(crate) uid: Option<String>,
    pub(crate) resource_version: Option<String>,
    pub(crate) propagation: Option<String>,
    /// `gracePeriodSeconds`, for kinds deleted gracefully (pods).
    pub(crate) grace_period: Option<i64>,
    /// The deprecated `orphanDependents`, which alone decides between 200 and 202.
    pub(crate) orphan_dependents: Option<bool>,
    pub(crate) dry_run: bool,
    /// Who deletes (admission policies read it); the admin when unset.
    pub(crate) requester: Option<Arc<UserInfo>>,
    /// Where admission's warnings go.
    pub(crate) warnings: Warnings,
    /// A delete the server makes for another request (an eviction's), which admission does
    /// not see again (`rest.ValidateAllObjectFunc`).
    pub(crate) skip_admission: bool,
    /// One of a collection's deletes, which admission sees without a name.
    pub(crate) in_collection: bool,
}

impl DeleteOpts {
    /// The options of a delete: its `DeleteOptions` body, or without one the query's.
    pub(crate) fn of_request(body: Option<&Value>, query: &Query) -> Self {
        match body {
            Some(body) => Self::parse(Some(body), None, false),
            None => {
                let mut opts = Self::parse(None, query.propagation_policy.as_deref(), query.dry_run());
                opts.grace_period = query.grace_period;
                opts.orphan_dependents = query.orphan_dependents;
                if opts.propagation.is_none() {
                    opts.propagation = query
                        .orphan_dependents
                        .map(|orphan| if orphan { "Orphan" } else { "Background" }.to_owned());
                }
                opts
            }
        }
    }

    /// Reads a `DeleteOptions` body (possibly empty) and the query's propagation policy.
    pub(crate) fn parse(body: Option<&Value>, query_policy: Option<&str>, dry_run: bool) -> Self {
        let text = |pointer: &str| {
            body.and_then(|b| b.pointer(pointer))
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        let orphan = body.and_then(|b| b.get("orphanDependents")).and_then(Value::as_bool);
        let propagation = text("/propagationPolicy")
            .or_else(|| query_policy.map(str::to_owned))
            .or_else(|| orphan.map(|o| if o { "Orphan" } else { "Background" }.to_owned()));
        let dry_run = dry_run
            || body
                .and_then(|b| b.get("dryRun"))
                .and_then(Value::as_array)
                .is_some_and(|a| !a.is_empty());
        Self {
            uid: text("/preconditions/uid"),
            resource_version: text("/preconditions/resourceVersion"),
            propagation,
            grace_period: body.and_then(|b| b.get("gracePeriodSeconds")).and_then(Value::as_i64),
            orphan_dependents: orphan,
            dry_run,
            ..Self::default()
        }
    }
}
