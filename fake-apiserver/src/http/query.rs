//! Parsing the query string of Kubernetes API requests into the verbs' options.

use crate::status::ApiStatus;
use crate::verbs::options::Query;

/// Parses the raw query string of a request.
pub(crate) fn parse(raw: Option<&str>) -> Result<Query, ApiStatus> {
    let mut query = Query::default();
    let truthy = |v: &str| v == "true" || v == "1";
    for (key, value) in form_urlencoded::parse(raw.unwrap_or("").as_bytes()) {
        let value = value.into_owned();
        match key.as_ref() {
            "labelSelector" => query.label_selector = value,
            "fieldSelector" => query.field_selector = value,
            "limit" => {
                let limit: i64 = number(&key, &value)?;
                query.limit = (limit > 0).then_some(limit as usize);
            }
            "continue" if !value.is_empty() => query.continue_token = Some(value),
            "resourceVersion" if !value.is_empty() => query.resource_version = Some(value),
            "resourceVersionMatch" if !value.is_empty() => query.resource_version_match = Some(value),
            "watch" => query.watch = truthy(&value),
            "allowWatchBookmarks" => query.allow_watch_bookmarks = truthy(&value),
            "sendInitialEvents" => query.send_initial_events = Some(truthy(&value)),
            "timeoutSeconds" => query.timeout_seconds = Some(number(&key, &value)?),
            "fieldManager" if !value.is_empty() => query.field_manager = Some(value),
            "force" => query.force = truthy(&value),
            "fieldValidation" => query.field_validation = Some(value),
            "dryRun" => query.dry_run_values.push(value),
            "propagationPolicy" if !value.is_empty() => query.propagation_policy = Some(value),
            "container" if !value.is_empty() => query.log.container = Some(value),
            "tailLines" => query.log.tail_lines = Some(number(&key, &value)?),
            "limitBytes" => query.log.limit_bytes = Some(number(&key, &value)?),
            "sinceSeconds" => query.log.since_seconds = Some(number(&key, &value)?),
            "sinceTime" if !value.is_empty() => query.log.since_time = Some(value),
            _ => {}
        }
    }
    Ok(query)
}

fn number<T: std::str::FromStr>(key: &str, value: &str) -> Result<T, ApiStatus> {
    value
        .parse()
        .map_err(|_| ApiStatus::bad_request(format!("invalid value {value:?} for query parameter {key}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_should_decode_list_and_watch_options() {
        let q = parse(Some(
            "labelSelector=app%3Dweb&limit=2&watch=1&allowWatchBookmarks=true&timeoutSeconds=5&continue=",
        ))
        .unwrap();
        assert_eq!(q.label_selector, "app=web");
        assert_eq!(q.limit, Some(2));
        assert!(q.watch && q.allow_watch_bookmarks);
        assert_eq!(q.timeout_seconds, Some(5));
        assert_eq!(q.continue_token, None);
        assert!(parse(Some("limit=x")).unwrap_err().message.contains("limit"));
    }
}
