//! The functions CRD rules run with, as kube-apiserver 1.28.7 evaluates them on cel-go v0.16.1 (`common/types/*.go`, `interpreter/{interpretable,attributes}.go`, `ext/strings.go` at version 0, `apiserver/pkg/cel/{url.go,library/lists.go,library/regex.go,library/urls.go}`), and the texts of its runtime errors.

mod conversions;
mod go_regexp;
mod lists;
mod net_url;
mod regex;
mod strings;
mod time;
mod urls;

use cel::common::ast::{CallExpr, Expr};
use cel::common::value::{CowVal, Val};
use cel::parser::{Macro, MacroExprHelper};
use cel::{DeclarationError, Env, ExecutionError, IdedExpr, OverloadError, Value};

/// The environment of a CRD rule's evaluation: the `cel` crate's standard library as cel-go
/// v0.16.1 behaves, ext strings version 0, and Kubernetes' lists, regex and URL libraries.
///
/// Where the crate's standard functions differ from cel-go's (the conversions `int`, `uint`,
/// `double`, `bool`, `string`, `duration` and `timestamp`, `matches`, the timestamp and duration
/// accessors without a time zone), macros of this environment rewrite the call to one of an
/// `@`-prefixed function of this library (`int(x)` to `@int(x)`, `t.getHours()` to
/// `@getHours(t)`): a call takes the first overload declared for its argument types, so the
/// standard ones can't be shadowed otherwise. Rules must therefore be compiled with
/// [`Env::compile`], which expands these macros with the standard ones; a program compiled with
/// [`cel::Program::compile`] runs the crate's own versions.
///
/// Known differences from kube-apiserver that remain:
/// - `sum()` of an empty list is `0` whatever the list's declared element type: the type is
///   only known to the checker (cel-go returns `0u`, `0.0` or `duration('0s')` for those).
/// - `timestamp(s)` rejects zone offsets of 24 hours or more (`+24:00`), which Go accepts; the
///   `timestamp` values of the crate cannot hold them.
/// - `double(s)` rejects hexadecimal mantissas (`0x1p-2`), which Go's `ParseFloat` takes.
/// - The accessors with a time zone (`getHours('+05:30')`) are the crate's: they reject numeric
///   offsets out of `[-23, 23]` hours or `[0, 59]` minutes, which Go takes as they are, and
///   report unparsable ones with Rust's text rather than `strconv.Atoi`'s. `'Local'` is an
///   unknown zone (Go reads the server's).
/// - `string(double)` may pick the other of two equally short digit strings when both are as
///   close to the value (Go prints `1.0000000000000002e+15` for `1e15 + 0.3`, Rust's `...3`).
/// - Regular expressions are the `regex` crate's, read with Go's syntax and errors: a Unicode
///   script (`\p{Greek}`) only one of Go 1.21's and the crate's Unicode versions knows, and
///   nested repetitions whose counts multiply past 1000 (`(a{500}){3}`, an error in Go) differ.
/// - Selecting a field of, or indexing, a scalar reports `no such key` without the key (the
///   crate's error does not carry it); `has()` on a scalar is an error where Go says `false`;
///   `-` of a `duration` (only reachable through `dyn`) is an error where Go negates it; a
///   missing `double` map key prints as Rust does (`no such key: 1000000000000000000000` for
///   Go's `1e+21`).
/// - The quantity library (`quantity()`, `isQuantity()`, ...) of 1.28's stored rules is not
///   provided.
pub(crate) fn kubernetes_env() -> Env {
    let mut env = Env::stdlib();
    with_libraries(&mut env).expect("the runtime library declares each overload and macro once");
    // cel-go keeps the last of a map literal's repeated keys.
    env.set_error_on_duplicate_map_keys(false);
    env
}

/// The standard calls cel-go evaluates differently: the function, whether it's called on a
/// target, and its argument count.
const REDIRECTED: &[(&str, bool, usize)] = &[
    ("int", false, 1),
    ("uint", false, 1),
    ("double", false, 1),
    ("bool", false, 1),
    ("string", false, 1),
    ("duration", false, 1),
    ("timestamp", false, 1),
    ("matches", false, 2),
    ("matches", true, 1),
    ("getFullYear", true, 0),
    ("getMonth", true, 0),
    ("getDayOfYear", true, 0),
    ("getDayOfMonth", true, 0),
    ("getDate", true, 0),
    ("getDayOfWeek", true, 0),
    ("getHours", true, 0),
    ("getMinutes", true, 0),
    ("getSeconds", true, 0),
    ("getMilliseconds", true, 0),
];

