//! Reads: selecting objects, consistent paginated lists with continue tokens, and rendering
//! objects in the version a client asked for.

use std::borrow::Cow;
use std::sync::Arc;

use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use base64::{DecodeError, Engine as _, alphabet};
use serde_json::{Value, json};

use crate::go_order::{GoStruct, Ordered};
use crate::semantics::selector::{FieldSelector, LabelSelector, SelectorError};
use crate::semantics::versions;
use crate::semantics::{go_json, go_json_writer};
use crate::status::ApiStatus;
use crate::storage::State;
use crate::storage::field_selectors::FieldValue;
use crate::storage::key::ObjectKey;
use crate::storage::object;
use crate::storage::resource::ResourceInfo;
use crate::verbs::options::{Query, parse_cached_rv, parse_rv};

/// The label and field selectors of a request.
#[derive(Clone, Debug)]
pub(crate) struct Filter {
    labels: LabelSelector,
    fields: FieldSelector,
    /// How the kind reads the selected fields.
    value: FieldValue,
    selective: bool,
}

impl Filter {
    pub(crate) fn from_query(info: &ResourceInfo, query: &Query) -> Result<Self, ApiStatus> {
        let labels = LabelSelector::parse(&query.label_selector).map_err(|e| ApiStatus::bad_request(e.to_string()))?;
        // Selected on the stored objects, whose fields another version may name otherwise.
        let supported = info.field_selector_paths();
        let metadata_only = info.builtin && supported.iter().all(|path| path.starts_with("metadata."));
        let fields = FieldSelector::parse(&query.field_selector, &supported, metadata_only)
            .map_err(|e| match e {
                SelectorError::UnsupportedField(ref path) => {
                    ApiStatus::bad_request(info.unsupported_field_message(path).unwrap_or_else(|| e.to_string()))
                }
                e => ApiStatus::bad_request(e.to_string()),
            })?
            .map_paths(|path| versions::storage_field_path(info, path));
        let selective = !query.label_selector.trim().is_empty() || !query.field_selector.trim().is_empty();
        Ok(Self {
            labels,
            fields,
            value: info.field_selector_value(),
            selective,
        })
    }

    pub(crate) fn matches(&self, object: &Value) -> bool {
        self.labels.matches(object::labels(object)) && self.fields.matches(object, self.value)
    }
}

/// One page of a list.
pub(crate) struct ListPage {
    pub(crate) items: Vec<Arc<Value>>,
    /// The list's resourceVersion; `None` for a resource computed on read, whose lists carry
    /// none (`componentstatuses`).
    pub(crate) resource_version: Option<u64>,
    pub(crate) continue_token: Option<String>,
    pub(crate) remaining: Option<usize>,
}

/// A GET's resourceVersion, which the watch cache serves when it is set (`Cacher.Get`): one it
/// cannot parse is the versioner's error, one the server has not reached times out.
pub(crate) fn check_get_version(state: &State, query: &Query) -> Result<(), ApiStatus> {
    match query.resource_version.as_deref() {
        None | Some("") => Ok(()),
        Some(rv) => {
            let rv = parse_cached_rv(rv)?;
            let current = state.store.current_rv();
            if rv > current {
                return Err(ApiStatus::resource_version_too_large(rv, current));
            }
            Ok(())
        }
    }
}

/// A list's resourceVersion: kube-apiserver's cacher parses it (`Cacher.GetList`) unless the
/// list goes to etcd (`shouldDelegateList`: a continuation, a limit with a version other than
/// `"0"`, a match other than `NotOlderThan`), whose store refuses it as a bad request.
fn parse_list_rv(query: &Query, rv: &str) -> Result<u64, ApiStatus> {
    let limited = query.limit.is_some_and(|limit| limit > 0) && rv != "0";
    let exact = query
        .resource_version_match
        .as_deref()
        .is_some_and(|m| !m.is_empty() && m != "NotOlderThan");
    if query.continue_token.is_some() || limited || exact {
        parse_rv(rv)
    } else {
        parse_cached_rv(rv)
    }
}

/// GET of one object, or NotFound.
pub(crate) fn get(
    state: &State,
    info: &ResourceInfo,
    namespace: Option<&str>,
    name: &str,
) -> Result<Arc<Value>, ApiStatus> {
    let stored = state
        .object(info, namespace, name)
        .ok_or_else(|| ApiStatus::not_found(info, name))?;
    // Writes compare and patch the object as the client's version shows it.
    Ok(match versions::view(info, &info.api_version(), &stored) {
        Cow::Borrowed(_) => stored,
        Cow::Owned(shown) => Arc::new(shown),
    })
}

