//! The image reference grammar `SetDefaults_Container` reads a tag with
//! (`pkg/util/parsers.ParseImageName` over docker/distribution's `reference.ParseNormalizedNamed`,
//! `normalize.go`, `reference.go` and `regexp.go`, and go-digest's `Digest.Validate`): whether
//! an image parses, and its tag.

use std::sync::LazyLock;

use regex::Regex;

/// `ReferenceRegexp`: a name of optional domain and path components, an optional `:tag` and an
/// optional `@digest`, built from the same pieces as Go's.
static REFERENCE: LazyLock<Regex> = LazyLock::new(|| {
    let alpha_numeric = "[a-z0-9]+";
    let separator = "(?:[._]|__|[-]*)";
    let component = format!("{alpha_numeric}(?:(?:{separator}{alpha_numeric})+)?");
    let domain_component = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
    let domain = format!(r"{domain_component}(?:(?:\.{domain_component})+)?(?::[0-9]+)?");
    let name = format!("(?:{domain}/)?{component}(?:(?:/{component})+)?");
    let tag = r"[\w][\w.-]{0,127}";
    let digest = "[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][[:xdigit:]]{32,}";
    Regex::new(&format!("^({name})(?::({tag}))?(?:@({digest}))?$")).expect("the reference grammar compiles")
});

/// `anchoredIdentifierRegexp`: a bare image ID, which is not a repository name.
static IDENTIFIER: LazyLock<Regex> = LazyLock::new(|| Regex::new("^[a-f0-9]{64}$").expect("compiles"));

/// `NameTotalLengthMax`.
const NAME_TOTAL_LENGTH_MAX: usize = 255;

/// The tag `ParseImageName` reports: the image's own, `latest` when it has neither a tag nor
/// a digest, empty when it has only a digest; `None` when the reference does not parse (the
/// defaulter then ignores the error and reads an empty tag).
pub(crate) fn tag(image: &str) -> Option<String> {
    if IDENTIFIER.is_match(image) {
        return None;
    }
    let (domain, remainder) = split_docker_domain(image);
    let remote_name = remainder.split_once(':').map_or(remainder.as_str(), |(name, _)| name);
    if remote_name.to_lowercase() != remote_name {
        return None;
    }
    let reference = format!("{domain}/{remainder}");
    let captures = REFERENCE.captures(&reference)?;
    if captures.get(1).map_or(0, |name| name.len()) > NAME_TOTAL_LENGTH_MAX {
        return None;
    }
    let digest = captures.get(3).map(|d| d.as_str());
    if digest.is_some_and(|d| !valid_digest(d)) {
        return None;
    }
    let tag = captures.get(2).map_or("", |t| t.as_str());
    Some(if tag.is_empty() && digest.is_none() {
        "latest".to_owned()
    } else {
        tag.to_owned()
    })
}

/// `splitDockerDomain`: the first path segment is a domain when it has a `.` or `:` or is
/// `localhost`; otherwise the image is Docker Hub's, under `library/` when it has no path.
fn split_docker_domain(name: &str) -> (String, String) {
    let (mut domain, remainder) = match name.split_once('/') {
        Some((first, rest)) if first.contains(['.', ':']) || first == "localhost" => {
            (first.to_owned(), rest.to_owned())
        }
        _ => ("docker.io".to_owned(), name.to_owned()),
    };
    if domain == "index.docker.io" {
        domain = "docker.io".to_owned();
    }
    if domain == "docker.io" && !remainder.contains('/') {
        return (domain, format!("library/{remainder}"));
    }
    (domain, remainder)
}

/// `Digest.Validate` with the algorithms kube-apiserver links (sha256, sha384, sha512): the
/// hex encoding of their size, in lower case.
fn valid_digest(digest: &str) -> bool {
    let Some((algorithm, encoded)) = digest.split_once(':') else {
        return false;
    };
    let size = match algorithm {
        "sha256" => 32,
        "sha384" => 48,
        "sha512" => 64,
        _ => return false,
    };
    encoded.len() == size * 2
        && encoded
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_should_be_read_as_parse_image_name_reads_them() {
        assert_eq!(tag("nginx").as_deref(), Some("latest"));
        assert_eq!(tag("nginx:1.25").as_deref(), Some("1.25"));
        assert_eq!(tag("registry.example:5000/team/app").as_deref(), Some("latest"));
        assert_eq!(tag("localhost/app:dev").as_deref(), Some("dev"));
        let sha = "a".repeat(64);
        assert_eq!(tag(&format!("app@sha256:{sha}")).as_deref(), Some(""));
        assert_eq!(tag(&format!("app:v1@sha256:{sha}")).as_deref(), Some("v1"));
    }

    #[test]
    fn references_that_do_not_parse_should_have_no_tag() {
        for image in [
            "",
            "Nginx",
            "nginx:",
            "app@sha256:abc",
            "app@md5:0123456789abcdef0123456789abcdef",
            "a b",
        ] {
            assert_eq!(tag(image), None, "{image:?}");
        }
        assert_eq!(tag(&"f".repeat(64)), None);
        assert_eq!(tag(&format!("{}/app", "x".repeat(256))), None);
    }
}
