//! CEL's checked types and their unification, as cel-go v0.16.1's checker has them
//! (`cel-go/checker/types.go`, `mapping.go`): assignability with type parameters, the most
//! general of two types, substitution, and `FormatCheckedType`'s spelling used in messages.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use super::decl_type::{DeclType, Scalar, Shape};

/// A type the checker gives an expression.
#[derive(Clone, Debug)]
pub(crate) enum Type {
    /// No type was recorded (a member call whose function is not declared): Go prints a nil
    /// `*exprpb.Type` as `<nil>`.
    Unknown,
    /// The type of an expression that failed to check.
    Error,
    Dyn,
    Null,
    Bool,
    Int,
    Uint,
    Double,
    String,
    Bytes,
    Timestamp,
    Duration,
    List(Box<Type>),
    Map(Box<Type>, Box<Type>),
    /// An object type of a schema, known by name; its fields are its declaration's.
    Object(Arc<DeclType>),
    /// An object type of a Kubernetes library, which has no fields: `kubernetes.URL`,
    /// `kubernetes.Quantity`.
    Named(&'static str),
    /// A type parameter of an overload (`A`) or a free type variable of the checker (`_var0`).
    Param(String),
    /// A type as a value: the type of `int` is `type(int)`, of `type` itself `type` (`None`).
    Meta(Option<Box<Type>>),
    /// An abstract type with parameters (`optional(A)`) or without (`kubernetes.URL`).
    Abstract(String, Vec<Type>),
}

impl PartialEq for Type {
    fn eq(&self, other: &Self) -> bool {
        use Type::*;
        match (self, other) {
            (Unknown, Unknown) | (Error, Error) | (Dyn, Dyn) | (Null, Null) | (Bool, Bool) => true,
            (Int, Int) | (Uint, Uint) | (Double, Double) | (String, String) | (Bytes, Bytes) => true,
            (Timestamp, Timestamp) | (Duration, Duration) => true,
            (List(a), List(b)) => a == b,
            (Map(k1, v1), Map(k2, v2)) => k1 == k2 && v1 == v2,
            // Go compares message types by name.
            (Object(a), Object(b)) => a.name() == b.name(),
            (Named(a), Named(b)) => a == b,
            (Param(a), Param(b)) => a == b,
            (Meta(a), Meta(b)) => a == b,
            (Abstract(n1, p1), Abstract(n2, p2)) => n1 == n2 && p1 == p2,
            _ => false,
        }
    }
}

/// `kindOf`'s classes, which decide how two types relate.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Unknown,
    Error,
    Dyn,
    Primitive,
    WellKnown,
    Null,
    Abstract,
    Type,
    List,
    Map,
    Object,
    Param,
}

impl Type {
    fn kind(&self) -> Kind {
        match self {
            Type::Unknown => Kind::Unknown,
            Type::Error => Kind::Error,
            Type::Dyn => Kind::Dyn,
            Type::Null => Kind::Null,
            Type::Bool | Type::Int | Type::Uint | Type::Double | Type::String | Type::Bytes => Kind::Primitive,
            Type::Timestamp | Type::Duration => Kind::WellKnown,
            Type::List(_) => Kind::List,
            Type::Map(..) => Kind::Map,
            Type::Object(_) | Type::Named(_) => Kind::Object,
            Type::Param(_) => Kind::Param,
            Type::Meta(_) => Kind::Type,
            Type::Abstract(..) => Kind::Abstract,
        }
    }

    /// A list of `elem`.
    pub(crate) fn list(elem: Type) -> Type {
        Type::List(Box::new(elem))
    }

    /// A map from `key` to `value`.
    pub(crate) fn map(key: Type, value: Type) -> Type {
        Type::Map(Box::new(key), Box::new(value))
    }

    /// `optional(elem)`.
    pub(crate) fn optional(elem: Type) -> Type {
        Type::Abstract("optional".into(), vec![elem])
    }

    pub(crate) fn is_dyn(&self) -> bool {
        matches!(self, Type::Dyn)
    }

    pub(crate) fn is_dyn_or_error(&self) -> bool {
        matches!(self, Type::Dyn | Type::Error)
    }