fn with_libraries(env: &mut Env) -> Result<(), DeclarationError> {
    for &(function, receiver, arg_count) in REDIRECTED {
        let replacement = format!("@{function}");
        // `x.f(a)` and `f(x, a)` become `@f(x, a)`.
        let expander =
            move |helper: &mut MacroExprHelper<'_>, target: &mut Option<IdedExpr>, args: &mut Vec<IdedExpr>| {
                let mut call_args: Vec<IdedExpr> = target.take().into_iter().collect();
                call_args.append(args);
                let call = CallExpr {
                    func_name: replacement.clone(),
                    target: None,
                    args: call_args,
                };
                Ok(Some(helper.next_expr(Expr::Call(call))))
            };
        let redirect = if receiver {
            Macro::receiver(function, arg_count, expander)
        } else {
            Macro::global(function, arg_count, expander)
        };
        env.add_macro(redirect)?;
    }
    conversions::register(env)?;
    time::register(env)?;
    regex::register(env)?;
    strings::register(env)?;
    lists::register(env)?;
    urls::register(env)
}

/// The text cel-go v0.16.1 gives the runtime failure `error`, as kube-apiserver embeds it in
/// `<text> evaluating rule: <rule>` (or, for `no such overload...`, in
/// `'<text>': call arguments did not match a supported operator, function or macro signature`).
pub(crate) fn go_error_text(error: &ExecutionError) -> String {
    const NO_SUCH_OVERLOAD: &str = "no such overload";
    match error {
        // The library's own failures already carry cel-go's text; the crate's time zone
        // errors ("unknown time zone X") match Go's.
        ExecutionError::FunctionError { message, .. } => message.clone(),
        ExecutionError::NoSuchKey(key) => format!("no such key: {key}"),
        ExecutionError::DivisionByZero(_) => "division by zero".to_owned(),
        ExecutionError::RemainderByZero(_) => "modulus by zero".to_owned(),
        ExecutionError::Overflow(_, lhs, rhs) => overflow_text(lhs, rhs).to_owned(),
        ExecutionError::IndexOutOfBounds(index) => {
            format!("index out of bounds: {}", go_value(index))
        }
        ExecutionError::UnsupportedIndex(index, _) => {
            format!("unsupported index value {} in list", go_value(index))
        }
        ExecutionError::NoSuchOverload(overload) => overload_text(overload),
        ExecutionError::UnsupportedBinaryOperator(operator, lhs, _) => arithmetic_text(operator, lhs),
        // A comprehension over a value that is not a list or a map (`interpretable.go`'s fold).
        ExecutionError::UnexpectedType { got, want } if want == "iterable" => {
            format!("got '{}', expected iterable type", go_value_type(got))
        }
        ExecutionError::InternalError(message) => message.clone(),
        ExecutionError::UndeclaredReference(_) | ExecutionError::DuplicateKey(_) => error.to_string(),
        _ => NO_SUCH_OVERLOAD.to_owned(),
    }
}

/// `overflow.go`'s checked arithmetic: a `timestamp` leaving years 1 to 9999, or an integer
/// (durations are `int64` nanoseconds, so theirs too) leaving its range.
fn overflow_text(lhs: &Value, rhs: &Value) -> &'static str {
    match (lhs, rhs) {
        (Value::UInt(_), _) => "unsigned integer overflow",
        (Value::Timestamp(_), Value::Duration(_)) | (Value::Duration(_), Value::Timestamp(_)) => "timestamp overflow",
        _ => "integer overflow",
    }
}

/// An arithmetic operator on operands it doesn't take: cel-go calls the left operand's trait
/// (`Int.Add` of a string is "no such overload"), or its `Receive` when it has no such trait
/// but is a receiver (strings, timestamps and durations), else reports the operator.
fn arithmetic_text(operator: &str, lhs: &Value) -> String {
    use Value::{Bytes, Duration, Float, Int, List, String, Timestamp, UInt};
    let (symbol, has_trait) = match operator {
        "add" => (
            "_+_",
            matches!(lhs, Int(_) | UInt(_) | Float(_) | String(_) | Bytes(_) | List(_)),
        ),
        "sub" => ("_-_", matches!(lhs, Int(_) | UInt(_) | Float(_))),
        "mul" => ("_*_", matches!(lhs, Int(_) | UInt(_) | Float(_))),
        "div" => ("_/_", matches!(lhs, Int(_) | UInt(_) | Float(_))),
        _ => ("_%_", matches!(lhs, Int(_) | UInt(_))),
    };
    if has_trait || matches!(lhs, String(_) | Timestamp(_) | Duration(_)) {
        "no such overload".to_owned()
    } else {
        format!("no such overload: {symbol}")
    }
}

