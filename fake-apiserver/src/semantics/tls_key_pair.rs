//! The warning the Secret strategy gives a `kubernetes.io/tls` Secret whose pair does not load
//! (`pkg/registry/core/secret/strategy.go`: `warningsForSecret`, with `crypto/tls`'s
//! `X509KeyPair` error): the PEM stage of `X509KeyPair` — the certificate input must hold a
//! `CERTIFICATE` block, the key input a `… PRIVATE KEY` block — with Go's wording. The later
//! stages (the certificate's DER, the key's, and whether they match) are not checked here.

use base64::Engine as _;
use serde_json::Value;

use crate::semantics::x509_request::pem_decode;

/// `warningsForSecret`: the `X509KeyPair` error of a TLS Secret's `tls.crt` and `tls.key`.
pub(crate) fn secret_warnings(secret: &Value) -> Vec<String> {
    if secret.get("type").and_then(Value::as_str) != Some("kubernetes.io/tls") {
        return Vec::new();
    }
    let data = |key: &str| {
        secret
            .pointer(&format!("/data/{}", key.replace('~', "~0").replace('/', "~1")))
            .and_then(Value::as_str)
            .and_then(|text| base64::engine::general_purpose::STANDARD.decode(text).ok())
            .unwrap_or_default()
    };
    key_pair_error(&data("tls.crt"), &data("tls.key")).into_iter().collect()
}

/// `X509KeyPair`'s PEM stage: why `cert` and `key` are no pair, if the PEM blocks say so.
fn key_pair_error(cert: &[u8], key: &[u8]) -> Option<String> {
    let (found, skipped) = blocks(cert, |kind| kind == "CERTIFICATE");
    if !found {
        return Some(match skipped.as_slice() {
            [] => "tls: failed to find any PEM data in certificate input".to_owned(),
            [only] if only.ends_with("PRIVATE KEY") => "tls: failed to find certificate PEM data in certificate input, but did find a private key; PEM inputs may have been switched".to_owned(),
            _ => format!(
                "tls: failed to find \"CERTIFICATE\" PEM block in certificate input after skipping PEM blocks of the following types: [{}]",
                skipped.join(" ")
            ),
        });
    }
    let (found, skipped) = blocks(key, |kind| kind == "PRIVATE KEY" || kind.ends_with(" PRIVATE KEY"));
    if found {
        return None;
    }
    Some(match skipped.as_slice() {
        [] => "tls: failed to find any PEM data in key input".to_owned(),
        [only] if only == "CERTIFICATE" => {
            "tls: found a certificate rather than a key in the PEM for the private key".to_owned()
        }
        _ => format!(
            "tls: failed to find PEM block with type ending in \"PRIVATE KEY\" in key input after skipping PEM blocks of the following types: [{}]",
            skipped.join(" ")
        ),
    })
}

/// Whether `input` holds a PEM block `wanted` takes, and the types of the blocks skipped before
/// it (all of them when none is taken). The certificate input is read to its end, the key
/// input up to its first key, as Go's loops read them.
fn blocks(input: &[u8], wanted: impl Fn(&str) -> bool) -> (bool, Vec<String>) {
    let mut rest = input;
    let mut skipped = Vec::new();
    let mut found = false;
    while let Some(block) = pem_decode(rest) {
        rest = block.rest;
        if wanted(&block.kind) {
            found = true;
            break;
        }
        skipped.push(block.kind);
    }
    (found, skipped)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn pem(kind: &str) -> String {
        format!("-----BEGIN {kind}-----\nAAAA\n-----END {kind}-----\n")
    }

    fn tls(cert: &str, key: &str) -> Value {
        let encode = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
        json!({"type": "kubernetes.io/tls", "data": {"tls.crt": encode(cert), "tls.key": encode(key)}})
    }

    #[test]
    fn the_pem_blocks_should_be_checked_as_x509_key_pair_checks_them() {
        let warn = |cert: &str, key: &str| secret_warnings(&tls(cert, key));
        assert_eq!(warn("", ""), ["tls: failed to find any PEM data in certificate input"]);
        assert_eq!(
            warn(&pem("RSA PRIVATE KEY"), ""),
            [
                "tls: failed to find certificate PEM data in certificate input, but did find a private key; PEM inputs may have been switched"
            ]
        );
        assert_eq!(
            warn(&(pem("FOO") + &pem("BAR")), ""),
            [
                "tls: failed to find \"CERTIFICATE\" PEM block in certificate input after skipping PEM blocks of the following types: [FOO BAR]"
            ]
        );
        assert_eq!(
            warn(&pem("CERTIFICATE"), ""),
            ["tls: failed to find any PEM data in key input"]
        );
        assert_eq!(
            warn(&pem("CERTIFICATE"), &pem("CERTIFICATE")),
            ["tls: found a certificate rather than a key in the PEM for the private key"]
        );
        assert!(warn(&pem("CERTIFICATE"), &pem("EC PRIVATE KEY")).is_empty());
        assert!(secret_warnings(&json!({"type": "Opaque", "data": {}})).is_empty());
    }
}