    /// The element type of `optional(T)`, and whether it was one.
    pub(crate) fn unwrap_optional(&self) -> (&Type, bool) {
        match self {
            Type::Abstract(name, params) if name == "optional" && params.len() == 1 => (&params[0], true),
            other => (other, false),
        }
    }
}

impl fmt::Display for Type {
    /// `FormatCheckedType`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Unknown => f.write_str("<nil>"),
            Type::Error => f.write_str("!error!"),
            Type::Dyn => f.write_str("dyn"),
            Type::Null => f.write_str("null"),
            Type::Bool => f.write_str("bool"),
            Type::Int => f.write_str("int"),
            Type::Uint => f.write_str("uint"),
            Type::Double => f.write_str("double"),
            Type::String => f.write_str("string"),
            Type::Bytes => f.write_str("bytes"),
            Type::Timestamp => f.write_str("timestamp"),
            Type::Duration => f.write_str("duration"),
            Type::List(elem) => write!(f, "list({elem})"),
            Type::Map(key, value) => write!(f, "map({key}, {value})"),
            Type::Object(decl) => f.write_str(decl.name()),
            Type::Named(name) => f.write_str(name),
            Type::Param(name) => f.write_str(name),
            Type::Meta(None) => f.write_str("type"),
            Type::Meta(Some(of)) => write!(f, "type({of})"),
            Type::Abstract(name, params) => {
                write!(f, "{name}(")?;
                for (i, param) in params.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{param}")?;
                }
                f.write_str(")")
            }
        }
    }
}

/// A type as cel-go v0.20's `FormatCELType` spells it: as v0.16's `FormatCheckedType` (the
/// `Display` of [`Type`]) but for `optional_type` and opaque types without parameters.
pub(crate) struct CelTypeName<'t>(pub(crate) &'t Type);

impl fmt::Display for CelTypeName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let spelled = |t: &Type| CelTypeName(t).to_string();
        match self.0 {
            Type::List(elem) => write!(f, "list({})", spelled(elem)),
            Type::Map(key, value) => write!(f, "map({}, {})", spelled(key), spelled(value)),
            Type::Meta(Some(of)) => write!(f, "type({})", spelled(of)),
            Type::Abstract(name, params) if params.is_empty() => f.write_str(name),
            Type::Abstract(name, params) => {
                let params: Vec<String> = params.iter().map(spelled).collect();
                let name = if name == "optional" { "optional_type" } else { name };
                write!(f, "{name}({})", params.join(", "))
            }
            other => write!(f, "{other}"),
        }
    }
}

/// The checker's substitutions of type parameters, keyed by the parameter's spelling as
/// Go keys them (`typeKey`).
#[derive(Clone, Debug, Default)]
pub(crate) struct Mapping(HashMap<String, Type>);

impl Mapping {
    pub(crate) fn add(&mut self, from: &Type, to: Type) {
        self.0.insert(from.to_string(), to);
    }

    fn find(&self, t: &Type) -> Option<&Type> {
        self.0.get(&t.to_string())
    }
}

/// `isEqualOrLessSpecific`.
fn is_equal_or_less_specific(t1: &Type, t2: &Type) -> bool {
    let (k1, k2) = (t1.kind(), t2.kind());
    if t1.is_dyn() || k1 == Kind::Param {
        return true;
    }
    if t2.is_dyn() || k2 == Kind::Param {
        return false;
    }
    if k1 != k2 {
        return false;
    }
    match (t1, t2) {
        (Type::Abstract(n1, p1), Type::Abstract(n2, p2)) => {
            n1 == n2 && p1.len() == p2.len() && p1.iter().zip(p2).all(|(a, b)| is_equal_or_less_specific(a, b))
        }
        (Type::List(e1), Type::List(e2)) => is_equal_or_less_specific(e1, e2),
        (Type::Map(k1, v1), Type::Map(k2, v2)) => {
            is_equal_or_less_specific(k1, k2) && is_equal_or_less_specific(v1, v2)
        }
        (Type::Meta(_), Type::Meta(_)) => true,
        _ => t1 == t2,
    }
}

