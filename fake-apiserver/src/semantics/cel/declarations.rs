//! The functions a CRD rule may call, by environment (`apiserver/pkg/cel/environment/base.go`):
//! cel-go's standard declarations (`cel-go/checker/standard.go`), ext strings
//! (`cel-go/ext/strings.go`), Kubernetes' lists, regex and URL libraries
//! (`apiserver/pkg/cel/library/{lists,regex,urls}.go`), and what later minors add: cross-type
//! numeric comparisons, optional types, quantities, sets. `declarations.txt` lists them in
//! sections named after [`Library::section`].

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use super::environment::{Environment, Library};
use super::types::Type;

/// One overload of a function.
#[derive(Debug)]
pub(crate) struct Overload {
    pub(crate) id: String,
    /// Called as `target.name(args)`, the target being the first parameter.
    pub(crate) member: bool,
    pub(crate) params: Vec<Type>,
    pub(crate) result: Type,
    /// The type parameters its signature uses (`A`, `B`).
    pub(crate) type_params: Vec<String>,
}

/// The declared functions by name, and the identifiers of the standard environment.
pub(crate) struct Declarations {
    functions: HashMap<String, Vec<Overload>>,
    /// Whether the optional types library is in, which declares the `optional_type` type.
    optional: bool,
}

impl Declarations {
    /// The overloads of `name`, in declaration order.
    pub(crate) fn function(&self, name: &str) -> Option<&[Overload]> {
        self.functions.get(name).map(Vec::as_slice)
    }

    /// A standard identifier's type: the type names (`int` is `type(int)`).
    pub(crate) fn ident(&self, name: &str) -> Option<Type> {
        let of = |t: Type| Some(Type::Meta(Some(Box::new(t))));
        match name {
            "int" => of(Type::Int),
            "uint" => of(Type::Uint),
            "bool" => of(Type::Bool),
            "double" => of(Type::Double),
            "bytes" => of(Type::Bytes),
            "string" => of(Type::String),
            "list" => of(Type::list(Type::Param("A".into()))),
            "map" => of(Type::map(Type::Param("A".into()), Type::Param("B".into()))),
            "null_type" => of(Type::Null),
            "type" => of(Type::Meta(None)),
            // `cel.Types(types.OptionalType)`.
            "optional_type" if self.optional => of(Type::optional(Type::Param("A".into()))),
            _ => None,
        }
    }
}

/// The declarations of `env`'s libraries, built once per set of libraries.
pub(crate) fn declarations(env: Environment) -> &'static Declarations {
    static BUILT: OnceLock<Mutex<HashMap<Vec<Library>, &'static Declarations>>> = OnceLock::new();
    let libraries: Vec<Library> = Library::ALL.into_iter().filter(|l| env.has(*l)).collect();
    let mut built = BUILT
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    // A few minors make a few sets: leaking each once bounds what is kept.
    built
        .entry(libraries)
        .or_insert_with_key(|libraries| Box::leak(Box::new(build(libraries))))
}

fn build(libraries: &[Library]) -> Declarations {
    let mut functions: HashMap<String, Vec<Overload>> = HashMap::new();
    let mut section = None;
    for line in TABLE
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = Library::ALL.into_iter().find(|l| l.section() == name);
            continue;
        }
        if section.is_some_and(|s| libraries.contains(&s)) {
            let (name, overload) = parse_line(line);
            functions.entry(name).or_default().push(overload);
        }
    }
    Declarations {
        functions,
        optional: libraries.contains(&Library::OptionalTypes),
    }
}

/// `name id signature`, the signature `(params) -> result` or `target.(params) -> result`.
fn parse_line(line: &str) -> (String, Overload) {
    let mut parts = line.splitn(3, ' ');
    let (name, id, signature) = match (parts.next(), parts.next(), parts.next()) {
        (Some(name), Some(id), Some(signature)) => (name, id, signature),
        _ => panic!("malformed declaration {line:?}"),
    };
    let (args, result) = signature
        .split_once(" -> ")
        .unwrap_or_else(|| panic!("no result in {line:?}"));
    // Arguments never hold `.(`: the last one separates a member's target.
    let (target, args) = match args.rsplit_once(".(") {
        Some((target, rest)) => (Some(target), format!("({rest}")),
        None => (None, args.to_string()),
    };
    let args = args
        .strip_prefix('(')
        .and_then(|a| a.strip_suffix(')'))
        .unwrap_or_else(|| panic!("{line:?}"));
    let mut params: Vec<Type> = target.into_iter().map(parse_type).collect();
    params.extend(split_top(args).into_iter().map(parse_type));
    let result = parse_type(result);
    let mut type_params = Vec::new();
    for t in params.iter().chain([&result]) {
        collect_params(t, &mut type_params);
    }
    let overload = Overload {
        id: id.into(),
        member: target.is_some(),
        params,
        result,
        type_params,
    };
    (name.into(), overload)
}

