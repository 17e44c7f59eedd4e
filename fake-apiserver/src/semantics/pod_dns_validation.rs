//! A pod spec's DNS configuration as `pkg/apis/core/validation/validation.go`'s
//! `validatePodDNSConfig` checks it: with the `None` policy a configuration with a nameserver
//! is required; at most `MaxDNSNameservers` nameservers, each an IP address (1.28 parses it
//! itself and says "must be valid IP address", 1.31 calls apimachinery's `IsValidIP`); at most
//! `MaxDNSSearchPaths` search domains of at most `MaxDNSSearchListChars` together, each a DNS
//! subdomain but for a trailing dot; options with names.

use serde_json::Value;

use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::names;
use crate::semantics::service_ip_validation::{NOT_AN_IP, parse_ip};
use crate::storage::object;

/// Limits derived from Linux libc's name resolution.
const MAX_NAMESERVERS: usize = 3;
const MAX_SEARCH_PATHS: usize = 32;
/// Characters of the search list, the spaces between paths included.
const MAX_SEARCH_LIST_CHARS: usize = 2048;

/// `validatePodDNSConfig` of the spec at `path`, on the Kubernetes `minor`.
pub(crate) fn dns_config_errors(spec: &Value, path: &str, minor: u32) -> Vec<FieldError> {
    let at = format!("{path}.dnsConfig");
    let config = object::present(spec, "dnsConfig");
    let nameservers = config
        .map(|c| object::string_list(c.get("nameservers")))
        .unwrap_or_default();
    if spec.get("dnsPolicy").and_then(Value::as_str) == Some("None") {
        // The first thing missing is the one answer.
        if config.is_none() {
            return vec![FieldError::required(
                at,
                "must provide `dnsConfig` when `dnsPolicy` is None",
            )];
        }
        if nameservers.is_empty() {
            return vec![FieldError::required(
                format!("{at}.nameservers"),
                "must provide at least one DNS nameserver when `dnsPolicy` is None",
            )];
        }
    }
    let Some(config) = config else {
        return Vec::new();
    };
    let mut errors = Vec::new();
    if nameservers.len() > MAX_NAMESERVERS {
        errors.push(FieldError::invalid(
            format!("{at}.nameservers"),
            BadValue::Strings(nameservers.clone()),
            format!("must not have more than {MAX_NAMESERVERS} nameservers"),
        ));
    }
    let not_an_ip = if minor >= 31 {
        NOT_AN_IP
    } else {
        "must be valid IP address"
    };
    for (i, nameserver) in nameservers.iter().enumerate() {
        if parse_ip(nameserver).is_none() {
            errors.push(FieldError::invalid(
                format!("{at}.nameservers[{i}]"),
                nameserver.as_str().into(),
                not_an_ip,
            ));
        }
    }
    let searches = object::string_list(config.get("searches"));
    if searches.len() > MAX_SEARCH_PATHS {
        errors.push(FieldError::invalid(
            format!("{at}.searches"),
            BadValue::Strings(searches.clone()),
            format!("must not have more than {MAX_SEARCH_PATHS} search paths"),
        ));
    }
    if searches.join(" ").len() > MAX_SEARCH_LIST_CHARS {
        errors.push(FieldError::invalid(
            format!("{at}.searches"),
            BadValue::Strings(searches.clone()),
            format!("must not have more than {MAX_SEARCH_LIST_CHARS} characters (including spaces) in the search list"),
        ));
    }
    for (i, search) in searches.iter().enumerate() {
        // A trailing dot is fine; the rest is what is checked, and shown.
        let search = search.strip_suffix('.').unwrap_or(search);
        for why in names::dns1123_subdomain_errors(search) {
            errors.push(FieldError::invalid(format!("{at}.searches[{i}]"), search.into(), why));
        }
    }
    let options = config.get("options").and_then(Value::as_array);
    for (i, option) in options.into_iter().flatten().enumerate() {
        if option
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .is_empty()
        {
            errors.push(FieldError::required(format!("{at}.options[{i}]"), "must not be empty"));
        }
    }
    errors
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::semantics::field_error::rendered;

    #[test]
    fn the_none_policy_should_need_a_configuration_with_a_nameserver() {
        let none = |config: Option<Value>| {
            let mut spec = json!({"dnsPolicy": "None"});
            if let Some(config) = config {
                spec["dnsConfig"] = config;
            }
            rendered(dns_config_errors(&spec, "spec", 28))
        };
        assert_eq!(
            none(None),
            ["spec.dnsConfig: Required value: must provide `dnsConfig` when `dnsPolicy` is None"]
        );
        // Nothing else is checked then.
        assert_eq!(
            none(Some(json!({"searches": ["Bad_Domain"]}))),
            [
                "spec.dnsConfig.nameservers: Required value: must provide at least one DNS nameserver when `dnsPolicy` is None"
            ]
        );
        assert!(none(Some(json!({"nameservers": ["10.0.0.10"]}))).is_empty());
        assert!(dns_config_errors(&json!({"dnsPolicy": "ClusterFirst"}), "spec", 28).is_empty());
    }

    #[test]
    fn nameservers_should_be_few_addresses_worded_per_minor() {
        let spec = json!({"dnsConfig": {"nameservers": ["1.1.1.1", "::1", "8.8.8.8", "dns.local"]}});
        assert_eq!(
            rendered(dns_config_errors(&spec, "spec", 28)),
            [
                "spec.dnsConfig.nameservers: Invalid value: []string{\"1.1.1.1\", \"::1\", \"8.8.8.8\", \"dns.local\"}: must not have more than 3 nameservers",
                "spec.dnsConfig.nameservers[3]: Invalid value: \"dns.local\": must be valid IP address",
            ]
        );
        assert_eq!(
            rendered(dns_config_errors(&spec, "spec", 31))[1],
            "spec.dnsConfig.nameservers[3]: Invalid value: \"dns.local\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"
        );
    }

    #[test]
    fn searches_should_be_few_short_subdomains_and_options_named() {
        let many: Vec<String> = (0..33).map(|i| format!("d{i}.example.com.")).collect();
        let spec = json!({"dnsConfig": {"searches": many, "options": [{"name": "ndots"}, {"value": "2"}]}});
        let got = rendered(dns_config_errors(&spec, "spec", 28));
        assert_eq!(got.len(), 2, "{got:#?}");
        assert!(got[0].starts_with("spec.dnsConfig.searches: Invalid value: []string{\"d0.example.com.\","));
        assert!(got[0].ends_with(": must not have more than 32 search paths"));
        assert_eq!(got[1], "spec.dnsConfig.options[1]: Required value: must not be empty");

        let long = vec!["a".repeat(63); 33];
        let spec = json!({"dnsConfig": {"searches": [long.join("."), "Bad_Domain."]}});
        let got = rendered(dns_config_errors(&spec, "spec", 28));
        assert!(got[0].ends_with(": must not have more than 2048 characters (including spaces) in the search list"));
        // The name is too long as a subdomain, and the trailing dot is dropped from the other.
        assert!(got[1].starts_with("spec.dnsConfig.searches[0]: Invalid value: \"aaaa"));
        assert!(got[1].ends_with(": must be no more than 253 characters"));
        assert!(
            got[2].starts_with(
                "spec.dnsConfig.searches[1]: Invalid value: \"Bad_Domain\": a lowercase RFC 1123 subdomain"
            )
        );
    }
}
