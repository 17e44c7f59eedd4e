//! Admission expressions (webhook match conditions, ValidatingAdmissionPolicy validations,
//! messages, audit annotations, variables) compiled as kube-apiserver compiles them when a
//! configuration or policy is written (`apiserver/pkg/admission/plugin/cel/compile.go`:
//! `CompileCELExpression` in the environment `mustBuildEnvs` declares, with `BuildRequestType`
//! and `BuildNamespaceType`; `composition.go`: `CompileAndStoreVariable`).

use std::sync::{Arc, OnceLock};

use super::ast_validators;
use super::checker;
use super::compile::parser;
use super::decl_type::{self, DeclType, Scalar};
use super::environment::Environment;
use super::issues;
use super::types::Type;

/// A declared object type: a policy's `variables`, or a kind's for the type checker.
pub(crate) type VariablesType = Arc<DeclType>;

/// What an admission expression's environment declares beyond `object`, `oldObject`,
/// `request` and `namespaceObject` (`OptionalVariableDeclarations`, and the composition
/// environment's `variables`).
#[derive(Clone, Copy, Default)]
pub(crate) struct Declared<'a> {
    pub(crate) params: bool,
    pub(crate) authorizer: bool,
    /// The object type of `variables`, in a policy that has any.
    pub(crate) variables: Option<&'a Arc<DeclType>>,
    /// The type of `object` and `oldObject` (the type checker's; admission's are `dyn`).
    pub(crate) object: Option<&'a Arc<DeclType>>,
    /// The type of `params` (the type checker's; admission's is `dyn`).
    pub(crate) params_type: Option<&'a Arc<DeclType>>,
}

/// The types an expression must evaluate to (`ReturnTypes()`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Returns {
    Bool,
    String,
    /// An audit annotation's value: a string or null.
    StringOrNull,
    /// A variable: anything.
    Any,
}

/// Why a match condition `expression` does not compile on a server of minor `server` (`stored`
/// when the configuration already had it: every option of the server's minor; `params` in a
/// policy with a param kind), as the field error's detail; `None` when it compiles to a bool.
pub(crate) fn match_condition_error(expression: &str, server: u32, stored: bool, params: bool) -> Option<String> {
    let declared = Declared {
        params,
        authorizer: true,
        ..Declared::default()
    };
    compile(expression, server, stored, declared, Returns::Bool).err()
}

/// `isCELIdentifier`: a name a variable may have (a CEL identifier that is no reserved word).
pub(crate) fn is_cel_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    let starts = chars.next().is_some_and(|c| c == '_' || c.is_ascii_alphabetic());
    starts && chars.all(|c| c == '_' || c.is_ascii_alphanumeric()) && !decl_type::RESERVED.contains(&name)
}

/// `CompileCELExpression`: the type `expression` evaluates to, or why it does not compile in
/// the environment of a server of minor `server` with `declared` (the field error's detail).
pub(crate) fn compile(
    expression: &str,
    server: u32,
    stored: bool,
    declared: Declared<'_>,
    returns: Returns,
) -> Result<Type, String> {
    let env = if stored {
        Environment::stored_expressions(server)
    } else {
        Environment::new_expressions(server)
    };
    let (expr, info) = match parser(env).parse_with_source_info(expression) {
        Ok(parsed) => parsed,
        Err(errors) => {
            let shown = issues::display(expression, &issues::from_parse(&errors));
            return Err(format!("compilation failed: {shown}"));
        }
    };
    let variables = variables(declared);
    let names: Vec<(&str, Type)> = variables.iter().map(|(name, t)| (*name, t.clone())).collect();
    let checked = checker::check(&expr, &info, expression, &names, env)
        .and_then(|checked| ast_validators::validated(&expr, &info, expression, checked, env))
        .map_err(|found| format!("compilation failed: {}", issues::display(expression, &found)))?;
    let output = checked.type_of(expr.id);
    // The output type must be one of the return types exactly: `dyn` is none of them.
    let fits = match returns {
        Returns::Bool => output == Type::Bool,
        Returns::String => output == Type::String,
        Returns::StringOrNull => output == Type::String || output == Type::Null,
        Returns::Any => true,
    };
    match (fits, returns) {
        (true, _) => Ok(output),
        (false, Returns::StringOrNull) => Err("must evaluate to one of [string null_type]".to_owned()),
        (false, Returns::String) => Err("must evaluate to string".to_owned()),
        (false, _) => Err("must evaluate to bool".to_owned()),
    }
}

/// The variables of a policy compiled so far (`CompositedCompiler`): each adds a field of its
/// output type to `variables`, a failed one a `dyn` field.
#[derive(Default)]
pub(crate) struct Composition {
    compiled: Vec<(String, Arc<DeclType>)>,
    declared: Option<Arc<DeclType>>,
}