/// The functions cel-go declares with `cel.Function`, whose guard reports the call's runtime
/// types (`no such overload: charAt(int, int)`); the time accessors are among them as
/// kube-apiserver sets `DefaultUTCTimeZone`.
const GUARDED: &[&str] = &[
    "charAt",
    "indexOf",
    "lastIndexOf",
    "lowerAscii",
    "replace",
    "split",
    "substring",
    "trim",
    "upperAscii",
    "join",
    "isSorted",
    "sum",
    "min",
    "max",
    "findAll",
    "url",
    "getScheme",
    "getHost",
    "getHostname",
    "getPort",
    "getEscapedPath",
    "getQuery",
    "isURL",
    "getFullYear",
    "getMonth",
    "getDayOfYear",
    "getDayOfMonth",
    "getDate",
    "getDayOfWeek",
    "getHours",
    "getMinutes",
    "getSeconds",
    "getMilliseconds",
    "hasValue",
    "value",
    "or",
    "orValue",
];

/// The runtime types that implement `traits.Receiver`: their member functions come back
/// "no such overload" without details.
const RECEIVERS: &[&str] = &["string", "google.protobuf.Timestamp", "google.protobuf.Duration"];

fn overload_text(overload: &OverloadError) -> String {
    let function = overload.function();
    let types = overload.argument_types();
    let first = types.first().map_or("", String::as_str);
    let numeric = |t: &String| matches!(t.as_str(), "int" | "uint" | "double");
    let comparer = matches!(first, "int" | "uint" | "double" | "bool" | "string" | "bytes");
    let receiver = RECEIVERS.contains(&first);
    match function {
        // Numbers compare across types, so two that don't compare are a NaN.
        "_<_" | "_<=_" | "_>_" | "_>=_" if types.iter().all(numeric) => "NaN values cannot be ordered".to_owned(),
        "_<_" | "_<=_" | "_>_" | "_>=_" if !comparer && !receiver => {
            format!("no such overload: {function}")
        }
        "-_" if !receiver && first != "bool" => format!("no such overload: {function}"),
        "_[_]" | "_._" if first == "list" => format!(
            "unsupported index type '{}' in list",
            types.get(1).map_or("", String::as_str)
        ),
        // `attributes.go` reports the missing key, which the crate's error doesn't carry.
        "_[_]" | "_._" => "no such key".to_owned(),
        "size" | "contains" | "startsWith" | "endsWith" if !receiver => {
            format!("no such overload: {function}")
        }
        // A constant pattern is compiled ahead, and its call reports the bare text.
        "find" | "findAll" if first != "string" => "no such overload".to_owned(),
        _ if GUARDED.contains(&function) || function == "find" => {
            format!("no such overload: {function}({})", types.join(", "))
        }
        _ => "no such overload".to_owned(),
    }
}

/// A value as Go's `%v` prints it in an error.
fn go_value(value: &Value) -> String {
    match value {
        Value::Int(i) => i.to_string(),
        Value::UInt(u) => u.to_string(),
        Value::Float(f) => conversions::format_double(*f),
        Value::String(s) => s.to_string(),
        Value::Bool(b) => b.to_string(),
        other => format!("{other:?}"),
    }
}

/// A CEL type's Go value type, as `%T` prints it.
fn go_value_type(cel_type: &str) -> String {
    let go = match cel_type {
        "int" => "Int",
        "uint" => "Uint",
        "double" => "Double",
        "string" => "String",
        "bool" => "Bool",
        "bytes" => "Bytes",
        "null_type" => "Null",
        "google.protobuf.Timestamp" => "Timestamp",
        "google.protobuf.Duration" => "Duration",
        other => return other.to_owned(),
    };
    format!("types.{go}")
}

/// A failure of the library's own functions, carrying cel-go's `text`.
fn go_error(function: &str, text: impl Into<String>) -> ExecutionError {
    ExecutionError::function_error(function, text.into())
}

/// `function` called on arguments of types none of its overloads takes.
fn no_such_overload(function: &str, args: &[CowVal<'_, '_>]) -> ExecutionError {
    let types = args.iter().map(|arg| arg.get_type().name().to_owned());
    ExecutionError::no_such_member_overload(function, types.collect())
}

/// The arguments of a call to a function of `N` parameters (the target of a member one first).
fn arguments<'a, 'b, 'v, const N: usize>(
    args: &'a [CowVal<'b, 'v>],
) -> Result<[&'a (dyn Val + 'v); N], ExecutionError> {
    let values: Vec<&'a (dyn Val + 'v)> = args.iter().map(AsRef::as_ref).collect();
    values
        .try_into()
        .map_err(|_| ExecutionError::invalid_argument_count(N, args.len()))
}

/// Evaluates `source` in [`kubernetes_env`], reporting failures as cel-go words them.
#[cfg(test)]
fn evaluate(source: &str) -> Result<Value, String> {
    use std::sync::{Arc, OnceLock};
    static ENV: OnceLock<Arc<Env>> = OnceLock::new();
    let env = ENV.get_or_init(|| Arc::new(kubernetes_env()));
    let program = env.compile(source).map_err(|e| format!("parse error: {e}"))?;
    program
        .execute(&cel::Context::with_env(Arc::clone(env)))
        .map_err(|error| go_error_text(&error))
}

