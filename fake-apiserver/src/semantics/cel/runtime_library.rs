//! The functions CRD rules run with, as kube-apiserver evaluates them on cel-go v0.16.1 (1.28) and v0.20.1 (1.31) (`common/types/*.go`, `interpreter/{interpretable,attributes}.go`, `ext/{strings,sets,formatting}.go`, `apiserver/pkg/cel/{url,quantity,ip,cidr}.go`, `apiserver/pkg/cel/library/{lists,regex,urls,quantity,ip,cidr}.go`), and the texts of its runtime errors. Every library of every minor is here: the checker decides which a rule may call.

mod conversions;
mod format;
mod ip;
mod lists;
mod net_url;
mod quantity;
mod regex;
mod strings;
mod time;
mod urls;

use cel::common::ast::{CallExpr, Expr};
use cel::common::value::{CowVal, Val};
use cel::parser::{Macro, MacroExprHelper};
use cel::{DeclarationError, Env, ExecutionError, IdedExpr, OverloadError, Value};

pub(crate) use format::{Clause, interpolate};

/// The environment every rule runs in, built once.
pub(crate) fn shared_env() -> &'static std::sync::Arc<Env> {
    static ENV: std::sync::OnceLock<std::sync::Arc<Env>> = std::sync::OnceLock::new();
    ENV.get_or_init(|| std::sync::Arc::new(kubernetes_env()))
}

/// The environment of a CRD rule's evaluation: the `cel` crate's standard library (with its
/// optional types) as cel-go behaves, ext strings (with version 1's `format` and `quote`), ext
/// sets, and Kubernetes' lists, regex, URL, quantity, IP and CIDR libraries.
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
pub(crate) fn kubernetes_env() -> Env {
    let mut env = Env::stdlib();
    with_libraries(&mut env).expect("the runtime library declares each overload and macro once");
    // cel-go keeps the last of a map literal's repeated keys.
    env.set_error_on_duplicate_map_keys(false);
    env
}

/// Whether evaluating `function(value)` fails, as cel-go's literal validators find out
/// (`evalCall` of `cel/validator.go`): `duration('1x')`, `timestamp('x')`, `matches('', '[')`.
pub(crate) fn call_fails(function: &str, value: Value) -> bool {
    const ARGUMENT: &str = "__k8s_literal__";
    let source = match function {
        // A pattern is compiled when the call runs; the text matched against does not count.
        "matches" => format!("matches('', {ARGUMENT})"),
        other => format!("{other}({ARGUMENT})"),
    };
    let Ok(program) = shared_env().parser().parse(&source) else {
        return false;
    };
    let mut context = cel::Context::with_env(shared_env().clone());
    context.add_variable_from_value(ARGUMENT, value);
    Value::resolve(&program, &context).is_err()
}

/// The standard calls cel-go evaluates differently: the function, whether it's called on a
/// target, and its argument count; the time accessors without a time zone are too.
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
];

fn with_libraries(env: &mut Env) -> Result<(), DeclarationError> {
    let accessors = time::ACCESSORS.iter().map(|&accessor| (accessor, true, 0));
    for (function, receiver, arg_count) in REDIRECTED.iter().copied().chain(accessors) {
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
    quantity::register(env)?;
    ip::register(env)?;
    format::register(env)?;
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
/// types (`no such overload: charAt(int, int)`); the time accessors are too, as kube-apiserver
/// sets `DefaultUTCTimeZone`.
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
        _ if GUARDED.contains(&function) || time::ACCESSORS.contains(&function) || function == "find" => {
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
/// `ConvertToType`'s failure for a value of a type it has no conversion from.
fn conversion_error(function: &str, value: &dyn Val, target: &str) -> ExecutionError {
    let from = value.get_type().name();
    go_error(function, format!("type conversion error from '{from}' to '{target}'"))
}

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

#[cfg(test)]
mod tests;
