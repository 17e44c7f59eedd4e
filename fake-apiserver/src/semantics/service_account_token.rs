//! Service account tokens as kube-apiserver issues and authenticates them
//! (`pkg/serviceaccount/jwt.go`, `claims.go`): RS256 JWTs from the issuer
//! `https://kubernetes.default.svc.cluster.local`, whose claims name the service account (and
//! the pod or secret the token is bound to), signed with this server's key (one fixed RSA key,
//! `service_account_key.der`, as a cluster has its `--service-account-key-file`; the `kid` is
//! the SHA-256 of its public key, as kube-apiserver computes it). Verifying a token checks what
//! the token itself says (issuer, signature, audiences, times); whether the objects it names
//! still exist is the reviewer's to check, with the storage.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::signature::{self, KeyPair, RsaKeyPair, UnparsedPublicKey};
use serde_json::{Map, Value, json};

/// The issuer kube-apiserver is started with (`--service-account-issuer`), which is also the
/// audience its own API accepts by default.
pub(crate) const ISSUER: &str = "https://kubernetes.default.svc.cluster.local";

/// The signing key, an RSA private key in PKCS#1 DER.
const KEY: &[u8] = include_bytes!("service_account_key.der");

/// The clock skew the validator allows (`jwt.DefaultLeeway`).
const LEEWAY: i64 = 60;

/// What a token is about.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Claims {
    pub(crate) namespace: String,
    pub(crate) name: String,
    pub(crate) uid: String,
    /// The object the token is bound to: `pod` or `secret`, its name and uid.
    pub(crate) bound: Option<(String, String, String)>,
    pub(crate) audiences: Vec<String>,
    pub(crate) issued: i64,
    pub(crate) expires: i64,
    /// A pod-bound token's extended lifetime warns after this time (`warnafter`).
    pub(crate) warn_after: Option<i64>,
    /// The token's id (`jti`), which kube-apiserver gives tokens from 1.30
    /// (`ServiceAccountTokenJTI`, beta) and reports as the user's credential id.
    pub(crate) id: Option<String>,
    /// A token of a `service-account-token` Secret (`LegacyIssuer`), bound to that Secret by
    /// name: it is valid while the Secret holds it.
    pub(crate) legacy: bool,
}

/// Why a token does not authenticate.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Refusal {
    /// Not a token of this issuer, or not a JWT at all: no authenticator claims it.
    #[error("invalid bearer token")]
    NotOurs,
    /// A token of this issuer that does not hold: the authenticator's error.
    #[error("[invalid bearer token, {0}]")]
    Invalid(String),
}

/// Why no key could be made: only if the embedded key were broken.
#[derive(Clone, Debug, thiserror::Error)]
#[error("the service account signing key does not load: {0}")]
pub(crate) struct KeyError(String);

fn key() -> Result<RsaKeyPair, KeyError> {
    RsaKeyPair::from_der(KEY).map_err(|e| KeyError(e.to_string()))
}

/// The key id: the base64url SHA-256 of the public key's PKIX DER (`keyIDFromPublicKey`).
fn key_id(key: &RsaKeyPair) -> String {
    let rsa = key.public_key().as_ref();
    let algorithm = [
        0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00,
    ];
    let mut bits = vec![0x00];
    bits.extend_from_slice(rsa);
    let mut body = algorithm.to_vec();
    body.extend(der(0x03, &bits));
    let pkix = der(0x30, &body);
    URL_SAFE_NO_PAD.encode(ring::digest::digest(&ring::digest::SHA256, &pkix))
}

/// One DER element.
fn der(tag: u8, content: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    let length = content.len();
    if length < 0x80 {
        out.push(length as u8);
    } else {
        let bytes: Vec<u8> = length.to_be_bytes().into_iter().skip_while(|b| *b == 0).collect();
        out.push(0x80 | bytes.len() as u8);
        out.extend(bytes);
    }
    out.extend_from_slice(content);
    out
}

/// The signed token for `claims` (`JWTTokenGenerator.GenerateToken`): claims in the order Go's
/// map encoding writes them.
pub(crate) fn issue(claims: &Claims) -> Result<String, KeyError> {
    let reference = |name: &str, uid: &str| json!({ "name": name, "uid": uid });
    let mut kubernetes = Map::new();
    kubernetes.insert("namespace".to_owned(), json!(claims.namespace));
    if let Some((kind, name, uid)) = &claims.bound {
        kubernetes.insert(kind.clone(), reference(name, uid));
    }
    kubernetes.insert("serviceaccount".to_owned(), reference(&claims.name, &claims.uid));
    if let Some(warn_after) = claims.warn_after {
        kubernetes.insert("warnafter".to_owned(), json!(warn_after));
    }
    let payload = json!({
        "aud": claims.audiences,
        "exp": claims.expires,
        "iat": claims.issued,
        "iss": ISSUER,
        "kubernetes.io": kubernetes,
        "nbf": claims.issued,
        "sub": format!("system:serviceaccount:{}:{}", claims.namespace, claims.name),
    });
    let mut payload = payload;
    if let Some(id) = &claims.id {
        payload["jti"] = json!(id);
    }
    sign(&payload)
}