#[cfg(test)]
mod tests {
    use super::evaluate;
    use cel::Value;

    /// `expected` is what cel-go v0.16.1 evaluates `source` to, in kube-apiserver 1.28's
    /// environment.
    fn check(source: &str, expected: Result<Value, &str>) {
        assert_eq!(evaluate(source), expected.map_err(str::to_owned), "{source}");
    }

    #[test]
    fn the_standard_macros_expand_along_with_the_redirections() {
        check("[1, 2].all(x, x > 0) && has({'a': 1}.a)", Ok(true.into()));
        check("[1, 2].map(x, x * 2).filter(x, x > 2)", Ok(vec![4].into()));
    }

    #[test]
    fn arithmetic_errors_read_as_cel_go_words_them() {
        // common/types/err.go
        check("100 / (1 - 1) > 1", Err("division by zero"));
        check("100 % (1 - 1) > 1", Err("modulus by zero"));
        check("1u / (1u - 1u) > 1u", Err("division by zero"));
        // common/types/overflow.go
        check("9223372036854775807 + 1 > 0", Err("integer overflow"));
        check("-(-9223372036854775807 - 1) > 0", Err("integer overflow"));
        check("3 * 3074457345618258603 > 0", Err("integer overflow"));
        check("0u - 1u > 0u", Err("unsigned integer overflow"));
        check(
            "duration('9223372036s') + duration('1s') > duration('0s')",
            Err("integer overflow"),
        );
        check(
            "timestamp('9999-12-31T23:59:59Z') + duration('1s') > timestamp('2000-01-01T00:00:00Z')",
            Err("timestamp overflow"),
        );
        check("1.0 / 0.0", Ok(f64::INFINITY.into()));
    }

    #[test]
    fn lookups_fail_as_attributes_go_resolves_them() {
        // interpreter/attributes.go, common/types/list.go's IndexOrError
        check("{'a': 1}['max'] > 0", Err("no such key: max"));
        check("{'a': {'b': 1}}.a.c > 0", Err("no such key: c"));
        check("{1: 2}[3] > 0", Err("no such key: 3"));
        check("[1][5] > 0", Err("index out of bounds: 5"));
        check("[1][-1] > 0", Err("index out of bounds: -1"));
        check("[1][dyn(1u)] > 0", Err("index out of bounds: 1"));
        check("[1][dyn(0.5)] > 0", Err("unsupported index value 0.5 in list"));
        check("[1][dyn('a')] > 0", Err("unsupported index type 'string' in list"));
        check("{1: 2}[dyn(1.0)]", Ok(2.into()));
    }

    #[test]
    fn mistyped_operands_are_no_such_overload() {
        // interpreter/interpretable.go: the left operand's trait, else its receiver, else the
        // operator; cel-go's Compare of a NaN.
        check("dyn(1) + dyn('a')", Err("no such overload"));
        check("dyn({}) + dyn(1)", Err("no such overload: _+_"));
        check("dyn(true) * dyn(1)", Err("no such overload: _*_"));
        check("dyn(b'a') - dyn(1)", Err("no such overload: _-_"));
        check("dyn([]) % dyn(1)", Err("no such overload: _%_"));
        check("dyn('a') < dyn(1)", Err("no such overload"));
        check("dyn({}) < dyn(1)", Err("no such overload: _<_"));
        check("dyn(null) < dyn(1)", Err("no such overload: _<_"));
        check("double('NaN') < 1.0", Err("NaN values cannot be ordered"));
        check("1 < double('NaN')", Err("NaN values cannot be ordered"));
        check("-dyn(1u)", Err("no such overload: -_"));
        check("-dyn(true)", Err("no such overload"));
        check("-dyn('a')", Err("no such overload"));
        check("!dyn(1)", Err("no such overload"));
        check("dyn(1) && true", Err("no such overload"));
        check("1 in dyn(1)", Err("no such overload"));
        check("size(dyn(1))", Err("no such overload: size"));
        check("dyn(1).contains('a')", Err("no such overload: contains"));
        check("dyn(1).startsWith('a')", Err("no such overload: startsWith"));
        check("'a'.endsWith(dyn(1))", Err("no such overload"));
        check("dyn(1).all(i, true)", Err("got 'types.Int', expected iterable type"));
        check(
            "dyn(null).exists(i, true)",
            Err("got 'types.Null', expected iterable type"),
        );
    }

    #[test]
    fn repeated_map_keys_keep_the_last_entry() {
        check("{'a': 1, 'a': 2}['a']", Ok(2.into()));
    }
}
