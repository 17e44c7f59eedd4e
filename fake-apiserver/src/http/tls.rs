//! The served server's TLS: kube-apiserver serves HTTPS only, and kubectl (client-go's
//! `clientcmd`) sends a kubeconfig's credentials only over TLS, so a server that authenticates
//! serves HTTPS. One fixed test CA and a serving certificate for `127.0.0.1`, `::1` and
//! `localhost` (ECDSA P-256, valid for a century), made once with `openssl`: the key is public,
//! which is fine for a server that listens on loopback only, and never for anything else.

use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio_rustls::rustls::{self, ServerConfig};

/// The CA that signed the serving certificate, PEM.
const CA_PEM: &str = include_str!("tls/ca.crt");
const SERVER_CERT: &[u8] = include_bytes!("tls/server.der");
const SERVER_KEY: &[u8] = include_bytes!("tls/server.key.der");

/// The acceptor of TLS connections with the serving certificate, HTTP/1.1 only.
pub(crate) fn acceptor() -> Result<TlsAcceptor, rustls::Error> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_no_client_auth()
        .with_single_cert(
            vec![CertificateDer::from(SERVER_CERT)],
            PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(SERVER_KEY)),
        )?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(TlsAcceptor::from(Arc::new(config)))
}

/// The CA as a kubeconfig's `certificate-authority-data`: base64 of its PEM.
pub(crate) fn ca_data() -> String {
    STANDARD.encode(CA_PEM)
}

/// The CA's certificate, DER, for a `kube::Config`'s root certificates.
pub(crate) fn ca_der() -> Vec<u8> {
    let body: String = CA_PEM.lines().filter(|line| !line.starts_with("-----")).collect();
    STANDARD.decode(body).expect("the embedded CA is PEM")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_certificate_and_key_load() {
        acceptor().expect("the serving certificate and its key match");
        assert_eq!(ca_der()[0], 0x30, "a DER sequence");
    }
}