/// GET on a collection.
pub(crate) fn list(
    state: &State,
    info: &ResourceInfo,
    namespace: Option<&str>,
    query: &Query,
) -> Result<ListPage, ApiStatus> {
    let filter = Filter::from_query(info, query)?;
    let storage = info.storage_key();
    let (rv, after) = match &query.continue_token {
        Some(token) => {
            let (rv, key) = decode_continue(token)?;
            (rv, Some(key))
        }
        None => match (
            query.resource_version.as_deref(),
            query.resource_version_match.as_deref(),
        ) {
            (Some(rv), Some("Exact")) => (parse_rv(rv)?, None),
            // Not older than a resourceVersion the server has not reached yet: refused below.
            (Some(rv), _) if rv != "0" && parse_list_rv(query, rv)? > state.store.current_rv() => {
                (parse_list_rv(query, rv)?, None)
            }
            _ => (state.store.current_rv(), None),
        },
    };
    // kube-apiserver waits a few seconds for a resourceVersion it has not reached, then answers
    // 504; nothing is written while this server holds its lock, so it answers at once.
    if rv > state.store.current_rv() {
        return Err(ApiStatus::resource_version_too_large(rv, state.store.current_rv()));
    }
    let limit = query.limit.unwrap_or(usize::MAX);
    let (items, rest) = if rv == state.store.current_rv() {
        let candidates = state
            .store
            .iter_after(&storage, namespace, after.as_ref())
            .map(|(_, object)| object);
        take_page(candidates, &filter, limit)
    } else {
        let snapshot = state
            .store
            .snapshot(&storage, namespace, rv, after.as_ref())
            .ok_or_else(|| match after {
                Some(_) => ApiStatus::expired(
                    "The provided continue parameter is too old to display a consistent list result. \
                 You can start a new list without the continue parameter.",
                ),
                None => ApiStatus::expired(format!("too old resource version: {rv} ({})", state.store.oldest_rv())),
            })?;
        take_page(snapshot.iter(), &filter, limit)
    };
    let continue_token = (rest > 0).then(|| {
        let last = items.last().expect("a limit of at least one item was reached");
        encode_continue(rv, &ObjectKey::of(last))
    });
    let remaining = (rest > 0 && !filter.selective).then_some(rest);
    Ok(ListPage {
        items,
        resource_version: Some(rv),
        continue_token,
        remaining,
    })
}

/// Objects selected by a delete-collection request.
pub(crate) fn select(state: &State, info: &ResourceInfo, namespace: Option<&str>, filter: &Filter) -> Vec<Arc<Value>> {
    state
        .store
        .iter(&info.storage_key(), namespace)
        .map(|(_, o)| o)
        .filter(|o| filter.matches(o))
        .cloned()
        .collect()
}

/// Up to `limit` selected objects, and how many more follow: exactly, for unselective lists
/// (their `remainingItemCount`), else 1 or 0. The rest is counted without filtering or cloning,
/// so paging through a large collection stays linear.
fn take_page<'a>(
    mut candidates: impl Iterator<Item = &'a Arc<Value>>,
    filter: &Filter,
    limit: usize,
) -> (Vec<Arc<Value>>, usize) {
    let mut items = Vec::new();
    while let Some(object) = candidates.next() {
        if items.len() == limit {
            let more = filter.matches(object) || candidates.any(|o| filter.matches(o));
            let rest = match (more, filter.selective) {
                (false, _) => 0,
                (true, true) => 1,
                (true, false) => 1 + candidates.count(),
            };
            return (items, rest);
        }
        if filter.matches(object) {
            items.push(object.clone());
        }
    }
    (items, 0)
}

/// Go's `base64.RawURLEncoding`: no padding, and trailing bits are not checked.
const CONTINUE_BASE64: GeneralPurpose = GeneralPurpose::new(
    &alphabet::URL_SAFE,
    GeneralPurposeConfig::new()
        .with_encode_padding(false)
        .with_decode_allow_trailing_bits(true)
        .with_decode_padding_mode(DecodePaddingMode::RequireNone),
);

fn encode_continue(rv: u64, key: &ObjectKey) -> String {
    CONTINUE_BASE64
        .encode(json!({ "v": "meta.k8s.io/v1", "rv": rv, "ns": key.namespace, "name": key.name }).to_string())
}