/// The issuer of the tokens kube-controller-manager writes into `service-account-token` Secrets
/// (`serviceaccount.LegacyIssuer`).
pub(crate) const LEGACY_ISSUER: &str = "kubernetes/serviceaccount";

/// A token for a `kubernetes.io/service-account-token` Secret (`LegacyClaims`): no audience and
/// no expiry, the account and the secret in `kubernetes.io/serviceaccount/…` claims.
pub(crate) fn issue_legacy(
    namespace: &str,
    account: &str,
    account_uid: &str,
    secret: &str,
) -> Result<String, KeyError> {
    let prefix = "kubernetes.io/serviceaccount/";
    let mut payload = Map::new();
    payload.insert("iss".to_owned(), json!(LEGACY_ISSUER));
    payload.insert(format!("{prefix}namespace"), json!(namespace));
    payload.insert(format!("{prefix}secret.name"), json!(secret));
    payload.insert(format!("{prefix}service-account.name"), json!(account));
    payload.insert(format!("{prefix}service-account.uid"), json!(account_uid));
    payload.insert(
        "sub".to_owned(),
        json!(format!("system:serviceaccount:{namespace}:{account}")),
    );
    sign(&Value::Object(payload))
}

/// The compact RS256 JWS of `payload` with this server's key and key id.
fn sign(payload: &Value) -> Result<String, KeyError> {
    let key = key()?;
    let header = json!({ "alg": "RS256", "kid": key_id(&key) });
    let signing_input = format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(header.to_string()),
        URL_SAFE_NO_PAD.encode(payload.to_string())
    );
    let mut signed = vec![0; key.public().modulus_len()];
    let rng = ring::rand::SystemRandom::new();
    key.sign(
        &signature::RSA_PKCS1_SHA256,
        &rng,
        signing_input.as_bytes(),
        &mut signed,
    )
    .map_err(|e| KeyError(e.to_string()))?;
    Ok(format!("{signing_input}.{}", URL_SAFE_NO_PAD.encode(signed)))
}

