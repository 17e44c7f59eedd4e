//! Kubernetes' URL library (`apiserver/pkg/cel/library/urls.go`) and its `kubernetes.URL` value (`apiserver/pkg/cel/url.go`), on the `net/url` port of `net_url.rs`.

use std::any::Any;
use std::collections::HashMap;

use cel::common::types::{CelBool, CelList, CelMap, CelMapKey, CelString, Type};
use cel::common::value::{StaticVal, Val};
use cel::{DeclarationError, Env, ExecutionError, add_member_overload, add_overload};

use super::go_error;
use super::net_url::Url;

static URL_TYPE: Type = Type::new_unspecified_type("kubernetes.URL");

pub(super) fn register(env: &mut Env) -> Result<(), DeclarationError> {
    add_overload!(env, fn url: (CelString) -> Result<Url>, id = "string_to_url")?;
    add_overload!(env, fn is_url: (CelString) -> CelBool, name = "isURL", id = "is_url_string")?;
    add_member_overload!(env, fn get_scheme: (Url) -> CelString, id = "url_get_scheme")?;
    add_member_overload!(env, fn get_host: (Url) -> CelString, id = "url_get_host")?;
    add_member_overload!(env, fn get_hostname: (Url) -> CelString, id = "url_get_hostname")?;
    add_member_overload!(env, fn get_port: (Url) -> CelString, id = "url_get_port")?;
    add_member_overload!(env, fn get_escaped_path: (Url) -> CelString, id = "url_get_escaped_path")?;
    add_member_overload!(env, fn get_query: (Url) -> CelMap, id = "url_get_query")?;
    Ok(())
}

impl Val for Url {
    fn get_type(&self) -> &Type {
        &URL_TYPE
    }

    fn cel_type() -> &'static Type {
        &URL_TYPE
    }

    /// `url.go`'s `Equal`: the same `URL.String()`.
    fn equals(&self, other: &dyn Val) -> bool {
        other
            .downcast_ref::<Url>()
            .is_some_and(|other| other.go_string() == self.go_string())
    }

    fn clone_as_boxed<'v>(&self) -> Box<dyn Val + 'v> {
        Box::new(self.clone())
    }

    fn as_any(&self) -> Option<&dyn Any> {
        Some(self)
    }
}

impl StaticVal for Url {}

fn url(s: &CelString<'_>) -> Result<Url, ExecutionError> {
    let failure = |error: String| go_error("url", format!("URL parse error during conversion from string: {error}"));
    // stringToUrl: validated as a request URI, the value made by url.Parse.
    Url::parse_request_uri(s).map_err(failure)?;
    Url::parse(s).map_err(failure)
}

fn is_url(s: &CelString<'_>) -> CelBool {
    CelBool::from(Url::parse_request_uri(s).is_ok())
}

fn get_scheme(url: &Url) -> CelString<'static> {
    url.scheme().to_owned().into()
}

fn get_host(url: &Url) -> CelString<'static> {
    text(url.host())
}

fn get_hostname(url: &Url) -> CelString<'static> {
    text(url.hostname())
}

fn get_port(url: &Url) -> CelString<'static> {
    text(url.port())
}

fn get_escaped_path(url: &Url) -> CelString<'static> {
    url.escaped_path().into()
}

/// `URL.Query()` as a `map(string, list(string))`.
fn get_query(url: &Url) -> CelMap<'static> {
    let mut values: HashMap<String, Vec<String>> = HashMap::new();
    for (key, value) in url.query() {
        values.entry(lossy(&key)).or_default().push(lossy(&value));
    }
    let entries = values.into_iter().map(|(key, list)| {
        let list: Vec<Box<dyn Val>> = list
            .into_iter()
            .map(|v| Box::new(CelString::from(v)) as Box<dyn Val>)
            .collect();
        (CelMapKey::from(key), Box::new(CelList::from(list)) as Box<dyn Val>)
    });
    entries.collect::<HashMap<_, _>>().into()
}

/// Go's strings hold any bytes; CEL's here, valid UTF-8.
fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn text(bytes: &[u8]) -> CelString<'static> {
    lossy(bytes).into()
}

#[cfg(test)]
mod tests {
    // Expected values are cel-go v0.16.1's with `library.URLs()` (Go 1.21's `net/url`).
    use super::super::tests::{check, evaluate};
    use cel::Value;
    use std::collections::HashMap;

    fn parts(url: &str) -> Vec<Value> {
        let getters = ["getScheme", "getHost", "getHostname", "getPort", "getEscapedPath"];
        getters
            .iter()
            .map(|getter| evaluate(&format!("url('{url}').{getter}()")).unwrap_or_else(|e| e.into()))
            .collect()
    }

    fn values(parts: &[&str]) -> Vec<Value> {
        parts.iter().map(|&p| p.into()).collect()
    }

