//! kube-controller-manager's tokens controller (`pkg/controller/serviceaccount/tokens_controller.go`:
//! `queueSecretSync`, `syncSecret`, `generateTokenIfNeeded`, `secretUpdateNeeded`,
//! `deleteToken`, `removeSecretReference`, `syncServiceAccount`, `deleteTokens`): a
//! `kubernetes.io/service-account-token` Secret gets the cluster's CA, its namespace and a token
//! of its ServiceAccount, with the account's uid annotated; one whose account does not exist is
//! deleted, as are an account's token Secrets when the account goes.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};

use crate::lifecycle::bootstrap::{CONTROLLER_MANAGER, ROOT_CA};
use crate::lifecycle::writes::Writes;
use crate::semantics::service_account_token;
use crate::storage::State;
use crate::storage::object;
use crate::storage::pending::Pending;
use crate::storage::resource::ResourceInfo;

const TOKEN_TYPE: &str = "kubernetes.io/service-account-token";
const ACCOUNT_NAME: &str = "kubernetes.io/service-account.name";
const ACCOUNT_UID: &str = "kubernetes.io/service-account.uid";

fn annotation<'a>(object: &'a Value, key: &str) -> &'a str {
    object::annotations(object)
        .and_then(|a| a.get(key))
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// The informers' reaction: a token Secret written or removed is synced; a ServiceAccount
/// removed has its token Secrets deleted.
pub(super) fn on_change(state: &State, info: &ResourceInfo, object: &Value) -> Option<Pending> {
    if !info.builtin || !info.group.is_empty() {
        return None;
    }
    let namespace = object::namespace(object).to_owned();
    let name = object::name(object).to_owned();
    match info.plural.as_str() {
        "secrets" if object.get("type").and_then(Value::as_str) == Some(TOKEN_TYPE) => Some(Pending::SyncTokenSecret {
            namespace,
            name,
            account: annotation(object, ACCOUNT_NAME).to_owned(),
        }),
        "serviceaccounts" if state.object(info, Some(&namespace), &name).is_none() => {
            Some(Pending::DeleteAccountTokens {
                namespace,
                name,
                uid: object::uid(object).to_owned(),
            })
        }
        _ => None,
    }
}

/// `syncSecret`: a token Secret gone is taken off its account's `secrets`; one whose account is
/// missing (or another of that name) is deleted; else its data is filled in.
pub(super) fn sync_secret(state: &mut State, namespace: &str, name: &str, account_name: &str) {
    let secrets = state.info("", "v1", "secrets");
    let accounts = state.info("", "v1", "serviceaccounts");
    let Some(secret) = state.object(&secrets, Some(namespace), name) else {
        return remove_reference(state, namespace, account_name, name);
    };
    let wanted_uid = annotation(&secret, ACCOUNT_UID);
    let account = state
        .object(&accounts, Some(namespace), annotation(&secret, ACCOUNT_NAME))
        .filter(|a| wanted_uid.is_empty() || object::uid(a) == wanted_uid);
    let Some(account) = account else {
        return state.delete_object(&secrets, Some(namespace), name, None);
    };
    let data = |key: &str| {
        secret
            .pointer(&format!("/data/{key}"))
            .and_then(Value::as_str)
            .unwrap_or("")
    };
    let ca = STANDARD.encode(ROOT_CA);
    let needs_ca = data("ca.crt") != ca;
    let needs_namespace = data("namespace").is_empty();
    let needs_token = data("token").is_empty();
    if !needs_ca && !needs_namespace && !needs_token {
        return;
    }
    let mut updated = (*secret).clone();
    if !updated["data"].is_object() {
        updated["data"] = json!({});
    }
    if needs_ca {
        updated["data"]["ca.crt"] = json!(ca);
    }
    if needs_namespace {
        updated["data"]["namespace"] = json!(STANDARD.encode(namespace));
    }
    if needs_token {
        let (account_name, uid) = (object::name(&account), object::uid(&account));
        match service_account_token::issue_legacy(namespace, account_name, uid, name) {
            Ok(token) => updated["data"]["token"] = json!(STANDARD.encode(token)),
            Err(error) => return tracing::error!(%error, "could not sign a service account token"),
        }
    }
    let annotations = object::meta_mut(&mut updated)
        .entry("annotations")
        .or_insert_with(|| json!({}));
    annotations[ACCOUNT_NAME] = json!(object::name(&account));
    annotations[ACCOUNT_UID] = json!(object::uid(&account));
    if let Err(status) = state.update_object(&secrets, secret, updated, Some(CONTROLLER_MANAGER), None) {
        tracing::debug!(namespace, name, %status, "could not populate the service account token");
    }
}

/// `removeSecretReference`: the account no longer lists the Secret.
fn remove_reference(state: &mut State, namespace: &str, account_name: &str, secret: &str) {
    let accounts = state.info("", "v1", "serviceaccounts");
    let Some(account) = state.object(&accounts, Some(namespace), account_name) else {
        return;
    };
    let Some(list) = account.get("secrets").and_then(Value::as_array) else {
        return;
    };
    let kept: Vec<Value> = list
        .iter()
        .filter(|r| r.get("name").and_then(Value::as_str) != Some(secret))
        .cloned()
        .collect();
    if kept.len() == list.len() {
        return;
    }
    let mut updated = (*account).clone();
    updated["secrets"] = Value::Array(kept);
    if let Err(status) = state.update_object(&accounts, account, updated, Some(CONTROLLER_MANAGER), None) {
        tracing::debug!(namespace, account_name, %status, "could not remove the token's reference");
    }
}

/// `deleteTokens`: the removed account's token Secrets (by its name and uid) are deleted.
pub(super) fn delete_account_tokens(state: &mut State, namespace: &str, name: &str, uid: &str) {
    let secrets = state.info("", "v1", "secrets");
    let tokens: Vec<String> = state
        .objects_in("", "secrets", namespace)
        .iter()
        .filter(|s| s.get("type").and_then(Value::as_str) == Some(TOKEN_TYPE))
        .filter(|s| annotation(s, ACCOUNT_NAME) == name && [uid, ""].contains(&annotation(s, ACCOUNT_UID)))
        .map(|s| object::name(s).to_owned())
        .collect();
    for token in tokens {
        state.delete_object(&secrets, Some(namespace), &token, None);
    }
}