/// `jwtTokenAuthenticator.AuthenticateToken` and the validator's time checks: the claims of a
/// token of this issuer, signed with this key, for one of `wanted` (the API's audience when
/// none), valid at `now`.
pub(crate) fn verify(token: &str, wanted: &[String], now: i64) -> Result<Claims, Refusal> {
    let parts: Vec<&str> = token.split('.').collect();
    let [header, payload, signature_part] = parts[..] else {
        return Err(Refusal::NotOurs);
    };
    let payload: Value = URL_SAFE_NO_PAD
        .decode(payload)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .ok_or(Refusal::NotOurs)?;
    let issuer = payload.get("iss").and_then(Value::as_str);
    let legacy = issuer == Some(LEGACY_ISSUER);
    if issuer != Some(ISSUER) && !legacy {
        return Err(Refusal::NotOurs);
    }
    let header_ok = URL_SAFE_NO_PAD
        .decode(header)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
        .is_some_and(|h| h.is_object());
    let signature_bytes = URL_SAFE_NO_PAD.decode(signature_part).map_err(|_| Refusal::NotOurs)?;
    if !header_ok {
        return Err(Refusal::NotOurs);
    }
    let key = key().map_err(|e| Refusal::Invalid(e.to_string()))?;
    UnparsedPublicKey::new(&signature::RSA_PKCS1_2048_8192_SHA256, key.public_key().as_ref())
        .verify(format!("{header}.{}", parts[1]).as_bytes(), &signature_bytes)
        .map_err(|_| Refusal::Invalid("square/go-jose: error in cryptographic primitive".to_owned()))?;
    let strings = |v: Option<&Value>| -> Vec<String> {
        match v {
            Some(Value::String(one)) => vec![one.clone()],
            Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
            _ => Vec::new(),
        }
    };
    let mut audiences = strings(payload.get("aud"));
    if audiences.is_empty() {
        audiences = vec![ISSUER.to_owned()];
    }
    let wanted: Vec<String> = if wanted.is_empty() {
        vec![ISSUER.to_owned()]
    } else {
        wanted.to_vec()
    };
    let shared: Vec<String> = audiences.iter().filter(|a| wanted.contains(a)).cloned().collect();
    if shared.is_empty() {
        return Err(Refusal::Invalid(format!(
            "token audiences {} is invalid for the target audiences {}",
            go_strings(&audiences),
            go_strings(&wanted)
        )));
    }
    let time = |key: &str| payload.get(key).and_then(Value::as_i64);
    if time("exp").is_some_and(|exp| now > exp + LEEWAY) {
        return Err(Refusal::Invalid("service account token has expired".to_owned()));
    }
    if time("nbf").is_some_and(|nbf| now + LEEWAY < nbf) {
        return Err(Refusal::Invalid("service account token is not valid yet".to_owned()));
    }
    if time("iat").is_some_and(|iat| now + LEEWAY < iat) {
        return Err(Refusal::Invalid(
            "service account token is issued in the future".to_owned(),
        ));
    }
    if legacy {
        return legacy_claims(&payload, shared);
    }
    let private = payload.get("kubernetes.io").cloned().unwrap_or_default();
    let text = |pointer: &str| {
        private
            .pointer(pointer)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let bound = ["pod", "secret"]
        .into_iter()
        .find(|kind| private.get(*kind).is_some_and(Value::is_object))
        .map(|kind| {
            (
                kind.to_owned(),
                text(&format!("/{kind}/name")),
                text(&format!("/{kind}/uid")),
            )
        });
    Ok(Claims {
        namespace: text("/namespace"),
        name: text("/serviceaccount/name"),
        uid: text("/serviceaccount/uid"),
        bound,
        audiences: shared,
        issued: time("iat").unwrap_or_default(),
        expires: time("exp").unwrap_or_default(),
        warn_after: private.get("warnafter").and_then(Value::as_i64),
        id: payload.get("jti").and_then(Value::as_str).map(str::to_owned),
        legacy: false,
    })
}

/// The legacy validator's claim checks (`legacyValidator.Validate` of
/// `pkg/serviceaccount/legacy.go`, before its lookups).
fn legacy_claims(payload: &Value, audiences: Vec<String>) -> Result<Claims, Refusal> {
    let text = |key: &str| payload.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
    let private = |key: &str| text(&format!("kubernetes.io/serviceaccount/{key}"));
    let (subject, namespace, secret) = (text("sub"), private("namespace"), private("secret.name"));
    let (name, uid) = (private("service-account.name"), private("service-account.uid"));
    let missing = [
        (&subject, "sub"),
        (&namespace, "namespace"),
        (&secret, "secretName"),
        (&name, "serviceAccountName"),
        (&uid, "serviceAccountUID"),
    ];
    if let Some((_, claim)) = missing.iter().find(|(value, _)| value.is_empty()) {
        return Err(Refusal::Invalid(format!("{claim} claim is missing")));
    }
    if subject != format!("system:serviceaccount:{namespace}:{name}") {
        return Err(Refusal::Invalid("sub claim is invalid".to_owned()));
    }
    Ok(Claims {
        namespace,
        name,
        uid,
        bound: Some(("secret".to_owned(), secret, String::new())),
        audiences,
        issued: 0,
        expires: 0,
        warn_after: None,
        id: None,
        legacy: true,
    })
}

/// Go's `%q` of a `[]string`: `["a" "b"]`.
fn go_strings(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|s| format!("{s:?}")).collect();
    format!("[{}]", quoted.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claims() -> Claims {
        Claims {
            namespace: "ns".into(),
            name: "robot".into(),
            uid: "u1".into(),
            bound: None,
            audiences: vec!["api".into()],
            issued: 1_000,
            expires: 4_600,
            warn_after: None,
            id: None,
            legacy: false,
        }
    }

    #[test]
    fn the_key_id_should_be_the_public_key_hash() {
        // `openssl pkey -pubout -outform DER | openssl dgst -sha256 -binary | base64url`.
        assert_eq!(key_id(&key().unwrap()), "Pz7Ayd3F7jKxEnGCKO38ubGAXKQGzDPLVcZLgKN36YM");
    }

    #[test]
    fn an_issued_token_should_verify_for_its_audiences_and_times_only() {
        let token = issue(&claims()).unwrap();
        let verified = verify(&token, &["api".into(), "other".into()], 2_000).unwrap();
        assert_eq!(
            (verified.name.as_str(), verified.audiences.clone()),
            ("robot", vec!["api".to_owned()])
        );
        assert_eq!(
            verify(&token, &[], 2_000).unwrap_err().to_string(),
            "[invalid bearer token, token audiences [\"api\"] is invalid for the target audiences [\"https://kubernetes.default.svc.cluster.local\"]]"
        );
        assert_eq!(
            verify(&token, &["api".into()], 9_000).unwrap_err().to_string(),
            "[invalid bearer token, service account token has expired]"
        );
        let tampered = format!("{token}AAAA");
        assert!(
            verify(&tampered, &["api".into()], 2_000)
                .unwrap_err()
                .to_string()
                .contains("cryptographic primitive")
        );
        assert_eq!(verify("not-a-token", &[], 0), Err(Refusal::NotOurs));
    }

    #[test]
    fn a_legacy_token_should_verify_for_the_api_and_name_its_secret() {
        let token = issue_legacy("ns", "robot", "u1", "robot-token").unwrap();
        let claims = verify(&token, &[], 0).unwrap();
        assert!(claims.legacy);
        assert_eq!(
            (claims.namespace.as_str(), claims.name.as_str(), claims.uid.as_str()),
            ("ns", "robot", "u1")
        );
        assert_eq!(
            claims.bound,
            Some(("secret".to_owned(), "robot-token".to_owned(), String::new()))
        );
        assert_eq!(claims.audiences, [ISSUER]);
        let refused = verify(&token, &["other".into()], 0).unwrap_err().to_string();
        assert!(refused.contains("token audiences"), "{refused}");
    }
}