impl Composition {
    /// `kubernetes.variables` with the variables compiled so far.
    pub(crate) fn variables(&mut self) -> &Arc<DeclType> {
        let compiled = &self.compiled;
        self.declared.get_or_insert_with(|| {
            let fields = compiled
                .iter()
                .map(|(name, t)| (name.as_str(), Arc::clone(t)))
                .collect();
            DeclType::declared_object("kubernetes.variables", fields)
        })
    }

    /// Adds the variable `name`, whose expression checked to `output` (`None`: it failed).
    pub(crate) fn add(&mut self, name: &str, output: Option<&Type>) {
        let decl = output.map_or_else(|| scalar(Scalar::Dyn), variable_decl);
        self.compiled.push((name.to_owned(), decl));
        self.declared = None;
    }
}

/// The declaration of a variable whose expression checked to `output`
/// (`convertCelTypeToDeclType`): scalars, lists and maps keep their types, anything else (an
/// object, an optional, a library's type) is `dyn`.
fn variable_decl(output: &Type) -> Arc<DeclType> {
    match output {
        Type::Bool => scalar(Scalar::Bool),
        Type::Int => scalar(Scalar::Int),
        Type::Double => scalar(Scalar::Double),
        Type::String => scalar(Scalar::String),
        Type::Bytes => scalar(Scalar::Bytes),
        Type::Duration => scalar(Scalar::Duration),
        Type::Timestamp => scalar(Scalar::Timestamp),
        Type::List(elem) => DeclType::declared_collection(variable_decl(elem), false),
        Type::Map(key, value) if **key == Type::String => DeclType::declared_collection(variable_decl(value), true),
        _ => scalar(Scalar::Dyn),
    }
}

/// The names an environment with `declared` knows, and their types.
fn variables(declared: Declared<'_>) -> Vec<(&'static str, Type)> {
    static BASE: OnceLock<Vec<(&'static str, Type)>> = OnceLock::new();
    let base = BASE.get_or_init(|| {
        vec![
            ("namespaceObject", namespace_type().cel_type()),
            ("request", request_type().cel_type()),
        ]
    });
    let object = declared.object.map_or(Type::Dyn, DeclType::cel_type);
    let mut names = vec![("object", object.clone()), ("oldObject", object)];
    names.extend(base.iter().cloned());
    if declared.authorizer {
        names.push(("authorizer", Type::Named("kubernetes.authorization.Authorizer")));
        names.push((
            "authorizer.requestResource",
            Type::Named("kubernetes.authorization.ResourceCheck"),
        ));
    }
    if declared.params {
        names.push(("params", declared.params_type.map_or(Type::Dyn, DeclType::cel_type)));
    }
    if let Some(variables) = declared.variables {
        names.push(("variables", variables.cel_type()));
    }
    names
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
            assert_eq!(match_condition_error(good, 28, false, false), None, "{good}");
        }
        assert_eq!(
            match_condition_error("request.name", 28, false, false).as_deref(),
            Some("must evaluate to bool")
        );
        let undefined = match_condition_error("request.nope == ''", 28, false, false).unwrap();
        assert!(
            undefined.starts_with("compilation failed: ERROR: <input>:1:8: undefined field 'nope'"),
            "{undefined}"
        );
        let params = match_condition_error("params.x", 28, false, false).unwrap();
        assert!(params.contains("undeclared reference to 'params'"), "{params}");
    }

    #[test]
    fn policy_expressions_should_see_params_and_earlier_variables_only() {
        let with_params = Declared {
            params: true,
            authorizer: true,
            ..Declared::default()
        };
        assert_eq!(
            compile("params.x == 1", 31, false, with_params, Returns::Bool),
            Ok(Type::Bool)
        );
        let replicas = compile("object.spec.replicas", 31, false, with_params, Returns::Any).unwrap();
        let mut composition = Composition::default();
        composition.add("replicas", Some(&replicas));
        let vars = composition.variables().clone();
        let declared = Declared {
            variables: Some(&vars),
            ..with_params
        };
        assert_eq!(
            compile("variables.replicas <= 5", 31, false, declared, Returns::Bool),
            Ok(Type::Bool)
        );
        let missing = compile("variables.other", 31, false, declared, Returns::Any).unwrap_err();
        assert!(missing.contains("undefined field 'other'"), "{missing}");
        assert_eq!(
            compile("1", 31, false, declared, Returns::StringOrNull).unwrap_err(),
            "must evaluate to one of [string null_type]"
        );
        let message = Declared {
            authorizer: false,
            ..declared
        };
        let no_authorizer = compile(
            "authorizer.path('/').check('get').reason()",
            31,
            false,
            message,
            Returns::String,
        );
        assert!(
            no_authorizer
                .unwrap_err()
                .contains("undeclared reference to 'authorizer'")
        );
    }
}
