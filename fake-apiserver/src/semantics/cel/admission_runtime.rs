//! Admission expressions run on a request, as a ValidatingAdmissionPolicy's filters run them
//! (`apiserver/pkg/admission/plugin/cel/filter.go`: `ForInput` with the activation of
//! `object`, `oldObject`, `request`, `params`, `namespaceObject`; `composition.go`: the
//! `variables`, each evaluated once). Objects are their unstructured JSON (integers as ints),
//! as `runtime.DefaultUnstructuredConverter` gives them.
//!
//! Not ported: the authorizer library (an expression reading `authorizer` fails), and the
//! runtime cost budget.

use std::collections::HashMap;
use std::sync::Arc;

use cel::objects::{Key, Map};
use cel::{Context, Value as Cel};
use serde_json::Value;

use super::runtime_library::{self, go_error_text};
use super::values::untyped;

/// What a request gives its expressions.
pub(crate) struct Inputs<'a> {
    pub(crate) object: Option<&'a Value>,
    pub(crate) old_object: Option<&'a Value>,
    /// The `kubernetes.AdmissionRequest`, as JSON.
    pub(crate) request: &'a Value,
    pub(crate) params: Option<&'a Value>,
    pub(crate) namespace_object: Option<&'a Value>,
    /// The policy's variables, in order: name and expression.
    pub(crate) variables: &'a [(String, String)],
}

/// What one expression gave.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Outcome {
    Bool(bool),
    String(String),
    Null,
    /// A value of another type.
    Other,
    /// Why it failed, as `ForInput` words it.
    Error(String),
}

/// The activation of one request, in which its expressions run.
pub(crate) struct Activation {
    context: Context<'static, 'static>,
}

impl Activation {
    /// The activation of `inputs`: every variable evaluated once, in order, each seeing those
    /// before it; one that fails is left out (an expression reading it then fails).
    pub(crate) fn new(inputs: &Inputs<'_>) -> Self {
        let value = |v: Option<&Value>| v.map_or(Cel::Null, untyped);
        let mut context = Context::with_env(runtime_library::shared_env().clone());
        context.add_variable_from_value("object", value(inputs.object));
        context.add_variable_from_value("oldObject", value(inputs.old_object));
        context.add_variable_from_value("request", untyped(inputs.request));
        context.add_variable_from_value("params", value(inputs.params));
        context.add_variable_from_value("namespaceObject", value(inputs.namespace_object));
        let mut activation = Self { context };
        let mut variables = HashMap::new();
        for (name, expression) in inputs.variables {
            activation.set_variables(&variables);
            if let Ok(value) = activation.resolve(expression) {
                variables.insert(Key::String(Arc::new(name.clone())), value);
            }
        }
        activation.set_variables(&variables);
        activation
    }

    fn set_variables(&mut self, variables: &HashMap<Key, Cel>) {
        let map = Map {
            map: Arc::new(variables.clone()),
        };
        self.context.add_variable_from_value("variables", Cel::Map(map));
    }

    fn resolve(&self, expression: &str) -> Result<Cel, String> {
        let program = runtime_library::shared_env()
            .parser()
            .parse(expression)
            .map_err(|e| format!("compilation error: {e}"))?;
        Cel::resolve(&program, &self.context).map_err(|error| go_error_text(&error))
    }

    /// Runs `expression`.
    pub(crate) fn evaluate(&self, expression: &str) -> Outcome {
        match self.resolve(expression) {
            Ok(Cel::Bool(b)) => Outcome::Bool(b),
            Ok(Cel::String(s)) => Outcome::String(s.to_string()),
            Ok(Cel::Null) => Outcome::Null,
            Ok(_) => Outcome::Other,
            Err(text) if text.starts_with("compilation error") => Outcome::Error(text),
            Err(text) => Outcome::Error(format!("expression '{expression}' resulted in error: {text}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn expressions_should_see_the_request_and_earlier_variables() {
        let object = json!({"metadata": {"name": "web"}, "spec": {"replicas": 7}});
        let request = json!({"operation": "CREATE", "name": "web"});
        let variables = [
            ("replicas".to_owned(), "object.spec.replicas".to_owned()),
            ("double".to_owned(), "variables.replicas * 2".to_owned()),
            ("broken".to_owned(), "object.spec.nope".to_owned()),
        ];
        let inputs = Inputs {
            object: Some(&object),
            old_object: None,
            request: &request,
            params: None,
            namespace_object: None,
            variables: &variables,
        };
        let activation = Activation::new(&inputs);
        assert_eq!(activation.evaluate("variables.double == 14"), Outcome::Bool(true));
        assert_eq!(activation.evaluate("oldObject == null"), Outcome::Bool(true));
        assert_eq!(
            activation.evaluate("'name ' + object.metadata.name"),
            Outcome::String("name web".to_owned())
        );
        assert_eq!(
            activation.evaluate("object.spec.nope > 1"),
            Outcome::Error("expression 'object.spec.nope > 1' resulted in error: no such key: nope".to_owned())
        );
        assert!(matches!(activation.evaluate("variables.broken"), Outcome::Error(_)));
    }
}
