//! The server's credentials as a test or a served process uses them: authentication and RBAC
//! authorization turned on, static bearer tokens, and clients that send the admin's token, a
//! given token, or a service account's (so a controller's test runs as its ServiceAccount and
//! gets the 403 a cluster would give).

use crate::auth::UserInfo;
use crate::server::{FakeApiServer, FakeApiServerBuilder};
use crate::status::ApiStatus;
use crate::verbs::authentication;

impl FakeApiServerBuilder {
    /// Authenticates every request and authorizes it with RBAC, as kube-apiserver started with
    /// `--authorization-mode=RBAC` does (default: off in process, where every request is the
    /// admin's; the served binary turns it on). Bearer tokens are the static ones
    /// ([`FakeApiServerBuilder::static_token`], the admin's [`FakeApiServer::admin_token`]) and
    /// the service account tokens the server issues; a request without one is
    /// `system:anonymous`, who may read `/version` and the health checks and nothing else;
    /// an unknown token is answered 401.
    pub fn authentication(mut self, on: bool) -> Self {
        self.authenticator.enabled = on;
        self
    }

    /// Accepts `token` as the user `name` with `uid` in `groups` (one line of kube-apiserver's
    /// `--token-auth-file`); `system:authenticated` is added to the groups.
    pub fn static_token(mut self, token: &str, name: &str, uid: &str, groups: &[&str]) -> Self {
        self.authenticator
            .tokens
            .insert(token.to_owned(), UserInfo::new(name, uid, groups));
        self
    }
}

impl FakeApiServer {
    /// The token of the user `admin` in `system:masters`, random per server, which
    /// [`FakeApiServer::client`] and the served kubeconfig send.
    pub fn admin_token(&self) -> &str {
        &self.inner.authenticator.admin_token
    }

    /// A `kube::Client` that sends `token` as its bearer token, with `default` as its
    /// namespace. Must be called inside a tokio runtime.
    pub fn client_with_token(&self, token: &str) -> kube::Client {
        kube::Client::new(self.service().with_credentials(token), "default")
    }

    /// A token of the ServiceAccount `namespace/name`, as `serviceaccounts/<name>/token` issues
    /// it (valid for an hour, for this server's API); 404 when the account does not exist.
    pub fn service_account_token(&self, namespace: &str, name: &str) -> Result<String, ApiStatus> {
        let state = self.inner.state();
        let issued = authentication::request_token(&state, namespace, name, b"{}", "fake-apiserver")?;
        issued
            .pointer("/status/token")
            .and_then(serde_json::Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| ApiStatus::internal("the token request returned no token"))
    }

    /// A `kube::Client` authenticated as the ServiceAccount `namespace/name`, with `namespace`
    /// as its namespace: what a controller deployed with that account would get. Must be
    /// called inside a tokio runtime.
    pub fn service_account_client(&self, namespace: &str, name: &str) -> Result<kube::Client, ApiStatus> {
        let token = self.service_account_token(namespace, name)?;
        Ok(kube::Client::new(
            self.service().with_credentials(&token),
            namespace.to_owned(),
        ))
    }
}