/// Reads a continue token, refusing a bad one in kube-apiserver's words (its etcd store's
/// `DecodeContinue`): Go's base64 and JSON errors, then the token's version and start.
fn decode_continue(token: &str) -> Result<(u64, ObjectKey), ApiStatus> {
    let bad = |why: String| ApiStatus::bad_request(format!("invalid continue token: continue key is not valid: {why}"));
    let bytes = CONTINUE_BASE64.decode(token).map_err(|e| {
        let offset = match e {
            DecodeError::InvalidByte(offset, _) | DecodeError::InvalidLastSymbol(offset, _) => offset,
            DecodeError::InvalidLength(length) => length.saturating_sub(1),
            DecodeError::InvalidPadding => token.find('=').unwrap_or_default(),
        };
        bad(format!("illegal base64 data at input byte {offset}"))
    })?;
    let value: Value = match serde_json::from_slice(&bytes) {
        Ok(value @ Value::Object(_)) => value,
        Ok(other) => {
            let why = format!(
                "json: cannot unmarshal {} into Go value of type storage.continueToken",
                go_json::type_name(&other)
            );
            return Err(bad(why));
        }
        Err(e) => return Err(bad(go_json::syntax_error(&bytes).unwrap_or_else(|| e.to_string()))),
    };
    let text = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_owned);
    let version = text("v").unwrap_or_default();
    if version != "meta.k8s.io/v1" {
        return Err(bad(format!(
            "server does not recognize this encoded version {version:?}"
        )));
    }
    let rv = value.get("rv").and_then(Value::as_u64).unwrap_or_default();
    if rv == 0 {
        return Err(bad(
            "incorrect encoded start resourceVersion (version meta.k8s.io/v1)".to_owned()
        ));
    }
    match (text("ns"), text("name")) {
        (Some(ns), Some(name)) if !name.is_empty() => Ok((rv, ObjectKey::new(ns, name))),
        _ => Err(bad("encoded start key empty (version meta.k8s.io/v1)".to_owned())),
    }
}

/// The JSON text of a list response.
pub(crate) fn list_body(info: &ResourceInfo, page: &ListPage) -> Vec<u8> {
    let mut metadata = json!({});
    if let Some(rv) = page.resource_version {
        metadata["resourceVersion"] = json!(rv.to_string());
    }
    if let Some(token) = &page.continue_token {
        metadata["continue"] = json!(token);
    }
    if let Some(remaining) = page.remaining {
        metadata["remainingItemCount"] = json!(remaining);
    }
    let api_version = info.api_version();
    let mut out = Vec::with_capacity(256 + page.items.len() * 512);
    out.extend_from_slice(
        format!(
            r#"{{"kind":"{}List","apiVersion":"{api_version}","metadata":{metadata},"items":["#,
            info.kind,
        )
        .as_bytes(),
    );
    for (i, item) in page.items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        let shown = versions::view(info, &api_version, item);
        match shown.as_object() {
            // A typed list's items carry no type meta of their own (a custom resource list is
            // unstructured: its items keep theirs).
            Some(map) if info.builtin => {
                out.push(b'{');
                // Object meta first, in Go's order, then the kind's fields.
                let metadata = map.get_key_value("metadata");
                let others = map
                    .iter()
                    .filter(|(k, _)| !matches!(k.as_str(), "apiVersion" | "kind" | "metadata"));
                for (j, (key, value)) in metadata.into_iter().chain(others).enumerate() {
                    if j > 0 {
                        out.push(b',');
                    }
                    go_json_writer::to_writer(&mut out, key);
                    out.push(b':');
                    if key == "metadata" {
                        go_json_writer::to_writer(
                            &mut out,
                            &Ordered {
                                value,
                                shape: GoStruct::ObjectMeta,
                            },
                        );
                    } else {
                        go_json_writer::to_writer(&mut out, value);
                    }
                }
                out.push(b'}');
            }
            _ => go_json_writer::to_writer(&mut out, shown.as_ref()),
        }
    }
    out.extend_from_slice(b"]}");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn continue_tokens_should_round_trip_and_reject_garbage() {
        let token = encode_continue(42, &ObjectKey::new("ns", "a"));
        assert_eq!(decode_continue(&token).unwrap(), (42, ObjectKey::new("ns", "a")));
        assert_eq!(decode_continue("not base64!").unwrap_err().code, 400);
        let message = |token: &str| decode_continue(token).unwrap_err().message;
        let prefix = "invalid continue token: continue key is not valid: ";
        assert_eq!(message("bogus"), format!("{prefix}illegal base64 data at input byte 4"));
        assert_eq!(message("ab!d"), format!("{prefix}illegal base64 data at input byte 2"));
        let other_version = CONTINUE_BASE64.encode(r#"{"v": "x", "rv": 1}"#);
        assert_eq!(
            message(&other_version),
            format!("{prefix}server does not recognize this encoded version \"x\"")
        );
    }
}