    #[test]
    fn urls_split_as_go_parses_them() {
        for (url, expected) in [
            (
                "https://example.com:80/path",
                ["https", "example.com:80", "example.com", "80", "/path"],
            ),
            ("https://[::1]:80/path", ["https", "[::1]:80", "::1", "80", "/path"]),
            (
                "https://[fe80::1%25en0]/",
                ["https", "[fe80::1%en0]", "fe80::1%en0", "", "/"],
            ),
            (
                "HTTP://user:pw@Example.com:/a%2Fb",
                ["http", "Example.com:", "Example.com", "", "/a%2Fb"],
            ),
            ("/path?query=val#frag", ["", "", "", "", "/path"]),
            (
                "https://example.com/a b#c d",
                ["https", "example.com", "example.com", "", "/a%20b"],
            ),
            (
                "https://example.com/é/%7e",
                ["https", "example.com", "example.com", "", "/%C3%A9/~"],
            ),
            ("mailto:someone@example.com", ["mailto", "", "", "", ""]),
            ("*", ["", "", "", "", "*"]),
            ("https:///path", ["https", "", "", "", "/path"]),
            ("//example.com/p", ["", "example.com", "example.com", "", "/p"]),
        ] {
            assert_eq!(parts(url), values(&expected), "{url}");
        }
    }

    #[test]
    fn get_query_collects_every_value() {
        let query = evaluate("url('https://e.com/?a=1&a=2&b&c=%20+x&bad=%zz&semi;colon=1&=v').getQuery()");
        let expected: HashMap<&str, Vec<&str>> = HashMap::from([
            ("a", vec!["1", "2"]),
            ("b", vec![""]),
            ("c", vec!["  x"]),
            ("", vec!["v"]),
        ]);
        let expected: HashMap<String, Value> = expected.into_iter().map(|(k, v)| (k.to_owned(), v.into())).collect();
        assert_eq!(query, Ok(expected.into()));
        check(
            "url('https://e.com/').getQuery()",
            Ok(HashMap::<String, Value>::new().into()),
        );
    }

    #[test]
    fn is_url_is_parse_request_uri() {
        for (url, expected) in [
            ("https://example.com", true),
            ("/absolute/path", true),
            ("mailto:x", true),
            ("*", true),
            ("relative/path", false),
            ("", false),
            ("https://exa mple.com", false),
            ("https://example.com:8a/", false),
            ("https://[::1/", false),
            ("https://example.com/%zz", false),
            ("http://a b@c/", false),
            (":x", false),
        ] {
            check(&format!("isURL('{url}')"), Ok(expected.into()));
        }
    }

    #[test]
    fn invalid_urls_fail_with_go_errors() {
        let prefix = "URL parse error during conversion from string: parse";
        for (url, error) in [
            ("a", r#""a": invalid URI for request"#),
            ("", r#""": empty url"#),
            (":x", r#"":x": missing protocol scheme"#),
            (
                "https://exa mple.com",
                r#""https://exa mple.com": invalid character " " in host name"#,
            ),
            (
                "https://example.com:8a/",
                r#""https://example.com:8a/": invalid port ":8a" after host"#,
            ),
            ("https://[::1/", r#""https://[::1/": missing ']' in host"#),
            ("https://e.com/%zz", r#""https://e.com/%zz": invalid URL escape "%zz""#),
            ("https://e.com/%4", r#""https://e.com/%4": invalid URL escape "%4""#),
            ("http://%41.com/", r#""http://%41.com/": invalid URL escape "%41""#),
            ("http://a b@c/", r#""http://a b@c/": net/url: invalid userinfo"#),
            (
                "https://e.com/\\t",
                r#""https://e.com/\t": net/url: invalid control character in URL"#,
            ),
        ] {
            check(&format!("url('{url}')"), Err(&format!("{prefix} {error}")));
        }
        check("url(dyn(1))", Err("no such overload: url(int)"));
        check("dyn(1).getHost()", Err("no such overload: getHost(int)"));
        check("isURL(dyn(1))", Err("no such overload: isURL(int)"));
    }

    #[test]
    fn urls_are_values_of_their_own_type() {
        check("url('https://e.com/a') == url('https://e.com/a')", Ok(true.into()));
        check("url('https://e.com/a') == url('https://e.com/b')", Ok(false.into()));
        // Both print as https://e.com/a%20b.
        check(
            "url('https://e.com/a%20b') == url('https://e.com/a b')",
            Ok(true.into()),
        );
        check(
            "url('HTTPS://e.com/a#x') == url('https://e.com/a#%78')",
            Ok(false.into()),
        );
        check(
            "type(url('https://e.com')) == type(url('https://f.com'))",
            Ok(true.into()),
        );
    }
}
