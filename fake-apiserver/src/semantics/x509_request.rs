//! PKCS#10 certificate requests and PEM certificates as kube-apiserver reads them when it
//! validates a CertificateSigningRequest (`pkg/apis/certificates/helpers.go`'s `ParseCSR`:
//! Go's `encoding/pem` and `crypto/x509`'s `ParseCertificateRequest` and `CheckSignature`, the
//! signature verified with ring), with Go's error texts for what commonly goes wrong: another
//! PEM block, DER that is no request, a signature that does not verify.

use ring::signature::{self, UnparsedPublicKey, VerificationAlgorithm};

/// One PEM block: its type and its decoded bytes, and what follows it.
pub(crate) struct PemBlock<'a> {
    pub(crate) kind: String,
    pub(crate) bytes: Vec<u8>,
    pub(crate) has_headers: bool,
    pub(crate) rest: &'a [u8],
}

/// `pem.Decode`: the first block of `data`, if any (a block whose body is not base64 is none).
pub(crate) fn pem_decode(data: &[u8]) -> Option<PemBlock<'_>> {
    use base64::Engine as _;
    let text = std::str::from_utf8(data).ok()?;
    let start = text.find("-----BEGIN ")?;
    let after = &text[start + 11..];
    let kind_end = after.find("-----")?;
    let kind = after[..kind_end].to_owned();
    let body_start = start + 11 + kind_end + 5;
    let end_marker = format!("-----END {kind}-----");
    let end = text[body_start..].find(&end_marker)? + body_start;
    let body = &text[body_start..end];
    let has_headers = body.lines().any(|line| line.contains(':'));
    let encoded: String = body
        .lines()
        .filter(|line| !line.contains(':'))
        .flat_map(str::chars)
        .filter(|c| !c.is_whitespace())
        .collect();
    let bytes = base64::engine::general_purpose::STANDARD.decode(encoded).ok()?;
    let rest = &data[end + end_marker.len()..];
    Some(PemBlock {
        kind,
        bytes,
        has_headers,
        rest,
    })
}

/// `ParseCSR` then `CheckSignature`: Go's error when the PEM holds no request whose signature
/// verifies.
pub(crate) fn check_request(pem: &[u8]) -> Result<(), String> {
    let block = pem_decode(pem)
        .filter(|b| b.kind == "CERTIFICATE REQUEST")
        .ok_or_else(|| "PEM block type must be CERTIFICATE REQUEST".to_owned())?;
    let der = &block.bytes;
    let (outer, _) = element(der, 0).map_err(|_| structure_error(der))?;
    if outer.tag != 0x30 {
        return Err(structure_error(der));
    }
    let malformed = || "x509: malformed certificate request".to_owned();
    let (info, next) = element(der, outer.content).map_err(|_| malformed())?;
    let signed = &der[info.start..info.end];
    let (algorithm, next) = element(der, next).map_err(|_| malformed())?;
    let (oid, _) = element(der, algorithm.content).map_err(|_| malformed())?;
    let (bits, _) = element(der, next).map_err(|_| malformed())?;
    let signature_bytes = der.get(bits.content + 1..bits.end).ok_or_else(malformed)?;
    // The request info: version, subject, then the public key's algorithm and bits.
    let (_, after_version) = element(der, info.content).map_err(|_| malformed())?;
    let (_, after_subject) = element(der, after_version).map_err(|_| malformed())?;
    let (key_info, _) = element(der, after_subject).map_err(|_| malformed())?;
    let (key_algorithm, key_bits_at) = element(der, key_info.content).map_err(|_| malformed())?;
    let (key_oid, params_at) = element(der, key_algorithm.content).map_err(|_| malformed())?;
    let curve = element(der, params_at)
        .ok()
        .map(|(params, _)| &der[params.content..params.end]);
    let (key_bits, _) = element(der, key_bits_at).map_err(|_| malformed())?;
    let key = der.get(key_bits.content + 1..key_bits.end).ok_or_else(malformed)?;
    let key_oid = &der[key_oid.content..key_oid.end];
    let algorithm_oid = &der[oid.content..oid.end];
    let (verifier, failure): (&dyn VerificationAlgorithm, &str) = match (algorithm_oid, key_oid, curve) {
        (SHA256_WITH_RSA, RSA, _) => (&signature::RSA_PKCS1_2048_8192_SHA256, RSA_FAILURE),
        (SHA384_WITH_RSA, RSA, _) => (&signature::RSA_PKCS1_2048_8192_SHA384, RSA_FAILURE),
        (SHA512_WITH_RSA, RSA, _) => (&signature::RSA_PKCS1_2048_8192_SHA512, RSA_FAILURE),
        (SHA1_WITH_RSA, RSA, _) => (&signature::RSA_PKCS1_2048_8192_SHA1_FOR_LEGACY_USE_ONLY, RSA_FAILURE),
        (ECDSA_SHA256, EC, Some(P256)) => (&signature::ECDSA_P256_SHA256_ASN1, ECDSA_FAILURE),
        (ECDSA_SHA384, EC, Some(P384)) => (&signature::ECDSA_P384_SHA384_ASN1, ECDSA_FAILURE),
        (ED25519, ED25519, _) => (&signature::ED25519, "x509: Ed25519 verification failure"),
        _ => return Err("x509: cannot verify signature: algorithm unimplemented".to_owned()),
    };
    UnparsedPublicKey::new(verifier, key)
        .verify(signed, signature_bytes)
        .map_err(|_| failure.to_owned())
}

