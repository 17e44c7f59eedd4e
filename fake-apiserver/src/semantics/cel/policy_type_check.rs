//! A ValidatingAdmissionPolicy's expressions type-checked against each kind it matches, as
//! kube-controller-manager's status controller does (`apiserver/pkg/admission/plugin/policy/
//! validating/typechecking.go`: `TypeChecker.Check`, `typesToCheck`; `object` and `oldObject`
//! of the kind's schema, `params` of the param kind's, every library of the server's minor,
//! any result type): the warnings its `status.typeChecking` lists.

use std::sync::Arc;

use serde_json::{Value, json};

use super::admission::{self, Composition, Declared, Returns};
use super::decl_type::{DeclType, schema_decl_type};

/// A kind a policy's rules name, with its schema.
pub(crate) struct CheckedKind {
    /// `GroupVersionKind.String()`: `apps/v1, Kind=Deployment`, `/v1, Kind=Pod`.
    pub(crate) name: String,
    pub(crate) schema: Value,
}

/// What the expressions are checked against for one kind.
struct KindEnvironment<'a> {
    name: &'a str,
    object: Arc<DeclType>,
    /// The policy's variables' type, compiled against this kind.
    variables: Option<Arc<DeclType>>,
}

fn text<'v>(object: &'v Value, key: &str) -> &'v str {
    object.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// `Check`: for each validation, its expression's then its message expression's problems on
/// the kinds where it has any, as `{fieldRef, warning}`.
pub(crate) fn expression_warnings(
    spec: &Value,
    kinds: &[CheckedKind],
    params: Option<&Value>,
    server: u32,
) -> Vec<Value> {
    let params_type = params.and_then(|schema| schema_decl_type(schema, true, "params0"));
    let environments: Vec<KindEnvironment<'_>> = kinds
        .iter()
        .filter_map(|kind| {
            let object = schema_decl_type(&kind.schema, true, "object0")?;
            let variables = variables(spec, &object, params_type.as_ref(), server);
            Some(KindEnvironment {
                name: &kind.name,
                object,
                variables,
            })
        })
        .collect();
    let mut warnings = Vec::new();
    let validations = spec.get("validations").and_then(Value::as_array);
    for (i, validation) in validations.into_iter().flatten().enumerate() {
        for key in ["expression", "messageExpression"] {
            let expression = text(validation, key);
            if expression.is_empty() {
                continue;
            }
            let results: Vec<String> = environments
                .iter()
                .filter_map(
                    |KindEnvironment {
                         name,
                         object,
                         variables,
                     }| {
                        let declared = Declared {
                            params: spec.get("paramKind").is_some_and(Value::is_object) && params_type.is_some(),
                            authorizer: true,
                            variables: variables.as_ref(),
                            object: Some(object),
                            params_type: params_type.as_ref(),
                        };
                        let issues = admission::compile(expression, server, true, declared, Returns::Any).err()?;
                        let issues = issues
                            .strip_prefix("compilation failed: ")
                            .unwrap_or(&issues)
                            .to_owned();
                        Some(format!("{name}: {issues}\n"))
                    },
                )
                .collect();
            if !results.is_empty() {
                warnings
                    .push(json!({"fieldRef": format!("spec.validations[{i}].{key}"), "warning": results.join("\n")}));
            }
        }
    }
    warnings
}

/// The policy's variables compiled in order against `object`: `variables`' type.
fn variables(
    spec: &Value,
    object: &Arc<DeclType>,
    params_type: Option<&Arc<DeclType>>,
    server: u32,
) -> Option<Arc<DeclType>> {
    let variables = spec
        .get("variables")
        .and_then(Value::as_array)
        .filter(|v| !v.is_empty())?;
    let mut composition = Composition::default();
    for variable in variables {
        let so_far = composition.variables().clone();
        let declared = Declared {
            params: params_type.is_some(),
            authorizer: true,
            variables: Some(&so_far),
            object: Some(object),
            params_type,
        };
        let compiled = admission::compile(text(variable, "expression"), server, true, declared, Returns::Any);
        composition.add(text(variable, "name"), compiled.as_ref().ok());
    }
    Some(composition.variables().clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::semantics::openapi_schema::resolved;

    #[test]
    fn undefined_fields_should_be_warned_of_per_kind() {
        let kinds: Vec<CheckedKind> = [("", "v1", "Service"), ("apps", "v1", "Deployment")]
            .iter()
            .map(|(group, version, kind)| CheckedKind {
                name: format!("{group}/{version}, Kind={kind}"),
                schema: resolved(group, version, kind, 31).unwrap(),
            })
            .collect();
        let spec = json!({"validations": [
            {"expression": "object.spec.replicaz > 0"},
            {"expression": "object.spec.replicas > 0"},
            {"expression": "object.metadata.name != ''", "messageExpression": "'x' + object.metadata.name"},
        ]});
        let warnings = expression_warnings(&spec, &kinds, None, 31);
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert_eq!(
            warnings[0]["warning"],
            "/v1, Kind=Service: ERROR: <input>:1:12: undefined field 'replicaz'\n | object.spec.replicaz > 0\n | ...........^\n\napps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replicaz'\n | object.spec.replicaz > 0\n | ...........^\n"
        );
        assert_eq!(warnings[1]["fieldRef"], "spec.validations[1].expression");
        let typed = json!({"validations": [{"expression": "object.spec.replicas > '1'"}]});
        let warning = expression_warnings(&typed, &kinds[1..], None, 31)[0]["warning"].clone();
        assert!(
            warning
                .as_str()
                .unwrap()
                .contains("found no matching overload for '_>_' applied to '(int, string)'"),
            "{warning}"
        );
    }
}
