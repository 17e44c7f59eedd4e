//! Admission match conditions compiled as kube-apiserver compiles them when a webhook
//! configuration is written (`apiserver/pkg/admission/plugin/cel/compile.go`:
//! `CompileCELExpression` in the environment `mustBuildEnvs` declares, with `BuildRequestType`
//! and `BuildNamespaceType`; `pkg/apis/admissionregistration/validation`:
//! `validateMatchConditionsExpression`, which gives no params but the authorizer).

use std::sync::{Arc, OnceLock};

use super::ast_validators;
use super::checker;
use super::compile::parser;
use super::decl_type::{DeclType, Scalar};
use super::environment::Environment;
use super::issues;
use super::types::Type;

/// Why a match condition `expression` does not compile on a server of minor `server` (`stored`
/// when the configuration already had it: every option of the server's minor), as the field
/// error's detail; `None` when it compiles to a bool.
pub(crate) fn match_condition_error(expression: &str, server: u32, stored: bool) -> Option<String> {
    let env = if stored {
        Environment::stored_expressions(server)
    } else {
        Environment::new_expressions(server)
    };
    let (expr, info) = match parser(env).parse_with_source_info(expression) {
        Ok(parsed) => parsed,
        Err(errors) => {
            let shown = issues::display(expression, &issues::from_parse(&errors));
            return Some(format!("compilation failed: {shown}"));
        }
    };
    let variables = variables();
    let declared: Vec<(&str, Type)> = variables.iter().map(|(name, t)| (*name, t.clone())).collect();
    let checked = checker::check(&expr, &info, expression, &declared, env)
        .and_then(|checked| ast_validators::validated(&expr, &info, expression, checked, env));
    match checked {
        Err(found) => Some(format!("compilation failed: {}", issues::display(expression, &found))),
        // `ReturnTypes()` of a match condition: bool alone.
        Ok(checked) if checked.type_of(expr.id) != Type::Bool => Some("must evaluate to bool".to_owned()),
        Ok(_) => None,
    }
}

/// The variables of the environment with the authorizer and without params.
fn variables() -> &'static [(&'static str, Type)] {
    static VARIABLES: OnceLock<Vec<(&'static str, Type)>> = OnceLock::new();
    VARIABLES.get_or_init(|| {
        vec![
            ("authorizer", Type::Named("kubernetes.authorization.Authorizer")),
            (
                "authorizer.requestResource",
                Type::Named("kubernetes.authorization.ResourceCheck"),
            ),
            ("object", Type::Dyn),
            ("oldObject", Type::Dyn),
            ("namespaceObject", namespace_type().cel_type()),
            ("request", request_type().cel_type()),
        ]
    })
}

fn scalar(scalar: Scalar) -> Arc<DeclType> {
    DeclType::declared_scalar(scalar)
}

fn strings() -> Arc<DeclType> {
    DeclType::declared_collection(scalar(Scalar::String), false)
}

/// `BuildRequestType`: `kubernetes.AdmissionRequest`.
fn request_type() -> Arc<DeclType> {
    let string = || scalar(Scalar::String);
    let gvk = DeclType::declared_object(
        "kubernetes.GroupVersionKind",
        vec![("group", string()), ("version", string()), ("kind", string())],
    );
    let gvr = DeclType::declared_object(
        "kubernetes.GroupVersionResource",
        vec![("group", string()), ("version", string()), ("resource", string())],
    );
    let user = DeclType::declared_object(
        "kubernetes.UserInfo",
        vec![
            ("username", string()),
            ("uid", string()),
            ("groups", strings()),
            ("extra", DeclType::declared_collection(strings(), true)),
        ],
    );
    DeclType::declared_object(
        "kubernetes.AdmissionRequest",
        vec![
            ("kind", Arc::clone(&gvk)),
            ("resource", Arc::clone(&gvr)),
            ("subResource", string()),
            ("requestKind", gvk),
            ("requestResource", gvr),
            ("requestSubResource", string()),
            ("name", string()),
            ("namespace", string()),
            ("operation", string()),
            ("userInfo", user),
            ("dryRun", scalar(Scalar::Bool)),
            ("options", scalar(Scalar::Dyn)),
        ],
    )
}

/// `BuildNamespaceType`: `kubernetes.Namespace`.
fn namespace_type() -> Arc<DeclType> {
    let string = || scalar(Scalar::String);
    let string_map = || DeclType::declared_collection(string(), true);
    let spec = DeclType::declared_object("kubernetes.NamespaceSpec", vec![("finalizers", strings())]);
    let condition = DeclType::declared_object(
        "kubernetes.NamespaceCondition",
        vec![
            ("status", string()),
            ("type", string()),
            ("lastTransitionTime", scalar(Scalar::Timestamp)),
            ("message", string()),
            ("reason", string()),
        ],
    );
    let status = DeclType::declared_object(
        "kubernetes.NamespaceStatus",
        vec![
            ("conditions", DeclType::declared_collection(condition, false)),
            ("phase", string()),
        ],
    );
    let metadata = DeclType::declared_object(
        "kubernetes.NamespaceMetadata",
        vec![
            ("name", string()),
            ("generateName", string()),
            ("namespace", string()),
            ("labels", string_map()),
            ("annotations", string_map()),
            ("UID", string()),
            ("creationTimestamp", scalar(Scalar::Timestamp)),
            ("deletionGracePeriodSeconds", scalar(Scalar::Int)),
            ("deletionTimestamp", scalar(Scalar::Timestamp)),
            ("generation", scalar(Scalar::Int)),
            ("resourceVersion", string()),
            ("finalizers", strings()),
        ],
    );
    DeclType::declared_object(
        "kubernetes.Namespace",
        vec![("metadata", metadata), ("spec", spec), ("status", status)],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn match_conditions_should_compile_against_the_request_and_the_authorizer() {
        for good in [
            "request.userInfo.username != 'system:admin'",
            "object.metadata.name.startsWith('x')",
            "authorizer.requestResource.check('get').allowed()",
            "authorizer.group('apps').resource('deployments').namespace('a').check('list').reason() == ''",
            "'a' in namespaceObject.metadata.labels",
            "has(request.dryRun) && request.dryRun",
        ] {
            assert_eq!(match_condition_error(good, 28, false), None, "{good}");
        }
        assert_eq!(
            match_condition_error("request.name", 28, false).as_deref(),
            Some("must evaluate to bool")
        );
        let undefined = match_condition_error("request.nope == ''", 28, false).unwrap();
        assert!(
            undefined.starts_with("compilation failed: ERROR: <input>:1:8: undefined field 'nope'"),
            "{undefined}"
        );
        let params = match_condition_error("params.x", 28, false).unwrap();
        assert!(params.contains("undeclared reference to 'params'"), "{params}");
    }
}