/// `mostGeneral`.
pub(crate) fn most_general(t1: &Type, t2: &Type) -> Type {
    if is_equal_or_less_specific(t1, t2) {
        t1.clone()
    } else {
        t2.clone()
    }
}

/// `internalIsAssignable`: whether a value of `t2` may be used where `t1` is expected,
/// recording in `m` the substitutions that makes it so.
fn assignable(m: &mut Mapping, t1: &Type, t2: &Type) -> bool {
    let (k1, k2) = (t1.kind(), t2.kind());
    if k2 == Kind::Param {
        let (valid, has_sub) = valid_substitution(m, t1, t2);
        if valid {
            return true;
        }
        if has_sub {
            return false;
        }
    }
    if k1 == Kind::Param {
        return valid_substitution(m, t2, t1).0;
    }
    if t1.is_dyn_or_error() || t2.is_dyn_or_error() {
        return true;
    }
    match k1 {
        Kind::Null => return matches!(k2, Kind::Abstract | Kind::Object | Kind::Null | Kind::WellKnown),
        Kind::Primitive => return t1 == t2,
        _ if k1 != k2 => return false,
        _ => {}
    }
    match (t1, t2) {
        (Type::Abstract(n1, p1), Type::Abstract(n2, p2)) => n1 == n2 && assignable_list(m, p1, p2),
        (Type::List(e1), Type::List(e2)) => assignable(m, e1, e2),
        (Type::Map(k1, v1), Type::Map(k2, v2)) => assignable(m, k1, k2) && assignable(m, v1, v2),
        (Type::Object(_) | Type::Named(_), Type::Object(_) | Type::Named(_)) => t1 == t2,
        (Type::Meta(_), Type::Meta(_)) => true,
        (Type::Timestamp, _) | (Type::Duration, _) => t1 == t2,
        _ => false,
    }
}

/// `isValidTypeSubstitution`: (valid, t2 had a substitution).
fn valid_substitution(m: &mut Mapping, t1: &Type, t2: &Type) -> (bool, bool) {
    if t1.kind() == t2.kind() && t1 == t2 {
        return (true, true);
    }
    if let Some(sub) = m.find(t2).cloned() {
        if t1.kind() == sub.kind() && *t1 == sub {
            return (true, true);
        }
        if assignable(m, t1, &sub) {
            let general = most_general(t1, &sub);
            if not_referenced_in(m, t2, &general) {
                m.add(t2, general);
            }
            return (true, true);
        }
        return (false, true);
    }
    if not_referenced_in(m, t2, t1) {
        m.add(t2, t1.clone());
        return (true, false);
    }
    (false, false)
}

/// `internalIsAssignableList`.
fn assignable_list(m: &mut Mapping, l1: &[Type], l2: &[Type]) -> bool {
    l1.len() == l2.len() && l1.iter().zip(l2).all(|(a, b)| assignable(m, a, b))
}

/// `notReferencedIn`: whether `t` does not occur in `within` (no cyclic substitution).
fn not_referenced_in(m: &Mapping, t: &Type, within: &Type) -> bool {
    if t == within {
        return false;
    }
    match within {
        Type::Param(_) => match m.find(within) {
            Some(sub) => not_referenced_in(m, t, sub),
            None => true,
        },
        Type::Abstract(_, params) => params.iter().all(|p| not_referenced_in(m, t, p)),
        Type::List(elem) => not_referenced_in(m, t, elem),
        Type::Map(key, value) => not_referenced_in(m, t, key) && not_referenced_in(m, t, value),
        _ => true,
    }
}

/// `isAssignable`: the mapping extended so that `t2` fits `t1`, or `None`.
pub(crate) fn is_assignable(m: &Mapping, t1: &Type, t2: &Type) -> Option<Mapping> {
    let mut copy = m.clone();
    assignable(&mut copy, t1, t2).then_some(copy)
}

/// `isAssignableList`.
pub(crate) fn is_assignable_list(m: &Mapping, l1: &[Type], l2: &[Type]) -> Option<Mapping> {
    let mut copy = m.clone();
    assignable_list(&mut copy, l1, l2).then_some(copy)
}

