//! Parsing the query string of Kubernetes API requests into the verbs' options.

use crate::status::ApiStatus;
use crate::verbs::options::Query;

/// Parses the raw query string of a request.
pub(crate) fn parse(raw: Option<&str>) -> Result<Query, ApiStatus> {
    let mut query = Query::default();
    let mut seen: Vec<String> = Vec::new();
    for (key, value) in form_urlencoded::parse(raw.unwrap_or("").as_bytes()) {
        // The parameter codec converts each option from its first value
        // (`Convert_Slice_string_To_*` read `(*in)[0]`); only `dryRun` is a list.
        if key != "dryRun" && seen.iter().any(|k| *k == key) {
            continue;
        }
        seen.push(key.clone().into_owned());
        let value = value.into_owned();
        match key.as_ref() {
            "labelSelector" => query.label_selector = value,
            "fieldSelector" => query.field_selector = value,
            "limit" => {
                let limit = go_parse_int(&value)?;
                query.limit = (limit > 0).then_some(limit as usize);
            }
            "continue" if !value.is_empty() => query.continue_token = Some(value),
            "resourceVersion" if !value.is_empty() => query.resource_version = Some(value),
            "resourceVersionMatch" if !value.is_empty() => query.resource_version_match = Some(value),
            "watch" => query.watch = parameter_bool(&value),
            "allowWatchBookmarks" => query.allow_watch_bookmarks = parameter_bool(&value),
            "sendInitialEvents" => query.send_initial_events = Some(parameter_bool(&value)),
            "timeoutSeconds" => query.timeout_seconds = Some(u64::try_from(go_parse_int(&value)?).unwrap_or(0)),
            "fieldManager" if !value.is_empty() => query.field_manager = Some(value),
            "force" => {
                query.force = parameter_bool(&value);
                query.force_given = true;
            }
            "fieldValidation" => query.field_validation = Some(value),
            "dryRun" => query.dry_run_values.push(value),
            "propagationPolicy" if !value.is_empty() => query.propagation_policy = Some(value),
            "gracePeriodSeconds" => query.grace_period = Some(go_parse_int(&value)?),
            "orphanDependents" => query.orphan_dependents = Some(parameter_bool(&value)),
            "container" if !value.is_empty() => query.log.container = Some(value),
            "tailLines" => query.log.tail_lines = Some(go_parse_int(&value)?),
            "limitBytes" => query.log.limit_bytes = Some(go_parse_int(&value)?),
            "sinceSeconds" => query.log.since_seconds = Some(go_parse_int(&value)?),
            "sinceTime" if !value.is_empty() => query.log.since_time = Some(value),
            _ => {}
        }
    }
    Ok(query)
}

/// A boolean parameter as apimachinery's `Convert_Slice_string_To_Pointer_bool` reads it: only
/// `0` and `false` (any case) are false, anything else (even nothing) is true.
fn parameter_bool(value: &str) -> bool {
    !(value == "0" || value.eq_ignore_ascii_case("false"))
}

/// An integer parameter as `strconv.ParseInt(s, 10, 64)` reads it, refused with its error.
fn go_parse_int(value: &str) -> Result<i64, ApiStatus> {
    let digits = value.strip_prefix(['+', '-']).unwrap_or(value);
    let why = if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        "invalid syntax"
    } else {
        match value.parse::<i64>() {
            Ok(parsed) => return Ok(parsed),
            Err(_) => "value out of range",
        }
    };
    Err(ApiStatus::bad_request(format!(
        "strconv.ParseInt: parsing {value:?}: {why}"
    )))
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
        assert_eq!(
            parse(Some("limit=x")).unwrap_err().message,
            r#"strconv.ParseInt: parsing "x": invalid syntax"#
        );
    }

    #[test]
    fn a_repeated_option_should_take_its_first_value_and_dry_run_all() {
        let q = parse(Some(
            "limit=1&limit=x&labelSelector=a%3D1&labelSelector=b%3D2&continue=&continue=t&dryRun=All&dryRun=All",
        ))
        .unwrap();
        assert_eq!((q.limit, q.label_selector.as_str()), (Some(1), "a=1"));
        assert_eq!(q.continue_token, None);
        assert_eq!(q.dry_run_values, ["All", "All"]);
    }

    #[test]
    fn delete_options_in_the_query_convert_as_apimachinery_does() {
        let q = parse(Some("gracePeriodSeconds=-5&orphanDependents=")).unwrap();
        assert_eq!((q.grace_period, q.orphan_dependents), (Some(-5), Some(true)));
        assert_eq!(
            parse(Some("orphanDependents=FALSE")).unwrap().orphan_dependents,
            Some(false)
        );
        let refused = parse(Some("gracePeriodSeconds=soon")).unwrap_err();
        assert_eq!(refused.message, r#"strconv.ParseInt: parsing "soon": invalid syntax"#);
        let huge = parse(Some("gracePeriodSeconds=99999999999999999999")).unwrap_err();
        assert!(huge.message.ends_with("value out of range"));
    }
}