/// `validateCertificate`: zero or more CERTIFICATE blocks without headers, each holding a
/// certificate.
pub(crate) fn check_certificates(mut pem: &[u8]) -> Result<(), String> {
    if pem.is_empty() {
        return Ok(());
    }
    let mut blocks = 0;
    while let Some(block) = pem_decode(pem) {
        if block.kind != "CERTIFICATE" {
            return Err(format!(
                "only CERTIFICATE PEM blocks are allowed, found {:?}",
                block.kind
            ));
        }
        if block.has_headers {
            return Err("no PEM block headers are permitted".to_owned());
        }
        if !matches!(element(&block.bytes, 0), Ok((outer, _)) if outer.tag == 0x30) {
            return Err("x509: malformed certificate".to_owned());
        }
        blocks += 1;
        pem = block.rest;
    }
    if blocks == 0 {
        return Err("must contain at least one CERTIFICATE PEM block".to_owned());
    }
    Ok(())
}

const RSA: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01];
const SHA1_WITH_RSA: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x05];
const SHA256_WITH_RSA: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0b];
const SHA384_WITH_RSA: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0c];
const SHA512_WITH_RSA: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0d];
const EC: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01];
const ECDSA_SHA256: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02];
const ECDSA_SHA384: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x03];
const P256: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07];
const P384: &[u8] = &[0x2b, 0x81, 0x04, 0x00, 0x22];
const ED25519: &[u8] = &[0x2b, 0x65, 0x70];
const RSA_FAILURE: &str = "crypto/rsa: verification error";
const ECDSA_FAILURE: &str = "x509: ECDSA verification failure";

/// One DER element: its tag, where its contents start and where it ends.
struct Element {
    tag: u8,
    start: usize,
    content: usize,
    end: usize,
}

/// The element at `at`, and where the next one starts.
fn element(der: &[u8], at: usize) -> Result<(Element, usize), ()> {
    let tag = *der.get(at).ok_or(())?;
    let first = *der.get(at + 1).ok_or(())?;
    let (length, content) = if first & 0x80 == 0 {
        (usize::from(first), at + 2)
    } else {
        let count = usize::from(first & 0x7f);
        if count == 0 || count > 4 {
            return Err(());
        }
        let bytes = der.get(at + 2..at + 2 + count).ok_or(())?;
        (
            bytes.iter().fold(0usize, |n, b| (n << 8) | usize::from(*b)),
            at + 2 + count,
        )
    };
    let end = content.checked_add(length).filter(|end| *end <= der.len()).ok_or(())?;
    Ok((
        Element {
            tag,
            start: at,
            content,
            end,
        },
        end,
    ))
}

/// The asn1 package's error for DER that does not start with a SEQUENCE, as Go prints it.
fn structure_error(der: &[u8]) -> String {
    let tag = der.first().copied().unwrap_or_default();
    let length = der.get(1).copied().unwrap_or_default();
    format!(
        "asn1: structure error: tags don't match (16 vs {{class:{} tag:{} length:{length} isCompound:{}}}) {{optional:false explicit:false application:false private:false defaultValue:<nil> tag:<nil> stringType:0 timeType:0 set:false omitEmpty:false}} certificateRequest @2",
        tag >> 6,
        tag & 0x1f,
        tag & 0x20 != 0
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An ECDSA P-256 request made with `openssl req -new` (CN cf-ec, O cf).
    const EC_REQUEST: &str = "-----BEGIN CERTIFICATE REQUEST-----
MIHWMH8CAQAwHTEOMAwGA1UEAwwFY2YtZWMxCzAJBgNVBAoMAmNmMFkwEwYHKoZI
zj0CAQYIKoZIzj0DAQcDQgAETtqs10oOxmiGYf1UUNvGxUYQx4hJoejpLNZP4Oqj
ZZl3MLZ66pNl5sxBs3t20rak6oRMkEfynEBCslGYuF9rsqAAMAoGCCqGSM49BAMC
A0cAMEQCIBMQ2GgLXFqLugQqxGvbOTZThpPjjfR5OSphozntFc24AiAhF3nmeHlM
cCf4bz23S2vWfYoZmuvu9md3O4U7Zq63FQ==
-----END CERTIFICATE REQUEST-----
";

    #[test]
    fn a_signed_request_should_verify_and_a_tampered_one_not() {
        assert_eq!(check_request(EC_REQUEST.as_bytes()), Ok(()));
        let tampered = EC_REQUEST.replace("FQ==", "Fg==");
        assert_eq!(check_request(tampered.as_bytes()), Err(ECDSA_FAILURE.to_owned()));
        let other = EC_REQUEST.replace("CERTIFICATE REQUEST", "CERTIFICATE");
        assert_eq!(
            check_request(other.as_bytes()).unwrap_err(),
            "PEM block type must be CERTIFICATE REQUEST"
        );
        let garbage = "-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----\n";
        assert!(
            check_request(garbage.as_bytes())
                .unwrap_err()
                .contains("(16 vs {class:0 tag:0 length:0 isCompound:false})")
        );
    }

    #[test]
    fn certificates_should_be_pem_certificate_blocks() {
        assert_eq!(
            check_certificates(b"foo").unwrap_err(),
            "must contain at least one CERTIFICATE PEM block"
        );
        assert!(
            check_certificates(EC_REQUEST.as_bytes())
                .unwrap_err()
                .starts_with("only CERTIFICATE")
        );
        assert_eq!(check_certificates(b""), Ok(()));
    }
}