/// `substitute`: `t` with the mapping's substitutions applied, and remaining type parameters
/// made `dyn` when `params_to_dyn`.
pub(crate) fn substitute(m: &Mapping, t: &Type, params_to_dyn: bool) -> Type {
    if let Some(sub) = m.find(t) {
        return substitute(m, sub, params_to_dyn);
    }
    match t {
        Type::Param(_) if params_to_dyn => Type::Dyn,
        Type::Abstract(name, params) => Type::Abstract(
            name.clone(),
            params.iter().map(|p| substitute(m, p, params_to_dyn)).collect(),
        ),
        Type::List(elem) => Type::list(substitute(m, elem, params_to_dyn)),
        Type::Map(key, value) => Type::map(substitute(m, key, params_to_dyn), substitute(m, value, params_to_dyn)),
        Type::Meta(Some(of)) => Type::Meta(Some(Box::new(substitute(m, of, params_to_dyn)))),
        other => other.clone(),
    }
}

impl DeclType {
    /// The CEL type of a value of this declaration.
    pub(crate) fn cel_type(self: &Arc<Self>) -> Type {
        match &self.shape {
            Shape::Scalar(scalar) => match scalar {
                Scalar::Bool => Type::Bool,
                Scalar::Int => Type::Int,
                Scalar::Double => Type::Double,
                Scalar::String => Type::String,
                Scalar::Bytes => Type::Bytes,
                Scalar::Duration => Type::Duration,
                Scalar::Timestamp => Type::Timestamp,
                Scalar::Dyn => Type::Dyn,
            },
            Shape::List(elem) => Type::list(elem.cel_type()),
            Shape::Map(value) => Type::map(Type::String, value.cel_type()),
            Shape::Object(_) => Type::Object(Arc::clone(self)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_should_spell_types_as_cel_go() {
        assert_eq!(
            Type::map(Type::String, Type::list(Type::Int)).to_string(),
            "map(string, list(int))"
        );
        assert_eq!(Type::optional(Type::Dyn).to_string(), "optional(dyn)");
        assert_eq!(Type::Meta(Some(Box::new(Type::Uint))).to_string(), "type(uint)");
        assert_eq!(Type::Unknown.to_string(), "<nil>");
        let optional = Type::map(Type::String, Type::optional(Type::String));
        assert_eq!(CelTypeName(&optional).to_string(), "map(string, optional_type(string))");
        let quantity = Type::Named("kubernetes.Quantity");
        assert_eq!(CelTypeName(&quantity).to_string(), "kubernetes.Quantity");
    }

    #[test]
    fn a_type_parameter_should_bind_to_the_first_type_and_refuse_another() {
        let a = Type::Param("A".into());
        let m = is_assignable_list(&Mapping::default(), &[Type::Int, Type::Int], &[a.clone(), a.clone()]);
        assert!(m.is_some());
        assert!(is_assignable_list(&Mapping::default(), &[Type::String, Type::Int], &[a.clone(), a]).is_none());
    }

    #[test]
    fn dyn_should_fit_anything_and_null_only_objects_and_abstract_types() {
        let m = Mapping::default();
        assert!(is_assignable(&m, &Type::Int, &Type::Dyn).is_some());
        assert!(is_assignable(&m, &Type::Null, &Type::Timestamp).is_some());
        assert!(is_assignable(&m, &Type::Null, &Type::Int).is_none());
        assert!(is_assignable(&m, &Type::Int, &Type::Uint).is_none());
    }

    #[test]
    fn substitution_should_resolve_chains_and_make_free_parameters_dyn() {
        let mut m = Mapping::default();
        m.add(&Type::Param("A".into()), Type::list(Type::Param("B".into())));
        m.add(&Type::Param("B".into()), Type::String);
        assert_eq!(
            substitute(&m, &Type::Param("A".into()), false),
            Type::list(Type::String)
        );
        assert_eq!(substitute(&m, &Type::Param("C".into()), true), Type::Dyn);
    }
}