/// Splits `a, map(b, c), d` at its top-level commas.
fn split_top(text: &str) -> Vec<&str> {
    let (mut parts, mut depth, mut start) = (Vec::new(), 0, 0);
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = text[start..].trim();
    if !last.is_empty() {
        parts.push(last);
    }
    parts
}

fn parse_type(text: &str) -> Type {
    let text = text.trim();
    if let Some(inner) = text.strip_suffix(')') {
        let (head, args) = inner.split_once('(').unwrap_or_else(|| panic!("type {text:?}"));
        let mut args = split_top(args).into_iter().map(parse_type);
        let mut next = || args.next().unwrap_or_else(|| panic!("type {text:?}"));
        return match head {
            "list" => Type::list(next()),
            "map" => Type::map(next(), next()),
            "type" => Type::Meta(Some(Box::new(next()))),
            "optional" => Type::optional(next()),
            _ => panic!("type {text:?}"),
        };
    }
    match text {
        "int" => Type::Int,
        "uint" => Type::Uint,
        "double" => Type::Double,
        "bool" => Type::Bool,
        "string" => Type::String,
        "bytes" => Type::Bytes,
        "timestamp" => Type::Timestamp,
        "duration" => Type::Duration,
        "dyn" => Type::Dyn,
        "kubernetes.URL" => Type::Named("kubernetes.URL"),
        "kubernetes.Quantity" => Type::Named("kubernetes.Quantity"),
        "kubernetes.authorization.Authorizer" => Type::Named("kubernetes.authorization.Authorizer"),
        "kubernetes.authorization.PathCheck" => Type::Named("kubernetes.authorization.PathCheck"),
        "kubernetes.authorization.GroupCheck" => Type::Named("kubernetes.authorization.GroupCheck"),
        "kubernetes.authorization.ResourceCheck" => Type::Named("kubernetes.authorization.ResourceCheck"),
        "kubernetes.authorization.Decision" => Type::Named("kubernetes.authorization.Decision"),
        "net.IP" | "net.CIDR" => Type::Abstract(text.into(), Vec::new()),
        "A" | "B" => Type::Param(text.into()),
        _ => panic!("type {text:?}"),
    }
}

fn collect_params(t: &Type, into: &mut Vec<String>) {
    match t {
        Type::Param(name) if !into.contains(name) => into.push(name.clone()),
        Type::List(elem) => collect_params(elem, into),
        Type::Map(key, value) => {
            collect_params(key, into);
            collect_params(value, into);
        }
        Type::Meta(Some(of)) => collect_params(of, into),
        Type::Abstract(_, params) => params.iter().for_each(|p| collect_params(p, into)),
        _ => {}
    }
}

/// Every overload: `function overload-id signature`.
const TABLE: &str = include_str!("declarations.txt");

#[cfg(test)]
mod tests {
    use super::*;

    const ON_128: Environment = Environment {
        version: 27,
        server: 28,
    };

    #[test]
    fn the_table_should_parse_members_parameters_and_results() {
        let size = declarations(ON_128).function("size").expect("size");
        assert_eq!(size.len(), 8);
        assert!(size[0].member);
        assert_eq!(size[2].params[0].to_string(), "list(A)");
        assert_eq!(size[2].type_params, ["A"]);
        let index = &declarations(ON_128).function("_[_]").expect("index")[1];
        assert_eq!(index.params[0].to_string(), "map(A, B)");
        assert_eq!(index.result.to_string(), "B");
        let query = &declarations(ON_128).function("getQuery").expect("getQuery")[0];
        assert_eq!(query.result.to_string(), "map(string, list(string))");
    }

    #[test]
    fn each_environment_should_declare_only_its_libraries() {
        assert!(declarations(ON_128).function("quantity").is_none());
        assert_eq!(declarations(ON_128).function("_<_").map(<[_]>::len), Some(8));
        let stored = declarations(Environment::stored_expressions(28));
        assert_eq!(stored.function("_<_").map(<[_]>::len), Some(14));
        let add = stored.function("add").expect("quantity add");
        assert_eq!(add[1].params[1], Type::Int);
        assert_eq!(add[0].result.to_string(), "kubernetes.Quantity");
        assert!(stored.ident("optional_type").is_some() && declarations(ON_128).ident("optional_type").is_none());
        let on_131 = declarations(Environment::new_expressions(31));
        assert!(on_131.function("sets.contains").is_some() && on_131.function("strings.quote").is_some());
        assert_eq!(on_131.function("_[_]").map(<[_]>::len), Some(4));
    }
}
